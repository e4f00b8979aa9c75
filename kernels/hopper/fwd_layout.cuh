// The sm90a forward's data layout, shared by its kernel (fwd_kernel.cuh) and launch
// (fwd_launch.cuh): the shared storage of one CTA, the TMA maps it is passed, and the rows and heads
// its tile scheduler walks.
#pragma once

#include <cuda.h>

#include <cstdint>

#include "kernels/common/mask.cuh"
#include "kernels/flash_fwd_api.h"

namespace flashcore {
namespace hopper {

// A tile of the walk as the producer planned it (fwd_kernel.cuh): its query block, head and batch,
// the key blocks [n_first, n_end) its rows visit, the rows it starts before m_block * block_m
// (shifted tiles), and its sequence. The producer hands it to the consumers with the tile's Q (in
// the Q buffer's slot, published by q_full), so the walk is decoded once per CTA, off the
// consumers' path; m_block < 0 ends the walk.
struct FwdTile {
  int m_block, head, batch, n_first, n_end, shift;
  SeqInfo seq;
};

template <class Element, int kHeadDim, int kBlockM, int kBlockN, int kStages, int kQBuffers = 2>
struct FwdSharedStorage {
  // Tiles are [column blocks][rows][columns of one swizzled row] (tile_swizzle_bytes).
  alignas(1024) Element q[kQBuffers][kBlockM * kHeadDim];  // double-buffered across tiles (kQBuffers 2)
  alignas(1024) Element k[kStages][kBlockN * kHeadDim];
  alignas(1024) Element v[kStages][kBlockN * kHeadDim];
  uint64_t q_full[kQBuffers], q_empty[kQBuffers];
  uint64_t k_full[kStages], k_empty[kStages];
  uint64_t v_full[kStages], v_empty[kStages];
  uint64_t v_aux;  // the producer's own wait for a V block it must patch (rows past packed data)
  FwdTile tile[kQBuffers];  // the tile whose Q is in buffer i (its m_block < 0: the walk's end)
};

struct FwdTensorMaps {
  CUtensorMap q, k, v;
  CUtensorMap o;  // box of block_m rows: a whole tile, stored by the producer
};

// The rows and heads a forward call's tile scheduler walks: seqlen_q rows of each query head, or
// with pack-GQA (gqa_shift > 0) seqlen_q << gqa_shift rows of each k/v head. The launch (its tile
// pick and grid) and the kernel must walk the same.
struct FwdWalkShape {
  int rows, heads;
};
__host__ __device__ __forceinline__ FwdWalkShape fwd_walk_shape(const FwdParams& p, int gqa_shift) {
  return {p.seqlen_q << gqa_shift, gqa_shift > 0 ? p.heads_kv : p.heads};
}

}  // namespace hopper
}  // namespace flashcore
