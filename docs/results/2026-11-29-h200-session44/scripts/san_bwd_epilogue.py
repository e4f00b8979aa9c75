# Session 44: the sm90a split-keys backward with dK / dV stored by the TMA (bwd_cta.cuh
# store_dk_dv_tma: consumers whose 64 keys lie inside the sequence; the others store themselves)
# and the launch order's host-set divisors, under compute-sanitizer memcheck / racecheck
# (dc_sanitize, DC_SAN_KERNELS=kns=bwd_kernel): session 41's cases (san_bwd_ahead.py -- one step
# per CTA, several, more CTAs than SMs, causal / full, Sq != Sk, deterministic, sink, softcap, GQA
# with a window, packed varlen; bf16 and fp16) at head dims 64 and 128 (the TMA's) and 40 / 120
# (predicated on them: the map clips the columns past the head dim).
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "../../2026-11-29-h200-session41/scripts"))
import san_bwd_ahead  # noqa: E402

if __name__ == "__main__":
    san_bwd_ahead.run((64, 128, 40, 120))
