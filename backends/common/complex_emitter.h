// Complex numbers (c64, c128) in generated code. An element is the LLVM
// struct {float, float} or {double, double}: real part first, then the
// imaginary part, which is exactly how XLA lays complex buffers out
// (interleaved), so loads and stores need no shuffling. A struct rather than
// a <2 x T> vector because the struct's alignment is the component's, and a
// complex buffer (or a slice of one) is only guaranteed that much.
//
// The formulas are XLA's elemental IR emitter's (its results are what the
// JAX tests compare with):
// - multiply is the textbook (ac - bd) + (ad + bc)i, no special cases;
// - divide is Smith's algorithm, with C99-style fixes where it gives
//   (NaN, NaN): a zero denominator gives signed infinities, an infinite
//   numerator over a finite denominator infinities, a finite numerator over
//   an infinite denominator zeros;
// - abs is hypot without overflow: max * sqrt(1 + (min/max)^2), and where
//   that is NaN, min ((0, 0) -> 0, (inf, inf) -> inf; a NaN part -> NaN,
//   even beside an infinity, as XLA:CPU gives);
// - log is log|z| + i atan2(b, a); exp is e^a (cos b + i sin b) with
//   imag = 0 when b = 0 and e^(a/2) applied twice where e^a overflows;
// - sqrt and rsqrt are |z|^(+-1/2) (cos(+-t/2) + i sin(+-t/2)), t = arg z,
//   with |z|^(1/2) computed as sqrt(max) * (1 + (min/max)^2)^(1/4) and the
//   signed infinities and zeros of C99's csqrt at the branch cut;
// - sign is z / |z| (0 at 0); sin, cos, expm1, log1p and tanh as XLA's;
// - sinh and cosh from sinh, cosh, cos and sin of the parts, logistic as
//   1 / (1 + exp(-z)) (XLA's logistic expander), power as XLA's polar
//   |a|^c e^(-d arg a) (cos + i sin)(c arg a + d log|a|) with its values
//   at 0, 1 and +inf, atan2(y, x) as XLA's -i log((x + iy) / sqrt(x^2 +
//   y^2));
// - asin, acos, asinh, acosh, atan and atanh are the accurate algorithms
//   current XLA uses (complex_inverse_emitter.cc says which).
// Compare on complex is only eq (both parts ordered-equal) and ne (either
// part unordered-unequal).
#ifndef BACKENDS_COMMON_COMPLEX_EMITTER_H_
#define BACKENDS_COMMON_COMPLEX_EMITTER_H_

#include "absl/status/statusor.h"
#include "hlo/attributes.h"
#include "hlo/opcode.h"
#include "hlo/primitive_type.h"

namespace llvm {
class IRBuilderBase;
class LLVMContext;
class Module;
class StructType;
class Type;
class Value;
}  // namespace llvm

namespace hloc {

class MathLibrary;
enum class MathFunction;

// The register and storage type of a c64 (`component` float) or c128
// (double) element.
llvm::StructType* ComplexStructType(llvm::Type* component);

class ComplexEmitter {
 public:
  ComplexEmitter(llvm::Module* module, llvm::IRBuilderBase* b,
                 const MathLibrary* math)
      : module_(module), b_(b), math_(math) {}

  llvm::Value* Compose(llvm::Value* real, llvm::Value* imag);
  llvm::Value* Real(llvm::Value* z);
  llvm::Value* Imag(llvm::Value* z);

  // `op` on a complex operand (kReal and kImag give the component; the
  // others a complex value).
  absl::StatusOr<llvm::Value*> EmitUnary(HloOpcode op, llvm::Value* z);
  // `op` on two complex operands.
  absl::StatusOr<llvm::Value*> EmitBinary(HloOpcode op, llvm::Value* lhs,
                                          llvm::Value* rhs);
  absl::StatusOr<llvm::Value*> EmitCompare(ComparisonDirection direction,
                                           llvm::Value* lhs, llvm::Value* rhs);

  llvm::Value* Add(llvm::Value* lhs, llvm::Value* rhs);
  llvm::Value* Multiply(llvm::Value* lhs, llvm::Value* rhs);
  llvm::Value* Divide(llvm::Value* lhs, llvm::Value* rhs);
  llvm::Value* Abs(llvm::Value* z);

 private:
  // max(|a|, |b|), min(|a|, |b|) and 1 + (min/max)^2 of z = a + bi.
  struct AbsParts {
    llvm::Value* max;
    llvm::Value* min;
    llvm::Value* one_plus_ratio_sq;
  };
  AbsParts Hypot(llvm::Value* a, llvm::Value* b);
  // |z|^(1/2) and |z|^(-1/2), as XLA computes them for sqrt and rsqrt.
  llvm::Value* SqrtOfAbs(llvm::Value* z);
  llvm::Value* RsqrtOfAbs(llvm::Value* z);
  llvm::Value* Sqrt(llvm::Value* z);
  llvm::Value* Rsqrt(llvm::Value* z);
  llvm::Value* Log(llvm::Value* z);
  llvm::Value* Log1p(llvm::Value* z);
  llvm::Value* Exp(llvm::Value* z);
  llvm::Value* Expm1(llvm::Value* z);
  llvm::Value* SinOrCos(bool sin, llvm::Value* z);
  llvm::Value* Tanh(llvm::Value* z);
  llvm::Value* Sign(llvm::Value* z);
  llvm::Value* SinhOrCosh(bool sinh, llvm::Value* z);
  llvm::Value* Logistic(llvm::Value* z);
  llvm::Value* Power(llvm::Value* base, llvm::Value* exponent);
  llvm::Value* Atan2(llvm::Value* y, llvm::Value* x);

  // complex_inverse_emitter.cc. For x, y >= 0: the real parts of asin and
  // acos of x + iy (both in [0, pi/2]) and the magnitude of their
  // imaginary parts (asin's is +imag, acos's -imag).
  struct AsinParts {
    llvm::Value* asin_real;
    llvm::Value* acos_real;
    llvm::Value* imag;
  };
  AsinParts AsinAcos(llvm::Value* x, llvm::Value* y);
  // Re acos(z) from the parts of |Re z| + i|Im z|.
  llvm::Value* AcosReal(llvm::Value* re, const AsinParts& p);
  llvm::Value* Asin(llvm::Value* z);
  llvm::Value* Acos(llvm::Value* z);
  llvm::Value* Asinh(llvm::Value* z);
  llvm::Value* Acosh(llvm::Value* z);
  llvm::Value* Atanh(llvm::Value* z);
  llvm::Value* Atan(llvm::Value* z);

  llvm::Value* Call(MathFunction fn, llvm::Value* x);
  llvm::Value* Call(MathFunction fn, llvm::Value* x, llvm::Value* y);
  llvm::Value* Const(llvm::Type* type, double value);
  llvm::Value* Fabs(llvm::Value* x);
  llvm::Value* CopySign(llvm::Value* magnitude, llvm::Value* sign);
  llvm::Value* IsInf(llvm::Value* x);    // |x| == inf
  llvm::Value* IsNaN(llvm::Value* x);

  llvm::Module* module_;
  llvm::IRBuilderBase* b_;
  const MathLibrary* math_;
};

}  // namespace hloc

#endif  // BACKENDS_COMMON_COMPLEX_EMITTER_H_
