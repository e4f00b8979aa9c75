# Call 5 (session 50): the landed build (`tails`, fe1f31d) against HEAD before it (`head`, 9227638)
# once more on the packed rows, both dtypes, forward too (unchanged kernels: the A/B's noise), and
# issue 13's mixed / equal ratios on the landed build.
set -u
export CARRY=.carry_s50 DC_DEADLINE=420
. tools/bench/device_call.sh
S=docs/results/2026-11-30-h200-session50/scripts
dc_unpack head tails
DC_AB_CMD="python3 $S/varlen_ab.py" dc_ab 2 head tails -- --passes fwd,bwd --batches mixed,eq4096x4 --rep 25
DC_AB_CMD="python3 $S/varlen_ab.py" dc_ab 1 head tails -- --passes bwd --batches mixed,eq4096x4 --rep 25 --dtype fp16
dc_table head tails
dc_finish
