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

namespace flashcore {
namespace hopper {

// Hopper backward tile policy (kernels/hopper/bwd_kernel.cuh). Query blocks are always
// kBwdBlockM = 64 rows (the N of S^T = K Q^T); each consumer warpgroup owns 64 keys.
struct BwdTilePolicy {
  int block_n;        // keys per CTA: 64 per consumer warpgroup
  int stages;         // Q / dO / lse / D shared-memory stages
  int consumer_wgs;   // consumer warpgroups (plus one producer warpgroup)
  int producer_regs;  // setmaxnreg budgets, as in FwdTilePolicy
  int consumer_regs;
};

// 128 keys, two consumer warpgroups, two stages. Registers per consumer thread: dK + dV
// (head_dim fp32 each over 64 keys: head_dim / 2 + head_dim / 2), S^T and dP^T (32 + 32), then
// the bf16/fp16 fragments of P^T and dS^T (16 + 16) and the dQ slice (32): 192 at head_dim 128.
// Shared memory: K, V (128 x head_dim each), 2 stages of Q and dO (64 x head_dim each), two
// dS^T buffers (128 x 64): 160 KB at head_dim 128, 96 KB at 64.
constexpr BwdTilePolicy bwd_tile_policy(int head_dim) {
  return head_dim == 64 ? BwdTilePolicy{128, 2, 2, 24, 240} : BwdTilePolicy{128, 2, 2, 24, 240};
}

}  // namespace hopper
}  // namespace flashcore
