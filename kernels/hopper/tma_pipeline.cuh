// Hopper (sm_90) data movement and synchronisation: the tensor-memory accelerator (TMA) bulk
// tensor copy, the mbarriers its copies complete on, and warpgroup register reallocation.
//
// Pipeline protocol used by the forward (one producer thread, consumer warps):
//   full[s]:  count 1. The producer arms it with the byte count it expects (arrive.expect_tx),
//             the TMA completes those bytes on it; consumers wait on its phase.
//   empty[s]: count = consumer warps. Each consumer warp arrives once it no longer reads stage s;
//             the producer waits on it before overwriting the stage.
// Load number `it` uses stage it % kStages in round it / kStages; consumers wait for parity
// (round & 1) on full, the producer for parity (round & 1) ^ 1 on empty (a fresh barrier counts
// its "previous" phase as complete, so round 0 does not block).
#pragma once

#include <cuda.h>

#include <cstdint>

namespace flashcore {
namespace hopper {

__device__ __forceinline__ uint32_t smem_u32(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// `p` (inside the dynamic shared-memory window) advanced to the next multiple of kAlign bytes in
// the shared address space, by pointer arithmetic on the __shared__ array rather than through an
// integer: the compiler then still knows every access through the result is shared, so plain C++
// loads and stores compile to LDS / STS. Through a uintptr_t round trip they became generic
// LD.E / ST.E, which wait on the long scoreboard (ncu on the sm90a backward, 2026-11-23: the
// lse / D loads and the dS^T stores; docs/PERF.md).
template <uint32_t kAlign>
__device__ __forceinline__ unsigned char* align_shared(unsigned char* p) {
  static_assert((kAlign & (kAlign - 1)) == 0, "a power of two");
  return p + ((kAlign - (smem_u32(p) & (kAlign - 1))) & (kAlign - 1));
}

__device__ __forceinline__ void mbar_init(uint64_t* bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem_u32(bar)), "r"(count) : "memory");
}

// Makes barrier initialisation visible to the async proxy (TMA) and to other threads.
__device__ __forceinline__ void mbar_init_fence() {
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}

__device__ __forceinline__ void mbar_arrive_expect_tx(uint64_t* bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem_u32(bar)), "r"(bytes)
               : "memory");
}

__device__ __forceinline__ void mbar_arrive(uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(smem_u32(bar)) : "memory");
}

// One mbarrier.try_wait on the phase of `parity`: 1 once the phase has completed, 0 when the wait
// returned first -- after the system's short default time limit, or with kSuspendNs > 0 after at
// most that suspend-time hint, the thread sleeping meanwhile.
template <uint32_t kSuspendNs = 0>
__device__ __forceinline__ uint32_t mbar_try_wait(uint32_t addr, uint32_t parity) {
  uint32_t done;
  if constexpr (kSuspendNs == 0) {
    asm volatile("{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}\n"
                 : "=r"(done)
                 : "r"(addr), "r"(parity)
                 : "memory");
  } else {
    asm volatile(
        "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2, %3;\n selp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(addr), "r"(parity), "r"(kSuspendNs)
        : "memory");
  }
  return done;
}

// Waits for the phase of `parity` to complete. kSuspendNs > 0: for a thread with nothing else to do
// meanwhile (a producer waiting for a stage to be released), which then sleeps until the phase
// completes instead of polling again -- its polls would be issued from the SMSP its warp shares
// with math warps.
template <uint32_t kSuspendNs = 0>
__device__ __forceinline__ void mbar_wait(uint64_t* bar, uint32_t parity) {
  const uint32_t addr = smem_u32(bar);
  while (!mbar_try_wait<kSuspendNs>(addr, parity)) {
  }
}

// mbar_wait whose loop ends for the whole warp at once (every lane has seen the phase complete):
// ptxas then knows the code after it is not in divergent flow, and keeps warp-uniform values
// (wgmma descriptors) in uniform registers after a wait at the top of a loop.
__device__ __forceinline__ void mbar_wait_warp(uint64_t* bar, uint32_t parity) {
  const uint32_t addr = smem_u32(bar);
  while (!__all_sync(0xffffffffu, mbar_try_wait(addr, parity))) {
  }
}

