// FlashAttention-2-style backward (mma.sync m16n8k16, the forward's traits and tile helpers).
//
// Three kernels, launched in order on one stream by launch_bwd:
//   1. preprocess: D_i = rowsum(dO_i * O_i) - dlse_i (fp32), zero the fp32 dQ accumulator and
//      (deterministic mode) the dQ semaphores.
//   2. main: one CTA per (key block, k/v head, batch). K_j, V_j stay in shared memory; the CTA
//      walks, for each query head of the k/v head's GQA group, the query blocks that see its keys
//      (AttentionMask::query_blocks: causal / sliding window), recomputes
//      P^T = exp(K Q^T * scale - lse) from the saved log-sum-exp (no S x S matrix in global
//      memory), and accumulates in registers, summed over the group's query heads,
//          dV += P^T dO,   dP^T = V dO^T,   dS^T = P^T o (dP^T - D),   dK += dS^T Q
//      (softcap: S^T = tanh(scale * K Q^T / softcap) and dS^T times 1 - tanh^2; a sink needs
//      nothing here, the lse includes it). Each warp owns 16 keys. dS^T goes through shared
//      memory so that every warp can add its 16 query rows of dQ += dS K to the fp32 accumulator
//      of its query head: with atomicAdd (fast mode), or, in deterministic mode, as plain
//      read-add-write in key-block order, serialised per (batch, query head, query block) by a
//      semaphore, so the summation order is fixed. Packed varlen: SeqInfo's row offsets, key
//      blocks past the sequence return at once, every row load is predicated by its length.
//   3. convert: dQ = dq_accum * scale in the input dtype.
// Pipelining (kStages = 2, sm90a): Q, dO and the lse, D rows of query block m+1 are copied with
// cp.async into the other shared-memory stage while block m is computed (lse raw; the thread that
// copied a row converts it to the log2 domain in place after its wait, before the step's
// barrier). On sm80/sm89 (kStages = 1) each block's loads are waited on at the top of its step,
// as before (a second stage would cost sm80 d128 and sm89 a CTA per SM of shared memory).
// On sm90a the dQ atomics are float2 (one vector atomic per two columns, sm_90+), and
// FLASHCORE_BWD_SM90_BLOCK_N=128 (opt-in, for measurement) selects 128-key CTAs of 8 warps.
// Rows that see no key (causal, seqlen_q > seqlen_k; lse = -inf) get P = 0, so zero gradients.
// Head dim 256 (every head dim 136..256 runs on it): dK and dV for 16 keys over all 256 columns
// would be 256 fp32 registers per thread, so a key block is kHeadDim / kDkvCols CTAs ("column
// parts", the tile policy's dkv_cols: 128 at d256, kHeadDim below, where nothing changes). Each
// part loads Q, K, V, dO at full width and computes S^T = K Q^T and dP^T = V dO^T over all columns
// (they need the full dot products), then only its columns [c0, c0 + kDkvCols):
//     dV[:, c] += P^T dO[:, c],   dK[:, c] += dS^T Q[:, c],   dQ[:, c] += dS K[:, c]
// -- S^T and dP^T computed once per part, about 1.4x the FLOPs of the unsplit backward at d256
// (7 GEMMs of the step's size instead of 5), the price of d128's register footprint. The parts
// are adjacent in blockIdx.x (n_block * kParts + part), so they share K, V, Q, dO in L2; the
// deterministic mode's dQ order is in the main kernel (the semaphore comment).
// Tile shapes per (arch, head dim): bwd_tile_policy.h.
// A head dim below kHeadDim (p.head_dim for Q, K, dQ, dK; p.head_dim_v for V, dO, dV: multiples
// of 8): Q, K, V, dO load as zeros past theirs (load_tile_async), so S^T and dP^T are unchanged
// and dK, dV and dQ are exact zeros past theirs; the preprocess reads, and the dK / dV / dQ stores
// write, their call's columns only. dq_accum keeps kHeadDim-wide rows (its columns past head_dim
// add zeros and are never converted).
//
// This file holds the main kernel; its launchers (and the test-only switches) are in
// bwd_launch.cuh, which the generated instantiation TUs include. The preprocess and convert
// kernels are in bwd_row_kernels.cuh (the Hopper backward launches them too), the device building
// blocks that several kernels use in bwd_primitives.cuh; both are included here, so that
// kernels/hopper/, which includes this file for them, gets them.
#pragma once

