// The Hopper forward's tile order (kernels/hopper/fwd_kernel.cuh): which (query block, head,
// batch) tiles each CTA of the persistent grid runs, and in what order.
//
// Work items are tiles (non-causal) or pairs of tiles (causal: query blocks num_m - 1 - k and k of
// one head, a long one and a short one, so every pair costs about the same number of key blocks
// and a static round-robin of pairs over the grid is balanced). With a sliding window only the
// first query blocks are cheaper (their rows see the sequence's start; the rest see the whole
// window): those `growing` blocks are paired among themselves and the others run alone, so again
// every item costs about one full tile. (Pairing query block num_m - 1 - k with k under a window
// gave items of 34..66 key blocks at window 4096, S 16k; the grid's stride of 132 items, 4 mod the
// 64 items of a head, handed some CTAs only cheap items and others only dear ones: ncu measured
// the SMs' mean active cycles at 0.857 of the busiest SM's.) CTA c takes work items c,
// c + gridDim.x, ... (a persistent grid of one CTA per SM, or one CTA per item). Items go
// (batch, head)-major so that CTAs running at the same time share K/V in L2 (at 16k tokens one
// head's K/V is 8 MB; 132 heads at once would stream from HBM). When every causal tile fits on its
// own SM (causal_pairs() false: at most one tile per SM), tiles are not paired -- a pair runs its
// two tiles one after the other -- and each item is one tile, longest first. Pairs of a causal call
// with no window on the left stop a round before the walk's end: the last pairs' tiles run alone,
// longest first, dealt in a snake (TileScheduler::walk_divisors says why).
//
// Packed variable-length batches (VarlenOrder): the lengths live on the GPU, so the host can
// neither pair nor order them. Every CTA therefore builds the same table in shared memory before
// its roles split: the sequences sorted by key count, longest first, and the running count of
// their items. Items then go (sorted sequence, head, block)-major -- still sharing K/V in L2 --
// and only real tiles are items (a short sequence in a batch whose longest has 4000 tokens brings
// no empty query blocks to skip). With items in descending cost, the static round-robin hands every
// CTA a similar mix: the CTA's j-th item comes from the same cost band as every other CTA's j-th.
// The unsorted order gave each CTA a random sum of item costs that ranged 100x (a 64-sequence
// batch of 100-4000 tokens ran at 86% of the equal-length batch's TFLOP/s, docs/PERF.md). Still,
// ncu read that batch's SMs at 0.960-0.966 (mean over busiest): the round-robin hands CTA 0 the
// dearest item of every round, and an odd sequence's lone middle block recurs at a period that
// often divides the grid. The balanced walk (kBalancedWalk) deals the rounds in a snake and pairs
// two heads' middle blocks: 0.994-0.995 (session 63).
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/common/fast_divide.h"
#include "kernels/common/mask.cuh"
#include "kernels/flash_fwd_api.h"

