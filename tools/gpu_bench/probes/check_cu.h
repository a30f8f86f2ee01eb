// The probes' one error check of a CUDA driver call: print where and why,
// then exit (a probe has nothing to recover).
#ifndef TOOLS_GPU_BENCH_PROBES_CHECK_CU_H_
#define TOOLS_GPU_BENCH_PROBES_CHECK_CU_H_

#include <cuda.h>

#include <cstdio>
#include <cstdlib>

#define CHECK_CU(x)                                                       \
  do {                                                                    \
    CUresult e = (x);                                                     \
    if (e != CUDA_SUCCESS) {                                              \
      const char* s = nullptr;                                            \
      cuGetErrorString(e, &s);                                            \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, s);  \
      std::exit(1);                                                       \
    }                                                                     \
  } while (0)

#endif  // TOOLS_GPU_BENCH_PROBES_CHECK_CU_H_
