# Session 56: after the two copy calls, on the landed build's attention bundle: the sink residual's
# cost and the new rule (sink_residual_ab.py, alone on the GPU), then the models grid (open models'
# attention layers, attention_models.py) forward and backward, every backend in one process:
# flashcore, FlashAttention-4 4.0.0b36, cuDNN, FA2 (torch SDPA; they skip window / softcap / sink
# rows).
set -u
S=/tmp/sab; rm -rf $S && mkdir -p $S && tar xJf .carry_fa4/attention_bundle.tar.xz -C $S
R=$S/bundle/runfiles
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv
if [ "${SKIP_RESIDUAL:-0}" != 1 ]; then  # (call 7, the models grid again on the landed build: skipped)
  PYTHONPATH=$R/_main:$R/_main/py:$R timeout 200 python3 docs/results/2026-12-01-h200-session56/scripts/sink_residual_ab.py \
    $OUT/sink_residual.json > $OUT/sink_residual.txt 2>&1
  echo "sink_residual rc=$?"; tail -12 $OUT/sink_residual.txt
fi
CARRY=.carry_fa4 T_END=${T_END:-360} PROFILE_KERNELS=1 PHASES="models_fwd models_bwd" OUT=$OUT bash tools/bench/fa4_grid_h100.sh
