#!/usr/bin/env bash
# Session 21, call 8 (H100): the KV-cache suite split in two (gpu_h100_kvcache + gpu_h100_paged_forward:
# 571 + 191 = the 762 tests of the one suite before). Carry .carry_s21 (gpu_h100_bundle).
CARRY=.carry_s21 SUITES="gpu_h100_kvcache:420 gpu_h100_paged_forward:420" bash tools/bench/gpu_suites.sh 2>&1 | tail -12
