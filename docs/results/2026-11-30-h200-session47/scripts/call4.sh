# Session 47, device calls 4a / 4b (H200): copy the first two thirds of FlashAttention-4's CUTLASS
# DSL wheel (.carry_fa4/p1, p2) to /root/keep for call 5, which carries the last third with the
# small wheels and the attention bundle (a call's tree, .git included, stays under 64 MiB).
#   4a: carry .carry_fa4/p1: bash call4.sh p1      4b: carry .carry_fa4/p2: bash call4.sh p2
set -u
mkdir -p /root/keep && cp .carry_fa4/$1/* /root/keep/ && ls -la /root/keep
