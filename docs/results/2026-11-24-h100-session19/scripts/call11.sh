# Session 19 call 11: ncu of FA4's and flashcore's d64 forward (bf16 B4 S4096 H32, full and causal),
# one launch each; then racecheck / memcheck of the d96 three-consumer forward with a math-backend reference.
set -u
C=$PWD/.carry_prof
big=nvidia_cutlass_dsl_libs_cu13-4.8.1-cp312-cp312-manylinux_2_28_x86_64.whl
cat /root/keep/cu13.part.* > /tmp/$big
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/fa4 /tmp/$big $C/wheels/*.whl 2>&1 | tail -2
mkdir -p /tmp/nb && tar xzf $C/new_attention_bundle.tar.gz -C /tmp/nb
R=/tmp/nb/bundle/runfiles
export PYTHONPATH=$R/_main:$R/_main/py:$R:/tmp/fa4:/tmp/fa4/nvidia_cutlass_dsl/dsl_packages
for t in racecheck memcheck; do
  timeout 280 /usr/local/cuda/bin/compute-sanitizer --tool $t python3 $C/san_fwd96.py > $OUT/san_fwd96_$t.log 2>&1 &
done
for be in fa4 flashcore; do for c in full causal; do
  timeout 150 ncu --clock-control none --profile-from-start off -c 3 --section SpeedOfLight --section ComputeWorkloadAnalysis \
    --section InstructionStats --section WarpStateStats --section LaunchStats --section Occupancy -o /tmp/p_${be}_$c -f \
    python3 $C/prof_one.py $be 64 $c > $OUT/ncu_${be}_$c.log 2>&1
  echo "ncu $be $c rc=$?"
  ncu -i /tmp/p_${be}_$c.ncu-rep --page details > $OUT/details_${be}_$c.txt 2>&1
  ncu -i /tmp/p_${be}_$c.ncu-rep --page raw --csv > $OUT/raw_${be}_$c.csv 2>/dev/null
done; done
wait
for t in racecheck memcheck; do echo "$t: $(tail -3 $OUT/san_fwd96_$t.log | tr '\n' ' ')"; done
for f in $OUT/details_*; do echo "== $f"; grep -E "^  [a-z_:]+.*\(|Duration|Executed Ipc|Issue Slots Busy|Registers Per|Warp Cycles Per Issued|Block Size|Grid Size|Executed Instructions  |Achieved Occupancy" $f | head -20; done
nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons Counters' | grep -i 'thermal\|power'
