# Session 22 call 8 (H100): call 7's A/B in fp16 (two rounds), then the forward's GPU suites on the
# hv build (gpu_h100_bundle of the same tree).
set -u
sed -e 's/carry_s22g/carry_s22h/' docs/results/2026-11-25-h100-session22/scripts/call7.sh > /tmp/call7h.sh
DT=fp16 REPS=2 bash /tmp/call7h.sh
CARRY=.carry_s22h SUITES="gpu_h100:330 gpu_h100_features:330 gpu_h100_hf:250 gpu_h100_paged_forward:420 gpu_h100_edge:250" \
  bash tools/bench/gpu_suites.sh
