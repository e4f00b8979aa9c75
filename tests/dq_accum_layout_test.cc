// Host test of kernels/common/dq_accum_layout.h (dq_accum in fragment order), no GPU:
//   - dq_slab_offset is a bijection of a slab's 64 x 64 elements onto its 4096 floats, and puts
//     element 4t + 2h + e of warpgroup thread 32 w + lane (the m64n64 wgmma accumulator's
//     element: row 16 w + lane / 4 + 8 h, column 8 t + 2 (lane % 4) + e) at float
//     (t * 128 + thread) * 4 + 2h + e -- the 16-byte chunk the consumers' float4 store writes
//     (kernels/hopper/dq_writer.cuh store_dq_slice_fragments_rows);
//   - packed batches (fixed-seed random lengths, empty sequences and length-1 ones included): every
//     sequence's slabs [first, first + ceil(len / 64)) are disjoint from the others' at the same
//     head and from other heads', and inside dq_fragment_floats; dense slabs likewise;
//   - dq_accum_floats (kernels/flash_bwd_api.h) covers both layouts.
#include <cstdint>
#include <cstdio>
#include <vector>

#include "kernels/common/dq_accum_layout.h"
#include "kernels/flash_bwd_api.h"

namespace {

int failures = 0;

void expect(bool ok, const char* what, int64_t a, int64_t b) {
  if (!ok) {
    ++failures;
    if (failures <= 20) std::printf("FAIL %s (%lld, %lld)\n", what, static_cast<long long>(a), static_cast<long long>(b));
  }
}

// Sequence b's slabs at head h must not meet another (sequence, head)'s and must fit the buffer.
void check_slabs(bool packed, const std::vector<int>& lens, int heads, int seqlen_q) {
  const int batch = static_cast<int>(lens.size());
  std::vector<int> cu(batch + 1, 0);
  for (int b = 0; b < batch; ++b) cu[b + 1] = cu[b] + lens[b];
  const int total_q = cu[batch];
  const int64_t slabs = flashcore::dq_fragment_floats(packed, total_q, seqlen_q, heads, batch) / flashcore::kDqSlabFloats;
  expect(flashcore::dq_fragment_floats(packed, total_q, seqlen_q, heads, batch) % flashcore::kDqSlabFloats == 0,
         "whole slabs", slabs, 0);
  std::vector<int> owner(static_cast<size_t>(slabs), -1);
  for (int h = 0; h < heads; ++h) {
    for (int b = 0; b < batch; ++b) {
      const int len = packed ? lens[b] : seqlen_q;
      const int64_t first = flashcore::dq_first_slab(packed, total_q, seqlen_q, heads, batch, b, h, packed ? cu[b] : 0);
      for (int64_t s = first; s < first + (len + 63) / 64; ++s) {
        expect(s >= 0 && s < slabs, "slab inside the buffer", s, slabs);
        if (s < 0 || s >= slabs) continue;
        expect(owner[s] == -1, "slab owned once", s, owner[s]);
        owner[s] = h * batch + b;
      }
    }
  }
  // The buffer is never smaller than the row layout's at 64 columns (dq_accum_floats takes the larger).
  const int64_t floats = flashcore::dq_accum_floats(64, packed, total_q, seqlen_q, heads, batch);
  expect(floats >= slabs * flashcore::kDqSlabFloats, "dq_accum_floats covers the slabs", floats, slabs);
  expect(floats >= static_cast<int64_t>(heads) * (packed ? total_q : int64_t{batch} * seqlen_q) * 64,
         "dq_accum_floats covers the rows", floats, 0);
}

}  // namespace

int main() {
  // The slab map: a bijection that agrees with the consumers' float4 chunks.
  std::vector<int> hits(flashcore::kDqSlabFloats, 0);
  for (int r = 0; r < 64; ++r) {
    for (int c = 0; c < 64; ++c) {
      const int off = flashcore::dq_slab_offset(r, c);
      expect(off >= 0 && off < flashcore::kDqSlabFloats, "offset in the slab", r, c);
      if (off >= 0 && off < flashcore::kDqSlabFloats) ++hits[off];
    }
  }
  for (int i = 0; i < flashcore::kDqSlabFloats; ++i) expect(hits[i] == 1, "each float once", i, hits[i]);
  for (int thread = 0; thread < 128; ++thread) {
    const int w = thread / 32, lane = thread % 32;
    for (int t = 0; t < 8; ++t) {
      for (int h = 0; h < 2; ++h) {
        for (int e = 0; e < 2; ++e) {
          const int row = 16 * w + lane / 4 + 8 * h, col = 8 * t + 2 * (lane % 4) + e;
          expect(flashcore::dq_slab_offset(row, col) == (t * 128 + thread) * 4 + 2 * h + e, "fragment element", thread,
                 4 * t + 2 * h + e);
        }
      }
    }
  }
  // Slabs: dense, and packed batches with fixed-seed lengths.
  check_slabs(false, std::vector<int>(3, 0), 2, 100);
  check_slabs(false, std::vector<int>(2, 0), 3, 128);
  check_slabs(false, std::vector<int>(1, 0), 1, 1);
  check_slabs(true, {0, 5, 0, 64, 65, 1, 127, 128, 129, 0}, 3, 129);
  uint64_t state = 0x9E3779B97F4A7C15ull;
  auto next = [&](int bound) {  // xorshift64*
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    return static_cast<int>(((state * 0x2545F4914F6CDD1Dull) >> 33) % static_cast<uint64_t>(bound));
  };
  for (int trial = 0; trial < 200; ++trial) {
    const int batch = 1 + next(40);
    std::vector<int> lens(batch);
    int longest = 1;
    for (int& len : lens) {
      len = next(4) == 0 ? next(3) : next(700);  // a quarter of them 0, 1 or 2 rows
      longest = len > longest ? len : longest;
    }
    check_slabs(true, lens, 1 + next(4), longest);
  }
  if (failures > 0) {
    std::printf("%d failures\n", failures);
    return 1;
  }
  std::printf("dq_accum fragment layout: slab map, fragment chunks, dense and packed slabs OK\n");
  return 0;
}
