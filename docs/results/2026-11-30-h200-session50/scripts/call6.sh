# Call 6 (session 50): the features suite again on the landed kernels, with the captured-tails test
# now also on the sm80_ptx library (the mma.sync backward's row-order preprocess), and the
# kvcache / paged-forward / main suites the session had not run.
set -u
export CARRY=.carry_s50
. tools/bench/device_call.sh
dc_suites "gpu_h200_features:260 gpu_h200:260 gpu_h200_kvcache:260 gpu_h200_paged_forward:200"
dc_finish
