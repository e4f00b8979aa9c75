# Session 27 call 2 (ran inline; recorded here): the B1 rows at page 16 in four orders, three
# rounds in one process, and torch.profiler kernel durations of one graph-replayed call (HEAD).
S=docs/results/2026-11-28-h100-session27/scripts
mkdir -p /tmp/ab/head && tar xJf .carry_s27/head.tar.xz -C /tmp/ab/head
export PYTHONPATH=/tmp/ab/head/bundle/runfiles/_main/py
python3 $S/decode_orders.py --tag k2 --rows 0,1 --pages 16 --orders inorder,inorder_key,random,random_key --rounds 3 2>&1 | grep -v Warn | tee $OUT/orders_b1.log
python3 $S/b1_kernels.py 2>&1 | grep -v Warn | tee $OUT/b1_kernels.log
