#include <chrono>
#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>
#include "backends/cpu/cpu_compiler.h"
#include "hlo/text/parser.h"
int main(int argc, char** argv) {
  std::ifstream f(argv[1]); std::stringstream ss; ss << f.rdbuf();
  double flops = argc > 2 ? atof(argv[2]) : 0;
  auto m = hloc::ParseHloModule(ss.str(), argv[1]);
  if (!m.ok()) { printf("%s\n", std::string(m.status().message()).c_str()); return 1; }
  auto t0 = std::chrono::steady_clock::now();
  auto e = hloc::CompileForCpu(**m);
  if (!e.ok()) { printf("%s\n", std::string(e.status().message()).c_str()); return 1; }
  double ct = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::vector<hloc::Literal> args;
  std::mt19937 rng(1);
  for (int i = 0; i < (*m)->entry_computation()->num_parameters(); ++i) {
    hloc::Literal l((*m)->entry_computation()->parameter_instruction(i)->shape());
    for (int64_t j = 0; j < l.element_count(); ++j) l.SetFromDouble(j, std::uniform_real_distribution<double>(-1, 1)(rng));
    args.push_back(l);
  }
  (*e)->Run(args);
  double best = 1e9;
  for (int r = 0; r < 5; ++r) {
    auto s = std::chrono::steady_clock::now();
    auto res = (*e)->Run(args);
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - s).count());
  }
  printf("compile %.0f ms, run %.3f ms, fallbacks %zu", ct * 1e3, best * 1e3, (*e)->fallback_instructions().size());
  if (flops > 0) printf(", %.1f GFLOP/s", flops / best * 1e-9);
  printf("\n");
}
