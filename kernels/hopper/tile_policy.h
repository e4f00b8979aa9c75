// Hopper forward tile policy: the one place that decides tile shapes, pipeline depth and
// register split, per head dim.
#pragma once

namespace flashcore {
namespace hopper {

struct FwdTilePolicy {
  int block_m;        // query rows per CTA: 64 per consumer warpgroup
  int block_n;        // keys per mainloop step (the N of S = Q K^T)
  int stages;         // K and V shared-memory stages each
  int consumer_wgs;   // consumer warpgroups (plus one producer warpgroup)
  int producer_regs;  // setmaxnreg budgets; (producer + consumers) * 128 threads <= 64K registers
  int consumer_regs;
};

// Two consumer warpgroups of 64 query rows. Registers per consumer thread: S (block_n / 2 fp32)
// + O (head_dim / 2) + P (block_n / 4) within 240. Shared memory: two Q buffers + `stages` of K
// and V = (2 * 128 + 2 * stages * block_n) * head_dim * 2 bytes: 192 KB at head_dim 128 (2
// stages), 128 KB at 64 (3 stages). 160-key blocks at head_dim 128 (224 KB) measured slower on
// the H100 (docs/PERF.md), so the causal flag does not change the shape.
constexpr FwdTilePolicy fwd_tile_policy(int head_dim, bool /*causal*/) {
  return head_dim == 64 ? FwdTilePolicy{128, 128, 3, 2, 24, 240} : FwdTilePolicy{128, 128, 2, 2, 24, 240};
}

}  // namespace hopper
}  // namespace flashcore
