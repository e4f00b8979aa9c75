# Session 53 call 10: head dim 128's address-order walk on four warps, keeping 128-key blocks
# (decode_sorted_tile_shape {128, 3, 1, false, 4} for head dims 65-128; 12 head blocks as HEAD)
# (wide4, an experiment build) against HEAD, B1 rows, three rounds at d128, none at d64 (unchanged).
set -u
S=docs/results/2026-11-30-h200-session53/scripts
T0=$(date +%s)
for b in head wide4; do mkdir -p /tmp/ab/$b && tar xJf .carry_s53/$b.tar.xz -C /tmp/ab/$b; done
run() {  # build label dims
  if [ $(( $(date +%s) - T0 )) -gt ${DEADLINE:-300} ]; then echo "deadline: skipped $2"; return; fi
  PYTHONPATH=/tmp/ab/$1/py timeout 150 python3 $S/paged_ab.py $2 $3 b1 >> $OUT/ab.txt 2>&1 || echo "rc=$? $2"
}
for r in 1 2 3; do for b in head wide4; do run $b ${b}_r$r 128; done; done
# (no d64 rounds: the d64 kernels are unchanged)
python3 $S/paged_ab_table.py $OUT/ab.txt head wide4
echo "A/B done at $(( $(date +%s) - T0 )) s"
