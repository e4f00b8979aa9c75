#!/usr/bin/env bash
# Session 21, call 2 (H100): suites on the narrow mainloop's build. Carry .carry_s21 (gpu_h100_bundle).
CARRY=.carry_s21 SUITES="gpu_h100:400 gpu_h100_features:400 gpu_h100_hf:250" bash tools/bench/gpu_suites.sh 2>&1 | tail -20
