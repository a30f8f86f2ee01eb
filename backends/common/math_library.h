// MathLibrary: how a target computes the transcendental functions the
// elemental emitter needs. Arguments are scalar `float` or `double` values
// (the elemental emitter widens f16/bf16 to f32 before and rounds after).
//
// The base class calls the target's scalar math functions by name: libm's
// (expf/exp, ...) by default; a GPU target overrides FunctionName to call
// libdevice (__nv_expf) or ocml (__ocml_exp_f32), and may override single
// functions where it has a native instruction. HostMathLibrary (the CPU's)
// replaces exp, log and tanh of f32 with branch-free polynomial
// approximations written in IR, so loops that use them still vectorize;
// everything else is a libm call, which the loop vectorizer cannot widen.
#ifndef BACKENDS_COMMON_MATH_LIBRARY_H_
#define BACKENDS_COMMON_MATH_LIBRARY_H_

#include <string>

#include "absl/types/span.h"

namespace llvm {
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
};

// The polynomial approximations, for any target that wants them (a few ulp
// of error; NaN, infinities and zeros handled as libm does).
llvm::Value* EmitFastExpF32(llvm::Value* x, llvm::IRBuilderBase* b);
llvm::Value* EmitFastLogF32(llvm::Value* x, llvm::IRBuilderBase* b);
llvm::Value* EmitFastTanhF32(llvm::Value* x, llvm::IRBuilderBase* b);

}  // namespace hloc

#endif  // BACKENDS_COMMON_MATH_LIBRARY_H_
