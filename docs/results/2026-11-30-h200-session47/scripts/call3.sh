# Session 47, device call 3 (H200): the persistent head-dim-64 default backward (`pers`:
# tile_policy.h bwd_persistent, one CTA per SM walking the launch order; the next work's first Q /
# dO stage and K / V loaded under the last one's epilogue, dK / dV staged in the free dS^T buffer)
# against HEAD (`head`, 0b9912d). Kernel-only A/B (CUDA-graph replay) bf16 two rounds and fp16 one
# round at d64 / d128 (d128 is not persistent: a control), then feature rows (window, softcap) bf16
# one round; memcheck + racecheck of the backward kernels on san_bwd_persistent.py; the backward,
# feature, fuzz and edge suites on pers.
# Carry .carry_s47: bundle/ (pers), head / pers .tar.xz.
set -u
S=docs/results/2026-11-30-h200-session47/scripts
export CARRY=.carry_s47 DC_DEADLINE=330
. tools/bench/device_call.sh
dc_unpack head pers
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > "$OUT/gpu.txt"
# correctness first: a quick oracle pass on the persistent kernels before any timing
PYTHONPATH=$DC_AB/pers/py timeout 90 python3 $S/san_bwd_persistent.py > "$OUT/plain_case.log" 2>&1
rc=$?; echo "plain case rc=$rc"; tail -3 "$OUT/plain_case.log"
if [ $rc -ne 0 ]; then dc_finish; exit 0; fi  # a hang or a crash: nothing else is worth timing
dc_ab 2 head pers -- --dtype bf16 --passes bwd --dims 64,128 --seqlens 1024,2048,4096,16384 --nofeatures --rep 25
dc_ab 1 head pers -- --dtype fp16 --passes bwd --dims 64 --seqlens 1024,2048,4096,16384 --nofeatures --rep 25
dc_ab 1 head pers -- --dtype bf16 --passes bwd --dims 64 --seqlens 1024,4096 --rep 25
dc_table head pers
DC_SAN_KERNELS=kns=bwd_kernel DC_SAN_TIMEOUT=300 dc_sanitize pers $S/san_bwd_persistent.py
dc_suites "gpu_h200_bwd:200 gpu_h200_features:200 gpu_h200_fuzz:200 gpu_h200_edge:100"
dc_finish
