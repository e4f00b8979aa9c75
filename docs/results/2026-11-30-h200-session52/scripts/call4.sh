# Call 4 (session 52): the NaN-key edge test with keys 42 / 43 (n8 column group 5, taken by
# exp2_poly at every 3rd group) on the build to land (SASS-identical to call 3's), and the same
# test on a mutant whose exp2_poly clamps with fmaxf (drops a NaN): the new keys must fail there.
set -u
export CARRY=.carry_s52 DC_DEADLINE=300
. tools/bench/device_call.sh
dc_unpack mutant
dc_suites "gpu_h200_edge:200"
cd /tmp/dc_suites/bundle/runfiles/_main
PYTHONPATH=$DC_AB/mutant/py:tests timeout 200 python3 -m pytest tests/gpu_edge_inputs_test.py -k nan_key -q \
  -p no:cacheprovider 2>&1 | tee $OUT/mutant_nan_key.log | grep -E "^FAILED|passed|failed" | cut -c1-200
cd - > /dev/null
dc_finish
