// Programmatic dependent launch (sm90) for the KV-cache kernels: a grid launched as the
// programmatic dependent of the grid before it on the stream (captured into graphs as such) may be
// scheduled once every CTA of that primary has called allow_dependent_grids(), and reads the
// primary's results only after wait_for_primary_grid(). The chains: page sort -> decode (address
// order) and decode -> split combine. Included only by decode_kernel.cuh and its headers.
#pragma once

#include <cuda_runtime.h>

#include "kernels/decode/decode_api.h"

namespace flashcore {
namespace decode {

// Lets the dependent grid be scheduled (a no-op before sm90).
__device__ __forceinline__ void allow_dependent_grids() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

// Waits until the primary grid has finished and its writes are visible; a no-op without one (and
// before sm90, where the grids run in stream order).
__device__ __forceinline__ void wait_for_primary_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

// Launches kernel(params...); `programmatic`: as the programmatic dependent of the grid before it.
template <class... Params>
inline cudaError_t launch_decode_grid(void (*kernel)(Params...), dim3 grid, dim3 block, size_t smem_bytes,
                                      cudaStream_t stream, bool programmatic, const Params&... params) {
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = smem_bytes;
  config.stream = stream;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr[0].val.programmaticStreamSerializationAllowed = 1;
  config.attrs = attr;
  config.numAttrs = programmatic ? 1 : 0;
  return cudaLaunchKernelEx(&config, kernel, params...);
}

}  // namespace decode
}  // namespace flashcore
