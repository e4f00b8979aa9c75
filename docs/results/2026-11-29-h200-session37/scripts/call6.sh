# Session 37, device call 6 (H200): more readings of issue 15's two short causal cuDNN rows on the
# final kernels (0fc02f0's build; its 192 / 256 kernels SASS-identical to call 5's): d192 / d256,
# causal and full, S1024, bf16 and fp16, three runs of tools/bench/attention.py each (flashcore
# beside torch SDPA's cuDNN and flash in one process). Carry .carry_s37: new.tar.xz (the py tree).
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
t0=$(date +%s)
mkdir -p /tmp/fin && tar xJf .carry_s37/new.tar.xz -C /tmp/fin
for r in 1 2 3; do for dt in bf16 fp16; do
  [ $(( $(date +%s) - t0 )) -gt 260 ] && { echo "time guard: skipped $dt r$r"; continue; }
  PYTHONPATH=/tmp/fin/py timeout 60 python3 tools/bench/attention.py --grid=paper --mode=fwd --dtypes=$dt --head_dims=192,256 \
    --seqlens=1024 --backends=flashcore,cudnn,flash --rep_ms=60 --host_calls=0 --out_dir=$OUT/r${r}_$dt 2>&1 | grep -E "^(bf16|fp16) " 
done; done
echo "all done at $(( $(date +%s) - t0 )) s"
tar czf /tmp/call.tgz -C $OUT . && rm -rf $OUT/* && mv /tmp/call.tgz $OUT/
