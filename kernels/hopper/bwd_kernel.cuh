// Hopper (sm_90a) attention backward main kernel on wgmma and the TMA, head dims 64, 96 and 128
// (FlashAttention-3's backward, simplified). The preprocess (D = rowsum(dO o O) - dlse, dQ
// accumulator zeroed) and convert (dQ = dq_accum * scale) kernels are the sm80 backward's
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
//     and writes dS^T to shared memory by stmatrix (128-byte swizzled [keys][64 queries] tiles,
//     double buffered); dV is issued before the 256-thread barrier that publishes both
//     consumers' dS^T, so it runs while a consumer waits for the other; after it
//     dQ_partial = dS K (SS, both operands MN-major) over all 128 keys, one 64 x 64 slice per
//     consumer (head_dim 128: dQ's column halves; head_dim 64: the block's two 64-row halves;
//     bwd_cta.cuh dq_tile_slice), then dK; while dK runs the slice is stored to a shared fp32
//     tile from which a dQ-writer warp of the producer warpgroup reduce-adds it into dq_accum
//     with the TMA (dq_writer.cuh, one barrier pair per slice) -- once per (query block, key
//     block); deterministic mode keeps the same fixed key-block order per 64 query rows (one
//     int32 semaphore each), waited for by the writer warp;
//   - head dim 96 issues a step's S^T and dP^T before waiting for the step before's dK
//     (tile_policy.h bwd_scores_ahead), so the tensor pipe runs from one into the other;
//   - the default backward at head dims 64 and 96 (tile_policy.h bwd_dq_lagged; 128's below)
//     issues a step's dQ GEMM for the step before, from the other dS^T buffer, after a barrier
//     pair per buffer and direction (ds_written_barrier / ds_read_barrier) instead of the
//     256-thread barrier, and starts consumer 1 half a step behind consumer 0, so that one's P^T /
//     dS^T run beside the other's GEMMs; a step's dS^T stores are published after the dQ slice's
//     proxy fence, which covers both; the last step's dQ follows the loop;
//   - dK (times the softmax scale) and dV are written at the end, through the K / V tiles' shared
//     memory (bwd_cta.cuh store_dk_dv).
// Head dim 128 takes 80-row query blocks (tile_policy.h bwd_tile_policy): S^T and
// dP^T are m64n80, dS goes to one shared buffer as [key block][80 queries][64 keys] by
// stmatrix.trans, and dQ is computed transposed, dQ^T = K^T dS^T (m64n80, this consumer's 64
// columns), into the same dQ-writer tile (dq_writer.cuh store_dq_slice_transposed); dK (from dS^T's
// registers) is issued alone before the dS barrier and waited for before the dQ^T GEMM, and dV
// (from P^T's registers) behind dQ^T, so that the dQ^T slice is stored while dV runs (tile_policy.h);
// barriers 9 / 10 say a consumer's dQ^T GEMM has read the dS buffer, before the other overwrites its half.
// Its default backward lags dQ^T as head dim 64 lags dQ (tile_policy.h bwd_dq_lagged), on a second
// dS buffer, with consumer 0 writing the lse / D rows for both (BwdSharedStorage::kSharedStats):
// a step issues dK, waits for the other consumer's dS of the step before, stores its own dS, then
// runs the step before's dQ^T with dV behind it.
// A head dim below kHeadDim (p.head_dim for Q and K, p.head_dim_v for V and dO: multiples of 8)
// is the tensor maps' innermost extent: the TMA zero-fills Q, dO, K and V past it, so S^T and dP^T
// are unchanged (the 96 kernel skips their last k16 slice where it is all zeros: tile_policy.h
// bwd_scores_skip_zero_slice) and dK, dV and the dQ slices are exact zeros there; the dK / dV
// stores stop at head_dim / head_dim_v, dq_accum keeps kHeadDim-wide rows (flash_bwd_api.h), and
// the preprocess (O, dO) and convert (dQ) kernels read and write head_dim_v and head_dim columns.
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
#include <type_traits>

#include "kernels/flash_bwd_api.h"
#include "kernels/sm80/bwd_kernel.cuh"  // first: the backward primitives (bwd::) the Hopper headers use
#include "kernels/hopper/bwd_cta.cuh"
#include "kernels/hopper/bwd_scores.cuh"
#include "kernels/hopper/dq_writer.cuh"
#include "kernels/hopper/smem_tile.cuh"
#include "kernels/hopper/tile_policy.h"
#include "kernels/hopper/tma_pipeline.cuh"
#include "kernels/hopper/wgmma.cuh"

