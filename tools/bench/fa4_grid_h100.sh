#!/usr/bin/env bash
# The FlashAttention-4 grid of docs/results/2026-11-23-h100-fa4-grid.md on one GPU machine, in the
# second of two device calls (FA4's wheels are larger than one call carries; see
# ../shared/anchors/fa4/README.md). From the repository root of the device tool's copy, with the
# carried folder $CARRY (default .carry_fa4) holding:
#   attention_bundle.tar.gz   //tools/bench:attention_bundle (--config=gpu_target), or the same
#                             tar xz-compressed as attention_bundle.tar.xz (~2.5 MB instead of
#                             ~7.8: beside fa4/b and the tree it keeps the call under 64 MiB)
#   fa4/b/                    the second half of fetch.sh's download (the first, fa4/a, was copied
#                             to /root/keep by the first call: mkdir -p /root/keep && cp fa4/a/* /root/keep/)
#   fa4_grid_h100.sh          this script
# Steps: install FA4 into /tmp/fa4; warm FA4's JIT cache (FLASH_ATTENTION_CUTE_DSL_CACHE_*) with
# --warm_only in parallel processes (each configuration compiles once, seconds each); then four
# benchmark processes, one after another, every backend in one process on the same tensors:
# paper grid fwd, paper grid bwd, feature rows fwd, feature rows bwd (PHASES picks and orders them;
# d96_fwd / d96_bwd: the paper grid at head dim 96; wide_fwd / wide_bwd: head dims 96, 192 and 256,
# bf16 or $WIDE_DTYPES, S 1024 / 4096 / 16384; models_fwd / models_bwd: the models grid, open models'
# attention layers; PHASES="": none). Bounded: the whole script
# stops by T_END seconds (default 495), each phase by --time_budget_s and a timeout; every phase's
# JSON is copied to $OUT as it ends. The bundle runs without run.py (run.py scrubs PYTHONPATH,
# which FA4's --target install needs).
set -u
T_END=${T_END:-495}
OUT=${OUT:-/tmp/fa4_out}
C=$PWD/${CARRY:-.carry_fa4}
W=/tmp/fa4w
rm -rf "$W" && mkdir -p "$W/res" "$W/logs" "$OUT"
exec > >(tee -a "$OUT/go.log") 2>&1
left() { echo $((T_END - SECONDS)); }
finish() {
  tar czf "$OUT/results.tgz" -C "$W" res logs 2>/dev/null
  echo "finished at ${SECONDS} s"
}
trap finish EXIT

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit,temperature.gpu,utilization.gpu,memory.used --format=csv

