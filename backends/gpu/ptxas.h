// Running NVIDIA's ptxas: assembling PTX into a cubin for one architecture,
// and checking PTX (tests). No LLVM.
#ifndef BACKENDS_GPU_PTXAS_H_
#define BACKENDS_GPU_PTXAS_H_

#include <string>

#include "absl/status/statusor.h"

namespace hloc {

// cuda_path/bin/ptxas if it is an executable file, else the first ptxas on
// $PATH; "" if there is none.
std::string FindPtxas(const std::string& cuda_path);

// `ptxas -arch=ARCH` on `ptx`; the cubin's bytes, or an error with ptxas's
// messages.
absl::StatusOr<std::string> RunPtxas(const std::string& ptxas,
                                     const std::string& ptx,
                                     const std::string& arch);

}  // namespace hloc

#endif  // BACKENDS_GPU_PTXAS_H_