namespace flashcore {
namespace hopper {

template <class Element, int kHeadDim, int kBlockM, int kBlockN, int kStages, bool kDqLagged>
struct BwdSharedStorage {
  // [column blocks][rows][one swizzled row: 64 elements, 32 at head dim 96] tiles, as the TMA box
  // writes them (tile_swizzle_bytes).
  alignas(1024) Element k[kBlockN * kHeadDim];
  alignas(1024) Element v[kBlockN * kHeadDim];
  alignas(1024) Element q[kStages][kBlockM * kHeadDim];
  alignas(1024) Element dout[kStages][kBlockM * kHeadDim];
  // dS^T: [kBlockM / 64 query blocks][kBlockN keys][64 queries], one 128-byte swizzled row per
  // key; double-buffered so that block m + 1's dS^T can be written while the other consumer
  // still reads block m's. The 80-row tile (dQ transposed, tile_policy.h): dS as [kBlockN / 64
  // key blocks][kBlockM queries][64 keys] (the K-major B of dQ^T = K^T dS^T), one buffer, two with
  // the lagged dQ (tile_policy.h bwd_dq_lagged).
  static constexpr int kDsBuffers = kBlockM % 64 == 0 || kDqLagged ? 2 : 1;
  // The 80-row tile's second dS buffer leaves no room for a copy of the lse / D rows per consumer
  // (both consumers take the same query block's): with the lagged dQ consumer 0 writes them for both.
  static constexpr bool kSharedStats = kBlockM % 64 != 0 && kDqLagged;
  static constexpr int kStatCopies = kSharedStats ? 1 : 2;
  alignas(1024) Element ds[kDsBuffers][kBlockN * kBlockM];
  // fp32 dQ of one query block, both consumers' slices, for the dQ writer (dq_writer.cuh):
  // [kHeadDim / 32 boxes][kBlockM rows][32 floats], 128-byte swizzled. 32 KB at 64 and 128.
  alignas(1024) float dq[kBlockM * kHeadDim];
  // [consumer, or the one shared copy][buffer]:
  float lse[kStatCopies][2][kBlockM];     // lse * log2(e), +inf where P must be 0
  float dsum[kStatCopies][2][kBlockM];    // D
  float p_sink[kStatCopies][2][kBlockM];  // exp(sink - lse), with a sink's gradient to take
  uint64_t kv_full;
  uint64_t full[kStages], empty[kStages];
  uint64_t aux;  // the producer's own wait for tiles it must patch (rows past packed data)
};

// S^T = K Q^T and dP^T = V dO^T of a consumer's 64 keys against one Q / dO stage, two commit groups.
// qk_last / v_last: whether the last k16 slice of Q and K / of V and dO holds any of the call's
// columns (tile_policy.h bwd_scores_skip_zero_slice; true wherever the kernel does not skip it).
template <DType kDType, int kHeadDim, int kBlockM, int kBlockN, int kSwizzle, class Element>
__device__ __forceinline__ void issue_bwd_scores(float (&sacc)[kBlockM / 2], float (&dpacc)[kBlockM / 2],
                                                 const Element* k, const Element* v, const Element* q,
                                                 const Element* dout, int cwg, bool qk_last, bool v_last) {
  wgmma_fence();
#pragma unroll
  for (int kk = 0; kk < kHeadDim / 16; ++kk) {
    if (kk + 1 < kHeadDim / 16 || qk_last) {
      wgmma_ss<kBlockM, kDType>(sacc, kmajor_desc<kBlockN, kSwizzle>(k, cwg * 64, kk),
                                kmajor_desc<kBlockM, kSwizzle>(q, 0, kk), kk > 0 ? 1 : 0);
    }
  }
  wgmma_commit();
#pragma unroll
  for (int kk = 0; kk < kHeadDim / 16; ++kk) {
    if (kk + 1 < kHeadDim / 16 || v_last) {
      wgmma_ss<kBlockM, kDType>(dpacc, kmajor_desc<kBlockN, kSwizzle>(v, cwg * 64, kk),
                                kmajor_desc<kBlockM, kSwizzle>(dout, 0, kk), kk > 0 ? 1 : 0);
    }
  }
  wgmma_commit();
}

// dV += P^T dO, P^T from registers (its A fragments, k16 steps over the queries) and dO MN-major
// from one dO stage, one commit group.
template <DType kDType, int kHeadDim, int kBlockM, int kSwizzle, class Element>
__device__ __forceinline__ void issue_bwd_dv(float (&dv)[kHeadDim / 2], const uint32_t (&pf)[kBlockM / 16][4],
                                             const Element* dout) {
#pragma unroll
  for (int kk = 0; kk < kBlockM / 16; ++kk) {
    wgmma_rs<kHeadDim, kDType>(dv, pf[kk], v_desc<kBlockM, kSwizzle>(dout, kk), 1);
  }
  wgmma_commit();
}

// dK += dS^T Q, dS^T from registers (its A fragments, k16 steps over the queries) and Q MN-major
// from one Q stage, one commit group.
template <DType kDType, int kHeadDim, int kBlockM, int kSwizzle, class Element>
__device__ __forceinline__ void issue_bwd_dk(float (&dk)[kHeadDim / 2], const uint32_t (&dsf)[kBlockM / 16][4],
                                             const Element* q) {
#pragma unroll
  for (int kk = 0; kk < kBlockM / 16; ++kk) {
    wgmma_rs<kHeadDim, kDType>(dk, dsf[kk], v_desc<kBlockM, kSwizzle>(q, kk), 1);
  }
  wgmma_commit();
}

// The lagged dQ's named barriers (tile_policy.h bwd_dq_lagged; dq_writer.cuh lists the others):
// consumer c has written dS^T buffer b (2, 9, 10, 11), its dQ GEMM has read buffer b (12 .. 15).
// 9 / 10 are the 80-row tile's, which never lags (one dS buffer).
__device__ __forceinline__ int ds_written_barrier(int consumer, int buf) {
  const int i = 2 * consumer + buf;
  return i == 0 ? 2 : 8 + i;
}
__device__ __forceinline__ int ds_read_barrier(int consumer, int buf) { return 12 + 2 * consumer + buf; }
// The 80-row tile's lagged dQ, which has no read barriers: consumer 0 has written the shared lse /
// D rows of buffer b (12, 13).
__device__ __forceinline__ int stats_barrier(int buf) { return 12 + buf; }

template <class Traits, int kHeadDim, bool kCausal, bool kDeterministic, bool kSinkGrad, bool kPackedSoftcap>
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
  // Shared tiles: 128-byte swizzled rows of 64 columns, 64-byte ones of 32 at head dim 96 (whose
  // K-major k16 steps and MN-major N = 96 need whole swizzle atoms: smem_tile.cuh).
  constexpr int kSwizzle = tile_swizzle_bytes(kHeadDim);
  constexpr int kTileCols = kSwizzle / 2;
  // dQ (kBlockM x kHeadDim over all kBlockN keys) in one slice per consumer:
  //   head_dim 64: by query rows (128 rows: 64 x 64 each);
  //   head_dim 128: by columns (64 query rows: 64 x 64 each);
  //   head_dim 96: by columns, 64 + 32 (a slice must be whole 32-column swizzle atoms of K), the
  //     64-column one alternating between the consumers block by block. (H100, measured while
  //     ptxas still serialized this kernel's wgmma -- see warpgroup_index: a static split and a
  //     split by keys, each consumer's 64 keys x 96 columns into its own tile, both reduce-added,
  //     ran the same; docs/results/2026-11-24-h100-hd96-bwd.md. Not re-measured since.)
  //   head_dim 128 with 80-row blocks: dQ^T = K^T dS^T by columns (64 x 80 each).
  constexpr bool kDqSplitsRows = kBlockM == 64 * kPolicy.consumer_wgs;
  constexpr bool kDqTransposed = bwd_dq_transposed(kPolicy);
  // kDqLagged (tile_policy.h bwd_dq_lagged): a step's dQ GEMM is the step before's, from the other
  // dS^T buffer, so a consumer waits for the other's dS^T of the step before, not of this step.
  constexpr bool kDqLagged = bwd_dq_lagged(kHeadDim, kDeterministic);
  // The 80-row tile's lagged dQ: no "read" barriers (ds_read_barrier); a consumer waits for the
  // other's dS of the step before (which that consumer publishes after its dQ^T GEMM of two steps
  // before has read this step's buffer) before writing its own, and consumer 0 writes the shared
  // lse / D rows for both (Smem::kSharedStats), published to consumer 1 by stats_barrier.
  constexpr bool kLaggedTransposed = kDqLagged && kDqTransposed;
  static_assert(kDqSplitsRows ? kHeadDim == 64 : (kHeadDim == 128 || kHeadDim == 96),
                "one dQ slice per consumer, every slice 64 or 32 columns wide");
  static_assert(kBlockM == 64 || kBlockM == 128 || (kBlockM == 80 && kHeadDim == 128),
                "S^T = K Q^T is m64n64, m64n80 or m64n128");
  static_assert(kBlockN == 64 * kPolicy.consumer_wgs, "each consumer warpgroup owns 64 keys");
  static_assert(kBlockN % kSinkPartialKeys == 0 && 4 * kPolicy.consumer_wgs <= kSinkPartialSlots, "sink_partial");
  static_assert(kPolicy.consumer_wgs == 2, "named barrier ids 1..4, lse / D rows and the dQ split assume two consumers");
  static_assert(kHeadDim == 64 || kHeadDim == 96 || kHeadDim == 128, "head dim");
  using Smem = BwdSharedStorage<Element, kHeadDim, kBlockM, kBlockN, kStages, kDqLagged>;
  constexpr bool kSharedStats = Smem::kSharedStats;
  static_assert(kSharedStats == kLaggedTransposed, "shared lse / D rows where dQ^T lags");

