// What rounding fp32 to the element type takes away, for the forward's O residual
// (FwdParams::o_resid): (lo - float(rn(lo)), hi - float(rn(hi))), packed like O itself. O plus
// this residual holds O to ~16 significant bits, for the backward's D = rowsum(dO o O). Written
// once over the element traits' pack2 / unpack2, for every dtype and arch family.
#pragma once

#include <cstdint>

namespace flashcore {

template <class Traits>
__device__ __forceinline__ uint32_t pack2_rounding_residual(float lo, float hi) {
  const float2 rounded = Traits::unpack2(Traits::pack2(lo, hi));
  return Traits::pack2(lo - rounded.x, hi - rounded.y);
}

}  // namespace flashcore
