# Session 24 call A (H100): keep FA4's first wheel part in /root/keep for call B; the forward and
# feature suites on the build with the d64 causal long-rows threshold at 3072 (bundles carried
# xz-compressed: a gzip bundle beside FA4's wheel part would pass the 64 MiB a call carries).
set -u
cd "$(dirname "$0")/../../../.."
mkdir -p /root/keep && cp .fa4/a/cu13.part.aa /root/keep/ && ls -la /root/keep
mkdir -p /tmp/ca && xz -dc .carry_a/gpu_h100_bundle.tar.xz | gzip -1 > /tmp/ca/gpu_h100_bundle.tar.gz
CARRY=/tmp/ca SUITES="gpu_h100:420 gpu_h100_features:420" OUT=/tmp/suites bash tools/bench/gpu_suites.sh 2>&1 | tail -12
tar czf $OUT/suites_logs.tgz -C /tmp/suites .
echo "done at $SECONDS s"