  extern __shared__ unsigned char smem_raw[];
  Smem& smem = *reinterpret_cast<Smem*>(align_shared<1024>(smem_raw));

  const BwdCta<kCausal> cta = BwdCta<kCausal>::of_this_block(p, order, kDeterministic && kCausal, kBlockM, kBlockN);
  const SeqInfo& seq = cta.seq;
  const AttentionMask<kCausal>& mask = cta.mask;
  const int n0 = cta.n0;
  const int steps = cta.steps;
  if (cta.past_its_keys()) return;  // BwdCta::past_its_keys says why

  init_bwd_barriers<kStages>(maps, smem, kConsumerWarps);
  __syncthreads();

  if (threadIdx.x / 128 == 0) {
    // ---------------------------------------------------------------- producer warpgroup
    warpgroup_reg_dealloc<kPolicy.producer_regs>();
    run_bwd_producer<Element, kHeadDim, kBlockM, kBlockN, kStages, kCausal, kDeterministic>(p, maps, smem, cta);
    return;
  }

  // ------------------------------------------------------------------ consumer warpgroups
  warpgroup_reg_alloc<kPolicy.consumer_regs>();
  const int cwg = warpgroup_index() - 1;  // keys [n0 + 64 * cwg, +64)
  const int warp = (threadIdx.x / 32) % 4;
  const int lane = threadIdx.x % 32;
  const int kn0 = n0 + cwg * 64;
  const int key_row = warp * 16 + lane / 4;  // this thread's keys: kn0 + key_row (+ 8)
  const float scale_log2 = softmax_scale_log2(p, p.softmax_scale);
  const float scale_over_softcap = p.softcap > 0.f ? p.softmax_scale / p.softcap : 0.f;

