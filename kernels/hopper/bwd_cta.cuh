// What every sm90a backward CTA does outside its consumers' mainloop, shared by the two consumer
// layouts (bwd_kernel.cuh: each consumer warpgroup owns 64 keys, head dims 64, 96 and 128;
// bwd_wide_kernel.cuh: both share 64 keys and split the products, 192 and 256):
//   - BwdCta: the CTA's work -- its key block (in BwdBlockOrder's launch order), k/v head and
//     batch, and the steps it walks: every (query head of the GQA group, query block that sees the
//     keys), head-major;
//   - run_bwd_producer: the producer warpgroup -- thread 0 loads K and V once and streams Q and dO
//     through a kStages-deep TMA + mbarrier pipeline (zeroing rows past a packed sequence), the
//     dQ-writer warp reduce-adds the consumers' dQ tiles (dq_writer.cuh);
//   - store_key_rows / store_dk_dv: a consumer's dK (times the softmax scale) and dV, through
//     shared memory into whole 16-byte pieces of rows.
// Included only through bwd_launch.cuh by the generated sm90a backward TUs (kernels/defs.bzl).
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/common/fast_divide.h"
#include "kernels/flash_bwd_api.h"
#include "kernels/sm80/bwd_kernel.cuh"  // first: the backward primitives (bwd::) the Hopper headers use
#include "kernels/hopper/bwd_block_order.cuh"
#include "kernels/hopper/dq_writer.cuh"
#include "kernels/hopper/smem_tile.cuh"
#include "kernels/hopper/tile_policy.h"
#include "kernels/hopper/tma_pipeline.cuh"

namespace flashcore {
namespace hopper {

struct BwdTensorMaps {
  CUtensorMap q, dout;   // boxes of 64 rows
  CUtensorMap k, v;      // boxes of kBlockN rows
  CUtensorMap dq_accum;  // fp32, boxes of 32 columns x block_m rows (dq_writer.cuh); unused in fragment order
};

template <bool kCausal>
struct BwdCta {
  int n_block, head_kv, batch, group, n0;
  bool varlen;
  int tma_batch;  // packed varlen: one TMA batch entry holds every row
  SeqInfo seq;
  AttentionMask<kCausal> mask;
  int m_begin = 0, m_count = 0, steps = 0;
  // Steps -> (query head, query block) by a multiply-high: the per-step i / m_count by the
  // hardware's division path was ~70 instructions a step on each consumer's path between two
  // steps' GEMMs (ncu SASS, docs/results/2026-11-27-h100-session23.md).
  FastDivide by_m_count;

  // The CTA of key block n_block and (batch, k/v head) group group_index (BwdBlockOrder).
  __device__ __forceinline__ BwdCta(const BwdParams& p, const BwdBlockOrder& order, int n_block_, int group_index,
                                    int block_m, int block_n)
      : n_block(n_block_),
        head_kv(group_index - order.by_heads_kv.quotient(group_index) * p.heads_kv),
        batch(order.by_heads_kv.quotient(group_index)),
        group(order.heads_per_kv),
        n0(n_block_ * block_n),
        varlen(p.cu_seqlens_q != nullptr),
        tma_batch(varlen ? 0 : batch),
        seq(p, batch, p.seqlen_q, p.seqlen_k),
        mask(seq, p) {
    // The query blocks that see this key block (the window's), for each query head of the group.
    int m_end = 0;
    if (n0 < seq.seqlen_k) mask.query_blocks(n0, block_n, block_m, m_begin, m_end);
    m_count = max(m_end - m_begin, 0);
    steps = m_count * group;
    // One query head per k/v head: steps never reach m_count, so no divide is needed.
    by_m_count = group > 1 ? FastDivide(max(m_count, 1)) : FastDivide::above_all();
  }

  // This CTA's work in the launch order. Deterministic causal runs the key blocks in reverse
  // (run_bwd_producer says why).
  __device__ __forceinline__ static BwdCta of_this_block(const BwdParams& p, const BwdBlockOrder& order, bool reverse,
                                                         int block_m, int block_n) {
    int n, g;
    order.block_of(blockIdx.x, reverse, n, g);
    return BwdCta(p, order, n, g, block_m, block_n);
  }

