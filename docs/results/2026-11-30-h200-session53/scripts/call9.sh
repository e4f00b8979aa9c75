# Session 53 call 9: the address-order walk at head dim 128 on the four-warp, 64-key-block shape
# (decode_sorted_tile_shape {64, 3, 1, false, 4} for head dims 65-128) with 24 head blocks (also d64)
# (sorted4, an experiment build) against HEAD, B1 rows only, three rounds at d128, two at d64.
set -u
S=docs/results/2026-11-30-h200-session53/scripts
T0=$(date +%s)
for b in head sorted4; do mkdir -p /tmp/ab/$b && tar xJf .carry_s53/$b.tar.xz -C /tmp/ab/$b; done
run() {  # build label dims
  if [ $(( $(date +%s) - T0 )) -gt ${DEADLINE:-300} ]; then echo "deadline: skipped $2"; return; fi
  PYTHONPATH=/tmp/ab/$1/py timeout 150 python3 $S/paged_ab.py $2 $3 b1 >> $OUT/ab.txt 2>&1 || echo "rc=$? $2"
}
for r in 1 2 3; do for b in head sorted4; do run $b ${b}_r$r 128; done; done
for r in 1 2; do for b in sorted4 head; do run $b ${b}_r$r 64; done; done
python3 $S/paged_ab_table.py $OUT/ab.txt head sorted4
echo "A/B done at $(( $(date +%s) - T0 )) s"
