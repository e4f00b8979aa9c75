# Call 11 (session 51): call 10's one features failure (sm80_ptx, bf16 d128 sink, dsink) replayed
# with its seed and 40 fresh seeds on HEAD's build and on the landed one (their PTX is identical).
set -u
OUT=${OUT:?}
S=docs/results/2026-11-30-h200-session51/scripts
for b in head bounded3; do
  mkdir -p /tmp/$b && tar xJf .carry_s51/$b.tar.xz -C /tmp/$b
  echo "== $b"; PYTHONPATH=/tmp/$b/py:tests timeout 120 python3 $S/dsink_seed.py 40 2>&1 | grep -v Warn | tee $OUT/dsink_$b.txt
done
