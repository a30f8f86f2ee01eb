// Launch-overlap probe: how much of a memory-bound kernel's time at the
// benchmark's sizes is fixed per launch (the launch itself, the grid's ramp
// up, its last wave draining), and how much of that programmatic dependent
// launch (PDL: Hopper's griddepcontrol, with the launch attribute
// programmaticStreamSerialization) and streaming cache hints win back.
//
// Every time here is a whole run of back-to-back launches (20 per sample,
// median of 15 samples, divided by 20), as hlo-run-gpu --time-run times
// hloc and as the peers are timed. The kernels are the benchmark's chain5
// (sigmoid(max((x + 1) * 2, 0) - 0.5)) and a copy, over 8192 x 8192
// elements in bf16 (128 MiB each way) and f32 (256 MiB), next to
// cudaMemcpy of the same bytes and of 1 GiB. A measuring tool for the
// runtime's launch choices, not part of the compiler:
//
//   nvcc -O3 -arch=sm_90 -o launch_overlap_probe launch_overlap_probe.cu -lcuda
//   ./launch_overlap_probe [hloc_chain5_f32.ptx hloc_chain5_bf16.ptx]
//
// Each hloc PTX holds one entry `loop_fusion(in, out)` launched with 256
// threads and one 16-byte vector per thread (hlo-opt chain5.hlo
// --platform=cuda --gpu-arch=sm_90 --stage=ptx). The probe also times a
// copy of that PTX with `griddepcontrol.wait` and
// `griddepcontrol.launch_dependents` put before its first instruction.
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "probe_util.h"

constexpr long kN = 8192L * 8192L;
constexpr int kThreads = 256;

// Waits for the grid this launch depends on (a no-op without PDL), then
// lets the next launch's blocks be scheduled as this grid's retire.
__device__ __forceinline__ void PdlPrologue() {
  asm volatile("griddepcontrol.wait;" ::: "memory");
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
}

__device__ __forceinline__ uint4 LoadStreaming(const uint4* p) {
  uint4 v;
  asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0,%1,%2,%3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p));
  return v;
}

__device__ __forceinline__ void StoreStreaming(uint4* p, uint4 v) {
  asm volatile("st.global.cs.v4.u32 [%0], {%1,%2,%3,%4};" ::"l"(p), "r"(v.x),
               "r"(v.y), "r"(v.z), "r"(v.w)
               : "memory");
}

// The instructions hloc's kernel uses (its PTX): ex2.approx and
// rcp.approx, both keeping subnormals.
__device__ __forceinline__ float Chain5(float x) {
  float s = fmaxf((x + 1.f) * 2.f, 0.f) - 0.5f;
  float e, r;
  asm("ex2.approx.f32 %0, %1;" : "=f"(e) : "f"(s * -1.44269502f));
  asm("rcp.approx.f32 %0, %1;" : "=f"(r) : "f"(1.f + e));
  return r;
}

// One 16-byte vector per thread: 8 bf16 or 4 f32 elements.
template <bool kBf16, bool kCompute>
__device__ __forceinline__ uint4 Apply(uint4 v) {
  if (!kCompute) return v;
  if (kBf16) {
    __nv_bfloat162* h = reinterpret_cast<__nv_bfloat162*>(&v);
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      float2 f = __bfloat1622float2(h[k]);
      h[k] = __float22bfloat162_rn(make_float2(Chain5(f.x), Chain5(f.y)));
    }
  } else {
    float* f = reinterpret_cast<float*>(&v);
#pragma unroll
    for (int k = 0; k < 4; ++k) f[k] = Chain5(f[k]);
  }
  return v;
}

template <bool kBf16, bool kCompute, bool kPdl, bool kHints>
__global__ void __launch_bounds__(kThreads)
    Stream(const uint4* __restrict__ in, uint4* __restrict__ out, long n16) {
  if (kPdl) PdlPrologue();
  long i = long(blockIdx.x) * kThreads + threadIdx.x;
  if (i >= n16) return;
  uint4 v = kHints ? LoadStreaming(in + i) : __ldg(in + i);
  v = Apply<kBf16, kCompute>(v);
  if (kHints) {
    StoreStreaming(out + i, v);
  } else {
    out[i] = v;
  }
}

