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

// 128 x 128 tiles, two consumer warpgroups: S (64 fp32/thread) + O (head_dim/2) + P (32 regs)
// fit in 240 registers at head_dim 128. Shared memory: Q + 2 stages of K and V =
// (128 + 4 * 128) * head_dim * 2 bytes = 160 KB at head_dim 128, 80 KB at 64 (3 stages there).
constexpr FwdTilePolicy fwd_tile_policy(int head_dim) {
  return head_dim == 64 ? FwdTilePolicy{128, 128, 3, 2, 24, 240} : FwdTilePolicy{128, 128, 2, 2, 24, 240};
}

}  // namespace hopper
}  // namespace flashcore
