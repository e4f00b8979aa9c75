# Call 6 (session 51): is the page-16 cost the pages' physical scatter at large distances (TLB
# reach) or at any distance? Pages shuffled only within windows of 64 pages (2 MB of each cache at
# Hk8: one large page), 1024 and fully, in key order (the batched rows' rule) and as the rule
# picks; CUDA-graph time, medians of three interleaved rounds, HEAD.
set -u
OUT=${OUT:?}
S=docs/results/2026-11-30-h200-session51/scripts
mkdir -p /tmp/h && tar xJf .carry_s51/head.tar.xz -C /tmp/h
export PYTHONPATH=/tmp/h/py
L=contig,page16inorder,page16keylocal16,page16keylocal64,page16keylocal1024,page16key
for row in "8 2048 --b 128 --hq 32" "8 131072" "32 65536"; do
  set -- $row
  timeout 150 python3 $S/decode_ncu.py $1 $2 $L 0 --time ${@:3} 2>&1 | grep -v Warn | tee -a $OUT/time.txt
done
echo "done at $SECONDS s"
