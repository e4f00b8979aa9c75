# Session 24 call 1 (H100): kernel-only A/B of the sm90a backward, main (HEAD) against `wide` (the
# backward's wgmma descriptors advanced by one 64-bit add), alternating processes; then the
# backward and feature suites on the wide build in parallel.
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
CARRY=.carry VARIANTS="main wide" REPS=2 OUT=/tmp/ab_bf16 \
  AB_ARGS="--dtype bf16 --dims 64,128 --passes bwd --det --seqlens 1024,4096,16384 --rep 20" \
  bash tools/bench/ab_kernels.sh > $OUT/ab_bf16_table.txt 2>&1
cat $OUT/ab_bf16_table.txt
echo "bf16 A/B done at $SECONDS s"
CARRY=.carry VARIANTS="main wide" REPS=1 OUT=/tmp/ab_fp16 \
  AB_ARGS="--dtype fp16 --dims 64,128 --passes bwd --nofeatures --seqlens 1024,4096,16384 --rep 20" \
  bash tools/bench/ab_kernels.sh > $OUT/ab_fp16_table.txt 2>&1
cat $OUT/ab_fp16_table.txt
echo "fp16 A/B done at $SECONDS s"
CARRY=.carry VARIANTS="main wide" REPS=1 OUT=/tmp/ab_wide \
  AB_ARGS="--dtype bf16 --dims 96,192,256 --passes bwd --nofeatures --seqlens 1024,4096 --rep 20" \
  bash tools/bench/ab_kernels.sh > $OUT/ab_hd_table.txt 2>&1
cat $OUT/ab_hd_table.txt
cat /tmp/ab_bf16/ab.log /tmp/ab_fp16/ab.log /tmp/ab_wide/ab.log | gzip > $OUT/ab_rows.log.gz
echo "A/B done at $SECONDS s"
left=$((570 - SECONDS - 20))
CARRY=.carry SUITES="gpu_h100_bwd:$left gpu_h100_features:$left" \
  OUT=/tmp/suites bash tools/bench/gpu_suites.sh 2>&1 | tail -12
tar czf $OUT/suites_logs.tgz -C /tmp/suites .
echo "done at $SECONDS s"
