// The mma.sync backward's launchers (kernels/sm80/bwd_kernel.cuh holds the main kernel):
// launch_main, one tile shape's launch of flash_bwd_kernel; the test-only switches that pick the
// sm90a tile shape, the mma.sync fallback or the sm90a launch order's chunk width; launch_bwd, the
// registered launcher of an (arch, dtype, head dim, causal) -- preprocess, main kernel, dQ convert
// (and with a sink, its share from D) -- which the generated instantiation TUs (kernels/defs.bzl)
// and the sm90a fallback (kernels/hopper/bwd_launch.cuh) call. Split from bwd_kernel.cuh by
// concern (kernel / launch).
#pragma once

#include <cuda_runtime.h>

#include <cstdlib>
#include <cstring>

#include "kernels/flash_bwd_api.h"
#include "kernels/sm80/bwd_kernel.cuh"
#include "kernels/sm80/bwd_tile_policy.h"

namespace flashcore {
namespace bwd {

// The main kernel's launch for one tile shape (kBlockN keys per CTA, kWarps warps, kStages, column
// parts of kDkvCols, dS^T in dO's tile or not).
template <Arch kArch, class Traits, int kHeadDim, bool kCausal, int kStages, bool kVectorAtomics, int kBlockN,
          int kWarps, int kDkvCols = kHeadDim, bool kDsInDo = false>
cudaError_t launch_main(const BwdParams& params, cudaStream_t stream) {
  using Element = typename Traits::Element;
  constexpr size_t kSmemBytes = main_smem_bytes<kHeadDim, kStages, kBlockN, Element, kDsInDo>();
  static_assert(kSmemBytes <= bwd_smem_budget(kArch), "the main kernel's shared memory exceeds the arch's budget");
  constexpr int kParts = kHeadDim / kDkvCols;
  constexpr auto kKernel = &flash_bwd_kernel<kArch, Traits, kHeadDim, kCausal, false, kStages, kVectorAtomics,
                                             kBlockN, kWarps, kDkvCols, kDsInDo>;
  constexpr auto kDeterministicKernel = &flash_bwd_kernel<kArch, Traits, kHeadDim, kCausal, true, kStages,
                                                          kVectorAtomics, kBlockN, kWarps, kDkvCols, kDsInDo>;
  const cudaError_t err = params.deterministic ? ensure_dynamic_smem<kDeterministicKernel>(kSmemBytes)
                                               : ensure_dynamic_smem<kKernel>(kSmemBytes);
  if (err != cudaSuccess) return err;
  auto* kernel = params.deterministic ? kDeterministicKernel : kKernel;
  const int64_t grid_x = static_cast<int64_t>((params.seqlen_k + kBlockN - 1) / kBlockN) * kParts;
  if (grid_x > 0x7fffffff) return cudaErrorInvalidConfiguration;
  const dim3 grid(static_cast<unsigned>(grid_x), params.heads_kv, params.batch);
  kernel<<<grid, kWarps * 32, kSmemBytes, stream>>>(params);
  return cudaGetLastError();
}

// Experimental, opt-in, sm90a only, for A/B measurement: FLASHCORE_BWD_SM90_BLOCK_N=128 runs the
// main kernel with 128-key CTAs of 8 warps (Q/dO loads and dQ atomics per key halved, one CTA
// per SM) instead of 64 keys and 4 warps. Head dims <= 128 only (at 256 two stages of
// 128 keys do not fit 227 KiB). Read once per process.
inline bool sm90_wide_tiles_requested() {
  static const bool requested = [] {
    const char* e = std::getenv("FLASHCORE_BWD_SM90_BLOCK_N");
    return e != nullptr && std::strcmp(e, "128") == 0;
  }();
  return requested;
}

// Test-only, sm90a: FLASHCORE_BWD_SM90_MMA_SYNC=1 sends every sm90a backward to this file's
// mma.sync kernel, the fallback for layouts the TMA cannot describe, which no valid Python call
// reaches otherwise (kernels/sm80/features_dev_check.py --bwd fallback). Read once per process.
inline bool sm90_mma_sync_requested() {
  static const bool requested = [] {
    const char* e = std::getenv("FLASHCORE_BWD_SM90_MMA_SYNC");
    return e != nullptr && std::strcmp(e, "1") == 0;
  }();
  return requested;
}

// Test-only, sm90a: FLASHCORE_BWD_CHUNK_GROUPS=N runs every sm90a backward with N groups a chunk
// of its launch order (kernels/hopper/bwd_block_order.cuh BwdBlockOrder; at most the call's
// groups), to measure orders against bwd_chunk_groups' choice. Read once per process; unset or 0:
// bwd_chunk_groups decides.
inline int forced_bwd_chunk_groups() {
  static const int forced = [] {
    const char* e = std::getenv("FLASHCORE_BWD_CHUNK_GROUPS");
    return e != nullptr ? std::atoi(e) : 0;
  }();
  return forced;
}

}  // namespace bwd

template <Arch kArch, DType kDType, int kHeadDim, bool kCausal>
cudaError_t launch_bwd(const BwdParams& p, cudaStream_t stream) {
  using Traits = typename TraitsFor<kDType>::type;
  // Tile shape: bwd_tile_policy.h (Hopper: two Q/dO stages -- d128: 106 KiB, still 2 CTAs per SM,
  // the register limit; sm80/sm89: one). Hopper's dQ atomics are float2.
  constexpr BwdTileShape kTile = bwd_tile_shape(kArch, kHeadDim);
  static_assert(bwd_smem_bytes(kTile, kHeadDim) <= bwd_smem_budget(kArch), "tile policy over the arch's budget");
  constexpr int kStages = kTile.stages;
  constexpr bool kVectorAtomics = kArch == Arch::kSm90a;
  if (!head_dims_run_on(p.head_dim, p.head_dim_v, kHeadDim)) return cudaErrorInvalidValue;
  if (p.batch <= 0 || p.heads <= 0 || p.seqlen_q <= 0 || p.seqlen_k <= 0) return cudaErrorInvalidValue;
  if (p.heads > 65535 || p.batch > 65535) return cudaErrorInvalidConfiguration;
  if (p.dsum == nullptr || p.dq_accum == nullptr) return cudaErrorInvalidValue;
  if (p.heads_kv <= 0 || p.heads % p.heads_kv != 0) return cudaErrorInvalidValue;
  if ((p.cu_seqlens_q == nullptr) != (p.cu_seqlens_k == nullptr)) return cudaErrorInvalidValue;
  const int64_t m_blocks = (p.seqlen_q + bwd::kBlockM - 1) / bwd::kBlockM;
  if (p.deterministic &&
      (p.dq_semaphore == nullptr || p.dq_semaphore_count < m_blocks * p.batch * p.heads)) {
    return cudaErrorInvalidValue;
  }
  const int64_t row_blocks = bwd::row_kernel_blocks(p, kHeadDim);
  const int tails = bwd::tail_blocks(p);  // 0 unless the caller asked for the packed tails
  if (row_blocks + tails > 0x7fffffff) return cudaErrorInvalidConfiguration;

  BwdParams params = p;
  if (!p.deterministic) params.dq_semaphore = nullptr;

  // dq_accum: whole rows zeroed (this kernel's dQ parts add every column of a part, zeros past head_dim).
  bwd::bwd_preprocess_kernel<kArch, Traits, kHeadDim>
      <<<static_cast<unsigned>(row_blocks + tails), bwd::kRowKernelThreads, 0, stream>>>(
          params, kHeadDim, static_cast<int>(row_blocks));
  cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) return err;
  if constexpr (kArch == Arch::kSm90a && kHeadDim <= 128) {
    static_assert(kTile.block_n == 64 && kTile.warps == 4 && kTile.dkv_cols == kHeadDim && !kTile.ds_in_do,
                  "the opt-in 128-key shape below assumes the default one");
    err = bwd::sm90_wide_tiles_requested()
              ? bwd::launch_main<kArch, Traits, kHeadDim, kCausal, kStages, kVectorAtomics, 128, 8>(params, stream)
              : bwd::launch_main<kArch, Traits, kHeadDim, kCausal, kStages, kVectorAtomics, kTile.block_n,
                                 kTile.warps>(params, stream);
  } else {
    err = bwd::launch_main<kArch, Traits, kHeadDim, kCausal, kStages, kVectorAtomics, kTile.block_n, kTile.warps,
                           kTile.dkv_cols, kTile.ds_in_do>(params, stream);
  }
  if (err != cudaSuccess) return err;
  bwd::bwd_convert_dq_kernel<kArch, Traits, kHeadDim>
      <<<static_cast<unsigned>(row_blocks), bwd::kRowKernelThreads, 0, stream>>>(params);
  if (p.sink_partial != nullptr && p.sink != nullptr) {
    err = cudaGetLastError();
    if (err != cudaSuccess) return err;
    bwd::bwd_sink_share_from_d_kernel<kArch>
        <<<static_cast<unsigned>(p.batch) * static_cast<unsigned>(p.heads), bwd::kRowKernelThreads, 0, stream>>>(params);
  }
  return cudaGetLastError();
}

}  // namespace flashcore
