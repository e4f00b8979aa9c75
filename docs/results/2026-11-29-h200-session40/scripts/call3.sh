# Session 40, device call 3 (H200): head dim 192's short-rows tile (short: 128 x 64 for causal calls
# under 2048 keys; head = df25cf9, whose 192 kernels this build keeps). Kernel-only A/B in
# alternating processes (192 and the (192, 128) pair at S 1024 / 2048, bf16 three rounds, fp16 two;
# session 38's partial-tile rows at 192, two rounds); tools/bench/attention.py beside torch SDPA's
# cuDNN and flash on the short build (192 and 256 at S 1024 / 2048, bf16 and fp16, two runs); then
# memcheck + racecheck beside the suites on short.
# Carry .carry_s40: bundle/ (short), head.tar.xz, short.tar.xz (py trees).
set -u
cd "$(dirname "$0")/../../../.."
export CARRY=.carry_s40 DC_DEADLINE=330
. tools/bench/device_call.sh
dc_unpack head short
dc_ab 3 head short -- --dtype bf16 --passes fwd --dims 192,192:128 --seqlens 1024,2048 --nofeatures --rep 25
dc_ab 2 head short -- --dtype fp16 --passes fwd --dims 192,192:128 --seqlens 1024,2048 --nofeatures --rep 25
DC_AB_CMD="python3 docs/results/2026-11-29-h200-session38/scripts/partial_tiles_bench.py" \
  dc_ab 2 head short -- --dtypes bf16 --dims 192 --full_dims 128 --dense 1000,3000 --rep 25
dc_table head short
for r in 1 2; do for dt in bf16 fp16; do
  [ "$(dc_elapsed)" -gt 300 ] && { echo "time guard: skipped cudnn $dt r$r"; continue; }
  PYTHONPATH=$DC_AB/short/py timeout 60 python3 tools/bench/attention.py --grid=paper --mode=fwd --dtypes=$dt --head_dims=192,256 \
    --seqlens=1024,2048 --backends=flashcore,cudnn,flash --rep_ms=40 --host_calls=0 --out_dir=$OUT/cudnn_r${r}_$dt 2>&1 | grep -E "^(bf16|fp16) "
done; done
echo "cudnn rows done at $(dc_elapsed) s"
DC_SAN_TIMEOUT=280 dc_sanitize short docs/results/2026-11-29-h200-session38/scripts/san_partial_tiles.py
dc_suites "gpu_h200:200 gpu_h200_features:230 gpu_h200_edge:150 gpu_h200_hf:150"
dc_finish
