// Hopper forward tile policy: the one place that decides tile shapes, pipeline depth and
// register split, per head dim.
#pragma once

#include <numeric>

namespace flashcore {
namespace hopper {

struct FwdTilePolicy {
  int block_m;        // query rows per CTA: 64 per consumer warpgroup
  int block_n;        // keys per mainloop step (the N of S = Q K^T)
  int stages;         // K and V shared-memory stages each
  int consumer_wgs;   // consumer warpgroups (plus one producer warpgroup)
  int producer_regs;  // setmaxnreg budgets; (producer + consumers) * 128 threads <= 64K registers
  int consumer_regs;
  int q_buffers = 2;  // Q (and the O it becomes) buffers: 2 = the next tile's Q loads during this one's epilogue
  // One Q buffer only: O goes from the consumers' registers to global memory (8-byte pieces) instead
  // of through the Q buffer and the TMA, and Q's buffer is freed after the tile's last Q K^T, so
  // the producer loads the next tile's Q and K during the last P V and the epilogue instead of
  // after the O store. Measured on an H200 (kernel-only, alternating processes,
  // docs/results/2026-11-29-h200-session37.md): 192's long-rows tile (full rows from 4096 keys)
  // +1.9..+7.6% (bf16 + fp16); 256's tile even unmasked and 0.95-0.99 causal (its causal kernel
  // spills more), so 256 keeps the TMA store; with 4-byte stores both lost up to 15%.
  bool o_from_registers = false;
};

// sm_90's limits the policies are checked against (fwd_kernel.cuh static_asserts them).
constexpr int kSm90MaxDynamicSmemBytes = 227 * 1024;  // per block, opt-in (cudaFuncSetAttribute)
constexpr int kSm90RegistersPerSm = 64 * 1024;

// Whether a head dim has a second forward tile for long sequences (fwd_tile_policy below), and
// whether a call runs on it (seqlen_q / seqlen_k are the maxima when packed). Both tiles of a head
// dim are compiled into its one registered launcher (no new instantiation keys):
//   64: the 192-row tile from 1024 query rows on (3072 when causal; packed causal batches whose
//       lengths vary, 1536). Forced tiles in one process, 192 / 128 rows (H100, kernel-only, bf16
//       and fp16; docs/results/2026-11-27-h100-session24.md unless said):
//       - not causal, dense: S 1024 1.072-1.080, 1280 1.132-1.142, 1536 1.160-1.179, 1792
//         1.097-1.099, 2048 +7% (session 15); packed, lengths varied or equal, longest 979-1958:
//         1.12-1.24;
//       - causal, dense: S 2048 0.960-0.985 (half of a causal row's tiles are short; session 15:
//         -9%), 2560 0.983-0.996, 3072 1.118-1.124, 3584 1.048-1.054, 4096 1.049-1.058; equal
//         packed lengths alike (2048 0.95-0.97, 2560 1.01-1.03, 3072 1.12);
//       - causal, packed with varied lengths (packed_q_rows, their rows, under 95% of batch x the
//         longest; 64 sequences, three runs): 1.015-1.121 at every longest length from 1958 to 3988
//         (spreads 100..2048 to 1800..2200, 100..4000), 1496: 1.016-1.038 bf16, 0.984-0.992 fp16.
//         Lengths within 1% of 2048 measured 0.94-0.98, as the dense S 2048 (the 192-row tile's
//         last block two-thirds full): the mean keeps those on the dense rule.
//   96: the 192-row tile from 2048 query rows on, causal or not. Against the 128-row tile (one
//       process, forced tiles, bf16): S 2048 full +8..+12%, causal +2.5..+3.1%, S 4096 +12..+17%,
//       but S 1024 -3..-7% (H100, docs/results/2026-11-24-h100-session19.md).
//   192, unmasked only: the 112-key tile (one Q buffer) from 4096 keys on. Against the 80-key
//       tile (bf16 / fp16): full S 4096 +3.2 / +3.6%, S 16384 +5.4 / +7.4%, S 2048 +0.5 / -0.2%,
//       S 1024 -4.5%; causal S 1024-2048 -3.5..-12%, S 4096 -2..-3%, S 16384 -0.3..+2.2%, so
//       the masked instantiation does not build it (H100, kernel-only, alternating processes:
//       docs/results/2026-11-24-h100-session18.md).
constexpr bool fwd_has_long_rows_tile(int head_dim, bool masked) {
  return head_dim == 64 || head_dim == 96 || (head_dim == 192 && !masked);
}
// A sliding window bounds the keys a row sees (window_keys: left + right + 1 where both sides are
// bounded, -1 otherwise). A 192-row tile then spans window + 192 keys for window + 1 needed a row,
// a 128-row tile window + 128: under kFwdLongRowsMinWindowKeys keys the 128-row tile runs. Measured
// on an H200 (kernel-only, causal, S 8192, forced tiles, the window's full blocks alone:
// docs/results/2026-12-01-h200-session56.md), 192 rows against 128: d64 (MHA, and gpt-oss's 64 / 8
// heads with a sink) windows 128 and 512 0.994-1.001, 1024 +10..+11%, 1536-4096 +12..+22%; d96 (MHA
// and 32 / 8) windows 128 and 512 -5..-8.5%, 1024 +6%, 1536-4096 +8..+15%. Head dim 192's long-rows
// tile is a wider key block on the same 128 rows (unmasked calls only); not measured under
// windows, so it keeps its rule.
constexpr int kFwdLongRowsMinWindowKeys = 1024;
// Pack-GQA under a sliding window (fwd_pack_window below): a packed 192-row tile holds 192 >> shift
// positions, so it spans window + 24 keys at groups of 8, window + 48 at 4, where the unpacked
// 192-row tile spans window + 192; the window rule above does not apply to it.
// packed_q_rows: the rows of a packed call's q (cu_seqlens), 0 for a dense call; `batch` sequences.
// gqa_shift: the walk's pack-GQA shift (seqlen_q then counts its rows: positions << gqa_shift).
constexpr bool fwd_long_rows(int head_dim, int seqlen_q, int seqlen_k, bool causal, int batch = 1,
                             long long packed_q_rows = 0, int window_keys = -1, int gqa_shift = 0) {
  if (!fwd_has_long_rows_tile(head_dim, causal)) return false;
  if (head_dim != 192 && gqa_shift == 0 && window_keys >= 0 && window_keys < kFwdLongRowsMinWindowKeys) return false;
  const bool varied_lengths = packed_q_rows > 0 && 100 * packed_q_rows < 95ll * batch * seqlen_q;
  const int from = head_dim == 192  ? 4096  // 192's tile is unmasked only
                   : head_dim == 96 ? 2048
                   : !causal        ? 1024
                   : varied_lengths ? 1536
                                    : 3072;
  return (head_dim == 192 ? seqlen_k : seqlen_q) >= from;  // the 192-row tiles count query rows, 192 keys
}

// Few tiles (head dims 64 and 128; pick_fwd_tile below): a call whose 128-row tiles would leave
// more than half of the SMs idle (batch x heads x query blocks <= SMs / 2: short prompts, one
// sequence, few heads; the seed shape B1 H8 S512 D64 has 32 tiles on 132 SMs) runs 64-row tiles
// of one consumer warpgroup instead: twice the CTAs, each with the tensor cores to itself.
// Measured on the H100 (kernel-only, bf16, docs/results/2026-11-24-h100-session15.md): 11-18%
// faster on every such row (B1 H8 S512 D64 9.37 -> 7.97 us, cuDNN 9.09). Forced on grids of 96 to
// 256 such tiles it was 1.04-1.58x the default tile's time (once 0.97x): there two CTAs' worth of
// rows per SM run better as one CTA's two pingponged consumers than as a second wave.
constexpr bool fwd_has_few_tiles_tile(int head_dim) { return head_dim == 64 || head_dim == 128; }

// Pack-GQA (fwd_kernel.cuh kPackGqa; which calls: fwd_launch.cuh fwd_gqa_shift): head dims whose
// forward has a kernel that packs a GQA group's query heads into one tile. Measured on an H200,
// kernel-only, 16k tokens, groups 4 and 8: d64 against the unpacked kernels 1.015..1.121 at
// S 1024-4096, 0.997..1.019 at S 16384 (session 36, docs/results/2026-11-28-h200-session36.md);
// d128 0.980..1.016 (session 35), so not built there. As a run-time shift in every kernel it cost
// the unpacked (MHA) rows 0.981..1.006 (more spills), hence a kernel of its own. Head dim 128 with
// kernels of its own (8 more instantiations; session 58, docs/results/2026-12-01-h200-session58.md),
// pack on / off in one process, bf16 + fp16: 0.975..1.028 over Llama 3 / Qwen 2.5-like rows (S 8192
// B2) and groups 4 / 8 at S 1024-16384, with the MHA control row at 0.968 / 0.993: no gain to build.
constexpr bool fwd_has_pack_gqa(int head_dim) { return head_dim == 64; }
// A window bounded on both sides (window_keys >= 0: the most keys a row sees; causal is right = 0)
// packs only where it measured faster: groups of 4 or 8 (gqa_shift >= 2) and windows of at most
// kFwdPackedWindowMaxKeys keys, which then take the long-rows tile (fwd_long_rows). Other windowed
// calls with a left side run unpacked, as before session 57. Measured on an H200 (kernel-only, one
// process, causal, S 8192 B2, d64, packed 192-row tile against the tile the unpacked call took:
// docs/results/2026-12-01-h200-session57.md): gpt-oss's 64 / 8 heads with a sink, windows 128 /
// 512 / 1024: bf16 +12.5 / +14.5 / +7.8%, fp16 128 / 1024 +20 / +11% (against unpacked 128-row
// tiles, and 192-row ones at 1024); 32 / 8 (groups of 4) 128 / 1024 +4.8 / +1.1%. From 1536 to
// 3072 keys packing bought 0.975-1.021 (fp16 0.965-0.984); at 4096 the unpacked 192-row tile was
// faster (bf16 3.1% at groups of 8, 5.7% at 4: the packed causal bf16 kernel reloads spilled
// values every key block, tests/sass_test.py); groups of 2 at window 128 lost 7% packed.
constexpr int kFwdPackedWindowMaxKeys = 1025;
constexpr bool fwd_pack_window(int head_dim, int gqa_shift, int window_keys) {
  return fwd_has_pack_gqa(head_dim) && gqa_shift >= 2 && window_keys >= 0 && window_keys <= kFwdPackedWindowMaxKeys;
}

// Short causal rows (head dim 192; pick_fwd_tile below): a masked call whose keys are fewer than
// 2048 runs 128 x 64 tiles instead of the default 128 x 80. Under 128-row causal tiles the 80-key
// blocks compute 19% more scores than the triangle needs at S 1024, the 64-key blocks 12%; a key
// step of 64 also carries a larger share of fixed costs, so from 2048 keys on the 80-key tile
// wins. Measured on an H200, kernel-only, 128 x 64 / 128 x 80 (docs/results/2026-11-28-h200-session31.md,
// as d192's default tile then): causal S1024 +3.1% bf16 / +4.7% fp16, S2048 +0.4 / +0.3%, S4096
// 0.958 / 0.997, S16384 0.966 / 0.954 -- and, as its own tile for short causal rows, session 40's
// figures (docs/results/2026-11-29-h200-session40.md). 2 Q buffers + 2 stages: 96 + 96 KB;
// registers O 96 + S 32 + P 16.
constexpr bool fwd_has_short_rows_tile(int head_dim, bool masked) { return head_dim == 192 && masked; }
constexpr bool fwd_short_rows(int head_dim, int seqlen_k, bool causal) {
  return fwd_has_short_rows_tile(head_dim, causal) && seqlen_k < 2048;
}

// Which tile of a head dim a kernel is built for (fwd_tile_policy).
enum class FwdTileKind : int { kDefault = 0, kLongRows = 1, kFewTiles = 2, kShortRows = 3 };

// 128 x 128 tiles, two consumer warpgroups: S (64 fp32/thread) + O (head_dim/2) + P (32 regs)
// fit in 240 registers at head_dim 128. Shared memory: Q + 2 stages of K and V =
// (128 + 4 * 128) * head_dim * 2 bytes = 160 KB at head_dim 128, 80 KB at 64 (3 stages there).
//
// Head dims 192 and 256 (their backward: bwd_tile_policy below; docs/results/2026-11-23-h100-wide.md
// has the forward's H100 figures). Per consumer
// thread, O is head_dim / 2 fp32 registers (96 / 128), S block_n / 2 and P block_n / 4 (16-bit
// pairs); S_j and P_{j+1} are live together in the mainloop. Shared memory = q_buffers * 128 *
// head_dim * 2 + stages * 2 * block_n * head_dim * 2 bytes, + 1 KB of barriers and 1 KB of
// alignment slack, <= 227 KB. Chosen (ptxas, fp16 and bf16): no local-memory traffic in the
// mainloop and, where it fits, two Q buffers:
//   192: 128 x 80, 2 stages, two Q buffers: 96 + 120 = 216 KB (+ 2); registers 96 + 40 + 20 = 156.
//        128 x 112 with one Q buffer, 48 + 168 KB, loses the epilogue overlap (ptxas: no spill
//        unmasked, 24 bytes masked): it is 192's long-rows tile (unmasked calls from 4096 keys on,
//        fwd_long_rows above), where its wider key step measured faster.
//   256: two Q buffers alone are 128 KB, so one; 128 x 64, 2 stages: 64 + 128 = 192 KB (+ 2);
//        registers 128 + 32 + 16 = 176. (128 x 80, 64 + 160 = 224 KB, fits shared memory but
//        ptxas reloads 3-5 spilled values in every mainloop step: 188 of 240 registers is too
//        many with the addressing and softmax state.)
//
// Head dim 96 (tiles 64-byte swizzled, kernels/hopper/smem_tile.cuh tile_swizzle_bytes): Q K^T is
// 6 k16 steps, P V one m64n96k16 per 16 keys, so per key a step has 3/4 of d128's GEMM work and
// the same softmax work; a wider key block spreads each step's fixed costs (barriers, waits, O's
// rescale) over more keys. 128 x 176, 2 stages, two Q buffers: 48 + 2 * 2 * 33 = 180 KB (+ 2);
// registers O 48 + S 88 + P 44 = 180 per consumer thread; ptxas: no spills. Measured on the H100
// (kernel-only, paper grid, docs/results/2026-11-23-h100-hd96.md), three shapes:
//   128 x 128, 3 stages (192 KB; 144 registers): best at S 1024 (no key padding) but 0.77 of
//     d128's TFLOP/s at S 16384;
//   128 x 192, 2 stages (192 KB; 192 registers, 12 bytes of spill outside the mainloop in the
//     full variant): 1-19% faster than 128 x 128 from S 4096 on (10-19% at full S 8192-16384);
//     S 1024 pays 6 blocks of 192 keys (1152) for 1024;
//   128 x 176: as 128 x 192 from S 4096 on (within 3%), 4-6% faster at full S 1024 (1056
//     keys' work), 4-7% slower at causal S 1024-2048 (more padding on the short causal tiles).
// No one key block wins every S: the short causal rows want 128 keys, the long ones 176-192. So
// 96 had both: 128 x 128 x 3 for short rows, 128 x 176 x 2 for long rows. Its long-rows tile is
// now d64's shape instead, three consumer warpgroups in pingpong turns on 192 query rows: 192 x 96,
// 3 stages (two Q buffers of 36 KB + 3 x 36 KB = 180 KB); registers O 48 + S 48 + P 24 within the
// 160 of three consumers (ptxas: no spills; 192 x 128 serialized every wgmma (C7512) and spilled
// 156 bytes, 192 x 112 spilled 12). Against 128 x 176 (H100, kernel-only, bf16, alternating
// processes, docs/results/2026-11-24-h100-session19.md): S 2048 full +7.0%, S 4096 +9.8% full and
// +13.2% causal, S 16384 +4.8% / +7.8%; fp16 +6.6..+12%. The same three-consumer shape does not
// pay at 128 (192 x 64 and 192 x 80 against 128 x 128: -2..-17%; with O at 64 registers, S and P
// get 96 keys at most).
//
// Head dim 64 has a second tile for long rows (long_rows, fwd_long_rows above): 192 x 128 with
// three consumer warpgroups taking pingpong turns round-robin, so two can issue GEMMs while one
// runs its softmax (at d64 a block's exp2s take as long as its GEMMs). Consumers get 160
// registers ((24 + 3 * 160) * 128 <= 64K); ptxas spills 20-72 bytes. Shared memory: 2 Q buffers
// of 24 KB + 3 stages of K and V = 144 KB. Measured on the H100 (kernel-only, bf16 paper grid,
// docs/results/2026-11-23-h100-smem-space.md): S 16384 +7-9%, S 4096 +3-4%, but S 1024 -4% (full)
// and -13% (causal): 192-row tiles pad short sequences (1024 = 5.3 tiles) and leave fewer
// tiles than SMs.
//
// The few-tiles tile (pick_fwd_tile below): 64 x 128, one consumer warpgroup; shared memory 2 Q
// buffers + 3 stages at 64 (112 KB), 2 stages at 128 (160 KB).
constexpr FwdTilePolicy fwd_tile_policy(int head_dim, FwdTileKind kind = FwdTileKind::kDefault) {
  const bool long_rows = kind == FwdTileKind::kLongRows;
  if (kind == FwdTileKind::kFewTiles) {
    return head_dim == 64 ? FwdTilePolicy{64, 128, 3, 1, 24, 240} : FwdTilePolicy{64, 128, 2, 1, 24, 240};
  }
  if (kind == FwdTileKind::kShortRows && head_dim == 192) return FwdTilePolicy{128, 64, 2, 2, 24, 240, 2};
  return head_dim == 64   ? (long_rows ? FwdTilePolicy{192, 128, 3, 3, 24, 160} : FwdTilePolicy{128, 128, 3, 2, 24, 240})
         : head_dim == 96  ? (long_rows ? FwdTilePolicy{192, 96, 3, 3, 24, 160} : FwdTilePolicy{128, 128, 3, 2, 24, 240})
         : head_dim == 192 ? (long_rows ? FwdTilePolicy{128, 112, 2, 2, 24, 240, 1, true}
                                        : FwdTilePolicy{128, 80, 2, 2, 24, 240, 2})
         : head_dim == 256 ? FwdTilePolicy{128, 64, 2, 2, 24, 240, 1}
                           : FwdTilePolicy{128, 128, 2, 2, 24, 240};
}

// Shifted tiles (fwd_kernel.cuh kShiftTiles): a causal tile of block_m query rows computes all of
// its rows over every key block its last row reaches (also with a window bounded on the right).
// Where a sequence's rows leave a partial tile, starting the tiles `shift` rows before row 0 (the
// first tile's leading rows before the sequence, never stored) ends every tile `shift` rows
// earlier, which saves a key block wherever that end crosses a block boundary. Shifts in multiples of gcd(block_m, block_n) (in rows; pack-GQA:
// block_n << gqa_shift rows) keep the tiles starting on the residues modulo the key block that
// unshifted tiles start on, so the diagonal crosses as many masked blocks: with 128-row tiles over
// 128-key blocks any other shift saves nothing and gave every tile two masked blocks instead of
// one (dense causal S 1000, d64 / d128: 0.94-0.96, H200, docs/results/2026-11-29-h200-session38.md).
// So the shift is the largest such multiple not past the partial tile's empty rows; tiles whose
// block_m that gcd equals (64 / 128 rows over 128 keys) never shift. Measured on an H200
// (kernel-only, causal, against the unshifted tiles in alternating processes, bf16 / fp16;
// docs/results/2026-11-29-h200-session38.md): d64's 192 x 128 tile +2.8..+6.1% (dense S 4096,
// whose 4096 rows leave 128 empty, +4.8 / +4.3%; packed 64 x 100..4000 +2.8 / +3.4%); d96's
// 192 x 96 +1.4..+2.5%; d192's 128 x 80 dense S 1050 +9.7 / +10.3%, S 2000-3000 +2.5..+4.1%,
// packed mixed +2.5 / +1.8%; d256's 128 x 64 S 1050 +6.9 / +3.9%, S 3000 +3.1 / +1.4%; rows
// with no shift and the d128 kernels (which never shift) 0.988..1.009.
constexpr int fwd_tile_shift_unit(int block_m, int block_n_rows) { return std::gcd(block_m, block_n_rows); }

// The online softmax's step order (OnlineSoftmax kHalvesTogether, kernels/common/online_softmax.cuh):
// both row halves' maxima over partial chains, then both halves' exp2s, for every head dim but 128.
// At 128 a first build measured -3.5..+2.4% (bf16, kernel-only, H100), within the A/B's noise, so
// 128 keeps the order it had (docs/results/2026-11-25-h100-session22.md).
constexpr bool fwd_softmax_halves_together(int head_dim) { return head_dim != 128; }
// Head dims whose forward kernels give plain calls (no softcap, a non-negative softmax scale:
// every model's) a mainloop copy of their own (fwd_kernel.cuh kPlainOwnLoop), whose softmax step
// tests neither the softcap, the bounded step nor the scale's sign per key block. ncu beside
// FlashAttention-4's d128 forward (H200) had found 14 branches in our key-block loop against its 3,
// and 12-15% more cycles for the same instruction count. Measured on an H200 (kernel-only,
// alternating processes, docs/results/2026-12-01-h200-session58.md): d128 bf16 +4.1..+5.5%, fp16
// +2.0..+4.6%, GQA 16 / 4 at S 8192 +4.7 / +5.3%; d64 +0.4..+3.7%; softcap rows (the general copy)
// 0.993 / 1.013. Each of the 32 kernels grows by ~2,000 SASS instructions (`_C.so` +1.0 MB).
// At 96, 192 and 256 (full-width copies only: a narrow copy, e.g. 80 on the 96 kernel, keeps one
// mainloop), bf16 against the build without (session 58, experiment build): 192 +0.3..+4.5% (full
// S 4096 / 16384 +3.2 / +4.5%), 96 +0.0..+1.6% (noise), 256 0.992-1.007 with a larger stack frame.
// So 192 takes it too (session 59 measured the landed kernels: docs/results/2026-12-01-h200-session59.md).
constexpr bool fwd_plain_own_loop(int head_dim) { return head_dim == 64 || head_dim == 128 || head_dim == 192; }
// Whether a kernel's narrow copy (fwd_narrow_shape below) takes it too: 192's is multi-head latent
// attention's (192, 128) pair (DeepSeek-V2/V3). Measured on an H200 (kernel-only, alternating
// processes, docs/results/2026-12-01-h200-session59.md): the pair's rows bf16 +3.3..+4.6%, fp16
// +1.2..+4.7%; full-width d192 rows 0.990-1.015 (their copies unchanged); stack frames unchanged,
// `_C.so` +0.2 MB. 96's narrow copy (head dims 80 and 72 on the 96 kernel: Phi-2 / Phi-1.5, GPT-J-like
// small models) takes it too, though 96's full-width copy does not (noise there, above): the d80 rows
// bf16 +0.4..+2.9%, fp16 +0.1..+2.5%, d96 rows 0.992-1.013 (docs/results/2026-12-02-h200-session60.md);
// the bf16 causal long-rows kernel's frame 8 -> 16 bytes, `_C.so` +0.2 MB. 200 / 208 on 256 keep one
// mainloop (256's full-width copy had lost, 0.992-1.007 with a larger frame).
constexpr bool fwd_plain_own_loop_narrow(int head_dim) { return head_dim == 192 || head_dim == 96; }
// How many of the bounded softcap step's exponentials run on the FMA pipe (OnlineSoftmax::
// step_bounded's kPolyEvery, kernels/common/online_softmax.cuh): every n-th n8 column group, 0
// none. That step is two MUFU ops a score (tanh, exp2) and no max chain: per warp instruction (32
// scores) 16 clocks of an SMSP's XU pipe against GEMMs of ~7.7 clocks at head dim 64, ~15.4 at 128
// (4 x head_dim FLOP a score at the tensor peak). Measured on an H200 (bf16, kernel-only,
// alternating processes, docs/results/2026-11-30-h200-session52.md), d64 softcap rows against
// none: every 3rd +4.3..+8.9%, every 4th +2.2..+8.8%, every 8th +3.6..+7.7%, every 2nd +1..+7%;
// d128 every 4th 0.97-0.99, every 2nd 0.94-0.97. The running-max steps lost wherever tried (plain
// d64 every 4th 0.89-0.97, every 2nd 0.79-0.91; fp16 softcap at 64 / 96 / 128 0.91-0.99).
constexpr int fwd_bounded_exp2_poly_every(int head_dim) { return head_dim == 64 ? 3 : 0; }
// Whether a bf16 forward tile gives the bounded softcap step a mainloop copy of its own
// (fwd_kernel.cuh kBoundedOwnLoop; fp16 has no bounded step). The 192-row tiles (three consumers
// at 160 registers: head dims 64 and 96, long rows): in one copy, the step's code (its row sums on
// the tensor cores, session 54) made ptxas spill in the plain path too: 44 / 84 bytes in the bf16
// d64 causal kernel, two local loads per key block, where the copy without it spills none
// (-Xptxas -v; a 16 / 20-byte spill remains at tile level, outside the key-block loop). Measured
// on H200s (kernel-only, alternating processes, two calls, docs/results/2026-11-30-h200-session55.md):
// bf16 d64 and d96 rows, plain and softcap 30, +0.5..+3.2%; the other kernels within noise (their
// SASS differs only in uniform-register setup). Head dim 256 (docs/results/2026-12-02-h200-session62.md):
// softcap 30 / 50 rows +0.7..+10.5% (full +6.7..+10.5%), plain 0.989-1.011, frames 0 -> 8 (full)
// and 24 -> 32 (causal) bytes. Not on the others: d64 / d128's 240-register tiles measured within
// noise (0.993-1.014), and d192's spilled 816 bytes of stack (0.06-0.09x).
constexpr bool fwd_bounded_own_loop(int head_dim, int consumer_regs) {
  return consumer_regs <= 160 || head_dim == 256;
}
// Whether a head dim's causal forward kernels balance their static walk (tile_scheduler.cuh
// kBalancedWalk): a dense walk of pairs ends in a sorted tail (TileScheduler::walk_divisors: the last
// round and the remainder of pairs run as single tiles, longest first, dealt in a snake), and a
// sorted packed batch goes in a snake with an odd sequence's middle blocks two heads an item. ncu
// (H200, bf16, 16k tokens; docs/results/2026-12-02-h200-session63.md): the SMs' mean active cycles
// from 0.947-0.966 to 0.980-0.991 of the busiest SM's on the dense causal rows of 64 and 128, and
// from 0.960-0.966 to 0.994-0.995 on issue 13's packed 64 x 100..4000 batch. Kernel-only against
// the static walk (alternating processes):
//   dense causal rows: 64 +0.7..+3.6%, 128 -1.5..+2.5% (S1024 1.013 / 0.985 / 1.009 in three calls,
//     from 2048 keys +0.6..+2.5%), 96 +0.4..+4.2%, GQA groups of 4 -0.4..+3.0%;
//   packed mixed-length causal: 64 +4.8 / +5.7% (bf16 / fp16), 128 +4.1 / +3.3%; packed equal
//     lengths 1.001-1.009; full rows noise;
//   192 0.989-1.015 and 256 S1024 0.964 / 0.977 (bf16 / fp16) with the dense tail, whose code grew
//     their causal kernels' stack frames by 8-16 bytes (why S1024 lost there was not measured).
// So 192 and 256 keep the static walk, compiled without it.
constexpr bool fwd_balanced_walk(int head_dim) { return head_dim <= 128; }
// Who decodes a forward tile's place in the walk (fwd_kernel.cuh kPlanFromProducer): the producer
// alone, handing each tile's plan to the consumers with its Q (a slot beside the Q buffer), or
// every consumer warpgroup again for itself. A consumer's own plan cost 500-1,700 clocks at each
// tile's top (session 39's timeline). Handed over, kernel-only against the consumers' own plan
// (H200, bf16 three rounds, fp16 one; docs/results/2026-11-29-h200-session40.md):
//   64: +1.4..+4.7% on every row (S1024 causal +4.3 / +3.4%, S16384 +1.4..+2.3%);
//   96: +0.6..+3.1% on every row;
//   128: S1024 +1.0..+2.3%, but S16384 full 0.968 (0.964 in session 39), in a main loop within 9
//        instructions of the other's; with the rings' barriers addressed from a broadcast base (their
//        try_wait / arrive had taken per-lane addresses) 0.976; 192 / 256: 0.97-0.99 on the long
//        full rows.
// So 64 and 96 take it; 128, 192 and 256 keep their own plan (their kernels as before).
constexpr bool fwd_tile_plan_from_producer(int head_dim) { return head_dim <= 96; }
// A head dim below the kernel's (head_dim_runs_on: e.g. Phi-2's 80 on the 96 kernel) used to run
// the kernel's full GEMM width on zero columns. Each kernel may have one narrow shape, a second
// copy of its mainloop (no new instantiation key) that a call takes when head_dim <= qk_cols and
// head_dim_v <= pv_cols (qk_cols = 0: none):
//   - Q K^T runs qk_cols / 16 k16 slices instead of kHeadDim / 16 (K-major operands: any slice);
//   - P V runs N = pv_cols. V is an MN-major operand made of swizzle atoms (64 columns at 128-byte
//     swizzle, 32 at d96's 64-byte); N = 80 and 208 end 16 columns into the last atom. PTX draws
//     the canonical MN-major layouts in whole atoms; the hardware walks the operand column group by
//     column group, which the float64 oracle checks at 72, 80, 200 and 208 on every GPU suite run
//     (session 30, H200: P V at 80 / 208 instead of 96 / 256, +0.6..+4.2% kernel-only).
//   96: (80, 80) -- Phi-2's 80 (and 72): Q K^T 5 slices of 6, P V at N = 80.
//   192: (192, 128) -- multi-head latent attention's (192, 128) pair (DeepSeek-V2/V3): P V at
//        N = 128 instead of 192.
//   256: (208, 208) -- 200 and 208: Q K^T 13 slices of 16, P V at N = 208.
// A pair whose v is wider than the narrow P V (e.g. q/k 80 with v 96, q/k 200 with v 256) runs the
// full width; with pv_cols at the kernel's width it had taken the narrow Q K^T (not measured).
// 64 and 128 have none: 32 on the 64 kernel and 112 on 128 were not measured, so not built.
struct FwdNarrowShape {
  int qk_cols;
  int pv_cols;
};
constexpr FwdNarrowShape fwd_narrow_shape(int head_dim) {
  return head_dim == 96    ? FwdNarrowShape{80, 80}
         : head_dim == 192 ? FwdNarrowShape{192, 128}
         : head_dim == 256 ? FwdNarrowShape{208, 208}
                           : FwdNarrowShape{0, 0};
}

// The tile a forward call runs on. `forced` (flash_fwd_api.h forced_fwd_tile, test-only): 0, or
// 1 + the kind to run (the launcher falls back to the default tile where the head dim lacks it).
// The long-rows tile needs a wave of its own tiles: at d64 it has 192 rows, and on a small grid
// (B1 H8 S2048: 88 tiles on 132 SMs) it left SMs idle (30.3 us, cuDNN 22.0).
constexpr FwdTileKind pick_fwd_tile(int head_dim, int batch, int heads, int seqlen_q, int seqlen_k, bool causal,
                                    int sm_count, int forced, long long packed_q_rows = 0, int window_keys = -1,
                                    int gqa_shift = 0) {
  if (forced > 0) return static_cast<FwdTileKind>(forced - 1);
  const long long rows = static_cast<long long>(batch) * heads;
  const long long tiles_128 = rows * ((seqlen_q + 127) / 128);
  if (fwd_has_few_tiles_tile(head_dim) && 2 * tiles_128 <= sm_count) return FwdTileKind::kFewTiles;
  if (fwd_short_rows(head_dim, seqlen_k, causal)) return FwdTileKind::kShortRows;
  if (fwd_long_rows(head_dim, seqlen_q, seqlen_k, causal, batch, packed_q_rows, window_keys, gqa_shift)) {
    const int long_m = fwd_tile_policy(head_dim, FwdTileKind::kLongRows).block_m;
    const long long tiles_long = rows * ((seqlen_q + long_m - 1) / long_m);
    if (long_m == fwd_tile_policy(head_dim).block_m || tiles_long >= sm_count) return FwdTileKind::kLongRows;
  }
  return FwdTileKind::kDefault;
}

}  // namespace hopper
}  // namespace flashcore

