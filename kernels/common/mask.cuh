// Which keys a query row sees, written once for every pass and arch family (issue 13): the
// per-sequence lengths and row offsets of dense or packed variable-length batches, the causal /
// sliding-window mask (bottom-right aligned, FlashAttention's meaning), the key-block range a
// query block visits (so blocks wholly outside the window are never loaded), the query-block
// range a key block is visited by (the backward's loop), and the softcap transform of scores.
// Sinks live in OnlineSoftmax::finish (kernels/common/online_softmax.cuh).
#pragma once

#include <cuda_runtime.h>

#include "kernels/flash_fwd_api.h"

namespace flashcore {

// One sequence of the batch: its lengths and where its rows start in the (packed) tensors.
struct SeqInfo {
  int seqlen_q, seqlen_k;
  int row0_q, row0_k;  // first row of the sequence: 0 for a dense batch (the batch stride moves)

  SeqInfo() = default;
  // `max_seqlen_q/k` are the params' seqlen_q/k: the lengths of a dense batch, the maxima of a
  // packed one.
  __device__ __forceinline__ SeqInfo(const AttentionFeatures& f, int batch, int max_seqlen_q, int max_seqlen_k) {
    if (f.cu_seqlens_q != nullptr) {
      row0_q = f.cu_seqlens_q[batch];
      seqlen_q = f.cu_seqlens_q[batch + 1] - row0_q;
      // Packed queries over a paged cache (AttentionFeatures::block_table) have no packed keys:
      // each sequence's keys start at position 0 of its pages.
      row0_k = f.cu_seqlens_k != nullptr ? f.cu_seqlens_k[batch] : 0;
      seqlen_k = f.cu_seqlens_k != nullptr ? f.cu_seqlens_k[batch + 1] - row0_k : max_seqlen_k;
    } else {
      row0_q = row0_k = 0;
      seqlen_q = max_seqlen_q;
      seqlen_k = max_seqlen_k;
    }
    if (f.seqused_k != nullptr) seqlen_k = min(seqlen_k, f.seqused_k[batch]);
  }
};

// The keys [lo, hi) that one query row sees. hi <= lo: none (the row's output is 0, lse -inf).
struct KeyRange {
  int lo, hi;
};

// The window of a masked (kLocal) instantiation: causal is window_right = 0; negative = unbounded.
// Unmasked instantiations see every key of the sequence.
template <bool kLocal>
struct AttentionMask {
  int seqlen_q, seqlen_k, window_left, window_right;

  __device__ __forceinline__ AttentionMask(const SeqInfo& seq, const AttentionFeatures& f)
      : seqlen_q(seq.seqlen_q), seqlen_k(seq.seqlen_k), window_left(f.window_left), window_right(f.window_right) {}

  // Keys of query row `row` (bottom-right: the diagonal of row i is key i + seqlen_k - seqlen_q).
  __device__ __forceinline__ KeyRange keys_of_row(int row) const {
    if constexpr (!kLocal) return {0, seqlen_k};
    const int diag = row + seqlen_k - seqlen_q;
    const int lo = window_left < 0 ? 0 : max(0, diag - window_left);
    const int hi = window_right < 0 ? seqlen_k : min(seqlen_k, diag + window_right + 1);
    return {lo, hi};
  }

  // Key blocks [first, end) of width block_n that query rows [m0, m0 + block_m) visit; end <=
  // first when none. Only these are loaded: the cost follows the window, not seqlen_k.
  __device__ __forceinline__ void key_blocks(int m0, int block_m, int block_n, int& first, int& end) const {
    const int last_row = min(m0 + block_m, seqlen_q) - 1;
    const int lo = keys_of_row(m0).lo;          // lo and hi grow with the row
    const int hi = keys_of_row(last_row).hi;
    first = lo / block_n;
    end = hi > lo ? (hi + block_n - 1) / block_n : first;
  }

  // True if some row of [m0, m0 + block_m) does not see every key of [n0, n0 + block_n): the
  // block needs the per-element mask. Rows past seqlen_q count too (their results are dropped,
  // masking them is harmless).
  __device__ __forceinline__ bool block_needs_mask(int m0, int block_m, int n0, int block_n) const {
    if (n0 + block_n > seqlen_k) return true;
    if constexpr (!kLocal) return false;
    return (window_right >= 0 && n0 + block_n > keys_of_row(m0).hi) ||
           (window_left >= 0 && n0 < keys_of_row(m0 + block_m - 1).lo);
  }

