#include "backends/common/complex_emitter.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "backends/common/math_library.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Intrinsics.h"

namespace hloc {

llvm::StructType* ComplexStructType(llvm::Type* component) {
  return llvm::StructType::get(component->getContext(),
                               {component, component});
}

// --- Helpers -----------------------------------------------------------------

llvm::Value* ComplexEmitter::Compose(llvm::Value* real, llvm::Value* imag) {
  llvm::Value* z = llvm::UndefValue::get(ComplexStructType(real->getType()));
  z = b_->CreateInsertValue(z, real, {0});
  return b_->CreateInsertValue(z, imag, {1});
}

llvm::Value* ComplexEmitter::Real(llvm::Value* z) {
  return b_->CreateExtractValue(z, {0});
}

llvm::Value* ComplexEmitter::Imag(llvm::Value* z) {
  return b_->CreateExtractValue(z, {1});
}

llvm::Value* ComplexEmitter::Call(MathFunction fn, llvm::Value* x) {
  return math_->Emit(fn, {x}, module_, b_);
}

llvm::Value* ComplexEmitter::Call(MathFunction fn, llvm::Value* x,
                                  llvm::Value* y) {
  return math_->Emit(fn, {x, y}, module_, b_);
}

llvm::Value* ComplexEmitter::Const(llvm::Type* type, double value) {
  return llvm::ConstantFP::get(type, value);
}

llvm::Value* ComplexEmitter::Fabs(llvm::Value* x) {
  return b_->CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
}

llvm::Value* ComplexEmitter::CopySign(llvm::Value* magnitude,
                                      llvm::Value* sign) {
  return b_->CreateBinaryIntrinsic(llvm::Intrinsic::copysign, magnitude, sign);
}

llvm::Value* ComplexEmitter::IsInf(llvm::Value* x) {
  return b_->CreateFCmpOEQ(Fabs(x),
                           llvm::ConstantFP::getInfinity(x->getType()));
}

llvm::Value* ComplexEmitter::IsNaN(llvm::Value* x) {
  return b_->CreateFCmpUNO(x, x);
}

// --- Arithmetic --------------------------------------------------------------

llvm::Value* ComplexEmitter::Add(llvm::Value* lhs, llvm::Value* rhs) {
  return Compose(b_->CreateFAdd(Real(lhs), Real(rhs)),
                 b_->CreateFAdd(Imag(lhs), Imag(rhs)));
}

llvm::Value* ComplexEmitter::Multiply(llvm::Value* lhs, llvm::Value* rhs) {
  llvm::Value* a = Real(lhs);
  llvm::Value* b = Imag(lhs);
  llvm::Value* c = Real(rhs);
  llvm::Value* d = Imag(rhs);
  return Compose(b_->CreateFSub(b_->CreateFMul(a, c), b_->CreateFMul(b, d)),
                 b_->CreateFAdd(b_->CreateFMul(a, d), b_->CreateFMul(b, c)));
}

// Smith's algorithm divides by the larger of |c| and |d| first, so neither
// c^2 + d^2 nor the products overflow where the quotient does not. Where it
// still gives (NaN, NaN) the operands hold zeros or infinities, and the
// three C99 Annex G cases below recover the limit.
llvm::Value* ComplexEmitter::Divide(llvm::Value* lhs, llvm::Value* rhs) {
  llvm::IRBuilderBase* b = b_;
  llvm::Value* a = Real(lhs);
  llvm::Value* ai = Imag(lhs);
  llvm::Value* c = Real(rhs);
  llvm::Value* d = Imag(rhs);
  llvm::Type* t = a->getType();
  llvm::Value* zero = Const(t, 0.0);
  llvm::Value* one = Const(t, 1.0);
  llvm::Value* inf = llvm::ConstantFP::getInfinity(t);

  // |c| < |d|: r = c/d, q = d + c*r; else r = d/c, q = c + d*r.
  llvm::Value* c_over_d = b->CreateFDiv(c, d);
  llvm::Value* d_over_c = b->CreateFDiv(d, c);
  llvm::Value* q_d = b->CreateFAdd(d, b->CreateFMul(c_over_d, c));
  llvm::Value* q_c = b->CreateFAdd(c, b->CreateFMul(d_over_c, d));
  llvm::Value* d_larger = b->CreateFCmpOLT(Fabs(c), Fabs(d));
  llvm::Value* re = b->CreateSelect(
      d_larger,
      b->CreateFDiv(b->CreateFAdd(b->CreateFMul(c_over_d, a), ai), q_d),
      b->CreateFDiv(b->CreateFAdd(b->CreateFMul(d_over_c, ai), a), q_c));
  llvm::Value* im = b->CreateSelect(
      d_larger,
      b->CreateFDiv(b->CreateFSub(b->CreateFMul(c_over_d, ai), a), q_d),
      b->CreateFDiv(b->CreateFSub(ai, b->CreateFMul(d_over_c, a)), q_c));
  llvm::Value* smith = Compose(re, im);

  // A zero denominator and a numerator not all NaN: infinities signed by c.
  llvm::Value* zero_denominator = b->CreateAnd(
      b->CreateAnd(b->CreateFCmpOEQ(c, zero), b->CreateFCmpOEQ(d, zero)),
      b->CreateOr(b->CreateFCmpORD(a, zero), b->CreateFCmpORD(ai, zero)));
  llvm::Value* signed_inf = CopySign(inf, c);
  llvm::Value* zero_denominator_result =
      Compose(b->CreateFMul(signed_inf, a), b->CreateFMul(signed_inf, ai));

  // An infinite numerator over a finite denominator: the numerator's
  // infinities as +-1 (others 0), times inf.
  llvm::Value* c_finite = b->CreateFCmpONE(Fabs(c), inf);
  llvm::Value* d_finite = b->CreateFCmpONE(Fabs(d), inf);
  llvm::Value* a_inf = IsInf(a);
  llvm::Value* ai_inf = IsInf(ai);
  llvm::Value* inf_over_finite = b->CreateAnd(
      b->CreateOr(a_inf, ai_inf), b->CreateAnd(c_finite, d_finite));
  llvm::Value* a_unit = CopySign(b->CreateSelect(a_inf, one, zero), a);
  llvm::Value* ai_unit = CopySign(b->CreateSelect(ai_inf, one, zero), ai);
  llvm::Value* inf_over_finite_result =
      Compose(b->CreateFMul(inf, b->CreateFAdd(b->CreateFMul(a_unit, c),
                                               b->CreateFMul(ai_unit, d))),
              b->CreateFMul(inf, b->CreateFSub(b->CreateFMul(ai_unit, c),
                                               b->CreateFMul(a_unit, d))));

  // A finite numerator over an infinite denominator: signed zeros.
  llvm::Value* a_finite = b->CreateFCmpONE(Fabs(a), inf);
  llvm::Value* ai_finite = b->CreateFCmpONE(Fabs(ai), inf);
  llvm::Value* c_inf = IsInf(c);
  llvm::Value* d_inf = IsInf(d);
  llvm::Value* finite_over_inf = b->CreateAnd(
      b->CreateOr(c_inf, d_inf), b->CreateAnd(a_finite, ai_finite));
  llvm::Value* c_unit = CopySign(b->CreateSelect(c_inf, one, zero), c);
  llvm::Value* d_unit = CopySign(b->CreateSelect(d_inf, one, zero), d);
  llvm::Value* finite_over_inf_result =
      Compose(b->CreateFMul(zero, b->CreateFAdd(b->CreateFMul(a, c_unit),
                                                b->CreateFMul(ai, d_unit))),
              b->CreateFMul(zero, b->CreateFSub(b->CreateFMul(ai, c_unit),
                                                b->CreateFMul(a, d_unit))));

  llvm::Value* both_nan = b->CreateAnd(IsNaN(re), IsNaN(im));
  llvm::Value* fixed = b->CreateSelect(
      zero_denominator, zero_denominator_result,
      b->CreateSelect(inf_over_finite, inf_over_finite_result,
                      b->CreateSelect(finite_over_inf, finite_over_inf_result,
                                      smith)));
  return b->CreateSelect(both_nan, fixed, smith);
}

// --- |z| and its roots -------------------------------------------------------

// hypot(a, b) = max * sqrt(1 + (min/max)^2) never squares a large value.
// max and min propagate NaN.
ComplexEmitter::AbsParts ComplexEmitter::Hypot(llvm::Value* a,
                                               llvm::Value* b) {
  llvm::Value* abs_a = Fabs(a);
  llvm::Value* abs_b = Fabs(b);
  AbsParts p;
  p.max = b_->CreateBinaryIntrinsic(llvm::Intrinsic::maximum, abs_a, abs_b);
  p.min = b_->CreateBinaryIntrinsic(llvm::Intrinsic::minimum, abs_a, abs_b);
  llvm::Value* ratio = b_->CreateFDiv(p.min, p.max);
  p.one_plus_ratio_sq = b_->CreateFAdd(Const(a->getType(), 1.0),
                                       b_->CreateFMul(ratio, ratio));
  return p;
}

// The formula is NaN for (0, 0), (inf, inf) and NaN parts; there the result
// is min: 0, inf, or NaN. Unlike IEEE hypot, a NaN part gives NaN even
// beside an infinity (XLA:CPU's abs(inf + NaN i) is NaN).
llvm::Value* ComplexEmitter::Abs(llvm::Value* z) {
  AbsParts p = Hypot(Real(z), Imag(z));
  llvm::Value* result = b_->CreateFMul(
      p.max, b_->CreateUnaryIntrinsic(llvm::Intrinsic::sqrt,
                                      p.one_plus_ratio_sq));
  return b_->CreateSelect(IsNaN(result), p.min, result);
}

// sqrt|z| = sqrt(max) * (1 + (min/max)^2)^(1/4): the product max * sqrt(..)
// could overflow where its root does not. The fourth root as two square
// roots (XLA calls pow(x, 0.25); the difference is within an ulp).
llvm::Value* ComplexEmitter::SqrtOfAbs(llvm::Value* z) {
  AbsParts p = Hypot(Real(z), Imag(z));
  auto sqrt = [&](llvm::Value* x) {
    return b_->CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, x);
  };
  llvm::Value* result =
      b_->CreateFMul(sqrt(p.max), sqrt(sqrt(p.one_plus_ratio_sq)));
  return b_->CreateSelect(IsNaN(result), p.min, result);
}

