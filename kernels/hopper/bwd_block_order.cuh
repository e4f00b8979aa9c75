// The Hopper backward's CTA launch order (kernels/hopper/bwd_kernel.cuh): which (key block,
// k/v head, batch) each CTA of its 1-D grid runs, and the host's choice of chunk width. Apart from
// the kernel because it is scheduling, not math: the forward's counterpart is tile_scheduler.cuh.
#pragma once

#include <cstdint>

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
struct BwdBlockOrder {
  int n_blocks, groups, chunk_groups;
  FLASHCORE_ORDER_FN void block_of(int index, bool reverse, int& n, int& g) const {
    const int first = index / (chunk_groups * n_blocks) * chunk_groups;
    const int width = chunk_groups < groups - first ? chunk_groups : groups - first;
    const int r = index - first * n_blocks;
    n = r / width;
    g = first + r % width;
    if (reverse) n = n_blocks - 1 - n;
  }
};

// Groups per chunk of the launch order (BwdBlockOrder). Causal: as many groups as one wave of key
// blocks covers (num_sms / n_blocks), so the heaviest blocks of those groups start together and
// the wave's tail is light blocks; but no more groups than keep their Q and dO (both read by every
// key block of the group) within kBwdOrderL2Bytes, about two thirds of the H100's / H200's 50 MB L2.
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
// block n - 1 of a group is always launched before block n.
constexpr int64_t kBwdOrderL2Bytes = 32ll << 20;
inline int bwd_chunk_groups(bool causal, bool deterministic, int n_blocks, int groups, int num_sms,
                            int64_t group_qdo_bytes) {
  // Chunked: the default causal backward and the deterministic non-causal one (both above).
  const bool chunked = causal ? !deterministic : deterministic;
  if (!chunked || n_blocks <= 0 || groups <= 1) return 1;
  int width = num_sms / n_blocks;
  const int64_t fit = kBwdOrderL2Bytes / (group_qdo_bytes > 0 ? group_qdo_bytes : 1);
  if (width > fit) width = static_cast<int>(fit);
  if (width > groups) width = groups;
  return width < 1 ? 1 : width;
}

}  // namespace hopper
}  // namespace flashcore
