# Session 27 call 4: ncu of HEAD's split decode kernel, B1 Hq32 Hk32 k65536 d128: contiguous,
# page 16 in physical order through the key-order paged kernel, page 16 random (address order).
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
S=docs/results/2026-11-28-h100-session27/scripts
mkdir -p /tmp/ab/head && tar xJf .carry_s27/head.tar.xz -C /tmp/ab/head
export PYTHONPATH=/tmp/ab/head/bundle/runfiles/_main/py
nvidia-smi --query-gpu=name --format=csv,noheader
for var in contig inorder_key random; do
  timeout 150 ncu --clock-control none -k regex:decode_kernel --launch-skip 2 --launch-count 1 \
    --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis \
    --section LaunchStats --section Occupancy --metrics smsp__inst_executed.sum,smsp__pcsamp_warps_issue_stalled_barrier,smsp__pcsamp_warps_issue_stalled_long_scoreboard,smsp__pcsamp_warps_issue_stalled_wait,smsp__pcsamp_warps_issue_stalled_short_scoreboard,smsp__pcsamp_warps_issue_stalled_math_pipe_throttle,smsp__pcsamp_warps_issue_stalled_mio_throttle,smsp__pcsamp_warps_issue_stalled_lg_throttle,smsp__pcsamp_warps_issue_stalled_selected,smsp__pcsamp_warps_issue_stalled_not_selected,smsp__pcsamp_warps_issue_stalled_dispatch_stall,smsp__pcsamp_warps_issue_stalled_drain,smsp__pcsamp_warps_issue_stalled_membar,smsp__pcsamp_warps_issue_stalled_sleeping,smsp__pcsamp_warps_issue_stalled_branch_resolving,smsp__pcsamp_warps_issue_stalled_no_instructions \
    python3 $S/prof_decode.py --variant $var > $OUT/ncu_$var.txt 2>&1
  echo "== $var rc=$?"; grep -E 'Duration|DRAM Throughput|Memory Throughput|Issue Slots Busy|Executed Ipc A|Warp Cycles Per Issued|No Eligible|inst_executed.sum|stalled_(barrier|long_scoreboard|wait|short_scoreboard|lg_throttle|mio_throttle|math|selected|not_selected|dispatch|branch|no_instr)' $OUT/ncu_$var.txt | sed 's/  */ /g'
done
