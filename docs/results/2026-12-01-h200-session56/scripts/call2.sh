# Session 56 call 2 (`new`: + the test-only FLASHCORE_BWD_CHUNK_GROUPS): the backward's launch-order
# chunk width on GQA rows (bwd_chunk_widths.py: each width in its own process, two rounds), then
# the forward tiles at causal windows between 1024 and 2048 keys (fwd_window_tiles.py).
set -u
export CARRY=.carry_s56 DC_DEADLINE=560
. tools/bench/device_call.sh
dc_unpack new
PYTHONPATH=$DC_AB/new/py timeout 330 python3 docs/results/2026-12-01-h200-session56/scripts/bwd_chunk_widths.py \
  $OUT/bwd_chunk_widths.json 0 1 2 4 > $OUT/bwd_chunk_widths.txt 2>&1
echo "bwd_chunk_widths rc=$? at $(dc_elapsed) s"; tail -12 $OUT/bwd_chunk_widths.txt
WINDOWS=1024,1152,1280,1408,1536,1792,2048 PYTHONPATH=$DC_AB/new/py timeout 150 python3 \
  docs/results/2026-12-01-h200-session56/scripts/fwd_window_tiles.py $OUT/fwd_window_tiles2.json > $OUT/fwd_window_tiles2.txt 2>&1
echo "fwd_window_tiles rc=$? at $(dc_elapsed) s"; cut -c1-140 $OUT/fwd_window_tiles2.txt | tail -30
dc_finish
