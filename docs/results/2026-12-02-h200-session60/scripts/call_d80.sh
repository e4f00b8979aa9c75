# Session 60: the plain copy for head dim 96's narrow copy (`d80` build: 80 and 72 on the 96 kernel,
# Phi-2's head dim) against `head` (c43cbf8, session 59's last kernel commit), kernel-only forward rows of tools/bench/ab_kernels.py
# in alternating processes (d80 and the d96 kernel's own rows, for issue 15's predicated ratio);
# then memcheck / racecheck over every 96 tile at 80 and 72 and the suites, on `d80`.
set -u
export CARRY=.carry_s60 DC_DEADLINE=400 DC_AB_TIMEOUT=120 DC_SAN_TIMEOUT=250
. tools/bench/device_call.sh
dc_unpack head d80
dc_ab 2 head d80 -- --dtype bf16 --dims 80,96 --passes fwd --seqlens 1024,4096,16384 --nofeatures
dc_ab 1 head d80 -- --dtype fp16 --dims 80,96 --passes fwd --seqlens 1024,4096,16384 --nofeatures
dc_table head d80
echo "A/B done at $(dc_elapsed) s"
S=docs/results/2026-12-02-h200-session60/scripts
PYTHONPATH=$DC_AB/d80/py timeout 60 python3 $S/san_d80_case.py
dc_sanitize d80 $S/san_d80_case.py
dc_suites "${SUITES:-gpu_h200_features:170 gpu_h200:100 gpu_h200_edge:60 gpu_h200_fuzz:140}"
dc_finish
