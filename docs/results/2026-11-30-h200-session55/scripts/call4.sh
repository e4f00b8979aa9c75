# Session 55, device calls 4a-4d (H200, back to back on one warm machine): issue 15's rows on the
# landed build (fb1b828). 4a / 4b / 4c copy FlashAttention-4's CUTLASS DSL wheel in thirds to
# /root/keep (carry .carry_fa4/pN: bash call4.sh pN); 4d (carry .carry_fa4/fa4 and
# .carry_fa4/attention_bundle.tar.xz: bash call4.sh bench): head dims 96 / 192 / 256, fp16 + bf16,
# S 1024 / 4096 / 16384, causal and not, forward kernel-only and backward per-kernel, with FA4,
# cuDNN and torch's FA2 in one process (fa4_grid_h100.sh's wide phases); then the predicated head
# dims beside the kernels they run on (80 on 96, 200 on 256), kernel-only, both dtypes, both passes.
set -u
if [ "$1" != bench ]; then
  mkdir -p /root/keep && cp .carry_fa4/$1/* /root/keep/ && ls /root/keep
  exit 0
fi
CARRY=.carry_fa4 T_END=440 PROFILE_KERNELS=1 PHASES="wide_fwd wide_bwd" WIDE_DTYPES=fp16,bf16 BUDGET_SCALE=2 OUT=$OUT \
  bash tools/bench/fa4_grid_h100.sh 2>&1 | grep -v "^\[warm" | tail -90
R=/tmp/fa4w/bundle/runfiles
for dt in bf16 fp16; do
  PYTHONPATH=$R/_main/py timeout 100 python3 tools/bench/ab_kernels.py --label pred --dtype $dt --dims 80,96,200,256 \
    --passes fwd,bwd --nofeatures --seqlens 1024,4096,16384 --rep 40 >> $OUT/predicated.txt 2>&1
done
cat $OUT/predicated.txt
