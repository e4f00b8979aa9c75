// Split-KV attention over a KV cache (flash-decoding), mma.sync m16n8k16 on sm80, sm89 and
// sm90a: one CTA per (query block, kv head, batch row, key split). A query block packs the query
// heads of one kv head times the new tokens (kernels/decode/decode_api.h), so each K/V byte is
// read from HBM once per step. K and V of a key block stream through a multi-stage ring: by
// cp.async (contiguous caches; paged ones on sm80 / sm89, in 64-row blocks, and where the TMA walk
// does not fit: each 16-byte chunk's source row found through the block table) or, for paged
// decode blocks on sm90a, by the TMA, one box per page (DecodeKvMaps; some split calls visit their
// pages in address order, page_sort.cuh), the scores stay in registers
// (S = Q K^T, masked and scaled to log2 units, online softmax, O += P V), and the warps' partial
// rows are merged through shared memory at the end. With num_splits > 1 each CTA writes a float32
// partial output and its log-sum-exp, and decode_combine_kernel (combine_kernel.cuh) merges the
// splits. Head dims: the instantiation's (64, 128, 256), or any multiple of 8 below it with the
// columns past it predicated (ch_in_head below). The host side (tile shapes per call, the TMA
// maps, launch_decode) is decode_launch.cuh, which the generated instantiation TUs include after
// the traits header of their dtype.
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "kernels/common/kernel_attributes.h"
#include "kernels/common/online_softmax.cuh"
#include "kernels/decode/append_kernel.cuh"
#include "kernels/decode/check_kernel.cuh"
#include "kernels/decode/combine_kernel.cuh"
#include "kernels/decode/decode_api.h"
#include "kernels/decode/decode_merge.cuh"
#include "kernels/decode/decode_seq.cuh"
#include "kernels/decode/decode_tile.cuh"
#include "kernels/decode/page_sort.cuh"
#include "kernels/decode/programmatic_launch.cuh"
#include "kernels/decode/tile_policy.h"
#include "kernels/hopper/tile_policy.h"  // kSm90MaxDynamicSmemBytes
#include "kernels/hopper/tma_pipeline.cuh"  // the TMA copy and mbarriers of the sm90a paged walks
#include "kernels/sm80/fwd_kernel.cuh"  // cp.async, ldmatrix, the swizzled tile layout

