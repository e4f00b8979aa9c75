#include "kernels/hopper/tensor_map.h"

#include <atomic>

#include "kernels/hopper/l2_promotion.h"
#include "kernels/hopper/tensor_map_encoder.h"

namespace flashcore {
namespace hopper {
namespace {

// One fp16 / bf16 map of kRank dims whose box rows are swizzled lines of swizzle_bytes (the
// forward's and the backward's Q / K / V / O tiles), every element stride 1.
template <int kRank>
cudaError_t encode_swizzled_map(EncodeTiledFn encode, CUtensorMap* map, const void* base, DType dtype,
                                const cuuint64_t (&dims)[kRank], const cuuint64_t (&strides)[kRank - 1],
                                const cuuint32_t (&box)[kRank], CUtensorMapL2promotion promotion, int swizzle_bytes) {
  cuuint32_t elem_strides[kRank];
  for (cuuint32_t& e : elem_strides) e = 1;
  const CUresult r = encode(map, dtype == DType::kFp16 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16 : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16,
                            kRank, const_cast<void*>(base), dims, strides, box, elem_strides,
                            CU_TENSOR_MAP_INTERLEAVE_NONE,
                            swizzle_bytes == 128 ? CU_TENSOR_MAP_SWIZZLE_128B : CU_TENSOR_MAP_SWIZZLE_64B, promotion,
                            CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  return r == CUDA_SUCCESS ? cudaSuccess : cudaErrorInvalidValue;
}

cudaError_t make_bshd_tensor_map(EncodeTiledFn encode, CUtensorMap* map, const void* base, DType dtype, int batch,
                                 int seqlen, int heads, int head_dim, int64_t batch_stride, int64_t row_stride,
                                 int64_t head_stride, int box_rows, int swizzle_bytes) {
  constexpr int64_t kElem = 2;  // fp16 / bf16
  const cuuint64_t dims[4] = {static_cast<cuuint64_t>(head_dim), static_cast<cuuint64_t>(seqlen),
                              static_cast<cuuint64_t>(heads), static_cast<cuuint64_t>(batch)};
  const cuuint64_t strides[3] = {static_cast<cuuint64_t>(row_stride * kElem),
                                 static_cast<cuuint64_t>(head_stride * kElem),
                                 static_cast<cuuint64_t>(batch_stride * kElem)};
  // One swizzled row per box row: swizzle_bytes / 2 head_dim elements.
  const cuuint32_t box[4] = {static_cast<cuuint32_t>(swizzle_bytes / kElem), static_cast<cuuint32_t>(box_rows), 1, 1};
  return encode_swizzled_map(encode, map, base, dtype, dims, strides, box, bshd_l2_promotion(base, strides), swizzle_bytes);
}

}  // namespace

cudaError_t make_packed_gqa_tensor_map(const BshdOperand& op, int group, DType dtype, int batch, int swizzle_bytes) {
  if (swizzle_bytes != 128 && swizzle_bytes != 64) return cudaErrorInvalidValue;
  if (group <= 0 || op.heads % group != 0 || op.box_rows % group != 0) return cudaErrorInvalidValue;
  EncodeTiledFn encode = encode_tiled();
  if (encode == nullptr) return cudaErrorSymbolNotFound;
  constexpr int64_t kElem = 2;  // fp16 / bf16
  const cuuint64_t dims[5] = {static_cast<cuuint64_t>(op.head_dim), static_cast<cuuint64_t>(group),
                              static_cast<cuuint64_t>(op.seqlen), static_cast<cuuint64_t>(op.heads / group),
                              static_cast<cuuint64_t>(batch)};
  const cuuint64_t strides[4] = {static_cast<cuuint64_t>(op.head_stride * kElem),
                                 static_cast<cuuint64_t>(op.row_stride * kElem),
                                 static_cast<cuuint64_t>(op.head_stride * group * kElem),
                                 static_cast<cuuint64_t>(op.batch_stride * kElem)};
  const cuuint32_t box[5] = {static_cast<cuuint32_t>(swizzle_bytes / kElem), static_cast<cuuint32_t>(group),
                             static_cast<cuuint32_t>(op.box_rows / group), 1, 1};
  const cuuint64_t bshd_strides[3] = {strides[1], strides[0], strides[3]};  // row, head, batch
  return encode_swizzled_map(encode, op.map, op.base, dtype, dims, strides, box,
                             bshd_l2_promotion(op.base, bshd_strides), swizzle_bytes);
}

cudaError_t make_bshd_tensor_maps(std::initializer_list<BshdOperand> operands, DType dtype, int batch,
                                  int swizzle_bytes) {
  if (swizzle_bytes != 128 && swizzle_bytes != 64) return cudaErrorInvalidValue;
  EncodeTiledFn encode = encode_tiled();
  if (encode == nullptr) return cudaErrorSymbolNotFound;
  for (const BshdOperand& op : operands) {
    const cudaError_t err = make_bshd_tensor_map(encode, op.map, op.base, dtype, batch, op.seqlen, op.heads, op.head_dim,
                                                 op.batch_stride, op.row_stride, op.head_stride, op.box_rows,
                                                 swizzle_bytes);
    if (err != cudaSuccess) return err;
  }
  return cudaSuccess;
}

cudaError_t multiprocessor_count(int* count) {
  constexpr int kMaxDevices = 64;
  static std::atomic<int> cached[kMaxDevices] = {};
  int device = 0;
  cudaError_t err = cudaGetDevice(&device);
  if (err != cudaSuccess) return err;
  if (device >= 0 && device < kMaxDevices) {
    const int c = cached[device].load(std::memory_order_relaxed);
    if (c > 0) {
      *count = c;
      return cudaSuccess;
    }
  }
  int c = 0;
  err = cudaDeviceGetAttribute(&c, cudaDevAttrMultiProcessorCount, device);
  if (err != cudaSuccess) return err;
  if (device >= 0 && device < kMaxDevices) cached[device].store(c, std::memory_order_relaxed);
  *count = c;
  return cudaSuccess;
}

}  // namespace hopper
}  // namespace flashcore
