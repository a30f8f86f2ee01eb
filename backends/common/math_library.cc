#include "backends/common/math_library.h"

#include <cmath>
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

// c[0]*x^(n-1) + ... + c[n-1], Horner's scheme.
llvm::Value* Horner(llvm::Value* x, std::initializer_list<double> c,
                    llvm::IRBuilderBase* b) {
  auto it = c.begin();
  llvm::Value* acc = F32(b, *it++);
  for (; it != c.end(); ++it)
    acc = b->CreateFAdd(b->CreateFMul(acc, x), F32(b, *it));
  return acc;
}

llvm::Value* MinNum(llvm::Value* a, double c, llvm::IRBuilderBase* b) {
  return b->CreateBinaryIntrinsic(llvm::Intrinsic::minnum, a, F32(b, c));
}
llvm::Value* MaxNum(llvm::Value* a, double c, llvm::IRBuilderBase* b) {
  return b->CreateBinaryIntrinsic(llvm::Intrinsic::maxnum, a, F32(b, c));
}

// 2^n for an i32 n in [-126, 127], built from the exponent bits.
llvm::Value* Pow2(llvm::Value* n, llvm::IRBuilderBase* b) {
  llvm::Value* bits = b->CreateShl(b->CreateAdd(n, b->getInt32(127)), 23);
  return b->CreateBitCast(bits, b->getFloatTy());
}

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

