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
  int q_buffers = 2;  // Q (and the O it becomes) buffers: 2 = the next tile's Q loads during this one's epilogue
};

// sm_90's limits the policies are checked against (fwd_kernel.cuh static_asserts them).
constexpr int kSm90MaxDynamicSmemBytes = 227 * 1024;  // per block, opt-in (cudaFuncSetAttribute)
constexpr int kSm90RegistersPerSm = 64 * 1024;

// 128 x 128 tiles, two consumer warpgroups: S (64 fp32/thread) + O (head_dim/2) + P (32 regs)
// fit in 240 registers at head_dim 128. Shared memory: Q + 2 stages of K and V =
// (128 + 4 * 128) * head_dim * 2 bytes = 160 KB at head_dim 128, 80 KB at 64 (3 stages there).
//
// Head dims 192 and 256 (sm90a forward only; prototype, not yet run on a GPU:
// docs/results/2026-11-23-hd256-fwd-cpu.md). Per consumer thread, O is head_dim / 2 fp32
// registers (96 / 128), S block_n / 2, P block_n / 4 (16-bit pairs); S_j and P_{j+1} are live
// together in the mainloop. Shared memory = q_buffers * 128 * head_dim * 2 + stages * 2 *
// block_n * head_dim * 2 bytes (+ 1 KB of barriers, + 1 KB of alignment slack), <= 227 KB:
//   256: two Q buffers alone are 128 KB, so one; block_n 80, 2 stages: 64 + 160 = 224 KB;
//        registers 128 + 40 + 20 = 188 of 240.
//   192: one Q buffer (48 KB); block_n 112, 2 stages: 48 + 168 = 216 KB; registers
//        96 + 56 + 28 = 180 of 240. (Two Q buffers would force block_n <= 80.)
constexpr FwdTilePolicy fwd_tile_policy(int head_dim) {
  return head_dim == 64    ? FwdTilePolicy{128, 128, 3, 2, 24, 240}
         : head_dim == 192 ? FwdTilePolicy{128, 112, 2, 2, 24, 240, 1}
         : head_dim == 256 ? FwdTilePolicy{128, 80, 2, 2, 24, 240, 1}
                           : FwdTilePolicy{128, 128, 2, 2, 24, 240};
}

}  // namespace hopper
}  // namespace flashcore

namespace flashcore {
namespace hopper {

// Hopper backward tile policy (kernels/hopper/bwd_kernel.cuh). Each consumer warpgroup owns 64
// keys of the CTA's key block; a query block is the N of S^T = K Q^T.
struct BwdTilePolicy {
  int block_m;        // query rows per mainloop step (64 or 128)
  int block_n;        // keys per CTA: 64 per consumer warpgroup
  int stages;         // Q / dO shared-memory stages
  int consumer_wgs;   // consumer warpgroups (plus one producer warpgroup)
  int producer_regs;  // setmaxnreg budgets, as in FwdTilePolicy
  int consumer_regs;
};

// 128 keys, two consumer warpgroups, two stages. Registers per consumer thread: dK + dV
// (head_dim / 2 fp32 each for 64 keys), S^T and dP^T (block_m / 2 each), then the fp16/bf16
// fragments of P^T and dS^T (block_m / 4 each) and the dQ slice (32):
//   head_dim 128, 64 query rows: 64 + 64 + 32 + 32 = 192 at the softmax;
//   head_dim 64, 128 query rows: 32 + 32 + 64 + 64 = 192 -- twice the rows per step at d64 halves
//   the dQ atomics (the two consumers split dQ by query rows instead of each adding its own
//   keys' share), the barriers per FLOP, and doubles the N of the S^T / dP^T wgmma.
// dQ's 64 x 64 slices: d128 splits dQ's columns between the consumers, d64 its query rows.
// Shared memory: K, V (128 x head_dim each), 2 stages of Q and dO (block_m x head_dim each), two
// dS^T buffers (128 x block_m): 160 KB at head_dim 128 and at 64.
constexpr BwdTilePolicy bwd_tile_policy(int head_dim) {
  return head_dim == 64 ? BwdTilePolicy{128, 128, 2, 2, 24, 240} : BwdTilePolicy{64, 128, 2, 2, 24, 240};
}

}  // namespace hopper
}  // namespace flashcore
