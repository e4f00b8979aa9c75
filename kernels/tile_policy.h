// Forward tile shapes: the one place that decides them, per (arch, head dim).
#pragma once

#include "kernels/flash_fwd_api.h"

namespace flashcore {

struct FwdTileShape {
  int block_m;  // query rows per CTA (16 per warp: each warp owns one m16 MMA row tile)
  int block_n;  // keys per main-loop step
  int warps;
};

// Same shape on every arch until the per-arch tuning issue; block_m must equal 16 * warps.
constexpr FwdTileShape fwd_tile_shape(Arch /*arch*/, int /*head_dim*/) { return {64, 64, 4}; }

}  // namespace flashcore
