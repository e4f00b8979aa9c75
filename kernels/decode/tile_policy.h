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
// warp, every warp seeing every key (chunked prefill; and every call where the key block is too
// short to split four ways: DecodeTileShape::rows64_only).
constexpr int kDecodeWarps = 4;
constexpr int kDecodeThreads = kDecodeWarps * 32;
// The fixed upper bound of num_splits: the split scratch of a call is sized by the split count,
// which depends on the shapes and the SM count only (never on cache_seqlens), so a captured
// decode step replays with any lengths.
constexpr int kDecodeMaxSplits = 128;

struct DecodeTileShape {
  int block_n;  // keys per pipeline stage (K and V each: block_n * head_dim * 2 bytes)
  int stages;   // ring stages in flight (cp.async groups, or TMA stages)
  int ctas_per_sm;  // the __launch_bounds__ occupancy hint
  // Every query block 64 rows, also for decode: where a key block is too short for four warps to
  // split it (16 keys each, the k16 of P V).
  bool rows64_only = false;
  int warps = kDecodeWarps;  // warps a CTA (kDecodeThreads / 32 unless the shape says otherwise)
};

// Decode is bound by HBM bandwidth: what matters is bytes in flight per SM. A stage is 32 KiB of
// K and V (64 keys at head_dim 128, 128 at 64). sm90a: 3 stages (96 KiB; two CTAs per SM on an
// H100's 227 KiB). The sm80 and sm89 libraries stay within 99 KiB a CTA, the most an 8.6 / 8.7 /
// 8.9 GPU gives one (select_arch runs the sm80 library on 8.6 and 8.7 too: with sm80's former 3
// stages a head-dim-128 call asked 100 KiB and failed to launch there): 2 stages (68-80 KiB, so
// an A100's 164 KiB holds two CTAs).
// Head dim 256 (1 KiB of K and V a key): sm90a 64-key stages of 64 KiB, two (the 64-row query
// block's 160 KiB, one CTA per SM); sm80 / sm89 two stages of 32 keys (96 KiB with the 64-row
// block), each warp scoring all of them for its own 16 rows.
constexpr DecodeTileShape decode_tile_shape(Arch arch, int head_dim) {
  const bool within_99k = arch != Arch::kSm90a;
  if (head_dim > 128) return within_99k ? DecodeTileShape{32, 2, 1, true} : DecodeTileShape{64, 2, 1};
  const int block_n = head_dim <= 64 ? 128 : 64;
  if (within_99k) return {block_n, 2, 1};
  return {block_n, 3, 2};
}

// sm90a, a call whose keys are not split (num_splits 1: its query blocks fill the GPU, two CTAs an
// SM), on either query block (16 or 64 rows): two stages instead of three, held at two CTAs an SM
// (decode_smem_floor: at head dim 64 the 16-row two-stage CTA's 66 KB and 161-174 registers would
// let a third in). Split calls run one CTA an SM and keep the third stage (with two they lost 9-12
// points, docs/results/2026-11-28-h100-session25.md). Measured on an H100, issue 16's batched
// rows, % of the HBM floor, three rounds in alternating processes (docs/results/
// 2026-11-28-h100-session26.md): d128 B8 H32 +2.1 / +0.5 / +1.6 (contiguous / page 16 / page 256),
// B32 H32 +1.2 / +0.3 / +1.8, B128 Hk8 +0.7 / -0.4 / +1.0, B64 Hq64 Hk8 +0.8 / +0.4 / +0.8; d64
// +1.4..+4.4. The same ring at three CTAs an SM (d64) lost 0.3-2.8 on B64 Hq64 Hk8 (512 CTAs: 1.29
// waves instead of 1.94). 64-row blocks (more than 16 rows a kv head: 8 causal query tokens a
// step, GQA 4 and 8; B128 Hq32 Hk8 k2048, B64 Hq64 Hk8 k4096): +0.5..+2.7 on 11 of 12 cells
// (d128, d64; B128 d128 page 16 -0.1). 256 has two stages already.
constexpr DecodeTileShape decode_unsplit_tile_shape(Arch arch, int head_dim) {
  const DecodeTileShape tile = decode_tile_shape(arch, head_dim);
  if (arch != Arch::kSm90a || tile.stages <= 2) return tile;
  return {tile.block_n, 2, tile.ctas_per_sm, tile.rows64_only};
}

