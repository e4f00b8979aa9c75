# Session 29 call 2 (H200): is the TMA paged walk (session 28, measured on the H100 only) slower on
# the H200? Three rounds in alternating processes over issue 16's d128 rows (pages 16 / 256, random
# and physical order, and contiguous): "pretma" (dfb9789, the cp.async walk), and one experiment
# build of HEAD (exp_switches.diff) run with the TMA walk off, on with its rule's promotion (256 B
# at d128), and with 128 B, 64 B and no L2 promotion.
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
S=docs/results/2026-11-28-h100-session27/scripts  # decode_orders.py, ab_medians.py
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); echo "$GPU"
case "$GPU" in *H200*) KIND=h200;; *) KIND=h100;; esac
for b in pretma exp; do mkdir -p /tmp/ab/$b && tar xJf .carry_s29/$b.tar.xz -C /tmp/ab/$b; done
L=$OUT/call2_${KIND}_ab.log
for r in 1 2 3; do
  for v in pretma cpasync tma256 tma128 tma64 tma0; do
    case $v in
      pretma) P=/tmp/ab/pretma/py; E="";;
      cpasync) P=/tmp/ab/exp/py; E="FLASHCORE_EXP_DECODE_TMA=0";;
      tma256) P=/tmp/ab/exp/py; E="";;
      tma128) P=/tmp/ab/exp/py; E="FLASHCORE_EXP_L2PROMO=128";;
      tma64) P=/tmp/ab/exp/py; E="FLASHCORE_EXP_L2PROMO=64";;
      tma0) P=/tmp/ab/exp/py; E="FLASHCORE_EXP_L2PROMO=0";;
    esac
    env $E PYTHONPATH=$P timeout 120 python3 $S/decode_orders.py --tag "$v-$r" --pages 16,256 --orders random,inorder 2>&1 | grep -v Warning >> $L
    echo "$v-$r at $SECONDS s"
  done
done
for v in cpasync tma256 tma128 tma64 tma0; do echo "== pretma vs $v"; python3 $S/ab_medians.py $L pretma $v; done
echo "done at $SECONDS s"
