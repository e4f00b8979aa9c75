# Session 54 call 10: does the new one-key-rows edge test fail on the build before the softcap fix
# (`base`, 86e4887) and pass on the fix (07181f3's kernels)? The test file from this tree, each
# build's py tree.
set -u
mkdir -p /tmp/ab/base /tmp/ab/fix
tar xJf .carry_s54/base.tar.xz -C /tmp/ab/base; tar xJf .carry_s54/fix.tar.xz -C /tmp/ab/fix
for b in base fix; do
  echo "== $b"
  FLASHCORE_EXPECT_GPU= PYTHONPATH=/tmp/ab/$b/py:tests timeout 200 python3 -m pytest -q -p no:cacheprovider \
    tests/gpu_edge_inputs_test.py -k one_key_rows 2>&1 | tail -15
done
