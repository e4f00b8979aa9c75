# Session 46: head dim 96's backward with its dQ lagged a step (the d64 / d128 scheme), under
# compute-sanitizer memcheck / racecheck (dc_sanitize, DC_SAN_KERNELS=kns=bwd_kernel): session 41's
# cases (san_bwd_ahead.py) at head dims 96 and 80 (predicated on it).
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "../../2026-11-29-h200-session41/scripts"))
import san_bwd_ahead  # noqa: E402

if __name__ == "__main__":
    san_bwd_ahead.run((96, 80))
