// Address-order page walk of the decode kernel (decode_kernel.cuh, KeyWalk::kPagedAddressOrder):
// before a split decode call, a small grid sorts the block-table entries of each (batch row,
// split)'s pages by physical page, once for all kv heads. The decode grid is its programmatic
// dependent: it reads its first kDecodeSortHeadBlocks blocks in key order meanwhile and waits
// (griddepcontrol.wait) only before its first sorted block. Included only by decode_kernel.cuh.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/decode/decode_seq.cuh"
#include "kernels/decode/programmatic_launch.cuh"
#include "kernels/decode/tile_policy.h"

namespace flashcore {
namespace decode {

// One sorted entry: physical page in the high word (the sort key), logical page in the low word.
// Pages past the last one holding keys get physical page 0xffffffff: they sort last, and their
// rows read nothing.
__device__ __forceinline__ int entry_physical_page(unsigned long long entry) { return static_cast<int>(entry >> 32); }
__device__ __forceinline__ int entry_logical_page(unsigned long long entry) {
  return static_cast<int>(static_cast<uint32_t>(entry));
}

// The sort grid's dynamic shared memory: its lists take kDecodeSortMaxListsPerCta x 8 KiB; the
// rest keeps an address-order decode CTA (205 KiB at head dim 128, 107 KiB at 64:
// decode_sorted_tile_shape on the TMA walk) off the SM while it sorts (tile_policy.h
// decode_page_sort); the decode grid's one CTA an SM and the idle-SM rule keep them apart too.
constexpr size_t kDecodePageSortSmemBytes = 120 * 1024;
static_assert(kDecodeSortMaxListsPerCta * kDecodeSortPages * sizeof(unsigned long long) <= kDecodePageSortSmemBytes,
              "page sort lists fit");

// page_sort_ctas CTAs of kDecodeSortThreads threads; each sorts page_sort_lists_per_cta lists
// (batch row b, split) = list / num_splits, list % num_splits, one per group of threads with its
// own named barrier. A list is the pages of key blocks blk_begin + kDecodeSortHeadBlocks ..
// blk_begin + n_blocks - 1 of decode query block 0 (decode calls have one) of its split, sorted
// ascending into p.sorted_pages[list * kDecodeSortPages + i] by a bitonic network in shared
// memory. The decode CTAs of all kv heads of the split read it. (Sorting inside each decode CTA
// cost more than the order saves: 8.5 us per call for 1024 entries with 4 warps through shared
// memory, 12 us in registers and shuffles; docs/results/2026-11-24-h100-session16.md.)
template <Arch kArch, int kBlockN>
__global__ void __launch_bounds__(kDecodeSortThreads) decode_page_sort_kernel(const DecodeParams p) {
  allow_dependent_grids();  // the decode grid may start now
  extern __shared__ __align__(16) unsigned char sort_smem_raw[];
  const int group_threads = kDecodeSortThreads / p.page_sort_lists_per_cta;
  const int group = threadIdx.x / group_threads, gt = threadIdx.x % group_threads;
  const int list = blockIdx.x * p.page_sort_lists_per_cta + group;
  if (list >= p.batch * p.num_splits) return;  // the whole group: its barrier is its own
  unsigned long long* buf = reinterpret_cast<unsigned long long*>(sort_smem_raw) + group * kDecodeSortPages;
  auto group_sync = [&]() { asm volatile("bar.sync %0, %1;" ::"r"(1 + group), "r"(group_threads) : "memory"); };
  const int b = list / p.num_splits, split = list % p.num_splits;
  const DecodeSeq seq(p, b);
  const int group_size = p.heads / p.heads_kv;
  const int rows = group_size * seq.seqlen_q;
  const TokenWindow window{seq.seqlen_q, seq.seqlen_k, p.window_left, p.window_right};
  const SplitKeys keys = split_keys(window, 0, 16, rows, group_size, kBlockN, split, p.num_splits);
  const int page_log2 = 31 - __clz(p.page_size);  // a power of two (decode_page_sort)
  const int pages_per_block = kBlockN >> page_log2;
  const int n_pages = max(0, keys.n_blocks - kDecodeSortHeadBlocks) * pages_per_block;
  if (n_pages == 0) return;
  const int page_first = (keys.blk_begin + kDecodeSortHeadBlocks) * pages_per_block;
  const int page_last = (max(seq.seqlen_k, 1) - 1) >> page_log2;  // the last page holding keys (leftpad 0)
  const int n_sort = n_pages <= 1 ? 1 : 1 << (32 - __clz(n_pages - 1));
  if (n_sort > kDecodeSortPages) __trap();  // the host's rule bounds a split's pages
  for (int i = gt; i < n_sort; i += group_threads) {
    unsigned long long key = ~0ull;
    if (i < n_pages) {
      const int logical = page_first + i;
      const uint32_t phys = logical <= page_last ? static_cast<uint32_t>(seq.pages[logical]) : 0xffffffffu;
      key = (static_cast<unsigned long long>(phys) << 32) | static_cast<uint32_t>(logical);
    }
    buf[i] = key;
  }
  group_sync();
  for (int size = 2; size <= n_sort; size <<= 1) {
    for (int stride = size >> 1; stride > 0; stride >>= 1) {
      for (int i = gt; i < n_sort / 2; i += group_threads) {
        const int lo = 2 * i - (i & (stride - 1));
        const unsigned long long a = buf[lo], c = buf[lo + stride];
        if ((a > c) == ((lo & size) == 0)) {
          buf[lo] = c;
          buf[lo + stride] = a;
        }
      }
      group_sync();
    }
  }
  for (int i = gt; i < n_pages; i += group_threads) p.sorted_pages[static_cast<int64_t>(list) * kDecodeSortPages + i] = buf[i];
}

}  // namespace decode
}  // namespace flashcore
