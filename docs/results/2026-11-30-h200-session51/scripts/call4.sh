# Call 4 (session 51): the batched decode rows at pages of 16 (unsplit: key order by rule) with the
# address order forced (test-only switch), against contiguous and forced key order; CUDA-graph time,
# medians of three interleaved rounds in one process per row, HEAD's kernels.
set -u
OUT=${OUT:?}
S=docs/results/2026-11-30-h200-session51/scripts
mkdir -p /tmp/h && tar xJf .carry_s51/head.tar.xz -C /tmp/h
export PYTHONPATH=/tmp/h/py
L=contig,page16,page16addr,page16key,page256
for row in "8 2048 --b 128 --hq 32" "8 4096 --b 64 --hq 64" "32 32768 --b 8 --hq 32" "32 8192 --b 32 --hq 32" "8 131072" "32 65536"; do
  set -- $row
  timeout 120 python3 $S/decode_ncu.py $1 $2 $L 0 --time ${@:3} 2>&1 | grep -v Warn | tee -a $OUT/time.txt
done
echo "done at $SECONDS s"