  // A key block past its sequence's last key (packed batches: the grid spans the longest sequence;
  // seqused_k) has nothing to compute or store, so both main kernels leave before the barriers'
  // set-up and the register hand-over. Such CTAs were 43% of the grid on 64 sequences of 100..4000
  // tokens and cost ~1.2 us of an SM each (H200, docs/results/2026-11-30-h200-session50.md).
  __device__ __forceinline__ bool past_its_keys() const { return n0 >= seq.seqlen_k; }

  // Step i's query head (GQA: the CTA walks every query head of its k/v head's group) and block.
  __device__ __forceinline__ int step_head(int i) const { return head_kv * group + by_m_count.quotient(i); }
  __device__ __forceinline__ int step_block(int i) const { return m_begin + i - by_m_count.quotient(i) * m_count; }
  // First row of query head h in lse's layout (dsum and dq_accum's rows are laid out alike).
  __device__ __forceinline__ int64_t stats_row0(const BwdParams& p, int h) const {
    return lse_row0(varlen, p.total_q, p.seqlen_q, p.heads, batch, h, seq.row0_q);
  }

};

// The two slices of a query block's dQ tile (dq_writer.cuh), from the tile policy: slice j's
// columns and rows, and which slice consumer c stores at step `step`. The writer adds slice 0,
// then 1, each on its own barrier pair, so a consumer waits only for its slice's previous
// reduce. (A pair per consumer would not do at 96, where a consumer's slice alternates: its
// stores would overwrite the other slice's boxes before their reduce had read them.)
//   split keys (bwd_kernel.cuh): head dim 64 (128-row blocks) by rows, 64 each; 128 by columns,
//     64 each; 96 by columns, 64 + 32, the 64-column slice alternating between the consumers step
//     by step;
//   shared keys (bwd_wide_kernel.cuh): columns [0, split) are slice 0 (consumer 0), the rest
//     slice 1 -- split = 128 with split products, half the head dim otherwise.
//   80-row blocks (head dim 128, dQ transposed): by columns, 64 each, all 80 rows.
template <int kHeadDim>
__host__ __device__ constexpr DqSlice dq_tile_slice(int j) {
  constexpr BwdTilePolicy kPolicy = bwd_tile_policy(kHeadDim);
  if constexpr (kPolicy.shared_keys) {
    constexpr int kSplitBoxes = (kPolicy.split_products ? 128 : kHeadDim / 2) / 32;
    return j == 0 ? DqSlice{0, kSplitBoxes, 0} : DqSlice{kSplitBoxes, kHeadDim / 32 - kSplitBoxes, 0};
  } else if constexpr (kPolicy.block_m == 128) {
    return DqSlice{0, kHeadDim / 32, 64 * j};
  } else if constexpr (kHeadDim == 96) {
    return j == 0 ? DqSlice{0, 2, 0} : DqSlice{2, 1, 0};
  } else {
    return DqSlice{2 * j, 2, 0};
  }
}
template <int kHeadDim>
__host__ __device__ constexpr int dq_slice_index(int step, int consumer) {
  return kHeadDim == 96 ? (step + consumer) & 1 : consumer;
}

// Thread 0: the tensor maps into the cache and the CTA's mbarriers (the caller syncs).
template <int kStages, class Smem>
__device__ __forceinline__ void init_bwd_barriers(const BwdTensorMaps& maps, Smem& smem, int consumer_warps) {
  if (threadIdx.x != 0) return;
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
    mbar_init(&smem.empty[s], consumer_warps);
  }
  mbar_init_fence();
}

// The producer warpgroup (after its setmaxnreg dealloc): thread 0 loads, warp kDqWriterWarp
// reduce-adds dQ; the other threads return.
template <class Element, int kHeadDim, int kBlockM, int kBlockN, int kStages, bool kCausal, bool kDeterministic,
          class Smem>
__device__ __forceinline__ void run_bwd_producer(const BwdParams& p, const BwdTensorMaps& maps, Smem& smem,
                                                 const BwdCta<kCausal>& cta) {
  constexpr uint32_t kTileBytes = kBlockM * kHeadDim * sizeof(Element);
  constexpr uint32_t kKVBytes = kBlockN * kHeadDim * sizeof(Element);
  constexpr int kSwizzle = tile_swizzle_bytes(kHeadDim);  // 64 at head dim 96, else 128
  const SeqInfo& seq = cta.seq;
  if (cta.steps == 0) return;
  if (threadIdx.x / 32 == kDqWriterWarp) {
    // Deterministic: dQ rows [64 r, 64 r + 64) (or query block r of 80 rows: dq_semaphore_rows)
    // take their key blocks' additions in a fixed order, counted by the int32 semaphore of row
    // block r (zeroed by the preprocess kernel): the key
    // blocks that see query block m are a prefix 0..n_max(m) (m_begin grows with n). Non-causal:
    // ascending n, and a CTA waits only for CTAs of its head launched before it (inside a chunk of
    // the launch order key blocks run block-major: bwd_chunk_groups). Causal: descending n -- block n's first query block is
    // its diagonal one, where it is then the first to add, instead of waiting for all lower key
    // blocks to get there -- with n launched in reverse (BwdBlockOrder) so that again only
    // earlier-launched CTAs are waited for.
    const int sem_blocks = (p.seqlen_q + 63) / 64;
    run_dq_writer<kBlockM, kHeadDim, kDeterministic>(
        &maps.dq_accum, smem.dq, cta.steps, threadIdx.x % 32, p.head_dim, seq.seqlen_q, cta.varlen ? seq.row0_q : 0,
        cta.tma_batch,
        [&](int i, int& head, int& m) {
          head = cta.step_head(i);
          m = cta.step_block(i);
        },
        [](int j) { return dq_tile_slice<kHeadDim>(j); },
        [&](int i) {
          int n_first, n_end;  // the key blocks that see query block m (the window's)
          cta.mask.key_blocks(cta.step_block(i) * kBlockM, kBlockM, kBlockN, n_first, n_end);
          return kCausal ? n_end - 1 - cta.n_block : cta.n_block - n_first;
        },
        [&](int head, int row_block) {
          return p.dq_semaphore + (static_cast<int64_t>(cta.batch) * p.heads + head) * sem_blocks + row_block;
        },
        [&](int head) {
          return p.dq_accum + dq_first_slab(cta.varlen, p.total_q, p.seqlen_q, p.heads, p.batch, cta.batch, head,
                                            seq.row0_q) *
                                  kDqSlabFloats;
        });
    return;
  }
  if (threadIdx.x != 0) return;
  // Packed varlen: rows past a sequence -- the next sequence's, or past the packed data -- may
  // hold anything, NaN included, and 0 * NaN is NaN in every product here (dV += P^T dO,
  // dK += dS^T Q, dQ += dS K): a tile reaching past its sequence is loaded on the aux barrier,
  // those rows zeroed, and only then published, so a NaN stays in its own sequence.
  uint32_t aux_parity = 0;
  const int k_row0 = seq.row0_k + cta.n0;
  const int k_rows_in_seq = seq.seqlen_k - cta.n0;  // rows of this key block inside the sequence
  // (Dense with seqused_k too: keys past the used prefix are in the tensor and may hold anything.)
  const bool patch_kv = (cta.varlen || p.seqused_k != nullptr) && k_rows_in_seq < kBlockN;
  uint64_t* kv_bar = patch_kv ? &smem.aux : &smem.kv_full;
  mbar_arrive_expect_tx(kv_bar, 2 * kKVBytes);
  load_tile<kHeadDim, kBlockN, Element, kSwizzle>(&maps.k, smem.k, kv_bar, k_row0, cta.head_kv, cta.tma_batch);
  load_tile<kHeadDim, kBlockN, Element, kSwizzle>(&maps.v, smem.v, kv_bar, k_row0, cta.head_kv, cta.tma_batch);
  if (patch_kv) {
    mbar_wait(&smem.aux, aux_parity);
    aux_parity ^= 1;
    zero_tile_rows<kHeadDim, kBlockN, Element, kSwizzle>(smem.k, k_rows_in_seq);
    zero_tile_rows<kHeadDim, kBlockN, Element, kSwizzle>(smem.v, k_rows_in_seq);
    fence_view_async_shared();  // the zeros, before the consumers' wgmma (async proxy) reads
    mbar_arrive(&smem.kv_full);
  }
  PipelineState<kStages> st;
  for (int i = 0; i < cta.steps; ++i, ++st.count) {
    const int s = st.stage();
    const int h = cta.step_head(i);
    const int q_row0 = seq.row0_q + cta.step_block(i) * kBlockM;
    const int q_rows_in_seq = seq.seqlen_q - cta.step_block(i) * kBlockM;
    const bool patch = cta.varlen && q_rows_in_seq < kBlockM;
    uint64_t* bar = patch ? &smem.aux : &smem.full[s];
    // Suspended rather than polling: this warp shares an SMSP with two consumer warps, and the
    // plain try_wait loop spun ~260 times a step there (ncu SASS at B4 S4096: 26-34 M YIELD /
    // TRYWAIT / BRA triples per backward, about a tenth of all issued instructions).
    mbar_wait<10000000>(&smem.empty[s], st.parity() ^ 1);  // suspended up to 10 ms a try
    mbar_arrive_expect_tx(bar, 2 * kTileBytes);
    load_tile<kHeadDim, kBlockM, Element, kSwizzle>(&maps.q, smem.q[s], bar, q_row0, h, cta.tma_batch);
    load_tile<kHeadDim, kBlockM, Element, kSwizzle>(&maps.dout, smem.dout[s], bar, q_row0, h, cta.tma_batch);
    if (patch) {
      mbar_wait(&smem.aux, aux_parity);
      aux_parity ^= 1;
      zero_tile_rows<kHeadDim, kBlockM, Element, kSwizzle>(smem.q[s], q_rows_in_seq);
      zero_tile_rows<kHeadDim, kBlockM, Element, kSwizzle>(smem.dout[s], q_rows_in_seq);
      fence_view_async_shared();
      mbar_arrive(&smem.full[s]);
    }
  }
}

// The sink's gradient in the kSinkGrad kernels (BwdParams::sink_partial), shared by both consumer
// layouts: p_sink of a query row, stored beside its lse row, from the row's lse in the log2 domain
// (+inf where P must be 0, so p_sink is 0 there too) ...
template <bool kCausal>
__device__ __forceinline__ float sink_prob(const BwdParams& p, const BwdCta<kCausal>& cta, int step, float lse_log2) {
  return exp2f(p.sink[cta.step_head(step)] * kLog2e - lse_log2);
}

// ... and a consumer warp's step: this block's share of sum_i p_sink,i sum_j P_ij dP_ij added to
// `share`, the warp's sum stored at the last step of each query head (the CTA walks them in turn).
template <int kQTiles, bool kCausal>
__device__ __forceinline__ void sink_grad_step(const BwdParams& p, const BwdCta<kCausal>& cta, int step,
                                               const float* pt, const float* dpt, const float* p_sink_rows,
                                               float& share, int slot, int lane) {
  const int h = cta.step_head(step);
  share += bwd::sink_grad_share<kQTiles>(pt, dpt, p_sink_rows, lane);
  if (step + 1 == cta.steps || cta.step_head(step + 1) != h) {
    bwd::store_sink_share(p, share, cta.n0, cta.batch, h, slot, lane);
    share = 0.f;
  }
}

// The epilogue: dK (times the softmax scale) and dV of a consumer's m64 accumulators (keys
// key0 + 16 warp + lane / 4 (+ 8), columns col0 + 8 t + 2 (lane % 4) (+ 1)), summed over the
// group's query heads, through shared memory: the fragment goes to 64 scratch rows with 4-byte
// shared stores, then every thread of the warpgroup writes whole 16-byte pieces of rows to global
// memory. (Straight from the fragment, each warp's 4-byte global stores wrote 8 rows x 16 bytes
// and queued in the LSU: ncu at d128 S1024 put 5% of the consumers' stall samples on those STGs
// and lg_throttle at 0.37 cycles per instruction, 0.02 at S16384 --
// docs/results/2026-11-24-h100-bwd-rows-persistent.md.) Keys past the sequence are not stored,
// keys no query sees get 0, columns from `cols` on (the call's head_dim or head_dim_v) are not the
// tensor's. The scratch is a consumer's share of the K / V tiles, free once both consumers are
// past bwd_epilogue_begin.

// Both consumers' GEMMs are done: K and V may be overwritten (every consumer thread calls it).
__device__ __forceinline__ void bwd_epilogue_begin() {
  wgmma_wait<0>();
  named_barrier_sync(1, 2 * 128);
}

// Scratch rows: row-major, kCols elements each; a row's 16-byte pieces are XOR-swizzled by the
// row within groups of 8 (4 when kCols / 8 is not a multiple of 8: head dim 96), so that a warp's
// fragment stores (8 rows, 16 bytes each) fall on distinct banks.
template <int kCols>
__device__ __forceinline__ int scratch_byte(int row, int piece) {
  constexpr int kGroup = (kCols / 8) % 8 == 0 ? 8 : 4;
  return row * kCols * 2 + ((piece & ~(kGroup - 1)) | ((piece ^ row) & (kGroup - 1))) * 16;
}

template <class Traits, int kCols>
__device__ __forceinline__ void stage_key_rows(unsigned char* scratch, const float (&acc)[kCols / 2], float scale,
                                               int warp, int lane) {
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int row = warp * 16 + lane / 4 + 8 * h;
#pragma unroll
    for (int t = 0; t < kCols / 8; ++t) {
      *reinterpret_cast<uint32_t*>(scratch + scratch_byte<kCols>(row, t) + (lane % 4) * 4) =
          Traits::pack2(acc[4 * t + 2 * h] * scale, acc[4 * t + 2 * h + 1] * scale);
    }
  }
}

