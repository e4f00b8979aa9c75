# Session 38, device call 1 (H200): head dim 256's forward tile 128 x 48 with two Q buffers
# (HEAD: 128 x 64, one Q buffer), built with kVarlenSortedMax 64 so the shared storage fits.
# Carry .carry_s38: bundle/ (this build), new.tar.xz (its py tree), head.tar.xz (session 37's final).
# 1. suites: forward, features, edge, paged forward;
# 2. forward rows d256, HEAD vs this build, alternating processes, 2 rounds bf16, 1 fp16;
# 3. issue 15's cuDNN rows (d256, S 1024 / 4096 / 16384) beside SDPA cuDNN and flash, bf16 + fp16.
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
C=.carry_s38
t0=$(date +%s)
for v in head new; do mkdir -p /tmp/ab/$v && tar xJf $C/$v.tar.xz -C /tmp/ab/$v; done
SUITES_WORK=/tmp/gs1 CARRY=$C/bundle SUITES="gpu_h200:240 gpu_h200_features:280 gpu_h200_edge:200 gpu_h200_paged_forward:240" \
  OUT=$OUT/suites bash tools/bench/gpu_suites.sh 2>&1 | tail -8
echo "suites done at $(( $(date +%s) - t0 )) s"
ab() {  # build label dtype extra-args...
  local v=$1 lab=$2 dt=$3; shift 3
  [ $(( $(date +%s) - t0 )) -gt 420 ] && { echo "time guard: skipped $lab"; return; }
  PYTHONPATH=/tmp/ab/$v/py timeout 90 python3 tools/bench/ab_kernels.py --label $lab --dtype $dt --passes fwd \
    --nofeatures --rep 30 "$@" >> $OUT/ab.txt 2>&1
}
for r in 1 2; do for v in head new; do ab $v ${v}_r$r bf16 --dims 256 --seqlens 1024,2048,4096,16384; done; done
for v in head new; do ab $v ${v}_r3 fp16 --dims 256 --seqlens 1024,2048,4096,16384; done
python3 docs/results/2026-11-28-h200-session31/scripts/tab.py $OUT/ab.txt head new
echo "ab done at $(( $(date +%s) - t0 )) s"
for dt in bf16 fp16; do
  [ $(( $(date +%s) - t0 )) -gt 500 ] && { echo "time guard: skipped cudnn $dt"; continue; }
  PYTHONPATH=/tmp/ab/new/py timeout 60 python3 tools/bench/attention.py --grid=paper --mode=fwd --dtypes=$dt --head_dims=256 \
    --seqlens=1024,4096,16384 --backends=flashcore,cudnn,flash --rep_ms=60 --host_calls=0 --out_dir=$OUT/cudnn_$dt 2>&1 | tail -8
done
echo "all done at $(( $(date +%s) - t0 )) s"
tar czf /tmp/call.tgz -C $OUT . && rm -rf $OUT/* && mv /tmp/call.tgz $OUT/