#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#include "kernels/flash_bwd_api.h"
#include "kernels/sm80/fwd_kernel.cuh"
#include "kernels/sm80/bwd_primitives.cuh"
#include "kernels/sm80/bwd_row_kernels.cuh"
#include "kernels/sm80/bwd_tile_policy.h"

namespace flashcore {
namespace bwd {

// ---- 2. main kernel ------------------------------------------------------------------------------
// Tile shapes (keys per CTA, warps at 16 keys each, stages, column parts, where dS^T lives):
// bwd_tile_shape (bwd_tile_policy.h); sm90a also builds 128 keys with 8 warps at head dims <= 128,
// opt-in (launch_bwd).
constexpr int kLdS = kBlockM + 8;  // dS^T tile row pitch (elements): 144-byte rows, conflict-free

// Shared memory of the main kernel: K, V; kStages x (Q, dO); dS^T (unless in dO's tile); kStages x
// (lse, D) rows. bwd_smem_bytes (the policy's, checked against each arch's budget) is the same sum.
template <int kHeadDim, int kStages, int kBlockN, class Element, bool kDsInDo = false>
constexpr size_t main_smem_bytes() {
  return static_cast<size_t>(2 * kBlockN + 2 * kStages * kBlockM) * kHeadDim * sizeof(Element) +
         (kDsInDo ? 0 : static_cast<size_t>(kBlockN) * kLdS * sizeof(Element)) +
         2 * kStages * kBlockM * sizeof(float);
}

// kArch: one kernel name per library (bwd_row_kernels.cuh says why). kDkvCols: the head-dim
// columns of this CTA's part (kHeadDim: one part). kDsInDo: dS^T over the step's dO tile.
template <Arch kArch, class Traits, int kHeadDim, bool kCausal, bool kDeterministic, int kStages,
          bool kVectorAtomics, int kBlockN, int kWarps, int kDkvCols, bool kDsInDo>
__global__ void __launch_bounds__(kWarps * 32) flash_bwd_kernel(const BwdParams p) {
  using Element = typename Traits::Element;
  constexpr int kThreads = kWarps * 32;
  constexpr int kParts = kHeadDim / kDkvCols;  // CTAs (column parts) per key block
  // dQ = dS K over this part's columns: with at least kBlockM / 16 warps, warp w computes query
  // rows (w % 4) * 16 .. +15 and columns of dQ part w / 4 (kDqParts parts); with fewer, warp w
  // the row tiles w, w + kWarps, ... (kDqRowTiles of them) over all the part's columns;
  // kDqCols columns at a time.
  constexpr int kRowTiles = kBlockM / 16;
  constexpr int kDqParts = kWarps >= kRowTiles ? kWarps / kRowTiles : 1;
  constexpr int kDqRowTiles = kWarps >= kRowTiles ? 1 : kRowTiles / kWarps;
  constexpr int kDqPartCols = kDkvCols / kDqParts;
  constexpr int kDqCols = kDqPartCols < 64 ? kDqPartCols : 64;
  static_assert((kWarps % kRowTiles == 0 || kRowTiles % kWarps == 0) && kDqPartCols % kDqCols == 0 &&
                    kDqCols % 16 == 0, "dQ split");
  constexpr int kKSteps = kHeadDim / 16;  // k16 steps over the head dim
  constexpr int kQTiles = kBlockM / 8;    // n8 tiles over a query block
  constexpr int kDTiles = kDkvCols / 8;   // n8 tiles over this part's head-dim columns (dK, dV)
  static_assert(kBlockN == 16 * kWarps, "each warp owns 16 keys");
  static_assert(kHeadDim % 64 == 0 && kHeadDim % kDkvCols == 0 && kDkvCols % 64 == 0, "head dim");
  static_assert(kThreads >= 2 * kBlockM || (kStages == 1 && (2 * kBlockM) % kThreads == 0),
                "lse / D rows: one per thread, or (one stage) several");
  static_assert(kStages == 1 || kStages == 2, "stages");
  static_assert(!kDsInDo || kBlockN * kLdS <= kBlockM * kHeadDim, "dS^T fits in dO's tile");

  extern __shared__ __align__(128) unsigned char smem_raw[];
  Element* sK = reinterpret_cast<Element*>(smem_raw);
  Element* sV = sK + kBlockN * kHeadDim;
  Element* sQ_base = sV + kBlockN * kHeadDim;           // kStages tiles [kBlockM][kHeadDim]
  Element* sdO_base = sQ_base + kStages * kBlockM * kHeadDim;
  // dS^T: [kBlockN keys][kLdS], first kBlockM columns used (kDsInDo: in the step's dO tile).
  Element* sdS_own = sdO_base + kStages * kBlockM * kHeadDim;
  float* sLse_base = reinterpret_cast<float*>(sdS_own + (kDsInDo ? 0 : kBlockN * kLdS));  // kStages x kBlockM: lse * log2(e)
  float* sDsum_base = sLse_base + kStages * kBlockM;                  // kStages x kBlockM: D

  // blockIdx.x = n_block * kParts + part: a key block's parts are neighbours (L2, launch order).
  const int n_block = blockIdx.x / kParts;
  const int c0 = (blockIdx.x % kParts) * kDkvCols;  // this part's first head-dim column
  const int head_kv = blockIdx.y;  // GQA: the CTA serves the query heads of one k/v head
  const int batch = blockIdx.z;
  const int tid = threadIdx.x;
  const int warp = tid / 32;
  const int lane = tid % 32;
  const int group = lane / 4;
  const int tig = lane % 4;
  const int n0 = n_block * kBlockN;

  // This CTA's sequence: dense, or one of a packed batch (the grid spans the longest; key blocks
  // past this one's keys do nothing).
  const SeqInfo seq(p, batch, p.seqlen_q, p.seqlen_k);
  if (n0 >= seq.seqlen_k) return;
  const bool varlen = p.cu_seqlens_q != nullptr;

  // Row 0 of this sequence in every tensor (the query-side ones before their head offset).
  const auto* k = static_cast<const Element*>(p.k) + batch * p.k_batch_stride +
                  static_cast<int64_t>(seq.row0_k) * p.k_row_stride + head_kv * p.k_head_stride;
  const auto* v = static_cast<const Element*>(p.v) + batch * p.v_batch_stride +
                  static_cast<int64_t>(seq.row0_k) * p.v_row_stride + head_kv * p.v_head_stride;
  auto* dk = static_cast<Element*>(p.dk) + batch * p.dk_batch_stride +
             static_cast<int64_t>(seq.row0_k) * p.dk_row_stride + head_kv * p.dk_head_stride;
  auto* dv = static_cast<Element*>(p.dv) + batch * p.dv_batch_stride +
             static_cast<int64_t>(seq.row0_k) * p.dv_row_stride + head_kv * p.dv_head_stride;
  const auto* q_seq = static_cast<const Element*>(p.q) + batch * p.q_batch_stride +
                      static_cast<int64_t>(seq.row0_q) * p.q_row_stride;
  const auto* dout_seq = static_cast<const Element*>(p.dout) + batch * p.do_batch_stride +
                         static_cast<int64_t>(seq.row0_q) * p.do_row_stride;
  // Row 0 of (this sequence, query head hq) in lse's layout (also dsum's and dq_accum's rows):
  // dense (batch, heads, seqlen_q), packed (heads, total_q).
  auto stat_row0 = [&](int hq) { return lse_row0(varlen, p.total_q, p.seqlen_q, p.heads, batch, hq, seq.row0_q); };
  const int m_blocks_total = (p.seqlen_q + kBlockM - 1) / kBlockM;  // semaphores per (batch, head)

  // The query blocks that see this key block (causal / sliding window, bottom-right aligned),
  // walked once per query head of the group: visit `it` is query head head0 + it / n_m, query
  // block m_first + it % n_m.
  const AttentionMask<kCausal> mask(seq, p);
  int m_first, m_last_end;
  mask.query_blocks(n0, kBlockN, kBlockM, m_first, m_last_end);
  const int n_m = max(0, m_last_end - m_first);
  const int heads_per_kv = p.heads / p.heads_kv;
  const int head0 = head_kv * heads_per_kv;
  const int n_visits = heads_per_kv * n_m;
  auto visit_head = [&](int it) { return head0 + it / n_m; };
  auto visit_block = [&](int it) { return m_first + it % n_m; };

  // Q, dO of visit `it` into stage `stage` (cp.async, not committed here).
  auto load_q_do = [&](int it, int stage) {
    const int hq = visit_head(it);
    const int m0 = visit_block(it) * kBlockM;
    load_tile_async<Traits, kHeadDim, kBlockM, kThreads, true>(sQ_base + stage * kBlockM * kHeadDim,
                                                               q_seq + hq * p.q_head_stride, p.q_row_stride, m0,
                                                               seq.seqlen_q, p.head_dim);
    load_tile_async<Traits, kHeadDim, kBlockM, kThreads, true>(sdO_base + stage * kBlockM * kHeadDim,
                                                               dout_seq + hq * p.do_head_stride, p.do_row_stride,
                                                               m0, seq.seqlen_q, p.head_dim_v);
  };
  // kStages == 1: this thread's row statistic of visit `it`, stored to shared memory:
  // threads 0..kBlockM-1 the lse (times log2(e)), the others D. Rows past the sequence: 0 (masked).
  // (Fewer than 2 * kBlockM threads: thread t the rows t, t + kThreads, ...)
  auto load_store_stat = [&](int it) {
    const int64_t r0 = stat_row0(visit_head(it));
    const int m0 = visit_block(it) * kBlockM;
    if constexpr (kThreads >= 2 * kBlockM) {
      if (tid < kBlockM) {
        const int row = m0 + tid;
        sLse_base[tid] = row < seq.seqlen_q ? lse_log2(p.lse[r0 + row]) : 0.f;
      } else if (tid < 2 * kBlockM) {
        const int row = m0 + tid - kBlockM;
        sDsum_base[tid - kBlockM] = row < seq.seqlen_q ? p.dsum[r0 + row] : 0.f;
      }
    } else {
#pragma unroll
      for (int i = tid; i < 2 * kBlockM; i += kThreads) {
        const int r = i % kBlockM;
        const bool valid = m0 + r < seq.seqlen_q;
        if (i < kBlockM) {
          sLse_base[r] = valid ? lse_log2(p.lse[r0 + m0 + r]) : 0.f;
        } else {
          sDsum_base[r] = valid ? p.dsum[r0 + m0 + r] : 0.f;
        }
      }
    }
  };
  // kStages == 2: the same rows copied raw with cp.async into stage `stage` (lse not converted;
  // rows past the sequence read nothing and get 0).
  auto load_stat_async = [&](int it, int stage) {
    static_assert(kStages == 1 || kThreads >= 2 * kBlockM, "two stages: one thread per row");
    if (tid >= 2 * kBlockM) return;
    const int r = tid % kBlockM;
    const int row = visit_block(it) * kBlockM + r;
    const bool valid = row < seq.seqlen_q;
    const float* src = (tid < kBlockM ? p.lse : p.dsum) + (valid ? stat_row0(visit_head(it)) + row : 0);
    float* dst = (tid < kBlockM ? sLse_base : sDsum_base) + stage * kBlockM + r;
    cp_async_4(smem_u32(dst), src, valid ? 4 : 0);
  };

  load_tile_async<Traits, kHeadDim, kBlockN, kThreads, true>(sK, k, p.k_row_stride, n0, seq.seqlen_k, p.head_dim);
  load_tile_async<Traits, kHeadDim, kBlockN, kThreads, true>(sV, v, p.v_row_stride, n0, seq.seqlen_k, p.head_dim_v);
  if constexpr (kStages == 2) {
    // The first visit joins K, V's copy group.
    if (n_visits > 0) {
      load_q_do(0, 0);
      load_stat_async(0, 0);
    }
  }
  cp_async_commit();

  float acc_dk[kDTiles][4];
  float acc_dv[kDTiles][4];
#pragma unroll
  for (int t = 0; t < kDTiles; ++t) {
#pragma unroll
    for (int e = 0; e < 4; ++e) acc_dk[t][e] = acc_dv[t][e] = 0.f;
  }
  const float scale_log2 = softmax_scale_log2(p, p.softmax_scale);  // softcap * log2(e) when softcapped
  const int key_lo = n0 + warp * 16 + group;  // this thread's keys: key_lo and key_lo + 8

  // Softcap: S^T becomes tanh(scale * s / softcap), the softmax's scale softcap * log2(e), and dS
  // gets the factor 1 - tanh^2, recovered from P (log2 P = tanh * scale_log2 - lse * log2(e)).
  // (The softcap's scalars are derived from the params where used: registers are scarce here.)

  // One step per visit (query head, query block); the stage is a template constant (the loop
  // below runs two steps per iteration when kStages == 2) so that shared-memory addresses fold
  // into immediates.
  auto step = [&](const int it, auto stage_c) {
    constexpr int stage = decltype(stage_c)::value;
    const int hq = visit_head(it);
    const int m_block = visit_block(it);
    const int m0 = m_block * kBlockM;
    const Element* sQ = sQ_base + stage * kBlockM * kHeadDim;
    const Element* sdO = sdO_base + stage * kBlockM * kHeadDim;
    const float* sLse = sLse_base + stage * kBlockM;
    const float* sDsum = sDsum_base + stage * kBlockM;
    Element* sdS = kDsInDo ? sdO_base + stage * kBlockM * kHeadDim : sdS_own;
    if constexpr (kStages == 2) {
      // Prefetch block m_block + 1 into the other stage, last read in the previous step (which
      // ended with a barrier). An empty group when there is none keeps wait<1> uniform.
      if (it + 1 < n_visits) {
        load_q_do(it + 1, stage ^ 1);
        load_stat_async(it + 1, stage ^ 1);
      }
      cp_async_commit();
      cp_async_wait<1>();  // everything but the prefetch: this step's Q, dO, lse, D (and K, V)
      if (tid < kBlockM) {
        // This thread's own copy has landed (its wait): convert the lse in place before the barrier.
        float* l = sLse_base + stage * kBlockM + tid;
        *l = lse_log2(*l);
      }
    } else {
      load_q_do(it, 0);
      cp_async_commit();
      load_store_stat(it);
      cp_async_wait<0>();
    }
    __syncthreads();

    // acc = X_w Y^T over the head dim: this warp's 16 keys (rows of sX: K or V) x kBlockM
    // queries (rows of sY: Q or dO).
    auto keys_x_queries = [&](float(&acc)[kQTiles][4], const Element* sX, const Element* sY) {
#pragma unroll
      for (int t = 0; t < kQTiles; ++t) acc[t][0] = acc[t][1] = acc[t][2] = acc[t][3] = 0.f;
#pragma unroll
      for (int kk = 0; kk < kKSteps; ++kk) {
        uint32_t a[4];
        load_a<kHeadDim>(a, sX, warp * 16, kk, lane);
#pragma unroll
        for (int nn = 0; nn < kQTiles / 2; ++nn) {
          uint32_t b[4];
          load_b_nk<kHeadDim>(b, sY, nn * 16, kk, lane);
          Traits::mma_16x8x16(acc[2 * nn], a, b[0], b[1]);
          Traits::mma_16x8x16(acc[2 * nn + 1], a, b[2], b[3]);
        }
      }
    };
    // The k16 A operand kk of a keys x queries accumulator (two n8 query tiles per k16 step).
    auto pack_a = [&](uint32_t(&a)[4], const float(&acc)[kQTiles][4], int kk) {
      a[0] = Traits::pack2(acc[2 * kk][0], acc[2 * kk][1]);
      a[1] = Traits::pack2(acc[2 * kk][2], acc[2 * kk][3]);
      a[2] = Traits::pack2(acc[2 * kk + 1][0], acc[2 * kk + 1][1]);
      a[3] = Traits::pack2(acc[2 * kk + 1][2], acc[2 * kk + 1][3]);
    };
    // acc_d += A (keys x queries, packed by pack_a) times sY (queries x this part's head-dim
    // columns: dO or Q). (Column chunk c0 / 8 + ... rather than a pointer sY + c0: ptxas spilled
    // 100-116 bytes with the pointer, 72-80 with this, the same as with c0 = 0, d256 sm80 fp16.)
    auto accumulate_keys_x_dims = [&](float(&acc_d)[kDTiles][4], const uint32_t(&a)[4], const Element* sY, int kk) {
#pragma unroll
      for (int dn = 0; dn < kDTiles / 2; ++dn) {
        uint32_t b[4];
        load_b_kn<kHeadDim>(b, sY, kk * 16, (kParts == 1 ? 0 : c0 / 16) + dn, lane);
        Traits::mma_16x8x16(acc_d[2 * dn], a, b[0], b[1]);
        Traits::mma_16x8x16(acc_d[2 * dn + 1], a, b[2], b[3]);
      }
    };

    // S^T = K_w Q^T: this warp's 16 keys x kBlockM queries.
    float acc_s[kQTiles][4];
    keys_x_queries(acc_s, sK, sQ);

    if (p.softcap > 0.f) {
#pragma unroll
      for (int t = 0; t < kQTiles; ++t) softcap_scores(acc_s[t], p.softmax_scale / p.softcap);
    }

    // P^T = exp2(S^T * scale * log2e - lse * log2e), masked entries exactly 0. Per-element masks
    // only where some (row, key) of the block is not visible: rows / keys past the sequence, or
    // outside the causal / sliding window.
    const bool needs_mask = m0 + kBlockM > seq.seqlen_q || mask.block_needs_mask(m0, kBlockM, n0, kBlockN);
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int key = key_lo + 8 * h;
      // The query rows [row_lo, row_hi) that see this key (none for a key past the sequence).
      int row_lo = 0, row_hi = seq.seqlen_q;
      if (needs_mask) {
        if (key >= seq.seqlen_k) {
          row_hi = 0;
        } else if (kCausal) {
          const int diag_row = key + seq.seqlen_q - seq.seqlen_k;  // the row whose diagonal is `key`
          if (p.window_right >= 0) row_lo = max(0, diag_row - p.window_right);
          if (p.window_left >= 0) row_hi = min(seq.seqlen_q, diag_row + p.window_left + 1);
        }
      }
#pragma unroll
      for (int t = 0; t < kQTiles; ++t) {
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const int qi = t * 8 + tig * 2 + e;  // query within the block
          float pe = exp2f(acc_s[t][2 * h + e] * scale_log2 - sLse[qi]);
          if (needs_mask) {
            const int row = m0 + qi;
            if (row < row_lo || row >= row_hi) pe = 0.f;
          }
          acc_s[t][2 * h + e] = pe;
        }
      }
    }

