# Session 41, call 5: the sm90a split-keys backward with dK issued from registers before the dS
# barrier (head dims 64, 96, 128; 56 / 80 / 120 predicated on them) under compute-sanitizer memcheck
# / racecheck (dc_sanitize, DC_SAN_KERNELS=kns=bwd_kernel). Cases: one step per CTA (seqlen_q <= one
# query block), several, more CTAs than SMs, causal / full, Sq != Sk, deterministic, the sink kernel,
# the packed-softcap kernel (softcap, no sink), GQA with a window, a packed varlen batch; bf16 and
# fp16. The case is san_bwd_ahead.py's (call 1: 128 / 96 / 80 / 120).
from san_bwd_ahead import run

run((64, 128, 96, 80, 120, 56))
