// Hopper (sm_90a) attention forward, the FlashAttention-3 recipe written with PTX:
//   - a persistent grid (one CTA per SM) walking (query block, head, batch) tiles in the order
//     of TileScheduler; warpgroup 0 is the producer, warpgroups 1 and 2 (and 3: head dim 64's
//     long-rows tile, tile_policy.h) are consumers owning 64 query rows each;
//   - the producer's single elected thread loads Q (double-buffered across tiles, or one buffer
//     where two do not fit: FwdTilePolicy::q_buffers, head dims 192 and 256) and K/V blocks
//     through the TMA into a kStages-deep mbarrier pipeline (tma_pipeline.cuh describes it);
//   - consumers compute S = Q K^T with wgmma (both operands in shared memory), the online softmax
//     in registers (kernels/common/online_softmax.cuh), and O += P V with wgmma taking P from
//     registers; S_j and P_{j+1} V_{j+1} are issued together and the softmax of S_j runs while
//     P V is in flight (intra-warpgroup overlap); named-barrier turns make the consumers
//     alternate their GEMM batches round-robin, so one's softmax hides under the others' GEMMs
//     (pingpong);
//   - the epilogue writes O through shared memory (the tile's Q buffer) and a TMA store, while
//     the producer already loads the next tile (its stores: fwd_epilogue.cuh); tiles with
//     FwdTilePolicy::o_from_registers store O from registers and free Q's buffer earlier;
//   - key blocks are walked from the last to the first so the blocks that need a mask (the
//     causal diagonal, the ragged end of the keys) come first; blocks wholly above the causal
//     diagonal are never loaded; a causal sequence whose rows leave a partial tile may start its
//     tiles before its first row, so that they end earlier (kShiftTiles below);
//   - a head dim below kHeadDim (p.head_dim for Q and K, p.head_dim_v for V and O: multiples of
//     8) is the tensor maps' innermost extent: the TMA zero-fills Q, K and V's columns past it
//     and clips O's store there; O's register stores (store_rows) stop at head_dim_v; Q K^T skips
//     the k16 slices past head_dim, and P V narrows to the narrow shape's N (tile_policy.h
//     fwd_narrow_shape);
//   - shared tiles are 128-byte swizzled, 64-byte swizzled at head dim 96 (smem_tile.cuh
//     tile_swizzle_bytes, with the tiles' loads and wgmma descriptors);
//   - K and V from a paged KV cache arrive as page-sized boxes through the block table into the
//     same tiles (paged_kv.cuh); nothing else in the kernel knows the cache is paged.
//   - pack-GQA (kPackGqa, gqa_shift > 0): a tile's rows are the (position, head) pairs of one k/v head's
//     group of query heads, loaded and stored through 5-D maps in the same lines, so each K/V
//     block serves the whole group; only the mask, the lse / sink and the register stores turn a
//     row into its position and head.
// Alternatives measured and dropped (docs/PERF.md): serial GEMMs, overlap without pingpong, one
// CTA per tile, 160-key blocks, batches merged across tile boundaries.
// The host side is fwd_launch.cuh, which the generated sm90a instantiation TUs include
// (kernels/defs.bzl).
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "kernels/common/kernel_attributes.h"
#include "kernels/common/online_softmax.cuh"
#include "kernels/common/rounding_residual.cuh"
#include "kernels/flash_fwd_api.h"
#include "kernels/hopper/fwd_epilogue.cuh"
#include "kernels/hopper/fwd_layout.cuh"
#include "kernels/hopper/fwd_producer.cuh"
#include "kernels/hopper/paged_kv.cuh"
#include "kernels/hopper/smem_tile.cuh"
#include "kernels/hopper/tensor_map.h"
#include "kernels/hopper/tile_policy.h"
#include "kernels/hopper/tile_scheduler.cuh"
#include "kernels/hopper/tma_pipeline.cuh"
#include "kernels/hopper/wgmma.cuh"