llvm::Value* ComplexEmitter::RsqrtOfAbs(llvm::Value* z) {
  llvm::Type* t = Real(z)->getType();
  AbsParts p = Hypot(Real(z), Imag(z));
  auto rsqrt = [&](llvm::Value* x) {
    return b_->CreateFDiv(Const(t, 1.0),
                          b_->CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, x));
  };
  llvm::Value* result = b_->CreateFMul(
      rsqrt(p.max), rsqrt(b_->CreateUnaryIntrinsic(llvm::Intrinsic::sqrt,
                                                   p.one_plus_ratio_sq)));
  return b_->CreateSelect(IsNaN(result), rsqrt(p.min), result);
}

// sqrt(z) = sqrt|z| (cos(t/2) + i sin(t/2)), t = atan2(b, a), with csqrt's
// values on the axes and at infinity.
llvm::Value* ComplexEmitter::Sqrt(llvm::Value* z) {
  llvm::IRBuilderBase* b = b_;
  llvm::Value* re = Real(z);
  llvm::Value* im = Imag(z);
  llvm::Type* t = re->getType();
  llvm::Value* zero = Const(t, 0.0);
  llvm::Value* inf = llvm::ConstantFP::getInfinity(t);
  llvm::Value* neg_inf = llvm::ConstantFP::getInfinity(t, /*Negative=*/true);
  llvm::Value* r = SqrtOfAbs(z);
  llvm::Value* angle =
      b->CreateFMul(Call(MathFunction::kAtan2, im, re), Const(t, 0.5));
  llvm::Value* cos = Call(MathFunction::kCos, angle);
  llvm::Value* sin = Call(MathFunction::kSin, angle);
  llvm::Value* im_inf = IsInf(im);
  llvm::Value* re_pos_inf = b->CreateFCmpOEQ(re, inf);
  llvm::Value* re_neg_inf = b->CreateFCmpOEQ(re, neg_inf);
  llvm::Value* real = b->CreateSelect(
      b->CreateOr(im_inf, re_pos_inf), inf,
      b->CreateSelect(b->CreateAnd(re_neg_inf, b->CreateNot(im_inf)), zero,
                      b->CreateFMul(r, cos)));
  // sin(t/2) = 0 keeps its sign: sqrt of a negative zero imaginary part.
  llvm::Value* imag = b->CreateSelect(
      b->CreateOr(im_inf, re_neg_inf), CopySign(inf, im),
      b->CreateSelect(IsNaN(r), llvm::ConstantFP::getNaN(t),
                      b->CreateSelect(b->CreateFCmpOEQ(sin, zero), sin,
                                      b->CreateFMul(r, sin))));
  return b->CreateSelect(b->CreateFCmpOEQ(r, zero), Compose(zero, zero),
                         Compose(real, imag));
}

