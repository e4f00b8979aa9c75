// Backward tile shapes of the mma.sync main kernel (kernels/sm80/bwd_kernel.cuh, flash_bwd_kernel):
// the one place that decides them, per (arch, head dim) -- for sm80, sm89, sm80_ptx, and sm90a's
// mma.sync backward (the wgmma kernel's fallback, and the whole sm90a backward above head dim 128).
// The forward's are in tile_policy.h beside this file, the Hopper wgmma backward's in
// kernels/hopper/tile_policy.h.
#pragma once

#include <cstddef>

#include "kernels/flash_bwd_api.h"
#include "kernels/flash_fwd_api.h"

namespace flashcore {

struct BwdTileShape {
  int block_n;   // keys per CTA: 16 per warp (each warp owns one m16 row tile of S^T = K Q^T)
  int warps;
  int stages;    // Q / dO (and lse / D row) shared-memory stages: 2 prefetches the next query block
  int dkv_cols;  // head-dim columns of dK, dV (and of its dQ share) one CTA accumulates; a key
                 // block is head_dim / dkv_cols CTAs ("column parts"), each recomputing S^T, dP^T
  bool ds_in_do;  // dS^T written over the step's dO tile (dead by then) instead of its own tile
};

// Dynamic shared memory per block the backward may take, by library: A100 163 KiB; Ada 99 KiB,
// which the PTX library (sm80_ptx, JIT-compiled for any GPU >= 8.0) must also fit; H100 227 KiB.
constexpr size_t bwd_smem_budget(Arch arch) {
  return arch == Arch::kSm80 ? 163 * 1024 : arch == Arch::kSm90a ? 227 * 1024 : 99 * 1024;
}

// The main kernel's dynamic shared memory: K, V (block_n rows each), stages x (Q, dO) (kBwdBlockM
// rows each), all head_dim wide (fp16/bf16); dS^T (block_n x (kBwdBlockM + 8)) unless it lives in
// dO's tile; stages x (lse, D) rows (fp32).
constexpr size_t bwd_smem_bytes(BwdTileShape t, int head_dim) {
  return static_cast<size_t>(2 * t.block_n + 2 * t.stages * kBwdBlockM) * head_dim * 2 +
         (t.ds_in_do ? 0 : static_cast<size_t>(t.block_n) * (kBwdBlockM + 8) * 2) +
         static_cast<size_t>(2 * t.stages * kBwdBlockM) * 4;
}

// Per thread the main kernel holds dK and dV for its 16 keys over dkv_cols columns (dkv_cols / 2
// fp32 each), S^T and dP^T for 64 queries (32 each): dkv_cols = 128 is 255 registers without
// spills at head_dim 128 (ptxas), so head_dim 256 is split into two 128-column parts. Each part
// recomputes S^T and dP^T over the full head dim: at d256 the backward does 1.4x the FLOPs of the
// unsplit math (S^T, dP^T: 2 x 2 GEMMs of 256-deep k instead of 2, next to dV, dK, dQ's 3) --
// accepted for now, the price of fitting the registers.
//   head_dim 64, 128 (unchanged): 64 keys, 4 warps, one part; stages 2 on sm90a (its fallback),
//     1 on sm80 / sm89 (a second stage costs A100 d128 a CTA per SM and does not fit Ada at d128).
//   head_dim 256:
//     sm80:  64 keys, 4 warps, 1 stage: 137.5 KiB (of 163), one CTA per SM.
//     sm90a: 128 keys, 8 warps, 1 stage: 215.5 KiB (of 227), one CTA per SM of 8 warps (255
//       registers each, all of the register file). Measured on an H100 (bf16, paper grid):
//       1.42-1.59x the 64-key, 4-warp, 2-stage shape (202 KiB, 4 warps per SM) -- the kernel is
//       latency-bound there; still 0.37-0.48x cuDNN (docs/results/2026-11-23-h100-wide.md).
//     sm89, sm80_ptx: 99 KiB. 64 keys are 128 KiB of K, V, Q, dO alone; 32 keys (2 warps) with dS^T
//       in its own tile are 101 KiB, 2 KiB over, so dS^T goes over dO's tile (dO is last read by
//       dP^T = V dO^T, before dS^T exists; one more barrier per step): 96.5 KiB, one 64-thread CTA
//       per SM -- it runs, slowly (to measure; a query step below kBwdBlockM would change the
//       deterministic mode's semaphore granularity).
constexpr BwdTileShape bwd_tile_shape(Arch arch, int head_dim) {
  const int stages = arch == Arch::kSm90a ? 2 : 1;
  if (head_dim <= 128) return BwdTileShape{64, 4, stages, head_dim, false};
  // sm90a (the wgmma backward's fallback for layouts the TMA cannot describe): 192, instantiated
  // there alone, takes three 64-column parts.
  if (arch == Arch::kSm90a) return BwdTileShape{128, 8, 1, head_dim % 128 == 0 ? 128 : 64, false};
  if (arch == Arch::kSm80) return BwdTileShape{64, 4, stages, 128, false};
  return BwdTileShape{32, 2, 1, 128, true};
}

}  // namespace flashcore
