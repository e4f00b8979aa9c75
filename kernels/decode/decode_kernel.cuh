// Split-KV attention over a KV cache (flash-decoding), mma.sync m16n8k16 on sm80, sm89 and
// sm90a: one CTA per (query block, kv head, batch row, key split). A query block packs the query
// heads of one kv head times the new tokens (kernels/decode/decode_api.h), so each K/V byte is
// read from HBM once per step. K and V of a key block stream through a multi-stage cp.async ring
// (contiguous or paged: each 16-byte chunk's source row is found through the block table), the
// scores stay in registers (S = Q K^T, masked and scaled to log2 units, online softmax, O += P V), and the warps' partial rows are merged through
// shared memory at the end. With num_splits > 1 each CTA writes a float32 partial output and its
// log-sum-exp, and decode_combine_kernel merges the splits. Included only by the generated
// instantiation TUs, after the traits header of their dtype.
#pragma once

#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "kernels/common/kernel_attributes.h"
#include "kernels/common/online_softmax.cuh"
#include "kernels/decode/decode_api.h"
#include "kernels/decode/tile_policy.h"
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

// Online softmax over scores already in log2 units with masked entries at -inf, on the m16n8
// accumulator layout (acc[4 t + 2 h + e]: row group + 8 h, column 8 t + 2 tig + e). Scaling and
// masking happen before (so any sign of softmax_scale and any window work alike); this keeps
// the running max and sum of a thread's two rows.
template <int kNTiles>
struct RowSoftmax {
  float row_max[2] = {-INFINITY, -INFINITY};
  float row_sum[2] = {0.f, 0.f};

  // Scores -> unnormalised probabilities in place; alpha: the factor for the output rows.
  __device__ __forceinline__ void step(float (&s)[kNTiles * 4], float (&alpha)[2]) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      float mx = -INFINITY;
#pragma unroll
      for (int t = 0; t < kNTiles; ++t) mx = fmaxf(mx, fmaxf(s[4 * t + 2 * h], s[4 * t + 2 * h + 1]));
      mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
      mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
      const float m_new = fmaxf(row_max[h], mx);
      // A row with no visible key so far: subtract 0 so exp2 gives 0, not NaN (-inf - -inf).
      const float m_base = m_new == -INFINITY ? 0.f : m_new;
      alpha[h] = exp2_approx(row_max[h] - m_base);
      float sum = 0.f;
#pragma unroll
      for (int t = 0; t < kNTiles; ++t) {
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const float p = exp2_approx(s[4 * t + 2 * h + e] - m_base);
          s[4 * t + 2 * h + e] = p;
          sum += p;
        }
      }
      row_sum[h] = row_sum[h] * alpha[h] + sum;
      row_max[h] = m_new;
    }
  }
};