__device__ __forceinline__ void prefetch_tensor_map(const CUtensorMap* map) {
  asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<uint64_t>(map)) : "memory");
}

// 4-D tiled TMA load (coordinates innermost first) into shared memory, completing on `bar`.
// Out-of-range rows are filled with zeros and still count towards the transaction bytes.
__device__ __forceinline__ void tma_load_4d(const CUtensorMap* map, void* smem_dst, uint64_t* bar, int c0, int c1,
                                            int c2, int c3) {
  asm volatile(
      "cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3, %4, %5}], [%6];\n" ::"r"(smem_u32(smem_dst)),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(smem_u32(bar))
      : "memory");
}

// 5-D tiled TMA load (the forward's pack-GQA q: tensor_map.h make_packed_gqa_tensor_map).
__device__ __forceinline__ void tma_load_5d(const CUtensorMap* map, void* smem_dst, uint64_t* bar, int c0, int c1,
                                            int c2, int c3, int c4) {
  asm volatile(
      "cp.async.bulk.tensor.5d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3, %4, %5, %6}], [%7];\n" ::"r"(smem_u32(smem_dst)),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(c4), "r"(smem_u32(bar))
      : "memory");
}

// 5-D tiled TMA store (the pack-GQA o), as tma_store_4d.
__device__ __forceinline__ void tma_store_5d(const CUtensorMap* map, const void* smem_src, int c0, int c1, int c2,
                                             int c3, int c4) {
  asm volatile("cp.async.bulk.tensor.5d.global.shared::cta.bulk_group [%0, {%2, %3, %4, %5, %6}], [%1];\n" ::"l"(
                   reinterpret_cast<uint64_t>(map)),
               "r"(smem_u32(smem_src)), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(c4)
               : "memory");
}

// 4-D tiled TMA store from shared memory (bulk-group completion); rows past the tensor's extent
// are not written. The writing threads must have fenced their shared-memory stores to the async
// proxy (fence_view_async_shared) and synchronised before one thread issues this.
__device__ __forceinline__ void tma_store_4d(const CUtensorMap* map, const void* smem_src, int c0, int c1, int c2,
                                             int c3) {
  asm volatile("cp.async.bulk.tensor.4d.global.shared::cta.bulk_group [%0, {%2, %3, %4, %5}], [%1];\n" ::"l"(
                   reinterpret_cast<uint64_t>(map)),
               "r"(smem_u32(smem_src)), "r"(c0), "r"(c1), "r"(c2), "r"(c3)
               : "memory");
}
__device__ __forceinline__ void tma_store_commit() { asm volatile("cp.async.bulk.commit_group;\n" ::: "memory"); }
// Waits until all but the kPending most recent committed store groups have read their shared
// memory (it may then be overwritten).
template <int kPending = 0>
__device__ __forceinline__ void tma_store_wait_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(kPending) : "memory");
}
// Waits until the committed stores are complete.
__device__ __forceinline__ void tma_store_wait_all() { asm volatile("cp.async.bulk.wait_group 0;\n" ::: "memory"); }
__device__ __forceinline__ void fence_view_async_shared() {
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

// Warpgroup register reallocation (sm_90a): producers give registers back, consumers take them.
template <int kRegs>
__device__ __forceinline__ void warpgroup_reg_alloc() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(kRegs));
}
template <int kRegs>
__device__ __forceinline__ void warpgroup_reg_dealloc() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(kRegs));
}

// Named barriers (ids 1..15; 0 is __syncthreads) for ordering between consumer warpgroups.
// This thread's warpgroup index, as a warp-uniform value (a shuffle from lane 0): a branch on it
// is then uniform to ptxas. Computed as threadIdx.x / 128, a branch on it around wgmma (a consumer
// that owns other products than the other) made ptxas serialize every wgmma of the kernel
// ("C7520 ... compiler-inserted WG.AR in divergent path": the d96 and d192 backward).
__device__ __forceinline__ int warpgroup_index() { return __shfl_sync(0xffffffffu, threadIdx.x / 128, 0); }

__device__ __forceinline__ void named_barrier_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}
__device__ __forceinline__ void named_barrier_arrive(int id, int threads) {
  asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

}  // namespace hopper
}  // namespace flashcore
