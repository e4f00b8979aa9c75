OUT=$OUT/suites CARRY=.carry_s18 SUITES="gpu_h100_features:330 gpu_h100_fuzz:330 gpu_h100_edge:250 gpu_h100_hf:200" bash tools/bench/gpu_suites.sh
