// Hopper (sm_90a) attention backward main kernel on wgmma and the TMA (FlashAttention-3's
// backward, simplified). The preprocess (D = rowsum(dO o O) - dlse, dQ accumulator zeroed) and
// convert (dQ = dq_accum * scale) kernels are the sm80 backward's
// (kernels/sm80/bwd_row_kernels.cuh, through kernels/sm80/bwd_kernel.cuh); only the main kernel
// is new:
//   - one CTA per (128-key block, head, batch), launched in BwdBlockOrder's order (causal: the
//     heaviest key blocks of a few groups first); warpgroup 0 is the producer, warpgroups 1 and 2
//     are consumers owning 64 keys each;
//   - the producer's thread 0 loads K and V once and streams Q and dO of every query block
//     (block_m rows: 64 at head_dim 128, 128 at 64 -- tile_policy.h) that sees the keys through a
//     kStages-deep TMA + mbarrier pipeline (tma_pipeline.cuh);
//   - each consumer warpgroup keeps the block's lse (to the log2 domain; +inf for rows past
//     seqlen_q or that see no key, so P = 0 there) and D rows in its own double-buffered shared
//     rows, loaded into registers one block ahead and stored before waiting for Q and dO,
//     published by a 128-thread named barrier after its first GEMMs are issued. All generic
//     shared-memory traffic between threads is thus ordered by bar.sync (compute-sanitizer
//     racecheck runs on this kernel), not by mbarriers;
//   - per query block, each consumer computes with wgmma
//         S^T  = K Q^T          (SS, 64 keys x block_m queries)
//         dP^T = V dO^T         (SS)
//         P^T  = exp2(S^T * scale * log2 e - lse * log2 e)   (masked: causal, keys >= seqlen_k)
//         dS^T = P^T o (dP^T - D)
//         dV  += P^T dO         (RS: P^T from registers, dO MN-major from shared memory)
//         dK  += dS^T Q         (RS, Q MN-major)
//     and writes dS^T to shared memory (128-byte swizzled [keys][64 queries] tiles, double
//     buffered); dV and dK are issued before the 256-thread barrier that publishes both
//     consumers' dS^T, so they run while a consumer waits for the other; then
//     dQ_partial = dS K (SS, both operands MN-major) over all 128 keys, one 64 x 64 slice per
//     consumer (head_dim 128: dQ's column halves; head_dim 64: the block's two 64-row halves),
//     stored to a shared fp32 tile from which a dQ-writer warp of the producer warpgroup
//     reduce-adds it into dq_accum with the TMA (dq_writer.cuh) while the consumers go on --
//     once per (query block, key block); deterministic mode keeps the same fixed key-block order
//     per 64 query rows (one int32 semaphore each), waited for by the writer warp;
//   - dK (times the softmax scale) and dV are written straight from registers at the end.
// A head dim below kHeadDim (p.head_dim for Q and K, p.head_dim_v for V and dO: multiples of 8)
// is the tensor maps' innermost extent: the TMA zero-fills Q, dO, K and V past it, so S^T and dP^T
// are unchanged and dK, dV and the dQ slices are exact zeros there; the dK / dV stores stop at
// head_dim / head_dim_v, dq_accum keeps kHeadDim-wide rows (flash_bwd_api.h), and the preprocess
// (O, dO) and convert (dQ) kernels read and write head_dim_v and head_dim columns.
// Measured on the H100 (docs/results/2026-11-23-h100-dqwriter.md, eager backward, paper grid):
// 1.07-1.17x the atomic-dQ version before it, 0.98-1.39x torch flash (FA2), 0.72-0.86x cuDNN;
// the deterministic variant 0.79-0.99x of the default. Shared storage is addressed in the shared
// space (align_shared): through a generic pointer the lse / D loads and dS^T stores were LD.E /
// ST.E and d64 spilled; as LDS / STS the backward measured +17-27% (d64) and +4-9% (d128), with
// no spills (docs/results/2026-11-23-h100-smem-space.md). ptxas: 168 registers at launch.
// Included only by the generated sm90a backward instantiation TUs (kernels/defs.bzl).
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>

#include "kernels/flash_bwd_api.h"
#include "kernels/sm80/bwd_kernel.cuh"
#include "kernels/hopper/dq_writer.cuh"
#include "kernels/hopper/fwd_kernel.cuh"
#include "kernels/hopper/bwd_block_order.cuh"
#include "kernels/hopper/bwd_tensor_map.h"
#include "kernels/hopper/tensor_map.h"
#include "kernels/hopper/tile_policy.h"
#include "kernels/hopper/tma_pipeline.cuh"
#include "kernels/hopper/wgmma.cuh"

