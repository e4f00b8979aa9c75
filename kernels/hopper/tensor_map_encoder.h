// The driver's cuTensorMapEncodeTiled, reached through the runtime's entry-point query (nothing
// links libcuda), for the forward's and the backward's tensor maps alike.
#pragma once

#include <cuda.h>

namespace flashcore {
namespace hopper {

using EncodeTiledFn = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                                   const cuuint64_t*, const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave,
                                   CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

// The encoder, looked up once per process (the lookup costs microseconds; an encode itself is
// host-only bit packing, well under a microsecond); nullptr where the driver lacks it.
EncodeTiledFn encode_tiled();

}  // namespace hopper
}  // namespace flashcore
