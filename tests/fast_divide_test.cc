// Host test of kernels/common/fast_divide.h, no GPU: FastDivide::above_all() gives 0 for every
// dividend; FastDivide(d).quotient(n) == n / d for every
// divisor 1..4096 with every dividend 0..2^17, divisors up to 2^31 - 1 (powers of two, their
// neighbours, primes), and dividends at the edges (0, d - 1, d, d + 1, 2^31 - 1) and spread over
// [0, 2^31) by a fixed-seed generator.
#include <cstdint>
#include <cstdio>

#include "kernels/common/fast_divide.h"

namespace {

int failures = 0;

void check(int d, int n) {
  const int got = flashcore::FastDivide(d).quotient(n);
  if (got != n / d) {
    ++failures;
    if (failures <= 20) std::printf("FAIL %d / %d: got %d, want %d\n", n, d, got, n / d);
  }
}

}  // namespace

int main() {
  const flashcore::FastDivide above = flashcore::FastDivide::above_all();
  const int dividends[] = {0, 1, 2, 65535, 1 << 30, 2147483646, 2147483647};
  for (int n : dividends) {
    if (above.quotient(n) != 0) {
      ++failures;
      std::printf("FAIL above_all: %d gave %d\n", n, above.quotient(n));
    }
  }
  for (int d = 1; d <= 4096; ++d) {
    const flashcore::FastDivide f(d);
    for (int n = 0; n <= (1 << 17); ++n) {
      if (f.quotient(n) != n / d) check(d, n);  // re-checked there for the message
    }
  }
  uint64_t state = 0x9E3779B97F4A7C15ull;
  auto next = [&]() {  // xorshift64*, 31 bits
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    return static_cast<int>((state * 0x2545F4914F6CDD1Dull) >> 33);
  };
  int divisors[200];
  int count = 0;
  for (int b = 1; b < 31; ++b) {
    divisors[count++] = (1 << b) - 1;
    divisors[count++] = 1 << b;
    divisors[count++] = (1 << b) + 1;
  }
  const int primes[] = {4099, 65537, 1000003, 16777259, 2147483647};
  for (int p : primes) divisors[count++] = p;
  for (int i = 0; i < 60; ++i) divisors[count++] = 1 + next();
  for (int i = 0; i < count; ++i) {
    const int d = divisors[i];
    const int edges[] = {0, 1, d - 1, d, d < 2147483647 ? d + 1 : d, 2147483646, 2147483647};
    for (int n : edges) check(d, n);
    for (int j = 0; j < 20000; ++j) check(d, next());
  }
  if (failures) {
    std::printf("%d failures\n", failures);
    return 1;
  }
  std::printf("fast_divide: all quotients exact\n");
  return 0;
}