// rsqrt(z) = |z|^(-1/2) (cos(-t/2) + i sin(-t/2)); 1/sqrt(0) = (inf, NaN),
// and an infinite part gives signed zeros.
llvm::Value* ComplexEmitter::Rsqrt(llvm::Value* z) {
  llvm::IRBuilderBase* b = b_;
  llvm::Value* re = Real(z);
  llvm::Value* im = Imag(z);
  llvm::Type* t = re->getType();
  llvm::Value* zero = Const(t, 0.0);
  llvm::Value* r = RsqrtOfAbs(z);
  llvm::Value* angle =
      b->CreateFMul(Call(MathFunction::kAtan2, im, re), Const(t, -0.5));
  llvm::Value* cos = Call(MathFunction::kCos, angle);
  llvm::Value* sin = Call(MathFunction::kSin, angle);
  llvm::Value* zero_zero =
      b->CreateAnd(b->CreateFCmpOEQ(re, zero), b->CreateFCmpOEQ(im, zero));
  llvm::Value* to_zero =
      b->CreateOr(b->CreateAnd(IsInf(im), IsNaN(re)), IsInf(re));
  llvm::Value* real = b->CreateSelect(
      zero_zero, llvm::ConstantFP::getInfinity(t),
      b->CreateSelect(to_zero, CopySign(zero, re), b->CreateFMul(r, cos)));
  llvm::Value* imag = b->CreateSelect(
      zero_zero, llvm::ConstantFP::getNaN(t),
      b->CreateSelect(to_zero, b->CreateFNeg(CopySign(zero, im)),
                      b->CreateFMul(r, sin)));
  return Compose(real, imag);
}

