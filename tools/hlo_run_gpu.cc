// hlo-run-gpu: hlo-run for a machine with a GPU and no LLVM. It links no
// code generator: it runs saved cuda and rocm executables (hlo-opt
// --platform=cuda|rocm --stage=executable -o m.hloexe) and modules on the
// interpreter, with
// hlo-run's flags, table and exit codes (tools/hlo_run_core.h).
#include <iostream>
#include <string>
#include <vector>

#include "tools/hlo_run_core.h"
#include "tools/hlo_run_cuda.h"
#include "tools/hlo_run_rocm.h"
#include "tools/out_of_memory.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  const hloc::HloRunPlatforms platforms = {
      hloc::InterpreterPlatform(),
      hloc::CudaHloRunPlatform(/*compiler=*/nullptr),
      hloc::RocmHloRunPlatform(/*compiler=*/nullptr)};
  return hloc::ExitCleanlyOnOutOfMemory("hlo-run-gpu", [&] {
    return hloc::HloRunMain(args, platforms, std::cout, std::cerr);
  });
}
