# Call 1 (session 50): the packed-varlen backward's grid beyond its works (varlen_bwd_grid_probe.py)
# on HEAD's kernels (session 49's py tree: no kernel or py change since).
set -u
OUT=${OUT:?}
nvidia-smi --query-gpu=name,clocks.max.sm,temperature.gpu --format=csv,noheader
mkdir -p /tmp/h && tar xJf .carry_s49/head.tar.xz -C /tmp/h
S=docs/results/2026-11-30-h200-session50/scripts
PYTHONPATH=/tmp/h/py timeout 400 python3 $S/varlen_bwd_grid_probe.py 3 2>&1 | grep -v Warning | tee $OUT/varlen_bwd_grid_probe.txt
echo "done at $SECONDS s"
