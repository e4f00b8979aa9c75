# Session 38, device call 5 (H200): the half-width first key block, Q K^T only, at d128 (a causal
# consumer whose rows end in the first half of the walk's first 128-key block computes S over those
# 64 keys into accumulators of its own; P V stays whole), against b84142d (shifted tiles).
# Carry .carry_s38: bundle/ (this build), new.tar.xz (its py tree), shift.tar.xz (b84142d's).
# 1. memcheck + racecheck over scripts/san_partial_tiles.py in parallel with the suites;
# 2. ab_kernels.py forward rows d64 / d96 / d128 (paper grid S 1024 / 4096 / 16384 and the feature
#    rows), shift vs this build in alternating processes; partial_tiles_bench.py d64 / d128.
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
C=.carry_s38
S=docs/results/2026-11-29-h200-session38/scripts
t0=$(date +%s)
for v in shift new; do mkdir -p /tmp/ab/$v && tar xJf $C/$v.tar.xz -C /tmp/ab/$v; done
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for tool in memcheck racecheck; do
  (PYTHONPATH=/tmp/ab/new/py timeout 300 $SAN --tool $tool --error-exitcode 3 --kernel-name kns=fwd_kernel \
     python3 $S/san_partial_tiles.py > $OUT/san_$tool.log 2>&1; echo "== $tool rc=$?") &
done
SUITES_WORK=/tmp/gs5 CARRY=$C/bundle SUITES="gpu_h200:240 gpu_h200_features:280 gpu_h200_edge:200 gpu_h200_fuzz:300 gpu_h200_kvcache:300" \
  OUT=$OUT/suites bash tools/bench/gpu_suites.sh 2>&1 | tail -10
echo "suites done at $(( $(date +%s) - t0 )) s"
wait
for tool in memcheck racecheck; do echo "-- $tool"; grep -E "SUMMARY|^ok|Error|error" $OUT/san_$tool.log | head -5; done
echo "checks done at $(( $(date +%s) - t0 )) s"
ab() {  # build label dtype extra-args...
  local v=$1 lab=$2 dt=$3; shift 3
  [ $(( $(date +%s) - t0 )) -gt 380 ] && { echo "time guard: skipped $lab"; return; }
  PYTHONPATH=/tmp/ab/$v/py timeout 90 python3 tools/bench/ab_kernels.py --label $lab --dtype $dt --passes fwd \
    --rep 30 "$@" >> $OUT/ab.txt 2>&1
}
for r in 1 2; do for v in shift new; do ab $v ${v}_r$r bf16 --dims 128 --seqlens 1024,2048,4096,16384; done; done
for v in shift new; do ab $v ${v}_r3 fp16 --dims 128 --seqlens 1024,2048,4096,16384; done
python3 docs/results/2026-11-28-h200-session31/scripts/tab.py $OUT/ab.txt shift new
echo "ab done at $(( $(date +%s) - t0 )) s"
bench() {  # build dtype
  [ $(( $(date +%s) - t0 )) -gt 430 ] && { echo "time guard: skipped $1 $2"; return; }
  PYTHONPATH=/tmp/ab/$1/py:tools/bench timeout 60 python3 $S/partial_tiles_bench.py --label $1 --dtypes $2 --dims 128 --full_dims 0 --dense 1000,2000,3000 >> $OUT/bench.txt 2>&1
}
bench shift bf16; bench new bf16; bench shift fp16; bench new fp16
python3 - $OUT/bench.txt <<'PY'
import sys, collections
best = collections.defaultdict(dict)
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) < 8 or f[-1] != "TFLOP/s": continue
    key = " ".join(f[1:-4]); best[key][f[0]] = max(best[key].get(f[0], 0), float(f[-2]))
for key, v in best.items():
    if "shift" in v and "new" in v: print("%-44s shift %7.1f new %7.1f %.3f" % (key, v["shift"], v["new"], v["new"] / v["shift"]))
PY
echo "all done at $(( $(date +%s) - t0 )) s"
tar czf /tmp/call.tgz -C $OUT . && rm -rf $OUT/* && mv /tmp/call.tgz $OUT/
