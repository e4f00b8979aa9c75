# Session 60: the backward skipping the zero k16 slice of S^T / dP^T (`bwd80` build: head dims 72
# and 80 on the 96 kernel) against `d80` (9e3c0f5), kernel-only backward rows of
# tools/bench/ab_kernels.py in alternating processes (d80 and the d96 kernel's own rows);
# then memcheck / racecheck over the backward kernels on san_bwd80_case.py and the suites, on `bwd80`.
set -u
export CARRY=.carry_s60 DC_DEADLINE=300 DC_AB_TIMEOUT=150 DC_SAN_TIMEOUT=300
. tools/bench/device_call.sh
dc_unpack d80 bwd80
dc_ab 2 d80 bwd80 -- --dtype bf16 --dims 80,96 --passes bwd --det --seqlens 1024,4096,16384 --nofeatures
dc_ab 1 d80 bwd80 -- --dtype fp16 --dims 80,96 --passes bwd --seqlens 1024,4096,16384 --nofeatures
dc_table d80 bwd80
echo "A/B done at $(dc_elapsed) s"
S=docs/results/2026-12-02-h200-session60/scripts
PYTHONPATH=$DC_AB/bwd80/py timeout 90 python3 $S/san_bwd80_case.py
DC_SAN_KERNELS=kns=bwd_kernel dc_sanitize bwd80 $S/san_bwd80_case.py
dc_suites "${SUITES:-gpu_h200_bwd:200 gpu_h200_features:170 gpu_h200_edge:60 gpu_h200_fuzz:140}"
dc_finish
