#include <atomic>
#include <mutex>

#include "kernels/flash_bwd_api.h"
#include "kernels/flash_fwd_api.h"

namespace flashcore {
namespace {

template <class Launcher>
struct Registry {
  std::mutex mu;
  std::vector<std::pair<FwdKernelKey, Launcher>> entries;

  bool add(const FwdKernelKey& key, Launcher launcher) {
    std::lock_guard<std::mutex> lock(mu);
    for (const auto& e : entries) {
      if (e.first == key) return false;  // duplicate instantiation: keep the first
    }
    entries.emplace_back(key, launcher);
    return true;
  }
  Launcher find(const FwdKernelKey& key) {
    std::lock_guard<std::mutex> lock(mu);
    for (const auto& e : entries) {
      if (e.first == key) return e.second;
    }
    return nullptr;
  }
  // The entry of key's (arch, dtype, causal) with the smallest head dim that runs key.head_dim.
  Launcher find_rounded_up(const FwdKernelKey& key, FwdKernelKey* found) {
    std::lock_guard<std::mutex> lock(mu);
    const std::pair<FwdKernelKey, Launcher>* best = nullptr;
    for (const auto& e : entries) {
      if (e.first.arch != key.arch || e.first.dtype != key.dtype || e.first.causal != key.causal) continue;
      if (!head_dim_runs_on(key.head_dim, e.first.head_dim)) continue;
      if (best == nullptr || e.first.head_dim < best->first.head_dim) best = &e;
    }
    if (best == nullptr) return nullptr;
    *found = best->first;
    return best->second;
  }
  std::vector<FwdKernelKey> keys() {
    std::lock_guard<std::mutex> lock(mu);
    std::vector<FwdKernelKey> out;
    for (const auto& e : entries) out.push_back(e.first);
    return out;
  }
};

// Function-local statics: safe to use from other TUs' static initialisers.
Registry<FwdLauncher>& registry() {
  static Registry<FwdLauncher> r;
  return r;
}
Registry<BwdLauncher>& bwd_registry() {
  static Registry<BwdLauncher> r;
  return r;
}

}  // namespace

const char* to_string(DType dtype) {
  switch (dtype) {
    case DType::kFp16: return "fp16";
    case DType::kBf16: return "bf16";
  }
  return "?";
}

const char* to_string(Arch arch) {
  switch (arch) {
    case Arch::kSm80: return "sm80";
    case Arch::kSm89: return "sm89";
    case Arch::kSm90a: return "sm90a";
    case Arch::kSm80Ptx: return "sm80_ptx";
    case Arch::kSm89Ptx: return "sm89_ptx";
  }
  return "?";
}

namespace {
std::atomic<int> g_forced_fwd_tile{0};
std::atomic<bool> g_fwd_pack_gqa{true};
}  // namespace

void set_fwd_pack_gqa(bool enabled) { g_fwd_pack_gqa.store(enabled, std::memory_order_relaxed); }
bool fwd_pack_gqa() { return g_fwd_pack_gqa.load(std::memory_order_relaxed); }

void set_forced_fwd_tile(int tile) { g_forced_fwd_tile.store(tile, std::memory_order_relaxed); }
int forced_fwd_tile() { return g_forced_fwd_tile.load(std::memory_order_relaxed); }

bool register_fwd_kernel(const FwdKernelKey& key, FwdLauncher launcher) { return registry().add(key, launcher); }
FwdLauncher find_fwd_kernel(const FwdKernelKey& key) { return registry().find(key); }
std::vector<FwdKernelKey> registered_fwd_kernels() { return registry().keys(); }
FwdLauncher find_fwd_kernel_for(const FwdKernelKey& key, FwdKernelKey* kernel_key) {
  return registry().find_rounded_up(key, kernel_key);
}

bool register_bwd_kernel(const BwdKernelKey& key, BwdLauncher launcher) { return bwd_registry().add(key, launcher); }
BwdLauncher find_bwd_kernel(const BwdKernelKey& key) { return bwd_registry().find(key); }
std::vector<BwdKernelKey> registered_bwd_kernels() { return bwd_registry().keys(); }
BwdLauncher find_bwd_kernel_for(const BwdKernelKey& key, BwdKernelKey* kernel_key) {
  return bwd_registry().find_rounded_up(key, kernel_key);
}

}  // namespace flashcore
