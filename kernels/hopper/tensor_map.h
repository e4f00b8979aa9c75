// Host side of the Hopper forward: TMA tensor maps for (batch, seqlen, heads, head_dim) tensors.
// Plain C++ (cuda.h types only); the driver's encoder is reached through the runtime's entry-point
// query, so nothing links libcuda.
#pragma once

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/flash_fwd_api.h"

namespace flashcore {
namespace hopper {

// A 4-D tiled map over a (batch, seqlen, heads, head_dim) tensor with unit head_dim stride,
// dims innermost first (head_dim, seqlen, heads, batch), whose box is 64 head_dim elements
// (128 bytes, one 128-byte swizzle row) by `box_rows` sequence rows. Rows past `seqlen` read as
// zeros. Strides are in elements and must be multiples of 8 (16 bytes); base 16-byte aligned.
cudaError_t make_bshd_tensor_map(CUtensorMap* map, const void* base, DType dtype, int batch, int seqlen, int heads,
                                 int head_dim, int64_t batch_stride, int64_t row_stride, int64_t head_stride,
                                 int box_rows);

// Multiprocessors of the current device, queried once per device.
cudaError_t multiprocessor_count(int* count);

}  // namespace hopper
}  // namespace flashcore
