# Session 39, device call 3 (H200): the forward's tile walk divided by FastDivide (div). The
# timeline of its traced build (divt = div + the trace), kernel-only A/B of HEAD vs div in
# alternating processes (bf16, two rounds: the paper-grid forward rows of every head dim at S 1024 /
# 2048 / 16384 with the window / softcap rows; session 38's partial-tile rows), then the suites on
# div with compute-sanitizer memcheck + racecheck over the forward beside them.
# Carry .carry_s39: bundle/ (div), head.tar.xz, div.tar.xz, divt.tar.xz (py trees).
set -u
cd "$(dirname "$0")/../../../.."
export CARRY=.carry_s39 DC_DEADLINE=330
. tools/bench/device_call.sh
S=docs/results/2026-11-29-h200-session39/scripts
dc_unpack head div divt
PYTHONPATH=$DC_AB/divt/py:tools/bench timeout 150 python3 $S/fwd_timeline.py --out $OUT/tl \
  --rows "d128 causal dense S1024,d64 causal dense S1024,d192,d128 causal packed,d128 full dense S1024" > $OUT/timeline_div.txt 2>&1
echo "timeline done at $(dc_elapsed) s"
dc_ab 2 head div -- --dtype bf16 --passes fwd --dims 64,96,128,192,256 --seqlens 1024,2048,16384 --rep 25
DC_AB_CMD="python3 docs/results/2026-11-29-h200-session38/scripts/partial_tiles_bench.py" \
  dc_ab 2 head div -- --dtypes bf16 --dims 64,128,192 --full_dims 128 --dense 1000,3000 --rep 25
dc_table head div
grep -E "^==|plan|share|fit" $OUT/timeline_div.txt | head -60
python3 - $OUT/tl <<'PY'
import glob, sys, numpy as np
for f in sorted(glob.glob(sys.argv[1] + "/*.npz")):
    st = np.load(f)["stamps"]
    for r in (1, 2):
        c = st[:, :, r, :]; v = c[:, :, 8] != 0
        if not v.any(): continue
        plan = (c[:, :, 15] - c[:, :, 0])[v]; rest = (c[:, :, 1] - c[:, :, 15])[v]
        print("%-40s consumer %d: plan mean %.0f median %.0f clk; then Q ready after %.0f" % (f.split("/")[-1], r - 1, plan.mean(), np.median(plan), rest.mean()))
PY
rm -rf $OUT/tl
DC_SAN_TIMEOUT=300 dc_sanitize div docs/results/2026-11-29-h200-session38/scripts/san_partial_tiles.py
dc_suites "gpu_h200:240 gpu_h200_features:260 gpu_h200_edge:200 gpu_h200_fuzz:260 gpu_h200_paged_forward:240 gpu_h200_kvcache:260 gpu_h200_hf:200"
dc_finish
