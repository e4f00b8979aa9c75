# Session 59: a part of FlashAttention-4's wheels into /root/keep, which the machine keeps while it
# stays warm (../shared/anchors/fa4/README.md's round trip, in parts that fit a call beside the
# working tree: the big wheel split in three, .carry_fa4/p1..p3, and the small wheels, .carry_fa4/w).
# PART: p2, p3 or w.
set -u
mkdir -p /root/keep && cp .carry_fa4/${PART:?}/* /root/keep/ && ls -la /root/keep
