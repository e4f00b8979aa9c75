// Forward tile shapes of the mma.sync mainloop (kernels/sm80/fwd_kernel.cuh): the one place that
// decides them, per (arch, head dim). The sm90a forward is the Hopper kernel, whose shapes live in
// kernels/hopper/tile_policy.h.
#pragma once

#include "kernels/flash_fwd_api.h"

namespace flashcore {

struct FwdTileShape {
  int block_m;  // query rows per CTA (16 per warp: each warp owns one m16 MMA row tile)
  int block_n;  // keys per main-loop step
  int warps;
  int min_ctas_per_sm = 1;  // __launch_bounds__ occupancy hint: caps registers at 64K / (min * threads)
};

// Shared memory per CTA is (block_m + 4 * block_n) * head_dim * 2 bytes (Q, and K and V double
// buffered). Per thread the registers hold one 16-row slice: O (head_dim / 2 floats), Q fragments
// (head_dim / 4) and S (block_n / 2), whatever block_m is, so 8 warps cost no more registers
// than 4.
//   sm80 / sm89: 128 rows, 8 warps (FA2's query tile). head_dim 64 with 64 keys: 48 KiB, two CTAs
//     (16 warps) per SM on both A100 (164 KiB) and Ada (100 KiB). head_dim 128 with 32 keys:
//     64 KiB, two CTAs on A100, one on Ada (64 keys would be 96 KiB: one CTA on either), and
//     <= 128 registers per thread, which two 256-thread CTAs need. head_dim 96 (72..96 run on it)
//     takes the 128 shape: 48 KiB, two CTAs per SM on A100 and on Ada; O is 48 registers, S 16.
//   head_dim 256 (every multiple of 8 from 136 to 256 runs on it): 128 rows, 8 warps, 16 keys per
//     step: 96 KiB, one CTA per SM on either GPU (the PTX library must fit Ada's 99 KiB, and
//     sm80/sm89 keep one shape so that the PTX variant the Hopper suites run checks it). 32 keys
//     would be 128 KiB (A100 only), and 64 rows x 32 keys (96 KiB) leaves 4 warps per SM. O is
//     128 fp32 registers per thread, so Q's fragments are reloaded per k-step (below).
constexpr FwdTileShape fwd_tile_shape(Arch /*arch: sm80, sm89 and their PTX builds alike*/, int head_dim) {
  return head_dim <= 64    ? FwdTileShape{128, 64, 8, 2}
         : head_dim <= 128 ? FwdTileShape{128, 32, 8, 2}
                           : FwdTileShape{128, 16, 8, 1};
}

constexpr size_t fwd_smem_bytes(FwdTileShape tile, int head_dim) {
  return static_cast<size_t>(tile.block_m + 4 * tile.block_n) * head_dim * 2;
}

}  // namespace flashcore
