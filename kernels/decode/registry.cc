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

DecodeLauncher find_decode_kernel(const DecodeKernelKey& key) {
  DecodeRegistry& r = decode_registry();
  std::lock_guard<std::mutex> lock(r.mu);
  for (const auto& e : r.entries) {
    if (e.first == key) return e.second;
  }
  return nullptr;
}

std::vector<DecodeKernelKey> registered_decode_kernels() {
  DecodeRegistry& r = decode_registry();
  std::lock_guard<std::mutex> lock(r.mu);
  std::vector<DecodeKernelKey> out;
  for (const auto& e : r.entries) out.push_back(e.first);
  return out;
}

}  // namespace flashcore
