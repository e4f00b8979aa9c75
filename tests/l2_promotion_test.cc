// Host test of kernels/hopper/l2_promotion.h, no GPU: 256-byte promotion when the base and every
// stride are multiples of 32 bytes, 128 bytes when any one of them is off by 16 (the head dims that
// are odd multiples of 8 in a dense (batch, seq, heads, head_dim) tensor), whichever it is.
#include <cstdint>
#include <cstdio>

#include "kernels/hopper/l2_promotion.h"

namespace {

int failures = 0;

void expect(const char* what, uintptr_t base, cuuint64_t row, cuuint64_t head, cuuint64_t batch,
            CUtensorMapL2promotion want) {
  const cuuint64_t strides[3] = {row, head, batch};
  const CUtensorMapL2promotion got =
      flashcore::hopper::bshd_l2_promotion(reinterpret_cast<const void*>(base), strides);
  if (got != want) {
    ++failures;
    std::printf("FAIL %s: base %% 32 = %d, strides %llu %llu %llu: got %d, want %d\n", what,
                static_cast<int>(base % 32), static_cast<unsigned long long>(row),
                static_cast<unsigned long long>(head), static_cast<unsigned long long>(batch),
                static_cast<int>(got), static_cast<int>(want));
  }
}

// A dense bf16 (batch, seq, heads, head_dim) tensor's byte strides: row (seq), head, batch.
void dense(int seq, int heads, int head_dim, uintptr_t base, CUtensorMapL2promotion want) {
  const cuuint64_t head = 2ull * head_dim, row = head * heads, batch = row * seq;
  char what[64];
  std::snprintf(what, sizeof(what), "dense S%d H%d d%d", seq, heads, head_dim);
  expect(what, base, row, head, batch, want);
}

}  // namespace

int main() {
  constexpr auto k256 = CU_TENSOR_MAP_L2_PROMOTION_L2_256B;
  constexpr auto k128 = CU_TENSOR_MAP_L2_PROMOTION_L2_128B;
  const uintptr_t aligned = 0x7f0000000000ull;  // a 2 MiB-aligned allocation, as torch's
  // Head dims that are even multiples of 8 keep 256 bytes; odd multiples of 8 take 128.
  for (int d = 8; d <= 256; d += 8) dense(4096, 8, d, aligned, d % 16 == 0 ? k256 : k128);
  dense(4096, 10, 200, aligned, k128);  // session 30's d200 grid: the head stride is off
  dense(4096, 10, 208, aligned, k256);
  // Each of base, row, head and batch stride alone off the sectors by 16 bytes.
  expect("base", aligned + 16, 4096, 512, 4096ull * 4096, k128);
  expect("row", aligned, 4096 + 16, 512, 4096ull * 4096, k128);
  expect("head", aligned, 4096, 512 + 16, 4096ull * 4096, k128);
  expect("batch", aligned, 4096, 512, 4096ull * 4096 + 16, k128);
  expect("all on sectors", aligned + 32, 4096, 512, 4096ull * 4096, k256);
  if (failures == 0) std::printf("l2_promotion_test: all passed\n");
  return failures == 0 ? 0 : 1;
}
