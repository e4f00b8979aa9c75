// Host side of the Hopper forward: TMA tensor maps for (batch, seqlen, heads, head_dim) tensors.
// Plain C++ (cuda.h types only); the driver's encoder is reached through the runtime's entry-point
// query, so nothing links libcuda.
#pragma once

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <initializer_list>

#include "kernels/flash_fwd_api.h"

namespace flashcore {
namespace hopper {

// One (batch, seqlen, heads, head_dim) operand of a kernel (unit head_dim stride; strides in
// elements, multiples of 8 = 16 bytes; base 16-byte aligned) and the map to encode for it.
struct BshdOperand {
  CUtensorMap* map;
  const void* base;
  int seqlen;  // rows per batch entry (a packed varlen tensor: all its rows, batch 1)
  int heads;   // q/o/dO: the query heads; k/v: the k/v heads (fewer under GQA)
  int64_t batch_stride, row_stride, head_stride;
  int box_rows;
  int head_dim;  // the call's columns of this operand: head_dim for q, k (dq, dk), head_dim_v for v, o, dO
};

// For each operand in order, a 4-D tiled map, dims innermost first (head_dim, seqlen, heads,
// batch), whose box is one swizzled row wide -- swizzle_bytes / 2 head_dim elements: 64 with the
// 128-byte swizzle, 32 with the 64-byte one (head dim 96: kernels/hopper/smem_tile.cuh) -- by
// `box_rows` sequence rows; rows past `seqlen` and columns past the operand's `head_dim` (the
// call's: a multiple of 8, possibly below the kernel's kHeadDim -- a whole box past it, as V's
// third column block at head dims (192, 128), is all zeros) read as zeros and are not written by a
// store. dtype, batch and the swizzle are shared.
// Returns the first failure (a layout the TMA cannot describe); later operands are then not encoded.
cudaError_t make_bshd_tensor_maps(std::initializer_list<BshdOperand> operands, DType dtype, int batch,
                                  int swizzle_bytes = 128);

// Pack-GQA (the forward's q and o under grouped-query attention, kernels/hopper/fwd_kernel.cuh):
// the `group` query heads of one k/v head as rows of one tile. The operand's heads kv * group ..
// kv * group + group - 1 are adjacent, so a 5-D map, dims innermost first (head_dim, group,
// seqlen, heads / group, batch), with a box of (one swizzled row, group, box_rows / group, 1, 1)
// writes box_rows 128-byte lines to shared memory in the order (position, head in the group) --
// the layout of make_bshd_tensor_maps' box_rows rows, so one tile holds box_rows / group positions
// of every head of the group. `op.heads` is the query heads; box_rows a multiple of group.
cudaError_t make_packed_gqa_tensor_map(const BshdOperand& op, int group, DType dtype, int batch,
                                       int swizzle_bytes = 128);

// The TMA view of a call's tensors: a dense batch as it is, a packed varlen batch as one batch
// entry holding every row (the kernels then address row cu_seqlens[b] + r, and the map's bound
// is the tensor's end: the TMA never reads past it).
struct TmaLayout {
  bool varlen;
  int batch, rows_q, rows_k;

  TmaLayout(const AttentionFeatures& f, int batch_, int seqlen_q, int seqlen_k)
      : varlen(f.cu_seqlens_q != nullptr),
        batch(varlen ? 1 : batch_),
        rows_q(varlen ? f.total_q : seqlen_q),
        rows_k(varlen ? f.total_k : seqlen_k) {}

  // A packed tensor's batch stride is 0; its single batch entry still needs a valid map stride.
  int64_t batch_stride(int64_t stride, int64_t row_stride, int rows) const {
    return varlen ? row_stride * rows : stride;
  }
};

// Multiprocessors of the current device, queried once per device.
cudaError_t multiprocessor_count(int* count);

}  // namespace hopper
}  // namespace flashcore
