# Session 29 call 6 (H200): the page-order rule by HBM bandwidth (address order from 4 TB/s at
# kernel head dim 64 up to pages of 64, at 128 for pages of 16). (1) What torch reports and the
# plans the rule makes here; (2) the KV-cache suite; (3) issue 16's decode table, every backend in
# one process (tools/bench/decode.py), twice.
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); echo "$GPU"
case "$GPU" in *H200*) KIND=h200;; *) KIND=h100;; esac
mkdir -p /tmp/fc && tar xzf .carry_s29/$KIND/gpu_${KIND}_bundle.tar.gz -C /tmp/fc
P=/tmp/fc/bundle/runfiles/_main/py
PYTHONPATH=$P python3 - <<'PY' 2>&1 | grep -v Warning | tee $OUT/call6_${KIND}_plans.log
import torch
from flashcore import kvcache
p = torch.cuda.get_device_properties(0)
print("memory_clock_rate", p.memory_clock_rate, "memory_bus_width", p.memory_bus_width, "hbm", kvcache._hbm_bytes_per_s(0))
for d in (64, 128, 256):
    for ps in (16, 32, 64, 128):
        for hk, k in ((32, 65536), (8, 131072)):
            pl = kvcache._plan("sm90a", d, 1, 32, hk, 1, k, 132, 0, ps, False, "bf16", kvcache._hbm_bytes_per_s(0))
            print("d%d page%d Hk%d k%d splits %d sort_ctas %d" % (d, ps, hk, k, pl[0], pl[2]))
PY
CARRY=.carry_s29/$KIND SUITES="gpu_${KIND}_kvcache:300" OUT=/tmp/suites bash tools/bench/gpu_suites.sh 2>&1 | tail -3
cp /tmp/suites/gpu_${KIND}_kvcache_test.log $OUT/call6_${KIND}_gpu_kvcache.log
echo "suite done at $SECONDS s"
for r in 1 2; do
  PYTHONPATH=$P timeout 160 python3 tools/bench/decode.py --sweep_splits "" --no_prefill --out_dir /tmp/dt$r 2>&1 | grep -v Warning > $OUT/call6_${KIND}_decode_table_$r.log
  cp /tmp/dt$r/decode.json $OUT/call6_${KIND}_decode_$r.json
  head -8 $OUT/call6_${KIND}_decode_table_$r.log
done
echo "done at $SECONDS s"
