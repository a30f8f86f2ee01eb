// The Python bindings of hloc's cuda runtime (python/cuda_bindings.cc),
// defined into a module by whichever extension carries them.
#ifndef PYTHON_CUDA_BINDINGS_H_
#define PYTHON_CUDA_BINDINGS_H_

#include "nanobind/nanobind.h"

namespace hloc {

// CudaProgram, load, load_bytes and executable_platform into `m`. Their
// errors are StatusErrors: the extension registers RegisterHlocError
// (status_error.h) once.
void DefineCudaRuntime(nanobind::module_& m);

}  // namespace hloc

#endif  // PYTHON_CUDA_BINDINGS_H_