  // Query blocks [first, end) of height block_m that visit keys [n0, n0 + block_n): the
  // backward's walk for one key block. Row i sees key j iff diag(i) - window_left <= j <=
  // diag(i) + window_right, i.e. j + shift - window_right <= i <= j + shift + window_left with
  // shift = seqlen_q - seqlen_k: the rows of the block's first key start the range, those of its
  // last key end it.
  __device__ __forceinline__ void query_blocks(int n0, int block_n, int block_m, int& first, int& end) const {
    const int m_blocks = (seqlen_q + block_m - 1) / block_m;
    if constexpr (!kLocal) {
      first = 0;
      end = m_blocks;
      return;
    }
    const int shift = seqlen_q - seqlen_k;  // row of key j's diagonal: j + shift
    const int last_key = min(n0 + block_n, seqlen_k) - 1;
    // First row that sees key n0..: row >= key + shift - window_right (right bound of that row's window).
    const int row_lo = window_right < 0 ? 0 : max(0, n0 + shift - window_right);
    // Last row that sees the block's last key: row <= key + shift + window_left.
    const int row_hi = window_left < 0 ? seqlen_q : min(seqlen_q, last_key + shift + window_left + 1);
    first = row_lo / block_m;
    end = row_hi > row_lo ? min(m_blocks, (row_hi + block_m - 1) / block_m) : first;
  }
};

// Softcap (Gemma 2, Grok): scores s = q.k become tanh(s * softmax_scale / softcap), in place; the
// caller then uses softcap * log2(e) as the softmax's log2 scale, so the softmax sees
// softcap * tanh(softmax_scale * s / softcap). tanh.approx has a relative error near 2^-11, below
// the fp16/bf16 rounding of P. The backward's derivative needs only tanh itself (1 - t^2).
// Measured on an H100 (docs/results/2026-11-23-h100-final.md): an accurate tanh (ex2.approx + a
// divide, two MUFU operations) cost the forward 35% instead of 15% and did not change the one
// gradient that misses the 2x rule (a sink's, limited by D = rowsum(dO o O) from the rounded O).
__device__ __forceinline__ float tanh_approx(float x) {
  float y;
  asm("tanh.approx.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

// 1 / x, computed where it is used (rcp.approx, 1 ulp): the backward's softcap derivative divides
// by the softmax's log2 scale per score, and `/` there was an IEEE divide per score in the SASS
// (FCHK, MUFU.RCP, Newton steps and a slow-path CALL, 32-64 of each per block). `volatile` keeps
// the compiler from hoisting it out of the key loop: a reciprocal held across the loop is one more
// live register, and ptxas then spilled 40-70 bytes more in the d128 mma.sync and d64 wgmma
// backward kernels.
__device__ __forceinline__ float reciprocal_here(float x) {
  float y;
  asm volatile("rcp.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

template <int kN>
__device__ __forceinline__ void softcap_scores(float (&s)[kN], float scale_over_softcap) {
#pragma unroll
  for (int i = 0; i < kN; ++i) s[i] = tanh_approx(s[i] * scale_over_softcap);
}

// softcap_scores in two parts, for a caller that may take the tanh inside its softmax step
// (kernels/common/online_softmax.cuh TanhScoreTransform).
template <int kN>
__device__ __forceinline__ void scale_scores(float (&s)[kN], float scale) {
#pragma unroll
  for (int i = 0; i < kN; ++i) s[i] *= scale;
}
template <int kN>
__device__ __forceinline__ void tanh_scores(float (&s)[kN]) {
#pragma unroll
  for (int i = 0; i < kN; ++i) s[i] = tanh_approx(s[i]);
}

// The log2-unit scale the softmax applies to the (possibly softcapped) scores.
__host__ __device__ __forceinline__ float softmax_scale_log2(const AttentionFeatures& f, float softmax_scale) {
  constexpr float kLog2eF = 1.4426950408889634f;
  return (f.softcap > 0.f ? f.softcap : softmax_scale) * kLog2eF;
}

}  // namespace flashcore