// --- Transcendentals ---------------------------------------------------------

llvm::Value* ComplexEmitter::Log(llvm::Value* z) {
  llvm::Value* angle = Call(MathFunction::kAtan2, Imag(z), Real(z));
  return Compose(Call(MathFunction::kLog, Abs(z)), angle);
}

// log1p(z).real = log|1 + z| = log(max) + 0.5 log1p((min/max)^2) with max,
// min of |1 + a| and |b|; log(max) as log1p(a) while 1 + a is the max (no
// cancellation for small a). min/max is taken as 0 where min is 0, so that
// log1p(-1) = -inf (0/0 would make it NaN); the NaN of inf/inf falls back
// to min (inf).
llvm::Value* ComplexEmitter::Log1p(llvm::Value* z) {
  llvm::IRBuilderBase* b = b_;
  llvm::Value* a = Real(z);
  llvm::Value* bi = Imag(z);
  llvm::Type* t = a->getType();
  llvm::Value* one = Const(t, 1.0);
  llvm::Value* a1 = b->CreateFAdd(a, one);
  llvm::Value* abs_a1 = Fabs(a1);
  llvm::Value* abs_b = Fabs(bi);
  llvm::Value* max =
      b->CreateBinaryIntrinsic(llvm::Intrinsic::maximum, abs_a1, abs_b);
  llvm::Value* min =
      b->CreateBinaryIntrinsic(llvm::Intrinsic::minimum, abs_a1, abs_b);
  llvm::Value* max_minus_one = b->CreateSelect(b->CreateFCmpOGT(a1, abs_b), a,
                                               b->CreateFSub(max, one));
  llvm::Value* ratio =
      b->CreateSelect(b->CreateFCmpOEQ(min, Const(t, 0.0)), Const(t, 0.0),
                      b->CreateFDiv(min, max));
  llvm::Value* r = b->CreateFAdd(
      b->CreateFMul(Const(t, 0.5), Call(MathFunction::kLog1p,
                                        b->CreateFMul(ratio, ratio))),
      Call(MathFunction::kLog1p, max_minus_one));
  llvm::Value* real = b->CreateSelect(IsNaN(r), min, r);
  return Compose(real, Call(MathFunction::kAtan2, bi, a1));
}

