# Session 37, device call 5 (H200): call 4's build plus Q's and K's shared addresses broadcast from
# lane 0 in the forward's Q K^T at head dims 192 and 256 (their wgmma descriptors back in uniform
# registers: the 256 causal kernel's main loop had 119 R2UR moves, the 192 causal one 18; now 0).
# Carry .carry_s37: bundle/ (this build), new.tar.xz (its py tree), head.tar.xz.
# 1. suites: forward, features, edge, Hugging Face, paged forward;
# 2. forward rows d256 / d192, HEAD vs this build, alternating processes, 2 rounds bf16, 1 fp16;
# 3. issue 15's cuDNN rows (d192 / d256, S 1024 / 4096 / 16384, forward) on this build beside torch
#    SDPA's cuDNN and flash in one process, bf16 then fp16 (time permitting).
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
C=.carry_s37
t0=$(date +%s)
for v in head new; do mkdir -p /tmp/ab/$v && tar xJf $C/$v.tar.xz -C /tmp/ab/$v; done
SUITES_WORK=/tmp/gs5 CARRY=$C/bundle SUITES="gpu_h200:240 gpu_h200_features:280 gpu_h200_edge:200 gpu_h200_hf:200 gpu_h200_paged_forward:240" \
  OUT=$OUT/suites bash tools/bench/gpu_suites.sh 2>&1 | tail -8
echo "suites done at $(( $(date +%s) - t0 )) s"
ab() {  # build label dtype extra-args...
  local v=$1 lab=$2 dt=$3; shift 3
  [ $(( $(date +%s) - t0 )) -gt 380 ] && { echo "time guard: skipped $lab"; return; }
  PYTHONPATH=/tmp/ab/$v/py timeout 90 python3 tools/bench/ab_kernels.py --label $lab --dtype $dt --passes fwd \
    --nofeatures --rep 30 "$@" >> $OUT/ab.txt 2>&1
}
for r in 1 2; do for v in head new; do ab $v ${v}_r$r bf16 --dims 256,192 --seqlens 1024,4096,16384; done; done
for v in head new; do ab $v ${v}_r3 fp16 --dims 256,192 --seqlens 1024,4096,16384; done
python3 docs/results/2026-11-28-h200-session31/scripts/tab.py $OUT/ab.txt head new
echo "ab done at $(( $(date +%s) - t0 )) s"
for dt in bf16 fp16; do
  [ $(( $(date +%s) - t0 )) -gt 470 ] && { echo "time guard: skipped cudnn $dt"; continue; }
  PYTHONPATH=/tmp/ab/new/py timeout 75 python3 tools/bench/attention.py --grid=paper --mode=fwd --dtypes=$dt --head_dims=192,256 \
    --seqlens=1024,4096,16384 --backends=flashcore,cudnn,flash --rep_ms=60 --host_calls=0 --out_dir=$OUT/cudnn_$dt 2>&1 | tail -14
done
echo "all done at $(( $(date +%s) - t0 )) s"
tar czf /tmp/call.tgz -C $OUT . && rm -rf $OUT/* && mv /tmp/call.tgz $OUT/
