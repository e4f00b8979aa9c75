// Host test of kernels/hopper/tile_policy.h pick_fwd_tile, no GPU: which sm90a forward tile a
// call's shape takes -- the few-tiles tile on small grids, head dim 64's long-rows tile from 1024
// query rows (3072 causal), packed causal batches whose lengths vary from 1536 (equal or
// near-equal packed lengths by the dense rule), 96's from 2048; 192's short-rows tile for causal
// calls under 2048 keys; sliding windows, unpacked and packed (pack-GQA).
#include <cstdio>

#include "kernels/hopper/tile_policy.h"

namespace {

using flashcore::hopper::FwdTileKind;
using flashcore::hopper::pick_fwd_tile;

int failures = 0;

void expect(const char* what, FwdTileKind got, FwdTileKind want) {
  if (got != want) {
    ++failures;
    std::printf("FAIL %s: got tile %d, want %d\n", what, static_cast<int>(got), static_cast<int>(want));
  }
}

constexpr int kSms = 132;
constexpr FwdTileKind kDefault = FwdTileKind::kDefault, kLong = FwdTileKind::kLongRows, kFew = FwdTileKind::kFewTiles,
                      kShort = FwdTileKind::kShortRows;

FwdTileKind dense(int d, int batch, int heads, int s, bool causal) {
  return pick_fwd_tile(d, batch, heads, s, s, causal, kSms, 0);
}
// 64 packed sequences of 32 heads, the longest `longest`, `mean` rows each on average.
FwdTileKind packed(int d, int longest, int mean, bool causal) {
  return pick_fwd_tile(d, 64, 32, longest, longest, causal, kSms, 0, 64ll * mean);
}

}  // namespace

