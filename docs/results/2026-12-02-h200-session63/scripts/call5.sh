# Session 63 call 5: the landed form (`tail2`: the sorted tail at head dims <= 128 only; 192 / 256
# compiled without it) against `c`: kernel-only forward A/B (causal rows of 64 / 128 and the 256
# control), then the GPU suites on its bundle and memcheck + racecheck on tail cases.
set -u
export CARRY=.carry_s63 DC_DEADLINE=200
. tools/bench/device_call.sh
dc_unpack c tail2
dc_ab 1 c tail2 -- --dtype bf16 --dims 64,128,256 --passes fwd --seqlens 1024,4096,16384 --groups 1,4 --nofeatures --rep 40
dc_table c tail2
DC_SAN_TIMEOUT=240 dc_sanitize tail2 tools/bench/san_case.py --dims 64,128,96 --causal causal --features plain,gqa \
  --shape 8,1100,1100 --dtypes bf16,fp16
dc_suites "gpu_h200_features:280 gpu_h200:200 gpu_h200_edge:200 gpu_h200_fuzz:250 gpu_h200_hf:200"
dc_finish
