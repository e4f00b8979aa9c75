// FlashAttention-2-style forward: one CTA per (query block, head, batch); K/V (of the head's
// GQA k/v head) stream through double-buffered shared memory (cp.async), only the key blocks the
// causal / sliding window lets the query block see; S = Q K^T and O += P V on tensor cores
// (mma.sync m16n8k16, operands via ldmatrix); online softmax in fp32 (base-2 exponent) and
// masking from kernels/common/online_softmax.cuh, shared with the Hopper forward (the mma.sync
// accumulator is its m16n8 fragment layout); S never leaves registers. Softcap, sinks and packed
// varlen (kernels/common/mask.cuh's SeqInfo) are run-time arguments, as the window is, and so is
// the head dim below kHeadDim (a multiple of 8: p.head_dim for Q and K, p.head_dim_v for V and
// O): cp.async zero-fills the 16-byte chunks past it (load_tile_async) and the epilogue's stores
// stop at head_dim_v. Included only by the
// generated instantiation TUs, after the traits header of their dtype.
//
// kernels/sm80/ holds the mma.sync (Ampere/Ada) kernels: this forward, the backward
// (bwd_kernel.cuh), the MMA wrapper (mma.cuh) and the forward tile policy (tile_policy.h). They are
// built for sm80 and sm89 (and as the portable PTX library sm80_ptx); on sm90a the
// forward is kernels/hopper/ and the backward uses sm80/bwd_kernel.cuh's preprocess and convert
// kernels, and its main kernel only for layouts the TMA cannot describe (kernels/hopper/bwd_kernel.cuh).
#pragma once

#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>

#include "kernels/common/kernel_attributes.h"
#include "kernels/common/online_softmax.cuh"
#include "kernels/common/rounding_residual.cuh"
#include "kernels/flash_fwd_api.h"
#include "kernels/sm80/tile_policy.h"

namespace flashcore {
namespace fwd {

__device__ __forceinline__ uint32_t smem_u32(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// 16-byte global->shared copy; src_bytes == 0 zero-fills (rows past the sequence end, columns past
// the call's head_dim).
__device__ __forceinline__ void cp_async_16(uint32_t dst, const void* src, int src_bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(src_bytes));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int kPending>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending));
}

__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}
__device__ __forceinline__ void ldmatrix_x4_trans(uint32_t (&r)[4], uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}

// Shared tiles are [rows][kHeadDim] in 16-byte chunks; chunk c of row r is stored at c ^ (r % 8)
// so that the 8 rows an ldmatrix reads (or cp.async writes) fall in 8 different bank groups (of
// 16 bytes: 128-byte lines). A head dim of 64k + 32 (96) has a last half group of 4 chunks, which
// c ^ (r % 8) would send past the row; there chunk c goes to c ^ ((r / 2) % 4). Its rows are
// 64k + 32 elements long, so rows r and r + 1 start half a line apart, and 8 consecutive rows hit
// 8 bank groups again: the even rows at 4 different chunks of one half of the line, the odd rows
// of the other half (the whole groups' c ^ (r % 8) stays a permutation of the 8 groups too).
template <int kHeadDim>
__device__ __forceinline__ int swizzled(int row, int chunk) {
  static_assert(kHeadDim % 32 == 0, "whole 8-chunk groups and at most one half group per row");
  if constexpr (kHeadDim % 64 == 0) {
    return row * kHeadDim + ((chunk ^ (row & 7)) << 3);
  } else {
    constexpr int kWholeGroupChunks = kHeadDim / 64 * 8;
    return row * kHeadDim + ((chunk ^ (chunk < kWholeGroupChunks ? row & 7 : (row >> 1) & 3)) << 3);
  }
}

