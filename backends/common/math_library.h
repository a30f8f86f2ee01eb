// MathLibrary: how a target computes the transcendental functions the
// elemental emitter needs. Arguments are scalar `float` or `double` values
// (the elemental emitter widens f16/bf16 to f32 before and rounds after).
//
// The base class calls the target's scalar math functions by name: libm's
// (expf/exp, ...) by default; a GPU target overrides FunctionName to call
// libdevice (__nv_expf) or ocml (__ocml_exp_f32), and may override single
// functions where it has a native instruction. HostMathLibrary (the CPU's)
// replaces exp, log and tanh of f32 with branch-free polynomial and
// rational approximations written in IR, so loops that use them still
// vectorize; everything else is a libm call, which the loop vectorizer
// cannot widen.
#ifndef BACKENDS_COMMON_MATH_LIBRARY_H_
#define BACKENDS_COMMON_MATH_LIBRARY_H_

#include <string>

#include "absl/types/span.h"

namespace llvm {
class Function;
class IRBuilderBase;
class Module;
class Type;
class Value;
}  // namespace llvm

namespace hloc {

enum class MathFunction {
  kAcos,
  kAcosh,
  kAsin,
  kAsinh,
  kAtan,
  kAtan2,
  kAtanh,
  kCbrt,
  kCos,
  kCosh,
  kErf,
  kExp,
  kExpm1,
  kFmod,
  kLog,
  kLog1p,
  kPow,
  kSin,
  kSinh,
  kTan,
  kTanh,
};

class MathLibrary {
 public:
  virtual ~MathLibrary() = default;

  // Emits fn(args...) at b's insertion point in `module`; every argument has
  // the same float or double type, and so has the result.
  virtual llvm::Value* Emit(MathFunction fn,
                            absl::Span<llvm::Value* const> args,
                            llvm::Module* module, llvm::IRBuilderBase* b) const;

  // The external function computing `fn` on `type` ("expf", "exp").
  virtual std::string FunctionName(MathFunction fn, llvm::Type* type) const;

  // A cheaper way to compute `fn` on f32, for results that may err more
  // than the default's couple of ulps (a result_accuracy tolerance, or
  // arithmetic float-normalization widened from bf16, f16 or an 8-bit
  // float, whose own rounding errs far more): the largest relative error
  // of EmitApproximation(fn) over every f32 argument whose result is a
  // normal f32, or 0 when the target has no such version of `fn`.
  virtual double ApproximationError(MathFunction fn) const { return 0; }
  // Emits that version of fn(x) on an f32 `x`; only called where
  // ApproximationError(fn) is not 0.
  virtual llvm::Value* EmitApproximation(MathFunction fn, llvm::Value* x,
                                         llvm::IRBuilderBase* b) const {
    return nullptr;
  }

  // True if the target rounds f32 to bf16 in one instruction (an fptrunc
  // to bfloat lowers to it), so the elemental emitter need not round on
  // the bits, which costs about ten integer instructions per conversion.
  virtual bool HasBf16Truncation() const { return false; }

  // True if an fptrunc from double to half (and, with HasBf16Truncation,
  // to bfloat) rounds once on the target, as XLA:GPU's conversions do
  // (NVPTX: cvt.rn.f16.f64, cvt.rn.bf16.f64 or LLVM's exact expansion).
  // Elsewhere f64 goes through f32, two roundings, as XLA:CPU's do:
  // 65519.999999 becomes 65520 in f32 and then inf in f16, not 65504.
  virtual bool HasExactF64Narrowing() const { return false; }

  // True if LLVM's frem is exact IEEE fmod on the target (x86 and AArch64
  // lower it to libm's fmod). NVPTX expands it as x - trunc(x / y) * y,
  // wrong for infinite or huge quotients and for the sign of a zero
  // result: the elemental emitter calls the library's fmod there instead.
  virtual bool HasExactFrem() const { return true; }

  // True if the target's kernels may run with f32/f64 denormal inputs read
  // as zero (the CPU runtime sets x86's MXCSR DAZ to flush as XLA:CPU
  // does) while the IR's semantics stay IEEE. LLVM's InstCombine then
  // rewrites fcmp oeq (bitcast i32 %x to float), 0.0 as an integer test of
  // %x's magnitude bits, false for the denormals that DAZ makes equal to
  // zero, whatever the function's denormal-fp-math says (LLVM 19). The
  // elemental emitter fences (llvm.arithmetic.fence, no code) a float
  // comparison's operands that a bitcast made from integer bits, which
  // InstCombine does not see through.
  virtual bool FencesFloatsFromBits() const { return false; }

 protected:
  // Declares FunctionName(fn, type) as a pure function and calls it.
  llvm::Value* EmitCall(MathFunction fn, absl::Span<llvm::Value* const> args,
                        llvm::Module* module, llvm::IRBuilderBase* b) const;
};

// The CPU's library: libm plus vectorizable f32 exp, log and tanh.
class HostMathLibrary : public MathLibrary {
 public:
  llvm::Value* Emit(MathFunction fn, absl::Span<llvm::Value* const> args,
                    llvm::Module* module,
                    llvm::IRBuilderBase* b) const override;
  bool FencesFloatsFromBits() const override { return true; }

 private:
  llvm::Value* EmitCbrt(llvm::Value* x, llvm::Module* module,
                        llvm::IRBuilderBase* b) const;
};

// exp(x) on f32 as exp2(x * log2(e)), `exp2` being the hardware's f32
// base-2 exponential (NVPTX's ex2.approx, AMDGPU's v_exp_f32): two
// instructions where libdevice's and OCML's expf take about ten. For
// |x| < 88.73 the product is below 128 in magnitude, so its rounding and
// log2(e)'s each put at most 2^-18 into the exponent, about 2^-18.5 of the
// result; the instructions' own error (PTX documents ex2.approx.f32 at
// 2 ulp) adds less than 2^-21. kExpThroughExp2Error says 2^-16 for margin;
// the GPU case tests/gpu/approximate_math measures it on the device.
inline constexpr double kExpThroughExp2Error = 1.0 / 65536;
llvm::Value* EmitExpThroughExp2(llvm::Value* x, llvm::Function* exp2,
                                llvm::IRBuilderBase* b);

// The approximations, for any target that wants them: scalar, branch-free
// IR without calls or target intrinsics (llvm.fmuladd for the multiply-adds,
// fused where the target has FMA), so the loop vectorizer widens it for
// x86 and AArch64 alike. NaN, infinities and zeros are handled as libm does.
// Maximum errors over all 2^32 f32 inputs (math_library_test with
// HLOC_MATH_EXHAUSTIVE=1), with FMA / without:
//   exp:  1.48 / 1.83 ulp for normal results; results below FLT_MIN (x
//         below about -87.34) are flushed to +0; +inf from x >= 88.7228394.
//   log:  0.93 / 0.95 ulp, denormal inputs included.
//   tanh: 5.2 / 6.3 ulp (results just below 1); |tanh| never exceeds 1.
llvm::Value* EmitFastExpF32(llvm::Value* x, llvm::IRBuilderBase* b);
llvm::Value* EmitFastLogF32(llvm::Value* x, llvm::IRBuilderBase* b);
llvm::Value* EmitFastTanhF32(llvm::Value* x, llvm::IRBuilderBase* b);

}  // namespace hloc

#endif  // BACKENDS_COMMON_MATH_LIBRARY_H_