namespace flashcore {
namespace hopper {

template <class Element, int kHeadDim, int kBlockM, int kBlockN, int kStages>
struct BwdSharedStorage {
  // [kHeadDim / 64 column blocks][rows][64 elements] tiles, as the TMA box writes them.
  alignas(1024) Element k[kBlockN * kHeadDim];
  alignas(1024) Element v[kBlockN * kHeadDim];
  alignas(1024) Element q[kStages][kBlockM * kHeadDim];
  alignas(1024) Element dout[kStages][kBlockM * kHeadDim];
  // dS^T: [kBlockM / 64 query blocks][kBlockN keys][64 queries], one 128-byte swizzled row per
  // key; double-buffered so that block m + 1's dS^T can be written while the other consumer
  // still reads block m's.
  alignas(1024) Element ds[2][kBlockN * kBlockM];
  // fp32 dQ of one query block, both consumers' slices, for the dQ writer (dq_writer.cuh):
  // [kHeadDim / 32 boxes][kBlockM rows][32 floats], 128-byte swizzled. 32 KB at both head dims.
  alignas(1024) float dq[kBlockM * kHeadDim];
  float lse[2][2][kBlockM];   // [consumer][buffer]: lse * log2(e), +inf where P must be 0
  float dsum[2][2][kBlockM];  // [consumer][buffer]: D
  uint64_t kv_full;
  uint64_t full[kStages], empty[kStages];
  uint64_t aux;  // the producer's own wait for tiles it must patch (rows past packed data)
};

struct BwdTensorMaps {
  CUtensorMap q, dout;  // boxes of 64 rows
  CUtensorMap k, v;     // boxes of kBlockN rows
  CUtensorMap dq_accum;  // fp32, boxes of 32 columns x block_m rows (dq_writer.cuh)
};

template <class Traits, int kHeadDim, bool kCausal, bool kDeterministic>
__global__ void __launch_bounds__((bwd_tile_policy(kHeadDim).consumer_wgs + 1) * 128, 1)
    bwd_kernel(const __grid_constant__ BwdParams p, const __grid_constant__ BwdTensorMaps maps, BwdBlockOrder order) {
  using Element = typename Traits::Element;
  constexpr DType kDType = Traits::kDType;
  constexpr BwdTilePolicy kPolicy = bwd_tile_policy(kHeadDim);
  constexpr int kBlockM = kPolicy.block_m;
  constexpr int kBlockN = kPolicy.block_n;
  constexpr int kStages = kPolicy.stages;
  constexpr int kConsumerWarps = kPolicy.consumer_wgs * 4;
  constexpr int kDTiles = kHeadDim / 8;  // n8 groups of dK, dV
  constexpr int kQTiles = kBlockM / 8;   // n8 groups of S^T, dP^T (query columns)
  constexpr uint32_t kTileBytes = kBlockM * kHeadDim * sizeof(Element);
  constexpr uint32_t kKVBytes = kBlockN * kHeadDim * sizeof(Element);
  // dQ (kBlockM x kHeadDim over all kBlockN keys) in 64 x 64 slices, one per consumer: by
  // columns at head_dim 128 (64 query rows), by query rows at head_dim 64 (128 rows).
  constexpr bool kDqSplitsColumns = kHeadDim == 64 * kPolicy.consumer_wgs;
  static_assert(kDqSplitsColumns != (kBlockM == 64 * kPolicy.consumer_wgs), "exactly one 64 x 64 dQ slice per consumer");
  static_assert(kBlockM == 64 || kBlockM == 128, "S^T = K Q^T is m64n64 or m64n128");
  static_assert(kBlockN == 64 * kPolicy.consumer_wgs, "each consumer warpgroup owns 64 keys");
  static_assert(kPolicy.consumer_wgs == 2, "named barrier ids 1..4, lse / D rows and the dQ split assume two consumers");
  static_assert(kHeadDim == 64 || kHeadDim == 128, "head dim");
  using Smem = BwdSharedStorage<Element, kHeadDim, kBlockM, kBlockN, kStages>;

  extern __shared__ unsigned char smem_raw[];
  Smem& smem = *reinterpret_cast<Smem*>(align_shared<1024>(smem_raw));

  // Deterministic causal runs the key blocks in reverse launch order (see the dQ reduction below).
  int n_block, group_index;
  order.block_of(blockIdx.x, kDeterministic && kCausal, n_block, group_index);
  const int head_kv = group_index % p.heads_kv;  // GQA: the CTA walks every query head of this k/v head's group
  const int batch = group_index / p.heads_kv;
  const int group = p.heads / p.heads_kv;
  const int n0 = n_block * kBlockN;
  const bool varlen = p.cu_seqlens_q != nullptr;
  const int tma_batch = varlen ? 0 : batch;  // packed varlen: one TMA batch entry holds every row
  const SeqInfo seq(p, batch, p.seqlen_q, p.seqlen_k);
  const AttentionMask<kCausal> mask(seq, p);
  // The query blocks that see this key block (the window's), for each query head of the group:
  // steps i = 0 .. steps - 1 walk (head, block) head-major.
  int m_begin = 0, m_end = 0;
  if (n0 < seq.seqlen_k) mask.query_blocks(n0, kBlockN, kBlockM, m_begin, m_end);
  const int m_count = max(m_end - m_begin, 0);
  const int steps = m_count * group;
  auto step_head = [&](int i) { return head_kv * group + i / m_count; };
  auto step_block = [&](int i) { return m_begin + i % m_count; };
  // Rows of a query head in lse's layout (dsum and dq_accum's rows are laid out alike).
  auto stats_row0 = [&](int h) {
    return varlen ? static_cast<int64_t>(h) * p.total_q + seq.row0_q
                  : (static_cast<int64_t>(batch) * p.heads + h) * p.seqlen_q;
  };

  if (threadIdx.x == 0) {
    prefetch_tensor_map(&maps.q);
    prefetch_tensor_map(&maps.dout);
    prefetch_tensor_map(&maps.k);
    prefetch_tensor_map(&maps.v);
    prefetch_tensor_map(&maps.dq_accum);
    mbar_init(&smem.kv_full, 1);
    mbar_init(&smem.aux, 1);
#pragma unroll
    for (int s = 0; s < kStages; ++s) {
      mbar_init(&smem.full[s], 1);
      mbar_init(&smem.empty[s], kConsumerWarps);
    }
    mbar_init_fence();
  }
  __syncthreads();

  if (threadIdx.x / 128 == 0) {
    // ---------------------------------------------------------------- producer warpgroup
    warpgroup_reg_dealloc<kPolicy.producer_regs>();
    if (steps == 0) return;
    if (threadIdx.x / 32 == kDqWriterWarp) {
      // Deterministic: dQ rows [64 r, 64 r + 64) take their key blocks' additions in a fixed
      // order, counted by the int32 semaphore of row block r (zeroed by the preprocess kernel):
      // the key blocks that see query block m are a prefix 0..n_max(m) (m_begin grows with n).
      // Non-causal: ascending n, and a CTA waits only for CTAs of its head launched before it
      // (the launch order is group-major here: chunk_groups 1). Causal: descending n -- block
      // n's first query block is its diagonal one, where it is then the first to add, instead of
      // waiting for all lower key blocks to get there -- with n launched in reverse
      // (BwdBlockOrder) so that again only earlier-launched CTAs are waited for.
      const int sem_blocks = (p.seqlen_q + 63) / 64;
      run_dq_writer<kBlockM, kHeadDim, kDeterministic>(
          &maps.dq_accum, smem.dq, steps, threadIdx.x % 32, seq.seqlen_q, varlen ? seq.row0_q : 0, tma_batch,
          [&](int i, int& head, int& m) {
            head = step_head(i);
            m = step_block(i);
          },
          [&](int i) {
            int n_first, n_end;  // the key blocks that see query block m (the window's)
            mask.key_blocks(step_block(i) * kBlockM, kBlockM, kBlockN, n_first, n_end);
            return kCausal ? n_end - 1 - n_block : n_block - n_first;
          },
          [&](int head, int row_block) {
            return p.dq_semaphore + (static_cast<int64_t>(batch) * p.heads + head) * sem_blocks + row_block;
          });
      return;
    }
    if (threadIdx.x != 0) return;
    // Packed varlen: rows past a sequence -- the next sequence's, or past the packed data -- may
    // hold anything, NaN included, and 0 * NaN is NaN in every product here (dV += P^T dO,
    // dK += dS^T Q, dQ += dS K): a tile reaching past its sequence is loaded on the aux barrier,
    // those rows zeroed, and only then published, so a NaN stays in its own sequence.
    uint32_t aux_parity = 0;
    // Rows are 128-byte lines per 64-column block (the swizzle permutes within a line).
    auto zero_rows = [&](Element* tile, int rows, int from) {
      unsigned char* bytes = reinterpret_cast<unsigned char*>(tile);
      for (int cb = 0; cb < kHeadDim / 64; ++cb) {
        for (int r = max(from, 0); r < rows; ++r) {
          uint4* line = reinterpret_cast<uint4*>(bytes + (cb * rows + r) * 128);
#pragma unroll
          for (int c = 0; c < 8; ++c) line[c] = make_uint4(0u, 0u, 0u, 0u);
        }
      }
    };
    const int k_row0 = seq.row0_k + n0;
    const int k_rows_in_seq = seq.seqlen_k - n0;  // rows of this key block inside the sequence
    // (Dense with seqused_k too: keys past the used prefix are in the tensor and may hold anything.)
    const bool patch_kv = (varlen || p.seqused_k != nullptr) && k_rows_in_seq < kBlockN;
    uint64_t* kv_bar = patch_kv ? &smem.aux : &smem.kv_full;
    mbar_arrive_expect_tx(kv_bar, 2 * kKVBytes);
    load_tile<kHeadDim, kBlockN>(&maps.k, smem.k, kv_bar, k_row0, head_kv, tma_batch);
    load_tile<kHeadDim, kBlockN>(&maps.v, smem.v, kv_bar, k_row0, head_kv, tma_batch);
    if (patch_kv) {
      mbar_wait(&smem.aux, aux_parity);
      aux_parity ^= 1;
      zero_rows(smem.k, kBlockN, k_rows_in_seq);
      zero_rows(smem.v, kBlockN, k_rows_in_seq);
      fence_view_async_shared();  // the zeros, before the consumers' wgmma (async proxy) reads
      mbar_arrive(&smem.kv_full);
    }
    PipelineState<kStages> st;
    for (int i = 0; i < steps; ++i, ++st.count) {
      const int s = st.stage();
      const int h = step_head(i);
      const int q_row0 = seq.row0_q + step_block(i) * kBlockM;
      const int q_rows_in_seq = seq.seqlen_q - step_block(i) * kBlockM;
      const bool patch = varlen && q_rows_in_seq < kBlockM;
      uint64_t* bar = patch ? &smem.aux : &smem.full[s];
      mbar_wait(&smem.empty[s], st.parity() ^ 1);
      mbar_arrive_expect_tx(bar, 2 * kTileBytes);
      load_tile<kHeadDim, kBlockM>(&maps.q, smem.q[s], bar, q_row0, h, tma_batch);
      load_tile<kHeadDim, kBlockM>(&maps.dout, smem.dout[s], bar, q_row0, h, tma_batch);
      if (patch) {
        mbar_wait(&smem.aux, aux_parity);
        aux_parity ^= 1;
        zero_rows(smem.q[s], kBlockM, q_rows_in_seq);
        zero_rows(smem.dout[s], kBlockM, q_rows_in_seq);
        fence_view_async_shared();
        mbar_arrive(&smem.full[s]);
      }
    }
    return;
  }

  // ------------------------------------------------------------------ consumer warpgroups
  warpgroup_reg_alloc<kPolicy.consumer_regs>();
  const int cwg = threadIdx.x / 128 - 1;  // keys [n0 + 64 * cwg, +64)
  const int warp = (threadIdx.x / 32) % 4;
  const int lane = threadIdx.x % 32;
  const int kn0 = n0 + cwg * 64;
  const int key_row = warp * 16 + lane / 4;  // this thread's keys: kn0 + key_row (+ 8)
  const float scale_log2 = softmax_scale_log2(p, p.softmax_scale);
  const float scale_over_softcap = p.softcap > 0.f ? p.softmax_scale / p.softcap : 0.f;
  // dQ slice of this consumer: query rows [dq_row0, +64) of the block, columns [dq_col0, +64).
  const int dq_row0 = kDqSplitsColumns ? 0 : cwg * 64;
  const int dq_col0 = kDqSplitsColumns ? cwg * 64 : 0;

  float dk[kDTiles * 4];
  float dv[kDTiles * 4];
#pragma unroll
  for (int i = 0; i < kDTiles * 4; ++i) dk[i] = dv[i] = 0.f;

  if (steps > 0) {
    mbar_wait(&smem.kv_full, 0);
    // lse / D rows of a query block: slots 0 .. kBlockM - 1 are lse rows, kBlockM .. 2 kBlockM - 1
    // D rows; thread t of the warpgroup owns slots t, t + 128, ... Block m + 1's are loaded into
    // registers during block m, so the global-load latency is not waited for at the barrier.
    constexpr int kStatSlots = 2 * kBlockM / 128;
    static_assert(kStatSlots * 128 == 2 * kBlockM, "lse + D rows of a block are a multiple of 128");
    auto load_stats = [&](int step, float(&v)[kStatSlots]) {
      const int64_t row0 = stats_row0(step_head(step));
      const int m = step_block(step);
#pragma unroll
      for (int i = 0; i < kStatSlots; ++i) {
        const int slot = threadIdx.x % 128 + 128 * i;
        const bool is_lse = slot < kBlockM;
        const int query = m * kBlockM + (is_lse ? slot : slot - kBlockM);
        v[i] = query < seq.seqlen_q ? __ldg((is_lse ? p.lse : p.dsum) + row0 + query) : (is_lse ? -INFINITY : 0.f);
      }
    };
    float stats[kStatSlots];
    load_stats(0, stats);
    PipelineState<kStages> st;
    for (int step = 0; step < steps; ++step, ++st.count) {
      const int s = st.stage();
      const int m = step_block(step);
      const int m0 = m * kBlockM;
      // lse / D rows into buffer `buf` (last read in block m - 2: every thread of this warpgroup
      // has passed block m - 1's barrier 3 + cwg since). lse goes to the log2 domain, +inf for
      // rows past seqlen_q or that see no key (-inf), so P = 0 there.
      const int buf = st.count & 1;
#pragma unroll
      for (int i = 0; i < kStatSlots; ++i) {
        const int slot = threadIdx.x % 128 + 128 * i;
        if (slot < kBlockM) {
          smem.lse[cwg][buf][slot] = bwd::lse_log2(stats[i]);
        } else {
          smem.dsum[cwg][buf][slot - kBlockM] = stats[i];
        }
      }
      if (step + 1 < steps) load_stats(step + 1, stats);
      mbar_wait(&smem.full[s], st.parity());

      // S^T = K Q^T and dP^T = V dO^T, two commit groups.
      float sacc[kQTiles * 4];
      float dpacc[kQTiles * 4];
      wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < kHeadDim / 16; ++kk) {
        wgmma_ss<kBlockM, kDType>(sacc, kmajor_desc<kBlockN>(smem.k, cwg * 64, kk), kmajor_desc<kBlockM>(smem.q[s], 0, kk),
                             kk > 0 ? 1 : 0);
      }
      wgmma_commit();
#pragma unroll
      for (int kk = 0; kk < kHeadDim / 16; ++kk) {
        wgmma_ss<kBlockM, kDType>(dpacc, kmajor_desc<kBlockN>(smem.v, cwg * 64, kk),
                             kmajor_desc<kBlockM>(smem.dout[s], 0, kk), kk > 0 ? 1 : 0);
      }
      wgmma_commit();

      named_barrier_sync(3 + cwg, 128);  // this warpgroup's lse / D rows are written

      // P^T while dP^T is in flight. Element 4t + 2h + e: key kn0 + key_row + 8h, query
      // m0 + 8t + 2 (lane % 4) + e.
      wgmma_wait<1>();
      fence_operands(sacc);
      if (p.softcap > 0.f) softcap_scores(sacc, scale_over_softcap);  // S^T becomes tanh(...)
#pragma unroll
      for (int t = 0; t < kQTiles; ++t) {
        const float2 l = *reinterpret_cast<const float2*>(&smem.lse[cwg][buf][8 * t + 2 * (lane % 4)]);
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          sacc[4 * t + 2 * h] = exp2_approx(sacc[4 * t + 2 * h] * scale_log2 - l.x);
          sacc[4 * t + 2 * h + 1] = exp2_approx(sacc[4 * t + 2 * h + 1] * scale_log2 - l.y);
        }
      }
      // Keys past seqlen_k (zero-filled K: P would be exp2(-lse), not 0) and keys outside a row's
      // window. Query rows past seqlen_q have lse = +inf, so P = 0 there already.
      if (mask.block_needs_mask(m0, kBlockM, kn0, 64)) {
#pragma unroll
        for (int t = 0; t < kQTiles; ++t) {
#pragma unroll
          for (int h = 0; h < 2; ++h) {
#pragma unroll
            for (int e = 0; e < 2; ++e) {
              const int key = kn0 + key_row + 8 * h;
              const int query = m0 + 8 * t + 2 * (lane % 4) + e;
              const KeyRange keys = mask.keys_of_row(query);
              if (key < keys.lo || key >= keys.hi) sacc[4 * t + 2 * h + e] = 0.f;
            }
          }
        }
      }
      wgmma_wait<0>();
      fence_operands(dpacc);
      // dS^T = P^T o (dP^T - D), in dpacc.
#pragma unroll
      for (int t = 0; t < kQTiles; ++t) {
        const float2 d = *reinterpret_cast<const float2*>(&smem.dsum[cwg][buf][8 * t + 2 * (lane % 4)]);
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          dpacc[4 * t + 2 * h] = sacc[4 * t + 2 * h] * (dpacc[4 * t + 2 * h] - d.x);
          dpacc[4 * t + 2 * h + 1] = sacc[4 * t + 2 * h + 1] * (dpacc[4 * t + 2 * h + 1] - d.y);
        }
      }
      if (p.softcap > 0.f) {
        // Softcap's derivative 1 - tanh^2, tanh recovered from P = exp2(tanh * scale_log2 - lse):
        // no registers held for it across the dP wait. P = 0 (masked, or underflowed) has dS = 0.
        const float inv_scale_log2 = reciprocal_here(scale_log2);
#pragma unroll
        for (int t = 0; t < kQTiles; ++t) {
          const float2 l = *reinterpret_cast<const float2*>(&smem.lse[cwg][buf][8 * t + 2 * (lane % 4)]);
#pragma unroll
          for (int i = 0; i < 4; ++i) {
            const float prob = sacc[4 * t + i];
            const float th = (__log2f(prob) + (i % 2 == 0 ? l.x : l.y)) * inv_scale_log2;
            dpacc[4 * t + i] = prob > 0.f ? dpacc[4 * t + i] * (1.f - th * th) : 0.f;
          }
        }
      }
      // A fragments (k16 steps over the queries; n8 groups 2kk, 2kk + 1 -> m16k16 layout).
      uint32_t pf[kBlockM / 16][4];
      uint32_t dsf[kBlockM / 16][4];
#pragma unroll
      for (int kk = 0; kk < kBlockM / 16; ++kk) {
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          pf[kk][j] = Traits::pack2(sacc[8 * kk + 2 * j], sacc[8 * kk + 2 * j + 1]);
          dsf[kk][j] = Traits::pack2(dpacc[8 * kk + 2 * j], dpacc[8 * kk + 2 * j + 1]);
        }
      }
      // dS^T into this block's buffer, swizzled as the TMA would write [keys][64] tiles (one per
      // 64 queries): group t, half h of this thread is dsf[t / 2][2 * (t % 2) + h].
      unsigned char* ds_tile = reinterpret_cast<unsigned char*>(smem.ds[buf]);
#pragma unroll
      for (int t = 0; t < kQTiles; ++t) {
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int r = cwg * 64 + key_row + 8 * h;
          *reinterpret_cast<uint32_t*>(ds_tile + (t / 8) * (kBlockN * 128) + r * 128 + ((((t % 8) ^ (r % 8))) * 16) +
                                       (lane % 4) * 4) = dsf[t / 2][2 * (t % 2) + h];
        }
      }
      fence_view_async_shared();

      // dV += P^T dO, dK += dS^T Q (one group, from this warpgroup's registers: issued before the
      // barrier so that they run while it waits for the other consumer), then dQ_partial = dS K
      // (another group, after the barrier: it reads both consumers' dS^T rows).
      wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < kBlockM / 16; ++kk) {
        wgmma_rs<kHeadDim, kDType>(dv, pf[kk], v_desc<kBlockM>(smem.dout[s], kk), 1);
      }
