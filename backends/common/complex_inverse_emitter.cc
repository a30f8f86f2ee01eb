// The inverse trigonometric and hyperbolic functions of complex numbers:
// asin, acos, asinh, acosh, atanh, atan. Current XLA takes them from
// StableHLO's CHLO decompositions, which are the accurate algorithms of
// Hull, Fairgrieve and Tang ("Implementing the complex arcsine and
// arccosine functions using exception handling", 1997) for asin/acos and
// Kahan's ("Branch cuts for complex elementary functions", 1987) for atanh;
// the others follow from them by rotations (asinh(z) = -i asin(iz),
// atan(z) = -i atanh(iz), acosh from acos's parts). The textbook
// -i log(iz + sqrt(1 - z^2)) loses every digit of a small real part near
// the branch cuts; these keep the result within a few ulps, as glibc's casin
// (the evaluator's) does.
#include "backends/common/complex_emitter.h"
#include "backends/common/math_library.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Intrinsics.h"

namespace hloc {

// Hull et al. for x, y >= 0. With r = |(x + 1) + iy|, s = |(x - 1) + iy|,
// A = (r + s)/2 >= 1 and B = x/A <= 1, asin(x + iy) = asin(B) + i
// log(A + sqrt(A^2 - 1)) and acos(x + iy) = acos(B) - i (the same). Both
// lose accuracy where B is near 1 or A near 1, where the paper's
// cancellation-free forms take over:
// - B > 0.6417: asin(B) = atan2(x, d), acos(B) = atan2(d, x) with
//   d = sqrt(A^2 - x^2) written without the difference;
// - A <= 1.5: log1p(A - 1 + sqrt((A - 1)(A + 1))) with A - 1 from r and s.
// Past sqrt(max)/8 the squares would overflow: there asin ~ atan2(x, y) +
// i log(2|z|).
ComplexEmitter::AsinParts ComplexEmitter::AsinAcos(llvm::Value* x,
                                                   llvm::Value* y) {
  llvm::IRBuilderBase* b = b_;
  llvm::Type* t = x->getType();
  const bool f32 = t->isFloatTy();
  llvm::Value* half = Const(t, 0.5);
  llvm::Value* one = Const(t, 1.0);
  auto sqrt = [&](llvm::Value* v) {
    return b->CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, v);
  };
  llvm::Value* xp1 = b->CreateFAdd(x, one);
  llvm::Value* xm1 = b->CreateFSub(x, one);
  llvm::Value* r = Abs(Compose(xp1, y));
  llvm::Value* s = Abs(Compose(xm1, y));
  llvm::Value* a = b->CreateFMul(half, b->CreateFAdd(r, s));
  llvm::Value* yy = b->CreateFMul(y, y);
  llvm::Value* rpxp1 = b->CreateFAdd(r, xp1);
  llvm::Value* spxm1 = b->CreateFAdd(s, xm1);
  llvm::Value* smxm1 = b->CreateFSub(s, xm1);
  llvm::Value* half_apx = b->CreateFMul(half, b->CreateFAdd(a, x));
  llvm::Value* x_le_1 = b->CreateFCmpOLE(x, one);

  // sqrt(A^2 - x^2) = sqrt((A + x)/2 (y^2/(r + x + 1) + s - (x - 1)))
  // for x <= 1, y sqrt((A + x)/2 (1/(r + x + 1) + 1/(s + x - 1))) above.
  llvm::Value* d = b->CreateSelect(
      x_le_1,
      sqrt(b->CreateFMul(half_apx,
                         b->CreateFAdd(b->CreateFDiv(yy, rpxp1), smxm1))),
      b->CreateFMul(y, sqrt(b->CreateFAdd(b->CreateFDiv(half_apx, rpxp1),
                                          b->CreateFDiv(half_apx, spxm1)))));
  llvm::Value* bb = b->CreateFDiv(x, a);
  llvm::Value* b_small = b->CreateFCmpOLE(bb, Const(t, 0.6417));
  AsinParts p;
  p.asin_real = b->CreateSelect(b_small, Call(MathFunction::kAsin, bb),
                                Call(MathFunction::kAtan2, x, d));
  p.acos_real = b->CreateSelect(b_small, Call(MathFunction::kAcos, bb),
                                Call(MathFunction::kAtan2, d, x));

  // A - 1 = (y^2/(r + x + 1) + y^2/(s - (x - 1)))/2 for x < 1, else
  // (y^2/(r + x + 1) + s + (x - 1))/2.
  llvm::Value* am1 = b->CreateFMul(
      half, b->CreateFAdd(b->CreateFDiv(yy, rpxp1),
                          b->CreateSelect(b->CreateFCmpOLT(x, one),
                                          b->CreateFDiv(yy, smxm1), spxm1)));
  llvm::Value* imag_near_1 = Call(
      MathFunction::kLog1p,
      b->CreateFAdd(am1, sqrt(b->CreateFMul(am1, b->CreateFAdd(a, one)))));
  llvm::Value* imag_far = Call(
      MathFunction::kLog,
      b->CreateFAdd(a, sqrt(b->CreateFSub(b->CreateFMul(a, a), one))));
  p.imag = b->CreateSelect(b->CreateFCmpOLE(a, Const(t, 1.5)), imag_near_1,
                           imag_far);

