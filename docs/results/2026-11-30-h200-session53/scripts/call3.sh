# Session 53 call 3: A/B of the decode TMA walk with warp-uniform copy operands (new) against HEAD,
# builds alternating in separate processes.
set -u
S=docs/results/2026-11-30-h200-session53/scripts
T0=$(date +%s)
for b in head new; do mkdir -p /tmp/ab/$b && tar xJf .carry_s53/$b.tar.xz -C /tmp/ab/$b; done
run() {  # build label dims
  if [ $(( $(date +%s) - T0 )) -gt ${DEADLINE:-470} ]; then echo "deadline: skipped $2"; return; fi
  PYTHONPATH=/tmp/ab/$1/py timeout 150 python3 $S/paged_ab.py $2 $3 >> $OUT/ab.txt 2>&1 || echo "rc=$? $2"
}
for r in 1 2; do for b in head new; do run $b ${b}_r$r 128; done; done
for b in head new; do run $b ${b}_r1 64,256; done
python3 $S/paged_ab_table.py $OUT/ab.txt head new
echo "elapsed $(( $(date +%s) - T0 )) s"