// A persistent grid (`gridDim.x` blocks stride over the vectors) whose
// threads load their next vector before computing the current one, so that
// a load is in flight while they compute: whether per-thread compute time,
// not the launch, is what holds bf16 chain5 under the copy.
template <bool kBf16, bool kCompute>
__global__ void __launch_bounds__(kThreads)
    StreamPrefetch(const uint4* __restrict__ in, uint4* __restrict__ out,
                   long n16) {
  const long stride = long(gridDim.x) * kThreads;
  long i = long(blockIdx.x) * kThreads + threadIdx.x;
  if (i >= n16) return;
  uint4 v = __ldg(in + i);
  for (long next = i + stride; next < n16; i = next, next += stride) {
    uint4 w = __ldg(in + next);
    out[i] = Apply<kBf16, kCompute>(v);
    v = w;
  }
  out[i] = Apply<kBf16, kCompute>(v);
}

// Two vectors per thread, both loaded before either is computed (a block's
// j-th vectors are one contiguous span); 8 blocks of 256 per SM asked of
// ptxas, so that occupancy stays full.
template <bool kBf16, bool kCompute>
__global__ void __launch_bounds__(kThreads, 8)
    StreamTwo(const uint4* __restrict__ in, uint4* __restrict__ out,
              long n16) {
  long i = long(blockIdx.x) * 2 * kThreads + threadIdx.x;
  if (i + kThreads >= n16) return;  // n16 is a multiple of 512 here
  uint4 v = __ldg(in + i), w = __ldg(in + i + kThreads);
  out[i] = Apply<kBf16, kCompute>(v);
  out[i + kThreads] = Apply<kBf16, kCompute>(w);
}

struct Timer {
  cudaEvent_t a, b;
  Timer() {
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
  }
  // Per-launch microseconds: median over 15 samples of 20 launches.
  template <class F>
  double Median(F&& launch) {
    for (int i = 0; i < 20; ++i) launch();
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaGetLastError());
    std::vector<double> t;
    for (int s = 0; s < 15; ++s) {
      CHECK(cudaEventRecord(a));
      for (int i = 0; i < 20; ++i) launch();
      CHECK(cudaEventRecord(b));
      CHECK(cudaEventSynchronize(b));
      float ms;
      CHECK(cudaEventElapsedTime(&ms, a, b));
      t.push_back(ms * 1e3 / 20);
    }
    CHECK(cudaGetLastError());
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
  }
};

double g_copy_gbs = 0;

void Report(const char* name, double us, double bytes) {
  double gbs = bytes / us * 1e-3;
  std::printf("%-44s %8.1f us %6.0f GB/s %5.1f%% of 1 GiB copy\n", name, us,
              gbs, 100 * gbs / g_copy_gbs);
}

template <bool kBf16, bool kCompute, bool kPdl, bool kHints>
double TimeStream(const void* in, void* out, long n16, Timer& timer) {
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(unsigned((n16 + kThreads - 1) / kThreads));
  config.blockDim = dim3(kThreads);
  cudaLaunchAttribute attribute;
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = kPdl ? 1 : 0;
  config.attrs = &attribute;
  config.numAttrs = 1;
  auto src = static_cast<const uint4*>(in);
  auto dst = static_cast<uint4*>(out);
  return timer.Median([&] {
    CHECK(cudaLaunchKernelEx(&config, Stream<kBf16, kCompute, kPdl, kHints>,
                             src, dst, n16));
  });
}

// The PTX with the PDL prologue before the entry's first instruction (after
// its last register declaration).
std::string WithPdlPrologue(const std::string& ptx) {
  size_t last_reg = ptx.rfind("\t.reg ");
  if (last_reg == std::string::npos) {
    std::fprintf(stderr, "no .reg line in the PTX\n");
    std::exit(2);
  }
  size_t end = ptx.find('\n', last_reg);
  return ptx.substr(0, end + 1) +
         "\tgriddepcontrol.wait;\n\tgriddepcontrol.launch_dependents;\n" +
         ptx.substr(end + 1);
}

double TimePtx(const std::string& ptx, bool pdl_attribute, CUdeviceptr in,
               CUdeviceptr out, long n16, Timer& timer) {
  CUmodule module;
  CUfunction fn;
  CHECK_CU(cuModuleLoadData(&module, ptx.c_str()));
  CHECK_CU(cuModuleGetFunction(&fn, module, "loop_fusion"));
  CUlaunchAttribute attribute;
  std::memset(&attribute, 0, sizeof attribute);
  attribute.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
  attribute.value.programmaticStreamSerializationAllowed = pdl_attribute;
  CUlaunchConfig config;
  std::memset(&config, 0, sizeof config);
  config.gridDimX = unsigned(n16 / kThreads);
  config.gridDimY = config.gridDimZ = 1;
  config.blockDimX = kThreads;
  config.blockDimY = config.blockDimZ = 1;
  config.attrs = &attribute;
  config.numAttrs = 1;
  void* args[] = {&in, &out};
  double us = timer.Median(
      [&] { CHECK_CU(cuLaunchKernelEx(&config, fn, args, nullptr)); });
  CHECK_CU(cuModuleUnload(module));
  return us;
}

