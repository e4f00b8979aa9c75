# Session 46: the sm90a backward with head dim 128's lagged dQ^T (two dS buffers, the lse / D rows
# shared by the consumers) and every backward grid launched as a programmatic dependent, under
# compute-sanitizer memcheck / racecheck (dc_sanitize, DC_SAN_KERNELS=kns=bwd_kernel): session 41's
# cases (san_bwd_ahead.py -- one step per CTA, several, more CTAs than SMs, causal / full, Sq != Sk,
# deterministic, sink, softcap, GQA with a window, packed varlen; bf16 and fp16) at head dims 128,
# 120 (predicated on 128) and 64.
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "../../2026-11-29-h200-session41/scripts"))
import san_bwd_ahead  # noqa: E402

if __name__ == "__main__":
    san_bwd_ahead.run((128, 120, 64))