    // dV_w += P^T dO: P^T's accumulator layout (two n8 query tiles) is one k16 A operand.
#pragma unroll
    for (int kk = 0; kk < kBlockM / 16; ++kk) {
      uint32_t a[4];
      pack_a(a, acc_s, kk);
      accumulate_keys_x_dims(acc_dv, a, sdO, kk);
    }

    // dP^T = V_w dO^T: 16 keys x kBlockM queries.
    float acc_dp[kQTiles][4];
    keys_x_queries(acc_dp, sV, sdO);

    // dS^T = P^T o (dP^T - D): masked entries have P = 0, so dS = 0 there.
#pragma unroll
    for (int t = 0; t < kQTiles; ++t) {
#pragma unroll
      for (int h = 0; h < 2; ++h) {
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const int qi = t * 8 + tig * 2 + e;
          const float pe = acc_s[t][2 * h + e];
          float ds = pe * (acc_dp[t][2 * h + e] - sDsum[qi]);
          if (p.softcap > 0.f) {
            // tanh from P (clamped: P = 0 gives -inf, and dS is 0 there anyway).
            const float th = fminf(1.f, fmaxf(-1.f, (__log2f(pe) + sLse[qi]) / (p.softcap * kLog2e)));
            ds *= 1.f - th * th;
          }
          acc_dp[t][2 * h + e] = ds;
        }
      }
    }

