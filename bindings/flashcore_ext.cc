// The flashcore Python extension: device pointers, sizes, strides and a stream in; kernels out.
// It links the kernel libraries and a static cudart, and neither links libtorch nor includes
// torch headers, so one build works with any torch (torch hands it raw pointers and a stream).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>

#include "bindings/build_stamp.h"
#include "kernels/flash_bwd_api.h"
#include "kernels/decode/decode_api.h"
#include "kernels/decode/tile_policy.h"
#include "kernels/flash_fwd_api.h"

namespace py = pybind11;

namespace flashcore {
namespace {

using Strides = std::array<int64_t, 3>;  // (batch, seq, head) strides in elements

DType parse_dtype(const std::string& s) {
  if (s == "fp16") return DType::kFp16;
  if (s == "bf16") return DType::kBf16;
  throw py::value_error("flashcore: dtype must be 'fp16' or 'bf16', got '" + s + "'");
}

Arch parse_arch(const std::string& s) {
  if (s == "sm80") return Arch::kSm80;
  if (s == "sm89") return Arch::kSm89;
  if (s == "sm90a") return Arch::kSm90a;
  if (s == "sm80_ptx") return Arch::kSm80Ptx;
  throw py::value_error("flashcore: arch must be one of sm80, sm89, sm90a, sm80_ptx (portable PTX), got '" + s +
                        "'");
}

// The run-time features of a call (kernels/flash_fwd_api.h, AttentionFeatures), as one Python
// tuple: (heads_kv, window_left, window_right, softcap, sink, cu_seqlens_q, cu_seqlens_k,
// seqused_k, total_q, total_k), optionally followed by a paged KV cache's (block_table,
// block_table_stride, page_size, num_pages); pointers are device addresses or 0. An empty tuple
// is plain attention.
using Features = py::tuple;

void set_features(AttentionFeatures& f, const Features& t, int heads, bool causal) {
  f.heads_kv = heads;
  f.window_left = -1;
  f.window_right = causal ? 0 : -1;
  if (t.size() == 0) return;
  if (t.size() != 10 && t.size() != 14) throw py::value_error("flashcore: features must be a 10- or 14-tuple or empty");
  f.heads_kv = t[0].cast<int>();
  f.window_left = t[1].cast<int>();
  f.window_right = t[2].cast<int>();
  f.softcap = t[3].cast<float>();
  f.sink = reinterpret_cast<const float*>(t[4].cast<uintptr_t>());
  f.cu_seqlens_q = reinterpret_cast<const int*>(t[5].cast<uintptr_t>());
  f.cu_seqlens_k = reinterpret_cast<const int*>(t[6].cast<uintptr_t>());
  f.seqused_k = reinterpret_cast<const int*>(t[7].cast<uintptr_t>());
  f.total_q = t[8].cast<int>();
  f.total_k = t[9].cast<int>();
  if (t.size() == 14) {
    f.block_table = reinterpret_cast<const int*>(t[10].cast<uintptr_t>());
    f.block_table_stride = t[11].cast<int>();
    f.page_size = t[12].cast<int>();
    f.num_pages = t[13].cast<int>();
  }
  if (f.heads_kv <= 0 || heads % f.heads_kv != 0) throw py::value_error("flashcore: heads_kv must divide heads");
  if (f.block_table != nullptr) {
    // A paged cache's keys come from the table: packed queries (if any) with no packed keys.
    if (f.cu_seqlens_k != nullptr || f.seqused_k == nullptr) {
      throw py::value_error("flashcore: a paged KV cache (block_table) needs seqused_k and no cu_seqlens_k");
    }
    if (!paged_kv_page_size_ok(f.page_size) || f.num_pages <= 0 || f.block_table_stride <= 0) {
      throw py::value_error("flashcore: block_table needs a page_size that is a multiple of " +
                            std::to_string(kPagedKvPageMultiple) + " (got " +
                            std::to_string(f.page_size) + "), num_pages > 0 and a positive row stride");
    }
  } else if ((f.cu_seqlens_q == nullptr) != (f.cu_seqlens_k == nullptr)) {
    throw py::value_error("flashcore: cu_seqlens_q and cu_seqlens_k go together");
  }
}

// Makes `device` current for the launch and restores the caller's device afterwards. Our static
// cudart and torch's share the driver's per-thread current context, so a device switched here
// and left switched would move torch's current device too (its next allocation would land on
// the wrong GPU). Sets only when the device differs (a per-thread query is cheaper than a set).
//
// A thread this runtime has not set a device on yet (autograd's device threads, a user's worker
// thread) reports device 0 with no context current: the driver calls of the launch (the TMA
// tensor-map encode) then fail with CUDA_ERROR_INVALID_CONTEXT. So each thread sets the device
// at least once (compute-sanitizer caught the first backward on autograd's thread falling back).
class DeviceGuard {
 public:
  DeviceGuard(int device, cudaError_t* err) {
    thread_local int device_set_on_this_thread = -1;
    *err = cudaGetDevice(&previous_);
    if (*err == cudaSuccess && (previous_ != device || device_set_on_this_thread != device)) {
      *err = cudaSetDevice(device);
      if (*err == cudaSuccess) device_set_on_this_thread = device;
      switched_ = *err == cudaSuccess && previous_ != device;
    }
  }
  ~DeviceGuard() {
    if (switched_) cudaSetDevice(previous_);
  }
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_ = -1;
  bool switched_ = false;
};

[[noreturn]] void throw_cuda(const char* what, cudaError_t err) {
  throw std::runtime_error(std::string("flashcore: ") + what + " failed: " + cudaGetErrorName(err) +
                           ": " + cudaGetErrorString(err));
}

// A head dim the kernels take: a positive multiple of 8 (16-byte rows); the instantiation it runs
// on is then the smallest compiled one >= it (kernels/flash_fwd_api.h).
void check_head_dim(int head_dim, const char* name = "head_dim") {
  if (head_dim <= 0 || head_dim % kHeadDimMultiple != 0) {
    throw py::value_error(std::string("flashcore: ") + name + " must be a positive multiple of 8, got " +
                          std::to_string(head_dim));
  }
}

// Checks q's head dim, then v's (0 means q's, the common case; it is set to that), and returns the
// width whose instantiation the call runs on: the larger of the two (kernels/flash_fwd_api.h,
// head_dims_run_on).
int check_head_dims(int head_dim, int& head_dim_v) {
  check_head_dim(head_dim);
  if (head_dim_v == 0) {
    head_dim_v = head_dim;
  } else {
    check_head_dim(head_dim_v, "head_dim_v");
  }
  return std::max(head_dim, head_dim_v);
}

std::string no_kernel(const char* pass, const std::string& arch, const std::string& dtype, int head_dim, bool causal,
                      const char* info_key) {
  return std::string("flashcore: no ") + pass + " kernel compiled for arch=" + arch + " dtype=" + dtype +
         " head_dim=" + std::to_string(head_dim) + (causal ? " causal" : " non-causal") +
         " (a head dim runs on the smallest compiled head dim >= it; see flashcore.build_info()['" + info_key + "'])";
}

void fwd(int device, const std::string& arch, const std::string& dtype, uintptr_t q, uintptr_t k,
         uintptr_t v, uintptr_t o, uintptr_t lse, int batch, int heads, int seqlen_q, int seqlen_k,
         int head_dim, const Strides& q_strides, const Strides& k_strides, const Strides& v_strides,
         const Strides& o_strides, float softmax_scale, bool causal, uintptr_t stream,
         const Features& features, uintptr_t o_resid, int head_dim_v) {
  const int widest = check_head_dims(head_dim, head_dim_v);
  const FwdKernelKey key{parse_arch(arch), parse_dtype(dtype), widest, causal};
  FwdKernelKey kernel_key{};
  FwdLauncher launcher = find_fwd_kernel_for(key, &kernel_key);
  if (launcher == nullptr) throw py::value_error(no_kernel("forward", arch, dtype, widest, causal, "kernels"));
  FwdParams p{};
  set_features(p, features, heads, causal);
  if (p.block_table != nullptr && kernel_key.arch != Arch::kSm90a) {
    throw py::value_error("flashcore: a paged KV cache (block_table) on the forward kernel needs arch sm90a, got " +
                          arch + " (flashcore.flash_attn_with_kvcache takes it on every arch)");
  }
  p.q = reinterpret_cast<const void*>(q);
  p.k = reinterpret_cast<const void*>(k);
  p.v = reinterpret_cast<const void*>(v);
  p.o = reinterpret_cast<void*>(o);
  p.lse = reinterpret_cast<float*>(lse);
  p.o_resid = reinterpret_cast<void*>(o_resid);
  p.q_batch_stride = q_strides[0], p.q_row_stride = q_strides[1], p.q_head_stride = q_strides[2];
  p.k_batch_stride = k_strides[0], p.k_row_stride = k_strides[1], p.k_head_stride = k_strides[2];
  p.v_batch_stride = v_strides[0], p.v_row_stride = v_strides[1], p.v_head_stride = v_strides[2];
  p.o_batch_stride = o_strides[0], p.o_row_stride = o_strides[1], p.o_head_stride = o_strides[2];
  p.batch = batch, p.heads = heads, p.seqlen_q = seqlen_q, p.seqlen_k = seqlen_k, p.head_dim = head_dim;
  p.head_dim_v = head_dim_v;
  p.softmax_scale = softmax_scale;

  cudaError_t err;
  {
    py::gil_scoped_release release;
    DeviceGuard guard(device, &err);
    if (err == cudaSuccess) err = launcher(p, reinterpret_cast<cudaStream_t>(stream));
  }
  if (err != cudaSuccess) throw_cuda("forward kernel launch", err);
}

void bwd(int device, const std::string& arch, const std::string& dtype, uintptr_t q, uintptr_t k,
         uintptr_t v, uintptr_t o, uintptr_t dout, uintptr_t lse, uintptr_t dlse, uintptr_t dq,
         uintptr_t dk, uintptr_t dv, uintptr_t dsum, uintptr_t dq_accum, uintptr_t dq_semaphore,
         int64_t dq_semaphore_count, int batch, int heads, int seqlen_q, int seqlen_k, int head_dim,
         const Strides& q_strides, const Strides& k_strides, const Strides& v_strides,
         const Strides& o_strides, const Strides& do_strides, const Strides& dq_strides,
         const Strides& dk_strides, const Strides& dv_strides, float softmax_scale, bool causal,
         bool deterministic, uintptr_t stream, const Features& features, uintptr_t o_resid, int head_dim_v,
         uintptr_t sink_partial, bool zero_packed_tails) {
  const int widest = check_head_dims(head_dim, head_dim_v);
  const BwdKernelKey key{parse_arch(arch), parse_dtype(dtype), widest, causal};
  BwdKernelKey kernel_key{};
  BwdLauncher launcher = find_bwd_kernel_for(key, &kernel_key);
  if (launcher == nullptr) throw py::value_error(no_kernel("backward", arch, dtype, widest, causal, "bwd_kernels"));
  BwdParams p{};
  set_features(p, features, heads, causal);
  if (p.block_table != nullptr) throw py::value_error("flashcore: a paged KV cache (block_table) is forward-only");
  p.q = reinterpret_cast<const void*>(q);
  p.k = reinterpret_cast<const void*>(k);
  p.v = reinterpret_cast<const void*>(v);
  p.o = reinterpret_cast<const void*>(o);
  p.dout = reinterpret_cast<const void*>(dout);
  p.o_resid = reinterpret_cast<const void*>(o_resid);
  p.lse = reinterpret_cast<const float*>(lse);
  p.dlse = reinterpret_cast<const float*>(dlse);
  p.dq = reinterpret_cast<void*>(dq);
  p.dk = reinterpret_cast<void*>(dk);
  p.dv = reinterpret_cast<void*>(dv);
  p.dsum = reinterpret_cast<float*>(dsum);
  p.dq_accum = reinterpret_cast<float*>(dq_accum);
  p.dq_semaphore = reinterpret_cast<int*>(dq_semaphore);
  p.dq_semaphore_count = dq_semaphore_count;
  p.sink_partial = reinterpret_cast<float*>(sink_partial);
  p.q_batch_stride = q_strides[0], p.q_row_stride = q_strides[1], p.q_head_stride = q_strides[2];
  p.k_batch_stride = k_strides[0], p.k_row_stride = k_strides[1], p.k_head_stride = k_strides[2];
  p.v_batch_stride = v_strides[0], p.v_row_stride = v_strides[1], p.v_head_stride = v_strides[2];
  p.o_batch_stride = o_strides[0], p.o_row_stride = o_strides[1], p.o_head_stride = o_strides[2];
  p.do_batch_stride = do_strides[0], p.do_row_stride = do_strides[1], p.do_head_stride = do_strides[2];
  p.dq_batch_stride = dq_strides[0], p.dq_row_stride = dq_strides[1], p.dq_head_stride = dq_strides[2];
  p.dk_batch_stride = dk_strides[0], p.dk_row_stride = dk_strides[1], p.dk_head_stride = dk_strides[2];
  p.dv_batch_stride = dv_strides[0], p.dv_row_stride = dv_strides[1], p.dv_head_stride = dv_strides[2];
  p.batch = batch, p.heads = heads, p.seqlen_q = seqlen_q, p.seqlen_k = seqlen_k, p.head_dim = head_dim;
  p.head_dim_v = head_dim_v;
  p.softmax_scale = softmax_scale;
  p.deterministic = deterministic;
  if (zero_packed_tails && p.cu_seqlens_q == nullptr) {
    throw py::value_error("flashcore: zero_packed_tails needs a packed batch (cu_seqlens_q in features)");
  }
  p.zero_packed_tails = zero_packed_tails;

  cudaError_t err;
  {
    py::gil_scoped_release release;
    DeviceGuard guard(device, &err);
    if (err == cudaSuccess) err = launcher(p, reinterpret_cast<cudaStream_t>(stream));
  }
  if (err != cudaSuccess) throw_cuda("backward kernel launch", err);
}

// KV-cache attention (kernels/decode/decode_api.h). The parameters come as one dict keyed by
// DecodeParams' field names (pointers as integers, 0 for null), so the call stays readable and
// the struct can grow without a 40-argument signature; a missing key is an error naming it.
template <class T>
T param(const py::dict& d, const char* name) {
  if (!d.contains(name)) throw py::key_error(std::string("flashcore: decode parameter '") + name + "' missing");
  return d[name].cast<T>();
}
template <class T>
T* pointer(const py::dict& d, const char* name) {
  return reinterpret_cast<T*>(param<uintptr_t>(d, name));
}

void decode(int device, const std::string& arch, const std::string& dtype, const py::dict& d, uintptr_t stream) {
  DecodeParams p{};
  p.head_dim = param<int>(d, "head_dim");
  check_head_dim(p.head_dim);
  // The smallest compiled head dim >= the call's; the kernel predicates the columns past it.
  const DecodeKernelKey key{parse_arch(arch), parse_dtype(dtype), p.head_dim};
  DecodeLauncher launcher = find_decode_kernel_for(key, nullptr);
  if (launcher == nullptr) {
    throw py::value_error("flashcore: no decode kernel compiled for arch=" + arch + " dtype=" + dtype +
                          " head_dim=" + std::to_string(p.head_dim) + " (see flashcore.build_info()['decode_kernels'])");
  }
  p.q = pointer<const void>(d, "q");
  p.o = pointer<void>(d, "o");
  p.lse = pointer<float>(d, "lse");
  const auto q_strides = param<Strides>(d, "q_strides");
  const auto o_strides = param<Strides>(d, "o_strides");
  p.q_batch_stride = q_strides[0], p.q_row_stride = q_strides[1], p.q_head_stride = q_strides[2];
  p.o_batch_stride = o_strides[0], p.o_row_stride = o_strides[1], p.o_head_stride = o_strides[2];
  p.k_cache = pointer<const void>(d, "k_cache");
  p.v_cache = pointer<const void>(d, "v_cache");
  const auto k_strides = param<Strides>(d, "k_strides");
  const auto v_strides = param<Strides>(d, "v_strides");
  p.k_page_stride = k_strides[0], p.k_row_stride = k_strides[1], p.k_head_stride = k_strides[2];
  p.v_page_stride = v_strides[0], p.v_row_stride = v_strides[1], p.v_head_stride = v_strides[2];
  p.block_table = pointer<const int>(d, "block_table");
  p.block_table_stride = param<int64_t>(d, "block_table_stride");
  p.page_size = param<int>(d, "page_size");
  p.cache_capacity = param<int>(d, "cache_capacity");
  p.cache_seqlens = pointer<const int>(d, "cache_seqlens");
  p.seqlen_new = param<int>(d, "seqlen_new");
  p.check_facts = d.contains("check_facts") ? pointer<int64_t>(d, "check_facts") : nullptr;
  p.cache_rows = param<int>(d, "cache_rows");
  p.k_new = d.contains("k_new") ? pointer<const void>(d, "k_new") : nullptr;
  p.v_new = d.contains("v_new") ? pointer<const void>(d, "v_new") : nullptr;
  if (p.k_new != nullptr) {
    const auto kn = param<Strides>(d, "k_new_strides");
    const auto vn = param<Strides>(d, "v_new_strides");
    for (int i = 0; i < 3; ++i) p.k_new_strides[i] = kn[i], p.v_new_strides[i] = vn[i];
  }
  p.cache_batch_idx = pointer<const int>(d, "cache_batch_idx");
  p.cache_leftpad = pointer<const int>(d, "cache_leftpad");
  p.cu_seqlens_q = pointer<const int>(d, "cu_seqlens_q");
  p.total_q = param<int>(d, "total_q");
  p.batch = param<int>(d, "batch");
  p.heads = param<int>(d, "heads");
  p.heads_kv = param<int>(d, "heads_kv");
  p.seqlen_q = param<int>(d, "seqlen_q");
  p.softmax_scale = param<float>(d, "softmax_scale");
  p.softcap = param<float>(d, "softcap");
  p.window_left = param<int>(d, "window_left");
  p.window_right = param<int>(d, "window_right");
  p.num_splits = param<int>(d, "num_splits");
  p.o_accum = pointer<float>(d, "o_accum");
  p.lse_accum = pointer<float>(d, "lse_accum");
  p.sorted_pages = d.contains("sorted_pages") ? pointer<unsigned long long>(d, "sorted_pages") : nullptr;
  p.page_sort_ctas = d.contains("page_sort_ctas") ? param<int>(d, "page_sort_ctas") : 0;
  p.page_sort_lists_per_cta = d.contains("page_sort_lists_per_cta") ? param<int>(d, "page_sort_lists_per_cta") : 1;

  cudaError_t err;
  {
    py::gil_scoped_release release;
    DeviceGuard guard(device, &err);
    if (err == cudaSuccess) err = launcher(p, reinterpret_cast<cudaStream_t>(stream));
  }
  if (err != cudaSuccess) throw_cuda("decode kernel launch", err);
}

// The split count and query-block height a decode call will use (kernels/decode/tile_policy.h):
// the caller sizes the split scratch with it. num_splits > 0 is taken as asked (capped at the
// bound), 0 picks by the heuristic from the SM count.
py::dict decode_plan(const std::string& arch, int head_dim, int batch, int heads, int heads_kv, int seqlen_q,
                     int max_seqlen_k, int num_sms, int num_splits, int page_size, bool leftpad,
                     const std::string& dtype, double hbm_bytes_per_s) {
  if (heads_kv <= 0 || heads % heads_kv != 0) throw py::value_error("flashcore: heads must be a multiple of heads_kv");
  check_head_dim(head_dim);
  // The tile shape and the split scratch's rows are the kernel's head dim's: the one decode() will
  // launch for `dtype` (find_decode_kernel_for; "" takes either dtype's). 0: no kernel compiled for it.
  const bool any_dtype = dtype.empty();
  DecodeKernelKey kernel_key{};
  const int kernel_dim =
      find_decode_kernel_for(DecodeKernelKey{parse_arch(arch), any_dtype ? DType::kBf16 : parse_dtype(dtype), head_dim},
                             &kernel_key, any_dtype) != nullptr
          ? kernel_key.head_dim
          : 0;
  const int tile_dim = kernel_dim > 0 ? kernel_dim : head_dim;  // the head dim the tile shapes are for
  const DecodeTileShape tile = decode_tile_shape(parse_arch(arch), tile_dim);
  const int rows = heads / heads_kv * seqlen_q;
  const int block_m = decode_block_m(tile, rows);
  const int m_blocks = (rows + block_m - 1) / block_m;
  const int key_blocks = (max_seqlen_k + tile.block_n - 1) / tile.block_n;
  int splits = num_splits;
  if (splits <= 0) {
    splits = decode_num_splits(batch * heads_kv * m_blocks, num_sms, key_blocks);
  }
  splits = std::max(1, std::min(splits, kDecodeMaxSplits));
  py::dict plan;
  plan["num_splits"] = splits;
  plan["block_m"] = block_m;
  plan["block_n"] = tile.block_n;
  plan["max_splits"] = kDecodeMaxSplits;
  plan["kernel_head_dim"] = kernel_dim;
  // Paged calls in address order: int64 entries of the page-sort scratch and its grid (0: key order).
  const int sorted_block_n = decode_sorted_tile_shape(parse_arch(arch), tile_dim).block_n;
  const DecodePageSort sort = decode_page_sort(parse_arch(arch) == Arch::kSm90a, tile_dim, rows, page_size, sorted_block_n,
                                               leftpad, batch, heads_kv, splits, max_seqlen_k, num_sms,
                                               forced_decode_page_order(), hbm_bytes_per_s);
  plan["sorted_block_n"] = sorted_block_n;  // the key block of the address-order walk
  plan["sorted_pages_entries"] = sort.ctas > 0 ? static_cast<int64_t>(batch) * splits * kDecodeSortPages : 0;
  plan["page_sort_ctas"] = sort.ctas;
  plan["page_sort_lists_per_cta"] = sort.lists_per_cta;
  return plan;
}

// The compiled head dim a call of `head_dim` runs on (the forward's or the backward's
// instantiation), or 0 when none does; the backward's dq_accum rows are dq_accum_cols(it) wide.
int kernel_head_dim(const std::string& arch, const std::string& dtype, int head_dim, bool causal, bool backward) {
  const FwdKernelKey key{parse_arch(arch), parse_dtype(dtype), head_dim, causal};
  FwdKernelKey kernel_key{};
  const bool found = backward ? find_bwd_kernel_for(key, &kernel_key) != nullptr
                              : find_fwd_kernel_for(key, &kernel_key) != nullptr;
  return found ? kernel_key.head_dim : 0;
}

py::list describe(const std::vector<FwdKernelKey>& keys) {
  py::list kernels;
  for (const FwdKernelKey& key : keys) {
    py::dict d;
    d["arch"] = to_string(key.arch);
    d["dtype"] = to_string(key.dtype);
    d["head_dim"] = key.head_dim;
    d["causal"] = key.causal;
    kernels.append(d);
  }
  return kernels;
}

py::dict build_info() {
  py::dict info;
  info["kernels"] = describe(registered_fwd_kernels());
  info["bwd_kernels"] = describe(registered_bwd_kernels());
  py::list decode_kernels;
  for (const DecodeKernelKey& key : registered_decode_kernels()) {
    py::dict d;
    d["arch"] = to_string(key.arch);
    d["dtype"] = to_string(key.dtype);
    d["head_dim"] = key.head_dim;
    decode_kernels.append(d);
  }
  info["decode_kernels"] = decode_kernels;
  info["cuda_runtime_version"] = CUDART_VERSION;
  info["nvcc_version"] = kNvccVersion;
  info["host_compiler"] = std::string(kHostCompilerId) + " " + __VERSION__;
  info["cudart"] = "static";
  return info;
}

}  // namespace
}  // namespace flashcore