namespace flashcore {
namespace hopper {

// Packed batches of more sequences keep the unsorted order (every query block of the longest
// sequence is an item of every sequence; past-the-end ones are skipped). 512 entries are 6 KB of
// shared memory, which every head dim's FwdSharedStorage has to spare (static_assert there).
constexpr int kVarlenSortedMax = 512;
static_assert(kVarlenSortedMax <= (1 << 16), "VarlenOrder::seq keeps the batch index in 16 bits");

// Items a head of a sorted packed sequence of m_blocks query blocks has before its middles: its
// whole pairs when paired (kBalancedWalk: floor(m / 2), an odd sequence's middle blocks following as
// items of two heads; otherwise ceil(m / 2), the middle block a pair without its partner), else its
// tiles. build_varlen_order counts with it and TileScheduler::decode divides by it.
template <bool kBalancedWalk>
__host__ __device__ __forceinline__ int packed_items_per_head(int m_blocks, int tiles_per_item) {
  return tiles_per_item == 2 ? (kBalancedWalk ? m_blocks / 2 : (m_blocks + 1) / 2) : m_blocks;
}

struct VarlenOrder {
  int item_end[kVarlenSortedMax];  // items of sorted sequences 0..i, every head (inclusive prefix)
  int m_blocks[kVarlenSortedMax];  // query blocks of the i-th longest sequence
  int seq[kVarlenSortedMax];       // its batch index, and (bits 16..) per_head_div's shift
  uint32_t per_head_mul[kVarlenSortedMax];  // FastDivide by its items per head: the multiplier
  int tiles_per_item;              // 2: causal tiles paired, as TileScheduler decides for dense
  int total_tiles;                 // query blocks of the batch, one head (the pairing decision)
};

// Builds `order` for a packed batch of p.batch <= kVarlenSortedMax sequences; every thread of the
// CTA calls it (it syncs the CTA). Sort key: the sequence's key count (a tile's cost in key
// blocks, or a causal pair's), ties by batch index so every CTA builds the same order. A rank
// sort: thread t places the sequences t, t + blockDim.x, ... by counting the longer ones -- B^2 /
// threads shared-memory reads (B = 512, 384 threads: ~700 each, about 2 us), run once per CTA.
// kBalancedWalk (TileScheduler's): an odd sequence's middle query blocks of two heads make one item.
template <bool kCausal, bool kBalancedWalk = false>
__device__ __noinline__ void build_varlen_order(const int* cu_seqlens_q, const int* cu_seqlens_k, const int* seqused_k,
                                             int max_seqlen_k, int batch, int heads, int block_m, VarlenOrder& order) {
  // Lengths as SeqInfo reads them (the pointers by value: a reference to the kernel's
  // __grid_constant__ parameters here made ptxas keep copies that the producer then spilled).
  auto seqlen_q_of = [&](int b) { return cu_seqlens_q[b + 1] - cu_seqlens_q[b]; };
  auto seqlen_k_of = [&](int b) {
    const int n = cu_seqlens_k != nullptr ? cu_seqlens_k[b + 1] - cu_seqlens_k[b] : max_seqlen_k;  // null: paged
    return seqused_k != nullptr ? min(n, seqused_k[b]) : n;
  };
  int* key = order.item_end;  // the sort keys live here until the items replace them
  if (threadIdx.x == 0) order.total_tiles = 0;
  __syncthreads();
  for (int b = threadIdx.x; b < batch; b += blockDim.x) {
    key[b] = seqlen_k_of(b);
    atomicAdd(&order.total_tiles, (seqlen_q_of(b) + block_m - 1) / block_m);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < batch; b += blockDim.x) {
    const int kb = key[b];
    int rank = 0;
    for (int o = 0; o < batch; ++o) {
      const int ko = key[o];
      rank += ko > kb || (ko == kb && o < b);
    }
    order.seq[rank] = b;
  }
  // Pair causal tiles unless every tile gets an SM of its own (TileScheduler::causal_pairs).
  const int tiles_per_item = kCausal && static_cast<int64_t>(order.total_tiles) * heads > gridDim.x ? 2 : 1;
  __syncthreads();
  for (int i = threadIdx.x; i < batch; i += blockDim.x) {
    const int m_blocks = (seqlen_q_of(order.seq[i]) + block_m - 1) / block_m;
    const int per_head = packed_items_per_head<kBalancedWalk>(m_blocks, tiles_per_item);
    const FastDivide per_head_div(max(per_head, 1));  // a sequence without query rows has no items
    order.m_blocks[i] = m_blocks;
    const bool middles_paired = kBalancedWalk && tiles_per_item == 2 && (m_blocks & 1);
    order.item_end[i] = heads * per_head + (middles_paired ? (heads + 1) / 2 : 0);
    order.seq[i] |= static_cast<int>(per_head_div.shift) << 16;
    order.per_head_mul[i] = per_head_div.mul;
  }
  if (threadIdx.x == 0) order.tiles_per_item = tiles_per_item;
  __syncthreads();
  if (threadIdx.x < 32) {  // inclusive prefix sum, one warp, 32 entries a pass
    const int lane = threadIdx.x;
    int carry = 0;
    for (int base = 0; base < batch; base += 32) {
      int v = base + lane < batch ? order.item_end[base + lane] : 0;
#pragma unroll
      for (int d = 1; d < 32; d *= 2) {
        const int u = __shfl_up_sync(0xffffffffu, v, d);
        if (lane >= d) v += u;
      }
      if (base + lane < batch) order.item_end[base + lane] = carry + v;
      carry += __shfl_sync(0xffffffffu, v, 31);
    }
  }
  __syncthreads();
}

// A 32-bit shared-memory load: the scheduler's table is read through its 32-bit shared address
// (TileScheduler::order_addr, a constant), with no 64-bit generic pointer to keep in the
// producer's 24 registers. (Its spills while this was written came from the sort's reference to
// the kernel parameters and the table's run-time address; this load form alone did not change
// them.)
__device__ __forceinline__ int ld_shared_s32(uint32_t addr) {
  int v;
  asm volatile("ld.shared.s32 %0, [%1];" : "=r"(v) : "r"(addr));
  return v;
}

// The dense walk's divisors as FastDivide (fast_divide.h), set on the host (fwd_launch.cuh) and
// passed to the kernel, which divides a work item's index by them at every tile in every role:
// as `/` and `%` by run-time values those were four I2F / MUFU.RCP / F2I sequences, and a
// consumer's MUFU.RCP queued behind the other consumer's softmax exp2s on the same XU pipe.
// Clock stamps of the d128 causal S1024 forward (H200, docs/results/2026-11-29-h200-session39.md)
// measured a tile's decode at ~1,000-1,200 clocks of a ~18,700-clock tile.
struct FwdWalkDivisors {
  FastDivide items_per_head, heads;
  // The sorted tail of a dense causal walk of pairs (TileScheduler::walk_divisors says when; where
  // there is none, tail_start = walk_end, the pairs' end, and the rest is unused). Walk indices from
  // tail_start on are 2 (r G + c) for CTA c's r-th round (G the grid); its tile is the tail's i-th
  // longest, i = r G + c in even rounds and r G + G - 1 - c in odd ones (a snake).
  int tail_start = 0;  // 2 x the pairs before the tail, a whole number of rounds of the grid
  int walk_end = 0;    // the walk's end: tail_start + 2 G x the tail's rounds
  int tail_tiles = 0;  // tiles in the tail
  int tail_k0 = 0;     // the first pair of the tail's first (batch, head), partial where k0 > 0
  int tail_bh0 = 0;    // that (batch, head) index
  int tail_full = 0;   // (batch, head)s after it, all of their tiles in the tail
  FastDivide grid, tail_full_div, tail_full1_div;  // gridDim.x, tail_full and tail_full + 1 (at least 1)
};

// kBalancedWalk (causal kernels of the head dims tile_policy.h fwd_balanced_walk names; without it
// the walk's code is what it was before): a dense walk of pairs may end in a sorted tail
// (walk_divisors), and a sorted packed batch's walk goes in a snake with the middle query blocks of
// an odd sequence's two heads paired (next and decode say why).
template <bool kCausal, bool kBalancedWalk = false>
struct TileScheduler {
  // Dense order (and packed batches of more than kVarlenSortedMax sequences).
  int dense_tiles_per_item;  // 2: causal (long, short) pairs; 1: a tile per item
  int num_m_blocks, heads;
  int single_blocks;  // paired walks: the last query blocks (full window), one tile per item
  int items_per_head, dense_items;
  FwdWalkDivisors divisors;  // of items_per_head and heads (the kernel's are the launch's)
  // A sorted packed batch (VarlenOrder at the shared-memory address order_addr), or the dense
  // order. Every field is fixed at construction from the kernel's parameters and a constant
  // address, so the compiler can rematerialise them instead of holding them in the producer's 24
  // registers or across the consumers' mainloop (a table address chosen at run time made the d256
  // consumers spill); the sorted order's counts are read from shared memory where needed.
  bool sorted;
  int batch_size;
  uint32_t order_addr;

