# Session 48, call 1: session 47's prepared mask diff (`mask`) and the stat-row layout with the
# quad's lanes reading 64 contiguous bytes (`both2` = mask + stat rows) against HEAD (`head`);
# suites and the backward sanitizers on both2. (Call 0, session 47's next_ab.sh: `both` with the
# quad's lanes 2 kQTiles floats apart read 0.866-0.994: a 4-way bank conflict on every load.)
set -u
export CARRY=.carry_s48 DC_DEADLINE=330
. tools/bench/device_call.sh
dc_unpack head mask both2
dc_ab 2 head mask both2 -- --dtype bf16 --passes bwd --dims 64,128 --seqlens 1024,4096,16384 --rep 20
dc_ab 1 head mask both2 -- --dtype fp16 --passes bwd --dims 64,96,128 --seqlens 1024,4096 --nofeatures --rep 20
dc_table head mask both2
DC_SAN_KERNELS=kns=bwd_kernel DC_SAN_TIMEOUT=240 dc_sanitize both2 docs/results/2026-11-29-h200-session46/scripts/san_bwd_lag.py
dc_suites "gpu_h200_bwd:200 gpu_h200_features:200 gpu_h200_fuzz:200 gpu_h200_edge:100"
dc_finish
