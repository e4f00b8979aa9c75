# Session 44, device calls 1-4 (H200, back to back on one machine): where FlashAttention-4's
# backward spends a call, beside flashcore's (HEAD's kernels) and cuDNN's, on the same tensors.
# Calls 1-3 copy FA4's wheels as session 42 did (.carry_fa4/p1..p3, see its call4-7_fa4.sh):
#   call 1, carry .carry_fa4/p1:  mkdir -p /root/keep/b && cp .carry_fa4/p1/* /root/keep/
#   call 2, carry .carry_fa4/p2:  cp .carry_fa4/p2/* /root/keep/b/
#   call 3, carry .carry_fa4/p3:  cp .carry_fa4/p3/* /root/keep/b/
# Call 4 (this script; carry .carry_fa4/attention_bundle.tar.xz, the //tools/bench:attention_bundle
# of HEAD): (a) the paper grid's backward at S 1024 / 4096 / 16384, bf16, d64 / d128, causal and
# full, with PROFILE_KERNELS=1 (each backend's kernels and their GPU time per call, "kernel_us");
# (b) ncu launch statistics and speed-of-light of every backward kernel of flashcore and FA4 at
# three rows (bwd_profile_one.py).
set -u
mkdir -p .carry_fa4/fa4 && ln -sfn /root/keep/b .carry_fa4/fa4/b
CARRY=.carry_fa4 PHASES="paper_bwd" T_END=300 PROFILE_KERNELS=1 PAPER_DTYPES=bf16 \
  PAPER_SEQLENS=1024,4096,16384 BACKENDS=flashcore,fa4,cudnn OUT=$OUT bash tools/bench/fa4_grid_h100.sh 2>&1 | tail -25
R=/tmp/fa4w/bundle/runfiles
export PYTHONPATH=$R/_main:$R/_main/py:$R/_main/tools/bench:$R:/tmp/fa4:/tmp/fa4/nvidia_cutlass_dsl/dsl_packages
export FLASH_ATTENTION_CUTE_DSL_CACHE_ENABLED=1 FLASH_ATTENTION_CUTE_DSL_CACHE_DIR=/tmp/fa4cache
S=docs/results/2026-11-29-h200-session44/scripts
timeout 200 ncu --clock-control none --profile-from-start off \
  --section LaunchStats --section Occupancy --section SpeedOfLight \
  -o /tmp/ncu_ls -f python3 $S/bwd_profile_one.py flashcore,fa4 \
  bf16:64:causal:1024 bf16:128:causal:1024 bf16:128:full:16384 > $OUT/ncu_ls.log 2>&1
echo "ncu rc=$?"; tail -4 $OUT/ncu_ls.log
ncu -i /tmp/ncu_ls.ncu-rep --page details > $OUT/ncu_ls_details.txt 2>&1
ncu -i /tmp/ncu_ls.ncu-rep --page raw --csv 2>/dev/null | gzip > $OUT/ncu_ls_raw.csv.gz
grep -E "^  [a-zA-Z_].*\(|Duration|Grid Size|Block Size|Registers Per|Dynamic Shared|Waves Per SM" $OUT/ncu_ls_details.txt | cut -c1-150 | head -120
