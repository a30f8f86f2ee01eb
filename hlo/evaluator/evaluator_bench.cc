// Times the reference evaluator on a few large modules and prints a table:
// a 1024x1024x1024 f32 dot, a five-op elementwise chain over f32[16777216]
// (unfused, and as one kLoop fusion), a row reduction and a transpose.
// Each case runs --reps times (default 3); the table shows the fastest run.
// --only=TEXT runs the cases whose name contains TEXT.
//
//   bazel run //hlo/evaluator:evaluator_bench -- --reps=5
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "hlo/evaluator/evaluator.h"
#include "hlo/text/parser.h"

namespace hloc {
namespace {

struct Case {
  std::string name;
  std::string hlo;
  std::vector<Shape> params;
  double work;            // flops or bytes moved
  const char* work_unit;  // "GFLOP/s" or "GB/s"
};

Literal Filled(const Shape& shape, uint32_t seed) {
  Literal lit(shape);
  float* data = lit.data<float>().data();
  uint32_t x = seed * 2654435761u + 1;
  for (int64_t i = 0; i < lit.element_count(); ++i) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    data[i] = static_cast<float>(x % 2000) / 1000.0f - 1.0f;
  }
  return lit;
}

const char* kChain = R"(
HloModule chain
ENTRY e {
  x = f32[16777216] parameter(0)
  c1 = f32[] constant(1.5)
  c2 = f32[] constant(-0.25)
  z = f32[] constant(0)
  c3 = f32[] constant(0.5)
  b1 = f32[16777216] broadcast(c1), dimensions={}
  b2 = f32[16777216] broadcast(c2), dimensions={}
  bz = f32[16777216] broadcast(z), dimensions={}
  b3 = f32[16777216] broadcast(c3), dimensions={}
  m = f32[16777216] multiply(x, b1)
  a = f32[16777216] add(m, b2)
  r = f32[16777216] maximum(a, bz)
  e = f32[16777216] exponential(r)
  ROOT s = f32[16777216] subtract(e, b3)
})";

const char* kChainFused = R"(
HloModule chain_fused
fused {
  x = f32[16777216] parameter(0)
  c1 = f32[] constant(1.5)
  c2 = f32[] constant(-0.25)
  z = f32[] constant(0)
  c3 = f32[] constant(0.5)
  b1 = f32[16777216] broadcast(c1), dimensions={}
  b2 = f32[16777216] broadcast(c2), dimensions={}
  bz = f32[16777216] broadcast(z), dimensions={}
  b3 = f32[16777216] broadcast(c3), dimensions={}
  m = f32[16777216] multiply(x, b1)
  a = f32[16777216] add(m, b2)
  r = f32[16777216] maximum(a, bz)
  e = f32[16777216] exponential(r)
  ROOT s = f32[16777216] subtract(e, b3)
}
ENTRY e {
  x = f32[16777216] parameter(0)
  ROOT f = f32[16777216] fusion(x), kind=kLoop, calls=fused
})";

