# Session 29 call 3 (H200): call 2's L2-promotion finding at the other kernel head dims. Two rounds
# in alternating processes of the experiment build (exp_switches.diff): TMA walk off, on with the
# rule's promotion (HEAD: 128 B at d64, 256 B from d128), 128 B, none; issue 16's six rows at
# d64, d128 and d256, pages of 16 / 64 / 256 in random order.
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
S=docs/results/2026-11-28-h100-session27/scripts  # decode_orders.py, ab_medians.py
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); echo "$GPU"
case "$GPU" in *H200*) KIND=h200;; *) KIND=h100;; esac
mkdir -p /tmp/ab/exp && tar xJf .carry_s29/exp.tar.xz -C /tmp/ab/exp
L=$OUT/call3_${KIND}_ab.log
for r in 1 2; do
  for v in cpasync rule tma128 tma0; do
    case $v in
      cpasync) E="FLASHCORE_EXP_DECODE_TMA=0";;
      rule) E="";;
      tma128) E="FLASHCORE_EXP_L2PROMO=128";;
      tma0) E="FLASHCORE_EXP_L2PROMO=0";;
    esac
    env $E PYTHONPATH=/tmp/ab/exp/py timeout 150 python3 $S/decode_orders.py --tag "$v-$r" --dims 64,128,256 --pages 16,64,256 --orders random --contig 0 2>&1 | grep -v Warning >> $L
    echo "$v-$r at $SECONDS s"
  done
done
for v in cpasync tma128 tma0; do echo "== rule vs $v"; python3 $S/ab_medians.py $L rule $v; done
echo "done at $SECONDS s"