// Both kernels take the library's Arch although their code does not depend on it: the sm80, sm89
// and sm90a libraries all instantiate them, and one kernel name in several modules of the
// extension lets the runtime launch another arch's image ("no kernel image", or the wrong one);
// see kernels/sm80/bwd_kernel.cuh.
// kPaged: the cache is paged (block_table set), a compile-time choice so the contiguous kernel
// carries no page arithmetic.
template <Arch kArch, class Traits, int kHeadDim, int kRowWarps, int kBlockN, int kStages, int kMinCtas, bool kPaged>
__global__ void __launch_bounds__(kDecodeThreads, kMinCtas) decode_kernel(const DecodeParams p) {
  using Element = typename Traits::Element;
  constexpr int kThreads = kDecodeThreads;
  constexpr int kKeyWarps = kDecodeWarps / kRowWarps;  // warps sharing one m16 row tile
  constexpr int kBlockM = 16 * kRowWarps;
  constexpr int kWarpN = kBlockN / kKeyWarps;  // keys of a stage one warp scores
  constexpr int kNTiles = kWarpN / 8;
  constexpr int kKSteps = kHeadDim / 16;
  constexpr int kDTiles = kHeadDim / 8;
  constexpr int kChunksPerRow = kHeadDim / 8;  // 16-byte chunks
  constexpr int kRowsPerPass = kThreads / kChunksPerRow;
  static_assert(kWarpN % 16 == 0 && kBlockN % kRowsPerPass == 0, "decode tile shape");

  extern __shared__ __align__(128) unsigned char smem_raw[];
  Element* sQ = reinterpret_cast<Element*>(smem_raw);
  Element* sK = sQ + kBlockM * kHeadDim;          // kStages stages
  Element* sV = sK + kStages * kBlockN * kHeadDim;  // kStages stages

  const int split = blockIdx.x % p.num_splits;
  const int m_block = blockIdx.x / p.num_splits;
  const int kv_head = blockIdx.y;
  const int b = blockIdx.z;
  const int tid = threadIdx.x;
  const int warp = tid / 32, lane = tid % 32;
  const int warp_m = warp / kKeyWarps, warp_n = warp % kKeyWarps;
  const int group = lane / 4, tig = lane % 4;

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  // Programmatic dependent launch (sm90): the combine kernel may be scheduled once every CTA of
  // this grid has started; it waits for this grid's completion (griddepcontrol.wait) before
  // reading the partial results, so only its launch latency overlaps.
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
  const DecodeSeq seq(p, b);
  const int group_size = p.heads / p.heads_kv;
  const int rows = group_size * seq.seqlen_q;  // packed rows of this kv head
  const int m0 = m_block * kBlockM;
  if (m0 >= rows) return;  // a packed batch's shorter sequences have fewer query blocks
  const TokenWindow window{seq.seqlen_q, seq.seqlen_k, p.window_left, p.window_right};

  // Key blocks this query block visits, and this split's share of them.
  const KeyRange first_keys = window.keys_of(m0 / group_size);
  const KeyRange last_keys = window.keys_of((min(m0 + kBlockM, rows) - 1) / group_size);
  const int lo = first_keys.lo, hi = last_keys.hi;  // lo and hi grow with the token
  const int nb_first = lo / kBlockN;
  const int nb_end = hi > lo ? (hi + kBlockN - 1) / kBlockN : nb_first;
  const int per_split = (nb_end - nb_first + p.num_splits - 1) / p.num_splits;
  const int blk_begin = nb_first + split * per_split;
  const int n_blocks = max(0, min(blk_begin + per_split, nb_end) - blk_begin);

  const auto* k_base = static_cast<const Element*>(p.k_cache) + kv_head * p.k_head_stride;
  const auto* v_base = static_cast<const Element*>(p.v_cache) + kv_head * p.v_head_stride;

  // K_blk and V_blk into ring stage `stage`. Each thread copies one 16-byte column chunk of
  // kLoadRows key rows (rows r_first + i * kRowsPerPass of the block); a row's cache location
  // serves K and V. Rows past the keys copy nothing (zero fill) from a valid address.
  constexpr int kLoadRows = kBlockN / kRowsPerPass;
  const int ch = tid % kChunksPerRow;
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
  int page_of_row[kLoadRows];
  auto fetch_pages = [&](int blk) {
#pragma unroll
    for (int i = 0; i < kLoadRows; ++i) {
      const int pos = min(seq.leftpad + blk * kBlockN + r_first + i * kRowsPerPass, last_pos);
      page_of_row[i] = __ldg(seq.pages + page_index(pos));
    }
  };
  // Copies block `blk` into `stage` (paged: once page_of_row holds its pages).
  auto load_kv = [&](int blk, int stage) {
    Element* sKs = stage_k(stage);
    Element* sVs = stage_v(stage);
#pragma unroll
    for (int i = 0; i < kLoadRows; ++i) {
      const int r = r_first + i * kRowsPerPass;
      const int j = blk * kBlockN + r;
      const bool valid = j < seq.seqlen_k;
      int64_t k_off = 0, v_off = 0;  // invalid rows read nothing from a valid address
      if constexpr (!kPaged) {
        if (valid) {
          const int pos = seq.leftpad + j;
          k_off = seq.cache_row * p.k_page_stride + pos * p.k_row_stride;
          v_off = seq.cache_row * p.v_page_stride + pos * p.v_row_stride;
        }
      } else {
        const int pos = min(seq.leftpad + j, last_pos);
        const int row = pos - page_index(pos) * page_size;
        k_off = page_of_row[i] * p.k_page_stride + row * p.k_row_stride;
        v_off = page_of_row[i] * p.v_page_stride + row * p.v_row_stride;
      }
      cp_async_16(smem_u32(sKs + swizzled<kHeadDim>(r, ch)), k_base + k_off + ch * 8, valid ? 16 : 0);
      cp_async_16(smem_u32(sVs + swizzled<kHeadDim>(r, ch)), v_base + v_off + ch * 8, valid ? 16 : 0);
    }
  };

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
        const auto* src = q + (seq.row0_q + t) * p.q_row_stride + h * p.q_head_stride + ch * 8;
        cp_async_16(smem_u32(sQ + swizzled<kHeadDim>(r, ch)), src, valid ? 16 : 0);
      }
    }
  }