namespace flashcore {
namespace decode {

using fwd::cp_async_16;
using fwd::cp_async_commit;
using fwd::cp_async_wait;
using fwd::ldmatrix_x4;
using fwd::ldmatrix_x4_trans;
using fwd::n8_tile;
using fwd::smem_u32;
using fwd::swizzled;

// Both kernels take the library's Arch although their code does not depend on it: the sm80, sm89
// and sm90a libraries all instantiate them, and one kernel name in several modules of the
// extension lets the runtime launch another arch's image ("no kernel image", or the wrong one);
// see kernels/sm80/bwd_kernel.cuh.
template <Arch kArch, class Traits, int kHeadDim, int kRowWarps, int kBlockN, int kStages, int kMinCtas, KeyWalk kWalk,
          int kWarps, bool kTma>
__global__ void __launch_bounds__(kWarps * 32, kMinCtas)
    decode_kernel(const __grid_constant__ DecodeParams p, const __grid_constant__ DecodeKvMaps maps) {
  using Element = typename Traits::Element;
  constexpr bool kPaged = kWalk != KeyWalk::kContiguous;
  constexpr bool kByAddress = kWalk == KeyWalk::kPagedAddressOrder;
  static_assert(!kTma || (kPaged && kArch == Arch::kSm90a && kHeadDim % 64 == 0), "TMA: the sm90a paged walks");
  static_assert(!kByAddress || kTma, "the address-order walk loads through the TMA");
  constexpr int kThreads = kWarps * 32;
  static_assert(kWarps % kRowWarps == 0, "decode warps");
  constexpr int kKeyWarps = kWarps / kRowWarps;  // warps sharing one m16 row tile
  constexpr int kBlockM = 16 * kRowWarps;
  constexpr int kWarpN = kBlockN / kKeyWarps;  // keys of a stage one warp scores
  constexpr int kNTiles = kWarpN / 8;
  constexpr int kKSteps = kHeadDim / 16;
  constexpr int kDTiles = kHeadDim / 8;
  constexpr int kChunksPerRow = kHeadDim / 8;  // 16-byte chunks
  constexpr int kRowsPerPass = kThreads / kChunksPerRow;
  static_assert(kWarpN % 16 == 0 && kBlockN % kRowsPerPass == 0, "decode tile shape");

  extern __shared__ __align__(128) unsigned char smem_raw[];
  // TMA: the 128-byte swizzle repeats every 1024 bytes of shared address (launch_decode_tiles asks
  // 1 KiB more); the stage tiles are multiples of it.
  unsigned char* smem = kTma ? hopper::align_shared<1024>(smem_raw) : smem_raw;
  Element* sQ = reinterpret_cast<Element*>(smem);
  Element* sK = sQ + kBlockM * kHeadDim;          // kStages stages
  Element* sV = sK + kStages * kBlockN * kHeadDim;  // kStages stages
  // Address order: this split's sorted entries (page_sort.cuh), copied in once they are written.
  auto* sorted_smem = reinterpret_cast<unsigned long long*>(sV + kStages * kBlockN * kHeadDim);
  // TMA: each stage's full barrier, and the sorted slot of the partial last page (address order).
  auto* kv_full = reinterpret_cast<uint64_t*>(sorted_smem + (kByAddress ? kDecodeSortPages : 0));
  auto* sorted_tail_slot = reinterpret_cast<int*>(kv_full + kStages);

  const int split = blockIdx.x % p.num_splits;
  const int m_block = blockIdx.x / p.num_splits;
  const int kv_head = blockIdx.y;
  const int b = blockIdx.z;
  const int tid = threadIdx.x;
  const int warp = tid / 32, lane = tid % 32;
  const int warp_m = warp / kKeyWarps, warp_n = warp % kKeyWarps;
  const int group = lane / 4, tig = lane % 4;

  // The combine kernel may be scheduled once every CTA of this grid has started; it waits for this
  // grid's completion before reading the partial results, so only its launch latency overlaps.
  allow_dependent_grids();
  const DecodeSeq seq(p, b);
  const int group_size = p.heads / p.heads_kv;
  const int rows = group_size * seq.seqlen_q;  // packed rows of this kv head
  const int m0 = m_block * kBlockM;
  if (m0 >= rows) return;  // a packed batch's shorter sequences have fewer query blocks
  const TokenWindow window{seq.seqlen_q, seq.seqlen_k, p.window_left, p.window_right};

  // Key blocks this query block visits, and this split's share of them.
  const SplitKeys split_range = split_keys(window, m0, kBlockM, rows, group_size, kBlockN, split, p.num_splits);
  const KeyRange first_keys = split_range.first_keys, last_keys = split_range.last_keys;
  const int blk_begin = split_range.blk_begin, n_blocks = split_range.n_blocks;

  const auto* k_base = static_cast<const Element*>(p.k_cache) + kv_head * p.k_head_stride;
  const auto* v_base = static_cast<const Element*>(p.v_cache) + kv_head * p.v_head_stride;

  // K_blk and V_blk into ring stage `stage`. Each thread copies one 16-byte column chunk of
  // kLoadRows key rows (rows r_first + i * kRowsPerPass of the block); a row's cache location
  // serves K and V. Rows past the keys copy nothing (zero fill) from a valid address.
  constexpr int kLoadRows = kBlockN / kRowsPerPass;
  const int ch = tid % kChunksPerRow;
  // A head dim below kHeadDim (a multiple of 8: whole chunks): this thread's chunk lies past it on
  // every row, so it copies nothing (zero fill) from the row's first chunk, a valid address. The
  // zero columns of Q, K and V leave the scores unchanged and give O zero columns, never stored:
  // the HBM bytes are the call's head dim's (decode is bound by them), the math the kernel's.
  const bool ch_in_head = ch * 8 < p.head_dim;
  const int ch_src = ch_in_head ? ch : 0;
  const int ch_bytes = ch_in_head ? 16 : 0;
  const int r_first = tid / kChunksPerRow;
  auto stage_k = [&](int stage) { return sK + stage * kBlockN * kHeadDim; };
  auto stage_v = [&](int stage) { return sV + stage * kBlockN * kHeadDim; };

  // Paged caches. A refill's copy addresses depend on block-table loads. Loading each row's entry
  // just before that row's copies (main 549a0a6) made eight dependent round trips per refill, each
  // queued behind the warp's own copies, which one CTA per SM could not hide
  // (docs/results/2026-11-23-h100-decode3.md). Here the entries of all rows of a block are loaded
  // together, branch-free (rows past the keys look up the last key's page, an entry the table must
  // hold), into page_of_row, at the top of the pipeline step that refills (see the main loop).
  // Page sizes are any positive int: pos / page_size by a multiply-high with a magic number made
  // once per CTA (Granlund-Montgomery round-up: exact for 0 <= pos < 2^31), three instructions
  // and no branch per row where an int division is about twenty.
  const int page_size = kPaged ? p.page_size : 1;
  const int page_log2 = 32 - __clz(page_size - 1);  // ceil(log2(page_size))
  const uint32_t page_magic =
      static_cast<uint32_t>((((1ull << 32) * ((1ull << page_log2) - page_size)) / page_size) + 1);
  const int last_pos = seq.leftpad + max(seq.seqlen_k, 1) - 1;
  auto page_index = [&](int pos) {
    const uint32_t n = static_cast<uint32_t>(pos);
    return static_cast<int>((__umulhi(n, page_magic) + n) >> page_log2);
  };
  // Address order (page_sort.cuh): the first kDecodeSortHeadBlocks blocks of the split are read
  // in key order while decode_page_sort_kernel, this grid's programmatic primary, sorts the
  // entries of the rest once for all kv heads of the split; key block blk_begin +
  // kDecodeSortHeadBlocks + i is then the pages of sorted slots [i * pages_per_block, (i + 1) *
  // pages_per_block) (whole pages: the host allows it only where page_size divides kBlockN, with
  // no leftpad), and each of its keys is masked by its logical position.
  constexpr int kHeadBlocks = kByAddress ? kDecodeSortHeadBlocks : 0;
  const int pages_per_block = kBlockN >> page_log2;
  // The sorted entry serving row r of sorted block i. (Read from global memory at every step the
  // entries cost an L2 round trip a step: 227 us against 184 in key order at B1 Hk8 page 16.)
  auto sorted_entry = [&](int i, int r) { return sorted_smem[i * pages_per_block + (r >> page_log2)]; };
  int page_of_row[kLoadRows];
  auto fetch_pages = [&](int blk) {
#pragma unroll
    for (int i = 0; i < kLoadRows; ++i) {
      const int pos = min(seq.leftpad + blk * kBlockN + r_first + i * kRowsPerPass, last_pos);
      page_of_row[i] = __ldg(seq.pages + page_index(pos));
    }
  };
  // Contiguous caches: this thread's row i of block blk is row0 + blk * block_stride + i *
  // pass_stride, so a refill advances pointers by constants. (Each row's offset computed from its
  // position -- a 64-bit multiply-add for K and for V, a sign extension, a select -- made a d128
  // refill 316 SASS instructions, now 138. Measured: d128 -0.1..+0.8 points of the HBM floor, d64
  // single-sequence rows -0.8..0.0; docs/results/2026-11-28-h100-session27.md section 6.)
  const Element* k_safe = k_base + ch_src * 8;  // what a row past the keys points at (read: 0 bytes)
  const Element* v_safe = v_base + ch_src * 8;
  const Element* k_row0 = k_safe;
  const Element* v_row0 = v_safe;
  int64_t k_block_stride = 0, v_block_stride = 0, k_pass_stride = 0, v_pass_stride = 0;
  if constexpr (!kPaged) {
    const int64_t first = seq.leftpad + r_first;
    k_row0 += seq.cache_row * p.k_page_stride + first * p.k_row_stride;
    v_row0 += seq.cache_row * p.v_page_stride + first * p.v_row_stride;
    k_block_stride = kBlockN * p.k_row_stride;
    v_block_stride = kBlockN * p.v_row_stride;
    k_pass_stride = kRowsPerPass * p.k_row_stride;
    v_pass_stride = kRowsPerPass * p.v_row_stride;
  }
  // Copies block `blk` into `stage` (the cp.async walks; paged: once page_of_row holds its pages).
  auto load_kv = [&](int blk, int stage) {
    Element* sKs = stage_k(stage);
    Element* sVs = stage_v(stage);
    if constexpr (!kPaged) {
      const int rows_left = seq.seqlen_k - blk * kBlockN - r_first;  // row i holds a key iff i * pass < it
      const Element* k_src = k_row0 + blk * k_block_stride;
      const Element* v_src = v_row0 + blk * v_block_stride;
#pragma unroll
      for (int i = 0; i < kLoadRows; ++i) {
        const int r = r_first + i * kRowsPerPass;
        const bool valid = i * kRowsPerPass < rows_left;
        cp_async_16(smem_u32(sKs + swizzled<kHeadDim>(r, ch)), valid ? k_src : k_safe, valid ? ch_bytes : 0);
        cp_async_16(smem_u32(sVs + swizzled<kHeadDim>(r, ch)), valid ? v_src : v_safe, valid ? ch_bytes : 0);
        k_src += k_pass_stride;
        v_src += v_pass_stride;
      }
    } else {
#pragma unroll
      for (int i = 0; i < kLoadRows; ++i) {
        const int r = r_first + i * kRowsPerPass;
        const int j = blk * kBlockN + r;
        const bool valid = j < seq.seqlen_k;  // invalid rows read nothing from a valid address
        const int pos = min(seq.leftpad + j, last_pos);
        const int row = pos - page_index(pos) * page_size;
        const int64_t k_off = page_of_row[i] * p.k_page_stride + row * p.k_row_stride;
        const int64_t v_off = page_of_row[i] * p.v_page_stride + row * p.v_row_stride;
        cp_async_16(smem_u32(sKs + swizzled<kHeadDim>(r, ch)), k_base + k_off + ch_src * 8, valid ? ch_bytes : 0);
        cp_async_16(smem_u32(sVs + swizzled<kHeadDim>(r, ch)), v_base + v_off + ch_src * 8, valid ? ch_bytes : 0);
      }
    }
  };

  // TMA (kTma). A refill is boxes_per_block boxes of box_rows rows: in key order box j holds key
  // positions n0 + j * box_rows on (page of that position, its row in the page); in address order
  // box j of sorted block i is sorted slot i * pages_per_block + j, a whole page. Box j is issued
  // by lane 0 of warp j % kWarps, which looks up its page at the top of the step that refills
  // (as fetch_pages). Boxes wholly past the last key are not issued.
  constexpr int kTmaBoxesPerWarp = kTma ? (kBlockN / 8 + kWarps - 1) / kWarps : 1;  // page_size >= 8
  constexpr int kColBlocks = kHeadDim / 64;
  const int box_rows = min(page_size, kBlockN);
  const int boxes_per_block = kBlockN / box_rows;
  const int page_last = (max(seq.seqlen_k, 1) - 1) / page_size;  // (leftpad 0 on the TMA walks)
  // Address order: sorted slots [0, sorted_valid) hold pages with keys (the others, physical page
  // 0xffffffff, sort last), and sorted_tail_rows keys of the partial last page (slot
  // *sorted_tail_slot) are valid (page_size: the page is whole).
  const int sorted_first_page = (blk_begin + kHeadBlocks) * pages_per_block;
  const int sorted_valid =
      max(0, min((n_blocks - kHeadBlocks) * pages_per_block, page_last - sorted_first_page + 1));
  const int sorted_tail_rows = seq.seqlen_k - page_last * page_size;
  // Box k of this warp: page tma_page[k], from row tma_row[k]; tma_row -1: no box. (Which boxes
  // exist follows from the lengths alone, as tma_issue's byte count does, whatever the table holds:
  // an entry outside the cache reads zeros through the TMA instead of leaving the barrier short.)
  int tma_page[kTmaBoxesPerWarp], tma_row[kTmaBoxesPerWarp];
  auto tma_fetch = [&](int blk, int i_sorted, auto sorted) {
#pragma unroll
    for (int k = 0; k < kTmaBoxesPerWarp; ++k) {
      const int j = warp + k * kWarps;
      tma_page[k] = 0;
      tma_row[k] = -1;
      if (lane == 0 && j < boxes_per_block) {
        if constexpr (decltype(sorted)::value) {
          if (i_sorted * pages_per_block + j < sorted_valid) {
            tma_page[k] = entry_physical_page(sorted_smem[i_sorted * pages_per_block + j]);
            tma_row[k] = 0;
          }
        } else {
          const int pos = blk * kBlockN + j * box_rows;
          if (pos < seq.seqlen_k) {
            const int page = page_index(pos);
            tma_page[k] = __ldg(seq.pages + page);
            tma_row[k] = pos - page * page_size;
          }
        }
      }
    }
  };
  // Issues the boxes tma_fetch looked up into `stage`; `boxes`: how many the block has in all.
  auto tma_issue = [&](int stage, int boxes) {
    if (lane == 0) {
#pragma unroll
      for (int k = 0; k < kTmaBoxesPerWarp; ++k) {
        if (tma_row[k] >= 0) {
          const int row0 = (warp + k * kWarps) * box_rows;
#pragma unroll
          for (int cb = 0; cb < kColBlocks; ++cb) {
            hopper::tma_load_4d(&maps.k, stage_k(stage) + cb * kBlockN * 64 + row0 * 64, &kv_full[stage], cb * 64,
                                kv_head, tma_row[k], tma_page[k]);
            hopper::tma_load_4d(&maps.v, stage_v(stage) + cb * kBlockN * 64 + row0 * 64, &kv_full[stage], cb * 64,
                                kv_head, tma_row[k], tma_page[k]);
          }
        }
      }
    }
    if (tid == 0) {
      hopper::mbar_arrive_expect_tx(&kv_full[stage],
                                    static_cast<uint32_t>(boxes * 2 * kColBlocks * box_rows * 64 * sizeof(Element)));
    }
  };
  auto key_order_boxes = [&](int blk) {
    return min(boxes_per_block, (seq.seqlen_k - blk * kBlockN + box_rows - 1) / box_rows);
  };
  auto sorted_boxes = [&](int i_sorted) {
    return max(0, min(pages_per_block, sorted_valid - i_sorted * pages_per_block));
  };
  // Zeroes this thread's V chunks (rows r_first + i * kRowsPerPass, chunk ch) of `stage` for which
  // row_invalid(row) holds, and orders those writes before the TMA's next fill of the stage.
  auto zero_v_rows = [&](int stage, auto row_invalid) {
#pragma unroll
    for (int i = 0; i < kLoadRows; ++i) {
      const int r = r_first + i * kRowsPerPass;
      if (row_invalid(r)) {
        *reinterpret_cast<uint4*>(stage_v(stage) + kv_tile_offset<kHeadDim, kBlockN, kTma>(r, ch)) =
            make_uint4(0, 0, 0, 0);
      }
    }
    hopper::fence_view_async_shared();
  };
  if constexpr (kTma) {
    if (tid == 0) {
#pragma unroll
      for (int s = 0; s < kStages; ++s) hopper::mbar_init(&kv_full[s], 1);
      *sorted_tail_slot = -1;
      hopper::mbar_init_fence();
    }
    __syncthreads();
  }

  if (n_blocks > 0) {
    // Q: packed row r of the block is token (m0 + r) / G, query head kv_head * G + (m0 + r) % G.
    const auto* q = static_cast<const Element*>(p.q) + b * p.q_batch_stride;
#pragma unroll
    for (int i = 0; i < (kBlockM + kRowsPerPass - 1) / kRowsPerPass; ++i) {
      const int r = tid / kChunksPerRow + i * kRowsPerPass;
      if (r < kBlockM) {
        const int row = m0 + r;
        const bool valid = row < rows;
        const int t = valid ? row / group_size : 0;
        const int h = kv_head * group_size + (valid ? row % group_size : 0);
        const auto* src = q + (seq.row0_q + t) * p.q_row_stride + h * p.q_head_stride + ch_src * 8;
        cp_async_16(smem_u32(sQ + swizzled<kHeadDim>(r, ch)), src, valid ? ch_bytes : 0);
      }
    }
  }
  // Where a step refills the stage its block came from. Early: at the top of the next step, after
  // the barrier that follows that step's wait, kStages - 1 blocks ahead. Late (the key-order TMA
  // walk of unsplit calls at head dims up to 128, two stages, at pages of at most 16 keys: four or
  // more boxes a block): at the end of the step that read it, before the warps wait for the next
  // block, so both stages are in flight through that wait. Measured on two H200s (issue 16's rows,
  // docs/results/2026-11-30-h200-session54.md): late refills gave the batched rows' pages of 16
  // +0.8..+2.1% at head dims 64 and 128 (B8 Hq32 d128 -0.4..0.0), but pages of 32 -0.9..+0.8, pages of
  // 256 -0.5..-1.8, the split calls (three stages) 0..-1.3, and head dim 256's kernels -3..-7% on
  // every paged row, early ones included (a second refill path in its 128-register O kernel).
  constexpr bool kMayRefillLate = kTma && kStages == 2 && !kByAddress && kHeadDim <= 128;
  const bool refill_late = kMayRefillLate && page_size <= 16 && p.num_splits == 1;
  const int ahead = refill_late ? kStages : kStages - 1;
  // (The loop's bound and test spelled with kMayRefillLate, not `s < ahead` alone: so the other
  // kernels keep the SASS they had; the plain form re-allocated the sm90a ones.)
#pragma unroll
  for (int s = 0; s < (kMayRefillLate ? kStages : kStages - 1); ++s) {
    if constexpr (kTma) {
      if (s < n_blocks && (!kMayRefillLate || s < ahead)) {
        tma_fetch(blk_begin + s, 0, std::false_type{});
        tma_issue(s, key_order_boxes(blk_begin + s));
      }
    } else {
      if (s < n_blocks) {
        if constexpr (kPaged) fetch_pages(blk_begin + s);
        load_kv(blk_begin + s, s);
      }
      cp_async_commit();  // unconditional: the group count stays fixed
    }
  }
  if constexpr (kTma) cp_async_commit();  // Q
  static_assert(kDecodeSortHeadBlocks >= kStages - 1, "the prologue's blocks are in key order");

  float acc_o[kDTiles * 4];
#pragma unroll
  for (int i = 0; i < kDTiles * 4; ++i) acc_o[i] = 0.f;
  // This thread's rows (group, group + 8 of its warp's m16 tile) and the keys their tokens see.
  const int lrow0 = warp_m * 16 + group;
  KeyRange keys[2];
#pragma unroll
  for (int h = 0; h < 2; ++h) keys[h] = window.keys_of(min(m0 + lrow0 + 8 * h, rows - 1) / group_size);
  RowSoftmax<kNTiles> softmax;
  // Softcap: score = softcap * tanh(softmax_scale * s / softcap), in log2 units.
  const bool capped = p.softcap > 0.f;
  const float scale_log2 = (capped ? p.softcap : p.softmax_scale) * kLog2e;
  const float scale_over_softcap = capped ? p.softmax_scale / p.softcap : 0.f;

  // Q's fragments stay in registers up to head dim 128 (kKSteps x 4 registers); at 256 they would
  // be 64 beside O's 128, so each k16 step reloads its fragment from shared memory.
  constexpr bool kQInRegisters = kHeadDim <= 128;
  uint32_t q_frag[kQInRegisters ? kKSteps : 1][4];
  const int q_ld_row = warp_m * 16 + (lane % 8) + ((lane / 8) % 2) * 8;

  for (int it = 0; it < n_blocks; ++it) {
    // Paged: this step's refill pages, loaded before the wait and barrier below so their latency
    // hides under that wait and they queue behind no copy of this step (loading them one step
    // earlier, or at the refill, measured the same or up to 1% slower). page_of_row (cp.async walk)
    // and tma_page (TMA walk) are free: the previous step's refill has read them.
    const int refill = it + ahead;  // the block this step's refill loads
    if constexpr (kByAddress) {  // (on the TMA walk)
      if (refill < n_blocks) {
        if (refill >= kHeadBlocks) {
          if (refill == kHeadBlocks) {
            // The sort grid has finished: its entries for this split into shared memory.
            wait_for_primary_grid();
            const unsigned long long* sorted_list =
                p.sorted_pages + (static_cast<int64_t>(b) * p.num_splits + split) * kDecodeSortPages;
            for (int i = tid; i < (n_blocks - kHeadBlocks) * pages_per_block; i += kThreads) {
              const unsigned long long entry = __ldcg(sorted_list + i);
              sorted_smem[i] = entry;
              if (entry_logical_page(entry) == page_last && sorted_tail_rows < page_size) *sorted_tail_slot = i;
            }
            __syncthreads();
          }
          tma_fetch(0, refill - kHeadBlocks, std::true_type{});
        } else {
          tma_fetch(blk_begin + refill, 0, std::false_type{});
        }
      }
    } else if constexpr (kTma) {
      if (refill < n_blocks) tma_fetch(blk_begin + refill, 0, std::false_type{});
    } else if constexpr (kPaged) {
      if (refill < n_blocks) fetch_pages(blk_begin + refill);
    }
    // Address order: the logical pages of this block's score tiles, for the mask below.
    int tile_page[kNTiles];
    const bool sorted_block = kByAddress && it >= kHeadBlocks;
    if (sorted_block) {
#pragma unroll
      for (int t = 0; t < kNTiles; ++t) {
        tile_page[t] = entry_logical_page(sorted_entry(it - kHeadBlocks, warp_n * kWarpN + 8 * t));
      }
    }
    const int stage = it % kStages;
    const int n0 = (blk_begin + it) * kBlockN;
    if constexpr (kTma) {
      if (it == 0) cp_async_wait<0>();  // Q
      hopper::mbar_wait(&kv_full[stage], (it / kStages) & 1);
      // V rows past the last key: zeroed before the barrier below publishes them.
      bool zeroed = false;
      if (sorted_block) {
        const int i_sorted = it - kHeadBlocks;
        const int tail_slot = *sorted_tail_slot;
        if ((i_sorted + 1) * pages_per_block > sorted_valid ||
            (tail_slot >= 0 && tail_slot / pages_per_block == i_sorted)) {
          zero_v_rows(stage, [&](int r) {
            const int slot = i_sorted * pages_per_block + (r >> page_log2);
            return slot >= sorted_valid || (slot == tail_slot && (r & (page_size - 1)) >= sorted_tail_rows);
          });
          zeroed = true;
        }
      } else if (n0 + kBlockN > seq.seqlen_k) {
        zero_v_rows(stage, [&](int r) { return n0 + r >= seq.seqlen_k; });
        zeroed = true;
      }
      // (Late refills: the barrier only publishes zeroed rows, or Q at the first step; a CTA-uniform
      // branch.)
      if (!refill_late || zeroed || it == 0) __syncthreads();
      // Early: refill the stage every warp finished reading in the previous step (barrier above).
      if (!refill_late && refill < n_blocks) {
        tma_issue(refill % kStages, kByAddress && refill >= kHeadBlocks ? sorted_boxes(refill - kHeadBlocks)
                                                                        : key_order_boxes(blk_begin + refill));
      }
    } else {
      cp_async_wait<kStages - 2>();  // block `it` (and Q with the first) has landed
      __syncthreads();
      // Refill the stage every warp finished reading in the previous step (barrier above).
      if (refill < n_blocks) load_kv(blk_begin + refill, refill % kStages);
      cp_async_commit();
    }
    if constexpr (kQInRegisters) {
      if (it == 0) {
#pragma unroll
        for (int kk = 0; kk < kKSteps; ++kk) {
          ldmatrix_x4(q_frag[kk], smem_u32(sQ + swizzled<kHeadDim>(q_ld_row, kk * 2 + lane / 16)));
        }
      }
    }
    // This warp's keys of the stage (swizzled rows: a multiple of 8 rows in).
    constexpr int kTileRowElems = kTma ? 64 : kHeadDim;
    const Element* sKs = sK + stage * kBlockN * kHeadDim + warp_n * kWarpN * kTileRowElems;
    const Element* sVs = sV + stage * kBlockN * kHeadDim + warp_n * kWarpN * kTileRowElems;

    // S = Q K^T over this warp's kWarpN keys of the stage.
    float acc_s[kNTiles * 4];
#pragma unroll
    for (int i = 0; i < kNTiles * 4; ++i) acc_s[i] = 0.f;
#pragma unroll
    for (int kk = 0; kk < kKSteps; ++kk) {
      uint32_t q_step[4];
      if constexpr (!kQInRegisters) {
        ldmatrix_x4(q_step, smem_u32(sQ + swizzled<kHeadDim>(q_ld_row, kk * 2 + lane / 16)));
      }
      const uint32_t(&qa)[4] = kQInRegisters ? q_frag[kQInRegisters ? kk : 0] : q_step;
#pragma unroll
      for (int nn = 0; nn < kNTiles / 2; ++nn) {
        uint32_t bk[4];
        const int key = nn * 16 + (lane % 8) + (lane / 16) * 8;
        // The swizzle keys the XOR on the row within the stage (both layouts, kv_tile_offset);
        // warp_n * kWarpN is a multiple of 8.
        ldmatrix_x4(bk, smem_u32(sKs + kv_tile_offset<kHeadDim, kBlockN, kTma>(key, kk * 2 + (lane / 8) % 2)));
        Traits::mma_16x8x16(n8_tile(acc_s, 2 * nn), qa, bk[0], bk[1]);
        Traits::mma_16x8x16(n8_tile(acc_s, 2 * nn + 1), qa, bk[2], bk[3]);
      }
    }
    if (capped) {
#pragma unroll
      for (int i = 0; i < kNTiles * 4; ++i) acc_s[i] = tanh_approx(acc_s[i] * scale_over_softcap) * scale_log2;  // kernels/common/mask.cuh
    } else {
#pragma unroll
      for (int i = 0; i < kNTiles * 4; ++i) acc_s[i] *= scale_log2;
    }
    // Mask only blocks some row of the query block does not see whole; every sorted block of the
    // address-order walk, by each key's logical position (its pages come from anywhere in the
    // split).
    const bool needs_mask = sorted_block || n0 + kBlockN > seq.seqlen_k ||
                            (p.window_right >= 0 && n0 + kBlockN > first_keys.hi) ||
                            (p.window_left >= 0 && n0 < last_keys.lo);
    if (needs_mask) {
#pragma unroll
      for (int t = 0; t < kNTiles; ++t) {
        // An n8 tile's keys lie in one page (page_size >= 8 in address order).
        const int r0 = warp_n * kWarpN + 8 * t;
        int key0 = n0 + r0;
        if constexpr (kByAddress) {
          if (sorted_block) key0 = tile_page[t] * page_size + (r0 & (page_size - 1));
        }
#pragma unroll
        for (int h = 0; h < 2; ++h)
#pragma unroll
          for (int e = 0; e < 2; ++e) {
            const int col = key0 + 2 * tig + e;
            if (col < keys[h].lo || col >= keys[h].hi) acc_s[4 * t + 2 * h + e] = -INFINITY;
          }
      }
    }
    float alpha[2];
    softmax.step(acc_s, alpha);
    scale_rows<kDTiles>(acc_o, alpha);

    // O += P V: two n8 tiles of the S accumulator are the A operand of one k16 step.
#pragma unroll
    for (int kk = 0; kk < kWarpN / 16; ++kk) {
      uint32_t a[4];
      a[0] = Traits::pack2(acc_s[8 * kk + 0], acc_s[8 * kk + 1]);
      a[1] = Traits::pack2(acc_s[8 * kk + 2], acc_s[8 * kk + 3]);
      a[2] = Traits::pack2(acc_s[8 * kk + 4], acc_s[8 * kk + 5]);
      a[3] = Traits::pack2(acc_s[8 * kk + 6], acc_s[8 * kk + 7]);
#pragma unroll
      for (int dn = 0; dn < kDTiles / 2; ++dn) {
        uint32_t bv[4];
        const int key = kk * 16 + (lane % 8) + ((lane / 8) % 2) * 8;
        ldmatrix_x4_trans(bv, smem_u32(sVs + kv_tile_offset<kHeadDim, kBlockN, kTma>(key, dn * 2 + lane / 16)));
        Traits::mma_16x8x16(n8_tile(acc_o, 2 * dn), a, bv[0], bv[1]);
        Traits::mma_16x8x16(n8_tile(acc_o, 2 * dn + 1), a, bv[2], bv[3]);
      }
    }
    if (refill_late) {  // (kMayRefillLate: compiled out elsewhere)
      __syncthreads();  // every warp has read this step's stage
      if (refill < n_blocks) tma_issue(stage, key_order_boxes(blk_begin + refill));
    }
  }
  cp_async_wait<0>();
  // Address order: a split with no sorted block never waited; the sort grid must finish before
  // this one does (its writes land in scratch the next call may reuse).
  if constexpr (kByAddress) wait_for_primary_grid();
  __syncthreads();  // the ring is free: the merge below reuses its shared memory

  static_assert(merge_smem_bytes<kHeadDim, kBlockM, kKeyWarps>() <= (kBlockM + 2 * kStages * kBlockN) * kHeadDim * 2,
                "the merge (decode_merge.cuh) fits in the ring's shared memory");
  merge_key_warps_and_store<Traits, kHeadDim, kBlockM, kKeyWarps, kThreads>(
      smem, p, seq, acc_o, softmax.row_max, softmax.row_sum, m0, rows, group_size, kv_head, b, split, warp_n, lrow0,
      tig, tid);
}

}  // namespace decode
}  // namespace flashcore