  // `growing`: the query blocks whose cost grows with their index (growing_m_blocks).
  // `divisors`: FwdWalkDivisors of this walk's items_per_head and heads (walk_divisors() of the same
  // walk built on the host); the host's own walk, which only counts items, leaves them unset.
  __host__ __device__ TileScheduler(int seqlen_q, int heads_, int batch, int block_m, bool pair_causal_tiles,
                                    int growing, bool sorted_varlen = false, uint32_t varlen_order_addr = 0,
                                    const FwdWalkDivisors& divisors_ = {})
      : dense_tiles_per_item(kCausal && pair_causal_tiles ? 2 : 1),
        num_m_blocks((seqlen_q + block_m - 1) / block_m),
        heads(heads_),
        single_blocks(num_m_blocks - min(max(growing, 0), num_m_blocks)),
        items_per_head(dense_tiles_per_item == 2 ? single_blocks + (num_m_blocks - single_blocks + 1) / 2
                                                 : num_m_blocks),
        dense_items(items_per_head * heads_ * batch),
        divisors(divisors_),
        sorted(sorted_varlen),
        batch_size(batch),
        order_addr(varlen_order_addr) {}

  // Query blocks whose first row sees the sequence's first key (all of them without a window):
  // their cost grows with the block; each later block sees a whole window (bottom-right aligned:
  // query row i's first key is i + seqlen_k - seqlen_q - window_left). Tiles of 128 rows: where the
  // growing blocks are at most a quarter of the blocks, all blocks are paired as without a window
  // (the cheap pairs are then too few to unbalance the grid), else the full-window blocks run
  // alone. Measured: window 1024 at S 8k / 16k 0.74 / 0.70 of plain causal paired against 0.70 /
  // 0.69 alone; window 4096: 0.94 / 0.91 alone against 0.89 / 0.85 paired (H100,
  // docs/results/2026-11-23-h100-window-order.md); alone at window 1024, S 8k, on an H200: d128
  // 0.958, d256 0.961 (session 56). The 192-row tiles (head dims 64 and 96, tile_policy.h) run the
  // full-window blocks alone at every window: on an H200, windows of 512-1792 keys +2..+18% against
  // the quarter rule's pairs (kernel-only, S 8192, docs/results/2026-12-01-h200-session56.md).
  // Pack-GQA (gqa_shift > 0): seqlen_q counts positions and a block block_m of the walk's
  // seqlen_q << gqa_shift rows; position i's rows are [i << gqa_shift, (i + 1) << gqa_shift).
  __host__ __device__ static int growing_m_blocks(int seqlen_q, int seqlen_k, int window_left, int block_m,
                                                  int gqa_shift = 0) {
    const int m_blocks = ((seqlen_q << gqa_shift) + block_m - 1) / block_m;
    if (window_left < 0) return m_blocks;
    const int last_pos_from_start = window_left - (seqlen_k - seqlen_q);  // positions <= it see key 0
    // Packed: those positions' rows end before (last + 1) << gqa_shift; the last position is at
    // most seqlen_q - 1, so that stays within the walk's rows (an int: fwd_launch.cuh
    // fwd_gqa_shift). Unpacked (gqa_shift 0): the count as it was before pack-GQA took windows,
    // written the same way so that the unpacked kernels (whose gqa_shift is a constant 0) keep
    // their SASS.
    const int growing =
        last_pos_from_start < 0 ? 0
        : gqa_shift == 0        ? min(m_blocks, last_pos_from_start / block_m + 1)
                                : min(m_blocks, (((min(last_pos_from_start, seqlen_q - 1) + 1) << gqa_shift) - 1) / block_m + 1);
    return block_m <= 128 && 4 * growing <= m_blocks ? m_blocks : growing;
  }

