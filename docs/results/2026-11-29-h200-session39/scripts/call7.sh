# Session 39, device call 7 (H200): issue 15's S1024 cuDNN rows on the landed build (513c72c's py
# tree): tools/bench/attention.py, flashcore beside torch SDPA's cuDNN and flash in one process,
# forward, paper grid at S 1024, head dims 64 / 128 / 192 / 256, bf16 and fp16, two runs each.
# Carry .carry_s39: div.tar.xz.
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
t0=$(date +%s)
mkdir -p /tmp/fin && tar xJf .carry_s39/div.tar.xz -C /tmp/fin
for r in 1 2; do for dt in bf16 fp16; do
  [ $(( $(date +%s) - t0 )) -gt 150 ] && { echo "time guard: skipped $dt r$r"; continue; }
  PYTHONPATH=/tmp/fin/py timeout 60 python3 tools/bench/attention.py --grid=paper --mode=fwd --dtypes=$dt --head_dims=64,128,192,256 \
    --seqlens=1024 --backends=flashcore,cudnn,flash --rep_ms=40 --host_calls=0 --out_dir=$OUT/r${r}_$dt 2>&1 | grep -E "^(bf16|fp16) "
done; done
echo "all done at $(( $(date +%s) - t0 )) s"
