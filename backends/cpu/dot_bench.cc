// dot_bench: GFLOP/s of the CPU backend's generated f32 matrix product,
// beside OpenBLAS's sgemm in the same process when libopenblas.so.0 can be
// loaded (Debian: libopenblas0 / libopenblas-dev; it is only looked up at
// run time, never linked).
//
//   dot_bench [M [K [N]]] [--reps=R] [--ta] [--tb]
//
// Default 1024 1024 1024, 10 reps; --ta / --tb store A / B transposed
// (column-major layouts), and sgemm is told so.
//
// "kernel" times the generated kernel alone on preallocated buffers (what
// sgemm is timed on); "run" is CpuExecutable::Run, which also copies the
// arguments in and the result out. Best of R runs after a warm-up; threads
// as OpenMP and OpenBLAS are configured (OMP_NUM_THREADS,
// OPENBLAS_NUM_THREADS).
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/cpu/cpu_compiler.h"
#include "hlo/text/parser.h"

namespace {

using Clock = std::chrono::steady_clock;

template <typename Fn>
double BestSeconds(int reps, Fn fn) {
  fn();
  double best = 1e30;
  for (int i = 0; i < reps; ++i) {
    auto start = Clock::now();
    fn();
    best = std::min(
        best, std::chrono::duration<double>(Clock::now() - start).count());
  }
  return best;
}

// cblas_sgemm(RowMajor=101, NoTrans=111, ...).
using SgemmFn = void (*)(int, int, int, int, int, int, float, const float*, int,
                         const float*, int, float, float*, int);

}  // namespace

int main(int argc, char** argv) {
  std::vector<int64_t> dims;
  int reps = 10;
  bool ta = false, tb = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--ta") {
      ta = true;
    } else if (arg == "--tb") {
      tb = true;
    } else if (arg.rfind("--reps=", 0) == 0) {
      reps = std::max(1, std::atoi(arg.c_str() + 7));
    } else if (!arg.empty() && arg[0] != '-') {
      dims.push_back(std::atoll(arg.c_str()));
    } else {
      std::fprintf(stderr,
                   "usage: dot_bench [M [K [N]]] [--reps=R] [--ta] [--tb]\n");
      return 1;
    }
  }
  const int64_t m = dims.size() > 0 ? dims[0] : 1024;
  const int64_t k = dims.size() > 1 ? dims[1] : m;
  const int64_t n = dims.size() > 2 ? dims[2] : k;
  const std::string text = absl::StrCat(
      "HloModule dot_bench\nENTRY main {\n  a = f32[", m, ",", k, "]",
      ta ? "{0,1}" : "", " parameter(0)\n  b = f32[", k, ",", n, "]",
      tb ? "{0,1}" : "", " parameter(1)\n  ROOT d = f32[", m, ",", n,
      "] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n");
  auto module = hloc::ParseHloModule(text, "dot_bench");
  if (!module.ok()) {
    std::fprintf(stderr, "%s\n",
                 std::string(module.status().message()).c_str());
    return 1;
  }
  auto compile_start = Clock::now();
  auto executable = hloc::CompileForCpu(**module);
  if (!executable.ok()) {
    std::fprintf(stderr, "%s\n",
                 std::string(executable.status().message()).c_str());
    return 1;
  }
  const double compile_s =
      std::chrono::duration<double>(Clock::now() - compile_start).count();
  const hloc::CpuExecutable& exe = **executable;
  if (!exe.fallback_instructions().empty() || exe.steps().size() != 1) {
    std::fprintf(stderr, "the dot did not compile to one kernel\n");
    return 1;
  }

  hloc::Literal a(hloc::Shape::Array(hloc::F32, {m, k}));
  hloc::Literal b(hloc::Shape::Array(hloc::F32, {k, n}));
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (float& x : a.data<float>()) x = dist(rng);
  for (float& x : b.data<float>()) x = dist(rng);
  std::vector<float> c(m * n), c_blas(m * n);
  const double flops = 2.0 * m * n * k;
  std::printf("f32 dot %lldx%lldx%lld%s%s on %s, compile %.0f ms\n",
              static_cast<long long>(m), static_cast<long long>(k),
              static_cast<long long>(n), ta ? " A^T" : "", tb ? " B^T" : "",
              exe.cpu_name().c_str(), compile_s * 1e3);

  void* buffers[3] = {a.data<float>().data(), b.data<float>().data(), c.data()};
  void (*kernel)(void**) = exe.steps()[0].kernel;
  const double kernel_s = BestSeconds(reps, [&] { kernel(buffers); });
  std::printf("hloc kernel:   %8.1f GFLOP/s  (%.3f ms)\n",
              flops / kernel_s * 1e-9, kernel_s * 1e3);
  std::vector<hloc::Literal> args;
  args.push_back(a);
  args.push_back(b);
  const double run_s = BestSeconds(reps, [&] {
    auto r = (*executable)->Run(args);
    if (!r.ok()) std::abort();
  });
  std::printf("hloc run:      %8.1f GFLOP/s  (%.3f ms)\n", flops / run_s * 1e-9,
              run_s * 1e3);

  void* blas = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
  SgemmFn sgemm =
      blas ? reinterpret_cast<SgemmFn>(dlsym(blas, "cblas_sgemm")) : nullptr;
  if (sgemm == nullptr) {
    std::printf("OpenBLAS:      not available (libopenblas.so.0 not found)\n");
    return 0;
  }
  const double blas_s = BestSeconds(reps, [&] {
    // Row-major C; a transposed operand is the row-major transpose (112).
    sgemm(101, ta ? 112 : 111, tb ? 112 : 111, m, n, k, 1.0f,
          a.data<float>().data(), ta ? m : k, b.data<float>().data(),
          tb ? k : n, 0.0f, c_blas.data(), n);
  });
  double max_diff = 0;
  for (int64_t i = 0; i < m * n; ++i) {
    max_diff = std::max(max_diff, std::fabs(double{c[i]} - c_blas[i]));
  }
  std::printf("OpenBLAS:      %8.1f GFLOP/s  (%.3f ms)\n",
              flops / blas_s * 1e-9, blas_s * 1e3);
  std::printf("hloc kernel / OpenBLAS: %.0f%%  (max |difference| %.2g)\n",
              100.0 * blas_s / kernel_s, max_diff);
  return 0;
}
