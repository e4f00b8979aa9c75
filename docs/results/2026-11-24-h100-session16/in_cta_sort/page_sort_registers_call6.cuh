// Address-order page walk of the decode kernel (kernels/decode/decode_kernel.cuh, KeyWalk::
// kPagedAddressOrder): a CTA sorts the block-table entries of its split's pages by physical page
// in shared memory, once, before its pipeline starts. Included only by decode_kernel.cuh.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace flashcore {
namespace decode {

// One sorted entry: physical page in the high word (the sort key), logical page in the low word.
// Pages past the last one holding keys get physical page 0xffffffff: they sort last, and their
// rows read nothing.
__device__ __forceinline__ int entry_physical_page(unsigned long long entry) { return static_cast<int>(entry >> 32); }
__device__ __forceinline__ int entry_logical_page(unsigned long long entry) {
  return static_cast<int>(static_cast<uint32_t>(entry));
}

// Sorts the entries of logical pages page_first .. page_first + n_pages - 1 of `pages` (a
// block-table row; pages past page_last are not read) ascending into buf[0, n_pages). All
// kThreads threads of the CTA call it; n_pages <= kMaxPages.
//
// A bitonic network over kMaxPages entries (padded with all-ones keys) held in registers, kPer =
// kMaxPages / kThreads consecutive entries a thread: compare-exchange partners less than kPer
// apart are in the same thread, less than 32 * kPer apart in the same warp (shuffles), and only
// the widest strides cross warps (through buf, with a barrier). The same network with every stage
// in shared memory (a barrier each) took 8.5 us at 1024 pages on an H100, more than visiting the
// pages in address order saves (docs/results/2026-11-24-h100-session16.md).
template <int kThreads, int kMaxPages>
__device__ __forceinline__ void sort_pages_by_address(unsigned long long* buf, const int* pages, int page_first,
                                                      int n_pages, int page_last, int tid) {
  constexpr int kPer = kMaxPages / kThreads;
  static_assert((kMaxPages & (kMaxPages - 1)) == 0 && (kPer & (kPer - 1)) == 0 && kPer >= 1, "page sort shape");
  unsigned long long v[kPer];
#pragma unroll
  for (int e = 0; e < kPer; ++e) {
    const int i = tid * kPer + e;
    unsigned long long key = ~0ull;
    if (i < n_pages) {
      const int logical = page_first + i;
      const uint32_t phys = logical <= page_last ? static_cast<uint32_t>(__ldg(pages + logical)) : 0xffffffffu;
      key = (static_cast<unsigned long long>(phys) << 32) | static_cast<uint32_t>(logical);
    }
    v[e] = key;
  }
#pragma unroll
  for (int size = 2; size <= kMaxPages; size <<= 1) {
#pragma unroll
    for (int stride = size >> 1; stride > 0; stride >>= 1) {
      if (stride < kPer) {  // partners in this thread
#pragma unroll
        for (int e = 0; e < kPer; ++e) {
          if ((e & stride) == 0) {
            const bool ascending = ((tid * kPer + e) & size) == 0;
            const unsigned long long a = v[e], c = v[e | stride];
            const bool swap = ascending ? a > c : a < c;
            v[e] = swap ? c : a;
            v[e | stride] = swap ? a : c;
          }
        }
      } else {  // partner thread tid ^ lanes: same entry index e
        const int lanes = stride / kPer;
        // size > stride >= kPer: the direction depends on the thread only.
        const bool keep_min = ((tid & lanes) == 0) == (((tid * kPer) & size) == 0);
        if (lanes < 32) {
#pragma unroll
          for (int e = 0; e < kPer; ++e) {
            const unsigned long long other = __shfl_xor_sync(0xffffffffu, v[e], lanes);
            v[e] = keep_min ? min(v[e], other) : max(v[e], other);
          }
        } else {
#pragma unroll
          for (int e = 0; e < kPer; ++e) buf[e * kThreads + tid] = v[e];
          __syncthreads();
#pragma unroll
          for (int e = 0; e < kPer; ++e) {
            const unsigned long long other = buf[e * kThreads + (tid ^ lanes)];
            v[e] = keep_min ? min(v[e], other) : max(v[e], other);
          }
          __syncthreads();  // buf is written again by the next such stage or below
        }
      }
    }
  }
#pragma unroll
  for (int e = 0; e < kPer; ++e) buf[tid * kPer + e] = v[e];
  __syncthreads();
}

}  // namespace decode
}  // namespace flashcore
