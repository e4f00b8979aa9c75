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
  int seqlen;
  int64_t batch_stride, row_stride, head_stride;
  int box_rows;
};

// For each operand in order, a 4-D tiled map, dims innermost first (head_dim, seqlen, heads,
// batch), whose box is 64 head_dim elements (128 bytes, one 128-byte swizzle row) by `box_rows`
// sequence rows; rows past `seqlen` read as zeros. dtype, batch, heads and head_dim are shared.
// Returns the first failure (a layout the TMA cannot describe); later operands are then not encoded.
cudaError_t make_bshd_tensor_maps(std::initializer_list<BshdOperand> operands, DType dtype, int batch, int heads,
                                  int head_dim);

// Multiprocessors of the current device, queried once per device.
cudaError_t multiprocessor_count(int* count);

}  // namespace hopper
}  // namespace flashcore