int main() {
  // Dense, head dim 64: long rows from 1024 query rows, 3072 causal (a wave of 192-row tiles).
  expect("d64 full S1023", dense(64, 16, 32, 1023, false), kDefault);
  expect("d64 full S1024", dense(64, 16, 32, 1024, false), kLong);
  expect("d64 causal S3071", dense(64, 4, 32, 3071, true), kDefault);
  expect("d64 causal S3072", dense(64, 4, 32, 3072, true), kLong);
  expect("d64 causal S3072, 16 tiles", dense(64, 1, 1, 3072, true), kFew);
  expect("d64 causal S3072, under a wave", dense(64, 1, 8, 3072, true), kDefault);
  expect("d128 full S16384", dense(128, 1, 16, 16384, false), kDefault);
  expect("d96 full S2048", dense(96, 8, 21, 2048, false), kLong);
  expect("d96 full S2047", dense(96, 8, 21, 2047, false), kDefault);
  // Packed, head dim 64: causal with lengths that vary from 1536; not causal from 1024 as dense.
  expect("packed causal 2048 mixed", packed(64, 2048, 1300, true), kLong);
  expect("packed causal 1536 mixed", packed(64, 1536, 800, true), kLong);
  expect("packed causal 1535 mixed", packed(64, 1535, 800, true), kDefault);
  expect("packed causal 2500 mixed", packed(64, 2500, 2000, true), kLong);
  expect("packed full 1024 mixed", packed(64, 1024, 500, false), kLong);
  expect("packed full 1023 mixed", packed(64, 1023, 500, false), kDefault);
  // Equal or near-equal packed lengths follow the dense rule (2048 causal: the 128-row tile).
  expect("packed causal 2048 equal", packed(64, 2048, 2048, true), kDefault);
  expect("packed causal 2048 near-equal", packed(64, 2048, 2000, true), kDefault);
  expect("packed causal 2048 at 94%", packed(64, 2048, 1925, true), kLong);
  expect("packed full 1536 equal", packed(64, 1536, 1536, false), kLong);
  expect("packed full 1023 equal", packed(64, 1023, 1023, false), kDefault);
  expect("packed causal 3072 equal", packed(64, 3072, 3072, true), kLong);
  // Other head dims keep their rules.
  expect("packed d128 causal mixed", packed(128, 2500, 1300, true), kDefault);
  expect("packed d96 causal 1500 mixed", packed(96, 1500, 700, true), kDefault);
  // Head dim 192: causal calls under 2048 keys on the short-rows tile (128 x 64); full ones never.
  expect("d192 causal S1024", dense(192, 16, 16, 1024, true), kShort);
  expect("d192 causal S2047", dense(192, 8, 16, 2047, true), kShort);
  expect("d192 causal S2048", dense(192, 8, 16, 2048, true), kDefault);
  expect("d192 causal Sq 2048 Sk 1000", pick_fwd_tile(192, 8, 16, 2048, 1000, true, kSms, 0), kShort);
  expect("d192 full S1024", dense(192, 16, 16, 1024, false), kDefault);
  expect("d192 full S4096", dense(192, 4, 16, 4096, false), kLong);
  expect("packed d192 causal 1500 mixed", packed(192, 1500, 700, true), kShort);
  expect("packed d192 causal 4000 mixed", packed(192, 4000, 2000, true), kDefault);
  expect("d256 causal S1024", dense(256, 16, 8, 1024, true), kDefault);
  // Sliding windows (window_keys: the most keys a row sees): the 192-row tiles from 1024 keys on.
  expect("d64 causal S8192 window 129 keys", pick_fwd_tile(64, 2, 64, 8192, 8192, true, kSms, 0, 0, 129), kDefault);
  expect("d64 causal S8192 window 1023 keys", pick_fwd_tile(64, 2, 32, 8192, 8192, true, kSms, 0, 0, 1023), kDefault);
  expect("d64 causal S8192 window 1024 keys", pick_fwd_tile(64, 2, 32, 8192, 8192, true, kSms, 0, 0, 1024), kLong);
  expect("d64 causal S8192 no window", pick_fwd_tile(64, 2, 32, 8192, 8192, true, kSms, 0, 0, -1), kLong);
  expect("d96 causal S8192 window 513 keys", pick_fwd_tile(96, 2, 32, 8192, 8192, true, kSms, 0, 0, 513), kDefault);
  expect("d96 full S8192 window 2049 keys", pick_fwd_tile(96, 2, 32, 8192, 8192, false, kSms, 0, 0, 2049), kLong);
  expect("d128 causal S8192 window 129 keys", pick_fwd_tile(128, 2, 32, 8192, 8192, true, kSms, 0, 0, 129), kDefault);
  expect("d192 full S8192 window 513 keys (its rule)", pick_fwd_tile(192, 2, 16, 8192, 8192, false, kSms, 0, 0, 513),
         kLong);
  // Packed windows (fwd_pack_window: groups of 4 or 8, at most 1025 keys): the walk's rows are
  // positions << shift over the k/v heads, and the packed 192-row tile takes any such window.
  expect("d64 causal S8192 window 129 keys, packed 64 / 8",
         pick_fwd_tile(64, 2, 8, 8192 << 3, 8192, true, kSms, 0, 0, 129, 3), kLong);
  expect("d64 causal S8192 window 513 keys, packed 32 / 8",
         pick_fwd_tile(64, 2, 8, 8192 << 2, 8192, true, kSms, 0, 0, 513, 2), kLong);
  expect("d64 causal S8192 window 129 keys, unpacked", pick_fwd_tile(64, 2, 64, 8192, 8192, true, kSms, 0, 0, 129, 0),
         kDefault);
  {
    using flashcore::hopper::fwd_pack_window;
    const bool packs[] = {fwd_pack_window(64, 3, 129), fwd_pack_window(64, 2, 1025), fwd_pack_window(64, 3, 1026),
                          fwd_pack_window(64, 1, 129), fwd_pack_window(64, 3, -1), fwd_pack_window(128, 3, 129)};
    const bool want[] = {true, true, false, false, false, false};
    for (int i = 0; i < 6; ++i) {
      if (packs[i] != want[i]) {
        ++failures;
        std::printf("FAIL fwd_pack_window case %d: got %d\n", i, packs[i]);
      }
    }
  }
  // Forced.
  expect("forced long rows", pick_fwd_tile(64, 1, 1, 100, 100, true, kSms, 2), kLong);
  expect("forced long rows, window 129 keys", pick_fwd_tile(64, 2, 64, 8192, 8192, true, kSms, 2, 0, 129), kLong);
  if (failures == 0) std::printf("all tile picks as expected\n");
  return failures == 0 ? 0 : 1;
}
