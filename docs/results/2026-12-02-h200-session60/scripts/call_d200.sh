# Session 60: the plain copy for head dim 256's narrow copy (`d200` build: 200 and 208 on the 256
# kernel) against `d80` (9e3c0f5), kernel-only forward rows of tools/bench/ab_kernels.py in
# alternating processes (d200 and the d256 kernel's own rows, for issue 15's predicated ratio);
# the backward rows of 80 / 96 / 200 / 256 once (no backward kernel changed: the predicated ratio);
# then memcheck / racecheck over 256's tile at 200 and 208 and the suites, on `d200`.
set -u
export CARRY=.carry_s60 DC_DEADLINE=330 DC_AB_TIMEOUT=120 DC_SAN_TIMEOUT=250
. tools/bench/device_call.sh
dc_unpack d80 d200
dc_ab 2 d80 d200 -- --dtype bf16 --dims 200,256 --passes fwd --seqlens 1024,4096,16384 --nofeatures
dc_ab 1 d80 d200 -- --dtype fp16 --dims 200,256 --passes fwd --seqlens 1024,4096,16384 --nofeatures
dc_table d80 d200
DC_AB_TIMEOUT=200 dc_ab 1 d200 -- --dtype bf16 --dims 80,96,200,256 --passes bwd --seqlens 1024,4096,16384 --nofeatures
echo "A/B done at $(dc_elapsed) s"
S=docs/results/2026-12-02-h200-session60/scripts
PYTHONPATH=$DC_AB/d200/py timeout 60 python3 $S/san_d200_case.py
dc_sanitize d200 $S/san_d200_case.py
dc_suites "${SUITES:-gpu_h200_features:170 gpu_h200:100 gpu_h200_edge:60 gpu_h200_fuzz:140}"
dc_finish
