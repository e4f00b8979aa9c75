// Host test of the backward's CTA launch order (kernels/hopper/bwd_block_order.cuh), no GPU: for
// many shapes and chunk widths every launch index maps to one (key block, group) and every pair is
// reached once (the grid covers the work exactly); chunk width 1 is the group-major order, reverse
// counts key blocks from the last; inside a chunk the key blocks run block-major, so a group's
// previous key block is launched first (what the deterministic dQ turns rely on); and the
// chunk-width rule gives what the H100 sweeps measured best.
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "kernels/hopper/bwd_block_order.cuh"

namespace {

int failures = 0;

void expect(bool ok, const char* what, int a, int b, int c) {
  if (!ok) {
    ++failures;
    if (failures <= 20) std::printf("FAIL %s (%d, %d, %d)\n", what, a, b, c);
  }
}

void check_shape(int n_blocks, int groups, int chunk_groups) {
  const flashcore::hopper::BwdBlockOrder order =
      flashcore::hopper::make_bwd_block_order(n_blocks, groups, chunk_groups, 1, 1);
  for (int reverse = 0; reverse < 2; ++reverse) {
    std::vector<int> seen(static_cast<size_t>(n_blocks) * groups, 0);
    int prev_first_group = 0;
    for (int index = 0; index < n_blocks * groups; ++index) {
      int n = -1, g = -1;
      order.block_of(index, reverse != 0, n, g);
      const bool in_range = n >= 0 && n < n_blocks && g >= 0 && g < groups;
      expect(in_range, "in range", n_blocks, groups, chunk_groups);
      if (!in_range) continue;
      ++seen[static_cast<size_t>(g) * n_blocks + n];
      const int n_fwd = reverse ? n_blocks - 1 - n : n;
      if (chunk_groups == 1) {  // group-major: index = g * n_blocks + n
        expect(index == g * n_blocks + n_fwd, "group-major", n_blocks, groups, index);
      }
      // chunks advance monotonically, and inside one the key blocks are block-major
      const int first = g / chunk_groups * chunk_groups;
      expect(first >= prev_first_group, "chunks in order", n_blocks, groups, index);
      prev_first_group = first;
      const int width = chunk_groups < groups - first ? chunk_groups : groups - first;
      expect(index == first * n_blocks + n_fwd * width + (g - first), "block-major in a chunk", n_blocks, groups,
             index);
      // Deterministic mode's invariant: a group's previous key block (in the launch direction) was
      // launched earlier, whatever the chunk width, so no CTA waits for one not yet started.
      if (n_fwd > 0) {
        int n_prev = -1, g_prev = -1;
        order.block_of(index - width, reverse != 0, n_prev, g_prev);
        expect(g_prev == g && n_prev == (reverse ? n + 1 : n - 1), "previous key block launched earlier", n_blocks,
               groups, index);
      }
    }
    for (size_t i = 0; i < seen.size(); ++i) expect(seen[i] == 1, "each pair once", n_blocks, groups, static_cast<int>(i));
  }
}

}  // namespace

int main() {
  const int shapes[][2] = {{1, 1}, {1, 7}, {5, 1}, {32, 32}, {32, 128}, {128, 8}, {64, 33}, {3, 10}, {17, 5}};
  for (const auto& s : shapes) {
    for (int c : {1, 2, 3, 4, 8, 1000}) check_shape(s[0], s[1], c < s[1] ? c : s[1]);
  }
  // The rule (H100: 132 SMs, one resident CTA; d128 GQA 32/8 group = 4 heads x S x 128 x 2 x 2 B).
  using flashcore::hopper::bwd_chunk_groups;
  const long long mb = 1 << 20;
  expect(bwd_chunk_groups(true, false, 32, 32, 132, 8 * mb) == 4, "S4k GQA d128: 4", 0, 0, 0);
  expect(bwd_chunk_groups(true, false, 128, 8, 132, 32 * mb) == 1, "S16k GQA d128: 1", 0, 0, 0);
  expect(bwd_chunk_groups(true, false, 32, 128, 132, 2 * mb) == 4, "S4k MHA d128: 4", 0, 0, 0);
  expect(bwd_chunk_groups(true, false, 8, 512, 132, 64 * mb) == 1, "over the L2 cap: 1", 0, 0, 0);
  // GQA groups of 7 heads (Qwen 2.5, d128; 28 MB of Q and dO each): the wave's 2 groups at S 8k,
  // 4 at S 4k (H200, session 56); MQA 32 / 1 at S 4k (64 MB a group) keeps 1.
  expect(bwd_chunk_groups(true, false, 64, 8, 132, 7ll * 8192 * 128 * 4) == 2, "Qwen S8k: 2", 0, 0, 0);
  expect(bwd_chunk_groups(true, false, 32, 16, 132, 7ll * 4096 * 128 * 4) == 4, "Qwen S4k: 4", 0, 0, 0);
  expect(bwd_chunk_groups(true, false, 32, 4, 132, 32ll * 4096 * 128 * 4) == 1, "MQA S4k: 1", 0, 0, 0);
  expect(bwd_chunk_groups(true, false, 2, 3, 132, 1 * mb) == 3, "at most every group", 0, 0, 0);
  expect(bwd_chunk_groups(false, false, 32, 32, 132, 8 * mb) == 1, "not causal: group-major", 0, 0, 0);
  expect(bwd_chunk_groups(true, false, 32, 32, 0, 8 * mb) == 1, "unknown wave: group-major", 0, 0, 0);
  // Deterministic: the wave-wide chunk when not causal (d64 S2048: 16 key blocks, 8 groups a
  // wave), group-major when causal; the L2 cap at 32 MB (the default causal backward's is 64).
  expect(bwd_chunk_groups(false, true, 16, 128, 132, 1 * mb) == 8, "det full S2k d64: 8", 0, 0, 0);
  expect(bwd_chunk_groups(false, true, 8, 128, 132, 1 * mb) == 16, "det full S1k d64: 16", 0, 0, 0);
  expect(bwd_chunk_groups(false, true, 128, 32, 132, 4 * mb) == 1, "det full S16k: 1", 0, 0, 0);
  expect(bwd_chunk_groups(false, true, 8, 128, 132, 16 * mb) == 2, "det full, L2 cap: 2", 0, 0, 0);
  expect(bwd_chunk_groups(true, true, 16, 128, 132, 1 * mb) == 1, "det causal: group-major", 0, 0, 0);
  if (failures) {
    std::printf("%d failures\n", failures);
    return 1;
  }
  std::printf("bwd_block_order: all checks passed\n");
  return 0;
}
