#include <atomic>
#include <mutex>
#include <utility>

#include "kernels/decode/decode_api.h"

namespace flashcore {
namespace {

struct DecodeRegistry {
  std::mutex mu;
  std::vector<std::pair<DecodeKernelKey, DecodeLauncher>> entries;
};

// Function-local static: safe to use from other TUs' static initialisers.
DecodeRegistry& decode_registry() {
  static DecodeRegistry r;
  return r;
}

}  // namespace

bool register_decode_kernel(const DecodeKernelKey& key, DecodeLauncher launcher) {
  DecodeRegistry& r = decode_registry();
  std::lock_guard<std::mutex> lock(r.mu);
  for (const auto& e : r.entries) {
    if (e.first == key) return false;  // duplicate instantiation: keep the first
  }
  r.entries.emplace_back(key, launcher);
  return true;
}

DecodeLauncher find_decode_kernel_for(const DecodeKernelKey& key, DecodeKernelKey* kernel_key, bool any_dtype) {
  DecodeRegistry& r = decode_registry();
  std::lock_guard<std::mutex> lock(r.mu);
  const std::pair<DecodeKernelKey, DecodeLauncher>* best = nullptr;
  for (const auto& e : r.entries) {
    if (e.first.arch != key.arch || (!any_dtype && e.first.dtype != key.dtype) || e.first.head_dim < key.head_dim) {
      continue;
    }
    if (best == nullptr || e.first.head_dim < best->first.head_dim) best = &e;
  }
  if (best == nullptr) return nullptr;
  if (kernel_key != nullptr) *kernel_key = best->first;
  return best->second;
}

namespace {
std::atomic<int> g_forced_decode_page_order{0};
}  // namespace

void set_forced_decode_page_order(int order) { g_forced_decode_page_order.store(order, std::memory_order_relaxed); }
int forced_decode_page_order() { return g_forced_decode_page_order.load(std::memory_order_relaxed); }

std::vector<DecodeKernelKey> registered_decode_kernels() {
  DecodeRegistry& r = decode_registry();
  std::lock_guard<std::mutex> lock(r.mu);
  std::vector<DecodeKernelKey> out;
  for (const auto& e : r.entries) out.push_back(e.first);
  return out;
}

}  // namespace flashcore
