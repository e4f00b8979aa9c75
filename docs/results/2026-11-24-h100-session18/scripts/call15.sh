# calls 13-14: cp .carry_fa4/fa4/a/* and .carry_fa4/fa4/b/cu13.part.ab to /root/keep (a fresh machine)
# call 15 (carry: the attention bundle of e8886ac's kernels and fa4/b's 7 small wheels):
: > .carry_fa4/fa4/b/cu13.part.zz; echo nvidia_cutlass_dsl_libs_cu13-4.8.1-cp312-cp312-manylinux_2_28_x86_64.whl > .carry_fa4/fa4/b/BIG_WHEEL_NAME
PHASES="wide_fwd" T_END=400 CARRY=.carry_fa4 bash tools/bench/fa4_grid_h100.sh
