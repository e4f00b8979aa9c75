// The L2 promotion of the forward / backward bshd tensor maps (tensor_map.cc), alone for its host
// test (tests/l2_promotion_test.cc).
#pragma once

#include <cuda.h>

#include <cstdint>

namespace flashcore {
namespace hopper {

// 256 bytes, unless some row starts off a 32-byte L2 sector -- a dense tensor whose head dim is an
// odd multiple of 8 (200: 400-byte rows), or such strides. The TMA then splits box rows into small
// L2 requests: the d200 forward read 2.3x the sectors and 5.6x the requests of d256's for 1.25x
// the tiles (ncu, H200, session 30 call 3; not fully explained). There 128-byte promotion measured
// +0.6..+3.9% forward at d200 (call 3), and this rule +1.1..+5.4% (call 4, backward
// 0.986..1.016); rows on the sectors (d80, d96, d256) 0.990..1.006 with 128 bytes, so they keep
// 256 (docs/results/2026-11-28-h200-session30.md). stride_bytes: row, head and batch strides.
inline CUtensorMapL2promotion bshd_l2_promotion(const void* base, const cuuint64_t (&stride_bytes)[3]) {
  constexpr cuuint64_t kSector = 32;
  bool on_sectors = reinterpret_cast<uintptr_t>(base) % kSector == 0;
  for (cuuint64_t stride : stride_bytes) on_sectors = on_sectors && stride % kSector == 0;
  return on_sectors ? CU_TENSOR_MAP_L2_PROMOTION_L2_256B : CU_TENSOR_MAP_L2_PROMOTION_L2_128B;
}

}  // namespace hopper
}  // namespace flashcore
