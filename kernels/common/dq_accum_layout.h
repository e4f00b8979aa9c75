// dq_accum, the backward's fp32 dQ accumulator, in fragment order (issue 14): the layout of the
// sm90a head-dim-64 default (not deterministic) kernel (kernels/hopper/tile_policy.h
// bwd_dq_fragments), shared by its dQ
// writer (kernels/hopper/dq_writer.cuh), which adds into it, and the row kernels
// (kernels/sm80/bwd_row_kernels.cuh), which zero it and convert it into dQ.
//
// Why: in row order a consumer's 64 x 64 dQ slice (the m64n64 wgmma accumulator) reached the
// writer's swizzled tile through 16 float2 stores a thread, each 4 shared-memory wavefronts where
// 2 would do (a half-warp's 4 rows x 2 chunks meet only 4 of the 8 bank groups). Kept in the
// accumulator's own order, a thread's four fp32 of each 8-column group are one 16-byte store: 8
// float4 stores a thread, every one the fewest wavefronts, no swizzle arithmetic, and the writer adds
// the slice with one 1-D bulk reduce (16 KB contiguous in global memory too). Timed with the
// stores alone changed (session 43): +1.6..+4.0% on the default d64 backward.
//
// The layout: 16 KB slabs, each the 64 rows x 64 columns of one slice. Element (row ri, column c)
// of a slab -- thread 32 (ri / 16) + 4 (ri % 8) + (c % 8) / 2 of the warpgroup holds it as its
// element 4 (c / 8) + 2 ((ri / 8) % 2) + c % 2 -- is float
//   ((c / 8) * 128 + thread) * 4 + 2 ((ri / 8) % 2) + c % 2,
// i.e. [8-column group][thread][4 floats]. Slabs: dense (batch, heads, ceil(seqlen_q / 64)); packed
// varlen (heads, slabs_per_head) with sequence b's first slab at (cu_seqlens_q[b] + 64 b) / 64 --
// each sequence starts on a slab of its own (b's last slab ends before b + 1's first: FlashAttention
// 3 pads its dQ accumulator the same way), so a slab's rows past its sequence are never another's.
// Those rows are never zeroed nor read; the writer adds zeros there (the consumers store zeros for
// rows past the sequence) or nothing (a slice wholly past it is not added).
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define FLASHCORE_DQ_LAYOUT_FN __host__ __device__ __forceinline__
#else
#define FLASHCORE_DQ_LAYOUT_FN inline
#endif

namespace flashcore {

constexpr int kDqSlabRows = 64;
constexpr int kDqSlabCols = 64;
constexpr int kDqSlabFloats = kDqSlabRows * kDqSlabCols;

// Packed varlen: slabs per head, enough for every sequence's padded start.
FLASHCORE_DQ_LAYOUT_FN int64_t dq_slabs_per_head_packed(int total_q, int batch) {
  return (static_cast<int64_t>(total_q) + static_cast<int64_t>(kDqSlabRows) * batch) / kDqSlabRows + 1;
}

// Packed varlen: sequence b's first slab within its head's (its first row row0_q = cu_seqlens_q[b]).
FLASHCORE_DQ_LAYOUT_FN int64_t dq_seq_first_slab_packed(int row0_q, int b) {
  return (static_cast<int64_t>(row0_q) + static_cast<int64_t>(kDqSlabRows) * b) / kDqSlabRows;
}

// Dense: slabs per (batch entry, head).
FLASHCORE_DQ_LAYOUT_FN int dq_slabs_per_seq_dense(int seqlen_q) { return (seqlen_q + kDqSlabRows - 1) / kDqSlabRows; }

// The first slab of (batch entry b, head h): rows i of b are in slab + i / 64.
FLASHCORE_DQ_LAYOUT_FN int64_t dq_first_slab(bool packed, int total_q, int seqlen_q, int heads, int batch, int b,
                                             int h, int row0_q) {
  return packed ? h * dq_slabs_per_head_packed(total_q, batch) + dq_seq_first_slab_packed(row0_q, b)
                : (static_cast<int64_t>(b) * heads + h) * dq_slabs_per_seq_dense(seqlen_q);
}

// Float offset of element (row ri, column c) inside its slab; columns c and c + 1 (c even) are adjacent.
FLASHCORE_DQ_LAYOUT_FN int dq_slab_offset(int ri, int c) {
  const int thread = 32 * (ri / 16) + 4 * (ri % 8) + (c % 8) / 2;
  return ((c / 8) * 128 + thread) * 4 + 2 * ((ri / 8) % 2) + c % 2;
}

// Floats of dq_accum in fragment order.
FLASHCORE_DQ_LAYOUT_FN int64_t dq_fragment_floats(bool packed, int total_q, int seqlen_q, int heads, int batch) {
  const int64_t slabs = packed ? heads * dq_slabs_per_head_packed(total_q, batch)
                               : static_cast<int64_t>(batch) * heads * dq_slabs_per_seq_dense(seqlen_q);
  return slabs * kDqSlabFloats;
}

}  // namespace flashcore
