# Session 46, device calls 3a / 3b (H200): copy FlashAttention-4's CUTLASS DSL wheel's first two
# thirds for call 4 (a call's tree, .git included, must stay under 64 MiB, so fetch.sh's halves
# travel as thirds: .carry_fa4/p1, p2; the last third travels with call 4 as fa4/b/cu13.part.ac).
#   3a: carry .carry_fa4/p1: bash call3.sh p1      3b: carry .carry_fa4/p2: bash call3.sh p2
set -u
if [ "$1" = fa4/b ]; then
  mkdir -p /root/keep/b && cp .carry_fa4/fa4/b/* /root/keep/b/ && ls -la /root/keep/b
else
  mkdir -p /root/keep && cp .carry_fa4/$1/* /root/keep/ && ls -la /root/keep
fi
#   3c: carry .carry_fa4/fa4 (the last third and the small wheels): bash call3.sh fa4/b -- copied to
#       /root/keep/b, which call 4 links as .carry_fa4/fa4/b (as session 45 did)