int main(int argc, char** argv) {
  CHECK(cudaFree(nullptr));
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("%s, %d SMs, L2 %d MiB\n", prop.name, prop.multiProcessorCount,
              prop.l2CacheSize >> 20);
  Timer timer;

  void *a, *b;
  const size_t gib = size_t(1) << 30;
  CHECK(cudaMalloc(&a, gib));
  CHECK(cudaMalloc(&b, gib));
  CHECK(cudaMemset(a, 0x3f, gib));  // 0x3f3f: finite bf16 and f32 values
  {
    double us = timer.Median(
        [&] { CHECK(cudaMemcpyAsync(b, a, gib, cudaMemcpyDeviceToDevice)); });
    g_copy_gbs = 2.0 * gib / us * 1e-3;
    std::printf("%-44s %8.1f us %6.0f GB/s\n", "cudaMemcpy 1 GiB", us,
                g_copy_gbs);
  }

  for (bool bf16 : {true, false}) {
    const size_t bytes = kN * (bf16 ? 2 : 4);
    const long n16 = long(bytes / 16);
    const double moved = 2.0 * bytes;
    const char* t = bf16 ? "bf16" : "f32";
    char name[96];
    std::printf("-- %s, 8192 x 8192 (%zu MiB each way)\n", t, bytes >> 20);
    std::snprintf(name, sizeof name, "cudaMemcpy same size");
    Report(name,
           timer.Median([&] {
             CHECK(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice));
           }),
           moved);
#define ROW(COMPUTE, PDL, HINTS)                                              \
  std::snprintf(name, sizeof name, "%s %s%s%s", t,                            \
                COMPUTE ? "chain5" : "copy kernel", PDL ? " +pdl" : "",       \
                HINTS ? " +streaming hints" : "");                            \
  Report(name,                                                                \
         bf16 ? TimeStream<true, COMPUTE, PDL, HINTS>(a, b, n16, timer)       \
              : TimeStream<false, COMPUTE, PDL, HINTS>(a, b, n16, timer),     \
         moved);
    ROW(false, false, false);
    ROW(false, true, false);
    ROW(false, false, true);
    ROW(false, true, true);
    ROW(true, false, false);
    ROW(true, true, false);
    ROW(true, false, true);
    ROW(true, true, true);
#undef ROW
    for (bool compute : {false, true}) {
      std::snprintf(name, sizeof name, "%s %s two vectors a thread", t,
                    compute ? "chain5" : "copy kernel");
      auto kernel = bf16 ? (compute ? StreamTwo<true, true>
                                    : StreamTwo<true, false>)
                         : (compute ? StreamTwo<false, true>
                                    : StreamTwo<false, false>);
      auto src = static_cast<const uint4*>(a);
      auto dst = static_cast<uint4*>(b);
      Report(name, timer.Median([&] {
        kernel<<<unsigned(n16 / (2 * kThreads)), kThreads>>>(src, dst, n16);
      }),
             moved);
    }
    for (int per_sm : {4, 8, 16}) {
      const unsigned blocks = unsigned(prop.multiProcessorCount * per_sm);
      auto src = static_cast<const uint4*>(a);
      auto dst = static_cast<uint4*>(b);
      for (bool compute : {false, true}) {
        std::snprintf(name, sizeof name, "%s %s persistent %d/SM prefetch", t,
                      compute ? "chain5" : "copy kernel", per_sm);
        auto kernel = bf16 ? (compute ? StreamPrefetch<true, true>
                                      : StreamPrefetch<true, false>)
                           : (compute ? StreamPrefetch<false, true>
                                      : StreamPrefetch<false, false>);
        Report(name, timer.Median([&] {
          kernel<<<blocks, kThreads>>>(src, dst, n16);
        }),
               moved);
      }
    }
    if (argc > 2) {
      std::string ptx = ReadFile(argv[bf16 ? 2 : 1]);
      std::string pdl_ptx = WithPdlPrologue(ptx);
      CUdeviceptr in = reinterpret_cast<CUdeviceptr>(a);
      CUdeviceptr out = reinterpret_cast<CUdeviceptr>(b);
      std::snprintf(name, sizeof name, "%s hloc loop_fusion", t);
      Report(name, TimePtx(ptx, false, in, out, n16, timer), moved);
      std::snprintf(name, sizeof name, "%s hloc loop_fusion +pdl", t);
      Report(name, TimePtx(pdl_ptx, true, in, out, n16, timer), moved);
    }
  }
  return 0;
}
