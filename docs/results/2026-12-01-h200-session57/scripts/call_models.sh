# Session 57: after the three calls that bring FlashAttention-4's big wheel onto the machine
# (session 56's call_fa4_copy.sh, PART p1 / p2 / p3), the models grid's forward on this session's
# build (attention bundle of the pack-GQA window rule), every backend in one process: flashcore,
# FlashAttention-4 4.0.0b36, cuDNN, FA2 (torch SDPA; they skip window / softcap / sink rows).
set -u
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv
CARRY=.carry_fa4 T_END=${T_END:-420} PROFILE_KERNELS=1 PHASES="${PHASES:-models_fwd}" OUT=$OUT bash tools/bench/fa4_grid_h100.sh