#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < n_blocks) {
      if constexpr (kPaged) fetch_pages(blk_begin + s);
      load_kv(blk_begin + s, s);
    }
    cp_async_commit();  // unconditional: the group count stays fixed
  }

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

  uint32_t q_frag[kKSteps][4];
  const int q_ld_row = warp_m * 16 + (lane % 8) + ((lane / 8) % 2) * 8;

  for (int it = 0; it < n_blocks; ++it) {
    // Paged: this step's refill pages, loaded before the wait and barrier below so their latency
    // hides under that wait and they queue behind no copy of this step (loading them one step
    // earlier, or at the refill, measured the same or up to 1% slower). page_of_row is free: the
    // previous step's refill has read it.
    if constexpr (kPaged) {
      if (it + kStages - 1 < n_blocks) fetch_pages(blk_begin + it + kStages - 1);
    }
    cp_async_wait<kStages - 2>();  // block `it` (and Q with the first) has landed
    __syncthreads();
    // Refill the stage every warp finished reading in the previous step (barrier above).
    if (it + kStages - 1 < n_blocks) load_kv(blk_begin + it + kStages - 1, (it + kStages - 1) % kStages);
    cp_async_commit();
    if (it == 0) {
#pragma unroll
      for (int kk = 0; kk < kKSteps; ++kk) {
        ldmatrix_x4(q_frag[kk], smem_u32(sQ + swizzled<kHeadDim>(q_ld_row, kk * 2 + lane / 16)));
      }
    }
    const int stage = it % kStages;
    const Element* sKs = sK + stage * kBlockN * kHeadDim + warp_n * kWarpN * kHeadDim;
    const Element* sVs = sV + stage * kBlockN * kHeadDim + warp_n * kWarpN * kHeadDim;
    const int n0 = (blk_begin + it) * kBlockN;

    // S = Q K^T over this warp's kWarpN keys of the stage.
    float acc_s[kNTiles * 4];
#pragma unroll
    for (int i = 0; i < kNTiles * 4; ++i) acc_s[i] = 0.f;
#pragma unroll
    for (int kk = 0; kk < kKSteps; ++kk) {
#pragma unroll
      for (int nn = 0; nn < kNTiles / 2; ++nn) {
        uint32_t bk[4];
        const int key = nn * 16 + (lane % 8) + (lane / 16) * 8;
        // swizzled() keys the XOR on the row within the stage; warp_n * kWarpN is a multiple of 8.
        ldmatrix_x4(bk, smem_u32(sKs + swizzled<kHeadDim>(key, kk * 2 + (lane / 8) % 2)));
        Traits::mma_16x8x16(n8_tile(acc_s, 2 * nn), q_frag[kk], bk[0], bk[1]);
        Traits::mma_16x8x16(n8_tile(acc_s, 2 * nn + 1), q_frag[kk], bk[2], bk[3]);
      }
    }
    if (capped) {
#pragma unroll
      for (int i = 0; i < kNTiles * 4; ++i) acc_s[i] = tanh_approx(acc_s[i] * scale_over_softcap) * scale_log2;  // kernels/common/mask.cuh
    } else {
#pragma unroll
      for (int i = 0; i < kNTiles * 4; ++i) acc_s[i] *= scale_log2;
    }
    // Mask only blocks some row of the query block does not see whole.
    const bool needs_mask = n0 + kBlockN > seq.seqlen_k ||
                            (p.window_right >= 0 && n0 + kBlockN > first_keys.hi) ||
                            (p.window_left >= 0 && n0 < last_keys.lo);
    if (needs_mask) {
      const int col0 = n0 + warp_n * kWarpN + 2 * tig;
#pragma unroll
      for (int t = 0; t < kNTiles; ++t)
#pragma unroll
        for (int h = 0; h < 2; ++h)
#pragma unroll
          for (int e = 0; e < 2; ++e) {
            const int col = col0 + 8 * t + e;
            if (col < keys[h].lo || col >= keys[h].hi) acc_s[4 * t + 2 * h + e] = -INFINITY;
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
        ldmatrix_x4_trans(bv, smem_u32(sVs + swizzled<kHeadDim>(key, dn * 2 + lane / 16)));
        Traits::mma_16x8x16(n8_tile(acc_o, 2 * dn), a, bv[0], bv[1]);
        Traits::mma_16x8x16(n8_tile(acc_o, 2 * dn + 1), a, bv[2], bv[3]);
      }
    }
  }
  cp_async_wait<0>();
  __syncthreads();  // the ring is free: the merge below reuses its shared memory

  // Merge the key warps of each row: every warp leaves its row max (log2 units), row sum and
  // unnormalised output in shared memory; then each thread finishes some (row, column pair)s.
  constexpr int kOStride = kHeadDim + 4;  // floats; the pad spreads a fragment's rows over banks
  float* sm_o = reinterpret_cast<float*>(smem_raw);
  float* sm_max = sm_o + kKeyWarps * kBlockM * kOStride;
  float* sm_sum = sm_max + kKeyWarps * kBlockM;
  static_assert((kKeyWarps * kBlockM * (kOStride + 2)) * 4 <= (kBlockM + 2 * kStages * kBlockN) * kHeadDim * 2,
                "the merge fits in the ring's shared memory");
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int slot = warp_n * kBlockM + lrow0 + 8 * h;
    float sum = softmax.row_sum[h];
    sum += __shfl_xor_sync(0xffffffffu, sum, 1);
    sum += __shfl_xor_sync(0xffffffffu, sum, 2);
    if (tig == 0) {
      sm_max[slot] = softmax.row_max[h];
      sm_sum[slot] = sum;
    }