  // The divisors a kernel's walk needs (host: FastDivide's set-up is a loop and a 64-bit divide),
  // and its sorted tail. `grid`: the launch's CTAs. `sorted_tail`: a dense causal walk of pairs with
  // no window on the left (every tile's cost is its query block's index + 1 key blocks).
  //
  // Why a tail: pairs all cost about m + 1 key blocks, so the static round-robin hands each CTA
  // floor or ceil of pairs / G of them. At 16k tokens (2048 tiles of 128 rows, 1024 pairs on 132
  // SMs: 7.76 rounds) that is a quarter of the CTAs idle for the last pair: ncu read the SMs' mean
  // active cycles at 0.965 of the busiest SM's on every causal paper row (H200, session 63,
  // docs/results/2026-12-02-h200-session63.md). So the last G + (pairs mod G) pairs (one round
  // and the remainder, from the last few (batch, head)s: their K / V still fit in L2 together) run
  // as single tiles, longest first, dealt to the CTAs in a snake: each CTA then ends with tiles
  // as short as the tail has. A model of the walk (key blocks + 1.5 a tile) put the SMs' balance
  // at 0.99 over the paper grid's causal rows, 0.97 for pairs alone.
  __host__ FwdWalkDivisors walk_divisors(int grid = 1, bool sorted_tail = false) const {
    FwdWalkDivisors d;
    d.items_per_head = FastDivide(items_per_head);
    d.heads = FastDivide(heads);
    d.grid = FastDivide(grid > 0 ? grid : 1);
    d.tail_full_div = d.tail_full1_div = FastDivide(1);
    const int64_t pair_walk = static_cast<int64_t>(dense_items) * dense_tiles_per_item;
    d.tail_start = d.walk_end = static_cast<int>(pair_walk < INT32_MAX ? pair_walk : INT32_MAX);
    if (!kBalancedWalk || !sorted_tail || dense_tiles_per_item != 2 || single_blocks != 0 || grid <= 0) return d;
    const int rounds_before = dense_items / grid - 1;  // whole rounds of pairs before the tail
    const int pairs_before = (rounds_before > 0 ? rounds_before : 0) * grid;
    const int bh_count = dense_items / items_per_head;
    d.tail_bh0 = pairs_before / items_per_head;
    d.tail_k0 = pairs_before - d.tail_bh0 * items_per_head;
    d.tail_full = bh_count - 1 - d.tail_bh0;
    // The partial (batch, head) keeps the query blocks its pairs k0.. hold: [k0, m - 1 - k0].
    d.tail_tiles = num_m_blocks - 2 * d.tail_k0 + d.tail_full * num_m_blocks;
    const int64_t tail_rounds = (d.tail_tiles + grid - 1) / grid;
    const int64_t end = 2 * static_cast<int64_t>(pairs_before) + 2 * tail_rounds * grid;
    if (end > INT32_MAX) return d;  // the pairs' walk (the launcher's own check bounds it)
    d.tail_start = 2 * pairs_before;
    d.walk_end = static_cast<int>(end);
    d.tail_full_div = FastDivide(d.tail_full > 0 ? d.tail_full : 1);
    d.tail_full1_div = FastDivide(d.tail_full + 1);
    return d;
  }

