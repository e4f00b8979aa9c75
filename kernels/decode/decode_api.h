// flashcore KV-cache attention (decode / chunked prefill): the host-side contract between the
// decode kernel libraries and their callers. Plain C++ with only cuda_runtime_api.h, like
// kernels/flash_fwd_api.h.
//
// One query block covers the query heads that share a kv head times the new tokens (GQA
// packing: packed row r is token r / G, query head kv_head * G + r % G, G = heads / heads_kv),
// so every K/V byte a step needs is read once per kv head. Keys come from a contiguous cache
// (rows of cache_capacity keys) or a paged one (pages of page_size keys found through
// block_table). Keys may be split over several CTAs (flash-decoding); a second kernel combines
// their partial outputs by their log-sum-exp.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

#include "kernels/flash_fwd_api.h"

namespace flashcore {

// Tensors: q and o (batch, seqlen_q, heads, head_dim) with a unit stride on head_dim, or, when
// cu_seqlens_q is set, packed (total_q, heads, head_dim) with batch strides 0 and sequence b's
// rows from cu_seqlens_q[b]; strides in elements. lse: float32 (batch, heads, seqlen_q) dense or
// (heads, total_q) packed, contiguous; null: not written.
//
// The cache, k and v alike (each with its own strides): contiguous, block_table null, a row of
// the cache is "page" cache_batch_idx[b] (or b) of cache_capacity keys; paged, key position j of
// sequence b is row j % page_size of page block_table[b * block_table_stride + j / page_size].
// page_stride is the stride between pages (contiguous: between cache rows).
//
// Keys of sequence b: positions cache_leftpad[b] .. cache_seqlens[b] + seqlen_new - 1 of its
// cache row (leftpad null: from 0), i.e. seqlen_k = cache_seqlens[b] + seqlen_new - leftpad keys
// (the new keys were written into the cache before the launch). Query token t sees key j
// (0-based from the leftpad) iff t + seqlen_k - seqlen_q - window_left <= j <= t + seqlen_k -
// seqlen_q + window_right (negative: unbounded; causal is window_right = 0), FlashAttention's
// bottom-right alignment.
struct DecodeParams {
  const void* q;
  void* o;
  float* lse;
  int64_t q_batch_stride, q_row_stride, q_head_stride;
  int64_t o_batch_stride, o_row_stride, o_head_stride;

  const void* k_cache;
  const void* v_cache;
  int64_t k_page_stride, k_row_stride, k_head_stride;
  int64_t v_page_stride, v_row_stride, v_head_stride;
  const int* block_table;  // int32 (batch, >= pages needed), row stride block_table_stride; null: contiguous
  int64_t block_table_stride;
  int page_size;       // paged only
  int cache_capacity;  // keys one cache row (contiguous) or one sequence's pages (paged) can hold

  const int* cache_seqlens;    // int32 (batch): keys in the cache before this call's append
  int seqlen_new;              // keys appended by this call, 0 if none
  // The new keys and values (batch, seqlen_new, heads_kv, head_dim), strides in elements (16-byte
  // rows), written into the cache by launch_decode before the attention (append_kernel.cuh); null:
  // the caller has appended them already.
  const void* k_new;
  const void* v_new;
  int64_t k_new_strides[3], v_new_strides[3];

  int cache_rows;  // k_cache's (and v_cache's) first dimension: pages (paged) or cache rows
  // Set: launch_decode runs only the length checks (check_kernel.cuh), writing
  // (batch, kDecodeCheckFacts) int64 facts.
  int64_t* check_facts;
  const int* cache_batch_idx;  // int32 (batch) or null: cache row of batch row b (contiguous only)
  const int* cache_leftpad;    // int32 (batch) or null: first valid key position of each row
  const int* cu_seqlens_q;     // int32 (batch + 1) or null: packed variable-length queries
  int total_q;                 // rows of the packed q (cu_seqlens_q only)

  int batch, heads, heads_kv, seqlen_q, head_dim;  // seqlen_q: the maximum when packed
  float softmax_scale;
  float softcap;  // score = softcap * tanh(softmax_scale * q.k / softcap); 0 disables
  int window_left, window_right;

  // Split-KV: num_splits >= 1 CTAs share each query block's keys. With num_splits > 1 the partial
  // results go to float32 scratch the caller allocates: o_accum (num_splits, batch, heads,
  // seqlen_q, the kernel's head dim -- decode_plan's kernel_head_dim, >= head_dim: a smaller head
  // dim runs predicated on a wider kernel) and lse_accum (num_splits, batch, heads, seqlen_q),
  // contiguous; the combine kernel then writes o and lse.
  int num_splits;
  float* o_accum;
  float* lse_accum;

  // A paged call in address order (tile_policy.h decode_page_sort; the caller takes both from it):
  // scratch (batch, num_splits, kDecodeSortPages) int64 and the sort grid. Null / 0: key order.
  unsigned long long* sorted_pages;
  int page_sort_ctas, page_sort_lists_per_cta;
};

constexpr int kDecodeCheckFacts = 6;

struct DecodeKernelKey {
  Arch arch;
  DType dtype;
  int head_dim;
  bool operator==(const DecodeKernelKey& o) const {
    return arch == o.arch && dtype == o.dtype && head_dim == o.head_dim;
  }
};

using DecodeLauncher = cudaError_t (*)(const DecodeParams&, cudaStream_t);

// Registered by the generated instantiation TUs at static-initialisation time (as the forward's).
bool register_decode_kernel(const DecodeKernelKey& key, DecodeLauncher launcher);
// The kernel a call of key.head_dim runs on: the smallest registered head dim >= it for the arch
// (and the dtype, unless `any_dtype`), its columns past key.head_dim predicated (decode_kernel.cuh);
// its key in *kernel_key. Null when none is compiled.
DecodeLauncher find_decode_kernel_for(const DecodeKernelKey& key, DecodeKernelKey* kernel_key, bool any_dtype = false);
std::vector<DecodeKernelKey> registered_decode_kernels();

// Test-only: 0 lets each paged call pick its page order (tile_policy.h decode_page_sort);
// 1 forces key order, 2 address order where the call is eligible. Defined in registry.cc.
void set_forced_decode_page_order(int order);
int forced_decode_page_order();

// Defined in kernels/decode/decode_launch.cuh; instantiated only by generated TUs.
template <Arch kArch, DType kDType, int kHeadDim>
cudaError_t launch_decode(const DecodeParams& params, cudaStream_t stream);

}  // namespace flashcore
