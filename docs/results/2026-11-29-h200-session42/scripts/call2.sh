# Session 42, device call 2 (H200): where a step of the head-dim-64 backward goes with the dQ GEMM
# one step late, with (`trskew`) and without (`trlag`) consumer 1 started half a step behind:
# session 41's clock64 stamps (bwd_trace.diff, re-applied to the lagged loop: point 10 is now the
# wait for the other consumer's dS^T of the step before) through session 41's bwd_timeline.py
# (--rows d64; the copy this call ran differed only in those rows and the skew percentiles it
# prints, both now options / output of session 41's script).
# Carry .carry_s42: trlag / trskew .tar.xz (py trees of the traced builds).
set -u
cd "$(dirname "$0")/../../../.."
export CARRY=.carry_s42 DC_DEADLINE=400
. tools/bench/device_call.sh
dc_unpack trlag trskew
for b in trlag trskew; do
  echo "== $b"
  PYTHONPATH=$DC_AB/$b/py:tools/bench python3 docs/results/2026-11-29-h200-session41/scripts/bwd_timeline.py --rows d64 --out $OUT/$b 2>&1 | tail -12
done
dc_finish
