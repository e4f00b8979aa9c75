# Session 58: after the three calls that bring FA4's wheel (session 56's call_fa4_copy.sh), the models
# grid's forward on the plain-copy build (attention bundle of dc601ae's kernels), every backend in
# one process: flashcore, FlashAttention-4 4.0.0b36, cuDNN, FA2 (torch SDPA skips window / softcap /
# sink rows).
set -u
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv
CARRY=.carry_fa4 T_END=${T_END:-400} PROFILE_KERNELS=1 PHASES="${PHASES:-models_fwd}" OUT=$OUT bash tools/bench/fa4_grid_h100.sh