// Copies rows [row0, row0 + kRows) of a (rows, head_dim) operand into a swizzled [kRows][kHeadDim]
// tile. Rows at or past row_end and 16-byte chunks at or past column `cols` (the call's head_dim:
// a multiple of 8, at most kHeadDim) read nothing (src size 0) and land as zeros, so a head dim
// below the instantiation's is predicated here, never padded in memory: Q K^T sums zeros past it
// and P V's columns past it are zeros. A row past row_end takes row 0's address; a chunk past
// `cols` keeps its own address, at most kHeadDim - 8 elements past its row's last column, from
// which no byte is read.
// kHoistChunk: compute the thread's column chunk once (it is the same for each of its rows, as
// kThreads is a multiple of the chunks per row) instead of per row. Which form ptxas allocates
// better differs by kernel (measured: the backward spills less with it, the forward more), so
// each caller picks; the copies are the same. With it the chunks need not divide evenly among
// the threads: each pass copies kThreads / chunks-per-row whole rows, so at head dim 96 (12 chunks
// per row) 252 of 256 threads copy 21 rows per pass and the last pass stops at kRows.
template <class Traits, int kHeadDim, int kRows, int kThreads, bool kHoistChunk = false>
__device__ __forceinline__ void load_tile_async(typename Traits::Element* smem,
                                                const typename Traits::Element* gmem,
                                                int64_t row_stride, int row0, int row_end, int cols) {
  constexpr int kChunksPerRow = kHeadDim / 8;
  constexpr int kChunks = kRows * kChunksPerRow;
  if constexpr (kHoistChunk) {
    constexpr int kRowsPerPass = kThreads / kChunksPerRow;
    static_assert(kRowsPerPass > 0, "a pass copies at least one row");
    const int ch = static_cast<int>(threadIdx.x) % kChunksPerRow;
    const int r_first = static_cast<int>(threadIdx.x) / kChunksPerRow;
    if (kThreads % kChunksPerRow != 0 && r_first >= kRowsPerPass) return;  // the threads past whole rows
    const int bytes = ch * 8 < cols ? 16 : 0;
#pragma unroll
    for (int i = 0; i < (kRows + kRowsPerPass - 1) / kRowsPerPass; ++i) {
      const int r = i * kRowsPerPass + r_first;
      if (kRows % kRowsPerPass != 0 && r >= kRows) break;
      const bool row_valid = row0 + r < row_end;
      const auto* src = gmem + static_cast<int64_t>(row_valid ? row0 + r : 0) * row_stride + ch * 8;
      cp_async_16(smem_u32(smem + swizzled<kHeadDim>(r, ch)), src, row_valid ? bytes : 0);
    }
  } else {
    static_assert(kChunks % kThreads == 0, "tile copy must divide evenly among threads");
#pragma unroll
    for (int i = 0; i < kChunks / kThreads; ++i) {
      const int c = i * kThreads + static_cast<int>(threadIdx.x);
      const int r = c / kChunksPerRow;
      const int ch = c % kChunksPerRow;
      const bool row_valid = row0 + r < row_end;
      const auto* src = gmem + static_cast<int64_t>(row_valid ? row0 + r : 0) * row_stride + ch * 8;
      cp_async_16(smem_u32(smem + swizzled<kHeadDim>(r, ch)), src, row_valid && ch * 8 < cols ? 16 : 0);
    }
  }
}

// n8 tile t of a flat m16n8 accumulator (acc[4 * t + i], common/online_softmax.cuh's layout) as
// the four floats one mma.sync m16n8k16 accumulates into.
template <int kN>
__device__ __forceinline__ float (&n8_tile(float (&acc)[kN], int t))[4] {
  return *reinterpret_cast<float(*)[4]>(&acc[4 * t]);
}

template <Arch kArch, class Traits, int kHeadDim, int kBlockM, int kBlockN, int kWarps, int kMinCtas,
          bool kCausal>