// sm90a split calls that visit their pages in address order (decode_page_sort; by rule the
// single-sequence rows at head dim 64 and pages of 16; forced, any eligible call): eight warps a
// CTA on 128-key stages (64 KiB at head dim 128), one CTA an SM. (Measured below on the cp.async
// walk, before the address-order walk moved to the TMA in session 28.) With four warps such a call
// is bound by each warp's instruction stream more than by HBM: ncu of B1 Hq32 Hk32 k65536 d128 on
// an H200 (docs/results/2026-11-28-h100-session27.md) had one warp a scheduler issuing once every
// 2.5-3.2 cycles, and the page walk adds 6-30% to the contiguous kernel's instructions; two warps a
// scheduler hide part of that latency. Three rounds in alternating processes, % of the HBM floor,
// B1 rows at pages of 16 / 64: H200 +2.1..+2.9 (d128 and d64); H100 d128 -0.8..+0.3, d64
// -0.7..+0.5 (its slower HBM leaves the four-warp kernel less exposed). The contiguous and
// key-order kernels keep four warps (eight measured -1.4..+0.5 on them, H200).
constexpr DecodeTileShape decode_sorted_tile_shape(Arch arch, int head_dim) {
  const DecodeTileShape tile = decode_tile_shape(arch, head_dim);
  if (arch != Arch::kSm90a || head_dim > 128) return tile;
  return {128, 3, 1, false, 2 * kDecodeWarps};
}

// An H100 / H200 SM's shared memory, and what the hardware reserves of it per resident CTA.
constexpr size_t kSm90SmemPerSmBytes = 228 * 1024;
constexpr size_t kSm90SmemReservedPerCtaBytes = 1024;

// The least shared memory a CTA of `tile` asks so that no more than tile.ctas_per_sm CTAs share an
// sm90 SM (launch_decode_tiles static_asserts that exactly that many fit).
constexpr size_t decode_smem_floor(DecodeTileShape tile) {
  return kSm90SmemPerSmBytes / (tile.ctas_per_sm + 1);
}

constexpr int decode_row_warps(DecodeTileShape tile, int rows_per_kv_head) {
  return rows_per_kv_head <= 16 && !tile.rows64_only ? 1 : kDecodeWarps;
}
constexpr int decode_block_m(DecodeTileShape tile, int rows_per_kv_head) {
  return 16 * decode_row_warps(tile, rows_per_kv_head);
}

// Paged caches in address order (decode_page_sort): the pages of each (batch row, split) past
// the split's first kDecodeSortHeadBlocks key blocks are sorted by decode_page_sort_kernel
// (page_sort.cuh), at most kDecodeSortPages of them (1024 pages of 16 are the 16384 keys of each
// of B1 H32 k65536's 4 splits). The decode grid reads its head blocks in key order while the sort
// runs: on an H100 the sort grid took 14-15 us under graph replay at B1 H32 and B1 Hk8 page 16
// (4 CTAs), and one decode CTA streams a block of 64 keys in about 1.35 us, so 12 blocks cover it
// (8 and 12 measured the same, within 0.3%: docs/results/2026-11-24-h100-session16.md). Since the
// address-order walk reads 128-key blocks (decode_sorted_tile_shape, session 27) the 12 head blocks
// are 1536 keys: about twice the cover on an H100, ~1.5x on an H200 (a 128-key block ~1.8 us there:
// 6 would not cover the sort); not re-tuned.
constexpr int kDecodeSortPages = 1024;
constexpr int kDecodeSortHeadBlocks = 12;
constexpr int kDecodeSortThreads = 1024;
constexpr int kDecodeSortMaxListsPerCta = 4;  // a list per 256 threads at most (4 entries each)
// The largest page size the rule sorts, by the kernel's head dim and the GPU's HBM bandwidth (the
// two GPUs measured disagree; B1 rows, random tables, % of the HBM floor, address / key order):
//  - below kDecodeFastHbmBytesPerS (H100, 3.35 TB/s; session 28, TMA walk, 128-byte promotion at
//    d64 and 256 at d128): head dim 128, pages of 16 89.8 / 90.4 (Hq32 Hk32) and 86.5 / 86.7 (Hk8)
//    -- with 128-byte promotion 88.4 / 90.3 and 84.6 / 86.4 -- pages of 64 90.2 / 92.4: key order;
//    head dim 64, pages of 16 87.1 / 86.4 and 82.1 / 80.8 (sorted), 64 86.8 / 89.5 and 82.0 / 82.8;
//  - from it (H200, 4.8 TB/s; session 29, TMA walk, 128-byte promotion,
//    docs/results/2026-11-28-h200-session29.md): head dim 64, pages of 16 89.0 / 74.1 and
//    79.6 / 71.2, 32 88.1 / 83.4 and 81.1 / 78.1, 64 88.8 / 86.8 and 81.4 / 81.4, 128 89.0 / 88.5 and
//    81.6 / 82.8; head dim 128, pages of 16 90.4 / 87.1 and 86.0 / 83.9, 32 90.8 / 90.9 and
//    86.4 / 86.5, 64 90.8 / 92.2; head dim 256 within 0.3 but pages of 64 (92.4 / 93.5): key order.
// The sort grid costs a few microseconds a call whatever the GPU; why the H200 gains more from
// the address order (DRAM locality at a higher rate?) is not isolated. The cut lies between the two
// GPUs measured, above the unmeasured ones rated near 4 TB/s (H100 NVL 3.9, H20 and GH200-96GB 4.0,
// whose reported clocks could fall on either side of 4.0): they keep the H100's rule.
constexpr double kDecodeFastHbmBytesPerS = 4.4e12;
constexpr int decode_sort_max_page_size(int head_dim, bool fast_hbm) {
  return fast_hbm ? (head_dim <= 64 ? 64 : head_dim <= 128 ? 16 : 0) : (head_dim <= 64 ? 16 : 0);
}