// exp(a + bi) = e^a (cos b + i sin b). Where e^a overflows, e^(a/2) twice
// keeps a finite result finite; a real argument keeps imag exactly 0.
llvm::Value* ComplexEmitter::Exp(llvm::Value* z) {
  llvm::IRBuilderBase* b = b_;
  llvm::Value* a = Real(z);
  llvm::Value* bi = Imag(z);
  llvm::Type* t = a->getType();
  llvm::Value* zero = Const(t, 0.0);
  llvm::Value* exp_a = Call(MathFunction::kExp, a);
  llvm::Value* exp_half = Call(MathFunction::kExp, b->CreateFMul(a, Const(t, 0.5)));
  llvm::Value* cos = Call(MathFunction::kCos, bi);
  llvm::Value* sin = Call(MathFunction::kSin, bi);
  llvm::Value* overflow =
      b->CreateFCmpOEQ(exp_a, llvm::ConstantFP::getInfinity(t));
  auto scale = [&](llvm::Value* x) {
    return b->CreateSelect(
        overflow, b->CreateFMul(b->CreateFMul(exp_half, x), exp_half),
        b->CreateFMul(exp_a, x));
  };
  llvm::Value* imag =
      b->CreateSelect(b->CreateFCmpOEQ(bi, zero), zero, scale(sin));
  return Compose(scale(cos), imag);
}

// exp(z) - 1 = (expm1(a) cos b + (cos b - 1)) + i e^a sin b, with
// cos b - 1 = -2 sin^2(b/2) (no cancellation for small b).
llvm::Value* ComplexEmitter::Expm1(llvm::Value* z) {
  llvm::IRBuilderBase* b = b_;
  llvm::Value* a = Real(z);
  llvm::Value* bi = Imag(z);
  llvm::Type* t = a->getType();
  llvm::Value* zero = Const(t, 0.0);
  llvm::Value* one = Const(t, 1.0);
  llvm::Value* expm1_a = Call(MathFunction::kExpm1, a);
  llvm::Value* half_sin =
      Call(MathFunction::kSin, b->CreateFMul(bi, Const(t, 0.5)));
  llvm::Value* cos_m1 =
      b->CreateFMul(Const(t, -2.0), b->CreateFMul(half_sin, half_sin));
  llvm::Value* cos = b->CreateFAdd(cos_m1, one);
  llvm::Value* real = b->CreateFAdd(b->CreateFMul(expm1_a, cos), cos_m1);
  llvm::Value* imag = b->CreateSelect(
      b->CreateFCmpOEQ(bi, zero), zero,
      b->CreateFMul(b->CreateFAdd(expm1_a, one), Call(MathFunction::kSin, bi)));
  return Compose(real, imag);
}

// sin(x + iy) = sin x cosh y + i cos x sinh y,
// cos(x + iy) = cos x cosh y - i sin x sinh y, with cosh and sinh from one
// exp(y).
llvm::Value* ComplexEmitter::SinOrCos(bool sin, llvm::Value* z) {
  llvm::IRBuilderBase* b = b_;
  llvm::Value* x = Real(z);
  llvm::Value* y = Imag(z);
  llvm::Type* t = x->getType();
  llvm::Value* half = Const(t, 0.5);
  llvm::Value* exp_y = Call(MathFunction::kExp, y);
  llvm::Value* half_exp_y = b->CreateFMul(half, exp_y);
  llvm::Value* half_exp_neg_y = b->CreateFDiv(half, exp_y);
  llvm::Value* sinh_y = b->CreateFSub(half_exp_y, half_exp_neg_y);
  llvm::Value* cosh_y = b->CreateFAdd(half_exp_y, half_exp_neg_y);
  llvm::Value* sin_x = Call(MathFunction::kSin, x);
  llvm::Value* cos_x = Call(MathFunction::kCos, x);
  if (sin) {
    return Compose(b->CreateFMul(sin_x, cosh_y), b->CreateFMul(cos_x, sinh_y));
  }
  return Compose(b->CreateFMul(cos_x, cosh_y),
                 b->CreateFNeg(b->CreateFMul(sin_x, sinh_y)));
}

