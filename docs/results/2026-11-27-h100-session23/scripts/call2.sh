# Session 23 call 2 (H100, right after call 1 on the same machine): FA4 installed from the wheel
# part kept by call 1 and the rest carried; ncu of FA4's sm90 backward at call 1's shapes; then the
# FA4 grid (tools/bench/fa4_grid_h100.sh) on HEAD's bundle: paper backward, paper forward, feature
# forward rows, every backend in one process.
set -u
S=$PWD/docs/results/2026-11-27-h100-session23/scripts
G=$PWD/tools/bench/fa4_grid_h100.sh
mkdir -p /tmp/x/c/fa4/b && cp .carry_s23b/fa4/b/* /tmp/x/c/fa4/b/ && cp /root/keep/attention_bundle.tar.gz /tmp/x/c/
rm -f /root/keep/attention_bundle.tar.gz
big=$(cat /tmp/x/c/fa4/b/BIG_WHEEL_NAME)
cat /root/keep/cu13.part.* /tmp/x/c/fa4/b/cu13.part.* > /tmp/$big && sha256sum /tmp/$big | cut -c1-16
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/fa4 /tmp/$big /tmp/x/c/fa4/b/*.whl 2>&1 | tail -2
export PYTHONPATH=/tmp/fa4:/tmp/fa4/nvidia_cutlass_dsl/dsl_packages
for d in 64 128; do
  timeout 150 ncu --clock-control none --profile-from-start off -k regex:bwd_sm90 -c 1 --section SpeedOfLight \
    --section InstructionStats --section WarpStateStats --section ComputeWorkloadAnalysis \
    --section MemoryWorkloadAnalysis --section SourceCounters \
    -o /tmp/fa4_$d -f python3 $S/prof_bwd.py fa4 $d > /tmp/ncu_fa4_$d.log 2>&1
  echo "ncu fa4 bwd $d rc=$?"; tail -3 /tmp/ncu_fa4_$d.log
  ncu -i /tmp/fa4_$d.ncu-rep --page source --print-source sass --csv | gzip > $OUT/sass_fa4_bwd_$d.csv.gz
  ncu -i /tmp/fa4_$d.ncu-rep --page details > $OUT/details_fa4_bwd_$d.txt 2>&1
  grep -E "Duration|Executed Instructions  |Issue Slots Busy|Warp Cycles Per Issued" $OUT/details_fa4_bwd_$d.txt
done
rm -f /root/keep/cu13.part.aa.x
unset PYTHONPATH
cd /tmp/x && CARRY=c OUT=$OUT T_END=$((560 - SECONDS)) PHASES="paper_bwd paper_fwd feat_fwd" bash $G
