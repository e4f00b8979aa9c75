// The Hopper forward's host side: tensor maps, shared-memory opt-in and the persistent grid for
// one tile policy (launch_fwd_tile), and the registered launcher that picks the tile for a call's
// shape (launch_fwd; kernels/defs.bzl instantiates it per (dtype, head dim, causal)).
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/flash_fwd_api.h"
#include "kernels/hopper/fwd_kernel.cuh"
#include "kernels/hopper/paged_kv.cuh"
#include "kernels/hopper/tensor_map.h"
#include "kernels/hopper/tile_policy.h"

namespace flashcore {
namespace hopper {

// Pack-GQA (fwd_kernel.cuh): log2 of the query heads per k/v head a tile packs, 0 for none: the
// whole answer for a call of head dim `head_dim`. Dense calls of a head dim with pack kernels
// (tile_policy.h fwd_has_pack_gqa) with groups of 2, 4 or 8 (a thread's two rows, 8 apart, stay one
// head's: its sink and lse row); a window with a left side only where tile_policy.h
// fwd_pack_window says it pays (`window_keys`: the most keys a row sees, -1 unbounded; the
// scheduler counts a window's growing blocks in positions: tile_scheduler.cuh growing_m_blocks).
// Packed varlen batches keep one head a tile: their rows are addressed through cu_seqlens, which a
// 5-D map's position axis does not follow.
inline int fwd_gqa_shift(const FwdParams& p, int head_dim, int window_keys) {
  if (!fwd_has_pack_gqa(head_dim) || !fwd_pack_gqa() || p.cu_seqlens_q != nullptr || p.heads_kv <= 0) return 0;
  if (p.seqlen_q > (1 << 27)) return 0;  // seqlen_q << 3 stays an int
  const int group = p.heads / p.heads_kv;
  const int shift = group == 2 ? 1 : group == 4 ? 2 : group == 8 ? 3 : 0;
  if (p.window_left >= 0 && !fwd_pack_window(head_dim, shift, window_keys)) return 0;
  return shift;
}

// sm_count: the device's SMs (the persistent grid's size), looked up once by launch_fwd.
// gqa_shift: fwd_gqa_shift(p, kHeadDim, ...), 0 unless kPackGqa.
template <DType kDType, int kHeadDim, bool kCausal, FwdTileKind kTile, bool kPackGqa = false>
cudaError_t launch_fwd_tile(const FwdParams& p, int sm_count, int gqa_shift, cudaStream_t stream) {
  using Traits = typename TraitsFor<kDType>::type;
  using Element = typename Traits::Element;
  constexpr FwdTilePolicy kPolicy = fwd_tile_policy(kHeadDim, kTile);
  constexpr int kThreads = (kPolicy.consumer_wgs + 1) * 128;
  constexpr size_t kSmemBytes =
      sizeof(VarlenOrder) +
      sizeof(FwdSharedStorage<Element, kHeadDim, kPolicy.block_m, kPolicy.block_n, kPolicy.stages, kPolicy.q_buffers>) +
      1024;
  static_assert(kSmemBytes <= kSm90MaxDynamicSmemBytes, "the forward's shared memory exceeds sm_90's 227 KB");
  constexpr int kSwizzle = tile_swizzle_bytes(kHeadDim);
  constexpr auto kernel = &fwd_kernel<Traits, kHeadDim, kCausal, kTile, kPackGqa>;
  if (!head_dims_run_on(p.head_dim, p.head_dim_v, kHeadDim)) return cudaErrorInvalidValue;
  if (p.batch <= 0 || p.heads <= 0 || p.seqlen_q <= 0 || p.seqlen_k <= 0) return cudaErrorInvalidValue;
  if (p.heads > 65535 || p.batch > 65535) return cudaErrorInvalidConfiguration;
  if (p.heads_kv <= 0 || p.heads % p.heads_kv != 0) return cudaErrorInvalidValue;

  FwdTensorMaps maps;
  const TmaLayout t(p, p.batch, p.seqlen_q, p.seqlen_k);
  if (gqa_shift > 0 && (!kPackGqa || t.varlen || kPolicy.block_m % (1 << gqa_shift) != 0)) return cudaErrorInvalidValue;
  const BshdOperand q_op{&maps.q, p.q, t.rows_q, p.heads, t.batch_stride(p.q_batch_stride, p.q_row_stride, t.rows_q),
                         p.q_row_stride, p.q_head_stride, kPolicy.block_m, p.head_dim};
  const BshdOperand o_op{&maps.o, p.o, t.rows_q, p.heads, t.batch_stride(p.o_batch_stride, p.o_row_stride, t.rows_q),
                         p.o_row_stride, p.o_head_stride, kPolicy.block_m, p.head_dim_v};
  cudaError_t err = cudaSuccess;
  if (gqa_shift > 0) {
    err = make_packed_gqa_tensor_map(q_op, 1 << gqa_shift, kDType, t.batch, kSwizzle);
    if (err == cudaSuccess) err = make_packed_gqa_tensor_map(o_op, 1 << gqa_shift, kDType, t.batch, kSwizzle);
  } else {
    err = make_bshd_tensor_maps({q_op, o_op}, kDType, t.batch, kSwizzle);
  }
  if (err != cudaSuccess) return err;
  if (p.block_table != nullptr) {
    // A paged cache: num_pages batch entries of page_size rows, boxes that stay inside a page
    // (paged_kv.cuh); the batch strides are the page strides.
    if (!paged_kv_page_size_ok(p.page_size) || p.num_pages <= 0 || p.seqused_k == nullptr ||
        p.cu_seqlens_k != nullptr) {
      return cudaErrorInvalidValue;
    }
    const int box_rows = paged_box_rows(kPolicy.block_n, p.page_size);
    err = make_bshd_tensor_maps(
        {{&maps.k, p.k, p.page_size, p.heads_kv, p.k_batch_stride, p.k_row_stride, p.k_head_stride, box_rows,
          p.head_dim},
         {&maps.v, p.v, p.page_size, p.heads_kv, p.v_batch_stride, p.v_row_stride, p.v_head_stride, box_rows,
          p.head_dim_v}},
        kDType, p.num_pages, kSwizzle);
  } else {
    err = make_bshd_tensor_maps(
        {{&maps.k, p.k, t.rows_k, p.heads_kv, t.batch_stride(p.k_batch_stride, p.k_row_stride, t.rows_k),
          p.k_row_stride, p.k_head_stride, kPolicy.block_n, p.head_dim},
         {&maps.v, p.v, t.rows_k, p.heads_kv, t.batch_stride(p.v_batch_stride, p.v_row_stride, t.rows_k),
          p.v_row_stride, p.v_head_stride, kPolicy.block_n, p.head_dim_v}},
        kDType, t.batch, kSwizzle);
  }
  if (err != cudaSuccess) return err;
  err = ensure_dynamic_smem<kernel>(kSmemBytes);
  if (err != cudaSuccess) return err;
  // Persistent: one CTA per SM (shared memory allows no more), each walking several work items.
  // Pairs balance tiles of known cost; a packed batch's lengths are known on the GPU only, where
  // its sorted order decides (tile_scheduler.cuh).
  // Pack-GQA: the k/v heads over seqlen_q << gqa_shift rows (fwd_walk_shape, as the kernel walks).
  const FwdWalkShape walked = fwd_walk_shape(p, gqa_shift);
  const bool pairs =
      !t.varlen && TileScheduler<kCausal>::causal_pairs(walked.rows, walked.heads, p.batch, kPolicy.block_m, sm_count);
  const TileScheduler<kCausal, kCausal && fwd_balanced_walk(kHeadDim)> scheduler(
      walked.rows, walked.heads, p.batch, kPolicy.block_m, pairs,
      TileScheduler<kCausal>::growing_m_blocks(p.seqlen_q, p.seqlen_k, p.window_left, kPolicy.block_m, gqa_shift));
  const int64_t items = static_cast<int64_t>(scheduler.items_per_head) * walked.heads * p.batch;
  // The walk's largest index; a packed batch's sorted order may pair causal tiles on the GPU
  // (ceil(m / 2) pairs of a sequence's m blocks: at most m + 1 walk steps).
  const int64_t walk = t.varlen ? items + static_cast<int64_t>(walked.heads) * p.batch : items * scheduler.dense_tiles_per_item;
  if (walk > INT32_MAX) return cudaErrorInvalidConfiguration;
  const int grid = static_cast<int>(items > sm_count ? sm_count : items);
  // Pairs of a dense causal call with no window on the left end in a sorted tail where the head dim
  // has it (tile_scheduler.cuh walk_divisors: every tile's cost is then its query block's index + 1
  // key blocks; tile_policy.h fwd_balanced_walk).
  const bool sorted_tail = kCausal && pairs && p.window_left < 0;
  kernel<<<grid, kThreads, kSmemBytes, stream>>>(p, maps, pairs, gqa_shift, scheduler.walk_divisors(grid, sorted_tail));
  return cudaGetLastError();
}

// The sm90a forward launcher registered for (dtype, head_dim, causal): the tile pick_fwd_tile
// chooses for the call's shape (tile_policy.h), among those the head dim has.
template <DType kDType, int kHeadDim, bool kCausal>
cudaError_t launch_fwd(const FwdParams& p, cudaStream_t stream) {
  int sm_count = 0;
  const cudaError_t err = multiprocessor_count(&sm_count);
  if (err != cudaSuccess) return err;
  // The tile is picked for the rows and heads the scheduler walks (pack-GQA: a k/v head's group
  // of query heads as seqlen_q << gqa_shift rows).
  // The most keys a row sees under a window bounded on both sides (-1: unbounded), in 64 bits: the
  // sides may be as wide as INT32_MAX.
  const int64_t window_span = static_cast<int64_t>(p.window_left) + p.window_right + 1;
  const int window_keys = p.window_left < 0 || p.window_right < 0 ? -1
                          : window_span > INT32_MAX               ? INT32_MAX
                                                                  : static_cast<int>(window_span);
  auto pick_for = [&](const FwdWalkShape& walk, int forced, int shift) {
    return pick_fwd_tile(kHeadDim, p.batch, walk.heads, walk.rows, p.seqlen_k, kCausal, sm_count, forced,
                         p.cu_seqlens_q != nullptr ? p.total_q : 0, window_keys, shift);
  };
  int gqa_shift = fwd_gqa_shift(p, kHeadDim, window_keys);
  FwdWalkShape walked = fwd_walk_shape(p, gqa_shift);
  FwdTileKind tile = pick_for(walked, forced_fwd_tile(), gqa_shift);
  // bf16 causal calls whose unpacked walk takes the long-rows tile run unpacked (unless a test
  // forces a tile): since session 55 that kernel's key-block loop has no spill, where the packed
  // one reloads two spilled values a block (tests/sass_test.py SM90A_FWD_STACK_BUDGETS: 16 against
  // 56 bytes). Measured on an H200, pack on / off on one build (kernel-only, 16k tokens, 32 query
  // heads, docs/results/2026-11-30-h200-session55.md): bf16 causal groups 4 / 8 at S 4096-16384
  // unpacked +1.0..+3.8%; bf16 full and fp16 0.96-1.02 from S 4096, so they keep packing. (Those
  // packed kernels have no spill in the loop either, so a spill-free packed bf16 causal kernel
  // would be expected to read as they do: no better than unpacked at long rows.) Packed windows
  // (fwd_pack_window) keep packing: their packed tile spans fewer keys than the unpacked one.
  if constexpr (kDType == DType::kBf16 && kCausal && fwd_has_long_rows_tile(kHeadDim, kCausal)) {
    if (gqa_shift > 0 && forced_fwd_tile() == 0 && p.window_left < 0) {
      const FwdWalkShape unpacked = fwd_walk_shape(p, 0);
      if (pick_for(unpacked, 0, 0) == FwdTileKind::kLongRows) {
        gqa_shift = 0;
        walked = unpacked;
        tile = FwdTileKind::kLongRows;
      }
    }
  }
  // Each tile kind's kernel, packed or not.
  auto launch = [&](auto tile_c) {
    constexpr FwdTileKind kTile = decltype(tile_c)::value;
    if constexpr (fwd_has_pack_gqa(kHeadDim)) {
      if (gqa_shift > 0) return launch_fwd_tile<kDType, kHeadDim, kCausal, kTile, true>(p, sm_count, gqa_shift, stream);
    }
    return launch_fwd_tile<kDType, kHeadDim, kCausal, kTile>(p, sm_count, 0, stream);
  };
  if constexpr (fwd_has_few_tiles_tile(kHeadDim)) {
    if (tile == FwdTileKind::kFewTiles) return launch(std::integral_constant<FwdTileKind, FwdTileKind::kFewTiles>{});
  }
  if constexpr (fwd_has_long_rows_tile(kHeadDim, kCausal)) {
    if (tile == FwdTileKind::kLongRows) return launch(std::integral_constant<FwdTileKind, FwdTileKind::kLongRows>{});
  }
  if constexpr (fwd_has_short_rows_tile(kHeadDim, kCausal)) {
    if (tile == FwdTileKind::kShortRows) return launch(std::integral_constant<FwdTileKind, FwdTileKind::kShortRows>{});
  }
  return launch(std::integral_constant<FwdTileKind, FwdTileKind::kDefault>{});
}

}  // namespace hopper
}  // namespace flashcore
