// The sm90a backward's launch: the preprocess kernel (D = rowsum(dO o O) - dlse, dQ accumulator
// zeroed; kernels/sm80/bwd_row_kernels.cuh), the main kernel of the head dim's tile policy
// (bwd_kernel.cuh or bwd_wide_kernel.cuh), and the convert kernel (dQ = dq_accum * scale).
// Included only by the generated sm90a backward instantiation TUs (kernels/defs.bzl).
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "kernels/flash_bwd_api.h"
#include "kernels/hopper/bwd_block_order.cuh"
#include "kernels/hopper/bwd_cta.cuh"
#include "kernels/hopper/bwd_dq_fragments.cuh"
#include "kernels/hopper/bwd_kernel.cuh"
#include "kernels/hopper/bwd_tensor_map.h"
#include "kernels/hopper/bwd_wide_kernel.cuh"
#include "kernels/hopper/tensor_map.h"
#include "kernels/hopper/tile_policy.h"
#include "kernels/sm80/bwd_launch.cuh"  // the mma.sync fallback's launcher and the test-only switches

namespace flashcore {
namespace hopper {

// The main kernel of a head dim's layout; only that one is instantiated. kSinkGrad: the variant
// that also sums the sink's gradient (BwdParams::sink_partial). A template flag, not a run-time
// branch: the branch alone, never taken, cost the d64 backward 3-5% (H100, kernel-only;
// docs/results/2026-11-24-h100-bwd-rows-persistent.md). kPackedSoftcap: the variant for softcap >
// 0 (bwd_scores.cuh), the same story: as a run-time branch it made plain d64 / d128 rows 1-13%
// slower (H200, docs/results/2026-11-28-h200-session32.md). Instantiated for the default (not
// deterministic) launch only: deterministic softcap calls and those with a sink's gradient run the
// plain or sink kernel, which take softcap by a run-time branch (tanh recovered by lg2).
template <class Traits, int kHeadDim, bool kCausal, bool kDeterministic, bool kSinkGrad, bool kPackedSoftcap = false>
constexpr auto bwd_kernel_for() {
  if constexpr (bwd_tile_policy(kHeadDim).shared_keys) {
    return &bwd_wide_kernel<Traits, kHeadDim, kCausal, kDeterministic, kSinkGrad, kPackedSoftcap>;
  } else {
    return &bwd_kernel<Traits, kHeadDim, kCausal, kDeterministic, kSinkGrad, kPackedSoftcap>;
  }
}

template <DType kDType, int kHeadDim, bool kCausal, bool kDeterministic>
cudaError_t launch_bwd_wgmma(const BwdParams& p, cudaStream_t stream) {
  using Traits = typename TraitsFor<kDType>::type;
  using Element = typename Traits::Element;
  constexpr BwdTilePolicy kPolicy = bwd_tile_policy(kHeadDim);
  constexpr int kThreads = (kPolicy.consumer_wgs + 1) * 128;
  using Smem = std::conditional_t<kPolicy.shared_keys,
                                  BwdWideSharedStorage<Element, kHeadDim, kPolicy.block_m, kPolicy.block_n, kPolicy.stages>,
                                  BwdSharedStorage<Element, kHeadDim, kPolicy.block_m, kPolicy.block_n, kPolicy.stages,
                                                   bwd_dq_lagged(kHeadDim, kDeterministic)>>;
  constexpr size_t kSmemBytes = sizeof(Smem) + 1024;  // + the slack align_shared<1024> may skip
  static_assert(kSmemBytes <= kSm90MaxDynamicSmemBytes, "shared storage over sm_90's 227 KB");
  if (!head_dims_run_on(p.head_dim, p.head_dim_v, kHeadDim)) return cudaErrorInvalidValue;
  if (p.batch <= 0 || p.heads <= 0 || p.seqlen_q <= 0 || p.seqlen_k <= 0) return cudaErrorInvalidValue;
  if (p.heads > 65535 || p.batch > 65535) return cudaErrorInvalidConfiguration;
  if (p.dsum == nullptr || p.dq_accum == nullptr) return cudaErrorInvalidValue;
  if (p.heads_kv <= 0 || p.heads % p.heads_kv != 0) return cudaErrorInvalidValue;
  // Deterministic: one semaphore per 64 query rows (kBwdBlockM, the layout the preprocess zeroes);
  // the 80-row tile uses one per query block, fewer (dq_writer.cuh dq_semaphore_rows).
  static_assert(kBwdBlockM == 64, "the dQ semaphores count 64-row blocks");
  if (kDeterministic && (p.dq_semaphore == nullptr ||
                         p.dq_semaphore_count < static_cast<int64_t>((p.seqlen_q + 63) / 64) * p.batch * p.heads)) {
    return cudaErrorInvalidValue;
  }
  BwdTensorMaps maps;
  const TmaLayout t(p, p.batch, p.seqlen_q, p.seqlen_k);
  // dq_accum's rows: kHeadDim rounded up to 64 columns (flash_bwd_api.h dq_accum_cols), so that
  // head dim 96's mma.sync fallback below (the 128 kernel) can take the same buffer.
  constexpr int kAccumCols = dq_accum_cols(kHeadDim);
  cudaError_t err = make_bshd_tensor_maps(
      {{&maps.q, p.q, t.rows_q, p.heads, t.batch_stride(p.q_batch_stride, p.q_row_stride, t.rows_q), p.q_row_stride,
        p.q_head_stride, kPolicy.block_m, p.head_dim},
       {&maps.dout, p.dout, t.rows_q, p.heads, t.batch_stride(p.do_batch_stride, p.do_row_stride, t.rows_q),
        p.do_row_stride, p.do_head_stride, kPolicy.block_m, p.head_dim_v},
       {&maps.k, p.k, t.rows_k, p.heads_kv, t.batch_stride(p.k_batch_stride, p.k_row_stride, t.rows_k),
        p.k_row_stride, p.k_head_stride, kPolicy.block_n, p.head_dim},
       {&maps.v, p.v, t.rows_k, p.heads_kv, t.batch_stride(p.v_batch_stride, p.v_row_stride, t.rows_k),
        p.v_row_stride, p.v_head_stride, kPolicy.block_n, p.head_dim_v}},
      kDType, t.batch, tile_swizzle_bytes(kHeadDim));
  // dq_accum: (batch, heads, seqlen_q, kAccumCols) dense, (heads, total_q, kAccumCols) packed --
  // the rows of lse's layout (flash_bwd_api.h); the map's row bound clips the TMA's reduce-adds
  // there (the writer adds no box past kHeadDim).
  // In fragment order (tile_policy.h bwd_dq_fragments) the writer adds whole slabs by address: no map.
  if (err == cudaSuccess && !bwd_dq_fragments(kHeadDim, kDeterministic)) {
    err = make_f32_rows_tensor_map(&maps.dq_accum, p.dq_accum, kAccumCols, t.rows_q, p.heads, t.batch,
                                   dq_box_rows(kPolicy));
  }
  // A layout the TMA cannot describe: the mma.sync kernel reads any 16-byte-row layout. It has no
  // 96 (its tiles are 64-column blocks): 96 then runs on the registered 128 launcher, which
  // falls back to it in turn (same dq_accum width: kAccumCols).
  if (err != cudaSuccess || bwd::sm90_mma_sync_requested()) {
    if constexpr (kHeadDim % 64 == 0) {
      return flashcore::launch_bwd<Arch::kSm90a, kDType, kHeadDim, kCausal>(p, stream);
    } else {
      static_assert(kAccumCols == 128, "the fallback kernel's dq_accum rows");
      const BwdLauncher fallback = find_bwd_kernel(BwdKernelKey{Arch::kSm90a, kDType, kAccumCols, kCausal});
      return fallback != nullptr ? fallback(p, stream) : cudaErrorInvalidDeviceFunction;
    }
  }

  constexpr auto kernel = bwd_kernel_for<Traits, kHeadDim, kCausal, kDeterministic, false>();
  constexpr auto kernel_sink_grad = bwd_kernel_for<Traits, kHeadDim, kCausal, kDeterministic, true>();
  // Deterministic calls name the plain kernel here, never launched for softcap (not instantiated).
  constexpr auto kernel_softcap = bwd_kernel_for<Traits, kHeadDim, kCausal, kDeterministic, false, !kDeterministic>();
  const bool sink_grad = p.sink_partial != nullptr && p.sink != nullptr;
  const bool packed_softcap = !kDeterministic && !sink_grad && p.softcap > 0.f;
  err = sink_grad        ? ensure_dynamic_smem<kernel_sink_grad>(kSmemBytes)
        : packed_softcap ? ensure_dynamic_smem<kernel_softcap>(kSmemBytes)
                         : ensure_dynamic_smem<kernel>(kSmemBytes);
  if (err != cudaSuccess) return err;

  // One CTA per (key block, k/v head, batch), in a 1-D grid ordered by BwdBlockOrder.
  const int n_blocks = (p.seqlen_k + kPolicy.block_n - 1) / kPolicy.block_n;
  const int64_t grid = static_cast<int64_t>(n_blocks) * p.heads_kv * p.batch;
  if (grid > 0x7fffffff) return cudaErrorInvalidConfiguration;
  const int groups = p.heads_kv * p.batch;  // (batch, k/v head) pairs: at most grid
  int sm_count = 0;
  err = multiprocessor_count(&sm_count);
  if (err != cudaSuccess) return err;
  // Q and dO of one group: its query heads' rows, kHeadDim wide (the tiles the TMA brings in).
  const int64_t group_qdo_bytes =
      static_cast<int64_t>(p.heads / p.heads_kv) * p.seqlen_q * kHeadDim * 2 * sizeof(Element);
  const int forced_chunk = bwd::forced_bwd_chunk_groups();
  const BwdBlockOrder order = make_bwd_block_order(
      n_blocks, groups,
      forced_chunk > 0 ? std::min(forced_chunk, groups)
                       : bwd_chunk_groups(kCausal, kDeterministic, n_blocks, groups, sm_count, group_qdo_bytes),
      p.heads_kv, p.heads);

  BwdParams params = p;
  if (!kDeterministic) params.dq_semaphore = nullptr;
  // dq_accum: the dQ writer adds 32-column boxes up to head_dim (dq_writer.cuh); no other column is
  // added to or read, so the preprocess zeroes only those.
  const int64_t row_blocks = bwd::row_kernel_blocks(p, kAccumCols);
  if (row_blocks > 0x7fffffff) return cudaErrorInvalidConfiguration;
  // (Fragment order: its own row kernels, bwd_dq_fragments.cuh, zero whole half slabs.)
  constexpr bool kFragments = bwd_dq_fragments(kHeadDim, kDeterministic);
  const int zero_cols = (p.head_dim + 31) / 32 * 32 < kAccumCols ? (p.head_dim + 31) / 32 * 32 : kAccumCols;
  const int64_t fragment_blocks = kFragments ? fragment_preprocess_blocks(p) : 0;
  const int tails = bwd::tail_blocks(p);  // 0 unless the caller asked for the packed tails
  if ((kFragments ? fragment_blocks : row_blocks) + tails > 0x7fffffff) return cudaErrorInvalidConfiguration;
  if constexpr (kFragments) {
    bwd_preprocess_fragments_kernel<Arch::kSm90a, Traits>
        <<<static_cast<unsigned>(fragment_blocks + tails), bwd::kRowKernelThreads, 0, stream>>>(
            params, static_cast<int>(fragment_blocks));
  } else {
    bwd::bwd_preprocess_kernel<Arch::kSm90a, Traits, kAccumCols>
        <<<static_cast<unsigned>(row_blocks + tails), bwd::kRowKernelThreads, 0, stream>>>(
            params, zero_cols, static_cast<int>(row_blocks));
  }
  err = cudaGetLastError();
  if (err != cudaSuccess) return err;
  if (sink_grad) {
    kernel_sink_grad<<<static_cast<unsigned>(grid), kThreads, kSmemBytes, stream>>>(params, maps, order);
  } else if (packed_softcap) {
    kernel_softcap<<<static_cast<unsigned>(grid), kThreads, kSmemBytes, stream>>>(params, maps, order);
  } else {
    kernel<<<static_cast<unsigned>(grid), kThreads, kSmemBytes, stream>>>(params, maps, order);
  }
  err = cudaGetLastError();
  if (err != cudaSuccess) return err;
  if constexpr (kFragments) {
    bwd_convert_fragments_kernel<Arch::kSm90a, Traits>
        <<<static_cast<unsigned>(fragment_convert_blocks(p)), bwd::kRowKernelThreads, 0, stream>>>(params);
  } else {
    bwd::bwd_convert_dq_kernel<Arch::kSm90a, Traits, kAccumCols>
        <<<static_cast<unsigned>(row_blocks), bwd::kRowKernelThreads, 0, stream>>>(params);
  }
  return cudaGetLastError();
}

// The sm90a backward launcher registered for (dtype, head_dim, causal): the wgmma kernel, with dQ
// through the dQ writer, deterministic or not. Head dims 64, 96 and 128 split the keys between the
// consumers (bwd_kernel.cuh), 192 and 256 share them (bwd_wide_kernel.cuh; every multiple of 8 in
// 136..256 runs on one of these). The mma.sync kernel (kernels/sm80/bwd_kernel.cuh, launched by sm80/bwd_launch.cuh) takes only layouts
// the TMA cannot describe.
template <DType kDType, int kHeadDim, bool kCausal>
cudaError_t launch_bwd(const BwdParams& p, cudaStream_t stream) {
  static_assert(kHeadDim == 64 || kHeadDim == 96 || kHeadDim == 128 || kHeadDim == 192 || kHeadDim == 256,
                "no sm90a backward tile policy for this head dim");
  if (p.deterministic) return launch_bwd_wgmma<kDType, kHeadDim, kCausal, true>(p, stream);
  return launch_bwd_wgmma<kDType, kHeadDim, kCausal, false>(p, stream);
}

}  // namespace hopper
}  // namespace flashcore
