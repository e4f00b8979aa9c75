# Session 42, device call 8 (H200): head dim 64's backward with a share of P^T's exponentials on the
# FMA pipe (online_softmax.cuh exp2_poly: a degree-4 polynomial, 10 instructions, instead of
# MUFU.EX2): every second n8 group of queries (`poly2`, half the exp2s) or every fourth (`poly4`),
# against the landed build (`final`). Kernel-only A/B (ab_kernels.py --passes bwd) in alternating
# processes, d64 bf16 three rounds (with the feature rows and the deterministic backward) and fp16
# one round; then the backward and edge-input suites on poly2 (the oracle's tolerance, NaN inputs).
# Carry .carry_s42: bundle/ (poly2), final / poly2 / poly4 .tar.xz (py trees).
set -u
cd "$(dirname "$0")/../../../.."
export CARRY=.carry_s42 DC_DEADLINE=300
. tools/bench/device_call.sh
dc_unpack final poly2 poly4
dc_ab 3 final poly2 poly4 -- --dtype bf16 --passes bwd --det --dims 64 --seqlens 1024,4096,16384 --rep 25
dc_ab 1 final poly2 poly4 -- --dtype fp16 --passes bwd --dims 64 --seqlens 1024,4096,16384 --nofeatures --rep 25
dc_table final poly2 poly4
dc_suites "gpu_h200_bwd:220 gpu_h200_edge:80"
dc_finish