  // |z| >= sqrt(max)/8: log(2|z|) = log 2 + log(max) + log1p((min/max)^2)/2,
  // inf where max is (inf/inf would make it NaN).
  AbsParts h = Hypot(x, y);
  llvm::Value* safe_max =
      Const(t, f32 ? 1.8446742974197924e19 / 8 : 1.3407807929942596e154 / 8);
  llvm::Value* large = b->CreateFCmpOGE(h.max, safe_max);
  llvm::Value* log_2z = b->CreateFAdd(
      b->CreateFAdd(Const(t, 0.69314718055994530942),
                    Call(MathFunction::kLog, h.max)),
      b->CreateFMul(half, Call(MathFunction::kLog1p,
                               b->CreateFSub(h.one_plus_ratio_sq, one))));
  p.asin_real = b->CreateSelect(large, Call(MathFunction::kAtan2, x, y),
                                p.asin_real);
  p.acos_real = b->CreateSelect(large, Call(MathFunction::kAtan2, y, x),
                                p.acos_real);
  log_2z = b->CreateSelect(IsInf(h.max), h.max, log_2z);
  p.imag = b->CreateSelect(large, log_2z, p.imag);
  return p;
}

// asin(z) is odd in each part: the parts of |re| + i|im| with z's signs.
llvm::Value* ComplexEmitter::Asin(llvm::Value* z) {
  AsinParts p = AsinAcos(Fabs(Real(z)), Fabs(Imag(z)));
  return Compose(CopySign(p.asin_real, Real(z)), CopySign(p.imag, Imag(z)));
}

// acos(-z) = pi - acos(z) and acos(conj z) = conj acos(z).
llvm::Value* ComplexEmitter::AcosReal(llvm::Value* re, const AsinParts& p) {
  llvm::Type* t = re->getType();
  return b_->CreateSelect(
      b_->CreateFCmpOLT(re, Const(t, 0.0)),
      b_->CreateFSub(Const(t, 3.14159265358979323846), p.acos_real),
      p.acos_real);
}

llvm::Value* ComplexEmitter::Acos(llvm::Value* z) {
  AsinParts p = AsinAcos(Fabs(Real(z)), Fabs(Imag(z)));
  return Compose(AcosReal(Real(z), p),
                 b_->CreateFNeg(CopySign(p.imag, Imag(z))));
}

// acosh(z) = +-i acos(z), the sign that makes the real part >= 0: real
// |Im acos z|, imag Re acos z with z's imaginary sign.
llvm::Value* ComplexEmitter::Acosh(llvm::Value* z) {
  AsinParts p = AsinAcos(Fabs(Real(z)), Fabs(Imag(z)));
  return Compose(p.imag, CopySign(AcosReal(Real(z), p), Imag(z)));
}

// asinh(z) = -i asin(iz), iz = -im + i re: asin's parts of |im| + i|re|.
llvm::Value* ComplexEmitter::Asinh(llvm::Value* z) {
  AsinParts p = AsinAcos(Fabs(Imag(z)), Fabs(Real(z)));
  return Compose(CopySign(p.imag, Real(z)), CopySign(p.asin_real, Imag(z)));
}

// Kahan: atanh(x + iy) = log1p(4|x| / ((1 - |x|)^2 + y^2)) / 4 with x's
// sign + i atan2(2y, (1 - x)(1 + x) - y^2) / 2; log1p keeps a small real
// part exact, and the factored (1 - x)(1 + x) the angle near |x| = 1.
// Past sqrt(max)/8 the squares would overflow: there the real part is
// x / |z|^2 (as x/max/max (1 + (min/max)^2)) and the imaginary +-pi/2.
llvm::Value* ComplexEmitter::Atanh(llvm::Value* z) {
  llvm::IRBuilderBase* b = b_;
  llvm::Value* x = Real(z);
  llvm::Value* y = Imag(z);
  llvm::Type* t = x->getType();
  const bool f32 = t->isFloatTy();
  llvm::Value* one = Const(t, 1.0);
  llvm::Value* ax = Fabs(x);
  llvm::Value* one_m_ax = b->CreateFSub(one, ax);
  llvm::Value* denominator = b->CreateFAdd(b->CreateFMul(one_m_ax, one_m_ax),
                                           b->CreateFMul(y, y));
  llvm::Value* real = b->CreateFMul(
      Const(t, 0.25),
      Call(MathFunction::kLog1p,
           b->CreateFDiv(b->CreateFMul(Const(t, 4.0), ax), denominator)));
  llvm::Value* imag = b->CreateFMul(
      Const(t, 0.5),
      Call(MathFunction::kAtan2, b->CreateFAdd(y, y),
           b->CreateFSub(b->CreateFMul(b->CreateFSub(one, x),
                                       b->CreateFAdd(one, x)),
                         b->CreateFMul(y, y))));
  AbsParts h = Hypot(x, y);
  llvm::Value* safe_max =
      Const(t, f32 ? 1.8446742974197924e19 / 8 : 1.3407807929942596e154 / 8);
  llvm::Value* large = b->CreateFCmpOGE(h.max, safe_max);
  // An infinite part gives a zero real part (inf/inf would be NaN).
  llvm::Value* real_large = b->CreateSelect(
      IsInf(h.max), Const(t, 0.0),
      b->CreateFDiv(b->CreateFDiv(b->CreateFDiv(ax, h.max), h.max),
                    h.one_plus_ratio_sq));
  llvm::Value* imag_large = CopySign(Const(t, 1.57079632679489661923), y);
  real = b->CreateSelect(large, real_large, real);
  imag = b->CreateSelect(large, imag_large, imag);
  return Compose(CopySign(real, x), imag);
}

// atan(z) = -i atanh(iz), iz = -im + i re.
llvm::Value* ComplexEmitter::Atan(llvm::Value* z) {
  llvm::Value* w = Atanh(Compose(b_->CreateFNeg(Imag(z)), Real(z)));
  return Compose(Imag(w), b_->CreateFNeg(Real(w)));
}

}  // namespace hloc