  // Pairs unless the tiles (batch * heads * query blocks) fit one per SM.
  __host__ static bool causal_pairs(int seqlen_q, int heads, int batch, int block_m, int sm_count) {
    return static_cast<int64_t>((seqlen_q + block_m - 1) / block_m) * heads * batch > sm_count;
  }

  __device__ __forceinline__ int tiles_per_item() const {
    return sorted ? ld_shared_s32(order_addr + offsetof(VarlenOrder, tiles_per_item)) : dense_tiles_per_item;
  }
  __device__ __forceinline__ int num_items() const {
    return sorted ? ld_shared_s32(order_addr + offsetof(VarlenOrder, item_end) + 4 * (batch_size - 1)) : dense_items;
  }

  // Walk: w = tile index within the CTA's item sequence, as item * tiles_per_item + half.
  // tiles_per_item is 1 or 2, so its divisions are selects and shifts (a run-time `%` or `/` is
  // an I2F / MUFU.RCP sequence: FwdWalkDivisors says why that matters).
  // A dense causal walk of pairs ends in its sorted tail (walk_divisors): from tail_start the steps
  // are 2 G, one tile each. Elsewhere tail_start is the walk's end, so the tests below are false.
  __device__ __forceinline__ int first() const { return blockIdx.x * tiles_per_item(); }
  __device__ __forceinline__ int end() const {
    if constexpr (kBalancedWalk) {
      if (!sorted) return divisors.walk_end;
    }
    return num_items() * tiles_per_item();
  }
  __device__ __forceinline__ int next(int w) const {
    const int tpi = tiles_per_item();
    if (kBalancedWalk && !sorted && w >= divisors.tail_start) return w + 2 * gridDim.x;
    if (kBalancedWalk && sorted) {
      // A sorted packed batch: round r of the grid gives CTA c item r G + c when r is even, r G +
      // G - 1 - c when odd (a snake). Items come in descending cost, so a round-robin gave CTA 0
      // the dearest item of every round; a snake evens each two rounds out.
      if (tpi == 2 && !(w & 1)) return w + 1;
      return snake_item(divisors.grid.quotient(tpi == 2 ? w >> 1 : w) + 1, static_cast<int>(blockIdx.x)) * tpi;
    }
    return tpi == 1 || (w & 1) ? w + (gridDim.x - 1) * tpi + 1 : w + 1;
  }
  // False for a missing partner: of the middle growing block when they are odd, and of every
  // full-window block (which runs alone).
  __device__ __forceinline__ bool decode(int w, int& m_block, int& head, int& batch) const {
    const int tiles_per_item = this->tiles_per_item();
    const int item = tiles_per_item == 2 ? w >> 1 : w;
    int k, m_blocks;
    if (sorted) {
      // The sorted sequence holding `item`: the first i with item_end[i] > item.
      const uint32_t item_end = order_addr + offsetof(VarlenOrder, item_end);
      int lo = 0, hi = batch_size - 1;
      while (lo < hi) {
        const int mid = (lo + hi) / 2;
        if (ld_shared_s32(item_end + 4 * mid) > item) {
          hi = mid;
        } else {
          lo = mid + 1;
        }
      }
      m_blocks = ld_shared_s32(order_addr + offsetof(VarlenOrder, m_blocks) + 4 * lo);
      const int local = item - (lo > 0 ? ld_shared_s32(item_end + 4 * (lo - 1)) : 0);
      const int per_head = packed_items_per_head<kBalancedWalk>(m_blocks, tiles_per_item);
      const int seq_entry = ld_shared_s32(order_addr + offsetof(VarlenOrder, seq) + 4 * lo);
      FastDivide per_head_div;
      per_head_div.mul = static_cast<uint32_t>(ld_shared_s32(order_addr + offsetof(VarlenOrder, per_head_mul) + 4 * lo));
      per_head_div.shift = static_cast<uint32_t>(seq_entry) >> 16;
      batch = seq_entry & 0xFFFF;
      if (kBalancedWalk && tiles_per_item == 2 && local >= heads * per_head) {
        // An odd sequence's middle query block, two heads an item (head 2t, 2t + 1): a middle
        // block alone is half a pair, and with ceil(m / 2) items a head the cheap ones recurred
        // at a period that often divides the grid (132 = 11 x 12), so some CTAs drew one every
        // round (a model of the 64 x 100..4000 batch: the SMs' balance 0.969 -> 0.990).
        head = 2 * (local - heads * per_head) + (w & 1);
        m_block = m_blocks / 2;
        return head < heads;
      }
      head = per_head_div.quotient(local);
      k = local - head * per_head;
    } else if (kBalancedWalk && w >= divisors.tail_start) {
      return decode_tail(w, m_block, head, batch);
    } else {
      const int bh = divisors.items_per_head.quotient(item);
      k = item - bh * items_per_head;
      batch = divisors.heads.quotient(bh);
      head = bh - batch * heads;
      m_blocks = num_m_blocks;
      if (kCausal && tiles_per_item == 2) {
        if (k < single_blocks) {  // a full-window block, alone (the item's second tile is missing)
          m_block = num_m_blocks - 1 - k;
          return w % 2 == 0;
        }
        k -= single_blocks;  // the growing blocks [0, m_blocks), paired long with short below
        m_blocks = num_m_blocks - single_blocks;
      }
    }
    if (!kCausal) {
      m_block = k;
      return true;
    }
    const int long_block = m_blocks - 1 - k;
    if (tiles_per_item == 1) {
      m_block = long_block;
      return true;
    }
    m_block = w % 2 == 0 ? long_block : k;
    return w % 2 == 0 || k < long_block;
  }