// tanh(a + bi) = (e^2a - e^-2a + 2i sin 2b) / (e^2a + e^-2a + 2 cos 2b),
// the exponentials as expm1 (accurate for small a), 2 cos 2b + 2 as
// 4 cos^2 b, 2 sin 2b as 4 sin b cos b. Where the exponentials overflow the
// real part is its limit +-1; C99's special values at NaN and inf follow.
llvm::Value* ComplexEmitter::Tanh(llvm::Value* z) {
  llvm::IRBuilderBase* b = b_;
  llvm::Value* a = Real(z);
  llvm::Value* bi = Imag(z);
  llvm::Type* t = a->getType();
  llvm::Value* zero = Const(t, 0.0);
  llvm::Value* four = Const(t, 4.0);
  llvm::Value* two_a = b->CreateFAdd(a, a);
  llvm::Value* exp_2a_m1 = Call(MathFunction::kExpm1, two_a);
  llvm::Value* exp_neg_2a_m1 = Call(MathFunction::kExpm1, b->CreateFNeg(two_a));
  llvm::Value* real_numerator = b->CreateFSub(exp_2a_m1, exp_neg_2a_m1);
  llvm::Value* cos_b = Call(MathFunction::kCos, bi);
  llvm::Value* sin_b = Call(MathFunction::kSin, bi);
  llvm::Value* imag_numerator =
      b->CreateFMul(four, b->CreateFMul(cos_b, sin_b));
  llvm::Value* exp_sum_m2 = b->CreateFAdd(exp_2a_m1, exp_neg_2a_m1);
  llvm::Value* denominator = b->CreateFAdd(
      exp_sum_m2, b->CreateFMul(b->CreateFMul(cos_b, cos_b), four));
  llvm::Value* overflow =
      b->CreateFCmpOEQ(exp_sum_m2, llvm::ConstantFP::getInfinity(t));
  llvm::Value* real =
      b->CreateSelect(overflow, CopySign(Const(t, 1.0), a),
                      b->CreateFDiv(real_numerator, denominator));
  llvm::Value* imag = b->CreateFDiv(imag_numerator, denominator);
  // Finite a with b infinite or NaN: (NaN, NaN), not (+-1, NaN). a = +-inf
  // with sin 2b NaN: (+-1, 0). a NaN, b = 0: (NaN, 0).
  llvm::Value* a_inf = IsInf(a);
  llvm::Value* sin_2b_nan = IsNaN(imag_numerator);
  real = b->CreateSelect(b->CreateAnd(sin_2b_nan, b->CreateNot(a_inf)),
                         llvm::ConstantFP::getNaN(t), real);
  imag = b->CreateSelect(
      b->CreateOr(b->CreateFCmpOEQ(bi, zero), b->CreateAnd(a_inf, sin_2b_nan)),
      zero, imag);
  return Compose(real, imag);
}

// sinh(a + bi) = sinh a cos b + i cosh a sin b,
// cosh(a + bi) = cosh a cos b + i sinh a sin b, with e^|a|/2 halved
// exactly (XLA's e^(a + log 1/2) rounds a + log 1/2 first: about |a| ulps
// off, 8 at a = 10 in c64), as (e^(|a|/2)/2) e^(|a|/2) where e^|a|
// overflows and cosh a does not; sinh a as (expm1(a) - expm1(-a)) / 2
// below |a| = 1, where the difference of the exponentials would cancel.
llvm::Value* ComplexEmitter::SinhOrCosh(bool sinh, llvm::Value* z) {
  llvm::IRBuilderBase* b = b_;
  llvm::Value* a = Real(z);
  llvm::Value* bi = Imag(z);
  llvm::Type* t = a->getType();
  llvm::Value* half = Const(t, 0.5);
  llvm::Value* abs_a = Fabs(a);
  llvm::Value* e = Call(MathFunction::kExp, abs_a);
  llvm::Value* e_sqrt = Call(MathFunction::kExp, b->CreateFMul(half, abs_a));
  llvm::Value* half_e = b->CreateSelect(
      b->CreateFCmpOEQ(e, llvm::ConstantFP::getInfinity(t)),
      b->CreateFMul(b->CreateFMul(half, e_sqrt), e_sqrt),
      b->CreateFMul(half, e));
  llvm::Value* half_inv_e = b->CreateFDiv(half, e);
  llvm::Value* cosh_a = b->CreateFAdd(half_e, half_inv_e);
  llvm::Value* small_sinh = b->CreateFMul(
      half, b->CreateFSub(Call(MathFunction::kExpm1, abs_a),
                          Call(MathFunction::kExpm1, b->CreateFNeg(abs_a))));
  llvm::Value* sinh_a = CopySign(
      b->CreateSelect(b->CreateFCmpOLT(abs_a, Const(t, 1.0)), small_sinh,
                      b->CreateFSub(half_e, half_inv_e)),
      a);
  llvm::Value* cos_b = Call(MathFunction::kCos, bi);
  llvm::Value* sin_b = Call(MathFunction::kSin, bi);
  // A real argument keeps a zero imaginary part where the hyperbolic factor
  // overflows (inf * 0 would be NaN).
  llvm::Value* real_arg = b->CreateFCmpOEQ(bi, Const(t, 0.0));
  if (sinh) {
    return Compose(b->CreateFMul(sinh_a, cos_b),
                   b->CreateSelect(real_arg, bi, b->CreateFMul(cosh_a, sin_b)));
  }
  return Compose(b->CreateFMul(cosh_a, cos_b),
                 b->CreateSelect(real_arg, bi, b->CreateFMul(sinh_a, sin_b)));
}

