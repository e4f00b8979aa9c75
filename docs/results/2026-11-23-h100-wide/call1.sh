#!/bin/bash
# Session 6, call 1 (hd256-fwd rebased on main + helper 14's Python): main's pending suites (bwd,
# kvcache), the forward suite with the sm90a 192/256 forward, features; ncu of the softcap forward;
# stages FA4's first half in /root/keep for call 2.
C=$(cd "$(dirname "$0")" && pwd)
cat $C/PROVENANCE
SUITES="${SUITES:-plain bwd kvcache features}" TMO=150 bash $C/suites.sh
echo "== ncu softcap vs plain (d128 S4096 causal)"
R=/tmp/suites/bundle/runfiles
for sc in 0 30; do
  PYTHONPATH=$R/_main/py timeout 60 ncu --clock-control none -k regex:hopper::fwd_kernel -c 1 \
    --section InstructionStats --section ComputeWorkloadAnalysis --section WarpStateStats --section SpeedOfLight \
    python3 kernels/hopper/profile_one.py --head_dim 128 --seqlen 4096 --causal --softcap $sc > $OUT/ncu_softcap$sc.txt 2>&1
  echo "softcap $sc rc=$?"; grep -E "Duration|Issue Slots Busy|Executed Ipc A|SM Busy|No Eligible|Stall|Warp Cycles Per Issued|Pipe" $OUT/ncu_softcap$sc.txt | head -30
done