#pragma unroll
    for (int t = 0; t < kDTiles; ++t) {
      *reinterpret_cast<float2*>(sm_o + slot * kOStride + 8 * t + 2 * tig) =
          make_float2(acc_o[4 * t + 2 * h], acc_o[4 * t + 2 * h + 1]);
    }
  }
  __syncthreads();

  constexpr int kPairs = kHeadDim / 2;
  for (int e = tid; e < kBlockM * kPairs; e += kThreads) {
    const int lrow = e / kPairs;
    const int d = (e % kPairs) * 2;
    const int row = m0 + lrow;
    if (row >= rows) continue;
    float m = -INFINITY;
#pragma unroll
    for (int w = 0; w < kKeyWarps; ++w) m = fmaxf(m, sm_max[w * kBlockM + lrow]);
    const float m_base = m == -INFINITY ? 0.f : m;  // no key at all: every weight is 0
    float sum = 0.f, o0 = 0.f, o1 = 0.f;
#pragma unroll
    for (int w = 0; w < kKeyWarps; ++w) {
      const int slot = w * kBlockM + lrow;
      const float wgt = exp2f(sm_max[slot] - m_base);
      sum += wgt * sm_sum[slot];
      o0 += wgt * sm_o[slot * kOStride + d];
      o1 += wgt * sm_o[slot * kOStride + d + 1];
    }
    const float inv = sum > 0.f ? 1.f / sum : 0.f;
    const float lse = sum > 0.f ? m * kLn2 + logf(sum) : -INFINITY;
    const int t = row / group_size;
    const int head = kv_head * group_size + row % group_size;
    if (p.num_splits == 1) {
      auto* o = static_cast<Element*>(p.o) + b * p.o_batch_stride + (seq.row0_q + t) * p.o_row_stride +
                head * p.o_head_stride;
      *reinterpret_cast<uint32_t*>(o + d) = Traits::pack2(o0 * inv, o1 * inv);
      if (d == 0 && p.lse != nullptr) {
        const int64_t idx =
            lse_row0(p.cu_seqlens_q != nullptr, p.total_q, p.seqlen_q, p.heads, b, head, seq.row0_q) + t;
        p.lse[idx] = lse;
      }
    } else {
      const int64_t idx = ((static_cast<int64_t>(split) * p.batch + b) * p.heads + head) * p.seqlen_q + t;
      *reinterpret_cast<float2*>(p.o_accum + idx * kHeadDim + d) = make_float2(o0 * inv, o1 * inv);
      if (d == 0) p.lse_accum[idx] = lse;
    }
  }
}

