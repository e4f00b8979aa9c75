# Session 56: one of the two calls that bring FlashAttention-4's big wheel onto the machine, a part
# per call (../shared/anchors/fa4/README.md; the parts are split so that each call stays under the
# 64 MiB a call carries). PART: p1 or p2.
set -u
mkdir -p /root/keep && cp .carry_fa4/${PART:?}/* /root/keep/ && ls -la /root/keep
