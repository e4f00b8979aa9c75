CARRY=.carry_s18 SUITES="gpu_h100:330 gpu_h100_kvcache:330 gpu_h100_bwd:400 gpu_h100_features:330 gpu_h100_edge:250 gpu_h100_fuzz:330 gpu_h100_hf:200" OUT=$OUT/suites bash tools/bench/gpu_suites.sh