int Main(int argc, char** argv) {
  int reps = 3;
  std::string only;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--reps=", 7) == 0) {
      reps = std::max(1, std::atoi(argv[i] + 7));
    } else if (std::strncmp(argv[i], "--only=", 7) == 0) {
      only = argv[i] + 7;
    } else {
      std::fprintf(stderr, "usage: evaluator_bench [--reps=N] [--only=TEXT]\n");
      return 2;
    }
  }
  const double n16m = 16777216.0;
  std::vector<Case> cases = {
      {"dot f32[1024,1024] x f32[1024,1024]",
       R"(
HloModule dot
ENTRY e {
  a = f32[1024,1024] parameter(0)
  b = f32[1024,1024] parameter(1)
  ROOT d = f32[1024,1024] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})",
       {Shape::Array(F32, {1024, 1024}), Shape::Array(F32, {1024, 1024})},
       2.0 * 1024 * 1024 * 1024,
       "GFLOP/s"},
      {"5-op chain f32[16777216] (mul,add,max,exp,sub)",
       kChain,
       {Shape::Array(F32, {16777216})},
       2 * 4 * n16m,
       "GB/s"},
      {"same chain as one kLoop fusion",
       kChainFused,
       {Shape::Array(F32, {16777216})},
       2 * 4 * n16m,
       "GB/s"},
      {"reduce-sum f32[4096,4096] over dim 1",
       R"(
HloModule red
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  a = f32[4096,4096] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[4096] reduce(a, z), dimensions={1}, to_apply=add
})",
       {Shape::Array(F32, {4096, 4096})},
       4 * n16m,
       "GB/s"},
      {"transpose f32[4096,4096]",
       R"(
HloModule tr
ENTRY e {
  a = f32[4096,4096] parameter(0)
  ROOT t = f32[4096,4096] transpose(a), dimensions={1,0}
})",
       {Shape::Array(F32, {4096, 4096})},
       2 * 4 * n16m,
       "GB/s"},
      {"argmax f32[4096,4096] over dim 1 (variadic)",
       R"(
HloModule argmax
argmax {
  v0 = f32[] parameter(0)
  i0 = s32[] parameter(1)
  v1 = f32[] parameter(2)
  i1 = s32[] parameter(3)
  gt = pred[] compare(v0, v1), direction=GT
  eq = pred[] compare(v0, v1), direction=EQ
  lt = pred[] compare(i0, i1), direction=LT
  tie = pred[] and(eq, lt)
  pick = pred[] or(gt, tie)
  v = f32[] select(pick, v0, v1)
  i = s32[] select(pick, i0, i1)
  ROOT t = (f32[], s32[]) tuple(v, i)
}
ENTRY e {
  a = f32[4096,4096] parameter(0)
  i = s32[4096,4096] iota(), iota_dimension=1
  lo = f32[] constant(-inf)
  z = s32[] constant(0)
  ROOT r = (f32[4096], s32[4096]) reduce(a, i, lo, z), dimensions={1}, to_apply=argmax
})",
       {Shape::Array(F32, {4096, 4096})},
       4 * n16m,
       "GB/s"},
      {"sort f32[1048576] (JAX's NaN-aware comparator)",
       R"(
HloModule sort
cmp {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  nan = f32[] constant(nan)
  zero = f32[] constant(0)
  a_nan = pred[] compare(a, a), direction=NE
  a_zero = pred[] compare(a, zero), direction=EQ
  a0 = f32[] select(a_zero, zero, a)
  ac = f32[] select(a_nan, nan, a0)
  b_nan = pred[] compare(b, b), direction=NE
  b_zero = pred[] compare(b, zero), direction=EQ
  b0 = f32[] select(b_zero, zero, b)
  bc = f32[] select(b_nan, nan, b0)
  ROOT lt = pred[] compare(ac, bc), direction=LT, type=TOTALORDER
}
ENTRY e {
  x = f32[1048576] parameter(0)
  ROOT s = f32[1048576] sort(x), dimensions={0}, is_stable=true, to_apply=cmp
})",
       {Shape::Array(F32, {1048576})},
       2 * 4 * 1048576.0,
       "GB/s"},
  };

  std::printf("hloc reference evaluator, %u hardware threads, best of %d\n\n",
              std::thread::hardware_concurrency(), reps);
  std::printf("| %-46s | %10s | %12s |\n", "case", "time (ms)", "rate");
  std::printf("|%s|%s|%s|\n", std::string(48, '-').c_str(),
              std::string(12, '-').c_str(), std::string(14, '-').c_str());
  for (const Case& c : cases) {
    if (!only.empty() && c.name.find(only) == std::string::npos) continue;
    auto module = ParseHloModule(c.hlo, c.name);
    if (!module.ok()) {
      std::fprintf(stderr, "%s: %s\n", c.name.c_str(),
                   std::string(module.status().message()).c_str());
      return 1;
    }
    std::vector<Literal> args;
    for (size_t i = 0; i < c.params.size(); ++i) {
      args.push_back(Filled(c.params[i], static_cast<uint32_t>(i + 1)));
    }
    double best = 1e30;
    for (int r = 0; r < reps; ++r) {
      auto start = std::chrono::steady_clock::now();
      absl::StatusOr<Literal> result = EvaluateModule(**module, args);
      auto end = std::chrono::steady_clock::now();
      if (!result.ok()) {
        std::fprintf(stderr, "%s: %s\n", c.name.c_str(),
                     std::string(result.status().message()).c_str());
        return 1;
      }
      best = std::min(best, std::chrono::duration<double>(end - start).count());
    }
    std::printf("| %-46s | %10.1f | %6.2f %-7s|\n", c.name.c_str(), best * 1e3,
                c.work / best / 1e9, c.work_unit);
  }
  return 0;
}

}  // namespace
}  // namespace hloc

int main(int argc, char** argv) { return hloc::Main(argc, argv); }
