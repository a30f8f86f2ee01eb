// compile-bench: HLO text -> PTX and -> object code, per module and phase.
// See tools/compile_bench_lib.h.
#include <iostream>
#include <string>
#include <vector>

#include "tools/compile_bench_lib.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  return hloc::CompileBenchMain(args, std::cout, std::cerr);
}
