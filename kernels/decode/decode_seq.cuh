// The sequence, query-block and key-split geometry of the KV-cache kernels: shared by the decode
// kernel (decode_kernel.cuh) and the address-order page sort (page_sort.cuh), which must agree
// on which key blocks each split visits.
#pragma once

#include <cuda_runtime.h>

#include "kernels/decode/decode_api.h"

namespace flashcore {
namespace decode {

// The keys [lo, hi) one query row sees; hi <= lo: none (output 0, lse -inf).
struct KeyRange {
  int lo, hi;
};

// The keys query token t sees (bottom-right aligned window; causal: window_right 0).
struct TokenWindow {
  int seqlen_q, seqlen_k, window_left, window_right;
  __device__ __forceinline__ KeyRange keys_of(int t) const {
    const int diag = t + seqlen_k - seqlen_q;
    const int lo = window_left < 0 ? 0 : max(0, diag - window_left);
    const int hi = window_right < 0 ? seqlen_k : min(seqlen_k, diag + window_right + 1);
    return {lo, hi};
  }
};

// One sequence of the batch as a CTA sees it: lengths, where its query rows start, and where its
// keys live.
struct DecodeSeq {
  int seqlen_q, seqlen_k, row0_q, leftpad, cache_row;
  const int* pages;  // this sequence's block-table row; null: contiguous
  __device__ __forceinline__ DecodeSeq(const DecodeParams& p, int b) {
    if (p.cu_seqlens_q != nullptr) {
      row0_q = p.cu_seqlens_q[b];
      seqlen_q = p.cu_seqlens_q[b + 1] - row0_q;
    } else {
      row0_q = 0;
      seqlen_q = p.seqlen_q;
    }
    leftpad = p.cache_leftpad == nullptr ? 0 : p.cache_leftpad[b];
    seqlen_k = p.cache_seqlens[b] + p.seqlen_new - leftpad;
    cache_row = p.cache_batch_idx == nullptr ? b : p.cache_batch_idx[b];
    pages = p.block_table == nullptr ? nullptr : p.block_table + b * p.block_table_stride;
  }
};

// The key blocks one query block visits, and the share of them split `split` takes.
struct SplitKeys {
  KeyRange first_keys, last_keys;  // the keys of the block's first and last query token
  int blk_begin, n_blocks;         // key blocks [blk_begin, blk_begin + n_blocks) of the split
};

// Query block rows [m0, m0 + block_m) of `rows` packed rows (token = row / group_size).
__device__ __forceinline__ SplitKeys split_keys(const TokenWindow& window, int m0, int block_m, int rows,
                                                int group_size, int block_n, int split, int num_splits) {
  SplitKeys k;
  k.first_keys = window.keys_of(m0 / group_size);
  k.last_keys = window.keys_of((min(m0 + block_m, rows) - 1) / group_size);
  const int lo = k.first_keys.lo, hi = k.last_keys.hi;  // lo and hi grow with the token
  const int nb_first = lo / block_n;
  const int nb_end = hi > lo ? (hi + block_n - 1) / block_n : nb_first;
  const int per_split = (nb_end - nb_first + num_splits - 1) / num_splits;
  k.blk_begin = nb_first + split * per_split;
  k.n_blocks = max(0, min(k.blk_begin + per_split, nb_end) - k.blk_begin);
  return k;
}

}  // namespace decode
}  // namespace flashcore
