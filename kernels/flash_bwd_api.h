// flashcore backward attention: the host-side contract (params, kernel registry). Plain C++ with
// only cuda_runtime_api.h, like flash_fwd_api.h.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

#include "kernels/common/dq_accum_layout.h"
#include "kernels/flash_fwd_api.h"

namespace flashcore {

// Query rows per dQ semaphore (deterministic mode): one int32 per (batch, head, block of this
// many query rows). The caller allocates ceil(seqlen_q / kBwdBlockM) * batch * heads of them.
constexpr int kBwdBlockM = 64;

// Tensors and features as in FwdParams: (batch, seqlen, heads, head_dim) or packed varlen, unit
// stride on head_dim, strides in elements; k, v, dk, dv have heads_kv heads (dk/dv are reduced
// over the query heads of a group inside the kernels). lse is the forward's float32, laid out as
// there (dense (batch, heads, seqlen_q), varlen (heads, total_q)); dsum and dq_accum's rows are
// laid out like lse's.
//
// Scratch, allocated by the caller (no allocation inside the launcher):
//   dsum      float32 (batch, heads, seqlen_q), contiguous: D = rowsum(dO * (O + o_resid)) - dlse
//   dq_accum  float32, dq_accum_floats(...) of them: (batch, heads, seqlen_q, dq_accum_cols(kernel
//             head dim)) contiguous, or in fragment order (common/dq_accum_layout.h) at 64 columns:
//             dQ / softmax_scale in fp32, rows as wide as the instantiation's kHeadDim
//             (BwdKernelKey::head_dim, which find_bwd_kernel_for reports) rounded up to 64
//             columns, not the call's head_dim: the columns past head_dim accumulate zeros (or
//             nothing) and are never read into dQ
//   dq_semaphore int32 (batch, heads, ceil(seqlen_q / kBwdBlockM)), contiguous; deterministic only
// The launcher zeroes dq_accum and dq_semaphore itself (in the preprocessing kernel).
// dq_accum's row width for an instantiation of head dim kernel_head_dim: a whole number of 64
// columns, so that the sm90a 96 kernel's mma.sync fallback -- the 128 kernel, whose tiles are
// 64-column blocks -- accumulates into the same buffer (kernels/hopper/bwd_launch.cuh).
constexpr int dq_accum_cols(int kernel_head_dim) { return (kernel_head_dim + 63) / 64 * 64; }

// Floats the caller allocates for dq_accum: rows of lse's layout (packed: heads x total_q, dense:
// batch x heads x seqlen_q) times dq_accum_cols, or -- 64-column rows -- the fragment order's
// slabs where that is larger (kernels/common/dq_accum_layout.h: the sm90a head-dim-64 kernel's
// layout; every launcher that may take a call gets a buffer it can use).
inline int64_t dq_accum_floats(int kernel_head_dim, bool packed, int total_q, int seqlen_q, int heads, int batch) {
  const int cols = dq_accum_cols(kernel_head_dim);
  const int64_t rows = static_cast<int64_t>(heads) * (packed ? total_q : static_cast<int64_t>(batch) * seqlen_q);
  const int64_t row_floats = rows * cols;
  if (cols != kDqSlabCols) return row_floats;
  const int64_t fragment_floats = dq_fragment_floats(packed, total_q, seqlen_q, heads, batch);
  return fragment_floats > row_floats ? fragment_floats : row_floats;
}

// BwdParams::sink_partial's layout: key blocks of at least kSinkPartialKeys keys (every backward
// kernel's key block is a multiple), each with up to kSinkPartialSlots warps' shares.
constexpr int kSinkPartialKeys = 32;
constexpr int kSinkPartialSlots = 8;

struct BwdParams : AttentionFeatures {
  const void* q;
  const void* k;
  const void* v;
  const void* o;
  const void* dout;
  const void* o_resid;  // optional (nullptr): the forward's O residual (FwdParams::o_resid), o's strides
  const float* lse;
  const float* dlse;  // optional (nullptr): gradient of the returned lse, float32 like lse
  void* dq;
  void* dk;
  void* dv;
  float* dsum;
  float* dq_accum;
  int* dq_semaphore;  // nullptr unless deterministic
  int64_t dq_semaphore_count;
  // Attention sinks (AttentionFeatures::sink): the sink's gradient is -sum_i p_sink,i (D_i - dlse_i)
  // with D_i = sum_j P_ij dP_ij, taken by the sm90a main kernels from their fp32 P and dP (dO . O
  // from the rounded O left up to 7x the error of the same math in bf16 on some inputs). Each
  // consumer warp stores its share sum p_sink,i P_ij dP_ij of a (key block, batch, query head) at
  //   sink_partial[((n_block * batch + b) * heads + h) * kSinkPartialSlots + slot]
  // with n_block counted in kSinkPartialKeys keys or more (every backward kernel's key block is a
  // multiple); the caller zeroes ceil(seqlen_k / kSinkPartialKeys) * batch * heads * slots floats,
  // sums them in a fixed order (deterministic) and subtracts sum_i p_sink,i dlse_i. The mma.sync
  // backward (sm80, sm89, sm90a's fallback) writes D from the rounded O instead, in slot 0 of key
  // block 0 (bwd_row_kernels.cuh). nullptr: no sink, or the caller does not want it.
  float* sink_partial;
  int64_t q_batch_stride, q_row_stride, q_head_stride;
  int64_t k_batch_stride, k_row_stride, k_head_stride;
  int64_t v_batch_stride, v_row_stride, v_head_stride;
  int64_t o_batch_stride, o_row_stride, o_head_stride;
  int64_t do_batch_stride, do_row_stride, do_head_stride;
  int64_t dq_batch_stride, dq_row_stride, dq_head_stride;
  int64_t dk_batch_stride, dk_row_stride, dk_head_stride;
  int64_t dv_batch_stride, dv_row_stride, dv_head_stride;
  int batch, heads, seqlen_q, seqlen_k, head_dim;
  int head_dim_v;  // v, o, dO and dV's head dim (FwdParams::head_dim_v); head_dim is q, k, dq and dk's
  float softmax_scale;
  bool deterministic;
  // Packed batches only: zero dq's rows past cu_seqlens_q[batch] and dk / dv's past
  // cu_seqlens_k[batch] (rows of no sequence, which no other kernel writes) in the preprocess
  // kernel (bwd_row_kernels.cuh: zero_packed_tails). For callers that cannot read those ends on
  // the host -- CUDA-graph capture, torch.compile -- instead of zeroing the three whole tensors.
  bool zero_packed_tails;
};

using BwdKernelKey = FwdKernelKey;
using BwdLauncher = cudaError_t (*)(const BwdParams&, cudaStream_t);

bool register_bwd_kernel(const BwdKernelKey& key, BwdLauncher launcher);
BwdLauncher find_bwd_kernel(const BwdKernelKey& key);
std::vector<BwdKernelKey> registered_bwd_kernels();
// As find_fwd_kernel_for: the instantiation a call of head dim key.head_dim runs on.
BwdLauncher find_bwd_kernel_for(const BwdKernelKey& key, BwdKernelKey* kernel_key);

// Defined in kernels/sm80/bwd_kernel.cuh (the sm90a backward, hopper::launch_bwd, is in
// kernels/hopper/bwd_kernel.cuh); instantiated only by generated TUs.
template <Arch kArch, DType kDType, int kHeadDim, bool kCausal>
cudaError_t launch_bwd(const BwdParams& params, cudaStream_t stream);

}  // namespace flashcore
