// Conversions between f32 and the narrow floats (the 8-bit ones,
// f4e2m1fn and f8e8m0fnu) in LLVM IR, for every target: the same
// arithmetic as the host's (hlo/float8.h), on values the code generators
// keep as i8. No target has an instruction with XLA's
// semantics (NVIDIA's cvt.rn.satfinite saturates where XLA gives NaN or
// inf), so both directions are integer and float arithmetic that
// vectorises: about twenty instructions from f32, a dozen to it.
#ifndef BACKENDS_COMMON_FLOAT8_CONVERT_H_
#define BACKENDS_COMMON_FLOAT8_CONVERT_H_

#include "hlo/float8.h"
#include "llvm/IR/IRBuilder.h"

namespace hloc {

// f64 -> f32 rounded to odd (F64ToF32RoundToOdd in hlo/float8.h): what
// EmitF32ToFloat8 rounds to convert an f64 with one rounding.
llvm::Value* EmitF64ToF32RoundToOdd(llvm::IRBuilderBase* b, llvm::Value* value);

// i8 bits of `format` -> f32 (exact).
llvm::Value* EmitFloat8ToF32(llvm::IRBuilderBase* b, llvm::Value* bits,
                             const Float8Format& format);

// f32 -> i8 bits of `format`, rounding to nearest even, overflowing to inf
// (IEEE-like formats), the largest value (f4e2m1fn) or NaN (the others);
// f8e8m0fnu rounds its bits (hlo/float8.h).
llvm::Value* EmitF32ToFloat8(llvm::IRBuilderBase* b, llvm::Value* value,
                             const Float8Format& format);

}  // namespace hloc

#endif  // BACKENDS_COMMON_FLOAT8_CONVERT_H_
