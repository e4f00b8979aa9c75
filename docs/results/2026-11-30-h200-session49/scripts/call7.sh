# Calls 7, 8 and 9 (session 49): split counts of the B1 decode rows, contiguous vs paged (paged_splits.py; call 8: VARIANT=2, call 9: VARIANT=3, head dims 64 and 256).
set -u
OUT=${OUT:?}
mkdir -p /tmp/fc && tar xzf .carry_s49/bundle/gpu_h200_bundle.tar.gz -C /tmp/fc
PYTHONPATH=/tmp/fc/bundle/runfiles/_main/py timeout 200 python3 docs/results/2026-11-30-h200-session49/scripts/paged_splits.py 3 ${VARIANT:-1} 2>&1 | grep -v Warning | tee $OUT/paged_splits.log
