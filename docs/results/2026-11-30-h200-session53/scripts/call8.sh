# Session 53 call 8: the address-order kernel (eight warps, 128-key blocks) fed its split's pages
# unsorted, i.e. in key order (key8: page_sort.cuh's network compiled out, an experiment build)
# against HEAD, B1 rows only, three rounds at d128, two at d64.
set -u
S=docs/results/2026-11-30-h200-session53/scripts
T0=$(date +%s)
for b in head key8; do mkdir -p /tmp/ab/$b && tar xJf .carry_s53/$b.tar.xz -C /tmp/ab/$b; done
run() {  # build label dims
  if [ $(( $(date +%s) - T0 )) -gt ${DEADLINE:-300} ]; then echo "deadline: skipped $2"; return; fi
  PYTHONPATH=/tmp/ab/$1/py timeout 150 python3 $S/paged_ab.py $2 $3 b1 >> $OUT/ab.txt 2>&1 || echo "rc=$? $2"
}
for r in 1 2 3; do for b in head key8; do run $b ${b}_r$r 128; done; done
for r in 1 2; do for b in key8 head; do run $b ${b}_r$r 64; done; done
python3 $S/paged_ab_table.py $OUT/ab.txt head key8
echo "A/B done at $(( $(date +%s) - T0 )) s"