  // CTA c's item of round r when the grid's rounds go in a snake: r G + c in even rounds, r G +
  // G - 1 - c in odd ones (the sorted tail's tiles, a sorted packed batch's items).
  __device__ __forceinline__ static int snake_item(int r, int c) {
    const int grid = static_cast<int>(gridDim.x);
    return r * grid + ((r & 1) ? grid - 1 - c : c);
  }

  // The sorted tail's tile at walk index w (>= tail_start). Its tiles, longest first: the partial
  // (batch, head) bh0 holds the query blocks [k0, m - 1 - k0], each of the tail_full after it all
  // m, so level t (query block m - 1 - t) has tail_full tiles in its first and last k0 levels and
  // tail_full + 1 between; within a level the (batch, head)s in order.
  __device__ __forceinline__ bool decode_tail(int w, int& m_block, int& head, int& batch) const {
    const int u = (w - divisors.tail_start) >> 1;  // r G + c
    const int r = divisors.grid.quotient(u);
    const int i = snake_item(r, u - r * static_cast<int>(gridDim.x));
    if (i >= divisors.tail_tiles) return false;
    const int full = divisors.tail_full, k0 = divisors.tail_k0;
    const int top = k0 * full, middle = (num_m_blocks - 2 * k0) * (full + 1);
    int level, bh;
    if (i < top) {
      level = divisors.tail_full_div.quotient(i);
      bh = divisors.tail_bh0 + 1 + (i - level * full);
    } else if (i < top + middle) {
      const int j = i - top, q = divisors.tail_full1_div.quotient(j);
      level = k0 + q;
      bh = divisors.tail_bh0 + (j - q * (full + 1));
    } else {
      const int j = i - top - middle, q = divisors.tail_full_div.quotient(j);
      level = num_m_blocks - k0 + q;
      bh = divisors.tail_bh0 + 1 + (j - q * full);
    }
    m_block = num_m_blocks - 1 - level;
    batch = divisors.heads.quotient(bh);
    head = bh - batch * heads;
    return true;
  }
};

}  // namespace hopper
}  // namespace flashcore
