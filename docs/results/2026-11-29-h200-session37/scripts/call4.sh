# Session 37, device call 4 (H200): call 3's epilogue (O from registers in 8-byte pieces, Q's buffer
# freed after the last Q K^T) kept only where it gained: FwdTilePolicy::o_from_registers, set for
# head dim 192's long-rows tile; 256 is back to HEAD's SASS. Carry .carry_s37: bundle/ (this build),
# new.tar.xz (its py tree), head.tar.xz.
# 1. suites (forward, features) and compute-sanitizer memcheck + racecheck over the d192 long-rows
#    kernel (scripts/san_d192_long.py), all in parallel;
# 2. then alone: forward rows d192 (long-rows from 4096 keys, unmasked) HEAD vs this build,
#    alternating processes, 2 rounds bf16 + 2 rounds fp16; d256 (SASS-identical) 1 round bf16.
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
C=.carry_s37
S=docs/results/2026-11-29-h200-session37/scripts
t0=$(date +%s)
for v in head new; do mkdir -p /tmp/ab/$v && tar xJf $C/$v.tar.xz -C /tmp/ab/$v; done
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for tool in memcheck racecheck; do
  (PYTHONPATH=/tmp/ab/new/py timeout 400 $SAN --tool $tool --error-exitcode 3 --kernel-name kns=fwd_kernel \
     python3 $S/san_d192_long.py > $OUT/san_$tool.log 2>&1; echo "== $tool rc=$?") &
done
SUITES_WORK=/tmp/gs4 CARRY=$C/bundle SUITES="gpu_h200:240 gpu_h200_features:280" \
  OUT=$OUT/suites bash tools/bench/gpu_suites.sh 2>&1 | tail -8
wait
for tool in memcheck racecheck; do echo "-- $tool"; grep -E "SUMMARY|^ok|Error|error" $OUT/san_$tool.log | head -5; done
echo "checks done at $(( $(date +%s) - t0 )) s"
ab() {  # build label dtype extra-args...
  local v=$1 lab=$2 dt=$3; shift 3
  [ $(( $(date +%s) - t0 )) -gt 500 ] && { echo "time guard: skipped $lab"; return; }
  PYTHONPATH=/tmp/ab/$v/py timeout 90 python3 tools/bench/ab_kernels.py --label $lab --dtype $dt --passes fwd \
    --nofeatures --rep 30 "$@" >> $OUT/ab.txt 2>&1
}
for r in 1 2; do for v in head new; do ab $v ${v}_r$r bf16 --dims 192 --seqlens 1024,4096,8192,16384; done; done
for r in 3 4; do for v in head new; do ab $v ${v}_r$r fp16 --dims 192 --seqlens 1024,4096,8192,16384; done; done
for v in head new; do ab $v ${v}_r5 bf16 --dims 256 --seqlens 1024,4096; done
python3 docs/results/2026-11-28-h200-session31/scripts/tab.py $OUT/ab.txt head new
echo "all done at $(( $(date +%s) - t0 )) s"
tar czf /tmp/call.tgz -C $OUT . && rm -rf $OUT/* && mv /tmp/call.tgz $OUT/