    // kDsInDo: dS^T goes over dO's tile, which every warp has finished reading (dP^T above).
    if constexpr (kDsInDo) __syncthreads();

    // dK_w += dS^T Q (the softmax scale is applied once, in the epilogue).
#pragma unroll
    for (int kk = 0; kk < kBlockM / 16; ++kk) {
      uint32_t a[4];
      pack_a(a, acc_dp, kk);
      // The same packed values, stored as dS^T [key][query] for the dQ product below.
      *reinterpret_cast<uint32_t*>(sdS + (warp * 16 + group) * kLdS + kk * 16 + tig * 2) = a[0];
      *reinterpret_cast<uint32_t*>(sdS + (warp * 16 + group + 8) * kLdS + kk * 16 + tig * 2) = a[1];
      *reinterpret_cast<uint32_t*>(sdS + (warp * 16 + group) * kLdS + kk * 16 + 8 + tig * 2) = a[2];
      *reinterpret_cast<uint32_t*>(sdS + (warp * 16 + group + 8) * kLdS + kk * 16 + 8 + tig * 2) = a[3];
      accumulate_keys_x_dims(acc_dk, a, sQ, kk);
    }
    __syncthreads();  // dS^T complete

    // Deterministic: this key block's turn at (query head hq, query block m_block).
    int* semaphore = nullptr;
    int turn = 0;
    if constexpr (kDeterministic) {
      int kb_first, kb_end;
      mask.key_blocks(m0, kBlockM, kBlockN, kb_first, kb_end);
      turn = n_block - kb_first;
      semaphore = p.dq_semaphore + (static_cast<int64_t>(batch) * p.heads + hq) * m_blocks_total + m_block;
    }
    if constexpr (kDeterministic) {
      // Key blocks add to query block m_block in key-block order: those that touch it are a
      // contiguous range first.. (the window's key blocks of the query block), each bumps the
      // semaphore once. A waiting CTA waits only on CTAs of lower linear block index (same k/v
      // head and batch), which walk their visits in the same (query head, query block) order.
      // Column parts (kParts > 1): each key block is kParts CTAs adding disjoint dQ columns, so
      // the order that fixes the sums is still the key blocks' alone. Every part bumps the
      // semaphore once (atomicAdd after its adds and a fence); key block `turn`'s parts all wait
      // until it reaches turn * kParts -- every part of every earlier key block done -- with >=,
      // not ==: the first part to finish may already have bumped it past turn * kParts while its
      // sibling still waits. It cannot pass (turn + 1) * kParts before this CTA bumps it (later
      // key blocks wait for that), so no part runs early, and none waits on a sibling or on a
      // higher block index (blockIdx.x = n_block * kParts + part), so no deadlock. Visibility:
      // the acquire read observes the last bump, and PTX observation order runs through the
      // chain of atomic RMWs to every earlier part's fenced bump, so all earlier adds are visible.
      if (tid == 0) {
        if constexpr (kParts == 1) {
          while (ld_acquire(semaphore) != turn) {
          }
        } else {
          while (ld_acquire(semaphore) < turn * kParts) {
          }
        }
      }
      __syncthreads();
    }

