# Session 62, call 2: `c` (the bf16 bounded softcap step's own mainloop copy on head dim 256 too,
# beside the 160-register tiles) against `head` (670ccf1's kernels), kernel-only forward rows in
# alternating processes; then the whole four-tool sanitizer sweep (every instantiation x its feature
# variants, tests/gpu_sanitizer_test.py) on c's bundle, in parallel parts.
set -u
export CARRY=.carry_s62 DC_DEADLINE=150 DC_AB_TIMEOUT=60 DC_SWEEP_LIMIT=${DC_SWEEP_LIMIT:-400}
. tools/bench/device_call.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
dc_unpack head c
dc_ab 2 head c -- --dtype bf16 --dims 256 --passes fwd --seqlens 1024,4096,16384 --softcaps 0,30 --nofeatures --rep 40
dc_ab 1 head c -- --dtype fp16 --dims 256 --passes fwd --seqlens 4096,16384 --softcaps 0,30 --nofeatures --rep 40
dc_table head c
PYTHONPATH=$DC_AB/c/py:tools/bench:tests timeout 40 python3 tools/bench/san_case.py --dims 256,200,136 \
  --dtypes bf16 --features plain,softcap,softcap+gqa+window,softcap+sink,negscale --tiles auto,default 2>&1 | tail -3
dc_sanitizer_sweep
dc_finish
