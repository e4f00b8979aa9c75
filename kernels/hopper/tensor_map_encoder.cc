#include "kernels/hopper/tensor_map_encoder.h"

#include <cuda_runtime_api.h>

namespace flashcore {
namespace hopper {

EncodeTiledFn encode_tiled() {
  static const EncodeTiledFn fn = []() -> EncodeTiledFn {
    void* f = nullptr;
    cudaDriverEntryPointQueryResult status;
    // The CUDA 12.0 ABI of cuTensorMapEncodeTiled (unchanged since).
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &f, 12000, cudaEnableDefault, &status) !=
            cudaSuccess ||
        status != cudaDriverEntryPointSuccess) {
      return nullptr;
    }
    return reinterpret_cast<EncodeTiledFn>(f);
  }();
  return fn;
}

}  // namespace hopper
}  // namespace flashcore