constexpr size_t decode_smem_bytes(DecodeTileShape tile, int block_m, int head_dim) {
  return static_cast<size_t>(block_m + 2 * tile.stages * tile.block_n) * head_dim * 2;
}

struct DecodePageSort {
  int ctas;           // CTAs of the sort grid; 0: the call visits its pages in key order
  int lists_per_cta;  // (batch row, split) lists each sorts, a power of two
};

// Whether a paged decode call visits its pages in address order instead of key order
// (decode_kernel.cuh KeyWalk), and the sort grid. Measured on an H100 (docs/results/
// 2026-11-24-h100-session15.md section 4): with the pages of a random block table (page 16) the B1
// rows were 5-6% behind a contiguous cache, of which the kernel's own paging was 0.7-1.6% and the
// rest the physical scatter; the same pages visited in address order within each split were
// 2.8-3.2% behind. The online softmax does not depend on the order keys come in, so a split's
// entries may be sorted (page_sort.cuh) and each key masked by its logical position.
// Needs: decode query blocks (rows of a kv head <= 16: one query block, so a split's keys are the
// same for every kv head); sm90a (the decode grid is the sort grid's programmatic dependent);
// whole pages per key block (page_size divides block_n) of at least 8 keys (an n8 score tile in
// one page); no leftpad (blocks start on page boundaries); at most kDecodeSortPages sorted pages a
// split (a split has at most ceil(ceil(capacity / block_n) / num_splits) key blocks).
// By rule (forced 0) only split calls with pages of at most decode_sort_max_page_size keys (for the
// GPU's HBM bandwidth: hbm_bytes_per_s, 0 where unknown: the slower class) whose sort
// grid fits on the SMs the decode grid leaves idle: a sort CTA beside a decode CTA slowed that CTA
// and so the whole grid (B1 Hk8, 16 sort CTAs: the decode grid 198.6 us under graph replay against
// 186.1 in key order, docs/results/2026-11-24-h100-session16.md); the sort kernel's shared memory
// keeps them apart.
// `forced` (decode_api.h forced_decode_page_order, test-only): 1 key order, 2 address order
// wherever the call is eligible.
// The shapes the address-order walk handles (the needs above, but the split's page bound); the
// launcher checks a call against it again before trusting the caller's scratch.
constexpr bool decode_page_walk_fits(bool sm90a, int rows_per_kv_head, int page_size, int block_n, bool leftpad) {
  return sm90a && rows_per_kv_head <= 16 && page_size >= 8 && page_size <= block_n && block_n % page_size == 0 &&
         !leftpad;
}

constexpr DecodePageSort decode_page_sort(bool sm90a, int head_dim, int rows_per_kv_head, int page_size, int block_n,
                                          bool leftpad, int batch, int heads_kv, int num_splits, int capacity, int num_sms,
                                          int forced, double hbm_bytes_per_s) {
  if (!decode_page_walk_fits(sm90a, rows_per_kv_head, page_size, block_n, leftpad) || batch < 1 || num_splits < 1 ||
      forced == 1) {
    return {0, 1};
  }
  const long long split_blocks = ((static_cast<long long>(capacity) + block_n - 1) / block_n + num_splits - 1) / num_splits;
  if ((split_blocks - kDecodeSortHeadBlocks) * (block_n / page_size) > kDecodeSortPages) return {0, 1};
  const long long lists = static_cast<long long>(batch) * num_splits;
  const long long idle_sms = num_sms - static_cast<long long>(batch) * heads_kv * num_splits;
  const long long min_ctas = (lists + kDecodeSortMaxListsPerCta - 1) / kDecodeSortMaxListsPerCta;
  const bool fast_hbm = hbm_bytes_per_s >= kDecodeFastHbmBytesPerS;
  if (forced != 2 &&
      (num_splits < 2 || idle_sms < min_ctas || page_size > decode_sort_max_page_size(head_dim, fast_hbm))) {
    return {0, 1};
  }
  const long long ctas = std::max(min_ctas, std::min(lists, idle_sms));
  if (ctas > 65535) return {0, 1};
  int per_cta = 1;
  while (per_cta * ctas < lists) per_cta *= 2;
  return {static_cast<int>((lists + per_cta - 1) / per_cta), per_cta};
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
