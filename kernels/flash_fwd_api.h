// flashcore forward attention: the host-side contract between the kernel libraries and their
// callers (the pybind11 extension). Plain C++ with only cuda_runtime_api.h, so host code that
// launches kernels needs no CUDA compiler and no torch headers.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>
#include <vector>

namespace flashcore {

enum class DType : int { kFp16 = 0, kBf16 = 1 };
// One value per compiled target; kSm90a is Hopper's arch-specific target (wgmma/setmaxnreg).
// kSm80Ptx: the sm80 code compiled to compute_80 PTX only, JIT-compiled by the driver for the GPU at
// hand: what flashcore.select_arch picks for a GPU with no SASS here (Blackwell and later), and
// what the GPU suites force on a Hopper to check that code where no A100/L4 is lent. kSm89Ptx has
// had no library since there is one PTX target (kernels/defs.bzl PTX_ARCHS); code that names it
// still builds.
enum class Arch : int { kSm80 = 80, kSm89 = 89, kSm90a = 90, kSm80Ptx = 1080, kSm89Ptx = 1089 };

const char* to_string(DType dtype);
const char* to_string(Arch arch);

// The attention features every pass and arch family shares (issue 13). All are run-time
// arguments of the existing instantiations: none multiplies the instantiation list. Zero means
// "off" for softcap and the pointers; heads_kv and the window have no zero default: the caller
// sets them (heads_kv = heads and window (-1, -1) for plain attention, (-1, 0) for causal).
struct AttentionFeatures {
  // Grouped-query attention: query head h reads k/v head h / (heads / heads_kv).
  int heads_kv;
  // Sliding window, FlashAttention's meaning with the bottom-right alignment: query row i of a
  // sequence sees keys j with i + sk - sq - window_left <= j <= i + sk - sq + window_right; a
  // negative value is unbounded. Evaluated only by the masked ("causal") instantiations: causal
  // is window_right = 0. The unmasked ones ignore both.
  int window_left, window_right;
  // Logit softcap: score = softcap * tanh(softmax_scale * q.k / softcap); 0 disables.
  float softcap;
  // Attention sinks: float32 (heads,) logits (in the units of softmax_scale * q.k) that join every
  // row's softmax denominator but no value; null disables.
  const float* sink;
  // Packed variable-length batches: int32 (batch + 1) prefix sums of the sequence lengths, from
  // 0; null for a dense batch. Then batch strides are 0, row r of sequence b is row
  // cu_seqlens[b] + r of the packed tensor, and seqlen_q / seqlen_k hold the maxima (the grid's
  // extent); blocks past a sequence's own length do nothing.
  const int* cu_seqlens_q;
  const int* cu_seqlens_k;
  // int32 (batch): keys actually used per sequence (<= its length), or null (all of them).
  const int* seqused_k;
  // Rows of the packed q and k/v tensors (varlen only): total_q is the lse head stride, lse being
  // (heads, total_q); both bound what the TMA may read.
  int total_q, total_k;
  // A paged KV cache (the sm90a forward only; null: k and v hold the keys themselves). k and v are
  // (num_pages, page_size, heads_kv, head_dim) -- batch stride = the page stride -- and key j of
  // sequence b is row j % page_size of page block_table[b * block_table_stride + j / page_size].
  // seqused_k (required) gives each sequence's keys and seqlen_k the largest the table can hold;
  // cu_seqlens_k stays null (q may still be packed: cu_seqlens_q). page_size: a positive multiple
  // of kPagedKvPageMultiple.
  const int* block_table;
  int block_table_stride, page_size, num_pages;
};
// The page sizes a paged cache may have on the forward (AttentionFeatures::block_table): its
// copies are boxes of whole 16-row swizzle atoms (kernels/hopper/paged_kv.cuh). The bindings
// reject others; flashcore.kvcache keeps them on the decode kernel, which takes any.
constexpr int kPagedKvPageMultiple = 16;
// The page sizes the forward takes: a positive multiple of kPagedKvPageMultiple.
constexpr bool paged_kv_page_size_ok(int page_size) {
  return page_size >= kPagedKvPageMultiple && page_size % kPagedKvPageMultiple == 0;
}

// Head dims: an instantiation for kHeadDim also runs every head dim below it that is a multiple
// of 8 (16-byte rows of 2-byte elements): FwdParams::head_dim is the tensors' head dim, and the
// kernels load and store only that many columns (zero-filled loads, predicated stores; the inputs
// are never padded or copied). The bindings run a call on the smallest instantiated head dim
// >= its own (find_fwd_kernel_for / find_bwd_kernel_for); no new instantiation per head dim.
// V (and so O, dO, dV) may have its own head dim, head_dim_v (DeepSeek's multi-head latent
// attention trains with q/k 192 and v 128): the call runs on the instantiation of
// max(head_dim, head_dim_v), whose kernels load and store head_dim columns of Q, K (and dQ, dK)
// and head_dim_v columns of V, O, dO (and dV). S = Q K^T and P V are unchanged by the zero
// columns, so no instantiation per pair.
constexpr int kHeadDimMultiple = 8;
constexpr bool head_dim_runs_on(int head_dim, int kernel_head_dim) {
  return head_dim > 0 && head_dim % kHeadDimMultiple == 0 && head_dim <= kernel_head_dim;
}
constexpr bool head_dims_run_on(int head_dim, int head_dim_v, int kernel_head_dim) {
  return head_dim_runs_on(head_dim, kernel_head_dim) && head_dim_runs_on(head_dim_v, kernel_head_dim);
}

// Row 0 of (sequence `batch`, head `head`) in lse's layout: dense (batch, heads, seqlen_q), packed
// (heads, total_q) from the sequence's first packed row row0_q. The backward's dsum and dq_accum
// rows are laid out alike (flash_bwd_api.h). Every kernel that reads or writes those rows uses it.
__host__ __device__ inline int64_t lse_row0(bool packed, int total_q, int seqlen_q, int heads, int batch, int head,
                                            int row0_q) {
  return packed ? static_cast<int64_t>(head) * total_q + row0_q : (static_cast<int64_t>(batch) * heads + head) * seqlen_q;
}

// Tensors are (batch, seqlen, heads, head_dim) -- or, varlen, (total rows, heads, head_dim) with
// a batch stride of 0 -- with a unit stride on head_dim; strides are in elements. k and v have
// heads_kv heads. lse is float32 (batch, heads, seqlen_q) -- varlen: (heads, total_q) --
// contiguous, or null: then every kernel must leave it unwritten (flashcore.attention's eager
// path passes null unless return_lse=True, which saves an allocation per call).
struct FwdParams : AttentionFeatures {
  const void* q;
  const void* k;
  const void* v;
  void* o;
  float* lse;
  // Optional (null: not written): O's rounding residual, O_fp32 - float(O), in q's dtype with o's
  // strides. The training path keeps it for the backward, whose D = rowsum(dO * O) then uses O to
  // ~16 bits instead of the rounded O: where dS = P (dP - D) nearly cancels (a row that sees one
  // or two keys, a sink's gradient summed over rows) the rounded O's residue dominated the error.
  void* o_resid;
  int64_t q_batch_stride, q_row_stride, q_head_stride;
  int64_t k_batch_stride, k_row_stride, k_head_stride;
  int64_t v_batch_stride, v_row_stride, v_head_stride;
  int64_t o_batch_stride, o_row_stride, o_head_stride;
  int batch, heads, seqlen_q, seqlen_k, head_dim;
  int head_dim_v;  // v's and o's head dim (see head_dims_run_on); equal to head_dim unless set apart
  float softmax_scale;
};

struct FwdKernelKey {
  Arch arch;
  DType dtype;
  int head_dim;  // the instantiation's (kHeadDim); it runs every head_dim_runs_on(head_dim, this)
  bool causal;
  bool operator==(const FwdKernelKey& o) const {
    return arch == o.arch && dtype == o.dtype && head_dim == o.head_dim && causal == o.causal;
  }
};

using FwdLauncher = cudaError_t (*)(const FwdParams&, cudaStream_t);

// Each generated instantiation TU registers its launcher at static-initialisation time, so the
// set of kernels in a binary is exactly the set of instantiations linked into it (the kernel
// libraries are alwayslink). No hand-kept dispatch table to drift from the BUILD file.
bool register_fwd_kernel(const FwdKernelKey& key, FwdLauncher launcher);
FwdLauncher find_fwd_kernel(const FwdKernelKey& key);
std::vector<FwdKernelKey> registered_fwd_kernels();
// The instantiation a call of head dim key.head_dim runs on (a call with its own head_dim_v asks
// for max(head_dim, head_dim_v)): the registered key of key's (arch, dtype, causal) with the
// smallest head dim >= key.head_dim, written to *kernel_key; null (and
// *kernel_key untouched) when there is none or head_dim is not a multiple of 8.
FwdLauncher find_fwd_kernel_for(const FwdKernelKey& key, FwdKernelKey* kernel_key);

// Test-only: the sm90a forward's tile for every later call. 0 (the default): each launcher picks
// by the call's shape (kernels/hopper/tile_policy.h pick_fwd_tile); 1 + a hopper::FwdTileKind
// forces that tile where the head dim has one (the head dim's default tile elsewhere). The GPU
// suites use it to run the default tile on the small shapes the few-tiles tile otherwise takes.
// Other archs ignore it.
void set_forced_fwd_tile(int tile);
int forced_fwd_tile();

// Test-only: whether the sm90a forward may pack a GQA group's query heads into one tile
// (kernels/hopper/fwd_launch.cuh fwd_gqa_shift; on by default). A/Bs and the GPU suites turn it
// off to run the unpacked path on the same shapes. Other archs ignore it.
void set_fwd_pack_gqa(bool enabled);
bool fwd_pack_gqa();

// Defined in kernels/sm80/fwd_kernel.cuh (sm80, sm89 and their PTX builds; the sm90a forward is
// hopper::launch_fwd in kernels/hopper/fwd_kernel.cuh); instantiated only by generated TUs.
template <Arch kArch, DType kDType, int kHeadDim, bool kCausal>
cudaError_t launch_fwd(const FwdParams& params, cudaStream_t stream);

}  // namespace flashcore
