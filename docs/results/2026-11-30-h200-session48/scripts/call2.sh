# Session 48, call 2: window sides up to INT32_MAX. `head` = 3a9d9b9's py tree (sides passed to the
# kernels as given), `new` = the clamp (flashcore._checks.clamp_window). The probe and the new edge
# tests on both (head expected to fail), then the suites on new's bundle (3a9d9b9's kernels: the
# mask change's own suites).
set -u
export CARRY=.carry_s48 DC_DEADLINE=400
. tools/bench/device_call.sh
dc_unpack head new
for b in head new; do
  echo "== probe $b"
  PYTHONPATH=$DC_AB/$b/py timeout 120 python3 docs/results/2026-11-30-h200-session48/scripts/huge_window_probe.py 2>&1 | tail -20 | tee $OUT/probe_$b.txt
  echo "== edge tests (int32_max) $b"
  (cd tests && PYTHONPATH=$DC_AB/$b/py timeout 200 python3 -m pytest gpu_edge_inputs_test.py -k int32_max -q -p no:cacheprovider 2>&1 | tail -25 | tee $OUT/edge_int32_$b.txt)
done
dc_suites "gpu_h200_edge:200 gpu_h200_features:200 gpu_h200_bwd:200 gpu_h200_kvcache:250 gpu_h200_api:150 gpu_h200_paged_forward:200 gpu_h200_fuzz:200"
dc_finish
