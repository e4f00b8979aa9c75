# Session 23 call 3 (H100): kernel-only A/B of the sm90a backward, HEAD (base) against the change
# (new: the producer's stage wait suspended, the per-step divisions by a multiply-high, the dQ
# slice stored without row checks inside the sequence), alternating processes: bf16 two rounds,
# fp16 one, default and deterministic backward plus the feature rows (window, softcap, sink);
# then the GPU suites on the new build in parallel.
set -u
cd "$(dirname "$0")/../../../.."
S=docs/results/2026-11-27-h100-session23/scripts
CARRY=.carry_s23c VARIANTS="base new" REPS=2 OUT=/tmp/ab_bf16 \
  AB_ARGS="--dtype bf16 --dims 64,128 --passes bwd --det --sink --seqlens 1024,4096,16384 --rep 20" \
  bash tools/bench/ab_kernels.sh > $OUT/ab_bf16_table.txt 2>&1
cat $OUT/ab_bf16_table.txt
CARRY=.carry_s23c VARIANTS="base new" REPS=1 OUT=/tmp/ab_fp16 \
  AB_ARGS="--dtype fp16 --dims 64,128 --passes bwd --det --seqlens 1024,4096,16384 --rep 20" \
  bash tools/bench/ab_kernels.sh > $OUT/ab_fp16_table.txt 2>&1
cat $OUT/ab_fp16_table.txt
cat /tmp/ab_bf16/ab.log /tmp/ab_fp16/ab.log | gzip > $OUT/ab_rows.log.gz
echo "A/B done at $SECONDS s"
CARRY=.carry_s23c SUITES="gpu_h100_bwd:300 gpu_h100_features:300 gpu_h100_sanitizer:300 gpu_h100_edge:200" \
  OUT=/tmp/suites bash tools/bench/gpu_suites.sh 2>&1 | tail -12
tail -3 /tmp/suites/gpu_h100_sanitizer_test.log
tar czf $OUT/suites_logs.tgz -C /tmp/suites .
echo "done at $SECONDS s"
