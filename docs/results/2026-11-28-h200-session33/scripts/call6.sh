# Session 33 call 6 (H200): the GPU suites that exercise the backward on the final build's bundle
# (//tests:gpu_h200_bundle at 50facdc, carried as .carry_s33/gpu_h200_bundle.tar.gz).
CARRY=.carry_s33 SUITES="gpu_h200_bwd:240 gpu_h200_features:240 gpu_h200_edge:200 gpu_h200_hf:200" OUT=$OUT/suites bash tools/bench/gpu_suites.sh 2>&1 | tail -12
