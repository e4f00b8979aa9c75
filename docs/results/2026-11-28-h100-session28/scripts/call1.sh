# Session 28 call 1 (H100 asked for): session 27's test of sorted blocks under masks
# (test_sorted_blocks_mask_by_logical_position, collected but never run on a GPU) on HEAD's bundle.
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
nvidia-smi --query-gpu=name --format=csv,noheader
mkdir -p /tmp/b && tar xzf .carry_s28/gpu_h100_bundle.tar.gz -C /tmp/b
cd /tmp/b/bundle/runfiles/_main
PYTHONPATH=py:tests timeout 300 python3 -m pytest -q tests/gpu_kvcache_test.py -k "sorted" -p no:cacheprovider 2>&1 | tail -15 | tee $OUT/sorted_tests.log
