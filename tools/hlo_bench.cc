// hlo-bench: the CPU backend's speed against a parallel memcpy, OpenBLAS and
// XLA:CPU, and its compile times. See tools/hlo_bench_lib.h.
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <system_error>
#include <vector>

#include "tools/hlo_bench_lib.h"
#include "tools/out_of_memory.h"

int main(int argc, char** argv) {
  // Run straight from bazel-bin, the corpus and the XLA helper are found
  // through this binary's runfiles tree.
  std::error_code ec;
  const std::string runfiles =
      std::filesystem::read_symlink("/proc/self/exe", ec).string() +
      ".runfiles";
  if (!ec && std::getenv("RUNFILES_DIR") == nullptr &&
      std::filesystem::is_directory(runfiles, ec)) {
    setenv("RUNFILES_DIR", runfiles.c_str(), 0);
  }
  std::vector<std::string> args(argv + 1, argv + argc);
  return hloc::ExitCleanlyOnOutOfMemory("hlo-bench", [&] {
    return hloc::HloBenchMain(args, std::cout, std::cerr);
  });
}
