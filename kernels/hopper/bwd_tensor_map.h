// Host side of the Hopper backward's dQ writer (kernels/hopper/dq_writer.cuh): the TMA tensor map
// of the fp32 dq_accum scratch. Kept apart from tensor_map.h so that the forward's kernel TUs,
// which depend on that header, are not rebuilt for a backward-only change.
#pragma once

#include <cuda.h>
#include <cuda_runtime_api.h>

namespace flashcore {
namespace hopper {

// A contiguous float32 (batch, heads, rows, head_dim) tensor as a 4-D map, dims innermost first,
// whose box is 32 columns (128 bytes, one 128-byte swizzle row) by `box_rows` rows, 128-byte
// swizzled; the TMA's reduce-adds into it skip rows past `rows`.
cudaError_t make_f32_rows_tensor_map(CUtensorMap* map, float* base, int head_dim, int rows, int heads, int batch,
                                     int box_rows);

}  // namespace hopper
}  // namespace flashcore