llvm::Value* HostMathLibrary::Emit(MathFunction fn,
                                   absl::Span<llvm::Value* const> args,
                                   llvm::Module* module,
                                   llvm::IRBuilderBase* b) const {
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

// Cephes' expf: exp(x) = 2^n * exp(r) with n = round(x / ln 2) and
// |r| <= ln(2)/2, exp(r) by a degree-7 polynomial. ln 2 is split in two
// (C1 exact in few bits) so r is computed without cancellation. 2^n is
// applied as two factors so that n = 128 (overflow to inf) and n = -150
// (underflow through the denormals) need no special case.
llvm::Value* EmitFastExpF32(llvm::Value* x, llvm::IRBuilderBase* b) {
  llvm::Value* is_nan = b->CreateFCmpUNO(x, x);
  llvm::Value* xc = MinNum(MaxNum(x, -104.0, b), 89.0, b);
  llvm::Value* fx = b->CreateUnaryIntrinsic(
      llvm::Intrinsic::floor,
      b->CreateFAdd(b->CreateFMul(xc, F32(b, 1.44269504088896341)),
                    F32(b, 0.5)));
  llvm::Value* r = b->CreateFSub(xc, b->CreateFMul(fx, F32(b, 0.693359375)));
  r = b->CreateFSub(r, b->CreateFMul(fx, F32(b, -2.12194440e-4)));
  llvm::Value* z = b->CreateFMul(r, r);
  llvm::Value* y = Horner(r,
                          {1.9875691500E-4, 1.3981999507E-3, 8.3334519073E-3,
                           4.1665795894E-2, 1.6666665459E-1, 5.0000001201E-1},
                          b);
  y = b->CreateFAdd(b->CreateFAdd(b->CreateFMul(y, z), r), F32(b, 1.0));
  llvm::Value* n = b->CreateFPToSI(fx, b->getInt32Ty());
  llvm::Value* n1 = b->CreateAShr(n, 1);
  llvm::Value* n2 = b->CreateSub(n, n1);
  llvm::Value* result =
      b->CreateFMul(b->CreateFMul(y, Pow2(n1, b)), Pow2(n2, b));
  return b->CreateSelect(is_nan, x, result);
}

// Cephes' logf: x = m * 2^e with m in [sqrt(1/2), sqrt(2)), log(m) by a
// degree-9 polynomial in m - 1. Denormal inputs are scaled by 2^23 first.
llvm::Value* EmitFastLogF32(llvm::Value* x, llvm::IRBuilderBase* b) {
  llvm::Type* i32 = b->getInt32Ty();
  llvm::Value* is_denormal = b->CreateFCmpOLT(x, F32(b, 1.17549435e-38));
  llvm::Value* xs =
      b->CreateSelect(is_denormal, b->CreateFMul(x, F32(b, 8388608.0)), x);
  llvm::Value* bits = b->CreateBitCast(xs, i32);
  llvm::Value* e =
      b->CreateSub(b->CreateAnd(b->CreateLShr(bits, 23), b->getInt32(0xff)),
                   b->getInt32(126));
  e = b->CreateAdd(
      e, b->CreateSelect(is_denormal, b->getInt32(-23), b->getInt32(0)));
  llvm::Value* m =
      b->CreateBitCast(b->CreateOr(b->CreateAnd(bits, b->getInt32(0x007fffff)),
                                   b->getInt32(0x3f000000)),
                       b->getFloatTy());  // in [0.5, 1)
  llvm::Value* below = b->CreateFCmpOLT(m, F32(b, 0.707106781186547524));
  llvm::Value* ef = b->CreateSIToFP(e, b->getFloatTy());
  ef = b->CreateFSub(ef, b->CreateSelect(below, F32(b, 1.0), F32(b, 0.0)));
  llvm::Value* xr = b->CreateFSub(
      b->CreateSelect(below, b->CreateFAdd(m, m), m), F32(b, 1.0));
  llvm::Value* z = b->CreateFMul(xr, xr);
  llvm::Value* y = Horner(xr,
                          {7.0376836292E-2, -1.1514610310E-1, 1.1676998740E-1,
                           -1.2420140846E-1, 1.4249322787E-1, -1.6668057665E-1,
                           2.0000714765E-1, -2.4999993993E-1, 3.3333331174E-1},
                          b);
  y = b->CreateFMul(b->CreateFMul(y, xr), z);
  y = b->CreateFAdd(y, b->CreateFMul(ef, F32(b, -2.12194440e-4)));
  y = b->CreateFSub(y, b->CreateFMul(z, F32(b, 0.5)));
  llvm::Value* result = b->CreateFAdd(xr, y);
  result = b->CreateFAdd(result, b->CreateFMul(ef, F32(b, 0.693359375)));
  llvm::Value* inf = F32(b, INFINITY);
  result = b->CreateSelect(b->CreateFCmpOEQ(x, F32(b, 0.0)), F32(b, -INFINITY),
                           result);
  result = b->CreateSelect(b->CreateFCmpOEQ(x, inf), inf, result);
  // Negative or NaN input: NaN.
  return b->CreateSelect(b->CreateFCmpULT(x, F32(b, 0.0)), F32(b, NAN), result);
}

// Eigen's rational approximation (odd degree 13 over even degree 6) on
// [-7.905, 7.905], where it reaches +-1 in f32; tiny inputs return x.
llvm::Value* EmitFastTanhF32(llvm::Value* x, llvm::IRBuilderBase* b) {
  llvm::Value* is_nan = b->CreateFCmpUNO(x, x);
  llvm::Value* tiny = b->CreateFCmpOLT(
      b->CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x), F32(b, 0.0004));
  llvm::Value* xc =
      MinNum(MaxNum(x, -7.90531110763549805, b), 7.90531110763549805, b);
  llvm::Value* x2 = b->CreateFMul(xc, xc);
  llvm::Value* p =
      Horner(x2,
             {-2.76076847742355e-16, 2.00018790482477e-13,
              -8.60467152213735e-11, 5.12229709037114e-08, 1.48572235717979e-05,
              6.37261928875436e-04, 4.89352455891786e-03},
             b);
  p = b->CreateFMul(xc, p);
  llvm::Value* q = Horner(x2,
                          {1.19825839466702e-06, 1.18534705686654e-04,
                           2.26843463243900e-03, 4.89352518554385e-03},
                          b);
  llvm::Value* result = b->CreateSelect(tiny, x, b->CreateFDiv(p, q));
  return b->CreateSelect(is_nan, x, result);
}

}  // namespace hloc
