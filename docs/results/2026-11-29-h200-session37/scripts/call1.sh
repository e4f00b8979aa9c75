# Session 37, device call 1 (H200): the one-Q-buffer forward kernels (d256, d192's long-rows tile)
# storing O from registers and freeing Q's buffer after the tile's last Q K^T. Carry .carry_s37:
# bundle/gpu_h200_bundle.tar.gz (this build: HEAD 3d49ecc + the change), new.tar.xz (its py tree),
# head.tar.xz (HEAD's py tree).
# 1. the suites, in parallel (this build also carries session 36's host-side follow-ups, which no
#    GPU had run): forward, features, edge, fuzz, Hugging Face, paged forward;
# 2. forward rows d256 / d192 / d96 (control: two Q buffers, SASS-identical), HEAD vs this build,
#    alternating processes, 2 rounds bf16, 1 round fp16.
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
C=.carry_s37
t0=$(date +%s)
for v in head new; do mkdir -p /tmp/ab/$v && tar xJf $C/$v.tar.xz -C /tmp/ab/$v; done
SUITES_WORK=/tmp/gs1 CARRY=$C/bundle SUITES="gpu_h200:240 gpu_h200_features:280 gpu_h200_edge:200 gpu_h200_fuzz:200 gpu_h200_hf:200 gpu_h200_paged_forward:240" \
  OUT=$OUT/suites bash tools/bench/gpu_suites.sh 2>&1 | tail -30
echo "suites done at $(( $(date +%s) - t0 )) s"
ab() {  # build label dtype extra-args...
  local v=$1 lab=$2 dt=$3; shift 3
  [ $(( $(date +%s) - t0 )) -gt 540 ] && { echo "time guard: skipped $lab"; return; }
  PYTHONPATH=/tmp/ab/$v/py timeout 90 python3 tools/bench/ab_kernels.py --label $lab --dtype $dt --passes fwd \
    --nofeatures --rep 30 "$@" >> $OUT/ab.txt 2>&1
}
for r in 1 2; do for v in head new; do ab $v ${v}_r$r bf16 --dims 256,192,96 --seqlens 1024,2048,4096,16384; done; done
for v in head new; do ab $v ${v}_r3 fp16 --dims 256,192 --seqlens 1024,4096,16384; done
python3 docs/results/2026-11-28-h200-session31/scripts/tab.py $OUT/ab.txt head new
echo "all done at $(( $(date +%s) - t0 )) s"
tar czf /tmp/call.tgz -C $OUT . && rm -rf $OUT/* && mv /tmp/call.tgz $OUT/
