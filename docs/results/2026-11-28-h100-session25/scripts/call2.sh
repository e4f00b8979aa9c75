# Session 25 call 2 (H100): the 18 decode cells on HEAD's build and on two decode ring shapes
# (s2c3: 2 stages, 3 CTAs an SM; s4c1: 4 stages, 1 CTA an SM), alternating processes, 2 rounds.
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
S=docs/results/2026-11-28-h100-session25/scripts
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu --format=csv,noheader
for v in ${VARIANTS:-head s2c3 s4c1}; do mkdir -p /tmp/s25/$v && tar xzf .carry/${v}_attention_bundle.tar.gz -C /tmp/s25/$v; done
for r in 1 2; do
  for v in ${VARIANTS:-head s2c3 s4c1}; do
    PYTHONPATH=/tmp/s25/$v/bundle/runfiles/_main/py timeout 150 python3 $S/decode_cells.py --tag "$v r$r" >> $OUT/cells.log 2>&1
    echo "$v r$r rc=$? at $SECONDS s"
  done
done

cat $OUT/cells.log
