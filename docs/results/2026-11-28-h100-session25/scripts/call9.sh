# Session 25 call 9 (H100): the decode GEMMs stopped at the call's head dim (k16), against the
# landed predicated build (pred) and HEAD before the session (head): the KV-cache and paged-forward
# suites on k16; d128 cells head vs k16, two rounds alternating; head dims 80..256 pred vs k16.
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
S=docs/results/2026-11-28-h100-session25/scripts
CARRY=.carry SUITES="gpu_h100_kvcache:400 gpu_h100_paged_forward:300" OUT=/tmp/suites bash tools/bench/gpu_suites.sh 2>&1 | tail -3
grep -hE "^(FAILED|ERROR)" /tmp/suites/*_test.log | head -10
echo "suites done at $SECONDS s"
for v in head pred k16; do mkdir -p /tmp/s25/$v && tar xzf .carry/${v}_attention_bundle.tar.gz -C /tmp/s25/$v; done
for r in 1 2; do for v in head k16; do
  PYTHONPATH=/tmp/s25/$v/bundle/runfiles/_main/py timeout 100 python3 $S/decode_cells.py --tag "$v r$r" >> $OUT/cells_d128.log 2>&1
done; done
echo "d128 done at $SECONDS s"
for v in pred k16; do
  PYTHONPATH=/tmp/s25/$v/bundle/runfiles/_main/py timeout 100 python3 $S/decode_cells.py --tag "$v" --dims 80,96,112,200,256 --rows 1,3 >> $OUT/cells_dims.log 2>&1
done
echo "dims done at $SECONDS s"; cat $OUT/cells_dims.log
