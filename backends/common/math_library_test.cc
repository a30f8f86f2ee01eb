// Accuracy of the vectorizable f32 exp, log and tanh (math_library.h): the
// emitted IR is put in a loop, JIT-compiled for the host (vectorized, with
// FMA where the host has it) and run over a dense sample of all 2^32 f32
// bit patterns, plus every float in windows around the thresholds (the
// overflow and underflow limits of exp, 1 for log, the end of tanh's
// approximation) and the special values. Errors are measured in f32 ulps of
// the exact result, against the double-precision libm functions.
//
// A second build rewrites every llvm.fmuladd into an fmul and an fadd, as a
// target without FMA would compute it, and must meet the same bounds.
//
// HLOC_MATH_EXHAUSTIVE=1 in the environment checks every f32 instead of the
// sample (about a minute per function and build on one core). Maximum
// errors over all floats, with FMA / without: exp 1.48 / 1.83 ulp (normal
// results), log 0.93 / 0.95, tanh 5.2 / 6.3.
#include "backends/common/math_library.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "backends/cpu/jit.h"
#include "gtest/gtest.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

namespace hloc {
namespace {

using Kernel = void (*)(const float* in, float* out, int64_t n);
using Emitter = llvm::Value* (*)(llvm::Value*, llvm::IRBuilderBase*);

float FromBits(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}
uint32_t ToBits(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  return bits;
}

// void NAME(const float* in, float* out, i64 n): out[i] = emit(in[i]) for
// i in [0, n). The loop vectorizer widens it as it widens a kernel.
void AddKernel(llvm::Module* module, const char* name, Emitter emit) {
  llvm::LLVMContext& context = module->getContext();
  llvm::Type* ptr = llvm::PointerType::get(context, 0);
  llvm::Type* i64 = llvm::Type::getInt64Ty(context);
  llvm::Function* fn = llvm::Function::Create(
      llvm::FunctionType::get(llvm::Type::getVoidTy(context), {ptr, ptr, i64},
                              false),
      llvm::GlobalValue::ExternalLinkage, name, module);
  fn->addParamAttr(0, llvm::Attribute::NoAlias);
  fn->addParamAttr(1, llvm::Attribute::NoAlias);
  auto* entry = llvm::BasicBlock::Create(context, "entry", fn);
  auto* loop = llvm::BasicBlock::Create(context, "loop", fn);
  auto* exit = llvm::BasicBlock::Create(context, "exit", fn);
  llvm::IRBuilder<> b(entry);
  b.CreateCondBr(b.CreateICmpSGT(fn->getArg(2), b.getInt64(0)), loop, exit);
  b.SetInsertPoint(loop);
  llvm::PHINode* i = b.CreatePHI(i64, 2);
  i->addIncoming(b.getInt64(0), entry);
  llvm::Type* f32 = b.getFloatTy();
  llvm::Value* x = b.CreateLoad(f32, b.CreateGEP(f32, fn->getArg(0), i));
  b.CreateStore(emit(x, &b), b.CreateGEP(f32, fn->getArg(1), i));
  llvm::Value* next = b.CreateAdd(i, b.getInt64(1));
  i->addIncoming(next, loop);
  b.CreateCondBr(b.CreateICmpSLT(next, fn->getArg(2)), loop, exit);
  b.SetInsertPoint(exit);
  b.CreateRetVoid();
}

// Replaces llvm.fmuladd(a, b, c) by a*b + c, two roundings: what a target
// without FMA computes.
void SplitFmuladd(llvm::Module* module) {
  std::vector<llvm::IntrinsicInst*> calls;
  for (llvm::Function& f : *module) {
    for (llvm::BasicBlock& block : f) {
      for (llvm::Instruction& inst : block) {
        auto* call = llvm::dyn_cast<llvm::IntrinsicInst>(&inst);
        if (call && call->getIntrinsicID() == llvm::Intrinsic::fmuladd)
          calls.push_back(call);
      }
    }
  }
  for (llvm::IntrinsicInst* call : calls) {
    llvm::IRBuilder<> b(call);
    llvm::Value* sum = b.CreateFAdd(
        b.CreateFMul(call->getArgOperand(0), call->getArgOperand(1)),
        call->getArgOperand(2));
    call->replaceAllUsesWith(sum);
    call->eraseFromParent();
  }
}

struct Kernels {
  std::unique_ptr<JitModule> jit;
  Kernel exp = nullptr;
  Kernel log = nullptr;
  Kernel tanh = nullptr;
};

Kernels Compile(bool with_fmuladd) {
  auto context = std::make_unique<llvm::LLVMContext>();
  auto module = std::make_unique<llvm::Module>("math", *context);
  AddKernel(module.get(), "exp_f32", &EmitFastExpF32);
  AddKernel(module.get(), "log_f32", &EmitFastLogF32);
  AddKernel(module.get(), "tanh_f32", &EmitFastTanhF32);
  if (!with_fmuladd) SplitFmuladd(module.get());
  Kernels k;
  auto jit = JitModule::Create(std::move(context), std::move(module), {});
  EXPECT_TRUE(jit.ok()) << jit.status();
  if (!jit.ok()) return k;
  k.jit = std::move(*jit);
  auto lookup = [&](const char* name) -> Kernel {
    auto address = k.jit->Lookup(name);
    EXPECT_TRUE(address.ok()) << address.status();
    return address.ok() ? reinterpret_cast<Kernel>(*address) : nullptr;
  };
  k.exp = lookup("exp_f32");
  k.log = lookup("log_f32");
  k.tanh = lookup("tanh_f32");
  return k;
}

const Kernels& WithFma() {
  static const Kernels* k = new Kernels(Compile(true));
  return *k;
}
const Kernels& WithoutFma() {
  static const Kernels* k = new Kernels(Compile(false));
  return *k;
}

float Apply(Kernel kernel, float x) {
  float y;
  kernel(&x, &y, 1);
  return y;
}

// |actual - exact| in ulps of the f32 grid at `exact` (spacing 2^-149 below
// FLT_MIN). A result of the wrong class (NaN, an infinity where the exact
// value rounds to a finite float, or the reverse) is an infinite error.
double UlpError(float actual, double exact) {
  if (std::isnan(exact) || std::isnan(actual))
    return std::isnan(exact) && std::isnan(actual)
               ? 0
               : std::numeric_limits<double>::infinity();
  float rounded = static_cast<float>(exact);
  if (std::isinf(rounded) || std::isinf(actual))
    return rounded == actual ? 0 : std::numeric_limits<double>::infinity();
  int e;
  std::frexp(exact, &e);  // |exact| in [2^(e-1), 2^e)
  double ulp = std::ldexp(1.0, std::max(e - 1, -126) - 23);
  return std::fabs(static_cast<double>(actual) - exact) / ulp;
}

// One function's accuracy contract over a range of inputs.
struct Range {
  const char* name;
  double lo, hi;  // inputs x with lo <= x <= hi
  double max_ulp;
  // Exact results below FLT_MIN in magnitude may come back as 0.
  bool denormal_may_flush = false;
};

struct RangeStats {
  double max_err = 0;
  float worst_x = 0;
  float worst_y = 0;
  int64_t count = 0;
  int64_t flushed = 0;
};

struct FunctionCase {
  const char* name;
  Kernel Kernels::*kernel;
  double (*exact)(double);
  std::vector<Range> ranges;
  // Every float within 2^16 ulps of these is checked, whatever the
  // sampling stride.
  std::vector<float> hot_spots;
};

// Checks the inputs `xs` against the ranges, accumulating into `stats`.
void Check(const FunctionCase& fc, Kernel kernel, const std::vector<float>& xs,
           std::vector<RangeStats>* stats) {
  if (xs.empty()) return;
  std::vector<float> ys(xs.size());
  kernel(xs.data(), ys.data(), static_cast<int64_t>(xs.size()));
  for (size_t i = 0; i < xs.size(); ++i) {
    float x = xs[i];
    if (std::isnan(x)) continue;  // checked with the special values
    for (size_t r = 0; r < fc.ranges.size(); ++r) {
      const Range& range = fc.ranges[r];
      if (!(x >= range.lo && x <= range.hi)) continue;
      RangeStats& s = (*stats)[r];
      ++s.count;
      double exact = fc.exact(x);
      if (range.denormal_may_flush && std::fabs(exact) < FLT_MIN &&
          ys[i] == 0) {
        ++s.flushed;
        break;
      }
      double err = UlpError(ys[i], exact);
      if (err > s.max_err || std::isnan(err)) {
        s.max_err = err;
        s.worst_x = x;
        s.worst_y = ys[i];
      }
      break;
    }
  }
}

bool Exhaustive() {
  const char* env = std::getenv("HLOC_MATH_EXHAUSTIVE");
  return env != nullptr && std::string(env) == "1";
}

// Runs `fc` over every `stride`-th bit pattern and every float near its hot
// spots; reports and checks the maximum error of each range.
void Sweep(const FunctionCase& fc, const Kernels& kernels, const char* build) {
  Kernel kernel = kernels.*(fc.kernel);
  ASSERT_NE(kernel, nullptr);
  const uint64_t stride = Exhaustive() ? 1 : 61;  // 70M samples
  const int64_t window = 1 << 16;
  std::vector<RangeStats> stats(fc.ranges.size());
  std::vector<float> xs;
  xs.reserve(1 << 16);
  auto flush = [&] {
    Check(fc, kernel, xs, &stats);
    xs.clear();
  };
  auto add = [&](float x) {
    xs.push_back(x);
    if (xs.size() == xs.capacity()) flush();
  };
  for (uint64_t bits = 0; bits < (uint64_t{1} << 32); bits += stride)
    add(FromBits(static_cast<uint32_t>(bits)));
  if (!Exhaustive()) {
    for (float spot : fc.hot_spots) {
      int64_t center = ToBits(spot);
      for (int64_t d = -window; d <= window; ++d) {
        int64_t bits = center + d;
        if (bits >= 0 && bits < (int64_t{1} << 32))
          add(FromBits(static_cast<uint32_t>(bits)));
      }
    }
  }
  flush();
  for (size_t r = 0; r < fc.ranges.size(); ++r) {
    const Range& range = fc.ranges[r];
    const RangeStats& s = stats[r];
    std::string worst =
        s.max_err > 0 ? absl::StrFormat(" (x=%.9g -> %.9g, exact %.9g)",
                                        s.worst_x, s.worst_y,
                                        fc.exact(s.worst_x))
                      : "";
    std::string flushed =
        range.denormal_may_flush
            ? absl::StrCat(", ", s.flushed, " flushed to 0")
            : "";
    std::printf("%-4s %-7s %-38s max %.3f ulp%s over %lld inputs%s\n",
                fc.name, build, range.name, s.max_err, worst.c_str(),
                static_cast<long long>(s.count), flushed.c_str());
    EXPECT_LE(s.max_err, range.max_ulp)
        << fc.name << " (" << build << ") " << range.name
        << ": worst input " << s.worst_x << " gave " << s.worst_y
        << ", exact " << fc.exact(s.worst_x);
    EXPECT_GT(s.count, 0) << range.name;
  }
}

constexpr double kInf = std::numeric_limits<double>::infinity();

// exp overflows from 88.72283935546875 (the first float above 128 ln 2)
// and its exact result is below FLT_MIN from -87.33654785 (below -126 ln 2).
FunctionCase ExpCase() {
  return {"exp",
          &Kernels::exp,
          [](double x) { return std::exp(x); },
          {
              {"[-inf, -87.34) (denormal or 0 result)", -kInf,
               -87.3365478515625, 2, true},
              {"[-87.34, 88.72] (normal result)", -87.33654022216797,
               88.72283172607422, 2},
              {"(88.72, inf] (overflow to inf)", 88.72283935546875, kInf, 0},
          },
          {0.0f, -0.0f, 88.72283935546875f, -87.33654022216797f,
           -103.972084f, 1.0f, -1.0f, 0.34657359f, -0.34657359f}};
}

FunctionCase LogCase() {
  return {"log",
          &Kernels::log,
          [](double x) { return std::log(x); },
          {
              {"[-inf, 0) (NaN)", -kInf, -FLT_TRUE_MIN, 0},
              {"[0, FLT_MIN) (denormal input)", 0, double{FLT_MIN} - FLT_TRUE_MIN, 2},
              {"[FLT_MIN, inf]", FLT_MIN, kInf, 2},
          },
          {1.0f, 0.70710678f, 1.41421356f, FLT_MIN, 0.0f, 2.0f, 0.5f}};
}

// tanh is odd and rounds to +-1 from 9.02 on. The rational approximation
// it replaced (Eigen's coefficients) reached 6.9 ulp over all floats; this
// one reaches 5.2 with FMA and 6.3 without (the roundings of P and Q
// dominate, for results just below 1).
FunctionCase TanhCase() {
  return {"tanh",
          &Kernels::tanh,
          [](double x) { return std::tanh(x); },
          {
              {"[-inf, 0)", -kInf, -FLT_TRUE_MIN, 6.5},
              {"[0, 0.5]", 0, 0.5, 6.5},
              {"(0.5, 4]", 0.5, 4, 6.5},
              {"(4, inf]", 4, kInf, 6.5},
          },
          {0.0f, -0.0f, 9.02f, -9.02f, 9.5f, -9.5f, 0.5f, 4.0f, FLT_MIN}};
}

TEST(MathLibraryTest, ExpAccuracy) {
  Sweep(ExpCase(), WithFma(), "fma");
}
TEST(MathLibraryTest, LogAccuracy) {
  Sweep(LogCase(), WithFma(), "fma");
}
TEST(MathLibraryTest, TanhAccuracy) {
  Sweep(TanhCase(), WithFma(), "fma");
}
TEST(MathLibraryTest, ExpAccuracyWithoutFma) {
  Sweep(ExpCase(), WithoutFma(), "no-fma");
}
TEST(MathLibraryTest, LogAccuracyWithoutFma) {
  Sweep(LogCase(), WithoutFma(), "no-fma");
}
TEST(MathLibraryTest, TanhAccuracyWithoutFma) {
  Sweep(TanhCase(), WithoutFma(), "no-fma");
}

// The special values, bit for bit (sign of zero included).
void ExpectSame(float actual, float expected, const char* what) {
  if (std::isnan(expected)) {
    EXPECT_TRUE(std::isnan(actual)) << what << " gave " << actual;
  } else {
    EXPECT_EQ(ToBits(actual), ToBits(expected))
        << what << " gave " << actual << ", expected " << expected;
  }
}

TEST(MathLibraryTest, SpecialValues) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (const Kernels* k : {&WithFma(), &WithoutFma()}) {
    ExpectSame(Apply(k->exp, nan), nan, "exp(NaN)");
    ExpectSame(Apply(k->exp, -nan), nan, "exp(-NaN)");
    ExpectSame(Apply(k->exp, inf), inf, "exp(inf)");
    ExpectSame(Apply(k->exp, -inf), 0.0f, "exp(-inf)");
    ExpectSame(Apply(k->exp, 0.0f), 1.0f, "exp(0)");
    ExpectSame(Apply(k->exp, -0.0f), 1.0f, "exp(-0)");
    ExpectSame(Apply(k->exp, 89.0f), inf, "exp(89)");
    ExpectSame(Apply(k->exp, FLT_MAX), inf, "exp(FLT_MAX)");
    ExpectSame(Apply(k->exp, -FLT_MAX), 0.0f, "exp(-FLT_MAX)");
    ExpectSame(Apply(k->exp, -200.0f), 0.0f, "exp(-200)");

    ExpectSame(Apply(k->log, nan), nan, "log(NaN)");
    ExpectSame(Apply(k->log, inf), inf, "log(inf)");
    ExpectSame(Apply(k->log, -inf), nan, "log(-inf)");
    ExpectSame(Apply(k->log, -1.0f), nan, "log(-1)");
    ExpectSame(Apply(k->log, -FLT_TRUE_MIN), nan, "log(-denormal)");
    ExpectSame(Apply(k->log, 0.0f), -inf, "log(0)");
    ExpectSame(Apply(k->log, -0.0f), -inf, "log(-0)");
    ExpectSame(Apply(k->log, 1.0f), 0.0f, "log(1)");

    ExpectSame(Apply(k->tanh, nan), nan, "tanh(NaN)");
    ExpectSame(Apply(k->tanh, inf), 1.0f, "tanh(inf)");
    ExpectSame(Apply(k->tanh, -inf), -1.0f, "tanh(-inf)");
    ExpectSame(Apply(k->tanh, 0.0f), 0.0f, "tanh(0)");
    ExpectSame(Apply(k->tanh, -0.0f), -0.0f, "tanh(-0)");
    ExpectSame(Apply(k->tanh, FLT_TRUE_MIN), FLT_TRUE_MIN, "tanh(denormal)");
    ExpectSame(Apply(k->tanh, -FLT_TRUE_MIN), -FLT_TRUE_MIN, "tanh(-denormal)");
    ExpectSame(Apply(k->tanh, 20.0f), 1.0f, "tanh(20)");
    ExpectSame(Apply(k->tanh, -20.0f), -1.0f, "tanh(-20)");
  }
}

}  // namespace
}  // namespace hloc