#pragma unroll
      for (int kk = 0; kk < kBlockM / 16; ++kk) {
        wgmma_rs<kHeadDim, kDType>(dk, dsf[kk], v_desc<kBlockM>(smem.q[s], kk), 1);
      }
      wgmma_commit();
      named_barrier_sync(1, 128 * kPolicy.consumer_wgs);  // both consumers' dS^T rows are written
      float dq[32];
#pragma unroll
      for (int kk = 0; kk < kBlockN / 16; ++kk) {
        // A = dS (64 queries x 16 keys) read from dS^T rows: MN-major, like v_desc's B; query
        // block dq_row0 / 64 of the dS^T buffer.
        const uint64_t a =
            smem_desc_sw128(smem_u32(ds_tile) + (dq_row0 / 64) * (kBlockN * 128) + 16 * kk * 128, kBlockN * 128, 1024);
        // B = K (16 keys x 64 columns), MN-major: column block dq_col0 / 64 of the K tile.
        const uint64_t b =
            smem_desc_sw128(smem_u32(smem.k) + (dq_col0 / 64) * (kBlockN * 128) + 16 * kk * 128, kBlockN * 128, 1024);
        wgmma_ss<64, kDType, 1, 1>(dq, a, b, kk > 0 ? 1 : 0);
      }
      wgmma_commit();
      wgmma_wait<1>();
      fence_operands(dv);
      fence_operands(dk);
      fence_operands(pf);
      fence_operands(dsf);
      __syncwarp();
      if (lane == 0) mbar_arrive(&smem.empty[s]);  // Q, dO of stage s are read
      wgmma_wait<0>();
      fence_operands(dq);
      // dQ slice to the writer's tile (dq_writer.cuh): wide shared stores, no global atomics here.
      named_barrier_sync(kDqEmptyBarrier, kDqBarrierThreads);
      store_dq_slice<kBlockM>(smem.dq, dq, dq_row0, dq_col0, warp, lane, seq.seqlen_q - m0);
      fence_view_async_shared();  // generic stores, read next by the TMA (async proxy)
      named_barrier_arrive(kDqFullBarrier, kDqBarrierThreads);
    }
  }

  // Epilogue: dK (times the softmax scale) and dV of this thread's keys, summed over the group's
  // query heads; keys no query sees get 0.
  Element* dk_base = static_cast<Element*>(p.dk) + batch * p.dk_batch_stride + head_kv * p.dk_head_stride;
  Element* dv_base = static_cast<Element*>(p.dv) + batch * p.dv_batch_stride + head_kv * p.dv_head_stride;
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int key = kn0 + key_row + 8 * h;
    if (key < seq.seqlen_k) {
      Element* dk_row = dk_base + static_cast<int64_t>(seq.row0_k + key) * p.dk_row_stride;
      Element* dv_row = dv_base + static_cast<int64_t>(seq.row0_k + key) * p.dv_row_stride;
#pragma unroll
      for (int t = 0; t < kDTiles; ++t) {
        // n8 groups past the call's head_dim (head_dim_v) are not dK's (dV's)
        if (8 * t < p.head_dim) {
          *reinterpret_cast<uint32_t*>(dk_row + 8 * t + 2 * (lane % 4)) =
              Traits::pack2(dk[4 * t + 2 * h] * p.softmax_scale, dk[4 * t + 2 * h + 1] * p.softmax_scale);
        }
        if (8 * t < p.head_dim_v) {
          *reinterpret_cast<uint32_t*>(dv_row + 8 * t + 2 * (lane % 4)) =
              Traits::pack2(dv[4 * t + 2 * h], dv[4 * t + 2 * h + 1]);
        }
      }
    }
  }
}

