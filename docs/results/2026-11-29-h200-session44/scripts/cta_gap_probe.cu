// Session 44: how long an SM sits between one CTA's last instruction and the next CTA's first,
// for a kernel shaped like the sm90a backward main kernel (384 threads, ~200 KB of dynamic shared
// memory, one CTA per SM). Each CTA: thread 0 stamps clock64 and %smid at entry, every thread
// spins `work` clocks, optionally (`stores`) every thread writes 16-byte global stores as an
// epilogue would (64 KB a CTA), a __syncthreads, thread 0 stamps clock64 again and exits.
// Gap = next CTA's entry - this CTA's exit stamp, per SM (clock64 is per SM).
// Build (CPU machine, repository root; $N = the pinned CUDA under the Bazel output base's
// external/_main~_repo_rules~cuda/nvidia/cu13):
//   $N/bin/nvcc -std=c++17 -O3 -gencode arch=compute_90a,code=sm_90a -I$N/include -L$N/lib \
//     -cudart static -o cta_gap_probe docs/results/2026-11-29-h200-session44/scripts/cta_gap_probe.cu
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <vector>

__global__ void __launch_bounds__(384, 1) probe(long long work, int stores, long long* stamps, int4* out) {
  long long t0 = clock64();
  unsigned sm;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
  if (threadIdx.x == 0) {
    stamps[3 * blockIdx.x] = t0;
    stamps[3 * blockIdx.x + 1] = sm;
  }
  while (clock64() - t0 < work) {
  }
  if (stores) {
    // (Call 6's build read smem[threadIdx.x] here, past the allocation in the 0 KB configuration:
    // an illegal address, and every figure of that run was garbage. The value is only a source.)
    int4 v = make_int4(static_cast<int>(t0), static_cast<int>(sm), 0, 0);
    int4* dst = out + static_cast<long long>(blockIdx.x) * 4096;
#pragma unroll
    for (int i = 0; i < 4096 / 384 + 1; ++i) {
      const int j = threadIdx.x + 384 * i;
      if (j < 4096) dst[j] = v;
    }
  }
  __syncthreads();
  if (threadIdx.x == 0) stamps[3 * blockIdx.x + 2] = clock64();
}

int main() {
  const int grid = 4096;
  long long* stamps;
  int4* out;
  cudaMalloc(&stamps, sizeof(long long) * 3 * grid);
  cudaMalloc(&out, sizeof(int4) * 4096ll * grid);
  std::vector<long long> h(3 * grid);
  printf("smem_KB work_clocks stores | gap median p10 p90 (clocks) | kernel us | per-CTA clocks\n");
  for (int smem_kb : {0, 100, 200}) {
    cudaFuncSetAttribute(probe, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_kb * 1024);
    for (long long work : {5000ll, 20000ll}) {
      for (int stores : {0, 1}) {
        for (int rep = 0; rep < 2; ++rep) {
          cudaEvent_t a, b;
          cudaEventCreate(&a);
          cudaEventCreate(&b);
          cudaEventRecord(a);
          probe<<<grid, 384, smem_kb * 1024>>>(work, stores, stamps, out);
          cudaEventRecord(b);
          cudaEventSynchronize(b);
          float ms = 0;
          cudaEventElapsedTime(&ms, a, b);
          cudaMemcpy(h.data(), stamps, sizeof(long long) * 3 * grid, cudaMemcpyDeviceToHost);
          std::map<long long, std::vector<std::pair<long long, long long>>> by_sm;
          for (int i = 0; i < grid; ++i) by_sm[h[3 * i + 1]].push_back({h[3 * i], h[3 * i + 2]});
          std::vector<long long> gaps;
          for (auto& [sm, v] : by_sm) {
            std::sort(v.begin(), v.end());
            for (size_t i = 1; i < v.size(); ++i) gaps.push_back(v[i].first - v[i - 1].second);
          }
          std::sort(gaps.begin(), gaps.end());
          if (rep == 1 && !gaps.empty())
            printf("%3d %6lld %d | %6lld %6lld %6lld | %8.1f | %lld SMs %zu\n", smem_kb, work, stores,
                   gaps[gaps.size() / 2], gaps[gaps.size() / 10], gaps[gaps.size() * 9 / 10], ms * 1e3,
                   work, by_sm.size());
        }
      }
    }
  }
  printf("%s\n", cudaGetErrorString(cudaDeviceSynchronize()));
  return 0;
}