PYBIND11_MODULE(_C, m) {
  m.doc() = "flashcore kernels (no libtorch; raw device pointers and streams)";
  m.def("fwd", &flashcore::fwd, py::arg("device"), py::arg("arch"), py::arg("dtype"), py::arg("q"),
        py::arg("k"), py::arg("v"), py::arg("o"), py::arg("lse"), py::arg("batch"), py::arg("heads"),
        py::arg("seqlen_q"), py::arg("seqlen_k"), py::arg("head_dim"), py::arg("q_strides"),
        py::arg("k_strides"), py::arg("v_strides"), py::arg("o_strides"), py::arg("softmax_scale"),
        py::arg("causal"), py::arg("stream"), py::arg("features") = py::tuple(), py::arg("o_resid") = 0,
        py::arg("head_dim_v") = 0,
        "Launch the forward kernel on `stream` of CUDA device `device`. Pointers are device "
        "addresses; strides are (batch, seq, head) in elements; head_dim must be contiguous and a "
        "multiple of 8 (it runs on the smallest compiled head dim >= it: kernel_head_dim). "
        "o_resid (optional, o's strides): also write O's rounding residual for the backward. "
        "head_dim_v (0: head_dim): v's and o's head dim; the call runs on max(head_dim, head_dim_v)'s kernel.");
  m.def("set_forced_fwd_tile", &flashcore::set_forced_fwd_tile, py::arg("tile"),
        "Test-only: 0 lets the sm90a forward pick its tile per call; 1 + a tile kind (1 default, 2 "
        "long rows, 3 few tiles) forces it where the head dim has that tile (kernels/flash_fwd_api.h).");
  m.def("set_fwd_pack_gqa", &flashcore::set_fwd_pack_gqa, py::arg("enabled"),
        "Test-only: whether the sm90a forward may pack a GQA group's query heads into one tile "
        "(on by default; kernels/flash_fwd_api.h).");
  m.def("set_forced_decode_page_order", &flashcore::set_forced_decode_page_order, py::arg("order"),
        "Test-only: 0 lets each paged decode call pick the order it visits its pages in; 1 forces key "
        "order, 2 address order where the call is eligible (kernels/decode/tile_policy.h).");
  m.def("bwd", &flashcore::bwd, py::arg("device"), py::arg("arch"), py::arg("dtype"), py::arg("q"),
        py::arg("k"), py::arg("v"), py::arg("o"), py::arg("dout"), py::arg("lse"), py::arg("dlse"),
        py::arg("dq"), py::arg("dk"), py::arg("dv"), py::arg("dsum"), py::arg("dq_accum"),
        py::arg("dq_semaphore"), py::arg("dq_semaphore_count"), py::arg("batch"), py::arg("heads"),
        py::arg("seqlen_q"), py::arg("seqlen_k"), py::arg("head_dim"), py::arg("q_strides"),
        py::arg("k_strides"), py::arg("v_strides"), py::arg("o_strides"), py::arg("do_strides"),
        py::arg("dq_strides"), py::arg("dk_strides"), py::arg("dv_strides"), py::arg("softmax_scale"),
        py::arg("causal"), py::arg("deterministic"), py::arg("stream"), py::arg("features") = py::tuple(),
        py::arg("o_resid") = 0, py::arg("head_dim_v") = 0, py::arg("sink_partial") = 0,
        py::arg("zero_packed_tails") = false,
        "Launch the backward kernels (preprocess, main, dQ convert) on `stream`. Scratch is the "
        "caller's: dsum float32 (batch, heads, seqlen_q), dq_accum float32, dq_accum_floats(kernel_head_dim(arch, dtype, head_dim, causal, "
        "backward=True), ...) of them, and for deterministic=True "
        "dq_semaphore int32 of dq_semaphore_count >= "
        "batch*heads*ceil(seqlen_q/bwd_block_m) elements (0 otherwise); all contiguous. dlse may be 0; "
        "o_resid (0 or the forward's residual, o's strides) joins O in D = rowsum(dO * O). "
        "head_dim_v (0: head_dim): v, o, dout and dv's head dim; kernel_head_dim of max(head_dim, head_dim_v). "
        "sink_partial (0, or with a sink in features: zeroed float32 (ceil(seqlen_k / sink_partial_keys), batch, "
        "heads, sink_partial_slots)): the kernels' shares of sum_i p_sink,i D_i (kernels/flash_bwd_api.h); the "
        "sink's gradient is minus their sum over every axis but heads. zero_packed_tails (packed batches "
        "only): the kernels also write zeros to dq's rows past cu_seqlens_q[-1] and dk / dv's past "
        "cu_seqlens_k[-1], which belong to no sequence (otherwise nothing writes them).");
  m.attr("bwd_block_m") = flashcore::kBwdBlockM;
  m.attr("sink_partial_keys") = flashcore::kSinkPartialKeys;
  m.attr("sink_partial_slots") = flashcore::kSinkPartialSlots;
  m.attr("decode_check_facts") = flashcore::kDecodeCheckFacts;  // columns of DecodeParams::check_facts
  m.attr("paged_kv_page_multiple") = flashcore::kPagedKvPageMultiple;  // the forward's paged caches
  m.def("kernel_head_dim", &flashcore::kernel_head_dim, py::arg("arch"), py::arg("dtype"), py::arg("head_dim"),
        py::arg("causal"), py::arg("backward") = false,
        "The compiled head dim a call of `head_dim` (a multiple of 8) runs on: the smallest instantiated one "
        ">= it, whose kernels load and store only head_dim columns; 0 when none.");
  m.def("dq_accum_cols", &flashcore::dq_accum_cols, py::arg("kernel_head_dim"),
        "The backward's dq_accum row width for a kernel of this head dim (kernel_head_dim(..., backward=True)): "
        "rounded up to a multiple of 64 columns.");
  m.def("dq_accum_floats", &flashcore::dq_accum_floats, py::arg("kernel_head_dim"), py::arg("packed"),
        py::arg("total_q"), py::arg("seqlen_q"), py::arg("heads"), py::arg("batch"),
        "Floats of the backward's dq_accum for a kernel of this head dim: rows of lse's layout x "
        "dq_accum_cols, or the fragment order's 64 x 64 slabs where larger (kernels/flash_bwd_api.h).");
  m.def("decode", &flashcore::decode, py::arg("device"), py::arg("arch"), py::arg("dtype"), py::arg("params"),
        py::arg("stream"),
        "Launch the KV-cache attention kernels (split-KV decode + combine) on `stream`; `params` is a "
        "dict of kernels/decode/decode_api.h's DecodeParams fields (pointers as ints, 0 = null; "
        "q/o/k/v strides as 3-tuples).");
  m.def("decode_plan", &flashcore::decode_plan, py::arg("arch"), py::arg("head_dim"), py::arg("batch"),
        py::arg("heads"), py::arg("heads_kv"), py::arg("seqlen_q"), py::arg("max_seqlen_k"), py::arg("num_sms"),
        py::arg("num_splits"), py::arg("page_size") = 0, py::arg("leftpad") = false, py::arg("dtype") = "",
        py::arg("hbm_bytes_per_s") = 0.0,
        "Split count (num_splits 0: heuristic from the shapes and num_sms; bound max_splits), tile "
        "sizes, the compiled head dim the call runs on ('kernel_head_dim', the split scratch's row "
        "width, for `dtype` ('fp16' / 'bf16'; '' either); 0: none) and page-sort scratch entries "
        "('sorted_pages_entries', int64; paged calls: page_size > 0) of a decode call. hbm_bytes_per_s: "
        "the GPU's HBM bandwidth (the page-order rule differs from 4.4 TB/s; 0: unknown)."),
  m.def("build_info", &flashcore::build_info,
        "Compiled (arch, dtype, head_dim, causal) forward kernels ('kernels') and backward kernels "
        "('bwd_kernels'), KV-cache decode kernels ('decode_kernels'), CUDA and host compiler versions.");
}
