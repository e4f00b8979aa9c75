set -u
nvidia-smi --query-gpu=name --format=csv,noheader
CARRY=.carry_s19 SUITES="gpu_h100_bwd:420 gpu_h100_features:330 gpu_h100_hf:250" OUT=$OUT/suites bash tools/bench/gpu_suites.sh 2>&1 | tail -5