__global__ void __launch_bounds__(kWarps * 32, kMinCtas) flash_fwd_kernel(const FwdParams p) {
  using Element = typename Traits::Element;
  constexpr int kThreads = kWarps * 32;
  constexpr int kKSteps = kHeadDim / 16;  // k16 steps of Q K^T
  constexpr int kNTiles = kBlockN / 8;    // n8 tiles of S per warp
  constexpr int kDTiles = kHeadDim / 8;   // n8 tiles of O per warp
  static_assert(kBlockM == 16 * kWarps, "each warp owns 16 query rows");
  static_assert(kHeadDim % 32 == 0 && kBlockN % 16 == 0, "tile shape");
  // Tile copies: per-row chunks (load_tile_async) at head dims of whole 64-column groups, where
  // ptxas allocates that form better; a chunk per thread hoisted out of the rows at 96, whose 12
  // chunks per row do not divide the threads (the per-row form kept two 64-bit source pointers
  // per operand and spilled one in the mainloop).
  constexpr bool kHoistChunk = kHeadDim % 64 != 0;

  extern __shared__ __align__(128) unsigned char smem_raw[];
  Element* sQ = reinterpret_cast<Element*>(smem_raw);
  Element* sK = sQ + kBlockM * kHeadDim;  // 2 stages
  Element* sV = sK + 2 * kBlockN * kHeadDim;  // 2 stages

  const int m_block = blockIdx.x;
  const int head = blockIdx.y;
  const int batch = blockIdx.z;
  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  const int group = lane / 4;  // row within an m16 tile (and +8)
  const int tig = lane % 4;    // thread in group: column pair
  const int m0 = m_block * kBlockM;

  // This CTA's sequence: dense, or one sequence of a packed batch (the grid spans the longest;
  // query blocks past this one's end do nothing).
  const SeqInfo seq(p, batch, p.seqlen_q, p.seqlen_k);
  if (m0 >= seq.seqlen_q) return;
  // GQA/MQA: query head `head` reads k/v head head / (heads / heads_kv).
  const int head_kv = head / (p.heads / p.heads_kv);

  // Row 0 of this sequence and head in each tensor; rows below are relative to the sequence.
  const auto* q = static_cast<const Element*>(p.q) + batch * p.q_batch_stride +
                  static_cast<int64_t>(seq.row0_q) * p.q_row_stride + head * p.q_head_stride;
  const auto* k = static_cast<const Element*>(p.k) + batch * p.k_batch_stride +
                  static_cast<int64_t>(seq.row0_k) * p.k_row_stride + head_kv * p.k_head_stride;
  const auto* v = static_cast<const Element*>(p.v) + batch * p.v_batch_stride +
                  static_cast<int64_t>(seq.row0_k) * p.v_row_stride + head_kv * p.v_head_stride;

  // The key blocks this query block sees (causal / sliding window, bottom-right aligned): only
  // those are loaded, so a window's cost follows the window, not seqlen_k. Those of
  // [n_first, n_end) outside [unmasked_first, unmasked_end) need the per-element mask
  // (AttentionMask::block_needs_mask, evaluated at both ends of the range: the masked blocks
  // are a prefix and a suffix; two block indices keep the loop's live registers down).
  const AttentionMask<kCausal> mask(seq, p);
  int n_first, n_end;
  mask.key_blocks(m0, kBlockM, kBlockN, n_first, n_end);
  int unmasked_first = n_first, unmasked_end = n_end;
  if constexpr (kCausal) {  // unmasked: only blocks reaching past the keys' end, a suffix
    while (unmasked_first < n_end && mask.block_needs_mask(m0, kBlockM, unmasked_first * kBlockN, kBlockN)) {
      ++unmasked_first;
    }
  }
  while (unmasked_end > unmasked_first && mask.block_needs_mask(m0, kBlockM, (unmasked_end - 1) * kBlockN, kBlockN)) {
    --unmasked_end;
  }

  // Flat m16n8 fragments (acc[4 * t + 2 * h + e]: row group + 8h, column 8t + 2 tig + e).
  float acc_o[kDTiles * 4];
#pragma unroll
  for (int i = 0; i < kDTiles * 4; ++i) acc_o[i] = 0.f;
  // Per thread: rows (group) and (group + 8) of this warp's m16 tile.
  const int row0 = m0 + warp * 16 + group;
  const KeyRange key_limit[2] = {mask.keys_of_row(row0), mask.keys_of_row(row0 + 8)};
  OnlineSoftmax<kNTiles> softmax;
  // Softcap: the scores become tanh(scale * s / softcap) and the softmax's scale softcap * log2(e).
  const float scale_log2 = softmax_scale_log2(p, p.softmax_scale);

  if (n_first < n_end) {
    load_tile_async<Traits, kHeadDim, kBlockM, kThreads, kHoistChunk>(sQ, q, p.q_row_stride, m0, seq.seqlen_q, p.head_dim);
    load_tile_async<Traits, kHeadDim, kBlockN, kThreads, kHoistChunk>(sK, k, p.k_row_stride, n_first * kBlockN, seq.seqlen_k,
                                                         p.head_dim);
    cp_async_commit();
    load_tile_async<Traits, kHeadDim, kBlockN, kThreads, kHoistChunk>(sV, v, p.v_row_stride, n_first * kBlockN, seq.seqlen_k,
                                                         p.head_dim_v);
    cp_async_commit();
  }

  // Q's fragments stay in registers across the loop for head_dim 64; for 128 at two CTAs per SM
  // they would be 32 more registers per thread than fit without spilling, and at 256 64 more
  // beside O's 128, so there each k-step reloads its fragment from shared memory (where Q stays
  // for the whole CTA).
  constexpr bool kQInRegs = kHeadDim <= 64 || (kMinCtas < 2 && kHeadDim <= 128);
  uint32_t q_frag[kQInRegs ? kKSteps : 1][4];
  const int q_ld_row = warp * 16 + (lane % 8) + ((lane / 8) % 2) * 8;

  for (int j = n_first; j < n_end; ++j) {
    const int stage = (j - n_first) & 1;
    const int n0 = j * kBlockN;
    const Element* sKs = sK + stage * kBlockN * kHeadDim;
    const Element* sVs = sV + stage * kBlockN * kHeadDim;

    cp_async_wait<1>();  // Q and K_j have landed (V_j may still be in flight)
    __syncthreads();
    // Prefetch K_{j+1} and V_{j+1} into the other stages now, so that both loads overlap this
    // whole step (S, softmax and P V): every warp finished reading those stages (S_{j-1} and
    // P V_{j-1}) before the barrier above. The commits are unconditional so the group count
    // stays fixed: after them the groups in flight are V_j, K_{j+1}, V_{j+1}.
    if (j + 1 < n_end) {
      load_tile_async<Traits, kHeadDim, kBlockN, kThreads, kHoistChunk>(sK + (stage ^ 1) * kBlockN * kHeadDim, k,
                                                           p.k_row_stride, n0 + kBlockN, seq.seqlen_k, p.head_dim);
    }
    cp_async_commit();
    if (j + 1 < n_end) {
      load_tile_async<Traits, kHeadDim, kBlockN, kThreads, kHoistChunk>(sV + (stage ^ 1) * kBlockN * kHeadDim, v,
                                                           p.v_row_stride, n0 + kBlockN, seq.seqlen_k, p.head_dim_v);
    }
    cp_async_commit();
    if (kQInRegs && j == n_first) {
#pragma unroll
      for (int kk = 0; kk < kKSteps; ++kk) {
        ldmatrix_x4(q_frag[kQInRegs ? kk : 0], smem_u32(sQ + swizzled<kHeadDim>(q_ld_row, kk * 2 + lane / 16)));
      }
    }

    // S = Q K_j^T for this warp's 16 rows x kBlockN keys.
    float acc_s[kNTiles * 4];
#pragma unroll
    for (int i = 0; i < kNTiles * 4; ++i) acc_s[i] = 0.f;
#pragma unroll
    for (int kk = 0; kk < kKSteps; ++kk) {
      const int qi = kQInRegs ? kk : 0;
      if (!kQInRegs) ldmatrix_x4(q_frag[0], smem_u32(sQ + swizzled<kHeadDim>(q_ld_row, kk * 2 + lane / 16)));
#pragma unroll
      for (int nn = 0; nn < kNTiles / 2; ++nn) {
        uint32_t b[4];
        const int key = nn * 16 + (lane % 8) + (lane / 16) * 8;
        ldmatrix_x4(b, smem_u32(sKs + swizzled<kHeadDim>(key, kk * 2 + (lane / 8) % 2)));
        Traits::mma_16x8x16(n8_tile(acc_s, 2 * nn), q_frag[qi], b[0], b[1]);
        Traits::mma_16x8x16(n8_tile(acc_s, 2 * nn + 1), q_frag[qi], b[2], b[3]);
      }
    }

    if (p.softcap > 0.f) softcap_scores(acc_s, p.softmax_scale / p.softcap);

    // Mask, S -> P (unnormalised, in place) and rescale O by the online softmax. A key block
    // needs the per-element mask if some row of this CTA does not see all of it (keys past the
    // sequence's end, or outside the causal / sliding window).
    float alpha[2];
    if (j < unmasked_first || j >= unmasked_end) {
      softmax.template step<true>(acc_s, scale_log2, n0, key_limit, alpha);
    } else {
      softmax.template step<false>(acc_s, scale_log2, n0, key_limit, alpha);
    }
    scale_rows<kDTiles>(acc_o, alpha);

    cp_async_wait<2>();  // V_j has landed (K_{j+1} and V_{j+1} may still be in flight)
    __syncthreads();

    // O += P V_j. The S accumulator layout of two n8 tiles is the A-operand layout of one k16
    // step, so P goes from registers to the tensor cores without shared memory.
#pragma unroll
    for (int kk = 0; kk < kBlockN / 16; ++kk) {
      uint32_t a[4];
      a[0] = Traits::pack2(acc_s[8 * kk + 0], acc_s[8 * kk + 1]);
      a[1] = Traits::pack2(acc_s[8 * kk + 2], acc_s[8 * kk + 3]);
      a[2] = Traits::pack2(acc_s[8 * kk + 4], acc_s[8 * kk + 5]);
      a[3] = Traits::pack2(acc_s[8 * kk + 6], acc_s[8 * kk + 7]);
#pragma unroll
      for (int dn = 0; dn < kDTiles / 2; ++dn) {
        uint32_t b[4];
        const int key = kk * 16 + (lane % 8) + ((lane / 8) % 2) * 8;
        ldmatrix_x4_trans(b, smem_u32(sVs + swizzled<kHeadDim>(key, dn * 2 + lane / 16)));
        Traits::mma_16x8x16(n8_tile(acc_o, 2 * dn), a, b[0], b[1]);
        Traits::mma_16x8x16(n8_tile(acc_o, 2 * dn + 1), a, b[2], b[3]);
      }
    }
  }
  cp_async_wait<0>();

  // Epilogue: normalise, write O and the log-sum-exp (natural log). Rows that saw no key
  // (causal with seqlen_q > seqlen_k, or a window) get O = 0 and lse = -inf (log of an empty sum),
  // or the sink's logit. An attention sink joins the denominator only (log2 units here).
  float inv[2], lse_row[2];
  softmax.finish(inv, lse_row, p.sink != nullptr ? p.sink[head] * kLog2e : -INFINITY);
  // The sequence's rows again (a reload here costs less than two registers across the loop).
  const SeqInfo seq_out(p, batch, p.seqlen_q, p.seqlen_k);
  auto* o = static_cast<Element*>(p.o) + batch * p.o_batch_stride +
            static_cast<int64_t>(seq_out.row0_q) * p.o_row_stride + head * p.o_head_stride;
  // lse may be null (the caller did not ask for it): then it is not written. Dense (batch, heads,
  // seqlen_q); packed (heads, total_q).
  float* lse = p.lse == nullptr ? nullptr
                                : p.lse + lse_row0(p.cu_seqlens_q != nullptr, p.total_q, p.seqlen_q, p.heads, batch,
                                                   head, seq_out.row0_q);
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int row = row0 + 8 * h;
    if (row < seq_out.seqlen_q) {
      Element* orow = o + static_cast<int64_t>(row) * p.o_row_stride;
      // Columns of n8 tiles at or past the call's head_dim_v (a multiple of 8) are not O's.
#pragma unroll
      for (int t = 0; t < kDTiles; ++t) {
        if (t * 8 < p.head_dim_v) {
          const uint32_t packed =
              Traits::pack2(acc_o[4 * t + 2 * h] * inv[h], acc_o[4 * t + 2 * h + 1] * inv[h]);
          *reinterpret_cast<uint32_t*>(orow + t * 8 + tig * 2) = packed;
        }
      }
      if (p.o_resid != nullptr) {  // training: what the rounding dropped, for the backward's D
        Element* rrow = static_cast<Element*>(p.o_resid) + (orow - static_cast<Element*>(p.o));
#pragma unroll
        for (int t = 0; t < kDTiles; ++t) {
          if (t * 8 < p.head_dim_v) {
            *reinterpret_cast<uint32_t*>(rrow + t * 8 + tig * 2) =
                pack2_rounding_residual<Traits>(acc_o[4 * t + 2 * h] * inv[h], acc_o[4 * t + 2 * h + 1] * inv[h]);
          }
        }
      }
      if (tig == 0 && lse != nullptr) lse[row] = lse_row[h];
    }
  }
}

}  // namespace fwd

