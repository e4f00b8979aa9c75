// Hopper (sm_90a) attention backward main kernel at head dims 192 and 256 (every multiple of 8 in
// 136..256 runs on one of them, the TMA zero-filling the columns past the call's head dim): wgmma
// with the two consumer warpgroups sharing one 64-key block (tile_policy.h says why: bwd_kernel.cuh's
// layout would hold 2 x kHeadDim / 2 fp32 of dK + dV per thread, 256 at head dim 256).
//   - one CTA per (64-key block, k/v head, batch), in BwdBlockOrder's order; the producer
//     warpgroup, the dQ writer and the epilogue stores are bwd_cta.cuh's, as in bwd_kernel.cuh;
//   - per 64-row query block, consumer c (0, 1) computes for query rows [32 c, 32 c + 32)
//         S^T  = K Q^T,  dP^T = V dO^T                     (SS, m64n32: all 64 keys)
//         P^T  = exp2(S^T * scale * log2 e - lse * log2 e)  (masked), dS^T = P^T o (dP^T - D)
//     and stores both to shared memory ([64 keys][64 queries] tiles, 128-byte swizzled,
//     double-buffered); after a 256-thread barrier makes both halves visible, the two split
//     dV += P^T dO, dK += dS^T Q (SS, dO / Q MN-major) and dQ_slice = dS K (SS, both MN-major)
//     by columns (256: [128 c, 128 c + 128) of each) or by product (192: consumer 0 owns dV,
//     consumer 1 dK, both m64n192; dQ's columns split at 128) -- every operand then starts on a
//     64-column swizzle atom. At the dQ GEMM a thread holds kHeadDim / 2 + 64 fp32 (192 at 256);
//     the dQ slices go to the writer's fp32 tile (dq_writer.cuh) as in bwd_kernel.cuh.
// Against the mma.sync kernel it replaces on sm90a (kernels/sm80/bwd_kernel.cuh: two 128-column
// parts per key block, each recomputing S and dP, 1.4x the FLOPs, at 8 warps with spills) this
// does each product once on the tensor cores' async path. ncu (d256, S 4096): L2 88% busy -- every
// (key block, query block) step moves Q and dO in and dQ's fp32 reduce-add out, 64 keys' work per
// 128 KB -- tensor pipe 42%.
// Included only through bwd_launch.cuh by the generated sm90a backward TUs (kernels/defs.bzl).
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

template <class Element, int kHeadDim, int kBlockM, int kBlockN, int kStages>
struct BwdWideSharedStorage {
  // [kHeadDim / 64 column blocks][rows][64 elements] tiles, as the TMA box writes them.
  alignas(1024) Element k[kBlockN * kHeadDim];
  alignas(1024) Element v[kBlockN * kHeadDim];
  alignas(1024) Element q[kStages][kBlockM * kHeadDim];
  alignas(1024) Element dout[kStages][kBlockM * kHeadDim];
  // P^T and dS^T of a query block: [kBlockN keys][kBlockM = 64 queries], one 128-byte swizzled row
  // per key. Double-buffered: block m + 1's are written while the other consumer may still be in
  // block m's GEMMs; it has finished block m - 1's before it reaches block m's barrier.
  alignas(1024) Element pt[2][kBlockN * kBlockM];
  alignas(1024) Element ds[2][kBlockN * kBlockM];
  // fp32 dQ of one query block, both consumers' column halves, for the dQ writer (dq_writer.cuh).
  alignas(1024) float dq[kBlockM * kHeadDim];
  float lse[2][2][kBlockM / 2];   // [consumer][buffer]: its query rows' lse * log2(e), +inf where P must be 0
  float dsum[2][2][kBlockM / 2];  // [consumer][buffer]: D
  float p_sink[2][2][kBlockM / 2];  // [consumer][buffer]: exp(sink - lse), with a sink's gradient to take
  uint64_t kv_full;
  uint64_t full[kStages], empty[kStages];
  uint64_t aux;  // the producer's own wait for tiles it must patch (rows past packed data)
};

