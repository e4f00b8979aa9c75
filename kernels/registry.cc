#include <mutex>

#include "kernels/flash_fwd_api.h"

namespace flashcore {
namespace {

struct Registry {
  std::mutex mu;
  std::vector<std::pair<FwdKernelKey, FwdLauncher>> entries;
};

// Function-local static: safe to use from other TUs' static initialisers.
Registry& registry() {
  static Registry r;
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

bool register_fwd_kernel(const FwdKernelKey& key, FwdLauncher launcher) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  for (const auto& e : r.entries) {
    if (e.first == key) return false;  // duplicate instantiation: keep the first
  }
  r.entries.emplace_back(key, launcher);
  return true;
}

FwdLauncher find_fwd_kernel(const FwdKernelKey& key) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  for (const auto& e : r.entries) {
    if (e.first == key) return e.second;
  }
  return nullptr;
}

std::vector<FwdKernelKey> registered_fwd_kernels() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  std::vector<FwdKernelKey> keys;
  for (const auto& e : r.entries) keys.push_back(e.first);
  return keys;
}

}  // namespace flashcore
