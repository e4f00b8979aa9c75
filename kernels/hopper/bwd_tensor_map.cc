#include "kernels/hopper/bwd_tensor_map.h"

#include <cstdint>

#include "kernels/hopper/tensor_map_encoder.h"

namespace flashcore {
namespace hopper {

cudaError_t make_f32_rows_tensor_map(CUtensorMap* map, float* base, int head_dim, int rows, int heads, int batch,
                                     int box_rows) {
  EncodeTiledFn encode = encode_tiled();
  if (encode == nullptr) return cudaErrorSymbolNotFound;
  constexpr uint64_t kElem = 4;
  const uint64_t row_bytes = static_cast<uint64_t>(head_dim) * kElem;
  const uint64_t head_bytes = row_bytes * static_cast<uint64_t>(rows);
  const cuuint64_t dims[4] = {static_cast<cuuint64_t>(head_dim), static_cast<cuuint64_t>(rows),
                              static_cast<cuuint64_t>(heads), static_cast<cuuint64_t>(batch)};
  const cuuint64_t strides[3] = {row_bytes, head_bytes, head_bytes * static_cast<uint64_t>(heads)};
  const cuuint32_t box[4] = {32, static_cast<cuuint32_t>(box_rows), 1, 1};
  const cuuint32_t elem_strides[4] = {1, 1, 1, 1};
  const CUresult r = encode(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, base, dims, strides, box, elem_strides,
                            CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                            CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  return r == CUDA_SUCCESS ? cudaSuccess : cudaErrorInvalidValue;
}

}  // namespace hopper
}  // namespace flashcore
