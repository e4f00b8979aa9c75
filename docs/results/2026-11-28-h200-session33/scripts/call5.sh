# Session 33 call 5 (H200): the wgmma N-throughput probe, built on the CPU machine (wgmma_n_probe.cu
# says how) and carried as .carry_s33/probe/wgmma_n_probe; run twice, the second run's rows kept.
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
.carry_s33/probe/wgmma_n_probe
.carry_s33/probe/wgmma_n_probe | tail -n +2 > $OUT/probe_run2.txt; cat $OUT/probe_run2.txt
