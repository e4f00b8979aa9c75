"""Applies the per-CTA stamps (diagnostic, never landed) to kernels/hopper/bwd_kernel.cuh and
bwd_launch.cuh of the working tree: FLASHCORE_BWD_CTA_TRACE_FILE then receives, for one plain
main-kernel launch, per CTA: smid, steps, clock64 at entry / K landed / first Q landed / loop end
/ both consumers' epilogue end / writer end / producer end / first instruction, and globaltimer at
entry and epilogue end (cta_timeline.py reads it). Revert with git checkout of the two files."""
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else "."


def sub(s, old, new, count=1):
    if s.count(old) != count:
        raise SystemExit(f"expected {count} of: {old[:80]!r}, found {s.count(old)}")
    return s.replace(old, new)


p = f"{root}/kernels/hopper/bwd_kernel.cuh"
s = open(p).read()
s = sub(s, "namespace flashcore {\nnamespace hopper {\n", """namespace flashcore {
namespace hopper {
namespace bwd_cta_trace {
constexpr int kCtas = 8192, kFields = 14;
static __device__ long long buf[kCtas][kFields];
__device__ __forceinline__ long long gtimer() {
  long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
__device__ __forceinline__ long long smid() {
  unsigned s;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
  return s;
}
}  // namespace bwd_cta_trace
#define FC_CT(field, val) \\
  do { if (blockIdx.x < bwd_cta_trace::kCtas) bwd_cta_trace::buf[blockIdx.x][(field)] = (val); } while (0)
""")
s = sub(s, "BwdTensorMaps maps, BwdBlockOrder order) {\n  using Element",
        "BwdTensorMaps maps, BwdBlockOrder order) {\n  const long long t_first_instruction = clock64();\n  using Element")
s = sub(s, "  init_bwd_barriers<kStages, true>(maps, smem, kConsumerWarps);", """  if (threadIdx.x == 0) {
    FC_CT(0, bwd_cta_trace::smid());
    FC_CT(1, steps);
    FC_CT(2, clock64());
    FC_CT(3, bwd_cta_trace::gtimer());
    FC_CT(12, t_first_instruction);
  }
  init_bwd_barriers<kStages, true>(maps, smem, kConsumerWarps);""")
s = re.sub(r"(run_bwd_producer<[^;]*;\n)(    return;\n)",
           r"\1    if (threadIdx.x == 0) FC_CT(11, clock64());\n    if (threadIdx.x == 32 * kDqWriterWarp) FC_CT(9, clock64());\n\2", s, count=1)
s = sub(s, "    mbar_wait(&smem.kv_full, 0);\n", "    mbar_wait(&smem.kv_full, 0);\n    if (threadIdx.x == 128) FC_CT(4, clock64());\n")
s = sub(s, "        mbar_wait(&smem.full[s], st.parity());\n        issue_bwd_scores",
        "        mbar_wait(&smem.full[s], st.parity());\n        if (step == 0 && threadIdx.x == 128) FC_CT(5, clock64());\n        issue_bwd_scores",
        count=2)
s = sub(s, "  // Epilogue: this warpgroup's 64 keys", "  if (threadIdx.x == 128) FC_CT(6, clock64());\n  // Epilogue: this warpgroup's 64 keys")
s = re.sub(r"(  store_dk_dv<Traits, kHeadDim>\([^;]*;\n)(}\n)",
           r"\1  if (threadIdx.x == 128) { FC_CT(7, clock64()); FC_CT(10, bwd_cta_trace::gtimer()); }\n"
           r"  if (threadIdx.x == 256) FC_CT(8, clock64());\n\2", s, count=1)
assert "FC_CT(7" in s and "FC_CT(11" in s
open(p, "w").write(s)

p = f"{root}/kernels/hopper/bwd_launch.cuh"
s = open(p).read()
s = sub(s, "#include <cstdint>\n", "#include <algorithm>\n#include <cstdint>\n#include <cstdio>\n#include <cstdlib>\n#include <vector>\n")
s = sub(s, "    kernel<<<static_cast<unsigned>(grid), kThreads, kSmemBytes, stream>>>(params, maps, order);\n", """    const char* trace_path = std::getenv("FLASHCORE_BWD_CTA_TRACE_FILE");
    constexpr size_t kTraceLongs = size_t(bwd_cta_trace::kCtas) * bwd_cta_trace::kFields;
    static std::vector<long long> trace_host(kTraceLongs);
    if (trace_path != nullptr) {
      std::fill(trace_host.begin(), trace_host.end(), 0LL);
      cudaMemcpyToSymbolAsync(bwd_cta_trace::buf, trace_host.data(), kTraceLongs * sizeof(long long), 0,
                              cudaMemcpyHostToDevice, stream);
    }
    kernel<<<static_cast<unsigned>(grid), kThreads, kSmemBytes, stream>>>(params, maps, order);
    if (trace_path != nullptr) {
      cudaStreamSynchronize(stream);
      cudaMemcpyFromSymbol(trace_host.data(), bwd_cta_trace::buf, kTraceLongs * sizeof(long long));
      if (FILE* f = std::fopen(trace_path, "wb")) {
        const int hdr[8] = {bwd_cta_trace::kCtas, bwd_cta_trace::kFields, static_cast<int>(grid), kHeadDim,
                            kPolicy.block_m, kPolicy.block_n, kCausal ? 1 : 0, 0};
        std::fwrite(hdr, sizeof(hdr), 1, f);
        std::fwrite(trace_host.data(), kTraceLongs * sizeof(long long), 1, f);
        std::fclose(f);
      }
    }
""")
open(p, "w").write(s)
print("trace applied")