// After the warpgroup's barrier: its 64 scratch rows to global memory, thread `thread` (0..127)
// taking every 128th 16-byte piece.
template <class Traits, int kCols, bool kCausal>
__device__ __forceinline__ void copy_key_rows_out(const unsigned char* scratch, void* out, int64_t batch_stride,
                                                  int64_t head_stride, int64_t row_stride, int cols,
                                                  const BwdCta<kCausal>& cta, int key0, int col0, int thread) {
  using Element = typename Traits::Element;
  constexpr int kPieces = kCols / 8;
  Element* base = static_cast<Element*>(out) + cta.batch * batch_stride + cta.head_kv * head_stride;
#pragma unroll 4
  for (int j = thread; j < 64 * kPieces; j += 128) {
    const int row = j / kPieces, piece = j % kPieces;
    const int key = key0 + row, col = col0 + 8 * piece;
    if (key < cta.seq.seqlen_k && col < cols) {
      *reinterpret_cast<uint4*>(base + static_cast<int64_t>(cta.seq.row0_k + key) * row_stride + col) =
          *reinterpret_cast<const uint4*>(scratch + scratch_byte<kCols>(row, piece));
    }
  }
}

// One tensor's rows (dK or dV) of this consumer's accumulator, through `scratch` (64 x kCols).
template <class Traits, int kCols, bool kCausal>
__device__ __forceinline__ void store_key_rows(unsigned char* scratch, void* out, int64_t batch_stride,
                                               int64_t head_stride, int64_t row_stride,
                                               const float (&acc)[kCols / 2], float scale, int cols,
                                               const BwdCta<kCausal>& cta, int key0, int col0, int warp, int lane) {
  stage_key_rows<Traits, kCols>(scratch, acc, scale, warp, lane);
  named_barrier_sync(3 + warpgroup_index() - 1, 128);
  copy_key_rows_out<Traits, kCols>(scratch, out, batch_stride, head_stride, row_stride, cols, cta, key0, col0,
                                   threadIdx.x % 128);
}

