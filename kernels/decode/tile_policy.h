// Tile shapes and the split-KV heuristic of the decode kernel (kernels/decode/decode_kernel.cuh):
// the one place that decides them. Plain C++ (constexpr), so the bindings use the same numbers to
// size the split scratch as the launcher uses to launch.
#pragma once

#include <algorithm>

#include "kernels/flash_fwd_api.h"

namespace flashcore {

// Four warps per CTA. A query block is 16 packed rows (one m16 MMA tile) when the rows of a kv
// head (query heads per kv head x new tokens) fit in 16 -- decode -- and then the four warps
// split each key block between them and merge at the end; otherwise 64 rows, one m16 tile per
// warp, every warp seeing every key (chunked prefill).
constexpr int kDecodeWarps = 4;
constexpr int kDecodeThreads = kDecodeWarps * 32;
// The fixed upper bound of num_splits: the split scratch of a call is sized by the split count,
// which depends on the shapes and the SM count only (never on cache_seqlens), so a captured
// decode step replays with any lengths.
constexpr int kDecodeMaxSplits = 128;

constexpr int decode_row_warps(int rows_per_kv_head) { return rows_per_kv_head <= 16 ? 1 : kDecodeWarps; }
constexpr int decode_block_m(int rows_per_kv_head) { return 16 * decode_row_warps(rows_per_kv_head); }

struct DecodeTileShape {
  int block_n;  // keys per pipeline stage (K and V each: block_n * head_dim * 2 bytes)
  int stages;   // cp.async stages in flight
  int ctas_per_sm;  // the __launch_bounds__ occupancy hint
};

// Decode is bound by HBM bandwidth: what matters is bytes in flight per SM. A stage is 32 KiB of
// K and V (64 keys at head_dim 128, 128 at 64). sm90a / sm80: 3 stages (96 KiB; two CTAs per SM
// on an H100's 227 KiB, one on an A100's 164 KiB); sm89 (99 KiB per CTA): 2 stages.
constexpr DecodeTileShape decode_tile_shape(Arch arch, int head_dim) {
  const int block_n = head_dim <= 64 ? 128 : 64;
  if (arch == Arch::kSm89 || arch == Arch::kSm89Ptx) return {block_n, 2, 1};
  if (arch == Arch::kSm80 || arch == Arch::kSm80Ptx) return {block_n, 3, 1};
  return {block_n, 3, 2};
}

constexpr size_t decode_smem_bytes(DecodeTileShape tile, int block_m, int head_dim) {
  return static_cast<size_t>(block_m + 2 * tile.stages * tile.block_n) * head_dim * 2;
}

// Split count for num_splits == 0: the most splits that keep the CTAs within one per SM, for
// contiguous and paged caches alike. Decode is bound by HBM bandwidth; measured on an H100
// (docs/PERF.md):
//  - contiguous caches: one CTA per SM beats two. B1 Hq32 Hk8 k131072 (8 query blocks) took
//    180 us with 16 splits (128 CTAs), 199 us with 29 (232 CTAs, FlashAttention-2's wave rule),
//    191 us with 33 (264); B1 H32 k65536: 342 us with 4 splits against 358 us with 8.
//  - paged caches: the same since the block-table entries of a refill are loaded together at the
//    top of the step (decode_kernel.cuh); docs/results/2026-11-23-h100-decode3.md, medians of 3
//    interleaved rounds: B1 Hq32 Hk8 k131072 page 16 190.8 us at 16 splits vs 193.9 at 33, page
//    256 182.5 vs 191.6; B1 H32 k65536 page 256 345.5 us at 4 vs 355.7 at 8, page 16 flat (361.1
//    vs 359.8). With main's per-row table loads one CTA per SM could not hide them (page 16: 502.6
//    us at 4 splits vs 362.4 at 8), which is why paged caches used to fill two CTAs per SM.
// No split when the query blocks already give most SMs a CTA, and never fewer than 4 key blocks
// a split. `key_blocks` counts the blocks of the largest key count the call can have (the cache's
// capacity), never the current lengths, so the count is fixed for a captured step.
constexpr int decode_num_splits(int tiles, int num_sms, int key_blocks) {
  if (tiles <= 0 || num_sms <= 0 || tiles * 10 >= num_sms * 8) return 1;
  const int max_splits = std::max(1, std::min(kDecodeMaxSplits, key_blocks / 4));
  return std::max(1, std::min(max_splits, num_sms / tiles));
}

}  // namespace flashcore
