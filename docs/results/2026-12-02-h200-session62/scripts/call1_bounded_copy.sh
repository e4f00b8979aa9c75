# Session 62 (session 61's experiment, cut off before its device call), call 1: the bf16 bounded
# softcap step's own mainloop copy on more forward tiles. Builds: `head` (670ccf1's kernels), `a`
# (the copy on head dims 64 / 128's 240-register tiles too), `b` (on every bf16 forward tile).
# Kernel-only forward rows of tools/bench/ab_kernels.py, plain and softcap 30, bf16, alternating
# processes; then the oracle over a and b's changed kernels (no sanitizer: call 2's whole sweep
# runs on the build that lands).
set -u
export CARRY=.carry_s62 DC_DEADLINE=430 DC_AB_TIMEOUT=110
. tools/bench/device_call.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
dc_unpack head a b
dc_ab 2 head a b -- --dtype bf16 --dims 64,128,192,256 --passes fwd --seqlens 4096,16384 --softcaps 0,30 --nofeatures --rep 40
dc_table head a b
for b in a b; do
  echo "-- oracle on $b"
  PYTHONPATH=$DC_AB/$b/py:tools/bench:tests timeout 60 python3 tools/bench/san_case.py --dims 64,128,256,80 \
    --dtypes bf16 --features plain,softcap,softcap+gqa,negscale --tiles auto,default 2>&1 | tail -4
done
dc_finish
