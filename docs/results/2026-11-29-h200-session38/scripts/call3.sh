# Session 38, device call 3 (H200): shifted forward tiles (fwd_tile_shift_unit: shifts in multiples of
# gcd(block_m, block_n) only; call 2 measured every partial sequence bottom-aligned).
# Carry .carry_s38: bundle/ (this build), new.tar.xz (its py tree), head.tar.xz (session 37's final).
# 1. compute-sanitizer memcheck + racecheck over scripts/san_partial_tiles.py (forward kernels),
#    in parallel with the suites: forward, features, edge, fuzz, paged forward, kvcache, hf;
# 2. scripts/partial_tiles_bench.py, HEAD vs this build in alternating processes.
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
C=.carry_s38
S=docs/results/2026-11-29-h200-session38/scripts
t0=$(date +%s)
for v in head new; do mkdir -p /tmp/ab/$v && tar xJf $C/$v.tar.xz -C /tmp/ab/$v; done
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for tool in memcheck racecheck; do
  (PYTHONPATH=/tmp/ab/new/py timeout 420 $SAN --tool $tool --error-exitcode 3 --kernel-name kns=fwd_kernel \
     python3 $S/san_partial_tiles.py > $OUT/san_$tool.log 2>&1; echo "== $tool rc=$?") &
done
SUITES_WORK=/tmp/gs3 CARRY=$C/bundle SUITES="gpu_h200:240 gpu_h200_features:280 gpu_h200_edge:200 gpu_h200_fuzz:300 gpu_h200_paged_forward:240 gpu_h200_kvcache:300 gpu_h200_hf:200" \
  OUT=$OUT/suites bash tools/bench/gpu_suites.sh 2>&1 | tail -10
echo "suites done at $(( $(date +%s) - t0 )) s"
wait
for tool in memcheck racecheck; do echo "-- $tool"; grep -E "SUMMARY|^ok|Error|error" $OUT/san_$tool.log | head -5; done
echo "checks done at $(( $(date +%s) - t0 )) s"
bench() {  # build dtype
  [ $(( $(date +%s) - t0 )) -gt 470 ] && { echo "time guard: skipped $1 $2"; return; }
  PYTHONPATH=/tmp/ab/$1/py:tools/bench timeout 110 python3 $S/partial_tiles_bench.py --label $1 --dtypes $2 --dims 64,96,128,192,256 --full_dims 128 --dense 1000,1050,2000,3000,4096 >> $OUT/bench.txt 2>&1
}
bench head bf16; bench new bf16; bench head fp16; bench new fp16; bench new bf16; bench head bf16
python3 - $OUT/bench.txt <<'PY'
import sys, collections
best = collections.defaultdict(dict)
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) < 8 or f[-1] != "TFLOP/s": continue
    key = " ".join(f[1:-4]); best[key][f[0]] = max(best[key].get(f[0], 0), float(f[-2]))
for key, v in best.items():
    if "head" in v and "new" in v: print("%-44s head %7.1f new %7.1f %.3f" % (key, v["head"], v["new"], v["new"] / v["head"]))
PY
echo "all done at $(( $(date +%s) - t0 )) s"
tar czf /tmp/call.tgz -C $OUT . && rm -rf $OUT/* && mv /tmp/call.tgz $OUT/