template <Arch kArch, DType kDType, int kHeadDim, bool kCausal>
cudaError_t launch_fwd(const FwdParams& p, cudaStream_t stream) {
  using Traits = typename TraitsFor<kDType>::type;
  constexpr FwdTileShape kTile = fwd_tile_shape(kArch, kHeadDim);
  constexpr int kThreads = kTile.warps * 32;
  constexpr size_t kSmemBytes = fwd_smem_bytes(kTile, kHeadDim);
  static_assert(sizeof(typename Traits::Element) == 2, "fwd_smem_bytes counts 2-byte elements");
  if (!head_dims_run_on(p.head_dim, p.head_dim_v, kHeadDim)) return cudaErrorInvalidValue;
  if (p.batch <= 0 || p.heads <= 0 || p.seqlen_q <= 0 || p.seqlen_k <= 0) return cudaErrorInvalidValue;
  if (p.heads > 65535 || p.batch > 65535) return cudaErrorInvalidConfiguration;
  if (p.heads_kv <= 0 || p.heads % p.heads_kv != 0) return cudaErrorInvalidValue;
  if ((p.cu_seqlens_q == nullptr) != (p.cu_seqlens_k == nullptr)) return cudaErrorInvalidValue;
  constexpr auto kKernel = &fwd::flash_fwd_kernel<kArch, Traits, kHeadDim, kTile.block_m, kTile.block_n, kTile.warps,
                                                  kTile.min_ctas_per_sm, kCausal>;
  const cudaError_t err = ensure_dynamic_smem<kKernel>(kSmemBytes);
  if (err != cudaSuccess) return err;
  const dim3 grid((p.seqlen_q + kTile.block_m - 1) / kTile.block_m, p.heads, p.batch);
  kKernel<<<grid, kThreads, kSmemBytes, stream>>>(p);
  return cudaGetLastError();
}

}  // namespace flashcore