namespace flashcore {
namespace hopper {
// The softmax's max slack (OnlineSoftmax, kernels/common/online_softmax.cuh): a row's running max
// moves only when a block's max passes it by more than 8 (a factor 2^8), so after the first block
// most blocks skip O's rescale (head_dim / 2 FMULs per thread per block, as many as the block's
// scores at d128 and twice as many at 256). Measured on the H100, kernel-only bf16 paper grid
// against the exact max (docs/results/2026-11-24-h100-max-slack.md): d256 +5-15%, d192 +4-12%,
// d128 +1-6%, d64 and d96 within noise (+-2%).
constexpr int kFwdMaxSlackLog2 = 8;

// kPackGqa: the pack-GQA kernel (tile_policy.h fwd_has_pack_gqa), taking gqa_shift_arg; the others
// compile with gqa_shift = 0, their code the same as before pack-GQA existed.
template <class Traits, int kHeadDim, bool kCausal, FwdTileKind kTile, bool kPackGqa>
__global__ void __launch_bounds__((fwd_tile_policy(kHeadDim, kTile).consumer_wgs + 1) * 128, 1)
    fwd_kernel(const __grid_constant__ FwdParams p, const __grid_constant__ FwdTensorMaps maps, bool pair_causal_tiles,
               int gqa_shift_arg, const __grid_constant__ FwdWalkDivisors walk_divisors) {
  const int gqa_shift = kPackGqa ? gqa_shift_arg : 0;
  using Element = typename Traits::Element;
  constexpr FwdTilePolicy kPolicy = fwd_tile_policy(kHeadDim, kTile);
  constexpr int kBlockM = kPolicy.block_m;
  constexpr int kBlockN = kPolicy.block_n;
  constexpr int kStages = kPolicy.stages;
  constexpr int kQBuffers = kPolicy.q_buffers;
  // O from registers and Q's buffer freed early: FwdTilePolicy::o_from_registers says why and where.
  constexpr bool kOFromRegisters = kPolicy.o_from_registers;
  // The producer plans each tile and hands the plan over with its Q (tile_policy.h
  // fwd_tile_plan_from_producer says where); elsewhere each consumer warpgroup plans it again.
  constexpr bool kPlanFromProducer = fwd_tile_plan_from_producer(kHeadDim);
  static_assert(!kOFromRegisters || (kQBuffers == 1 && !kPackGqa), "o_from_registers: unpacked one-Q-buffer tiles");
  static_assert(!kOFromRegisters || !kCausal, "o_from_registers: unmasked tiles (store_rows_x2 stores rows from the tile's first)");
  constexpr int kConsumerWarps = kPolicy.consumer_wgs * 4;
  constexpr int kSTiles = kBlockN / 8;   // n8 groups of S
  constexpr int kOTiles = kHeadDim / 8;  // n8 groups of O
  constexpr int kSwizzle = tile_swizzle_bytes(kHeadDim);
  constexpr int kTileCols = kSwizzle / 2;  // columns per swizzled row (column block)
  constexpr uint32_t kQBytes = kBlockM * kHeadDim * sizeof(Element);
  constexpr uint32_t kKVBytes = kBlockN * kHeadDim * sizeof(Element);
  static_assert(kBlockM == 64 * kPolicy.consumer_wgs, "each consumer warpgroup owns 64 query rows");
  static_assert(kHeadDim % kTileCols == 0 && kBlockN % 16 == 0, "tile shape");
  static_assert(kPolicy.consumer_wgs >= 1 && kPolicy.consumer_wgs <= 3, "one consumer, or pingpong turns among two or three");
  static_assert(kQBuffers == 1 || kQBuffers == 2, "Q is single- or double-buffered");
  static_assert((kPolicy.producer_regs + kPolicy.consumer_wgs * kPolicy.consumer_regs) * 128 <= kSm90RegistersPerSm,
                "setmaxnreg budgets exceed the register file");
  using Smem = FwdSharedStorage<Element, kHeadDim, kBlockM, kBlockN, kStages, kQBuffers>;
  static_assert(sizeof(VarlenOrder) + sizeof(Smem) + 1024 <= kSm90MaxDynamicSmemBytes,
                "shared storage (+ 1 KB alignment slack) exceeds 227 KB");

  extern __shared__ unsigned char smem_raw[];
  // The packed batch's tile order first, at the start of the dynamic shared memory, so its
  // address is a constant the compiler rematerialises instead of a register held by every role;
  // then the tiles: swizzled tiles need their atom's alignment (1024 bytes at most; the launch
  // adds 1 KB of slack).
  VarlenOrder& varlen_order = *reinterpret_cast<VarlenOrder*>(smem_raw);
  // Head dim 64 addresses the tiles in the shared space (align_shared: the epilogue's O stores
  // are STS), 1-4% faster on the H100's paper grid. The other head dims keep the generic address
  // the uintptr_t round trip gives (ST.E): with STS, 128 measured 1-3% slower, 192 2-5%, 256 up
  // to 4%, 96 the same (docs/results/2026-11-23-h100-smem-space.md).
  Smem& smem = *reinterpret_cast<Smem*>(
      kHeadDim == 64 ? align_shared<1024>(smem_raw + sizeof(VarlenOrder))
                     : reinterpret_cast<unsigned char*>((reinterpret_cast<uintptr_t>(smem_raw) + sizeof(VarlenOrder) + 1023) &
                                                        ~uintptr_t(1023)));

  const bool varlen = p.cu_seqlens_q != nullptr;
  const bool sorted_varlen = varlen && p.batch <= kVarlenSortedMax;
  if (sorted_varlen) {  // syncs the CTA
    build_varlen_order<kCausal, kCausal && fwd_balanced_walk(kHeadDim)>(p.cu_seqlens_q, p.cu_seqlens_k, p.seqused_k, p.seqlen_k, p.batch, p.heads, kBlockM, varlen_order);
  }
  // Pack-GQA (gqa_shift > 0, fwd_launch.cuh decides): the 2^gqa_shift query heads of one k/v head
  // share a tile, row r being position r >> gqa_shift of query head (kv << gqa_shift) + r % 2^gqa_shift
  // (maps.q / maps.o are then 5-D: tensor_map.h make_packed_gqa_tensor_map). The scheduler walks
  // the k/v heads over seqlen_q << gqa_shift rows, each K / V block is read once for the whole
  // group, and a causal tile spans 1 / 2^gqa_shift as many positions, so fewer of its key blocks
  // are partly masked. Rows are turned into positions where the mask or a tensor needs them.
  const FwdWalkShape walked = fwd_walk_shape(p, gqa_shift);
  const TileScheduler<kCausal, kCausal && fwd_balanced_walk(kHeadDim)> scheduler(
      walked.rows, walked.heads, p.batch, kBlockM, pair_causal_tiles,
      kCausal ? TileScheduler<kCausal>::growing_m_blocks(p.seqlen_q, p.seqlen_k, p.window_left, kBlockM, gqa_shift) : 0,
      sorted_varlen,
      static_cast<uint32_t>(__cvta_generic_to_shared(smem_raw)), walk_divisors);
  const int tma_batch_of = varlen ? 0 : 1;  // packed varlen: one TMA batch entry holds every row
  const int group = gqa_shift > 0 ? 1 : p.heads / p.heads_kv;  // query heads per k/v head (a packed tile's head is its k/v head)
  // Shifted tiles (tile_policy.h fwd_tile_shift_unit says when they save key blocks): in a masked
  // call whose rows' last key grows with the row (causal, or a window bounded on the right), a
  // sequence whose rows leave a partial tile starts its tiles `shift` rows before row 0, the
  // largest multiple of kShiftUnit not past the partial tile's empty rows, so its tiles end that
  // much earlier. Rows before the sequence are loaded -- the previous sequence's rows, or the TMA's
  // zeros before the tensor -- and never stored; rows are independent, so what they hold (NaN
  // included) stays in them. Kernels whose tiles a shift cannot help keep shift 0 at compile time.
  // Pack-GQA: key blocks are kBlockN << gqa_shift rows; a unit for the largest group (8) serves
  // every smaller one (their units divide it) and keeps m0 on a position.
  constexpr int kShiftUnit = fwd_tile_shift_unit(kBlockM, kPackGqa ? kBlockN * 8 : kBlockN);
  static_assert(!kPackGqa || kShiftUnit % 8 == 0, "pack-GQA: shifts of whole positions");
  constexpr bool kShiftTiles = kCausal && kShiftUnit < kBlockM;
  const bool shift_tiles = kShiftTiles && p.window_right >= 0;
  // A tile's sequence and the key blocks [n_first, n_end) its query rows visit (the window's,
  // not all of them); shift: rows the tile starts before m_block * kBlockM (0 unless kShiftTiles).
  // plan() is false for a tile past its sequence's end (varlen): no role touches it.
  struct TilePlan : FwdTile {
    __device__ __forceinline__ int m0() const { return m_block * kBlockM - (kShiftTiles ? shift : 0); }  // may be < 0
  };
  auto plan = [&](int w, TilePlan& t) {
    if (!scheduler.decode(w, t.m_block, t.head, t.batch)) return false;
    t.seq = SeqInfo(p, t.batch, p.seqlen_q, p.seqlen_k);
    const int rows = t.seq.seqlen_q << gqa_shift;
    if (t.m_block * kBlockM >= rows) return false;
    t.shift = 0;
    if (shift_tiles) {
      const int empty_rows = (kBlockM - rows % kBlockM) % kBlockM;
      t.shift = empty_rows - empty_rows % kShiftUnit;
    }
    AttentionMask<kCausal>(t.seq, p).key_blocks(t.m0() >> gqa_shift, kBlockM >> gqa_shift, kBlockN, t.n_first, t.n_end);
    return true;
  };
  // O of a tile goes through the Q buffer and the TMA where the tile lies inside its sequence; a
  // packed tile that ends past its sequence (a box would overwrite the next sequence's rows) or a
  // shifted first tile (rows before the sequence) stores from registers.
  auto o_by_tma = [&](const TilePlan& t) {
    return !kOFromRegisters && (!kShiftTiles || t.m0() >= 0) && (!varlen || t.m0() + kBlockM <= t.seq.seqlen_q);
  };

  if (threadIdx.x == 0) {
    prefetch_tensor_map(&maps.q);
    prefetch_tensor_map(&maps.k);
    prefetch_tensor_map(&maps.v);
    prefetch_tensor_map(&maps.o);
    mbar_init(&smem.q_full[0], 1);
    if constexpr (kQBuffers == 2) mbar_init(&smem.q_full[1], 1);
    mbar_init(&smem.q_empty[0], kOFromRegisters ? kConsumerWarps * 32 : kConsumerWarps);
    if constexpr (kQBuffers == 2) mbar_init(&smem.q_empty[1], kConsumerWarps);
#pragma unroll
    for (int s = 0; s < kStages; ++s) {
      mbar_init(&smem.k_full[s], 1);
      mbar_init(&smem.v_full[s], 1);
      mbar_init(&smem.k_empty[s], kConsumerWarps);
      mbar_init(&smem.v_empty[s], kConsumerWarps);
    }
    mbar_init(&smem.v_aux, 1);
    mbar_init_fence();
  }
  __syncthreads();

  if (threadIdx.x / 128 == 0) {
    // ---------------------------------------------------------------- producer warpgroup
    warpgroup_reg_dealloc<kPolicy.producer_regs>();
    // Warp 0 loads and stores (fwd_producer.cuh); the other producer warps have nothing to do.
    if (threadIdx.x >= 32) return;
    fwd_produce<Element, kHeadDim, kBlockM, kBlockN, kStages, kQBuffers, kPlanFromProducer, TilePlan>(
        p, maps, smem, scheduler, plan, o_by_tma, gqa_shift, group, tma_batch_of, varlen);
    return;
  }

  // ------------------------------------------------------------------ consumer warpgroups
  warpgroup_reg_alloc<kPolicy.consumer_regs>();
  // Consumer index (rows [m0 + 64 * cwg, +64)). warpgroup_index() broadcasts it from lane 0, so
  // ptxas knows it is the same across the warp and keeps Q's wgmma descriptors in uniform
  // registers (from threadIdx.x / 128 directly, each of them took two R2UR moves per wgmma).
  const int cwg = warpgroup_index() - 1;
  const int warp = (threadIdx.x / 32) % 4;
  const int lane = threadIdx.x % 32;
  const float scale_log2 = softmax_scale_log2(p, p.softmax_scale);
  constexpr DType kDType = Traits::kDType;
  // bf16 softcap calls within bounded_softcap_max's range take the softmax step without a running
  // max (OnlineSoftmax::step_bounded): softcap * tanh bounds every score. fp16 P cannot hold the
  // range, so fp16 keeps the running max (the branch below is compiled out).
  const float m_bounded = kDType == DType::kBf16 && p.softcap > 0.f ? bounded_softcap_max(scale_log2) : NAN;
  const bool bounded_softcap = !isnan(m_bounded);
  // Calls whose head dims fit the kernel's narrow shape (tile_policy.h fwd_narrow_shape: e.g. 80
  // on the 96 kernel, the (192, 128) pair on the 192 kernel) run a second copy of the mainloop
  // with fewer GEMM columns; the choice is made once per call, outside the mainloop, because a
  // branch among the wgmma of a batch costs the full-width path its precomputed descriptors.
  constexpr int kNarrowQkCols = fwd_narrow_shape(kHeadDim).qk_cols;
  constexpr int kNarrowPvCols = fwd_narrow_shape(kHeadDim).pv_cols;
  const bool narrow_call = kNarrowQkCols > 0 && p.head_dim <= kNarrowQkCols && p.head_dim_v <= kNarrowPvCols;

  auto release = [&](uint64_t* bar) {
    __syncwarp();
    if (lane == 0) mbar_arrive(bar);
  };
  // Pingpong turns: each GEMM batch (Q K_0; then Q K_j with P_{j+1} V_{j+1}; then the last P V)
  // is issued inside a turn, the consumers taking turns round-robin. Named barrier 1 + c opens
  // consumer c's turn: c syncs on it, consumer c - 1 arrives on it after issuing its own batch.
  // The last consumer opens consumer 0's very first turn; turns run on across tiles (consumer 0
  // starts the next tile's GEMMs while the others still finish their epilogues), and consumer 0
  // absorbs the last pass after its final tile, so every barrier phase is matched. A single
  // consumer (the few-tiles tile) has the tensor cores to itself: no turns.
  constexpr int kTurnThreads = 256;
  constexpr int kConsumers = kPolicy.consumer_wgs;
  bool turns_started = false;
  auto wait_turn = [&]() {
    if constexpr (kConsumers > 1) {
      if (!turns_started) {
        turns_started = true;
        if (cwg == kConsumers - 1) named_barrier_arrive(1, kTurnThreads);
      }
      named_barrier_sync(1 + cwg, kTurnThreads);
    }
  };
  auto pass_turn = [&]() {
    if constexpr (kConsumers > 1) named_barrier_arrive(1 + (cwg + 1) % kConsumers, kTurnThreads);
  };

  PipelineState<kStages> kv;
  PipelineState<kQBuffers> q_state;
  // The tiles: kPlanFromProducer, each from the producer's slot (w unused); otherwise the walk,
  // each consumer warpgroup planning its tiles itself.
  for (int w = kPlanFromProducer ? 0 : scheduler.first(); kPlanFromProducer || w < scheduler.end();
       w = kPlanFromProducer ? w : scheduler.next(w)) {
    TilePlan t;
    int slot_qs = 0;  // kPlanFromProducer: the tile's Q buffer, and Q's and V's shared addresses
    uint32_t q_tile_addr = 0, v_tiles_addr = 0;
    if constexpr (kPlanFromProducer) {
      // The producer's next tile (FwdTile) and, where it visits key blocks, its Q.
      slot_qs = q_state.stage();
      const uint32_t q_parity = q_state.parity();
      ++q_state.count;
      mbar_wait_warp(&smem.q_full[slot_qs], q_parity);
      // Lane 0 of each warp reads the slot and shuffles it to the warp. ptxas then knows the plan
      // is warp-uniform: from a shared load in every lane it took the loop's exit and bounds for
      // divergent, and the wgmma descriptors left the uniform registers (92 R2UR moves in the d128
      // main loop; d64 spilled). And the reader is the lane whose q_empty arrival (release) orders
      // the read before the producer's next write of the slot (racecheck flagged the other lanes'
      // reads, ordered only through __syncwarp, in the one-consumer kernels).
      static_assert(sizeof(FwdTile) == 10 * sizeof(int), "FwdTile is ten ints");
      const uint32_t slot = smem_u32(&smem.tile[slot_qs]);
      int f[10];
#pragma unroll
      for (int i = 0; i < 10; ++i) {
        f[i] = 0;
        if (lane == 0) f[i] = ld_shared_s32(slot + 4 * i);
        f[i] = __shfl_sync(0xffffffffu, f[i], 0);
      }
      memcpy(static_cast<FwdTile*>(&t), f, sizeof(FwdTile));
      if (t.m_block < 0) break;
      q_tile_addr = __shfl_sync(0xffffffffu, smem_u32(smem.q[slot_qs]), 0);
      v_tiles_addr = __shfl_sync(0xffffffffu, smem_u32(smem.v[0]), 0);
    } else {
      if (!plan(w, t)) continue;
    }
    const int head = t.head, batch = t.batch;
    const SeqInfo& seq = t.seq;
    const int n_blocks = max(t.n_end - t.n_first, 0);
    const int m0 = t.m0();
    const int row_base = m0 + cwg * 64 + warp * 16 + lane / 4;  // rows row_base and row_base + 8
    const AttentionMask<kCausal> mask(seq, p);
    const KeyRange key_limit[2] = {mask.keys_of_row(row_base >> gqa_shift), mask.keys_of_row((row_base + 8) >> gqa_shift)};
    const int pos0 = m0 >> gqa_shift, positions = kBlockM >> gqa_shift;  // the tile's sequence positions
    // Where this thread's rows go (fwd_epilogue.cuh; pack-GQA: each row's query head and position).
    const FwdThreadRows rows{row_base, head, batch, gqa_shift, seq};

    float o[kOTiles * 4];
#pragma unroll
    for (int i = 0; i < kOTiles * 4; ++i) o[i] = 0.f;
    OnlineSoftmax<kSTiles, kFwdMaxSlackLog2, fwd_softmax_halves_together(kHeadDim)> softmax;
    constexpr int kBoundedPolyEvery = fwd_bounded_exp2_poly_every(kHeadDim);

    // A key block needs masking if some row of this tile does not see all of it. Softcap: the
    // scores become tanh(scale * s / softcap) and the softmax scale softcap * log2(e).
    // Head dim 128: a block without a mask takes softcap's tanh inside the softmax step
    // (TanhScoreTransform), where the row max's chain runs on the raw scores beside the tanh
    // stream instead of after it. At 128 a consumer warp's block is 64 tanh and 64 exp2 MUFU ops,
    // 8 clocks each on its SMSP's XU pipe: 1024 clocks, as long as the warpgroup's two GEMMs, so
    // the two-consumer pingpong cannot hide a max chain between them (the one-consumer few-tiles
    // tile takes the same step). Measured on an H200 (kernel-only,
    // alternating processes, docs/results/2026-11-28-h200-session31.md): d128 softcap rows +4.8%
    // (bf16 and fp16), plain rows within noise; at d64 -8%: its 192-row tile (three consumers, 160
    // registers) spilled 28-128 bytes more, so the other head dims keep tanh before the step.
    // The second branch below is the step as it was before, written out whole rather than merged
    // into the first: merged, the other head dims' SASS changed (unmeasured); apart, it is the
    // SASS they had before session 31 (cuobjdump).
    constexpr bool kTanhInSoftmaxStep = kHeadDim == 128;
    // A bounded softcap (m_bounded above): measured on an H200 (kernel-only, alternating processes,
    // docs/results/2026-11-30-h200-session51.md), softcap 30 and 50 rows d128 +5.7..+8.3%, d64
    // +2.0..+4.7%; issue 13's softcap row (d128 S4096 causal) then costs +8.9 / +10.0% over plain
    // (was +18.5 / +19.5%). The code it adds gave the bf16 d128 full kernel an 8-byte spill, reloaded
    // once per tile outside the key-block loop (plain d128 full rows 0.973-1.007 over three calls);
    // passing the fixed max as a kernel argument instead left the spill as it was.
    // `bounded`: this call takes the bounded softcap step (bounded_softcap), passed down from
    // the mainloop copy (run_mainloop below).
    auto softmax_step = [&](float(&s)[kSTiles * 4], int j, float(&alpha)[2], bool bounded) {
      if (bounded) {
        scale_scores(s, p.softmax_scale / p.softcap);
        if (mask.block_needs_mask(pos0, positions, j * kBlockN, kBlockN)) {
          softmax.template step_bounded<true, kBoundedPolyEvery>(s, scale_log2, m_bounded, j * kBlockN, key_limit, alpha);
        } else {
          softmax.template step_bounded<false, kBoundedPolyEvery>(s, scale_log2, m_bounded, j * kBlockN, key_limit, alpha);
        }
        return;
      }
      if constexpr (kTanhInSoftmaxStep) {
        const bool softcap = p.softcap > 0.f;
        if (softcap) scale_scores(s, p.softmax_scale / p.softcap);
        if (mask.block_needs_mask(pos0, positions, j * kBlockN, kBlockN)) {
          if (softcap) tanh_scores(s);
          softmax.template step<true>(s, scale_log2, j * kBlockN, key_limit, alpha);
        } else if (softcap) {
          softmax.template step<false>(s, scale_log2, j * kBlockN, key_limit, alpha, TanhScoreTransform{});
        } else {
          softmax.template step<false>(s, scale_log2, j * kBlockN, key_limit, alpha);
        }
      } else {
        if (p.softcap > 0.f) softcap_scores(s, p.softmax_scale / p.softcap);
        if (mask.block_needs_mask(pos0, positions, j * kBlockN, kBlockN)) {
          softmax.template step<true>(s, scale_log2, j * kBlockN, key_limit, alpha);
        } else {
          softmax.template step<false>(s, scale_log2, j * kBlockN, key_limit, alpha);
        }
      }
    };
    // The plain calls' step (their mainloop copy, kPlainOwnLoop below): no softcap and a
    // non-negative scale, so it tests neither.
    auto softmax_step_plain = [&](float(&s)[kSTiles * 4], int j, float(&alpha)[2]) {
      if (mask.block_needs_mask(pos0, positions, j * kBlockN, kBlockN)) {
        softmax.template step<true, NoScoreTransform, true>(s, scale_log2, j * kBlockN, key_limit, alpha);
      } else {
        softmax.template step<false, NoScoreTransform, true>(s, scale_log2, j * kBlockN, key_limit, alpha);
      }
    };
    // P (fp32 probabilities in the S fragment) -> the A-operand fragments of k16 steps: columns
    // [16kk, 16kk + 16) are n8 groups 2kk and 2kk + 1, which is the m16k16 A layout.
    auto convert_p = [&](const float(&s)[kSTiles * 4], uint32_t(&pf)[kBlockN / 16][4], bool bounded) {
#pragma unroll
      for (int kk = 0; kk < kBlockN / 16; ++kk) {
        pf[kk][0] = Traits::pack2(s[8 * kk + 0], s[8 * kk + 1]);
        pf[kk][1] = Traits::pack2(s[8 * kk + 2], s[8 * kk + 3]);
        pf[kk][2] = Traits::pack2(s[8 * kk + 4], s[8 * kk + 5]);
        pf[kk][3] = Traits::pack2(s[8 * kk + 6], s[8 * kk + 7]);
      }
      if constexpr (kDType == DType::kBf16) {
        if (bounded) {
          // A bounded step's row sums (OnlineSoftmax::step_bounded): this block's P times ones on
          // the tensor cores, an mma.sync m16n8k16 a k16 step with P V's own bf16 A fragments, so
          // that they count exactly what O accumulates. Every column of the product holds its row's
          // sum (registers 0 and 2: rows r and r + 8), so each thread of a quad has the whole sums.
          // (The step needs no alpha: the sums are never rescaled.) Measured on an H200 against the
          // fp32 sums of unrounded P it replaces (kernel-only,
          // docs/results/2026-11-30-h200-session54.md): softcap 30 rows d128 +2.4..+3.8%, d64
          // 0.983-1.017; rounding P to bf16 before fp32 sums instead cost d128 2-3% and d64 9-12%
          // (the d64 192-row tile spilled).
          constexpr uint32_t kOnes = 0x3f803f80u;  // bf16 1.0 twice
          float block_sums[4] = {0.f, 0.f, 0.f, 0.f};
#pragma unroll
          for (int kk = 0; kk < kBlockN / 16; ++kk) Traits::mma_16x8x16(block_sums, pf[kk], kOnes, kOnes);
          softmax.add_quad_held_row_sums(block_sums[0], block_sums[2]);
        }
      }
    };

    const int qs = kPlanFromProducer ? slot_qs : q_state.stage();  // meaningful when n_blocks > 0
    // The mainloop, at the kernel's head dim or at its narrow shape (kNarrowQkCols above).
    // bounded_copy: std::true_type / std::false_type for a copy that only runs calls with / without
    // the bounded softcap step (kBoundedOwnLoop below), or the call's bool.
    auto mainloop = [&](auto narrow, auto bounded_copy, auto plain_copy) {
      const bool bounded = bounded_copy;
      // This copy's GEMM widths: the kernel's head dim, or the narrow shape's columns.
      constexpr int kQkSlices = (decltype(narrow)::value ? kNarrowQkCols : kHeadDim) / 16;
      constexpr int kPvCols = decltype(narrow)::value ? kNarrowPvCols : kHeadDim;
      auto issue_qk = [&](float(&s)[kSTiles * 4], int stage) {
        wgmma_fence();
        if constexpr (kHeadDim >= 192) {
          // Q's and K's addresses broadcast from lane 0, so that ptxas keeps their descriptors in
          // uniform registers: from the generic addresses it built the 256 and 192 causal kernels'
          // in vector registers, two R2UR moves before each HGMMA (cuobjdump: 119 and 18 in their
          // main loops, 0 with the broadcast). The other head dims have none either way and keep
          // the plain form (their SASS as before).
          const uint32_t q_addr = __shfl_sync(0xffffffffu, smem_u32(smem.q[qs]), 0);
          const uint32_t k_addr = __shfl_sync(0xffffffffu, smem_u32(smem.k[stage]), 0);
#pragma unroll
          for (int kk = 0; kk < kQkSlices; ++kk) {
            wgmma_ss<kBlockN, kDType>(s, kmajor_desc_at<kBlockM, kSwizzle>(q_addr, cwg * 64, kk),
                                      kmajor_desc_at<kBlockN, kSwizzle>(k_addr, 0, kk), kk > 0 ? 1 : 0);
          }
        } else {
          // kPlanFromProducer: Q's address as broadcast at the tile's top.
#pragma unroll
          for (int kk = 0; kk < kQkSlices; ++kk) {
            wgmma_ss<kBlockN, kDType>(s,
                                      kPlanFromProducer ? kmajor_desc_at<kBlockM, kSwizzle>(q_tile_addr, cwg * 64, kk)
                                                        : kmajor_desc<kBlockM, kSwizzle>(smem.q[qs], cwg * 64, kk),
                                      kmajor_desc<kBlockN, kSwizzle>(smem.k[stage], 0, kk), kk > 0 ? 1 : 0);
          }
        }
        wgmma_commit();
      };
      // O's first kPvCols columns are each thread's first kPvCols / 2 accumulators (n8 groups in
      // order), so a narrower P V updates a prefix of o.
      auto& o_cols = *reinterpret_cast<float(*)[kPvCols / 2]>(&o[0]);
      auto issue_pv = [&](uint32_t(&pf)[kBlockN / 16][4], int stage) {
        wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < kBlockN / 16; ++kk) {
          wgmma_rs<kPvCols, kDType>(o_cols, pf[kk],
                                    kPlanFromProducer ? v_desc_at<kBlockN, kSwizzle>(v_tiles_addr + stage * kKVBytes, kk)
                                                      : v_desc<kBlockN, kSwizzle>(smem.v[stage], kk),
                                    1);
        }
        wgmma_commit();
      };
      if constexpr (!kPlanFromProducer) {  // otherwise the tile came with its Q
        mbar_wait(&smem.q_full[qs], q_state.parity());
        ++q_state.count;
      }
      {
        // First block of the walk: S, softmax, P. V of each block is consumed one step later.
        float sacc[kSTiles * 4];
        uint32_t pf[kBlockN / 16][4];
        PipelineState<kStages> v_pending = kv;
        {
          const int s = kv.stage();
          mbar_wait(&smem.k_full[s], kv.parity());
          wait_turn();
          issue_qk(sacc, s);
          pass_turn();
          wgmma_wait<0>();
          fence_operands(sacc);
          release(&smem.k_empty[s]);
          float alpha[2];
          // alpha is 0 here and O is still 0
          if constexpr (decltype(plain_copy)::value) {
            softmax_step_plain(sacc, t.n_end - 1, alpha);
          } else {
            softmax_step(sacc, t.n_end - 1, alpha, bounded);
          }
          convert_p(sacc, pf, bounded);
          ++kv.count;
        }
        for (int j = t.n_end - 2; j >= t.n_first; --j, ++kv.count) {
          const int s = kv.stage();
          const int s_prev = v_pending.stage();
          mbar_wait(&smem.k_full[s], kv.parity());
          mbar_wait(&smem.v_full[s_prev], v_pending.parity());
          wait_turn();
          issue_qk(sacc, s);
          issue_pv(pf, s_prev);
          pass_turn();
          wgmma_wait<1>();  // S_j is ready; P_{j+1} V_{j+1} may still run
          fence_operands(sacc);
          release(&smem.k_empty[s]);
          float alpha[2];
          if constexpr (decltype(plain_copy)::value) {
            softmax_step_plain(sacc, j, alpha);
          } else {
            softmax_step(sacc, j, alpha, bounded);
          }
          wgmma_wait<0>();
          fence_operands(o);
          fence_operands(pf);
          release(&smem.v_empty[s_prev]);
          ++v_pending.count;
          rescale_rows_if_needed<kOTiles>(o, alpha);
          convert_p(sacc, pf, bounded);
        }
        // The tile's last Q K^T has completed (kOFromRegisters: the next tile's Q may load now).
        if constexpr (kOFromRegisters) mbar_arrive(&smem.q_empty[qs]);  // every consumer thread
        const int s_last = v_pending.stage();
        mbar_wait(&smem.v_full[s_last], v_pending.parity());
        wait_turn();
        issue_pv(pf, s_last);
        pass_turn();
        wgmma_wait<0>();
        fence_operands(o);
        release(&smem.v_empty[s_last]);
      }
    };
    // The bf16 bounded softcap step's mainloop copy of its own (tile_policy.h fwd_bounded_own_loop
    // says on which tiles and why); elsewhere it shares the general copy, `bounded` a run-time bool.
    constexpr bool kBoundedOwnLoop =
        kDType == DType::kBf16 && fwd_bounded_own_loop(kHeadDim, kPolicy.consumer_regs);
    // Calls without a softcap and with a non-negative scale (every model's) take a mainloop copy of
    // their own on the kernels of tile_policy.h fwd_plain_own_loop: its softmax step has no
    // run-time test of the softcap, the bounded step or the scale's sign (ncu of the d128 forward
    // beside FlashAttention-4's had 14 branches in our key-block loop against its 3; measured:
    // tile_policy.h). A narrow copy takes it where fwd_plain_own_loop_narrow says, independently of
    // the full-width copy (96's narrow copy gains, its full-width one did not).
    constexpr bool kPlainOwnLoop = fwd_plain_own_loop(kHeadDim);
    const bool plain_call = !(p.softcap > 0.f) && scale_log2 >= 0.f;
    auto run_mainloop = [&](auto narrow) {
      if constexpr (decltype(narrow)::value ? fwd_plain_own_loop_narrow(kHeadDim) : kPlainOwnLoop) {
        if (plain_call) {
          mainloop(narrow, std::false_type{}, std::true_type{});
          return;
        }
      }
      if constexpr (kBoundedOwnLoop) {
        if (bounded_softcap) {
          mainloop(narrow, std::true_type{}, std::false_type{});
        } else {
          mainloop(narrow, std::false_type{}, std::false_type{});
        }
      } else {
        mainloop(narrow, bounded_softcap, std::false_type{});
      }
    };
    if (n_blocks > 0) {
      if constexpr (kNarrowQkCols > 0) {
        if (narrow_call) {
          run_mainloop(std::true_type{});
        } else {
          run_mainloop(std::false_type{});
        }
      } else {
        run_mainloop(std::false_type{});
      }
    }

    // ---------------------------------------------------------------- epilogue
    // O is normalised, converted and written into this warpgroup's rows of the tile's Q buffer
    // (its last Q K^T has run; the other warpgroup's rows are disjoint) in the tiles' swizzled
    // layout and the buffer is handed to the producer, which stores O with the TMA before it
    // loads a later Q there: the warpgroup moves on to the next tile at once. kOFromRegisters:
    // O goes from registers to its rows instead, the buffer freed already.
    // Rows that saw no key (causal, seqlen_q > seqlen_k) get O = 0 and lse = -inf.
    // O of a varlen tile that ends past its sequence goes straight from registers to its rows (a
    // TMA box would spill into the next sequence); so do the zeros of a tile that sees no key.
    float inv[2], lse_row[2];
    softmax.finish(inv, lse_row, p.sink != nullptr ? p.sink[rows.head_of(row_base)] * kLog2e : -INFINITY);
    if (p.lse != nullptr) rows.write_lse<kPackGqa>(p, varlen, lane, lse_row);  // null: the caller did not ask for it
    if (p.o_resid != nullptr) {
      // Training: what O's rounding drops (FwdParams::o_resid), read once by the backward's
      // preprocess; plain stores, so the TMA path below stays as it is.
      rows.store_rows<Element, kOTiles, kPackGqa>(p, p.o_resid, lane, n_blocks, o, inv, [](float x, float y) {
        return pack2_rounding_residual<Traits>(x, y);
      });
    }
    if (n_blocks > 0 && o_by_tma(t)) {
      write_o_tile_swizzled<Traits, kOTiles, kSwizzle, kBlockM>(reinterpret_cast<unsigned char*>(smem.q[qs]),
                                                                cwg * 64 + warp * 16 + lane / 4, lane, o, inv);
      fence_view_async_shared();  // this thread's O writes, before the producer's TMA store reads them
      release(&smem.q_empty[qs]);
    } else if (kOFromRegisters) {
      rows.store_rows_x2<Element, kOTiles>(p, lane, n_blocks, o, inv, [](float x, float y) { return Traits::pack2(x, y); });
      // A tile without key blocks took its slot (kPlanFromProducer): every thread, as after a last Q K^T.
      if (kPlanFromProducer && n_blocks == 0) mbar_arrive(&smem.q_empty[qs]);
    } else {
      rows.store_rows<Element, kOTiles, kPackGqa>(p, p.o, lane, n_blocks, o, inv,
                                                  [](float x, float y) { return Traits::pack2(x, y); });
      // The Q buffer is free: no O is owed from it (kPlanFromProducer: a tile without key blocks
      // took its slot too).
      if (kPlanFromProducer || n_blocks > 0) release(&smem.q_empty[qs]);
    }
  }
  if (turns_started && cwg == 0) named_barrier_sync(1, kTurnThreads);
}

}  // namespace hopper
}  // namespace flashcore