template <DType kDType, int kHeadDim, bool kCausal, bool kDeterministic>
cudaError_t launch_bwd_wgmma(const BwdParams& p, cudaStream_t stream) {
  using Traits = typename TraitsFor<kDType>::type;
  using Element = typename Traits::Element;
  constexpr BwdTilePolicy kPolicy = bwd_tile_policy(kHeadDim);
  constexpr int kThreads = (kPolicy.consumer_wgs + 1) * 128;
  constexpr size_t kSmemBytes =
      sizeof(BwdSharedStorage<Element, kHeadDim, kPolicy.block_m, kPolicy.block_n, kPolicy.stages>) + 1024;
  if (!head_dims_run_on(p.head_dim, p.head_dim_v, kHeadDim)) return cudaErrorInvalidValue;
  if (p.batch <= 0 || p.heads <= 0 || p.seqlen_q <= 0 || p.seqlen_k <= 0) return cudaErrorInvalidValue;
  if (p.heads > 65535 || p.batch > 65535) return cudaErrorInvalidConfiguration;
  if (p.dsum == nullptr || p.dq_accum == nullptr) return cudaErrorInvalidValue;
  if (p.heads_kv <= 0 || p.heads % p.heads_kv != 0) return cudaErrorInvalidValue;
  // Deterministic: one semaphore per 64 query rows (kBwdBlockM, the layout the preprocess zeroes).
  static_assert(kBwdBlockM == 64, "the dQ semaphores count 64-row blocks");
  if (kDeterministic && (p.dq_semaphore == nullptr ||
                         p.dq_semaphore_count < static_cast<int64_t>((p.seqlen_q + 63) / 64) * p.batch * p.heads)) {
    return cudaErrorInvalidValue;
  }
  const int64_t rows = bwd::rows_of_stats(p);
  const int64_t row_blocks = (rows + 3) / 4;
  if (row_blocks > 0x7fffffff) return cudaErrorInvalidConfiguration;

  BwdTensorMaps maps;
  const TmaLayout t(p, p.batch, p.seqlen_q, p.seqlen_k);
  cudaError_t err = make_bshd_tensor_maps(
      {{&maps.q, p.q, t.rows_q, p.heads, t.batch_stride(p.q_batch_stride, p.q_row_stride, t.rows_q), p.q_row_stride,
        p.q_head_stride, kPolicy.block_m, p.head_dim},
       {&maps.dout, p.dout, t.rows_q, p.heads, t.batch_stride(p.do_batch_stride, p.do_row_stride, t.rows_q),
        p.do_row_stride, p.do_head_stride, kPolicy.block_m, p.head_dim_v},
       {&maps.k, p.k, t.rows_k, p.heads_kv, t.batch_stride(p.k_batch_stride, p.k_row_stride, t.rows_k),
        p.k_row_stride, p.k_head_stride, kPolicy.block_n, p.head_dim},
       {&maps.v, p.v, t.rows_k, p.heads_kv, t.batch_stride(p.v_batch_stride, p.v_row_stride, t.rows_k),
        p.v_row_stride, p.v_head_stride, kPolicy.block_n, p.head_dim_v}},
      kDType, t.batch);
  // dq_accum: (batch, heads, seqlen_q, kHeadDim) dense, (heads, total_q, kHeadDim) packed -- the
  // rows of lse's layout, kHeadDim wide at every head dim (flash_bwd_api.h); the map's row bound
  // clips the TMA's reduce-adds there.
  if (err == cudaSuccess) {
    err = make_f32_rows_tensor_map(&maps.dq_accum, p.dq_accum, kHeadDim, t.rows_q, p.heads, t.batch, kPolicy.block_m);
  }
  // A layout the TMA cannot describe: the mma.sync kernel reads any 16-byte-row layout.
  if (err != cudaSuccess || bwd::sm90_mma_sync_requested()) {
    return flashcore::launch_bwd<Arch::kSm90a, kDType, kHeadDim, kCausal>(p, stream);
  }

  constexpr auto kernel = &bwd_kernel<Traits, kHeadDim, kCausal, kDeterministic>;
  err = ensure_dynamic_smem<kernel>(kSmemBytes);
  if (err != cudaSuccess) return err;

  // One CTA per (key block, k/v head, batch), in a 1-D grid ordered by BwdBlockOrder.
  BwdBlockOrder order;
  order.n_blocks = (p.seqlen_k + kPolicy.block_n - 1) / kPolicy.block_n;
  const int64_t groups = static_cast<int64_t>(p.heads_kv) * p.batch;
  const int64_t grid = order.n_blocks * groups;
  if (grid > 0x7fffffff) return cudaErrorInvalidConfiguration;
  order.groups = static_cast<int>(groups);
  int sm_count = 0;
  err = multiprocessor_count(&sm_count);
  if (err != cudaSuccess) return err;
  // Q and dO of one group: its query heads' rows, kHeadDim wide (the tiles the TMA brings in).
  const int64_t group_qdo_bytes =
      static_cast<int64_t>(p.heads / p.heads_kv) * p.seqlen_q * kHeadDim * 2 * sizeof(Element);
  order.chunk_groups =
      kDeterministic ? 1 : bwd_chunk_groups(kCausal, order.n_blocks, order.groups, sm_count, group_qdo_bytes);

  BwdParams params = p;
  if (!kDeterministic) params.dq_semaphore = nullptr;
  bwd::bwd_preprocess_kernel<Arch::kSm90a, Traits, kHeadDim><<<static_cast<unsigned>(row_blocks), 128, 0, stream>>>(params);
  err = cudaGetLastError();
  if (err != cudaSuccess) return err;
  kernel<<<static_cast<unsigned>(grid), kThreads, kSmemBytes, stream>>>(params, maps, order);
  err = cudaGetLastError();
  if (err != cudaSuccess) return err;
  bwd::bwd_convert_dq_kernel<Arch::kSm90a, Traits, kHeadDim><<<static_cast<unsigned>(row_blocks), 128, 0, stream>>>(params);
  return cudaGetLastError();
}

// The sm90a backward launcher registered for (dtype, head_dim, causal): the wgmma kernel, with
// dQ by atomics or, deterministic, in a fixed key-block order. Head dims above 128 (256: every
// multiple of 8 in 136..256) run the mma.sync kernel (kernels/sm80/bwd_kernel.cuh, two column
// parts per key block, kernels/sm80/bwd_tile_policy.h); the wgmma kernel is not instantiated there
// (its policy and shared storage are for 64 and 128 only).
template <DType kDType, int kHeadDim, bool kCausal>
cudaError_t launch_bwd(const BwdParams& p, cudaStream_t stream) {
  if constexpr (kHeadDim > 128) {
    return flashcore::launch_bwd<Arch::kSm90a, kDType, kHeadDim, kCausal>(p, stream);
  } else {
    if (p.deterministic) return launch_bwd_wgmma<kDType, kHeadDim, kCausal, true>(p, stream);
    return launch_bwd_wgmma<kDType, kHeadDim, kCausal, false>(p, stream);
  }
}

}  // namespace hopper
}  // namespace flashcore