// XLA expands logistic before emission (its logistic expander) into
// 1 / (1 + exp(-z)), complex division included.
llvm::Value* ComplexEmitter::Logistic(llvm::Value* z) {
  llvm::Type* t = Real(z)->getType();
  llvm::Value* one = Compose(Const(t, 1.0), Const(t, 0.0));
  llvm::Value* minus_z =
      Compose(b_->CreateFNeg(Real(z)), b_->CreateFNeg(Imag(z)));
  return Divide(one, Add(one, Exp(minus_z)));
}

// (a + bi)^(c + di) in polar form: |z|^c e^(-d t) (cos u + i sin u) with
// t = arg z, u = c t + d log|z| (XLA's formula, with |z| as hypot rather
// than sqrt(a^2 + b^2), which overflows sooner). The formula is NaN at
// z = 0 and z = +inf; XLA:CPU's values there (and the evaluator's): 1 for
// a zero exponent or a base of 1, 0^c = 0 and inf^c = inf for real c > 0,
// inf^c = 0 for real c < 0; other exponents of 0 give NaN.
llvm::Value* ComplexEmitter::Power(llvm::Value* base, llvm::Value* exponent) {
  llvm::IRBuilderBase* b = b_;
  llvm::Value* a = Real(base);
  llvm::Value* bi = Imag(base);
  llvm::Value* c = Real(exponent);
  llvm::Value* d = Imag(exponent);
  llvm::Type* t = a->getType();
  llvm::Value* zero = Const(t, 0.0);
  llvm::Value* one = Const(t, 1.0);
  llvm::Value* inf = llvm::ConstantFP::getInfinity(t);
  llvm::Value* abs = Abs(base);
  llvm::Value* arg = Call(MathFunction::kAtan2, bi, a);
  llvm::Value* magnitude =
      b->CreateFMul(Call(MathFunction::kPow, abs, c),
                    Call(MathFunction::kExp, b->CreateFNeg(b->CreateFMul(d, arg))));
  llvm::Value* angle = b->CreateFAdd(
      b->CreateFMul(c, arg), b->CreateFMul(d, Call(MathFunction::kLog, abs)));
  llvm::Value* result =
      Compose(b->CreateFMul(magnitude, Call(MathFunction::kCos, angle)),
              b->CreateFMul(magnitude, Call(MathFunction::kSin, angle)));

  llvm::Value* b_zero = b->CreateFCmpOEQ(bi, zero);
  llvm::Value* d_zero = b->CreateFCmpOEQ(d, zero);
  llvm::Value* real_c_pos = b->CreateAnd(d_zero, b->CreateFCmpOGT(c, zero));
  llvm::Value* real_c_neg = b->CreateAnd(d_zero, b->CreateFCmpOLT(c, zero));
  llvm::Value* base_zero = b->CreateAnd(b->CreateFCmpOEQ(a, zero), b_zero);
  llvm::Value* base_inf = b->CreateAnd(b->CreateFCmpOEQ(a, inf), b_zero);
  llvm::Value* to_one = b->CreateOr(
      b->CreateAnd(b->CreateFCmpOEQ(a, one), b_zero),
      b->CreateAnd(b->CreateFCmpOEQ(c, zero), d_zero));
  result = b->CreateSelect(
      b->CreateOr(b->CreateAnd(base_zero, real_c_pos),
                  b->CreateAnd(base_inf, real_c_neg)),
      Compose(zero, zero), result);
  result = b->CreateSelect(b->CreateAnd(base_inf, real_c_pos),
                           Compose(inf, zero), result);
  return b->CreateSelect(to_one, Compose(one, zero), result);
}

// atan2(y, x) = -i log((x + iy) / sqrt(x^2 + y^2)) in complex arithmetic,
// XLA's definition for complex operands (and the evaluator's).
llvm::Value* ComplexEmitter::Atan2(llvm::Value* y, llvm::Value* x) {
  llvm::Value* iy = Compose(b_->CreateFNeg(Imag(y)), Real(y));
  llvm::Value* norm = Sqrt(Add(Multiply(x, x), Multiply(y, y)));
  llvm::Value* w = Log(Divide(Add(x, iy), norm));
  return Compose(Imag(w), b_->CreateFNeg(Real(w)));
}

