// hloc._hloc_cuda: the cuda runtime alone, for a Python without hloc's
// compiler (the GPU machine's bundle, scripts/gpu_python_bundle.sh).
#include "nanobind/nanobind.h"
#include "python/cuda_bindings.h"
#include "python/status_error.h"

NB_MODULE(_hloc_cuda, m) {
  m.doc() = "hloc's cuda runtime (use the hloc package, not this)";
  hloc::RegisterHlocError();
  hloc::DefineCudaRuntime(m);
}