# --- FlashAttention-4 -------------------------------------------------------------------------
big=$(cat "$C/fa4/b/BIG_WHEEL_NAME")
cat /root/keep/cu13.part.* "$C"/fa4/b/cu13.part.* > "/tmp/$big" && sha256sum "/tmp/$big"
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/fa4 "/tmp/$big" "$C"/fa4/b/*.whl \
  || echo "FA4 install failed: the bench runs without it"
if [ -f "$C/attention_bundle.tar.xz" ]; then
  tar xJf "$C/attention_bundle.tar.xz" -C "$W"
else
  tar xzf "$C/attention_bundle.tar.gz" -C "$W"
fi
R=$W/bundle/runfiles
export PYTHONPATH=$R/_main:$R/_main/py:$R/_main/tools/bench:$R:/tmp/fa4:/tmp/fa4/nvidia_cutlass_dsl/dsl_packages
export FLASH_ATTENTION_CUTE_DSL_CACHE_ENABLED=1 FLASH_ATTENTION_CUTE_DSL_CACHE_DIR=/tmp/fa4cache
export PYTHONUNBUFFERED=1
python3 -c "import flashcore, flash_attn.cute as m; print('flashcore', flashcore.build_info().get('git_commit', '?')); print('fa4', m.flash_attn_func.__module__)" 2>&1 | tail -3
echo "setup done at ${SECONDS} s"

BENCH="python3 $R/_main/tools/bench/attention.py"
# PROFILE_KERNELS=1: each backend's kernels once per row under torch.profiler (the JSON's
# "kernel_us": a call's GPU time per kernel); PAPER_DTYPES / PAPER_SEQLENS / BACKENDS narrow the grid.
PROFILE_FLAG=--noprofile_kernels; [ "${PROFILE_KERNELS:-0}" = 1 ] && PROFILE_FLAG=--profile_kernels
COMMON="--backends=${BACKENDS:-flashcore,fa4,cudnn,flash} --warmup_ms=10 --rep_ms=15 --host_calls=0 $PROFILE_FLAG"
PAPER="--grid=paper --dtypes=${PAPER_DTYPES:-fp16,bf16} --head_dims=64,128 --causal=both --seqlens=${PAPER_SEQLENS:-1024,2048,4096,8192,16384}"
FEAT="--grid=features --dtypes=bf16 --head_dims=64,128 --causal=both"
D96="--grid=paper --dtypes=fp16,bf16 --head_dims=96 --causal=both --seqlens=1024,2048,4096,8192,16384"
WIDE="--grid=paper --dtypes=${WIDE_DTYPES:-bf16} --head_dims=96,192,256 --causal=both --seqlens=1024,4096,16384"
MODELS="--grid=models"
# Unset: the four phases; set but empty: none -- FA4 installed and the bundle unpacked for a step
# that follows (session 47's call 8 meant the latter and got the former, ~190 s of device time).
PHASES=${PHASES-paper_fwd paper_bwd feat_fwd feat_bwd}
# The grid of a phase (paper_*, feat_*, d96_*, wide_*).
grid_of() { case $1 in paper_*) echo "$PAPER" ;; feat_*) echo "$FEAT" ;; d96_*) echo "$D96" ;; wide_*) echo "$WIDE" ;;
  models_*) echo "$MODELS" ;; esac; }

# --- FA4 JIT warm-up, in parallel -------------------------------------------------------------
if python3 -c "import flash_attn.cute" 2>/dev/null; then
  t=$(( $(left) - 350 )); [ "$t" -gt 90 ] && t=90; [ "$t" -lt 30 ] && t=30
  echo "=== FA4 warm-up (limit ${t} s) ==="
  pids=()
  for ph in $PHASES; do  # 8 shards for a paper-sized grid, 6 for the feature rows
    n=8; [ "${ph%_*}" = feat ] && n=6; [ "${ph%_*}" = models ] && n=5
    for i in $(seq 0 $((n - 1))); do
      timeout "$t" $BENCH $(grid_of "$ph") --backends=fa4 --warm_only --mode=${ph##*_} --shard=$i/$n \
        > "$W/logs/warm_${ph}_$i.log" 2>&1 &
      pids+=($!)
    done
  done
  # Only these: a bare `wait` also waits for the tee of `exec > >(tee ...)` above, which never
  # ends (the 2026-11-23 run hung here until its limit).
  wait "${pids[@]}"
  echo "warm-up done at ${SECONDS} s; per-row first-call seconds:"
  grep -h "^\[warm" "$W"/logs/warm_*.log | sed 's/^\[warm [0-9]*\/[0-9]*\] //' | cut -c1-150
  grep -hi "error\|traceback" "$W"/logs/warm_*.log | sort | uniq -c | head -5
fi

# --- the benchmark, one phase at a time -------------------------------------------------------
phase() {
  local name=$1 mode=$2 budget=$3; shift 3
  local l; l=$(left)
  if [ "$l" -lt 30 ]; then echo "=== $name skipped: ${l} s left ==="; return; fi
  [ "$budget" -gt $((l - 30)) ] && budget=$((l - 30))
  local lim=$((budget + 30)); [ "$lim" -gt $((l - 5)) ] && lim=$((l - 5))
  echo "=== $name (mode $mode, budget ${budget} s, limit ${lim} s) at ${SECONDS} s ==="
  timeout "$lim" $BENCH "$@" $COMMON --mode="$mode" --time_budget_s="$budget" --out_dir="$W/res/$name" \
    > "$W/logs/$name.log" 2>&1
  echo "$name rc=$? at ${SECONDS} s"
  grep -E "^\[[0-9]+/|FAIL|fa4:|time budget" "$W/logs/$name.log" | cut -c1-160 | tail -n 70
  for f in "$W/res/$name"/*.json; do [ -f "$f" ] && cp -f "$f" "$OUT/$name.json"; done
}
# Time budgets per phase (seconds): the backward grids take longer per row. BUDGET_SCALE (an
# integer, default 1) multiplies them, for grids widened by WIDE_DTYPES / PAPER_DTYPES.
budget_of() { local b; case $1 in paper_fwd) b=70 ;; paper_bwd) b=95 ;; feat_fwd) b=40 ;; feat_bwd) b=60 ;;
  d96_fwd) b=50 ;; d96_bwd) b=70 ;; wide_fwd) b=50 ;; wide_bwd) b=70 ;; models_fwd) b=40 ;; models_bwd) b=70 ;;
  esac; echo $((b * ${BUDGET_SCALE:-1})); }
for ph in $PHASES; do
  phase "$ph" "${ph##*_}" "$(budget_of "$ph")" $(grid_of "$ph")
done