llvm::Value* ComplexEmitter::Sign(llvm::Value* z) {
  llvm::Value* abs = Abs(z);
  llvm::Value* zero = Const(abs->getType(), 0.0);
  return b_->CreateSelect(
      b_->CreateFCmpOEQ(abs, zero), Compose(zero, zero),
      Compose(b_->CreateFDiv(Real(z), abs), b_->CreateFDiv(Imag(z), abs)));
}

// --- Dispatch ----------------------------------------------------------------

absl::StatusOr<llvm::Value*> ComplexEmitter::EmitUnary(HloOpcode op,
                                                       llvm::Value* z) {
  switch (op) {
    case HloOpcode::kReal:
      return Real(z);
    case HloOpcode::kImag:
      return Imag(z);
    case HloOpcode::kNegate:
      return Compose(b_->CreateFNeg(Real(z)), b_->CreateFNeg(Imag(z)));
    case HloOpcode::kAbs:
      return Abs(z);
    case HloOpcode::kSign:
      return Sign(z);
    case HloOpcode::kSqrt:
      return Sqrt(z);
    case HloOpcode::kRsqrt:
      return Rsqrt(z);
    case HloOpcode::kExp:
      return Exp(z);
    case HloOpcode::kExpm1:
      return Expm1(z);
    case HloOpcode::kLog:
      return Log(z);
    case HloOpcode::kLog1p:
      return Log1p(z);
    case HloOpcode::kSin:
      return SinOrCos(/*sin=*/true, z);
    case HloOpcode::kCos:
      return SinOrCos(/*sin=*/false, z);
    case HloOpcode::kTanh:
      return Tanh(z);
    case HloOpcode::kSinh:
      return SinhOrCosh(/*sinh=*/true, z);
    case HloOpcode::kCosh:
      return SinhOrCosh(/*sinh=*/false, z);
    case HloOpcode::kLogistic:
      return Logistic(z);
    case HloOpcode::kAsin:
      return Asin(z);
    case HloOpcode::kAcos:
      return Acos(z);
    case HloOpcode::kAsinh:
      return Asinh(z);
    case HloOpcode::kAcosh:
      return Acosh(z);
    case HloOpcode::kAtan:
      return Atan(z);
    case HloOpcode::kAtanh:
      return Atanh(z);
    case HloOpcode::kTan: {
      // tan(x + iy) = -i tanh(-y + ix).
      llvm::Value* w = Tanh(Compose(b_->CreateFNeg(Imag(z)), Real(z)));
      return Compose(Imag(w), b_->CreateFNeg(Real(w)));
    }
    default:
      return absl::UnimplementedError(
          absl::StrCat("elemental emitter: ", std::string(HloOpcodeString(op)),
                       " on a complex operand"));
  }
}

absl::StatusOr<llvm::Value*> ComplexEmitter::EmitBinary(HloOpcode op,
                                                        llvm::Value* lhs,
                                                        llvm::Value* rhs) {
  switch (op) {
    case HloOpcode::kAdd:
      return Add(lhs, rhs);
    case HloOpcode::kSubtract:
      return Compose(b_->CreateFSub(Real(lhs), Real(rhs)),
                     b_->CreateFSub(Imag(lhs), Imag(rhs)));
    case HloOpcode::kMultiply:
      return Multiply(lhs, rhs);
    case HloOpcode::kDivide:
      return Divide(lhs, rhs);
    case HloOpcode::kPower:
      return Power(lhs, rhs);
    case HloOpcode::kAtan2:
      return Atan2(lhs, rhs);
    default:
      return absl::UnimplementedError(
          absl::StrCat("elemental emitter: ", std::string(HloOpcodeString(op)),
                       " on complex operands"));
  }
}

absl::StatusOr<llvm::Value*> ComplexEmitter::EmitCompare(
    ComparisonDirection direction, llvm::Value* lhs, llvm::Value* rhs) {
  switch (direction) {
    case ComparisonDirection::kEq:
      return b_->CreateAnd(b_->CreateFCmpOEQ(Real(lhs), Real(rhs)),
                           b_->CreateFCmpOEQ(Imag(lhs), Imag(rhs)));
    case ComparisonDirection::kNe:
      return b_->CreateOr(b_->CreateFCmpUNE(Real(lhs), Real(rhs)),
                          b_->CreateFCmpUNE(Imag(lhs), Imag(rhs)));
    default:
      return absl::UnimplementedError(
          "elemental emitter: complex numbers compare only for eq and ne");
  }
}

}  // namespace hloc
