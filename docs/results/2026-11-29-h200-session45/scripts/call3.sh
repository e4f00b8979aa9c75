# Session 45, device call 3 (H200): a share of the d128 backward's P^T exponentials on the FMA
# pipe (session 42's exp2_poly, every 5th / 3rd n8 group of queries: `poly5` 20%, `poly3` 30%;
# ../exp2_poly_d128.diff) against the landed build (`landed`, 6ea5ee4): kernel-only A/B, bf16 two
# rounds; the fuzz, edge and HF suites on the landed build. Carry .carry_s45: bundle/ (landed),
# landed / poly5 / poly3 / head .tar.xz.
set -u
export CARRY=.carry_s45 DC_DEADLINE=420
. tools/bench/device_call.sh
dc_unpack landed poly5 poly3
dc_ab 2 landed poly5 poly3 -- --dtype bf16 --passes bwd --det --dims 128 --seqlens 1024,4096,16384 --rep 25
dc_table landed poly5 poly3
dc_suites "gpu_h200_fuzz:150 gpu_h200_edge:60 gpu_h200_hf:120"
dc_finish
