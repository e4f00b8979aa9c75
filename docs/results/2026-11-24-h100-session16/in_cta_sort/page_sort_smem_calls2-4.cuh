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

// Fills buf[0, n_pages) with the entries of logical pages page_first .. page_first + n_pages - 1
// of `pages` (a block-table row; pages past page_last are not read), pads it to a power of two
// with all-ones keys and bitonic-sorts it ascending. All kThreads threads of the CTA call it;
// n_pages <= kMaxPages. Each compare-exchange stage loads all of a thread's pairs before it
// stores any (the pairs of one stage are disjoint), so a stage costs one shared-memory round
// trip and a barrier.
template <int kThreads, int kMaxPages>
__device__ __forceinline__ void sort_pages_by_address(unsigned long long* buf, const int* pages, int page_first,
                                                      int n_pages, int page_last, int tid) {
  static_assert((kMaxPages & (kMaxPages - 1)) == 0 && kMaxPages % (2 * kThreads) == 0, "page sort bound");
  constexpr int kPairs = kMaxPages / 2 / kThreads;  // compare-exchanges per thread and stage, at most
  const int n_sort = n_pages <= 1 ? 1 : 1 << (32 - __clz(n_pages - 1));
  for (int i = tid; i < n_sort; i += kThreads) {
    unsigned long long key = ~0ull;
    if (i < n_pages) {
      const int logical = page_first + i;
      const uint32_t phys = logical <= page_last ? static_cast<uint32_t>(__ldg(pages + logical)) : 0xffffffffu;
      key = (static_cast<unsigned long long>(phys) << 32) | static_cast<uint32_t>(logical);
    }
    buf[i] = key;
  }
  __syncthreads();
  for (int size = 2; size <= n_sort; size <<= 1) {
    for (int stride = size >> 1; stride > 0; stride >>= 1) {
      unsigned long long a[kPairs], c[kPairs];
      int lo[kPairs];
#pragma unroll
      for (int u = 0; u < kPairs; ++u) {
        const int i = tid + u * kThreads;
        lo[u] = 2 * i - (i & (stride - 1));
        if (i < n_sort / 2) {
          a[u] = buf[lo[u]];
          c[u] = buf[lo[u] + stride];
        }
      }
#pragma unroll
      for (int u = 0; u < kPairs; ++u) {
        const int i = tid + u * kThreads;
        if (i < n_sort / 2 && (a[u] > c[u]) == ((lo[u] & size) == 0)) {
          buf[lo[u]] = c[u];
          buf[lo[u] + stride] = a[u];
        }
      }
      __syncthreads();
    }
  }
}

}  // namespace decode
}  // namespace flashcore
