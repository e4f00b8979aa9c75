# Call 3 (session 51): per-CTA stamps of the split decode kernel (a build whose decode kernel prints
# its CTA, SM, globaltimer at entry / exit and clock64 cycles: stamps.tar.xz, not landed), B1 rows,
# contiguous, page 16 (address order, shuffled and in order), page 16 forced key order, page 256.
set -u
OUT=${OUT:?}
S=docs/results/2026-11-30-h200-session51/scripts
mkdir -p /tmp/s && tar xJf .carry_s51/stamps.tar.xz -C /tmp/s
export PYTHONPATH=/tmp/s/py
for row in "8 131072" "32 65536"; do
for lay in contig page16 page16inorder page16key page256; do
  f=$OUT/stamps_$(echo $row | tr ' ' _)_$lay.txt
  timeout 60 python3 $S/decode_ncu.py $row $lay 0 2>&1 | grep STAMP > $f
  python3 $S/stamps_summary.py $f "$row $lay"
done
done
echo "done at $SECONDS s"
