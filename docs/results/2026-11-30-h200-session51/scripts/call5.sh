# Call 5 (session 51): split counts of the B1 rows at pages of 16 with the address order forced
# (more splits than SMs: the hardware hands the later CTAs to the SMs that finish first), against
# the heuristic's and contiguous; CUDA-graph time, medians of three interleaved rounds, HEAD.
set -u
OUT=${OUT:?}
S=docs/results/2026-11-30-h200-session51/scripts
mkdir -p /tmp/h && tar xJf .carry_s51/head.tar.xz -C /tmp/h
export PYTHONPATH=/tmp/h/py
for ns in 0 24 32 48 64; do
  timeout 100 python3 $S/decode_ncu.py 8 131072 contig,page16addr,page16key $ns --time 2>&1 | grep -v Warn | tee -a $OUT/time.txt
done
for ns in 0 6 8 12 16; do
  timeout 100 python3 $S/decode_ncu.py 32 65536 contig,page16addr,page16key $ns --time 2>&1 | grep -v Warn | tee -a $OUT/time.txt
done
echo "done at $SECONDS s"
