# Session 57 call 4: bf16 causal GQA without a window, packed against unpacked on the 192-row tile
# (causal_pack_rows.py), and the window threshold of fwd_pack_window (fwd_window_pack.py at windows
# 1536 / 2048 / 3072), on this session's build (`new`).
set -u
export CARRY=.carry_s57 DC_DEADLINE=400
. tools/bench/device_call.sh
dc_unpack new
PYTHONPATH=$DC_AB/new/py timeout 200 python3 docs/results/2026-12-01-h200-session57/scripts/causal_pack_rows.py \
  $OUT/causal_pack_rows.json > $OUT/causal_pack_rows.txt 2>&1
echo "causal_pack_rows rc=$? at $(dc_elapsed) s"; cat $OUT/causal_pack_rows.txt | tail -9
WINDOWS=1536,2048,3072 PYTHONPATH=$DC_AB/new/py timeout 150 python3 docs/results/2026-12-01-h200-session57/scripts/fwd_window_pack.py \
  $OUT/fwd_window_pack_wide.json > $OUT/fwd_window_pack_wide.txt 2>&1
echo "fwd_window_pack rc=$? at $(dc_elapsed) s"; cut -c1-200 $OUT/fwd_window_pack_wide.txt | tail -12
dc_finish
