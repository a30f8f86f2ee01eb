// What the CUDA-runtime probes share: the runtime API's error check (print
// where and why, then exit: a probe has nothing to recover) and reading a
// PTX file whole.
#ifndef TOOLS_GPU_BENCH_PROBES_PROBE_UTIL_H_
#define TOOLS_GPU_BENCH_PROBES_PROBE_UTIL_H_

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "check_cu.h"

#define CHECK(x)                                                        \
  do {                                                                  \
    cudaError_t e = (x);                                                \
    if (e != cudaSuccess) {                                             \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x,    \
                   cudaGetErrorString(e));                              \
      std::exit(1);                                                     \
    }                                                                   \
  } while (0)

inline std::string ReadFile(const char* path) {
  std::ifstream f(path);
  if (!f) {
    std::fprintf(stderr, "cannot read %s\n", path);
    std::exit(2);
  }
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

#endif  // TOOLS_GPU_BENCH_PROBES_PROBE_UTIL_H_
