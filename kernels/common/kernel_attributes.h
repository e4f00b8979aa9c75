// Per-device kernel set-up, shared by every launcher.
//
// cudaFuncSetAttribute acts on the calling thread's current device only: an opt-in made on
// cuda:0 does not exist on cuda:1, and a launch there that asks for more than 48 KB of dynamic
// shared memory fails with cudaErrorInvalidValue. So the opt-in is remembered per (kernel,
// device), never per process.
#pragma once

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstdint>

namespace flashcore {

// Makes `kKernel` launchable with `bytes` of dynamic shared memory on the current device. The
// attribute call is made once per device and kernel (a bit per device in a mask owned by this
// kernel's instantiation); devices numbered 64 and up, which the mask cannot hold, pay the call
// every time. Two threads racing on a new device both set the same value, which is harmless.
template <auto kKernel>
cudaError_t ensure_dynamic_smem(size_t bytes) {
  if (bytes <= 48 * 1024) return cudaSuccess;
  static std::atomic<uint64_t> configured_devices{0};
  int device = 0;
  cudaError_t err = cudaGetDevice(&device);
  if (err != cudaSuccess) return err;
  const uint64_t bit = device >= 0 && device < 64 ? uint64_t{1} << device : 0;
  if (bit != 0 && (configured_devices.load(std::memory_order_acquire) & bit) != 0) return cudaSuccess;
  err = cudaFuncSetAttribute(kKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes));
  if (err != cudaSuccess) return err;
  configured_devices.fetch_or(bit, std::memory_order_release);
  return cudaSuccess;
}

}  // namespace flashcore
