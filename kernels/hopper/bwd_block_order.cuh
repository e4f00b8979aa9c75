// The Hopper backward's CTA launch order (kernels/hopper/bwd_kernel.cuh): which (key block,
// k/v head, batch) each CTA of its 1-D grid runs, and the host's choice of chunk width. Apart from
// the kernel because it is scheduling, not math: the forward's counterpart is tile_scheduler.cuh.
#pragma once

#include <cstdint>

#include "kernels/common/fast_divide.h"

// Host-compilable too, so tests/bwd_block_order_test.cc checks the mapping without a GPU.
#if defined(__CUDACC__)
#define FLASHCORE_ORDER_FN __host__ __device__ __forceinline__
#else
#define FLASHCORE_ORDER_FN inline
#endif

namespace flashcore {
namespace hopper {

// The CTA of launch index `index` (a 1-D grid of n_blocks key blocks x `groups` (k/v head, batch)
// pairs, started by the hardware in index order as SMs free up): key block n and group g.
// Groups are taken `chunk_groups` at a time; inside a chunk the key blocks run block-major across
// its groups (block 0 of each, then block 1, ...). chunk_groups 1 is the group-major order (each
// group's key blocks in a row). A causal key block's work falls with n (block n sees the queries
// from its diagonal on), so wider chunks start the heaviest blocks of more groups first and leave
// light ones for the end; narrower chunks keep fewer groups' Q and dO live in L2 at a time.
// reverse: n counted from the last block (deterministic causal, see the dQ writer).
// A group g is (batch g / heads_kv, k/v head g % heads_kv: by_heads_kv), whose heads_per_kv query
// heads the CTA walks. Every division here is by a FastDivide set on the host (make_bwd_block_order): the
// hardware has no integer divide, and the dependent chain of four run-time divisions and a 64-bit
// one took ~1,700 clocks at the start of every CTA, before its first load was issued (clock64
// stamps, H200, docs/results/2026-11-29-h200-session44.md).
// Two other orders measured worse (H200, kernel-only, docs/results/2026-11-30-h200-session47.md):
//   - each unmasked key block starting its query walk at block n mod m_count, so that a head's
//     CTAs would not reduce-add into the same dq_accum rows at once: d128 full 0.937-0.982 (its
//     causal kernels, not rotated but re-allocated by ptxas, 0.965-1.013), d64 0.990-1.011. So
//     that contention is not what a step waits for, and CTAs walking in step, which read each Q /
//     dO tile from HBM once for all of them, keep their order;
//   - a persistent grid at head dim 64 (one CTA per SM taking launch indices blockIdx.x, +
//     gridDim.x, ..., the next work's first loads under the last one's epilogue): unmasked
//     0.978-1.010, causal 0.872-0.928. Not diagnosed; the likely cause: a static walk lets CTAs
//     of short causal works run rounds ahead of those of long ones, so the works running at once
//     no longer share their Q / dO in L2 and the last round is unbalanced, where the hardware
//     starts each CTA in launch order as an SM frees up.
struct BwdBlockOrder {
  int n_blocks, groups, chunk_groups;
  int heads_per_kv;  // query heads per k/v head (GQA group size)
  FastDivide by_chunk_span;   // chunk_groups * n_blocks: launch indices per chunk
  FastDivide by_chunk;        // chunk_groups
  FastDivide by_last_chunk;   // the last chunk's width (groups % chunk_groups, or chunk_groups)
  FastDivide by_heads_kv;