// Merges the splits of one output row per warp: O = sum_s w_s O_s / sum_s w_s with
// w_s = exp(lse_s - max lse); a split that saw no key has lse -inf and weight 0. The loads of
// kUnroll splits are issued before their sums: one split per iteration (main before decode4) made
// the combine a chain of dependent round trips, 16 splits 16 latencies (ncu, B1 Hq32 Hk8 k131072,
// 16 splits: 10.3 us -> 6.9 us at 4 a batch; docs/results/2026-11-23-h100-decode4.md).
template <Arch kArch, class Traits, int kHeadDim>
__global__ void __launch_bounds__(128) decode_combine_kernel(const DecodeParams p) {
  using Element = typename Traits::Element;
  constexpr int kPerLane = kHeadDim / 32;
  constexpr int kUnroll = 8;
  static_assert(kPerLane == 2 || kPerLane == 4, "decode combine: head_dim 64 or 128");
  using Vec = typename std::conditional<kPerLane == 4, float4, float2>::type;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");  // the split kernel has finished (see there)
#endif
  const int lane = threadIdx.x % 32;
  const int64_t row = static_cast<int64_t>(blockIdx.x) * 4 + threadIdx.x / 32;  // (b, head, t)
  const int64_t rows = static_cast<int64_t>(p.batch) * p.heads * p.seqlen_q;
  if (row >= rows) return;
  const int t = static_cast<int>(row % p.seqlen_q);
  const int head = static_cast<int>((row / p.seqlen_q) % p.heads);
  const int b = static_cast<int>(row / (static_cast<int64_t>(p.seqlen_q) * p.heads));
  int row0_q = 0;
  if (p.cu_seqlens_q != nullptr) {
    row0_q = p.cu_seqlens_q[b];
    if (t >= p.cu_seqlens_q[b + 1] - row0_q) return;  // past this sequence's queries
  }
  const int count = p.num_splits;
  float m = -INFINITY;
  for (int s = lane; s < count; s += 32) m = fmaxf(m, p.lse_accum[s * rows + row]);
#pragma unroll
  for (int off = 16; off > 0; off /= 2) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, off));
  const float m_base = m == -INFINITY ? 0.f : m;
  float sum = 0.f;
  float acc[kPerLane] = {};
  for (int s0 = 0; s0 < count; s0 += kUnroll) {
    float lse[kUnroll];
    Vec v[kUnroll];
#pragma unroll
    for (int j = 0; j < kUnroll; ++j) {
      const int s = min(s0 + j, count - 1);  // past the last split: reload it, not summed below
      lse[j] = p.lse_accum[s * rows + row];
      v[j] = *reinterpret_cast<const Vec*>(p.o_accum + (s * rows + row) * kHeadDim + lane * kPerLane);
    }
#pragma unroll
    for (int j = 0; j < kUnroll; ++j) {
      if (s0 + j < count) {
        const float w = expf(lse[j] - m_base);
        sum += w;
        const float* vf = reinterpret_cast<const float*>(&v[j]);
#pragma unroll
        for (int i = 0; i < kPerLane; ++i) acc[i] += w * vf[i];
      }
    }
  }
  const float inv = sum > 0.f ? 1.f / sum : 0.f;
  auto* o = static_cast<Element*>(p.o) + b * p.o_batch_stride + (row0_q + t) * p.o_row_stride +
            head * p.o_head_stride + lane * kPerLane;
#pragma unroll
  for (int i = 0; i < kPerLane; i += 2) {
    *reinterpret_cast<uint32_t*>(o + i) = Traits::pack2(acc[i] * inv, acc[i + 1] * inv);
  }
  if (lane == 0 && p.lse != nullptr) {
    const int64_t idx = lse_row0(p.cu_seqlens_q != nullptr, p.total_q, p.seqlen_q, p.heads, b, head, row0_q) + t;
    p.lse[idx] = sum > 0.f ? m + logf(sum) : -INFINITY;
  }
}

