// Loop-kernel shape probe: how the shape of an elementwise kernel (threads
// per block, 16-byte vectors per thread, their layout, a persistent grid)
// moves its bandwidth on this GPU, next to a plain copy and next to the
// kernel hloc generates for the same function (loaded from its PTX).
//
// The function is the benchmark's chain5: sigmoid(max((x + 1) * 2, 0) - 0.5)
// over 8192 x 8192 elements, f32 and bf16 (bf16 computed in f32, rounded
// once, as hloc does under excess precision). This is a measuring tool for
// choosing the loop emitter's launch shape, not part of the compiler:
//
//   nvcc -O3 -arch=sm_90 -o loop_probe loop_probe.cu -lcuda
//   ./loop_probe [hloc_f32.ptx [hloc_bf16.ptx]]
//
// Each hloc PTX must hold one entry `loop_fusion(in, out)` launched as
// hloc launches it: 256 threads, one 16-byte vector per thread; make them
// here with `hlo-opt chain5.hlo --platform=cuda --stage=ptx -o F` from an
// HLO module of the function (f32[8192,8192] and bf16[8192,8192]).
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "probe_util.h"

constexpr long kRows = 8192, kCols = 8192, kN = kRows * kCols;

__device__ __forceinline__ float Chain5(float x, bool fast) {
  float s = fmaxf((x + 1.f) * 2.f, 0.f) - 0.5f;
  if (fast) return __fdividef(1.f, 1.f + __expf(-s));
  return __frcp_rn(1.f + expf(-s));
}

// f32: VECS float4s per thread. STRIDED: a block's j-th vectors are one
// contiguous span (each load instruction of a warp covers 512 bytes);
// otherwise a thread's vectors are adjacent.
template <int VECS, bool STRIDED, bool FAST>
__global__ void F32Kernel(const float4* __restrict__ in, float4* __restrict__ out,
                          long n4) {
  long block_base = long(blockIdx.x) * blockDim.x * VECS;
  float4 v[VECS];
#pragma unroll
  for (int j = 0; j < VECS; ++j) {
    long i = STRIDED ? block_base + j * blockDim.x + threadIdx.x
                     : block_base + threadIdx.x * VECS + j;
    if (i < n4) v[j] = __ldg(in + i);
  }
#pragma unroll
  for (int j = 0; j < VECS; ++j) {
    long i = STRIDED ? block_base + j * blockDim.x + threadIdx.x
                     : block_base + threadIdx.x * VECS + j;
    float4 r;
    r.x = Chain5(v[j].x, FAST);
    r.y = Chain5(v[j].y, FAST);
    r.z = Chain5(v[j].z, FAST);
    r.w = Chain5(v[j].w, FAST);
    if (i < n4) out[i] = r;
  }
}

// Persistent grid: a fixed number of blocks strides over the vectors.
__global__ void F32GridStride(const float4* __restrict__ in,
                              float4* __restrict__ out, long n4) {
  for (long i = long(blockIdx.x) * blockDim.x + threadIdx.x; i < n4;
       i += long(gridDim.x) * blockDim.x) {
    float4 v = __ldg(in + i), r;
    r.x = Chain5(v.x, false);
    r.y = Chain5(v.y, false);
    r.z = Chain5(v.z, false);
    r.w = Chain5(v.w, false);
    out[i] = r;
  }
}

__device__ __forceinline__ uint4 Chain5Bf16x8(uint4 v, bool fast) {
  __nv_bfloat162* h = reinterpret_cast<__nv_bfloat162*>(&v);
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    float2 f = __bfloat1622float2(h[k]);
    f.x = Chain5(f.x, fast);
    f.y = Chain5(f.y, fast);
    h[k] = __float22bfloat162_rn(f);
  }
  return v;
}

template <int VECS, bool STRIDED, bool FAST>
__global__ void Bf16Kernel(const uint4* __restrict__ in, uint4* __restrict__ out,
                           long n8) {
  long block_base = long(blockIdx.x) * blockDim.x * VECS;
  uint4 v[VECS];
#pragma unroll
  for (int j = 0; j < VECS; ++j) {
    long i = STRIDED ? block_base + j * blockDim.x + threadIdx.x
                     : block_base + threadIdx.x * VECS + j;
    if (i < n8) v[j] = __ldg(in + i);
  }
#pragma unroll
  for (int j = 0; j < VECS; ++j) {
    long i = STRIDED ? block_base + j * blockDim.x + threadIdx.x
                     : block_base + threadIdx.x * VECS + j;
    if (i < n8) out[i] = Chain5Bf16x8(v[j], FAST);
  }
}