  float dk[kDTiles * 4];
  float dv[kDTiles * 4];
#pragma unroll
  for (int i = 0; i < kDTiles * 4; ++i) dk[i] = dv[i] = 0.f;

  if (steps > 0) {
    mbar_wait(&smem.kv_full, 0);
    // lse / D rows of a query block: slots 0 .. kBlockM - 1 are lse rows, kBlockM .. 2 kBlockM - 1
    // D rows; thread t of the warpgroup owns slots t, t + 128, ... Block m + 1's are loaded into
    // registers during block m, so the global-load latency is not waited for at the barrier.
    constexpr int kStatSlots = (2 * kBlockM + 127) / 128;  // the last one partly used at 80 rows
    auto load_stats = [&](int step, float(&v)[kStatSlots]) {
      const int64_t row0 = cta.stats_row0(p, cta.step_head(step));
      const int m = cta.step_block(step);
#pragma unroll
      for (int i = 0; i < kStatSlots; ++i) {
        const int slot = threadIdx.x % 128 + 128 * i;
        const bool is_lse = slot < kBlockM;
        const int query = m * kBlockM + (is_lse ? slot : slot - kBlockM);
        const bool used = slot < 2 * kBlockM;
        v[i] = used && query < seq.seqlen_q ? __ldg((is_lse ? p.lse : p.dsum) + row0 + query)
                                            : (is_lse ? -INFINITY : 0.f);
      }
    };
    float stats[kStatSlots];
    if (!kSharedStats || cwg == 0) load_stats(0, stats);
    float sink_share = 0.f;  // this thread's share of the sink's gradient for the step's head
    PipelineState<kStages> st;
    // kScoresAhead (tile_policy.h bwd_scores_ahead): a step's S^T and dP^T are issued first, while
    // the step before's dK still runs; its wait and the release of that step's Q / dO come after.
    constexpr bool kScoresAhead = bwd_scores_ahead(kHeadDim);
    // dS^T's A fragments (k16 steps over the queries), read by dK += dS^T Q from registers: with
    // kScoresAhead that GEMM runs on into the next step.
    uint32_t dsf[kBlockM / 16][4];
    auto finish_dk = [&](int stage) {  // the dK GEMM of the step in `stage` is done
      fence_operands(dk);
      fence_operands(dsf);
      __syncwarp();
      if (lane == 0) mbar_arrive(&smem.empty[stage]);  // Q, dO of that stage are read
    };
    // P^T's A fragments (k16 steps over the queries), read by dV += P^T dO from registers.
    uint32_t pf[kBlockM / 16][4];
    // The dQ slice of step dq_step (query rows from dq_m0) from the dS^T in `ds`: dQ_partial = dS K
    // into a 64 x kCols accumulator (transposed at the 80-row tile: 64 columns x kBlockM rows), then
    // to the writer's tile. Head dim 96: a step's slice is columns [0, 64) or [64, 96) (bwd_cta.cuh
    // dq_tile_slice); each width has its own accumulator array -- one array reinterpreted for both
    // made ptxas inject a wgmma fence (C7519) into the loop. with_dk: the step's last product GEMM
    // is issued behind the dQ GEMM -- dK += dS^T Q of the step in stage s (the 80-row tile: dV +=
    // P^T dO, its dK issued before) -- so that the slice is stored while it runs on the tensor
    // cores; without (the lagged dQ's last, after the loop) the dQ GEMM alone.
    auto dq_slice = [&](auto cols, int dq_step, int dq_m0, const unsigned char* ds, int s, auto with_dk,
                        int ds_written_buf) {
      constexpr int kCols = decltype(cols)::value;
      constexpr bool kWithDk = decltype(with_dk)::value;
      const int dq_j = dq_slice_index<kHeadDim>(dq_step, cwg);  // this consumer's slice of the dQ tile
      const DqSlice dq_sl = dq_tile_slice<kHeadDim>(dq_j);
      const int dq_col = 32 * dq_sl.box_first;
      const int dq_row0 = dq_sl.row0;
      float dq[kDqTransposed ? kBlockM / 2 : kCols / 2];
      if constexpr (kDqTransposed) {
        // dK done: dS^T's fragments are free before dQ^T's accumulators are live (P^T's stay, for
        // dV behind dQ^T).
        wgmma_wait<0>();
        fence_operands(dk);
        fence_operands(dsf);
        wgmma_fence();
      }
#pragma unroll
      for (int kk = 0; kk < kBlockN / 16; ++kk) {
        // Column block dq_col / kTileCols of the K tile, keys 16 kk .. + 15, MN-major (v_desc):
        // dQ's B = K (16 keys x kCols columns), or dQ^T's A = K^T (kCols columns x 16 keys).
        const uint64_t k_cols = v_desc<kBlockN, kSwizzle>(
            reinterpret_cast<const unsigned char*>(smem.k) + (dq_col / kTileCols) * (kBlockN * kSwizzle), kk);
        if constexpr (kDqTransposed) {
          // B = dS^T (16 keys x kBlockM queries): K-major rows of the dS buffer, key block kk / 4.
          wgmma_ss<kBlockM, kDType, 1, 0>(dq, k_cols, kmajor_desc<kBlockM, kSwizzle>(ds, 0, kk), kk > 0 ? 1 : 0);
        } else {
          // A = dS (64 queries x 16 keys) read from dS^T rows: MN-major, v_desc's layout; query
          // block dq_row0 / 64 of the dS^T buffer.
          const uint64_t a = v_desc<kBlockN>(ds + (dq_row0 / 64) * (kBlockN * 128), kk);
          wgmma_ss<kCols, kDType, 1, 1>(dq, a, k_cols, kk > 0 ? 1 : 0);
        }
      }
      wgmma_commit();
      if constexpr (kDqTransposed && kWithDk) {
        // dV += P^T dO behind dQ^T: the slice is stored while dV runs on the tensor cores.
        issue_bwd_dv<kDType, kHeadDim, kBlockM, kSwizzle>(dv, pf, smem.dout[s]);
        wgmma_wait<1>();  // dQ^T is done; dV runs on
      } else if constexpr (!kWithDk) {
        wgmma_wait<0>();  // dQ is done, and every GEMM before it
      } else {
        issue_bwd_dk<kDType, kHeadDim, kBlockM, kSwizzle>(dk, dsf, smem.q[s]);
        wgmma_wait<1>();  // dV and dQ_partial are done; dK runs on
      }
      fence_operands(dv);
      fence_operands(pf);
      fence_operands(dq);
      // This consumer's dQ GEMM has read the dS buffer: with kDqLagged the other consumer writes it
      // again two steps on; at the 80-row tile (one buffer) the other may overwrite its half.
      if (kDqLagged && !kDqTransposed && dq_step + 2 < steps) {
        named_barrier_arrive(ds_read_barrier(cwg, dq_step & 1), 2 * 128);
      }
      if (kDqTransposed && !kDqLagged && dq_step + 1 < steps) named_barrier_arrive(9 + cwg, 2 * 128);
      // dQ slice to the writer's tile (dq_writer.cuh): wide shared stores, no global atomics here.
      named_barrier_sync(dq_empty_barrier(dq_j), kDqBarrierThreads);
      if constexpr (kDqTransposed) {
        store_dq_slice_transposed<kBlockM>(smem.dq, dq, dq_col, warp, lane, seq.seqlen_q - dq_m0);
      } else {
        store_dq_slice<kBlockM, kCols, bwd_dq_fragments(kHeadDim, kDeterministic)>(smem.dq, dq, dq_row0, dq_col, warp, lane,
                                                                   seq.seqlen_q - dq_m0);
      }
      fence_view_async_shared();  // generic stores, read next by the TMA (async proxy)
      named_barrier_arrive(dq_full_barrier(dq_j), kDqBarrierThreads);
      // kDqLagged: the same fence covered this step's dS^T stores, published only now (the other
      // consumer reads them a step later), so that they take no proxy fence of their own.
      if (kDqLagged && ds_written_buf >= 0) named_barrier_arrive(ds_written_barrier(cwg, ds_written_buf), 2 * 128);
      if constexpr (!kScoresAhead && kWithDk) {
        wgmma_wait<0>();
        if constexpr (kDqTransposed) {
          fence_operands(dv);
          fence_operands(pf);
        }
        finish_dk(s);
      }
    };
    auto run_dq = [&](int dq_step, int dq_m0, const unsigned char* ds, int s, auto with_dk, int ds_written_buf) {
      if (dq_tile_slice<kHeadDim>(dq_slice_index<kHeadDim>(dq_step, cwg)).boxes == 2) {
        dq_slice(std::integral_constant<int, 64>{}, dq_step, dq_m0, ds, s, with_dk, ds_written_buf);
      } else if constexpr (kHeadDim == 96) {
        dq_slice(std::integral_constant<int, 32>{}, dq_step, dq_m0, ds, s, with_dk, ds_written_buf);
      }
    };
    // kDqLagged: consumer 1 starts once consumer 0 has its first P^T, so that each computes P^T and
    // dS^T while the other's GEMMs run.
    if (kDqLagged && cwg == 1) named_barrier_sync(1, 2 * 128);
    int prev_m0 = 0;  // kDqLagged: the step before's first query row
    // The last k16 slice of the scores' GEMMs, skipped where the call's head dims leave it zero.
    constexpr bool kSkipZeroSlice = bwd_scores_skip_zero_slice(kHeadDim);
    const bool qk_last = !kSkipZeroSlice || p.head_dim > kHeadDim - 16;
    const bool v_last = !kSkipZeroSlice || p.head_dim_v > kHeadDim - 16;
    for (int step = 0; step < steps; ++step, ++st.count) {
      const int s = st.stage();
      const int m = cta.step_block(step);
      const int m0 = m * kBlockM;
      // S^T = K Q^T and dP^T = V dO^T, two commit groups.
      float sacc[kQTiles * 4];
      float dpacc[kQTiles * 4];
      if constexpr (kScoresAhead) {
        mbar_wait(&smem.full[s], st.parity());
        issue_bwd_scores<kDType, kHeadDim, kBlockM, kBlockN, kSwizzle>(sacc, dpacc, smem.k, smem.v, smem.q[s],
                                                                       smem.dout[s], cwg, qk_last, v_last);
        if (step > 0) {
          wgmma_wait<2>();  // the step before's dK is done; this step's S^T and dP^T run on
          finish_dk(PipelineState<kStages>{st.count - 1}.stage());
        }
      }
      // lse / D rows into buffer `buf` (last read in block m - 2: every thread of this warpgroup
      // has passed block m - 1's barrier 3 + cwg since). lse goes to the log2 domain, +inf for
      // rows past seqlen_q or that see no key (-inf), so P = 0 there.
      const int buf = st.count & 1;
      const int stat_copy = kSharedStats ? 0 : cwg;  // Smem::kSharedStats: consumer 0 writes them for both
      if (!kSharedStats || cwg == 0) {
#pragma unroll
        for (int i = 0; i < kStatSlots; ++i) {
          const int slot = threadIdx.x % 128 + 128 * i;
          if (slot < kBlockM) {
            const float lse_log2 = bwd::lse_log2(stats[i]);
            smem.lse[stat_copy][buf][slot] = lse_log2;
            if constexpr (kSinkGrad) smem.p_sink[stat_copy][buf][slot] = sink_prob(p, cta, step, lse_log2);
          } else if (slot < 2 * kBlockM) {
            smem.dsum[stat_copy][buf][slot - kBlockM] = stats[i];
          }
        }
        if (step + 1 < steps) load_stats(step + 1, stats);
      }
      if constexpr (!kScoresAhead) {
        mbar_wait(&smem.full[s], st.parity());
        issue_bwd_scores<kDType, kHeadDim, kBlockM, kBlockN, kSwizzle>(sacc, dpacc, smem.k, smem.v, smem.q[s],
                                                                       smem.dout[s], cwg, qk_last, v_last);
      }

      if constexpr (kSharedStats) {  // consumer 0's rows, for both (consumer 1 is behind: it rarely waits)
        if (cwg == 0) {
          named_barrier_sync(3, 128);
          named_barrier_arrive(stats_barrier(buf), 2 * 128);
        } else {
          named_barrier_sync(stats_barrier(buf), 2 * 128);
        }
      } else {
        named_barrier_sync(3 + cwg, 128);  // this warpgroup's lse / D rows are written
      }

      // P^T while dP^T is in flight, then dS^T in dpacc (bwd_scores.cuh): keys kn0 + key_row (+ 8),
      // queries m0 + 8t + 2 (lane % 4) (+ 1).
      const float* lse_rows = smem.lse[stat_copy][buf];
      const float* dsum_rows = smem.dsum[stat_copy][buf];
      wgmma_wait<1>();
      fence_operands(sacc);
      probs_from_scores<Traits, kQTiles, kPackedSoftcap, packed_mask_for(kHeadDim, kCausal)>(
          sacc, lse_rows, scale_log2, p.softcap, scale_over_softcap, mask,
          mask.block_needs_mask(m0, kBlockM, kn0, 64), kn0 + key_row, m0, lane);
      if (kDqLagged && cwg == 0 && step == 0) named_barrier_arrive(1, 2 * 128);
      wgmma_wait<0>();
      fence_operands(dpacc);
      if constexpr (kSinkGrad) {  // the sink's gradient from fp32 P^T and dP^T
        sink_grad_step<kQTiles>(p, cta, step, sacc, dpacc, smem.p_sink[stat_copy][buf], sink_share, cwg * 4 + warp, lane);
      }
      dscores_from_probs<Traits, kQTiles, kPackedSoftcap>(dpacc, sacc, lse_rows, dsum_rows, scale_log2,
                                                          p.softcap, lane);
      // A fragments (k16 steps over the queries; n8 groups 2kk, 2kk + 1 -> m16k16 layout).
#pragma unroll
      for (int kk = 0; kk < kBlockM / 16; ++kk) {
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          pf[kk][j] = Traits::pack2(sacc[8 * kk + 2 * j], sacc[8 * kk + 2 * j + 1]);
          dsf[kk][j] = Traits::pack2(dpacc[8 * kk + 2 * j], dpacc[8 * kk + 2 * j + 1]);
        }
      }
      // dS^T into this block's buffer, swizzled as the TMA would write [keys][64] tiles (one per
      // 64 queries): group t, half h of this thread is dsf[t / 2][2 * (t % 2) + h], the rows of
      // 8 x 8 matrix (t, h) keys cwg * 64 + 16 warp + 8 h + 0..7, its columns 16-byte chunk t of
      // those rows. stmatrix: matrices j = 0..3 of dsf[u] are (t, h) = (2u + j / 2, j % 2); lane L
      // addresses row L % 8 of matrix L / 8.
      unsigned char* ds_tile = reinterpret_cast<unsigned char*>(smem.ds[Smem::kDsBuffers == 1 ? 0 : buf]);
      if constexpr (kLaggedTransposed) {
        // dK += dS^T Q first (dS^T from registers, this consumer's alone): it runs while this
        // consumer waits for the other's dS of the step before, whose publication also says that
        // the other's dQ^T GEMM of two steps before has read this step's buffer.
        wgmma_fence();
        issue_bwd_dk<kDType, kHeadDim, kBlockM, kSwizzle>(dk, dsf, smem.q[s]);
        if (step > 0) named_barrier_sync(ds_written_barrier(1 - cwg, buf ^ 1), 2 * 128);
      }
      if constexpr (kDqTransposed) {
        // dS (not transposed) into this consumer's key block of the single buffer: stmatrix.trans
        // stores matrix (t, h) as its transpose, row = query 8t + lane % 8 (lane L addresses row
        // L % 8 of matrix L / 8), holding keys 16 warp + 8h .. + 7: 16-byte chunk 2 warp + h of
        // the query's 128-byte row. First, the other consumer must be done reading the previous
        // block's dS in its dQ GEMM (it arrived on barrier 9 + its index after that GEMM; with the
        // lagged dQ, above).
        if (!kDqLagged && step > 0) named_barrier_sync(9 + (1 - cwg), 2 * 128);
        const int j = lane / 8;
        const int chunk = 2 * warp + (j % 2);
#pragma unroll
        for (int u = 0; u < kQTiles / 2; ++u) {
          const int q = 8 * (2 * u + j / 2) + lane % 8;
          stmatrix_x4_trans(smem_u32(ds_tile) + cwg * (kBlockM * 128) + q * 128 + ((chunk ^ (q % 8)) * 16), dsf[u][0],
                            dsf[u][1], dsf[u][2], dsf[u][3]);
        }
      } else {
        // kDqLagged: the other consumer's dQ GEMM of two steps before has read this buffer.
        if (kDqLagged && step >= 2) named_barrier_sync(ds_read_barrier(1 - cwg, buf), 2 * 128);
        const int j = lane / 8;
        const int r = cwg * 64 + warp * 16 + 8 * (j % 2) + lane % 8;
#pragma unroll
        for (int u = 0; u < kQTiles / 2; ++u) {
          const int t = 2 * u + j / 2;
          stmatrix_x4(smem_u32(ds_tile) + (t / 8) * (kBlockN * 128) + r * 128 + (((t % 8) ^ (r % 8)) * 16), dsf[u][0],
                      dsf[u][1], dsf[u][2], dsf[u][3]);
        }
      }
      if constexpr (!kDqLagged) fence_view_async_shared();  // (kDqLagged: with the dQ slice's)

      // dV += P^T dO (one group, P^T from registers: issued before the barrier so that it runs
      // while this warpgroup waits for the other consumer); after the barrier dQ_partial = dS K
      // (it reads both consumers' dS^T rows), then dK += dS^T Q (dS^T from registers), each its
      // own group: dQ's slice is stored for the writer while dK runs on the tensor cores, where
      // it used to be stored after every GEMM of the block had finished. The 80-row tile swaps
      // the roles of dV and dK (below and dq_slice).
      // (The lagged 80-row tile issued its dK above.)
      if constexpr (!kLaggedTransposed) {
        wgmma_fence();
        if constexpr (kDqTransposed) {
          // The 80-row tile: dK += dS^T Q (dS^T from registers; it needs only this consumer's dS^T)
          // runs while the other consumer finishes its dS^T, and is done before the dQ^T GEMM's
          // accumulators are live; dV follows dQ^T (dq_slice), so that the slice's stores run beside it.
          issue_bwd_dk<kDType, kHeadDim, kBlockM, kSwizzle>(dk, dsf, smem.q[s]);
        } else {
          issue_bwd_dv<kDType, kHeadDim, kBlockM, kSwizzle>(dv, pf, smem.dout[s]);
        }
      }
      if constexpr (!kDqLagged) {
        named_barrier_sync(1, 128 * kPolicy.consumer_wgs);  // both consumers' dS^T rows are written
        run_dq(step, m0, ds_tile, s, std::true_type{}, -1);
      } else if (step == 0) {  // no dQ yet: dK alone (the 80-row tile: dV alone, dK being issued)
        wgmma_fence();  // (ptxas put one here itself, C7519, as at the two fences below)
        if constexpr (kLaggedTransposed) {
          issue_bwd_dv<kDType, kHeadDim, kBlockM, kSwizzle>(dv, pf, smem.dout[s]);
        } else {
          issue_bwd_dk<kDType, kHeadDim, kBlockM, kSwizzle>(dk, dsf, smem.q[s]);
        }
        fence_view_async_shared();
        named_barrier_arrive(ds_written_barrier(cwg, buf), 2 * 128);
        if constexpr (!kScoresAhead) {
          wgmma_wait<0>();
          fence_operands(dv);
          fence_operands(pf);
          finish_dk(s);
        }
      } else {  // the step before's dQ: the other consumer has written its half of that dS^T
        if constexpr (!kLaggedTransposed) named_barrier_sync(ds_written_barrier(1 - cwg, buf ^ 1), 2 * 128);
        wgmma_fence();
        run_dq(step - 1, prev_m0, reinterpret_cast<const unsigned char*>(smem.ds[buf ^ 1]), s, std::true_type{}, buf);
      }
      prev_m0 = m0;
    }
    if constexpr (kScoresAhead) {  // the last step's dK
      wgmma_wait<0>();
      finish_dk(PipelineState<kStages>{st.count - 1}.stage());
    }
    if constexpr (kDqLagged) {  // the last step's dQ
      const int last = steps - 1;
      named_barrier_sync(ds_written_barrier(1 - cwg, last & 1), 2 * 128);
      wgmma_fence();
      run_dq(last, prev_m0, reinterpret_cast<const unsigned char*>(smem.ds[last & 1]), 0, std::false_type{}, -1);
    }
  }

  // Epilogue: this warpgroup's 64 keys, every column, through its half of the K / V tiles.
  bwd_epilogue_begin();
  store_dk_dv<Traits, kHeadDim>(reinterpret_cast<unsigned char*>(cwg == 0 ? smem.k : smem.v), p, cta, dk, dv, kn0, 0,
                                warp, lane);
}

}  // namespace hopper
}  // namespace flashcore
