# Session 24 call 2b (H100): kernel-only A/B of the sm90a backward, HEAD (`head`) against `dvfirst`
# (dV += P^T dO issued right after P^T, behind dP^T; dS^T from P^T's 16-bit fragments; head dims
# 64 and 128 without the sink's gradient), alternating processes; the sink rows run the unchanged
# order in both builds (a control). Then the backward and feature suites on dvfirst.
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
CARRY=.carry VARIANTS="head dvfirst" REPS=2 OUT=/tmp/ab_bf16 \
  AB_ARGS="--dtype bf16 --dims 64,128 --passes bwd --det --sink --seqlens 1024,4096,16384 --rep 20" \
  bash tools/bench/ab_kernels.sh > $OUT/ab2_bf16_table.txt 2>&1
cat $OUT/ab2_bf16_table.txt
echo "bf16 A/B done at $SECONDS s"
CARRY=.carry VARIANTS="head dvfirst" REPS=1 OUT=/tmp/ab_fp16 \
  AB_ARGS="--dtype fp16 --dims 64,128 --passes bwd --seqlens 1024,4096,16384 --rep 20" \
  bash tools/bench/ab_kernels.sh > $OUT/ab2_fp16_table.txt 2>&1
cat $OUT/ab2_fp16_table.txt
cat /tmp/ab_bf16/ab.log /tmp/ab_fp16/ab.log | gzip > $OUT/ab2_rows.log.gz
echo "A/B done at $SECONDS s"
left=$((570 - SECONDS - 20))
CARRY=.carry SUITES="gpu_h100_bwd:$left gpu_h100_features:$left" \
  OUT=/tmp/suites bash tools/bench/gpu_suites.sh 2>&1 | tail -12
tar czf $OUT/suites2_logs.tgz -C /tmp/suites .
echo "done at $SECONDS s"
