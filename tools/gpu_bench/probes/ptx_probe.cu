// PTX kernel probe: times one entry of a PTX file (as hlo-opt --stage=ptx
// writes it, possibly edited by hand: a launch bound, a register limit) on
// buffers it fills itself, so that variants of a generated kernel can be
// compared on the GPU machine without building hloc there. A measuring
// tool for choosing the emitters' launch shapes, not part of the compiler.
//
//   nvcc -O3 -arch=sm_90 -o ptx_probe ptx_probe.cu -lcuda
//   ./ptx_probe FILE.ptx ENTRY GRID BLOCK BYTES_MOVED BUFFER...
//
// Each BUFFER is one pointer parameter of the entry, in order, as
// KIND:BYTES with KIND one of bf16 (values in [-2, 2)), f32 (the same
// range) or zero. The entry is launched with GRID x BLOCK threads (1-D),
// 3 times to warm up, then 15 samples of 20 launches back to back between
// CUDA events; the probe prints the median time per launch and
// BYTES_MOVED over it in GB/s.
#include <cuda.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "check_cu.h"

int main(int argc, char** argv) {
  if (argc < 7) {
    std::fprintf(stderr,
                 "usage: %s FILE.ptx ENTRY GRID BLOCK BYTES_MOVED "
                 "KIND:BYTES...\n",
                 argv[0]);
    return 2;
  }
  std::ifstream file(argv[1]);
  if (!file) {
    std::fprintf(stderr, "cannot read %s\n", argv[1]);
    return 2;
  }
  std::stringstream ptx;
  ptx << file.rdbuf();
  const unsigned grid = std::strtoul(argv[3], nullptr, 10);
  const unsigned block = std::strtoul(argv[4], nullptr, 10);
  const double moved = std::strtod(argv[5], nullptr);

  CHECK_CU(cuInit(0));
  CUdevice device;
  CHECK_CU(cuDeviceGet(&device, 0));
  CUcontext context;
  CHECK_CU(cuDevicePrimaryCtxRetain(&context, device));
  CHECK_CU(cuCtxSetCurrent(context));
  CUmodule module;
  CHECK_CU(cuModuleLoadData(&module, ptx.str().c_str()));
  CUfunction function;
  CHECK_CU(cuModuleGetFunction(&function, module, argv[2]));
  int registers = 0;
  CHECK_CU(cuFuncGetAttribute(&registers, CU_FUNC_ATTRIBUTE_NUM_REGS,
                              function));

  std::vector<CUdeviceptr> buffers;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> value(-2.f, 2.f);
  for (int i = 6; i < argc; ++i) {
    const char* colon = std::strchr(argv[i], ':');
    if (colon == nullptr) {
      std::fprintf(stderr, "bad buffer %s (KIND:BYTES)\n", argv[i]);
      return 2;
    }
    const std::string kind(argv[i], colon - argv[i]);
    const size_t bytes = std::strtoull(colon + 1, nullptr, 10);
    std::vector<uint8_t> host(bytes, 0);
    if (kind == "bf16") {
      for (size_t k = 0; k + 2 <= bytes; k += 2) {
        const float f = value(rng);
        uint32_t bits;
        std::memcpy(&bits, &f, 4);
        const uint16_t b = static_cast<uint16_t>(bits >> 16);
        std::memcpy(&host[k], &b, 2);
      }
    } else if (kind == "f32") {
      for (size_t k = 0; k + 4 <= bytes; k += 4) {
        const float f = value(rng);
        std::memcpy(&host[k], &f, 4);
      }
    } else if (kind != "zero") {
      std::fprintf(stderr, "bad buffer kind %s (bf16, f32, zero)\n",
                   kind.c_str());
      return 2;
    }
    CUdeviceptr d;
    CHECK_CU(cuMemAlloc(&d, std::max<size_t>(bytes, 16)));
    CHECK_CU(cuMemcpyHtoD(d, host.data(), bytes));
    buffers.push_back(d);
  }
  std::vector<void*> params;
  for (CUdeviceptr& d : buffers) params.push_back(&d);

  auto launch = [&]() {
    CHECK_CU(cuLaunchKernel(function, grid, 1, 1, block, 1, 1, 0, nullptr,
                            params.data(), nullptr));
  };
  for (int i = 0; i < 3; ++i) launch();
  CHECK_CU(cuCtxSynchronize());
  CUevent start, stop;
  CHECK_CU(cuEventCreate(&start, CU_EVENT_DEFAULT));
  CHECK_CU(cuEventCreate(&stop, CU_EVENT_DEFAULT));
  std::vector<float> samples;
  for (int s = 0; s < 15; ++s) {
    CHECK_CU(cuEventRecord(start, nullptr));
    for (int i = 0; i < 20; ++i) launch();
    CHECK_CU(cuEventRecord(stop, nullptr));
    CHECK_CU(cuEventSynchronize(stop));
    float ms = 0;
    CHECK_CU(cuEventElapsedTime(&ms, start, stop));
    samples.push_back(ms / 20);
  }
  std::sort(samples.begin(), samples.end());
  const double us = samples[samples.size() / 2] * 1e3;
  std::printf("%s %s: %.1f us, %.0f GB/s, %d registers\n", argv[1], argv[2],
              us, moved / us / 1e3, registers);
  return 0;
}