    // dQ_w (16 query rows, one dQ part of this CTA's columns) = dS K = (dS^T)^T K, A from dS^T
    // with a transposing load; at most 64 head-dim columns at a time to bound the live
    // accumulators. Columns past the call's head_dim (a second column part) add only zeros: skipped.
#pragma unroll 1
    for (int rt = 0; rt < kDqRowTiles; ++rt) {
      const int dq_row0 = kDqRowTiles > 1 ? (warp + rt * kWarps) * 16
                          : kDqParts == 1 ? warp * 16
                                          : (warp % kRowTiles) * 16;
      const int dq_col0 = (kParts == 1 ? 0 : c0) + (kDqParts == 1 ? 0 : (warp / kRowTiles) * kDqPartCols);
#pragma unroll 1
      for (int d0 = dq_col0; d0 < dq_col0 + kDqPartCols; d0 += kDqCols) {
        if constexpr (kParts > 1) {
          if (d0 >= p.head_dim) break;
        }
        float acc_dq[kDqCols / 8][4];
#pragma unroll
        for (int t = 0; t < kDqCols / 8; ++t) acc_dq[t][0] = acc_dq[t][1] = acc_dq[t][2] = acc_dq[t][3] = 0.f;
#pragma unroll 4  // (kBlockN = 128: a full unroll lets ptxas hoist all dS^T fragments and spill)
        for (int kk = 0; kk < kBlockN / 16; ++kk) {
          uint32_t a[4];
          const int key = kk * 16 + (lane % 8) + (lane / 16) * 8;
          ldmatrix_x4_trans(a, smem_u32(sdS + key * kLdS + dq_row0 + ((lane / 8) % 2) * 8));
#pragma unroll
          for (int dn = 0; dn < kDqCols / 16; ++dn) {
            uint32_t b[4];
            load_b_kn<kHeadDim>(b, sK, kk * 16, d0 / 16 + dn, lane);
            Traits::mma_16x8x16(acc_dq[2 * dn], a, b[0], b[1]);
            Traits::mma_16x8x16(acc_dq[2 * dn + 1], a, b[2], b[3]);
          }
        }
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int row = m0 + dq_row0 + group + 8 * h;
          if (row < seq.seqlen_q) {
            float* dst = p.dq_accum + (stat_row0(hq) + row) * kHeadDim + d0 + tig * 2;
#pragma unroll
            for (int t = 0; t < kDqCols / 8; ++t) {
              if constexpr (kDeterministic) {
                float2 cur = __ldcg(reinterpret_cast<const float2*>(dst + t * 8));
                cur.x += acc_dq[t][2 * h];
                cur.y += acc_dq[t][2 * h + 1];
                __stcg(reinterpret_cast<float2*>(dst + t * 8), cur);
              } else {
                atomic_add2<kVectorAtomics>(dst + t * 8, acc_dq[t][2 * h], acc_dq[t][2 * h + 1]);
              }
            }
          }
        }
      }
    }
    if constexpr (kDeterministic) {
      __threadfence();
      __syncthreads();
      if (tid == 0) {
        if constexpr (kParts == 1) {
          atomicExch(semaphore, turn + 1);
        } else {
          atomicAdd(semaphore, 1);
        }
      }
    }
    __syncthreads();  // this stage's sQ, sdO, sLse, sDsum and sdS are rewritten by later steps
  };
  if constexpr (kStages == 2) {
    for (int it = 0; it < n_visits; it += 2) {
      step(it, std::integral_constant<int, 0>{});
      if (it + 1 < n_visits) step(it + 1, std::integral_constant<int, 1>{});
    }
  } else {
    for (int it = 0; it < n_visits; ++it) step(it, std::integral_constant<int, 0>{});
  }
  cp_async_wait<0>();  // K/V were waited on inside the loop unless it ran zero times

  // Epilogue: dK (times the softmax scale) and dV for this warp's keys and this part's columns,
  // summed over the group's query heads; keys that no query sees get zeros.
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int key = key_lo + 8 * h;
    if (key < seq.seqlen_k) {
      Element* dk_row = dk + static_cast<int64_t>(key) * p.dk_row_stride + (kParts == 1 ? 0 : c0);
      Element* dv_row = dv + static_cast<int64_t>(key) * p.dv_row_stride + (kParts == 1 ? 0 : c0);
#pragma unroll
      for (int t = 0; t < kDTiles; ++t) {
        // n8 tiles past the call's head_dim (head_dim_v) are not dK's (dV's)
        const int col = (kParts == 1 ? 0 : c0) + t * 8;
        if (col < p.head_dim) {
          *reinterpret_cast<uint32_t*>(dk_row + t * 8 + tig * 2) =
              Traits::pack2(acc_dk[t][2 * h] * p.softmax_scale, acc_dk[t][2 * h + 1] * p.softmax_scale);
        }
        if (col < p.head_dim_v) {
          *reinterpret_cast<uint32_t*>(dv_row + t * 8 + tig * 2) =
              Traits::pack2(acc_dv[t][2 * h], acc_dv[t][2 * h + 1]);
        }
      }
    }
  }
}

}  // namespace bwd
}  // namespace flashcore