template <class Traits, int kHeadDim, bool kCausal, bool kDeterministic, bool kSinkGrad, bool kPackedSoftcap>
__global__ void __launch_bounds__((bwd_tile_policy(kHeadDim).consumer_wgs + 1) * 128, 1)
    bwd_wide_kernel(const __grid_constant__ BwdParams p, const __grid_constant__ BwdTensorMaps maps,
                    BwdBlockOrder order) {
  using Element = typename Traits::Element;
  constexpr DType kDType = Traits::kDType;
  constexpr BwdTilePolicy kPolicy = bwd_tile_policy(kHeadDim);
  constexpr int kBlockM = kPolicy.block_m;
  constexpr int kBlockN = kPolicy.block_n;
  constexpr int kStages = kPolicy.stages;
  constexpr int kConsumerWarps = kPolicy.consumer_wgs * 4;
  constexpr int kQueries = kBlockM / 2;  // query columns of S^T, dP^T per consumer
  constexpr int kQTiles = kQueries / 8;  // their n8 groups
  constexpr bool kSplitProducts = kPolicy.split_products;
  // dQ columns [0, kDqSplit) to consumer 0 (slice 0), [kDqSplit, kHeadDim) to 1 (bwd_cta.cuh).
  constexpr int kDqSplit = 32 * dq_tile_slice<kHeadDim>(1).box_first;
  static_assert(kPolicy.shared_keys && kPolicy.consumer_wgs == 2, "two consumers sharing the key block");
  static_assert(kBlockM == 64 && kBlockN == 64, "64 x 64 P^T / dS^T tiles: one swizzled 128-byte row per key");
  static_assert(kBlockN % kSinkPartialKeys == 0 && 8 <= kSinkPartialSlots, "sink_partial");
  static_assert(kDqSplit % 64 == 0 && kHeadDim - kDqSplit <= 128, "64-column-aligned dQ slices of m64n64 / m64n128");
  using Smem = BwdWideSharedStorage<Element, kHeadDim, kBlockM, kBlockN, kStages>;

  extern __shared__ unsigned char smem_raw[];
  Smem& smem = *reinterpret_cast<Smem*>(align_shared<1024>(smem_raw));

  const BwdCta<kCausal> cta = BwdCta<kCausal>::of_this_block(p, order, kDeterministic && kCausal, kBlockM, kBlockN);
  if (cta.past_its_keys()) return;  // BwdCta::past_its_keys says why
  init_bwd_barriers<kStages>(maps, smem, kConsumerWarps);
  __syncthreads();

  if (threadIdx.x / 128 == 0) {
    warpgroup_reg_dealloc<kPolicy.producer_regs>();
    run_bwd_producer<Element, kHeadDim, kBlockM, kBlockN, kStages, kCausal, kDeterministic>(p, maps, smem, cta);
    return;
  }

  warpgroup_reg_alloc<kPolicy.consumer_regs>();
  const int cwg = warpgroup_index() - 1;
  const int warp = (threadIdx.x / 32) % 4;
  const int lane = threadIdx.x % 32;
  const int key_row = warp * 16 + lane / 4;  // this thread's keys: n0 + key_row (+ 8)
  const int q_half = cwg * kQueries;         // this consumer's query rows of S^T and dP^T
  const SeqInfo& seq = cta.seq;
  const AttentionMask<kCausal>& mask = cta.mask;
  const int n0 = cta.n0;
  const float scale_log2 = softmax_scale_log2(p, p.softmax_scale);
  const float scale_over_softcap = p.softcap > 0.f ? p.softmax_scale / p.softcap : 0.f;

  // Split products: acc0 is consumer 0's dV or consumer 1's dK (64 keys x kHeadDim). Split columns:
  // acc0 is dV, acc1 dK, both 64 keys x the consumer's kHeadDim / 2 columns.
  constexpr int kAcc0 = kSplitProducts ? kHeadDim / 2 : kHeadDim / 4;
  constexpr int kAcc1 = kSplitProducts ? 1 : kHeadDim / 4;
  float acc0[kAcc0];
  float acc1[kAcc1];
#pragma unroll
  for (int i = 0; i < kAcc0; ++i) acc0[i] = 0.f;
#pragma unroll
  for (int i = 0; i < kAcc1; ++i) acc1[i] = 0.f;
  const int col0 = kSplitProducts ? 0 : cwg * (kHeadDim / 2);  // split columns: this consumer's

  if (cta.steps > 0) {
    mbar_wait(&smem.kv_full, 0);
    // lse (threads 0..31) and D (32..63) of this consumer's query rows; block m + 1's are loaded
    // into registers during block m, so the global-load latency is not waited for at the barrier.
    const int slot = threadIdx.x % 128;
    auto load_stat = [&](int step) {
      const int query = cta.step_block(step) * kBlockM + q_half + slot % kQueries;
      const int64_t row0 = cta.stats_row0(p, cta.step_head(step));
      if (slot >= 2 * kQueries) return 0.f;
      const bool is_lse = slot < kQueries;
      return query < seq.seqlen_q ? __ldg((is_lse ? p.lse : p.dsum) + row0 + query) : (is_lse ? -INFINITY : 0.f);
    };
    float stat = load_stat(0);
    float sink_share = 0.f;  // this thread's share of the sink's gradient for the step's head
    PipelineState<kStages> st;
    for (int step = 0; step < cta.steps; ++step, ++st.count) {
      const int s = st.stage();
      const int m0 = cta.step_block(step) * kBlockM;
      // lse / D rows into buffer `buf` (last read in block m - 2: every thread of this warpgroup
      // has passed block m - 1's barrier 3 + cwg since). lse goes to the log2 domain, +inf for rows
      // past seqlen_q or that see no key (-inf), so P = 0 there.
      const int buf = step & 1;
      if (slot < kQueries) {
        const float lse_log2 = bwd::lse_log2(stat);
        smem.lse[cwg][buf][slot] = lse_log2;
        if constexpr (kSinkGrad) smem.p_sink[cwg][buf][slot] = sink_prob(p, cta, step, lse_log2);
      } else if (slot < 2 * kQueries) {
        smem.dsum[cwg][buf][slot - kQueries] = stat;
      }
      if (step + 1 < cta.steps) stat = load_stat(step + 1);
      mbar_wait(&smem.full[s], st.parity());

      // S^T = K Q^T and dP^T = V dO^T over this consumer's query rows, two commit groups.
      float sacc[kQTiles * 4];
      float dpacc[kQTiles * 4];
      wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < kHeadDim / 16; ++kk) {
        wgmma_ss<kQueries, kDType>(sacc, kmajor_desc<kBlockN>(smem.k, 0, kk), kmajor_desc<kBlockM>(smem.q[s], q_half, kk),
                                   kk > 0 ? 1 : 0);
      }
      wgmma_commit();
#pragma unroll
      for (int kk = 0; kk < kHeadDim / 16; ++kk) {
        wgmma_ss<kQueries, kDType>(dpacc, kmajor_desc<kBlockN>(smem.v, 0, kk),
                                   kmajor_desc<kBlockM>(smem.dout[s], q_half, kk), kk > 0 ? 1 : 0);
      }
      wgmma_commit();

      named_barrier_sync(3 + cwg, 128);  // this warpgroup's lse / D rows are written

      // P^T while dP^T is in flight, then dS^T in dpacc (bwd_scores.cuh): keys n0 + key_row (+ 8),
      // queries m0 + q_half + 8t + 2 (lane % 4) (+ 1).
      const float* lse_rows = smem.lse[cwg][buf];
      const float* dsum_rows = smem.dsum[cwg][buf];
      wgmma_wait<1>();
      fence_operands(sacc);
      probs_from_scores<Traits, kQTiles, kPackedSoftcap, PackedMask::kInExp2Loop>(
          sacc, lse_rows, scale_log2, p.softcap, scale_over_softcap, mask,
          mask.block_needs_mask(m0 + q_half, kQueries, n0, kBlockN), n0 + key_row, m0 + q_half, lane);
      wgmma_wait<0>();
      fence_operands(dpacc);
      if constexpr (kSinkGrad) {  // the sink's gradient from fp32 P^T and dP^T
        sink_grad_step<kQTiles>(p, cta, step, sacc, dpacc, smem.p_sink[cwg][buf], sink_share, cwg * 4 + warp, lane);
      }
      dscores_from_probs<Traits, kQTiles, kPackedSoftcap>(dpacc, sacc, lse_rows, dsum_rows, scale_log2,
                                                          p.softcap, lane);
      // P^T and dS^T into this block's buffers, swizzled as the TMA would write a [keys][64] tile:
      // query columns q_half + 8t .. + 7 are 16-byte chunk q_half / 8 + t of key row r. By
      // stmatrix: matrices j = 0..3 of step u are (t, h) = (2u + j / 2, j % 2), rows key_row0 +
      // 8 h + 0..7; lane L addresses row L % 8 of matrix L / 8.
      const uint32_t pt_tile = smem_u32(smem.pt[buf]);
      const uint32_t ds_tile = smem_u32(smem.ds[buf]);
      {
        const int j = lane / 8;
        const int r = warp * 16 + 8 * (j % 2) + lane % 8;
#pragma unroll
        for (int u = 0; u < kQTiles / 2; ++u) {
          const int t = 2 * u + j / 2;
          const uint32_t offset = r * 128 + (((q_half / 8 + t) ^ (r % 8)) * 16);
          uint32_t pv[4], dsv[4];
#pragma unroll
          for (int m = 0; m < 4; ++m) {
            pv[m] = Traits::pack2(sacc[8 * u + 2 * m], sacc[8 * u + 2 * m + 1]);
            dsv[m] = Traits::pack2(dpacc[8 * u + 2 * m], dpacc[8 * u + 2 * m + 1]);
          }
          stmatrix_x4(pt_tile + offset, pv[0], pv[1], pv[2], pv[3]);
          stmatrix_x4(ds_tile + offset, dsv[0], dsv[1], dsv[2], dsv[3]);
        }
      }
      fence_view_async_shared();
      named_barrier_sync(1, 128 * kPolicy.consumer_wgs);  // both consumers' P^T and dS^T halves are written

      // dV and dK (one group) and this consumer's dQ slice dS K (another). With two Q / dO stages
      // (192) the slice goes first and is stored for the writer while dV and dK run on the
      // tensor cores (+1-4% on an H100). With one stage (256) the stage is released only once dV
      // and dK are done, and the next block's Q / dO load must overlap the dQ GEMM and its store:
      // there dV and dK go first (the slice first measured 9-17% slower; docs/PERF.md, session 14).
      constexpr bool kDqFirst = kStages > 1;
      auto issue_products = [&]() {
        if constexpr (kSplitProducts) {
          // consumer 0: dV += P^T dO, consumer 1: dK += dS^T Q
          const Element* a_tile = cwg == 0 ? smem.pt[buf] : smem.ds[buf];
          const Element* b_tile = cwg == 0 ? smem.dout[s] : smem.q[s];
#pragma unroll
          for (int kk = 0; kk < kBlockM / 16; ++kk) {
            wgmma_ss<kHeadDim, kDType, 0, 1>(acc0, kmajor_desc<kBlockN>(a_tile, 0, kk), v_desc<kBlockM>(b_tile, kk), 1);
          }
        } else {
          // dV and dK over columns [col0, col0 + kHeadDim / 2) (column block col0 / 64 on)
#pragma unroll
          for (int kk = 0; kk < kBlockM / 16; ++kk) {
            wgmma_ss<kHeadDim / 2, kDType, 0, 1>(acc0, kmajor_desc<kBlockN>(smem.pt[buf], 0, kk),
                                                 v_desc<kBlockM>(smem.dout[s] + (col0 / 64) * kBlockM * 64, kk), 1);
          }
#pragma unroll
          for (int kk = 0; kk < kBlockM / 16; ++kk) {
            wgmma_ss<kHeadDim / 2, kDType, 0, 1>(acc1, kmajor_desc<kBlockN>(smem.ds[buf], 0, kk),
                                                 v_desc<kBlockM>(smem.q[s] + (col0 / 64) * kBlockM * 64, kk), 1);
          }
        }
        wgmma_commit();
      };
      auto release_stage = [&]() {  // dV and dK are done: Q, dO of stage s are read
        fence_operands(acc0);
        fence_operands(acc1);
        __syncwarp();
        if (lane == 0) mbar_arrive(&smem.empty[s]);
      };
      const int dq_j = dq_slice_index<kHeadDim>(step, cwg);  // this consumer's slice of the dQ tile
      auto dq_slice = [&](auto cols, int dq_col0) {
        constexpr int kN = decltype(cols)::value;
        float dq[kN / 2];
        wgmma_fence();
        if constexpr (!kDqFirst) issue_products();
#pragma unroll
        for (int kk = 0; kk < kBlockN / 16; ++kk) {
          // A = dS (64 queries x 16 keys) read from dS^T rows: MN-major. B = K (16 keys x kN
          // columns from dq_col0, a multiple of 64), MN-major. Both v_desc's layout.
          const uint64_t a = v_desc<kBlockN>(smem.ds[buf], kk);
          const uint64_t b =
              v_desc<kBlockN>(reinterpret_cast<const unsigned char*>(smem.k) + (dq_col0 / 64) * (kBlockN * 128), kk);
          wgmma_ss<kN, kDType, 1, 1>(dq, a, b, kk > 0 ? 1 : 0);
        }
        wgmma_commit();
        if constexpr (kDqFirst) issue_products();
        wgmma_wait<1>();
        if constexpr (!kDqFirst) {
          release_stage();
          wgmma_wait<0>();
        }
        fence_operands(dq);
        // dQ slice to the writer's tile (dq_writer.cuh).
        named_barrier_sync(dq_empty_barrier(dq_j), kDqBarrierThreads);
        store_dq_slice<kBlockM, kN>(smem.dq, dq, 0, dq_col0, warp, lane, seq.seqlen_q - m0);
        fence_view_async_shared();  // generic stores, read next by the TMA (async proxy)
        named_barrier_arrive(dq_full_barrier(dq_j), kDqBarrierThreads);
        if constexpr (kDqFirst) {
          wgmma_wait<0>();
          release_stage();
        }
      };
      if constexpr (2 * kDqSplit == kHeadDim) {  // equal slices: one copy of the code
        dq_slice(std::integral_constant<int, kDqSplit>{}, cwg * kDqSplit);
      } else if (cwg == 0) {
        dq_slice(std::integral_constant<int, kDqSplit>{}, 0);
      } else {
        dq_slice(std::integral_constant<int, kHeadDim - kDqSplit>{}, kDqSplit);
      }
    }
  }

  // Epilogue: all 64 keys; split products: every column of this consumer's dV or dK. Through
  // shared memory (bwd_cta.cuh): consumer 0 the K tile's, 1 the V tile's (64 x kHeadDim each).
  bwd_epilogue_begin();
  unsigned char* scratch = reinterpret_cast<unsigned char*>(cwg == 0 ? smem.k : smem.v);
  if constexpr (kSplitProducts) {
    if (cwg == 0) {
      store_key_rows<Traits, kHeadDim>(scratch, p.dv, p.dv_batch_stride, p.dv_head_stride, p.dv_row_stride, acc0,
                                       1.f, p.head_dim_v, cta, n0, 0, warp, lane);
    } else {
      store_key_rows<Traits, kHeadDim>(scratch, p.dk, p.dk_batch_stride, p.dk_head_stride, p.dk_row_stride, acc0,
                                       p.softmax_scale, p.head_dim, cta, n0, 0, warp, lane);
    }
  } else {
    store_dk_dv<Traits, kHeadDim / 2>(scratch, p, cta, acc1, acc0, n0, col0, warp, lane);
  }
}

}  // namespace hopper
}  // namespace flashcore