  FLASHCORE_ORDER_FN void block_of(int index, bool reverse, int& n, int& g) const {
    const int first = by_chunk_span.quotient(index) * chunk_groups;
    const bool last = groups - first < chunk_groups;
    const int width = last ? groups - first : chunk_groups;
    const int r = index - first * n_blocks;
    n = (last ? by_last_chunk : by_chunk).quotient(r);
    g = first + r - n * width;
    if (reverse) n = n_blocks - 1 - n;
  }
};

// The order of n_blocks key blocks x `groups` (batch, k/v head) pairs, chunk_groups at a time.
inline BwdBlockOrder make_bwd_block_order(int n_blocks, int groups, int chunk_groups, int heads_kv, int heads) {
  BwdBlockOrder o;
  o.n_blocks = n_blocks;
  o.groups = groups;
  o.chunk_groups = chunk_groups < 1 ? 1 : chunk_groups;
  o.heads_per_kv = heads_kv > 0 ? heads / heads_kv : 1;
  const int64_t span = static_cast<int64_t>(o.chunk_groups) * (n_blocks > 0 ? n_blocks : 1);
  o.by_chunk_span = FastDivide(span < 0x7fffffff ? static_cast<int>(span) : 0x7fffffff);
  o.by_chunk = FastDivide(o.chunk_groups);
  const int rest = groups > 0 ? groups % o.chunk_groups : 0;
  o.by_last_chunk = FastDivide(rest > 0 ? rest : o.chunk_groups);
  o.by_heads_kv = FastDivide(heads_kv > 0 ? heads_kv : 1);
  return o;
}

// Groups per chunk of the launch order (BwdBlockOrder). Causal: as many groups as one wave of key
// blocks covers (num_sms / n_blocks), so the heaviest blocks of those groups start together and
// the wave's tail is light blocks; but no more groups than keep their Q and dO (both read by every
// key block of the group) within kBwdOrderL2Bytes. That is more than the H100's / H200's 50 MB
// L2: a chunk's key blocks walk their queries from different starts, so less than all of it is
// live at once. With 32 MB the cap took GQA groups of 7-8 heads at d128 below the wave, and a
// group's last key blocks then started alone at the end; 64 MB, against 32, on an H200 (bf16,
// causal, the backward's kernels, a process per width, docs/results/2026-12-01-h200-session56.md):
// Qwen 2.5's 28 / 4 heads S 8192 B2 (2 groups a chunk instead of 1) 0.90x the time, S 4096 B4 (4
// instead of 2) 0.94x, Llama 3 70B's 64 / 8 S 8192 B1 (2 instead of 1) 0.95x; MQA 32 / 1 S 4096
// (one group's Q and dO are 64 MB) keeps 1: 2 or 4 groups a chunk there measured 1.03x.
// Measured (H100, bf16, kernel-only, docs/results/2026-11-23-h100-bwd-order.md): GQA 32/8 causal
// S 4k 340 -> 362 TFLOP/s at d128 (4 groups a chunk; 8 groups, 64 MB of Q and dO: 356) and 269 ->
// 294 at d64; S 16k (one group fills the GPU) is best group-major: 2 groups of 32 MB each
// measured 405 -> 396; every group in one chunk cost MHA up to 36%. Not causal: the key blocks'
// work is equal and the order only moves L2 traffic (group-major measured 0-3% ahead).
//
// Deterministic mode (the dQ writer's fixed order: key block n adds a query block's dQ after
// block n - 1 has, bwd_cta.cuh): not causal, group-major launched a group's key blocks a few
// CTAs apart, all starting at query block 0, so block n waited about n steps for its turn. A
// wave-wide chunk launches block n of a group a chunk's width of CTAs after block n - 1, which
// by then is about a step ahead: det / default at d64 S 2048 0.75 -> 0.95, d128 S 1024-4096
// 0.87-0.90 -> 0.94-0.97 (H100, bf16, kernel-only, docs/results/2026-11-25-h100-session20.md).
// Causal (blocks in reverse, bwd_cta.cuh) measured best group-major (the wave-wide chunk
// 0-2% behind; a fixed width of 8 or 16 halved S 16384). Any width keeps the order deadlock-free:
// block n - 1 of a group is always launched before block n. Its chunks keep the 32 MB budget the
// default causal backward had before session 56 (64 MB there was not measured in this mode).
constexpr int64_t kBwdOrderL2Bytes = 64ll << 20;
constexpr int64_t kBwdOrderL2BytesDeterministic = 32ll << 20;
inline int bwd_chunk_groups(bool causal, bool deterministic, int n_blocks, int groups, int num_sms,
                            int64_t group_qdo_bytes) {
  // Chunked: the default causal backward and the deterministic non-causal one (both above).
  const bool chunked = causal ? !deterministic : deterministic;
  if (!chunked || n_blocks <= 0 || groups <= 1) return 1;
  int width = num_sms / n_blocks;
  const int64_t budget = deterministic ? kBwdOrderL2BytesDeterministic : kBwdOrderL2Bytes;
  const int64_t fit = budget / (group_qdo_bytes > 0 ? group_qdo_bytes : 1);
  if (width > fit) width = static_cast<int>(fit);
  if (width > groups) width = groups;
  return width < 1 ? 1 : width;
}

}  // namespace hopper
}  // namespace flashcore
