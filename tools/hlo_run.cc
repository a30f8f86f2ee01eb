// hlo-run: runs an HLO module on .npy inputs and compares the results with
// expected .npy outputs. See tools/hlo_run_lib.h for the flags and exit
// statuses.
#include <iostream>
#include <string>
#include <vector>

#include "tools/hlo_run_lib.h"
#include "tools/out_of_memory.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  return hloc::ExitCleanlyOnOutOfMemory("hlo-run", [&] {
    return hloc::HloRunMain(args, std::cout, std::cerr);
  });
}
