// The sm90a forward's producer warp (fwd_kernel.cuh's warpgroup 0): every TMA copy of a CTA's tiles
// -- each tile's Q, its K and V blocks through the two rings -- and the stores of the O the
// consumers leave in the Q buffers. A role of fwd_kernel in a header of its own, so that the
// kernel's file stays near one concern; inlined into it (the kernel's constants and its tile plan
// come in as template arguments, its walk and plan as the scheduler and the two callables).
#pragma once

#include <cstdint>

#include "kernels/flash_fwd_api.h"
#include "kernels/hopper/fwd_layout.cuh"
#include "kernels/hopper/paged_kv.cuh"
#include "kernels/hopper/smem_tile.cuh"
#include "kernels/hopper/tensor_map.h"
#include "kernels/hopper/tma_pipeline.cuh"

namespace flashcore {
namespace hopper {

// Called by warp 0 of the producer warpgroup after its setmaxnreg (the other producer warps have
// nothing to do and have returned). plan(w, t) fills the TilePlan t of walk index w (false: no tile); o_by_tma(t): whether
// the TMA stores the tile's O from its Q buffer. kPlanFromProducer (tile_policy.h
// fwd_tile_plan_from_producer): each tile's plan goes to the consumers in its Q buffer's slot.
template <class Element, int kHeadDim, int kBlockM, int kBlockN, int kStages, int kQBuffers, bool kPlanFromProducer,
          class TilePlan, class Smem, class Scheduler, class Plan, class OByTma>
__device__ __forceinline__ void fwd_produce(const FwdParams& p, const FwdTensorMaps& maps, Smem& smem,
                                            const Scheduler& scheduler, const Plan& plan, const OByTma& o_by_tma,
                                            int gqa_shift, int group, int tma_batch_of, bool varlen) {
  constexpr int kSwizzle = tile_swizzle_bytes(kHeadDim);
  constexpr int kTileCols = kSwizzle / 2;  // columns per swizzled row (column block)
  constexpr uint32_t kQBytes = kBlockM * kHeadDim * sizeof(Element);
  constexpr uint32_t kKVBytes = kBlockN * kHeadDim * sizeof(Element);
  // Lane 0 (`leader`) issues every TMA copy and barrier arrival; the other lanes follow the same
  // loop, read a paged cache's block-table entries (one box each: paged_kv.cuh) and help zero
  // patched rows.
  const int lane = threadIdx.x;
  const bool leader = lane == 0;
  PipelineState<kStages> kv;
  PipelineState<kQBuffers> q_state;
  // The consumers leave each tile's O in its Q buffer and arrive on q_empty; the leader stores
  // it with the TMA before the buffer takes the next Q, so the store's read latency is spent
  // here, off the consumers' path. Owed tile per buffer (m0 < 0: none), kept in scalars (an
  // array indexed by the runtime stage would live in local memory).
  struct OwedTile {
    int row0 = -1, head = 0, tma_batch = 0;  // row0: first row (pack-GQA: position) in TMA coordinates
  };
  OwedTile owed0, owed1;  // owed1: kQBuffers == 2 only
  auto store_owed_o = [&](int qs) {
    const OwedTile t = kQBuffers == 1 || qs == 0 ? owed0 : owed1;
    if (t.row0 < 0 || !leader) return;
    const unsigned char* o_tile = reinterpret_cast<const unsigned char*>(smem.q[qs]);
#pragma unroll
    for (int cb = 0; cb < kHeadDim / kTileCols; ++cb) {
      if (gqa_shift > 0) {
        tma_store_5d(&maps.o, o_tile + cb * (kBlockM * kSwizzle), cb * kTileCols, 0, t.row0, t.head, t.tma_batch);
      } else {
        tma_store_4d(&maps.o, o_tile + cb * (kBlockM * kSwizzle), cb * kTileCols, t.row0, t.head, t.tma_batch);
      }
    }
    tma_store_commit();
    tma_store_wait_read();
  };
  // Packed varlen: rows past a sequence's keys -- the next sequence's, or past the packed data --
  // may hold anything, NaN included, and 0 * NaN is NaN in the P V product: a V block reaching
  // past its sequence is patched here (those rows zeroed) before the consumers are let in, so a
  // NaN stays in its own sequence. K needs no patch: its columns past a sequence are masked
  // before they reach P.
  uint32_t v_aux_parity = 0;
  const bool paged = p.block_table != nullptr;
  const int paged_rows = paged ? paged_box_rows(kBlockN, p.page_size) : 0;  // rows per box
  // kPlanFromProducer: every tile of the walk goes through the Q ring, its plan in the buffer's
  // slot (FwdTile): a tile that visits no key block (its rows see no key) takes a slot without a
  // Q load, and the consumers write its zeros. The walk's end is a slot with m_block -1.
  // Otherwise only tiles that visit key blocks do (the consumers plan the others themselves).
  for (int w = scheduler.first(); w < scheduler.end(); w = scheduler.next(w)) {
    TilePlan t;
    if (!plan(w, t)) continue;
    if (!kPlanFromProducer && t.n_end <= t.n_first) continue;
    const bool has_blocks = !kPlanFromProducer || t.n_end > t.n_first;
    const int head_kv = t.head / group;
    const int tma_batch = t.batch * tma_batch_of;
    // Q of this tile goes to the buffer whose tile-before-last (one buffer: the last tile) has
    // run its last Q K^T and left its O there (stored first).
    const int qs = q_state.stage();
    mbar_wait(&smem.q_empty[qs], q_state.parity() ^ 1);
    store_owed_o(qs);
    if (kPlanFromProducer && leader) smem.tile[qs] = t;  // visible to the consumers once q_full completes (arrive: release)
    if (leader && !has_blocks) mbar_arrive(&smem.q_full[qs]);
    if (leader && has_blocks) {
      mbar_arrive_expect_tx(&smem.q_full[qs], kQBytes);
      if (gqa_shift > 0) {
        load_tile_packed_gqa<kHeadDim, kBlockM, Element, kSwizzle>(&maps.q, smem.q[qs], &smem.q_full[qs],
                                                                   t.m0() >> gqa_shift, t.head,
                                                                   tma_batch);
      } else {
        load_tile<kHeadDim, kBlockM, Element, kSwizzle>(&maps.q, smem.q[qs], &smem.q_full[qs],
                                                        t.seq.row0_q + t.m0(), t.head, tma_batch);
      }
    }
    // The TMA stores O of a tile inside its sequence (o_by_tma); the consumers store the others.
    const OwedTile now{has_blocks && o_by_tma(t) ? t.seq.row0_q + (t.m0() >> gqa_shift) : -1, t.head, tma_batch};
    if (kQBuffers == 1 || qs == 0) {
      owed0 = now;
    } else {
      owed1 = now;
    }
    ++q_state.count;
    if (!has_blocks) continue;
    // Key blocks, from the last: K of block j, then V of block j + 1 -- the order the consumers
    // use them in (S_j is issued with P_{j+1} V_{j+1}), so K's copy is never queued behind the
    // wait for an earlier block's V to be released. (K then V of each block gave the paged
    // cache's K copies too little slack.) A paged cache: the sequence's block-table row, each
    // lane reading its box's page of a block before its K (paged_kv.cuh), kept for its V.
    const int* table_row = paged ? p.block_table + static_cast<int64_t>(t.batch) * p.block_table_stride : nullptr;
    auto paged_block = [&](int j) { return PagedBlock(p.page_size, paged_rows, kBlockN, j, t.seq.seqlen_k); };
    auto kv_blocks = [&](auto paged_c) {
      constexpr bool kPaged = decltype(paged_c)::value;
      // Block j's K or V tile: its page-sized boxes (blk, this lane's page), or one box.
      auto load_kv = [&](const PagedBlock& blk, const CUtensorMap* map, Element* tile, uint64_t* bar, int j,
                         int page) {
        if constexpr (kPaged) {
          blk.template load<kHeadDim, kBlockN, Element, kSwizzle>(map, tile, bar, page, head_kv, p.page_size, leader);
        } else if (leader) {
          load_tile<kHeadDim, kBlockN, Element, kSwizzle>(map, tile, bar, t.seq.row0_k + j * kBlockN, head_kv,
                                                          tma_batch);
        }
      };
      const int c0 = kv.count;  // block j's pipeline count: c0 + n_end - 1 - j
      int v_page = 0;           // paged: this lane's page of the block whose V comes next
      for (int j = t.n_end - 1; j >= t.n_first - 1; --j) {
        int k_page = 0;
        if (j >= t.n_first) {
          const PipelineState<kStages> ks{c0 + t.n_end - 1 - j};
          // A paged block's boxes past the sequence's keys are not loaded (K's columns there are
          // masked; V's rows are zeroed below, as any block's rows past the keys).
          PagedBlock blk;
          if constexpr (kPaged) {
            blk = paged_block(j);
            k_page = blk.page_of_lane(table_row, p.page_size, lane);
          }
          mbar_wait(&smem.k_empty[ks.stage()], ks.parity() ^ 1);
          if (leader) {
            mbar_arrive_expect_tx(&smem.k_full[ks.stage()],
                                  kPaged ? blk.template bytes<kHeadDim, Element>() : kKVBytes);
          }
          load_kv(blk, &maps.k, smem.k[ks.stage()], &smem.k_full[ks.stage()], j, k_page);
        }
        if (j + 1 < t.n_end) {
          const int jv = j + 1;
          const PipelineState<kStages> vs{c0 + t.n_end - 1 - jv};
          const int sv = vs.stage();
          PagedBlock blk;
          if constexpr (kPaged) blk = paged_block(jv);
          const uint32_t v_bytes = kPaged ? blk.template bytes<kHeadDim, Element>() : kKVBytes;
          mbar_wait(&smem.v_empty[sv], vs.parity() ^ 1);
          // Dense with seqused_k (a KV cache's used prefix): rows past it are in the tensor (the TMA
          // does not zero them) and may hold anything too.
          const int rows_in_data =
              varlen || p.seqused_k != nullptr ? t.seq.seqlen_k - jv * kBlockN : kBlockN;
          if (rows_in_data >= kBlockN) {
            if (leader) mbar_arrive_expect_tx(&smem.v_full[sv], v_bytes);
            load_kv(blk, &maps.v, smem.v[sv], &smem.v_full[sv], jv, v_page);
          } else {
            if (leader) mbar_arrive_expect_tx(&smem.v_aux, v_bytes);
            load_kv(blk, &maps.v, smem.v[sv], &smem.v_aux, jv, v_page);
            mbar_wait(&smem.v_aux, v_aux_parity);
            v_aux_parity ^= 1;
            zero_tile_rows<kHeadDim, kBlockN, Element, kSwizzle>(smem.v[sv], rows_in_data, lane, 32);
            fence_view_async_shared();  // each lane's zeros, before the consumers' wgmma (async proxy) reads
            __syncwarp();
            if (leader) mbar_arrive(&smem.v_full[sv]);
          }
        }
        v_page = k_page;
      }
    };
    // One loop per kind of cache: with the paged one's state in the contiguous loop too, ptxas
    // spilled the producer's loop state at head dim 64 (its 24 registers after setmaxnreg).
    if (paged) {
      kv_blocks(std::true_type{});
    } else {
      kv_blocks(std::false_type{});
    }
    kv.count += t.n_end - t.n_first;
  }
  // kPlanFromProducer: the walk's end, in the next slot once its buffer's O is stored. Then the
  // other buffers' O, the last tiles' (a buffer never used passes its first wait at once, owing
  // nothing).
#pragma unroll
  for (int i = 0; i < kQBuffers; ++i, ++q_state.count) {
    const int qs = q_state.stage();
    mbar_wait(&smem.q_empty[qs], q_state.parity() ^ 1);
    store_owed_o(qs);
    if (kPlanFromProducer && i == 0 && leader) {
      smem.tile[qs].m_block = -1;
      mbar_arrive(&smem.q_full[qs]);
    }
  }
  if (leader) tma_store_wait_all();  // the O stores are complete before the CTA exits
}

}  // namespace hopper
}  // namespace flashcore
