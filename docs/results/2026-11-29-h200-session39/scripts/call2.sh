# Session 39, device call 2 (H200): Q ahead (the forward's producer loads the next tile's Q during
# this tile's key blocks). The timeline of its traced build (qat = qa + fwd_trace.diff), then
# kernel-only A/B of HEAD vs qa in alternating processes (bf16): the paper-grid forward rows of
# every head dim at S 1024 / 2048 / 16384 (with the window / softcap rows), and session 38's
# partial-tile rows (packed mixed / equal, dense S 1000 / 3000).
# Carry .carry_s39: head.tar.xz, qa.tar.xz, qat.tar.xz (py trees).
set -u
cd "$(dirname "$0")/../../../.."
export CARRY=.carry_s39 DC_DEADLINE=500
. tools/bench/device_call.sh
S=docs/results/2026-11-29-h200-session39/scripts
dc_unpack head qa qat
PYTHONPATH=$DC_AB/qat/py:tools/bench timeout 150 python3 $S/fwd_timeline.py --out $OUT/tl \
  --rows "d128 causal dense S1024,d64 causal dense S1024,d192,d128 causal packed,d128 full dense S1024" > $OUT/timeline_qa.txt 2>&1
echo "timeline done at $(dc_elapsed) s"
dc_ab 2 head qa -- --dtype bf16 --passes fwd --dims 64,96,128,192,256 --seqlens 1024,2048,16384 --rep 25
DC_AB_CMD="python3 docs/results/2026-11-29-h200-session38/scripts/partial_tiles_bench.py" \
  dc_ab 2 head qa -- --dtypes bf16 --dims 64,128,192 --full_dims 128 --dense 1000,3000 --rep 25
dc_table head qa
cat $OUT/timeline_qa.txt
rm -rf $OUT/tl
