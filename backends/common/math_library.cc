#include "backends/common/math_library.h"

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/Module.h"

namespace hloc {
namespace {

const char* BaseName(MathFunction fn) {
  switch (fn) {
    case MathFunction::kAcos:
      return "acos";
    case MathFunction::kAcosh:
      return "acosh";
    case MathFunction::kAsin:
      return "asin";
    case MathFunction::kAsinh:
      return "asinh";
    case MathFunction::kAtan:
      return "atan";
    case MathFunction::kAtan2:
      return "atan2";
    case MathFunction::kAtanh:
      return "atanh";
    case MathFunction::kCbrt:
      return "cbrt";
    case MathFunction::kCos:
      return "cos";
    case MathFunction::kCosh:
      return "cosh";
    case MathFunction::kErf:
      return "erf";
    case MathFunction::kExp:
      return "exp";
    case MathFunction::kExpm1:
      return "expm1";
    case MathFunction::kFmod:
      return "fmod";
    case MathFunction::kLog:
      return "log";
    case MathFunction::kLog1p:
      return "log1p";
    case MathFunction::kPow:
      return "pow";
    case MathFunction::kSin:
      return "sin";
    case MathFunction::kSinh:
      return "sinh";
    case MathFunction::kTan:
      return "tan";
    case MathFunction::kTanh:
      return "tanh";
  }
  return "?";
}

llvm::Value* F32(llvm::IRBuilderBase* b, double v) {
  return llvm::ConstantFP::get(b->getFloatTy(), v);
}

// a * m + c through llvm.fmuladd: one fused multiply-add where the target
// has FMA (x86 with FMA3, every AArch64), a multiply and an add elsewhere.
// (llvm.fma would be exact everywhere, but becomes a libm call without FMA,
// which the loop vectorizer cannot widen.) The approximations below are
// accurate either way; math_library_test checks both.
llvm::Value* MulAdd(llvm::Value* a, llvm::Value* m, llvm::Value* c,
                    llvm::IRBuilderBase* b) {
  return b->CreateIntrinsic(llvm::Intrinsic::fmuladd, {a->getType()},
                            {a, m, c});
}

// c[0]*x^(n-1) + ... + c[n-1] by Horner's scheme, one MulAdd per step.
llvm::Value* Horner(llvm::Value* x, std::initializer_list<double> c,
                    llvm::IRBuilderBase* b) {
  auto it = c.begin();
  llvm::Value* acc = F32(b, *it++);
  for (; it != c.end(); ++it) acc = MulAdd(acc, x, F32(b, *it), b);
  return acc;
}

// max(x, lo) and min(x, hi) as selects that keep a NaN x (the comparison
// is false for NaN). x86 does each in one maxps/minps, which return their
// second operand when either is NaN; llvm.maxnum would drop the NaN, and
// llvm.maximum costs a NaN test and a blend more.
llvm::Value* AtLeast(llvm::Value* x, double lo, llvm::IRBuilderBase* b) {
  llvm::Value* c = F32(b, lo);
  return b->CreateSelect(b->CreateFCmpOLT(x, c), c, x);
}
llvm::Value* AtMost(llvm::Value* x, double hi, llvm::IRBuilderBase* b) {
  llvm::Value* c = F32(b, hi);
  return b->CreateSelect(b->CreateFCmpOGT(x, c), c, x);
}

llvm::Value* BitsOf(llvm::Value* f, llvm::IRBuilderBase* b) {
  return b->CreateBitCast(f, b->getInt32Ty());
}
llvm::Value* FloatOf(llvm::Value* bits, llvm::IRBuilderBase* b) {
  return b->CreateBitCast(bits, b->getFloatTy());
}

// ln 2 split for Cody-Waite reduction: kLn2Hi = 45426 * 2^-16 has 16
// significant bits, so k * kLn2Hi is exact in f32 for |k| < 2^8 even when
// the multiply is not fused; kLn2Lo = ln 2 - kLn2Hi (about 1.43e-6) is
// rounded to f32, an error of 2^-24 relative on a term that small.
constexpr double kLn2 = 0.69314718055994530942;
constexpr double kLn2Hi = 45426.0 / 65536.0;
constexpr double kLn2Lo = kLn2 - kLn2Hi;

}  // namespace

std::string MathLibrary::FunctionName(MathFunction fn, llvm::Type* type) const {
  std::string name = BaseName(fn);
  if (type->isFloatTy()) name += "f";
  return name;
}

llvm::Value* MathLibrary::EmitCall(MathFunction fn,
                                   absl::Span<llvm::Value* const> args,
                                   llvm::Module* module,
                                   llvm::IRBuilderBase* b) const {
  llvm::Type* type = args[0]->getType();
  std::vector<llvm::Type*> params(args.size(), type);
  llvm::FunctionType* fn_type = llvm::FunctionType::get(type, params, false);
  llvm::FunctionCallee callee =
      module->getOrInsertFunction(FunctionName(fn, type), fn_type);
  if (auto* f = llvm::dyn_cast<llvm::Function>(callee.getCallee())) {
    // Pure: errno is not part of HLO's semantics, and a pure call can be
    // hoisted, sunk and deleted like arithmetic.
    f->setDoesNotThrow();
    f->setDoesNotAccessMemory();
    f->setWillReturn();
  }
  return b->CreateCall(callee,
                       std::vector<llvm::Value*>(args.begin(), args.end()));
}

llvm::Value* MathLibrary::Emit(MathFunction fn,
                               absl::Span<llvm::Value* const> args,
                               llvm::Module* module,
                               llvm::IRBuilderBase* b) const {
  return EmitCall(fn, args, module, b);
}

// cbrt through libm, with denormal arguments rescaled in integers first:
// the CPU kernels run with x86's DAZ set, under which libm's cbrt misreads
// a denormal (cbrtf(1e-45) = -5.6e-16, the wrong sign). A denormal is
// m * 2^-149 = 2m * 2^-150 (f32) or m * 2^-1074 (f64) with an integer m, so
// its cube root is cbrt(2m) * 2^-50 or cbrt(m) * 2^-358; the integer to
// float conversion and the scaling see no denormal, so the result is the
// IEEE one in either mode.
llvm::Value* HostMathLibrary::EmitCbrt(llvm::Value* x, llvm::Module* module,
                                       llvm::IRBuilderBase* b) const {
  llvm::Type* type = x->getType();
  const bool is_f32 = type->getScalarType()->isFloatTy();
  const int bits = is_f32 ? 32 : 64;
  const int mantissa_bits = is_f32 ? 23 : 52;
  llvm::Type* int_type = b->getIntNTy(bits);
  if (type->isVectorTy()) {
    int_type = llvm::VectorType::get(
        int_type, llvm::cast<llvm::VectorType>(type)->getElementCount());
  }
  llvm::Value* x_bits = b->CreateBitCast(x, int_type);
  llvm::Value* sign = b->CreateAnd(
      x_bits, llvm::ConstantInt::get(int_type, llvm::APInt::getSignMask(bits)));
  llvm::Value* magnitude = b->CreateXor(x_bits, sign);
  llvm::Value* is_denormal = b->CreateAnd(
      b->CreateICmpNE(magnitude, llvm::ConstantInt::get(int_type, 0)),
      b->CreateICmpULT(magnitude, llvm::ConstantInt::get(
                                      int_type, uint64_t{1} << mantissa_bits)));
  llvm::Value* m = is_f32 ? b->CreateShl(magnitude, 1) : magnitude;
  llvm::Value* argument =
      b->CreateSelect(is_denormal, b->CreateUIToFP(m, type), x);
  llvm::Value* root = EmitCall(MathFunction::kCbrt, {argument}, module, b);
  llvm::Value* scaled = b->CreateFMul(
      root, llvm::ConstantFP::get(type, std::ldexp(1.0, is_f32 ? -50 : -358)));
  llvm::Value* signed_scaled = b->CreateBitCast(
      b->CreateOr(b->CreateBitCast(scaled, int_type), sign), type);
  return b->CreateSelect(is_denormal, signed_scaled, root);
}

llvm::Value* HostMathLibrary::Emit(MathFunction fn,
                                   absl::Span<llvm::Value* const> args,
                                   llvm::Module* module,
                                   llvm::IRBuilderBase* b) const {
  if (fn == MathFunction::kCbrt) return EmitCbrt(args[0], module, b);
  if (args[0]->getType()->isFloatTy()) {
    switch (fn) {
      case MathFunction::kExp:
        return EmitFastExpF32(args[0], b);
      case MathFunction::kLog:
        return EmitFastLogF32(args[0], b);
      case MathFunction::kTanh:
        return EmitFastTanhF32(args[0], b);
      default:
        break;
    }
  }
  return EmitCall(fn, args, module, b);
}

// exp(x) = 2^n * exp(r) with n = floor(x / ln 2) (up to rounding, below)
// and r = x - n ln 2 in [0, ln 2], so that exp(r) is in [1, 2]:
//
// - n: t = (x log2(e) - c) + kExpShifter rounds x log2(e) - c to an integer
//   n (t's ulp is 1), and n = t - kExpShifter exactly. c is just below 1/2,
//   so n = floor(x log2(e)) except where x log2(e) is within 2^-20 of an
//   integer from below (then r is at most about 7e-7 below 0), and x = +-0
//   gives n = 0, r = +-0, exp(r) = 1 exactly.
// - r = x - n ln 2 by Cody-Waite (kLn2Hi, kLn2Lo): n * kLn2Hi is exact and
//   x - n * kLn2Hi is exact for n >= 1 (Sterbenz); r's error is below 2^-25.
// - exp(r) by a degree-6 polynomial with constant term 1, minimax for the
//   relative error on [-1e-5, ln 2 + 1e-5] with f32 coefficients:
//   3.5e-2 x 2^-24. (Fitted for this file: minimax on a dense grid by
//   linear programming over 40-digit residuals, each coefficient rounded
//   to f32 in turn and the higher ones refitted. The log and tanh
//   coefficients below were fitted the same way.)
// - 2^n from t's bits: t's mantissa ends in the bits of n + 127 (the
//   shifter's 127), so t << 23 puts n + 127 in the exponent field and
//   leaves a zero mantissa: 2^n for n in [-126, 127], 0 for n = -127, +inf
//   for n = 128. One multiply scales exp(r) in [1, 2] to any normal result:
//   the 254 normal binades are n = -126 .. 127.
//
// The clamp to [kExpMin, kExpMax] keeps n in [-127, 128] and lets NaN
// through (everything after it propagates NaN):
// - x < -126 ln 2 (about -87.3365): the exact result is denormal (below
//   2^-126) or rounds to 0. There n = -127 (c < 1/2 keeps n = -126 only
//   for results within a factor 2^(2^-20) of 2^-126), whose scale is 0:
//   denormal results are flushed to +0. exp(-inf) = +0.
// - x >= 88.7228394 (the first float with exp(x) >= FLT_MAX + ulp/2): n is
//   127 with exp(r) >= 2, or 128 with a scale of +inf: +inf either way.
//   exp(+inf) = +inf.
// Error for normal results: 1.48 ulp with FMA, 1.83 without, over all
// floats (the worst at small negative x, where n = -1 and r = x + ln 2
// rounds); math_library_test measures it.
// Cost: 15 vector instructions on x86 with FMA (2 clamps, 7 FMAs for the
// reduction and polynomial, add, sub, shift, multiply).
constexpr double kExpMin = -88.0;  // n = -127
constexpr double kExpMax = 89.0;   // n = 128
constexpr double kLog2e = 1.44269504088896340736;
constexpr double kExpRoundingOffset = 0.5 - 0x1p-20;  // c above
constexpr double kExpShifter = 0x1.8p23 + 127;        // 1.5 * 2^23 + bias

llvm::Value* EmitFastExpF32(llvm::Value* x, llvm::IRBuilderBase* b) {
  x = AtMost(AtLeast(x, kExpMin, b), kExpMax, b);
  llvm::Value* t =
      b->CreateFAdd(MulAdd(x, F32(b, kLog2e), F32(b, -kExpRoundingOffset), b),
                    F32(b, kExpShifter));
  llvm::Value* n = b->CreateFSub(t, F32(b, kExpShifter));
  llvm::Value* r = MulAdd(n, F32(b, -kLn2Hi), x, b);
  r = MulAdd(n, F32(b, -kLn2Lo), r, b);
  llvm::Value* p = Horner(r,
                          {0x1.fe553cp-10, 0x1.fef9bcp-8, 0x1.5755d2p-5,
                           0x1.553884p-3, 0x1.0000bap-1, 0x1.fffffap-1, 1.0},
                          b);
  llvm::Value* scale = FloatOf(b->CreateShl(BitsOf(t, b), 23), b);
  return b->CreateFMul(p, scale);
}

// log(x) = k ln 2 + log(m) with x = 2^k m, m in [sqrt(1/2), sqrt(2)):
//
// - k and m from the bits: with d = bits(x) - bits(sqrt(1/2)), k = d >> 23
//   (arithmetic) and m's bits are bits(x) - (k << 23). Denormal inputs are
//   multiplied by 2^23 first and their bits lowered by 23 << 23 (an
//   exponent field below 1, as a signed integer), which the same
//   arithmetic handles.
// - log(m) = f - f^2/2 + f^3 P(f) with f = m - 1 (exact) in
//   [-0.2929, 0.4142]; P of degree 7, minimax for the relative error of
//   log(1 + f) with f32 coefficients: 9.8e-2 x 2^-24.
// - k ln 2 + log(m) as k kLn2Hi + (k kLn2Lo + log(m)): the large term is
//   exact and added last.
// Special cases (selects): log(+-0) = -inf, log(x < 0) = NaN (-inf
// included), log(+inf) = +inf, log(NaN) = NaN.
// Error: 0.93 ulp with FMA, 0.95 without, over all positive floats
// (denormals included).
constexpr double kLogMinNormal = 0x1p-126;
constexpr uint32_t kSqrtHalfBits = 0x3f3504f3;  // f32 sqrt(1/2), rounded down

llvm::Value* EmitFastLogF32(llvm::Value* x, llvm::IRBuilderBase* b) {
  llvm::Value* is_denormal = b->CreateFCmpOLT(x, F32(b, kLogMinNormal));
  llvm::Value* scaled = b->CreateSub(
      BitsOf(b->CreateFMul(x, F32(b, 0x1p23)), b), b->getInt32(23 << 23));
  llvm::Value* bits = b->CreateSelect(is_denormal, scaled, BitsOf(x, b));
  llvm::Value* d = b->CreateSub(bits, b->getInt32(kSqrtHalfBits));
  llvm::Value* k = b->CreateAShr(d, 23);
  llvm::Value* m = FloatOf(b->CreateSub(bits, b->CreateShl(k, 23)), b);
  llvm::Value* f = b->CreateFSub(m, F32(b, 1.0));
  llvm::Value* p = Horner(f,
                          {-0x1.38c91p-4, 0x1.055e62p-3, -0x1.0d8232p-3,
                           0x1.22d936p-3, -0x1.54728cp-3, 0x1.99a01cp-3,
                           -0x1.000226p-2, 0x1.555554p-2},
                          b);
  llvm::Value* log_m =
      MulAdd(b->CreateFMul(f, f), MulAdd(f, p, F32(b, -0.5), b), f, b);
  llvm::Value* kf = b->CreateSIToFP(k, b->getFloatTy());
  llvm::Value* result = MulAdd(kf, F32(b, kLn2Hi),
                               MulAdd(kf, F32(b, kLn2Lo), log_m, b), b);
  const double inf = INFINITY;
  result = b->CreateSelect(b->CreateFCmpOEQ(x, F32(b, inf)), x, result);
  result = b->CreateSelect(b->CreateFCmpOEQ(x, F32(b, 0.0)), F32(b, -inf),
                           result);
  // Negative or NaN input: NaN.
  return b->CreateSelect(b->CreateFCmpULT(x, F32(b, 0.0)), F32(b, NAN),
                         result);
}

// tanh(x) = x P(x^2) / Q(x^2), P and Q of degree 4 with P(0) = Q(0) = 1,
// minimax for the relative error on [0, 9.02] with f32 coefficients:
// 0.39 x 2^-24. Every coefficient is positive, so neither Horner evaluation
// cancels. The error is mostly the roundings of x^2, P, Q, x P and the
// division: 5.2 ulp with FMA, 6.3 without, over all floats, for results
// just below 1 (whose ulp is 2^-24 relative); 3.5 ulp for |x| <= 0.5. (The
// rational this replaces, with Eigen's coefficients, reached 6.9 ulp.)
// - From 9.02 on, tanh(x) rounds to +-1 in f32. The rational crosses 1
//   just after 9.02 and keeps growing; inputs are clamped to +-kTanhMax,
//   where it is 1 + 7 x 2^-24, and results to [-1, 1], so large inputs
//   and +-inf give exactly +-1 and no result exceeds 1 in magnitude.
// - Tiny and denormal x: x^2 is 0 or negligible, P = Q = 1, the result is
//   x (-0 stays -0).
// - NaN passes both clamps and propagates.
// Cost: 15 vector instructions on x86 with FMA (4 clamps, a multiply, 8
// FMAs, a multiply and a division).
constexpr double kTanhMax = 9.5;

llvm::Value* EmitFastTanhF32(llvm::Value* x, llvm::IRBuilderBase* b) {
  x = AtMost(AtLeast(x, -kTanhMax, b), kTanhMax, b);
  llvm::Value* s = b->CreateFMul(x, x);
  llvm::Value* p = Horner(s,
                          {0x1.cc0e3ap-27, 0x1.5a3e16p-16, 0x1.ca6c3p-9,
                           0x1.1213d2p-3, 1.0},
                          b);
  llvm::Value* q = Horner(s,
                          {0x1.a251bap-21, 0x1.58d64cp-12, 0x1.a81702p-6,
                           0x1.de5f36p-2, 1.0},
                          b);
  llvm::Value* result = b->CreateFDiv(b->CreateFMul(x, p), q);
  return AtMost(AtLeast(result, -1.0, b), 1.0, b);
}

llvm::Value* EmitExpThroughExp2(llvm::Value* x, llvm::Function* exp2,
                                llvm::IRBuilderBase* b) {
  llvm::Value* log2e = llvm::ConstantFP::get(x->getType(), 1.4426950408889634);
  return b->CreateCall(exp2, {b->CreateFMul(x, log2e)});
}

}  // namespace hloc