// dK (times the softmax scale) and dV of a consumer that holds both for the same keys and columns,
// through `scratch` (2 x 64 x kCols: dK's rows, then dV's).
template <class Traits, int kCols, bool kCausal>
__device__ __forceinline__ void store_dk_dv(unsigned char* scratch, const BwdParams& p, const BwdCta<kCausal>& cta,
                                            const float (&dk)[kCols / 2], const float (&dv)[kCols / 2], int key0,
                                            int col0, int warp, int lane) {
  unsigned char* scratch_v = scratch + 64 * kCols * 2;
  stage_key_rows<Traits, kCols>(scratch, dk, p.softmax_scale, warp, lane);
  stage_key_rows<Traits, kCols>(scratch_v, dv, 1.f, warp, lane);
  named_barrier_sync(3 + warpgroup_index() - 1, 128);
  copy_key_rows_out<Traits, kCols>(scratch, p.dk, p.dk_batch_stride, p.dk_head_stride, p.dk_row_stride, p.head_dim,
                                   cta, key0, col0, threadIdx.x % 128);
  copy_key_rows_out<Traits, kCols>(scratch_v, p.dv, p.dv_batch_stride, p.dv_head_stride, p.dv_row_stride,
                                   p.head_dim_v, cta, key0, col0, threadIdx.x % 128);
}

}  // namespace hopper
}  // namespace flashcore