template <class T>
__global__ void CopyKernel(const T* __restrict__ in, T* __restrict__ out, long n) {
  long i = long(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = __ldg(in + i);
}

struct Timer {
  cudaEvent_t a, b;
  Timer() {
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
  }
  // Median of `reps` timed runs after 3 warm-ups, in microseconds.
  template <class F>
  double Median(F&& launch, int reps = 30) {
    for (int i = 0; i < 3; ++i) launch();
    CHECK(cudaGetLastError());
    std::vector<double> t;
    for (int i = 0; i < reps; ++i) {
      CHECK(cudaEventRecord(a));
      launch();
      CHECK(cudaEventRecord(b));
      CHECK(cudaEventSynchronize(b));
      float ms;
      CHECK(cudaEventElapsedTime(&ms, a, b));
      t.push_back(ms * 1e3);
    }
    CHECK(cudaGetLastError());
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
  }
};

double g_copy_gbs = 0;

void Report(const char* name, double us, double bytes) {
  double gbs = bytes / us * 1e-3;
  std::printf("%-34s %9.1f us %7.0f GB/s %5.1f%% of copy\n", name, us, gbs,
              100 * gbs / g_copy_gbs);
}

// Times hloc's `loop_fusion` from `ptx_path`, launched with 256 threads and
// one 16-byte vector per thread (`elements_per_thread` elements).
double TimeHlocPtx(const char* ptx_path, void* in, void* out,
                   long elements_per_thread, Timer& timer) {
  std::string ptx = ReadFile(ptx_path);
  CUmodule module;
  CUfunction fn;
  CHECK_CU(cuModuleLoadData(&module, ptx.c_str()));
  CHECK_CU(cuModuleGetFunction(&fn, module, "loop_fusion"));
  unsigned grid = unsigned(kN / (256 * elements_per_thread));
  void* args[] = {&in, &out};
  return timer.Median([&] {
    CHECK_CU(cuLaunchKernel(fn, grid, 1, 1, 256, 1, 1, 0, nullptr, args,
                            nullptr));
  });
}

template <class T>
double MaxDiff(const T* a, const T* b, long n) {
  std::vector<T> x(n), y(n);
  CHECK(cudaMemcpy(x.data(), a, n * sizeof(T), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(y.data(), b, n * sizeof(T), cudaMemcpyDeviceToHost));
  double d = 0;
  for (long i = 0; i < n; ++i) {
    double u, v;
    if constexpr (sizeof(T) == 2) {
      unsigned ux = unsigned(x[i]) << 16, uy = unsigned(y[i]) << 16;
      float fx, fy;
      std::memcpy(&fx, &ux, 4);
      std::memcpy(&fy, &uy, 4);
      u = fx, v = fy;
    } else {
      u = x[i], v = y[i];
    }
    d = std::max(d, std::fabs(u - v));
  }
  return d;
}

int main(int argc, char** argv) {
  CHECK(cudaFree(nullptr));
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  const int sms = prop.multiProcessorCount;
  std::printf("%s, %d SMs\n", prop.name, sms);

  float *x, *y, *ref;
  CHECK(cudaMalloc(&x, kN * 4));
  CHECK(cudaMalloc(&y, kN * 4));
  CHECK(cudaMalloc(&ref, kN * 4));
  {
    std::vector<float> h(kN);
    unsigned s = 12345;
    for (long i = 0; i < kN; ++i) {
      s = s * 1664525u + 1013904223u;
      h[i] = (int(s >> 8) % 20001 - 10000) * 1e-3f;
    }
    CHECK(cudaMemcpy(x, h.data(), kN * 4, cudaMemcpyHostToDevice));
  }
  Timer timer;

  // The copy bound: 1 GiB device-to-device, bytes read plus written.
  {
    void *a, *b;
    const size_t bytes = size_t(1) << 30;
    CHECK(cudaMalloc(&a, bytes));
    CHECK(cudaMalloc(&b, bytes));
    CHECK(cudaMemset(a, 1, bytes));
    double us = timer.Median(
        [&] { CHECK(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice)); });
    g_copy_gbs = 2.0 * bytes / us * 1e-3;
    std::printf("%-34s %9.1f us %7.0f GB/s\n", "cudaMemcpy 1 GiB", us, g_copy_gbs);
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
  }

  const double f32_bytes = 2.0 * kN * 4, bf16_bytes = 2.0 * kN * 2;
  const long n4 = kN / 4, n8 = kN / 8;
  auto in4 = reinterpret_cast<const float4*>(x);
  auto out4 = reinterpret_cast<float4*>(y);

  Report("f32 copy kernel 256x1v4",
         timer.Median([&] { CopyKernel<<<n4 / 256, 256>>>(in4, out4, n4); }),
         f32_bytes);
  F32Kernel<1, true, false><<<n4 / 256, 256>>>(in4, reinterpret_cast<float4*>(ref), n4);
  CHECK(cudaDeviceSynchronize());

#define F32(V, S, FAST, T)                                                  \
  {                                                                         \
    long blocks = (n4 + long(T) * V - 1) / (long(T) * V);                   \
    double us = timer.Median(                                               \
        [&] { F32Kernel<V, S, FAST><<<blocks, T>>>(in4, out4, n4); });      \
    char name[64];                                                          \
    std::snprintf(name, sizeof name, "f32 %dthr %dv4 %s%s", T, V,           \
                  S ? "strided" : "adjacent", FAST ? " fastmath" : "");     \
    Report(name, us, f32_bytes);                                            \
    if (!FAST && MaxDiff(y, ref, kN) != 0) std::printf("  MISMATCH\n");     \
  }
  F32(1, true, false, 256);
  F32(1, true, false, 128);
  F32(1, true, false, 512);
  F32(2, true, false, 256);
  F32(4, true, false, 256);
  F32(2, false, false, 256);
  F32(2, true, false, 128);
  F32(4, true, false, 128);
  F32(1, true, true, 256);
  F32(2, true, true, 256);
  for (int per_sm : {4, 8, 16}) {
    int blocks = sms * per_sm;
    double us = timer.Median(
        [&] { F32GridStride<<<blocks, 256>>>(in4, out4, n4); });
    char name[64];
    std::snprintf(name, sizeof name, "f32 256thr gridstride %d/SM", per_sm);
    Report(name, us, f32_bytes);
  }
  if (argc > 1) {
    Report("f32 hloc loop_fusion",
           TimeHlocPtx(argv[1], x, y, 4, timer), f32_bytes);
    std::printf("  hloc vs probe max|diff| %g\n", MaxDiff(y, ref, kN));
  }

  // bf16: the same function, 8 elements per 16-byte vector.
  auto inb = reinterpret_cast<const uint4*>(x);  // reuse the f32 bits
  auto outb = reinterpret_cast<uint4*>(y);
  auto refb = reinterpret_cast<uint4*>(ref);
  {
    // Make the input real bf16 values of the same range.
    std::vector<unsigned short> h(kN);
    unsigned s = 777;
    for (long i = 0; i < kN; ++i) {
      s = s * 1664525u + 1013904223u;
      float f = (int(s >> 8) % 20001 - 10000) * 1e-3f;
      unsigned u;
      std::memcpy(&u, &f, 4);
      h[i] = (unsigned short)(u >> 16);
    }
    CHECK(cudaMemcpy(x, h.data(), kN * 2, cudaMemcpyHostToDevice));
  }
  Report("bf16 copy kernel 256x1v4",
         timer.Median([&] { CopyKernel<<<n8 / 256, 256>>>(inb, outb, n8); }),
         bf16_bytes);
  Bf16Kernel<1, true, false><<<n8 / 256, 256>>>(inb, refb, n8);
  CHECK(cudaDeviceSynchronize());
#define BF16(V, S, FAST, T)                                                 \
  {                                                                         \
    long blocks = (n8 + long(T) * V - 1) / (long(T) * V);                   \
    double us = timer.Median(                                               \
        [&] { Bf16Kernel<V, S, FAST><<<blocks, T>>>(inb, outb, n8); });     \
    char name[64];                                                          \
    std::snprintf(name, sizeof name, "bf16 %dthr %dv8 %s%s", T, V,          \
                  S ? "strided" : "adjacent", FAST ? " fastmath" : "");     \
    Report(name, us, bf16_bytes);                                           \
    if (!FAST && MaxDiff(reinterpret_cast<unsigned short*>(y),              \
                         reinterpret_cast<unsigned short*>(ref), kN) != 0)  \
      std::printf("  MISMATCH\n");                                          \
  }
  BF16(1, true, false, 256);
  BF16(1, true, false, 128);
  BF16(2, true, false, 256);
  BF16(4, true, false, 256);
  BF16(2, true, false, 128);
  BF16(1, true, true, 256);
  if (argc > 2) {
    Report("bf16 hloc loop_fusion", TimeHlocPtx(argv[2], x, y, 8, timer),
           bf16_bytes);
    std::printf("  hloc vs probe max|diff| %g\n",
                MaxDiff(reinterpret_cast<unsigned short*>(y),
                        reinterpret_cast<unsigned short*>(ref), kN));
  }
  return 0;
}