template <Arch kArch, class Traits, int kHeadDim, int kRowWarps, bool kPaged>
cudaError_t launch_decode_tiles(const DecodeParams& p, cudaStream_t stream) {
  constexpr DecodeTileShape kTile = decode_tile_shape(kArch, kHeadDim);
  constexpr int kBlockM = 16 * kRowWarps;
  constexpr size_t kSmemBytes = decode_smem_bytes(kTile, kBlockM, kHeadDim);
  constexpr auto kKernel = &decode_kernel<kArch, Traits, kHeadDim, kRowWarps, kTile.block_n, kTile.stages,
                                          kTile.ctas_per_sm, kPaged>;
  const cudaError_t err = ensure_dynamic_smem<kKernel>(kSmemBytes);
  if (err != cudaSuccess) return err;
  const int rows = p.heads / p.heads_kv * p.seqlen_q;
  const int m_blocks = (rows + kBlockM - 1) / kBlockM;
  const dim3 grid(m_blocks * p.num_splits, p.heads_kv, p.batch);
  kKernel<<<grid, kDecodeThreads, kSmemBytes, stream>>>(p);
  return cudaGetLastError();
}

// Contiguous and paged caches run separate instantiations (the contiguous one has no page
// arithmetic).
template <Arch kArch, class Traits, int kHeadDim, int kRowWarps>
cudaError_t launch_decode_layout(const DecodeParams& p, cudaStream_t stream) {
  if (p.block_table == nullptr) return launch_decode_tiles<kArch, Traits, kHeadDim, kRowWarps, false>(p, stream);
  return launch_decode_tiles<kArch, Traits, kHeadDim, kRowWarps, true>(p, stream);
}

}  // namespace decode

template <Arch kArch, DType kDType, int kHeadDim>
cudaError_t launch_decode(const DecodeParams& p, cudaStream_t stream) {
  using Traits = typename TraitsFor<kDType>::type;
  static_assert(sizeof(typename Traits::Element) == 2, "decode_smem_bytes counts 2-byte elements");
  if (p.head_dim != kHeadDim) return cudaErrorInvalidValue;
  if (p.batch <= 0 || p.heads <= 0 || p.heads_kv <= 0 || p.heads % p.heads_kv != 0 || p.seqlen_q <= 0) {
    return cudaErrorInvalidValue;
  }
  if (p.cache_seqlens == nullptr || p.num_splits < 1 || p.num_splits > kDecodeMaxSplits) return cudaErrorInvalidValue;
  if (p.block_table != nullptr && p.page_size <= 0) return cudaErrorInvalidValue;
  if (p.num_splits > 1 && (p.o_accum == nullptr || p.lse_accum == nullptr)) return cudaErrorInvalidValue;
  if (p.heads_kv > 65535 || p.batch > 65535) return cudaErrorInvalidConfiguration;
  const int rows = p.heads / p.heads_kv * p.seqlen_q;
  const cudaError_t err = decode_row_warps(rows) == 1
                              ? decode::launch_decode_layout<kArch, Traits, kHeadDim, 1>(p, stream)
                              : decode::launch_decode_layout<kArch, Traits, kHeadDim, kDecodeWarps>(p, stream);
  if (err != cudaSuccess || p.num_splits == 1) return err;
  const int64_t out_rows = static_cast<int64_t>(p.batch) * p.heads * p.seqlen_q;
  const int64_t blocks = (out_rows + 3) / 4;
  if (blocks > 0x7fffffffLL) return cudaErrorInvalidConfiguration;
  const auto combine = &decode::decode_combine_kernel<kArch, Traits, kHeadDim>;
  if constexpr (kArch == Arch::kSm90a) {
    // Launched as a programmatic dependent of the split kernel (captured into graphs as such).
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(static_cast<unsigned>(blocks));
    config.blockDim = dim3(128);
    config.dynamicSmemBytes = 0;
    config.stream = stream;
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[0].val.programmaticStreamSerializationAllowed = 1;
    config.attrs = attr;
    config.numAttrs = 1;
    return cudaLaunchKernelEx(&config, combine, p);
  } else {
    combine<<<static_cast<unsigned>(blocks), 128, 0, stream>>>(p);
    return cudaGetLastError();
  }
}

}  // namespace flashcore