namespace flashcore {
namespace hopper {

// Hopper backward tile policy. Two consumer layouts:
//   split keys (kernels/hopper/bwd_kernel.cuh): each consumer warpgroup owns 64 keys of the CTA's
//     key block and every head-dim column of their dK and dV; a query block is the N of S^T = K Q^T;
//   shared keys (kernels/hopper/bwd_wide_kernel.cuh): both consumers share one 64-key block, each
//     computes S^T and dP^T for half of the query block, P^T and dS^T go through shared memory;
//     then either each computes dK, dV and dQ for half of the head-dim columns (256), or consumer
//     0 owns dV, consumer 1 dK and dQ is split at column 128 (192, whose halves of 96 columns
//     would start inside a 64-column swizzle atom).
struct BwdTilePolicy {
  int block_m;        // query rows per mainloop step (64 or 128)
  int block_n;        // keys per CTA: 64 per consumer warpgroup (split keys) or 64 shared
  int stages;         // Q / dO shared-memory stages
  int consumer_wgs;   // consumer warpgroups (plus one producer warpgroup)
  int producer_regs;  // setmaxnreg budgets, as in FwdTilePolicy
  int consumer_regs;
  bool shared_keys = false;     // the second layout above
  bool split_products = false;  // shared keys: consumer 0 owns dV, 1 dK (else each half of both)
};

// 128 keys, two consumer warpgroups, two stages. Registers per consumer thread: dK + dV
// (head_dim / 2 fp32 each for 64 keys), S^T and dP^T (block_m / 2 each), then the fp16/bf16
// fragments of P^T and dS^T (block_m / 4 each) and the dQ slice (32):
//   head_dim 128, 64 query rows: 64 + 64 + 32 + 32 = 192 at the softmax;
//   head_dim 64, 128 query rows: 32 + 32 + 64 + 64 = 192 -- twice the rows per step at d64 halves
//   the dQ atomics (the two consumers split dQ by query rows instead of each adding its own
//   keys' share), the barriers per FLOP, and doubles the N of the S^T / dP^T wgmma.
// dQ's 64 x 64 slices: d128 splits dQ's columns between the consumers, d64 its query rows.
// Shared memory: K, V (128 x head_dim each), 2 stages of Q and dO (block_m x head_dim each), two
// dS^T buffers (128 x block_m): 160 KB at head_dim 128 and at 64.
//
// Head dims 192 and 256 (shared keys, bwd_wide_kernel.cuh): split keys would keep dK + dV of 64
// keys x head_dim columns, 256 fp32 per thread at 256. Sharing the key block, a consumer keeps
// head_dim / 2 fp32 of dK and dV (half the columns of both, or all of one), S^T and dP^T of 64
// keys x 32 queries (16 + 16), and a dQ slice of at most 64 queries x 128 columns (64): 192 at
// 256 at the dQ GEMM. At 256 splitting the columns measured 1.06-1.08x splitting the products
// (H100, kernel-only bf16 paper grid, A/B in alternating processes); 192 can only split products. Shared memory:
// K, V, one stage of Q and dO (64 x head_dim each), P^T and dS^T (64 x 64, double-buffered, 32 KB),
// the fp32 dQ tile (64 x head_dim), lse / D rows (1 KB):
//   256: 4 x 32 + 32 + 64 + 1 = 225 KB, + 1 KB alignment slack: 227 KB, the whole budget -- a
//        second Q / dO stage does not fit, so the next block's loads overlap only the dQ GEMM and
//        its store;
//   192: two Q / dO stages: 2 x 24 + 4 x 24 + 32 + 48 + 1 = 225 KB, + 1 KB: 227 KB.
//
// Head dim 96 (split keys, 64-byte swizzled tiles as in the forward): d128's shape -- dK + dV are
// 48 + 48 registers, S^T and dP^T 32 + 32 -- with 6 k16 steps per S^T / dP^T and m64n96 dK / dV
// GEMMs, so a step has 3/4 of d128's GEMM work; dQ splits 64 + 32 columns (bwd_kernel.cuh).
// Shared memory: 2 x 24 (K, V) + 2 x 2 x 12 (Q, dO) + 32 (dS^T) + 24 (dQ) + 2 = 154 KB. Measured on
// the H100 (docs/results/2026-11-24-h100-hd96-bwd.md, kernel-only bf16): 1.10-1.15x the 128 kernel
// that ran 72..96 before (a step costs nearly what a d128 step costs: the kernel is bound by its
// per-step latency, not by GEMM work); 3 stages measured the same (0.99-1.00x).
//
// Head dim 128 takes 80 query rows a step (FlashAttention-4's non-causal shape; it keeps 64 for
// causal): the split-keys kernel is bound by per-step latency (the barriers, the waits on each GEMM
// group), and 80 rows spread that over 25% more work. dQ = dS K has M = 80 queries, which no wgmma
// takes (M is 64), so it is computed transposed, dQ^T = K^T dS^T (M = the consumer's 64 columns,
// N = 80 queries), and dS goes to shared memory as [64-key blocks][80 queries][64 keys] (K-major
// B) through stmatrix.trans. Registers per consumer thread at the softmax: dK + dV 128, S^T + dP^T
// 80; dK += dS^T Q takes dS^T from registers and is issued with dV, before the dS barrier, and
// waited for before the dQ^T GEMM: with dS^T's fragments (20) held through that GEMM beside dQ^T
// (40) ptxas serialized every wgmma of the kernel (C7512), so until session 41 dK read dS^T from
// the dS buffer (SS) after dQ^T, and the dQ slice's 40 scalar stores per thread then competed with
// dK's shared-memory operand reads (a step's timeline: ~650 clocks for the stores;
// docs/results/2026-11-29-h200-session41.md). dK first, the stores after dQ^T alone: H200,
// kernel-only bf16 / fp16 in alternating processes, two calls, +1.2..+5.4% on every row but one
// deterministic S1024 full reading (0.998). The same order at 64 read 0.986-1.012 and at 96
// 0.947-0.989 (their dK already reads dS^T from registers while the slice is stored). Since
// session 45 dK is issued alone before the dS barrier and dV (P^T from registers) behind the dQ^T
// GEMM, so that the slice's stores (which had run with the tensor pipe idle: both consumers store
// at once) overlap dV: H200, kernel-only bf16 / fp16 in alternating processes, two calls, d128
// 0.996-1.042 (every row >= 1.0 in the second call; mean about +1.8%, not the ~12% the stores'
// clocks promised: dV moved after the barrier too, and the stores now contend with the GEMMs'
// operand reads -- ncu, d128 full S4096: tensor pipe 68 -> 71% busy, shared-memory wavefronts
// 68 -> 70% of peak, MIO-throttle stalls 0.53 -> 0.71 per issue; docs/results/2026-11-29-h200-session45.md). Registers at
// dQ^T: dK + dV 128, dQ^T 40, P^T's fragments 20 (no serialization, no spills). Shared memory: K, V
// 64 KB, 2 stages of Q and dO 80 KB, one dS buffer 20 KB (a second would not fit beside the dQ
// tile, so a consumer waits for the other's dQ GEMM before overwriting it: bwd_kernel.cuh), the
// fp32 dQ tile 40 KB, lse / D / sink rows 3.75 KB: 208 KB. Measured on the H100 against 64 rows
// (kernel-only, A/Bs in alternating processes, docs/results/2026-11-24-h100-session18.md): full
// +3.3..+3.5% bf16, +2.1..+4.9% fp16, deterministic +2..+7%; causal S 2048 / 4096 / 16384 +1.3 /
// +2.4 / +4.5% (deterministic up to +6.2%), S 1024 -0.5% (noise), window 4096 +3.4%, softcap
// 30 -1.0%. Again on an H200 with the kernels of session 46 (64 rows, every d128 kernel; kernel-only,
// alternating processes, docs/results/2026-11-30-h200-session47.md): full 0.895-0.926, causal S1024
// 0.980 / 0.985, S 2048-16384 0.895-0.957 -- FlashAttention-4's causal shape does not pay here.
constexpr BwdTilePolicy bwd_tile_policy(int head_dim) {
  return head_dim == 64    ? BwdTilePolicy{128, 128, 2, 2, 24, 240}
         : head_dim == 96  ? BwdTilePolicy{64, 128, 2, 2, 24, 240}
         : head_dim == 192 ? BwdTilePolicy{64, 64, 2, 2, 24, 240, true, true}
         : head_dim == 256 ? BwdTilePolicy{64, 64, 1, 2, 24, 240, true}
                           : BwdTilePolicy{80, 128, 2, 2, 24, 240};
}

// Head dim 96's split-keys backward (bwd_kernel.cuh) issues a step's S^T and dP^T at the loop's
// top, before waiting for the step before's dK, so the tensor pipe goes from that dK straight to
// them (the consumers run in phase -- the dS^T barrier every step -- and waiting for dK first left
// the pipe idle through the loop's top in both at once). Registers then: dK, dV, S^T, dP^T and dS^T's
// fragments (dK's A), 48 + 48 + 32 + 32 + 16. Measured on an H200 (kernel-only backward, bf16,
// alternating processes, two calls, docs/results/2026-11-29-h200-session41.md): 96 deterministic
// +1..+4% (S 4096-16384 +2.4..+4.0%), default -0.7..+1.7%; 128 (whose 80-row tile holds 64 + 64
// + 40 + 40, dK reading dS from shared memory) read 0.980-1.015 in both calls -- S1024 causal -2%
// twice, S16384 +1..+2% -- so it waits for dK first; at 64 (32 + 32 + 64 + 64 + 32, or S^T alone
// ahead: 160) ptxas serialized every wgmma (C7512).
constexpr bool bwd_scores_ahead(int head_dim) { return head_dim == 96; }

// The split-keys kernel (bwd_kernel.cuh) at head dim 64 computes a step's dQ GEMM one step late,
// from the other dS^T buffer: a consumer then waits for the other consumer's dS^T of the step
// before instead of meeting it at a barrier every step, and consumer 1 starts half a step behind
// consumer 0 (it waits for consumer 0's first P^T), so that each computes P^T and dS^T while the
// other's GEMMs run (clock64 stamps at d64 S4096: 2,240 clocks apart in a 4,560-clock step; ~500
// without the offset). No registers move: the dQ GEMM keeps its place in the step. Measured on an H200
// (kernel-only backward, alternating processes, two calls, docs/results/2026-11-29-h200-session42.md):
// the default backward bf16 / fp16 +0.2..+3.6% on every d64 row (S 1024-16384, causal and not,
// window, softcap; bf16 from S 4096 +3.0..+3.3% in the second call), the lag alone without the offset -1.3..+2.2% (its step 1% shorter, the consumers still
// in phase); deterministic -4.6..+1.1% (S1024 -4.5%: a CTA's dQ reaches the semaphore chain one
// step later), so not there.
// Head dim 96 (session 46; its 64-row tile already has two dS^T buffers and issues its scores
// ahead, bwd_scores_ahead): the same lag, no spills or serialization (ptxas injects 4
// warpgroup.arrive, C7519); H200 kernel-only, two calls: S 4096 / 16384 bf16 +1.5..+3.1% (one
// reading 1.000), fp16 +2.7..+3.9%, S1024 0.992-1.012.
// Head dim 128's 80-row tile (session 46) lags its dQ^T the same way, on a second dS buffer: it
// fits only with the lse / D rows shared by the consumers (227 KB exactly), so consumer 0, which is
// ahead, writes them for both (bwd_kernel.cuh). Each consumer issues dK, then waits for the other's
// dS of the step before (no read barriers: that publication follows the other's dQ^T of two steps
// before), stores its dS, and runs the step before's dQ^T with dV behind it. Measured on an H200
// (kernel-only backward, alternating processes, docs/results/2026-11-29-h200-session46.md): the
// default d128 backward bf16 +2.2..+5.2% (two rounds), fp16 +2.1..+6.4%, window 4096 / softcap
// 30 +4.2 / +5.4%; the same change with programmatic launches beside it read +2..+5% in another
// call. Deterministic d128 is left in phase, as d64 is.
constexpr bool bwd_dq_lagged(int head_dim, bool deterministic) {
  return (head_dim == 64 || head_dim == 96 || head_dim == 128) && !deterministic;
}

// Head dims whose backward kernel (bwd_kernel.cuh issue_bwd_scores) skips the last k16 slice of
// S^T = K Q^T and dP^T = V dO^T where the call's head dim leaves it zero: 72 and 80 on the 96
// kernel run 5 slices of 6 (the TMA zero-fills the columns past head_dim, so that slice adds
// nothing). A warp-uniform run-time test per GEMM, no kernel copy; ptxas keeps the wgmma chain
// unserialized and the frames at 0 bytes. Measured on an H200 (kernel-only backward, alternating
// processes, docs/results/2026-12-02-h200-session60.md): d80 default backward bf16 +0.9..+3.8%,
// fp16 +1.2..+3.4%, deterministic +0.2..+1.3%; d96 rows (the slice kept) 0.988-1.007. The other
// backward kernels (128 running 112 / 120, 256 running 200 / 208 in bwd_wide_kernel.cuh) do not
// skip: not built or measured.
// Kept apart from fwd_narrow_shape, though at 96 both say "80 fits in 5 k16 slices": the forward's
// narrow shape also narrows P V's N and is a kernel copy chosen per call, this is one slice's
// run-time test; deriving it from fwd_narrow_shape would give a future narrow shape (a forward
// decision) an unmeasured backward test, and 192's (192, 128) pair, whose backward runs in
// bwd_wide_kernel.cuh, would leave four zero slices of V, not one.
constexpr bool bwd_scores_skip_zero_slice(int head_dim) { return head_dim == 96; }

// dq_accum in fragment order (kernels/common/dq_accum_layout.h) at head dim 64, whose consumers'
// slices are whole 64 x 64 slabs (128-row blocks split by rows). Measured on an H200 (kernel-only
// backward, alternating processes, two calls, docs/results/2026-11-29-h200-session43.md): the
// default backward +0.6..+4.1% on every d64 row; deterministic 0.972-1.003 (S16384 causal -1.9 /
// -2.8%: its writer waits for each reduce to complete before it bumps the semaphores), so not
// there. The other tiles keep row order: their slices are column halves (128), 64 + 32 columns
// (96), transposed (the 80-row tile) or wider than 64 (the shared-keys tiles).
constexpr bool bwd_dq_fragments(int head_dim, bool deterministic) { return head_dim == 64 && !deterministic; }

// The split-keys kernel computes dQ transposed when its query block is not a multiple of the
// wgmma M (64): bwd_tile_policy's 80-row tile.
constexpr bool bwd_dq_transposed(const BwdTilePolicy& t) { return !t.shared_keys && t.block_m % 64 != 0; }

}  // namespace hopper
}  // namespace flashcore
