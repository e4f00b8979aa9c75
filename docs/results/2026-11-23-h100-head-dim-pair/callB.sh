#!/bin/bash
# Session 8, call B (H100), right after call A: install FA4 (its second half from .carry_fa4/fa4/b),
# then tools/bench/head_dim_pair.py on branch headdim-v's attention bundle (every backend in one
# process), then the paper grid forward/backward with flashcore only, new build vs main's build in
# alternating processes (the head_dim_v change must cost nothing at equal head dims).
C=$(cd "$(dirname "$0")" && pwd)
echo "branch $(cat $C/COMMIT)"
cat /root/keep/cu13.part.* .carry_fa4/fa4/b/cu13.part.* > /tmp/$(cat .carry_fa4/fa4/b/BIG_WHEEL_NAME) &&
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/fa4 /tmp/*.whl .carry_fa4/fa4/b/*.whl
export PYTHONPATH=/tmp/fa4:/tmp/fa4/nvidia_cutlass_dsl/dsl_packages:$PYTHONPATH
python3 -c "from flash_attn.cute import flash_attn_func; print('fa4 ok')"
W=/tmp/vb; rm -rf $W; mkdir -p $W/new $W/main
tar xzf $C/vdim_attention_bundle.tar.gz -C $W/new
[ -f $C/main_attention_bundle.tar.gz ] && tar xzf $C/main_attention_bundle.tar.gz -C $W/main
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader
R=$W/new/bundle/runfiles
export FLASH_ATTENTION_CUTE_DSL_CACHE_ENABLED=1 FLASH_ATTENTION_CUTE_DSL_CACHE_DIR=/tmp/fa4cache PYTHONUNBUFFERED=1
echo "== pair bench $(date +%T)"
PYTHONPATH=$R/_main:$R/_main/py:$R:$PYTHONPATH timeout 300 python3 $C/head_dim_pair.py --rounds 3 > $OUT/head_dim_pair.log 2>&1
echo "rc=$? $(date +%T)"; tail -20 $OUT/head_dim_pair.log
if [ -d $W/main/bundle ]; then
  for r in 1 2; do
    for b in new main; do
      (cd $W/$b && timeout 60 python3 bundle/run.py -- --grid paper --backends flashcore --dtypes bf16 \
        --head_dims 64,128 --mode fwd_bwd --out_dir $W/ab_${b}_$r) > $OUT/ab_${b}_$r.log 2>&1
      echo "ab $b $r rc=$?"
    done
  done
fi
