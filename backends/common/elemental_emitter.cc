#include "backends/common/elemental_emitter.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "backends/common/complex_emitter.h"
#include "backends/common/float8_convert.h"
#include "backends/common/loop_emitter.h"
#include "backends/common/math_library.h"
#include "hlo/status_macros.h"
#include "hlo/sub_byte_int.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Operator.h"

namespace hloc {
namespace {

absl::Status Unimplemented(const HloInstruction* hlo, absl::string_view what) {
  return absl::UnimplementedError(
      absl::StrCat("elemental emitter: ", std::string(what), " (",
                   hlo->ToShortString(), ")"));
}

std::vector<int64_t> RowMajorStrides(absl::Span<const int64_t> dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (int64_t d = static_cast<int64_t>(dims.size()) - 2; d >= 0; --d) {
    strides[d] = strides[d + 1] * dims[d + 1];
  }
  return strides;
}

llvm::Value* MathCall(const MathLibrary* math, MathFunction fn,
                      std::vector<llvm::Value*> args, llvm::Module* module,
                      llvm::IRBuilderBase* b) {
  return math->Emit(fn, args, module, b);
}

// The relative error a transcendental's result may have beyond the
// default implementation's: its result_accuracy tolerance (rtol, or ulps
// of its type, an ulp being at least UnitRoundoff of the value), or, for
// an op computed here in f32 for a bf16/f16 result, the narrow type's
// rounding. 0 for mode=highest and for f32/f64 ops without one.
double ToleratedRelativeError(const HloInstruction& hlo) {
  const std::optional<ResultAccuracy>& accuracy = hlo.attrs().result_accuracy;
  const PrimitiveType type = hlo.shape().element_type();
  if (accuracy) {
    if (!accuracy->has_tolerance) return 0;
    return std::max(accuracy->rtol,
                    static_cast<double>(accuracy->ulps) * UnitRoundoff(type));
  }
  if (type == BF16 || type == F16) return UnitRoundoff(type);
  return 0;
}

// An operand of a float comparison, fenced (llvm.arithmetic.fence, no
// code) where the target asks (MathLibrary::FencesFloatsFromBits) and `v`
// is a float a bitcast made from integer bits (a bitcast-convert): LLVM's
// InstCombine would otherwise turn fcmp oeq (bitcast i32 %x), 0.0 into an
// integer test that misses the denormals DAZ reads as zero. Only here, not
// on every bitcast-convert: the fence keeps LLVM from vectorizing.
llvm::Value* FenceFloatFromBits(llvm::Value* v, const MathLibrary* math,
                                llvm::IRBuilderBase* b) {
  auto* cast = llvm::dyn_cast<llvm::BitCastOperator>(v);
  if (math == nullptr || !math->FencesFloatsFromBits() || cast == nullptr ||
      !cast->getSrcTy()->isIntOrIntVectorTy() ||
      !v->getType()->isFPOrFPVectorTy()) {
    return v;
  }
  return b->CreateUnaryIntrinsic(llvm::Intrinsic::arithmetic_fence, v);
}

}  // namespace

ElementalEmitter::ElementalEmitter(llvm::Module* module, llvm::IRBuilderBase* b,
                                   const MathLibrary* math)
    : module_(module), b_(b), math_(math) {}

// --- Types -------------------------------------------------------------------

llvm::Value* ElementalEmitter::Widen(llvm::Value* x) {
  llvm::Type* t = x->getType();
  if (t->isHalfTy()) return b_->CreateFPExt(x, b_->getFloatTy());
  if (t->isBFloatTy()) {
    llvm::Value* bits = b_->CreateZExt(b_->CreateBitCast(x, b_->getInt16Ty()),
                                       b_->getInt32Ty());
    return b_->CreateBitCast(b_->CreateShl(bits, 16), b_->getFloatTy());
  }
  return x;
}

llvm::Value* ElementalEmitter::Narrow(llvm::Value* x, PrimitiveType to) {
  const bool exact_f64 = math_ != nullptr && math_->HasExactF64Narrowing();
  if (to == F16) {
    if (x->getType()->isDoubleTy() && !exact_f64) {
      x = b_->CreateFPTrunc(x, b_->getFloatTy());
    }
    return b_->CreateFPTrunc(x, b_->getHalfTy());
  }
  if (to == BF16 && math_ != nullptr && math_->HasBf16Truncation()) {
    if (x->getType()->isDoubleTy() && !exact_f64) {
      x = b_->CreateFPTrunc(x, b_->getFloatTy());
    }
    return b_->CreateFPTrunc(x, b_->getBFloatTy());
  }
  if (to == BF16) {
    // Round to nearest even on the bits; NaN stays a quiet NaN. (An fptrunc
    // to bfloat would become a runtime library call on most CPUs.)
    if (x->getType()->isDoubleTy()) x = b_->CreateFPTrunc(x, b_->getFloatTy());
    llvm::Value* bits = b_->CreateBitCast(x, b_->getInt32Ty());
    llvm::Value* lsb = b_->CreateAnd(b_->CreateLShr(bits, 16), b_->getInt32(1));
    llvm::Value* rounded =
        b_->CreateAdd(bits, b_->CreateAdd(lsb, b_->getInt32(0x7fff)));
    llvm::Value* value =
        b_->CreateTrunc(b_->CreateLShr(rounded, 16), b_->getInt16Ty());
    llvm::Value* nan = b_->CreateOr(
        b_->CreateTrunc(b_->CreateLShr(bits, 16), b_->getInt16Ty()),
        b_->getInt16(0x40));
    value = b_->CreateSelect(b_->CreateFCmpUNO(x, x), nan, value);
    return b_->CreateBitCast(value, b_->getBFloatTy());
  }
  if (to == F32 && x->getType()->isDoubleTy()) {
    return b_->CreateFPTrunc(x, b_->getFloatTy());
  }
  if (to == F64 && x->getType()->isFloatTy()) {
    return b_->CreateFPExt(x, b_->getDoubleTy());
  }
  return x;
}

// max, min, abs, negate, sign, clamp and the roundings to integers return
// one of their bf16 operands (or a value with no more significant bits),
// so the f32 result's low 16 bits are zero and truncating them is exact.
// NaNs stay NaNs: a quiet NaN's quiet bit is among the high 16. Rounding
// to nearest even would give the same bits in five more instructions (a
// conversion-unit instruction on the GPU), once per step of a bf16 max
// reduction.
llvm::Value* ElementalEmitter::NarrowResult(HloOpcode op, llvm::Value* x,
                                            PrimitiveType to) {
  if (to != BF16 || !x->getType()->isFloatTy()) return Narrow(x, to);
  switch (op) {
    case HloOpcode::kMaximum:
    case HloOpcode::kMinimum:
    case HloOpcode::kAbs:
    case HloOpcode::kNegate:
    case HloOpcode::kSign:
    case HloOpcode::kClamp:
    case HloOpcode::kFloor:
    case HloOpcode::kCeil:
    case HloOpcode::kRoundNearestAfz:
    case HloOpcode::kRoundNearestEven: {
      llvm::Value* bits = b_->CreateBitCast(x, b_->getInt32Ty());
      llvm::Value* high =
          b_->CreateTrunc(b_->CreateLShr(bits, 16), b_->getInt16Ty());
      return b_->CreateBitCast(high, b_->getBFloatTy());
    }
    default:
      return Narrow(x, to);
  }
}

absl::StatusOr<llvm::Value*> ElementalEmitter::EmitConvert(llvm::Value* x,
                                                           PrimitiveType from,
                                                           PrimitiveType to) {
  if (from == to) return x;
  if (IsComplexType(from) || IsComplexType(to)) {
    return EmitComplexConvert(x, from, to);
  }
  // 8-bit floats convert through f32: exactly from them, and to them after
  // a conversion to f32 whose rounding cannot change the result: f32 has
  // more than twice their mantissa bits plus two, so an f16, bf16 or any
  // integer they do not overflow converts exactly; an f64 is rounded to
  // odd, which keeps it on its side of every half way point.
  const Float8Format* from8 = Float8FormatOf(from);
  const Float8Format* to8 = Float8FormatOf(to);
  if (from8 != nullptr || to8 != nullptr) {
    if (from8 != nullptr) {
      x = EmitFloat8ToF32(b_, x, *from8);
      from = F32;
    }
    if (to8 == nullptr) return EmitConvert(x, from, to);
    if (from == F64) {
      x = EmitF64ToF32RoundToOdd(b_, x);
    } else {
      HLOC_ASSIGN_OR_RETURN(x, EmitConvert(x, from, F32));
    }
    return EmitF32ToFloat8(b_, x, *to8);
  }
  // Sub-byte integers are their values in an i8 (ir_array.h): from one,
  // convert as from its byte type; to one, convert to its byte type and
  // wrap, but from a float saturate at the narrow type's bounds.
  if (IsSubByteIntegralType(from)) return EmitConvert(x, ByteTypeOf(from), to);
  if (IsSubByteIntegralType(to)) {
    if (IsFloatingPointType(from)) {
      x = Widen(x);
      const bool is_signed = IsSignedIntegralType(to);
      llvm::Value* narrow = b_->CreateIntrinsic(
          is_signed ? llvm::Intrinsic::fptosi_sat : llvm::Intrinsic::fptoui_sat,
          {b_->getIntNTy(BitWidth(to)), x->getType()}, {x});
      return is_signed ? b_->CreateSExt(narrow, b_->getInt8Ty())
                       : b_->CreateZExt(narrow, b_->getInt8Ty());
    }
    HLOC_ASSIGN_OR_RETURN(x, EmitConvert(x, from, ByteTypeOf(to)));
    return EmitWrapSubByte(x, to, b_);
  }
  HLOC_ASSIGN_OR_RETURN(llvm::Type * to_type,
                        RegisterType(to, b_->getContext()));
  if (to == PRED) {
    if (IsFloatingPointType(from)) {
      x = Widen(x);
      return b_->CreateFCmpUNE(x, llvm::ConstantFP::get(x->getType(), 0.0));
    }
    return b_->CreateICmpNE(x, llvm::ConstantInt::get(x->getType(), 0));
  }
  if (from == PRED) {
    if (IsFloatingPointType(to)) {
      llvm::Type* wide = to == F64 ? b_->getDoubleTy() : b_->getFloatTy();
      return Narrow(b_->CreateUIToFP(x, wide), to);
    }
    return b_->CreateZExt(x, to_type);
  }
  if (IsIntegralType(from) && IsIntegralType(to)) {
    return b_->CreateIntCast(x, to_type, IsSignedIntegralType(from));
  }
  if (IsIntegralType(from) && IsFloatingPointType(to)) {
    llvm::Type* wide = to == F64 ? b_->getDoubleTy() : b_->getFloatTy();
    llvm::Value* v = IsSignedIntegralType(from) ? b_->CreateSIToFP(x, wide)
                                                : b_->CreateUIToFP(x, wide);
    return Narrow(v, to);
  }
  if (IsFloatingPointType(from) && IsIntegralType(to)) {
    // Saturating, NaN -> 0: exactly llvm.fpto[su]i.sat.
    x = Widen(x);
    return b_->CreateIntrinsic(IsSignedIntegralType(to)
                                   ? llvm::Intrinsic::fptosi_sat
                                   : llvm::Intrinsic::fptoui_sat,
                               {to_type, x->getType()}, {x});
  }
  if (IsFloatingPointType(from) && IsFloatingPointType(to)) {
    return Narrow(Widen(x), to);
  }
  return absl::UnimplementedError(absl::StrCat(
      "elemental emitter: convert from ", std::string(PrimitiveTypeName(from)),
      " to ", std::string(PrimitiveTypeName(to))));
}

// As XLA: a real value becomes the real part (converted to the component
// type) with a zero imaginary part; c64 <-> c128 converts both parts;
// complex -> real is not an HLO conversion (real() is).
absl::StatusOr<llvm::Value*> ElementalEmitter::EmitComplexConvert(
    llvm::Value* x, PrimitiveType from, PrimitiveType to) {
  ComplexEmitter complex(module_, b_, math_);
  if (!IsComplexType(to)) {
    return absl::UnimplementedError(absl::StrCat(
        "elemental emitter: convert from ", std::string(PrimitiveTypeName(from)),
        " to ", std::string(PrimitiveTypeName(to)),
        " (complex to real is real(), not convert)"));
  }
  PrimitiveType component = ComplexComponentType(to);
  if (IsComplexType(from)) {
    PrimitiveType from_component = ComplexComponentType(from);
    HLOC_ASSIGN_OR_RETURN(llvm::Value * re,
                          EmitConvert(complex.Real(x), from_component, component));
    HLOC_ASSIGN_OR_RETURN(llvm::Value * im,
                          EmitConvert(complex.Imag(x), from_component, component));
    return complex.Compose(re, im);
  }
  HLOC_ASSIGN_OR_RETURN(llvm::Value * re, EmitConvert(x, from, component));
  return complex.Compose(re, llvm::ConstantFP::get(re->getType(), 0.0));
}

// --- Elementwise ops ---------------------------------------------------------

absl::StatusOr<llvm::Value*> ElementalEmitter::EmitElementwise(
    const HloInstruction* hlo, absl::Span<llvm::Value* const> operands) {
  // 8-bit floats and sub-byte integers are only moved and converted here
  // (their values are i8); the pipelines' float8-normalization and
  // sub-byte-normalization compute their arithmetic in f32 and 8 bits
  // before code generation.
  const bool moves = hlo->opcode() == HloOpcode::kSelect ||
                     hlo->opcode() == HloOpcode::kConvert ||
                     hlo->opcode() == HloOpcode::kBitcastConvert;
  if (!moves && TouchesFloat8(*hlo)) {
    return Unimplemented(hlo,
                         "arithmetic on an 8-bit float type (compute it in "
                         "f32: the float8-normalization pass)");
  }
  if (!moves && TouchesSubByteInt(*hlo)) {
    return Unimplemented(hlo,
                         "arithmetic on a sub-byte integer type (compute it "
                         "in 8 bits: the sub-byte-normalization pass)");
  }
  switch (hlo->opcode()) {
    case HloOpcode::kSelect:
      return b_->CreateSelect(operands[0], operands[1], operands[2]);
    case HloOpcode::kClamp: {
      // clamp(lo, x, hi) = min(max(x, lo), hi), with the type's max and min.
      PrimitiveType t = hlo->shape().element_type();
      if (IsFloatingPointType(t)) {
        llvm::Value* x = Widen(operands[1]);
        x = b_->CreateBinaryIntrinsic(llvm::Intrinsic::maximum, x,
                                      Widen(operands[0]));
        x = b_->CreateBinaryIntrinsic(llvm::Intrinsic::minimum, x,
                                      Widen(operands[2]));
        return NarrowResult(HloOpcode::kClamp, x, t);
      }
      bool is_signed = IsSignedIntegralType(t);
      llvm::Value* x = b_->CreateBinaryIntrinsic(
          is_signed ? llvm::Intrinsic::smax : llvm::Intrinsic::umax,
          operands[1], operands[0]);
      return b_->CreateBinaryIntrinsic(
          is_signed ? llvm::Intrinsic::smin : llvm::Intrinsic::umin, x,
          operands[2]);
    }
    case HloOpcode::kCompare:
      return EmitCompare(hlo, operands[0], operands[1]);
    default:
      break;
  }
  if (hlo->operand_count() == 1) return EmitUnary(hlo, operands[0]);
  if (hlo->operand_count() == 2) {
    return EmitBinary(hlo, operands[0], operands[1]);
  }
  return Unimplemented(hlo, "elementwise op");
}

absl::StatusOr<llvm::Value*> ElementalEmitter::EmitUnary(
    const HloInstruction* hlo, llvm::Value* x) {
  PrimitiveType from = hlo->operand(0)->shape().element_type();
  PrimitiveType to = hlo->shape().element_type();
  if (IsComplexType(from) && hlo->opcode() != HloOpcode::kConvert) {
    if (hlo->opcode() == HloOpcode::kBitcastConvert) {
      return Unimplemented(hlo, "bitcast-convert of a complex value");
    }
    absl::StatusOr<llvm::Value*> v =
        ComplexEmitter(module_, b_, math_).EmitUnary(hlo->opcode(), x);
    if (!v.ok()) return Unimplemented(hlo, v.status().message());
    return v;
  }
  switch (hlo->opcode()) {
    case HloOpcode::kConvert:
      return EmitConvert(x, from, to);
    // real() and imag() of a real value: the value and zero.
    case HloOpcode::kReal:
      return x;
    case HloOpcode::kImag:
      return llvm::Constant::getNullValue(x->getType());
    case HloOpcode::kBitcastConvert: {
      HLOC_ASSIGN_OR_RETURN(llvm::Type * to_type,
                            RegisterType(to, b_->getContext()));
      if (BitWidth(from) != BitWidth(to) || from == PRED || to == PRED) {
        return Unimplemented(hlo, "bitcast-convert between widths");
      }
      if (from == BF16 && to == F16) {
        // NVPTX cannot select a bitcast from a computed bf16 to f16 (an
        // LLVM fatal error), and LLVM folds any detour through integers
        // (Widen's too) back into one: take the bits from the bf16's exact
        // f32 value by an fpext, which it keeps.
        llvm::Value* wide = b_->CreateBitCast(
            b_->CreateFPExt(x, b_->getFloatTy()), b_->getInt32Ty());
        x = b_->CreateTrunc(b_->CreateLShr(wide, 16), b_->getInt16Ty());
      }
      // The narrow types' bits are the low ones of their i8.
      x = b_->CreateBitCast(x, to_type);
      if (to == F4E2M1FN) return b_->CreateAnd(x, 0x0f);
      return EmitWrapSubByte(x, to, b_);
    }
    case HloOpcode::kReducePrecision:
      return EmitReducePrecision(hlo, x);
    case HloOpcode::kIsFinite: {
      llvm::Value* w = Widen(x);
      return b_->CreateFCmpONE(
          b_->CreateUnaryIntrinsic(llvm::Intrinsic::fabs, w),
          llvm::ConstantFP::getInfinity(w->getType()));
    }
    default:
      break;
  }
  if (IsFloatingPointType(from)) {
    HLOC_ASSIGN_OR_RETURN(llvm::Value * v,
                          EmitFloatUnary(hlo->opcode(), Widen(x),
                                         ToleratedRelativeError(*hlo)));
    return NarrowResult(hlo->opcode(), v, to);
  }
  if (IsIntegralType(from) || from == PRED) {
    return EmitIntegerUnary(hlo->opcode(), from, x);
  }
  return Unimplemented(hlo, "unary op on this element type");
}

llvm::Value* ElementalEmitter::EmitMath(MathFunction fn, llvm::Value* x,
                                       double tolerated_error) {
  const double error = math_->ApproximationError(fn);
  if (x->getType()->isFloatTy() && error > 0 && error <= tolerated_error) {
    return math_->EmitApproximation(fn, x, b_);
  }
  return MathCall(math_, fn, {x}, module_, b_);
}

absl::StatusOr<llvm::Value*> ElementalEmitter::EmitFloatUnary(
    HloOpcode op, llvm::Value* x, double tolerated_error) {
  llvm::Type* t = x->getType();
  auto math = [&](MathFunction fn) {
    return EmitMath(fn, x, tolerated_error);
  };
  switch (op) {
    case HloOpcode::kAbs:
      return b_->CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
    case HloOpcode::kNegate:
      return b_->CreateFNeg(x);
    case HloOpcode::kSign: {
      llvm::Value* nonzero = b_->CreateUIToFP(
          b_->CreateFCmpONE(x, llvm::ConstantFP::get(t, 0.0)), t);
      llvm::Value* sign =
          b_->CreateBinaryIntrinsic(llvm::Intrinsic::copysign, nonzero, x);
      return b_->CreateSelect(b_->CreateFCmpUNO(x, x), x, sign);
    }
    case HloOpcode::kCeil:
      return b_->CreateUnaryIntrinsic(llvm::Intrinsic::ceil, x);
    case HloOpcode::kFloor:
      return b_->CreateUnaryIntrinsic(llvm::Intrinsic::floor, x);
    case HloOpcode::kRoundNearestAfz:
      return b_->CreateUnaryIntrinsic(llvm::Intrinsic::round, x);
    case HloOpcode::kRoundNearestEven:
      return b_->CreateUnaryIntrinsic(llvm::Intrinsic::roundeven, x);
    case HloOpcode::kSqrt:
      return b_->CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, x);
    case HloOpcode::kRsqrt:
      return b_->CreateFDiv(llvm::ConstantFP::get(t, 1.0),
                            b_->CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, x));
    case HloOpcode::kCbrt:
      return math(MathFunction::kCbrt);
    case HloOpcode::kExp:
      return math(MathFunction::kExp);
    case HloOpcode::kExpm1:
      return math(MathFunction::kExpm1);
    case HloOpcode::kLog:
      return math(MathFunction::kLog);
    case HloOpcode::kLog1p:
      return math(MathFunction::kLog1p);
    case HloOpcode::kSin:
      return math(MathFunction::kSin);
    case HloOpcode::kCos:
      return math(MathFunction::kCos);
    case HloOpcode::kTan:
      return math(MathFunction::kTan);
    case HloOpcode::kTanh:
      return math(MathFunction::kTanh);
    case HloOpcode::kErf:
      return math(MathFunction::kErf);
    case HloOpcode::kAcos:
      return math(MathFunction::kAcos);
    case HloOpcode::kAcosh:
      return math(MathFunction::kAcosh);
    case HloOpcode::kAsin:
      return math(MathFunction::kAsin);
    case HloOpcode::kAsinh:
      return math(MathFunction::kAsinh);
    case HloOpcode::kAtan:
      return math(MathFunction::kAtan);
    case HloOpcode::kAtanh:
      return math(MathFunction::kAtanh);
    case HloOpcode::kCosh:
      return math(MathFunction::kCosh);
    case HloOpcode::kSinh:
      return math(MathFunction::kSinh);
    case HloOpcode::kLogistic: {
      // 1 / (1 + exp(-x)), as the evaluator and XLA's expander compute it;
      // exp's relative error carries over at most as large.
      llvm::Value* e =
          EmitMath(MathFunction::kExp, b_->CreateFNeg(x), tolerated_error);
      llvm::Value* one = llvm::ConstantFP::get(t, 1.0);
      return b_->CreateFDiv(one, b_->CreateFAdd(one, e));
    }
    default:
      return absl::UnimplementedError(
          absl::StrCat("elemental emitter: float unary op ",
                       std::string(HloOpcodeString(op))));
  }
}

absl::StatusOr<llvm::Value*> ElementalEmitter::EmitIntegerUnary(
    HloOpcode op, PrimitiveType type, llvm::Value* x) {
  llvm::Type* t = x->getType();
  bool is_signed = IsSignedIntegralType(type);
  switch (op) {
    case HloOpcode::kNot:
      return b_->CreateNot(x);
    case HloOpcode::kAbs:
      if (type == PRED) break;
      if (!is_signed) return x;
      return b_->CreateIntrinsic(llvm::Intrinsic::abs, {t},
                                 {x, b_->getFalse()});
    case HloOpcode::kNegate:
      if (type == PRED) break;
      return b_->CreateNeg(x);
    case HloOpcode::kSign: {
      if (type == PRED) break;
      llvm::Value* zero = llvm::ConstantInt::get(t, 0);
      llvm::Value* positive = b_->CreateZExt(
          is_signed ? b_->CreateICmpSGT(x, zero) : b_->CreateICmpNE(x, zero),
          t);
      if (!is_signed) return positive;
      return b_->CreateSub(positive,
                           b_->CreateZExt(b_->CreateICmpSLT(x, zero), t));
    }
    case HloOpcode::kClz:
      return b_->CreateIntrinsic(llvm::Intrinsic::ctlz, {t},
                                 {x, b_->getFalse()});
    case HloOpcode::kPopulationCount:
      return b_->CreateUnaryIntrinsic(llvm::Intrinsic::ctpop, x);
    default:
      break;
  }
  return absl::UnimplementedError(
      absl::StrCat("elemental emitter: ", std::string(HloOpcodeString(op)),
                   " on ", std::string(PrimitiveTypeName(type))));
}

namespace {

// XLA's maximum/minimum (NaN if either is NaN, +0 above -0) from compares
// and selects, for f16: LLVM narrows llvm.maximum/minimum on f16 values
// widened to f32 back to f16, and x86 without AVX512-FP16 lowers the
// vector f16 intrinsics wrongly (maximum(NaN, 0) = 0 on 16 lanes, LLVM
// 19).
llvm::Value* EmitSelectMinMax(bool is_max, llvm::Value* lhs, llvm::Value* rhs,
                              llvm::IRBuilderBase* b) {
  llvm::Value* pick_lhs =
      is_max ? b->CreateFCmpOGT(lhs, rhs) : b->CreateFCmpOLT(lhs, rhs);
  llvm::Value* result = b->CreateSelect(pick_lhs, lhs, rhs);
  // Equal values differ only in the sign of a zero: max takes the sign
  // bits' and (+0 if either is +0), min their or.
  llvm::Type* int_type = b->getIntNTy(lhs->getType()->getScalarSizeInBits());
  llvm::Value* l = b->CreateBitCast(lhs, int_type);
  llvm::Value* r = b->CreateBitCast(rhs, int_type);
  llvm::Value* zeros = b->CreateBitCast(
      is_max ? b->CreateAnd(l, r) : b->CreateOr(l, r), lhs->getType());
  result = b->CreateSelect(b->CreateFCmpOEQ(lhs, rhs), zeros, result);
  llvm::Value* nan = b->CreateFCmpUNO(lhs, rhs);
  return b->CreateSelect(nan, b->CreateFAdd(lhs, rhs), result);
}

}  // namespace

absl::StatusOr<llvm::Value*> ElementalEmitter::EmitBinary(
    const HloInstruction* hlo, llvm::Value* lhs, llvm::Value* rhs) {
  PrimitiveType type = hlo->operand(0)->shape().element_type();
  if (hlo->opcode() == HloOpcode::kComplex) {
    return ComplexEmitter(module_, b_, math_).Compose(lhs, rhs);
  }
  if (IsComplexType(type)) {
    absl::StatusOr<llvm::Value*> v =
        ComplexEmitter(module_, b_, math_).EmitBinary(hlo->opcode(), lhs, rhs);
    if (!v.ok()) return Unimplemented(hlo, v.status().message());
    return v;
  }
  if (type == F16 && (hlo->opcode() == HloOpcode::kMaximum ||
                      hlo->opcode() == HloOpcode::kMinimum)) {
    return NarrowResult(
        hlo->opcode(),
        EmitSelectMinMax(hlo->opcode() == HloOpcode::kMaximum, Widen(lhs),
                         Widen(rhs), b_),
        hlo->shape().element_type());
  }
  if (IsFloatingPointType(type)) {
    HLOC_ASSIGN_OR_RETURN(
        llvm::Value * v,
        EmitFloatBinary(hlo->opcode(), Widen(lhs), Widen(rhs)));
    return NarrowResult(hlo->opcode(), v, hlo->shape().element_type());
  }
  if (IsIntegralType(type) || type == PRED) {
    return EmitIntegerBinary(hlo->opcode(), type, lhs, rhs);
  }
  return Unimplemented(hlo, "binary op on this element type");
}

absl::StatusOr<llvm::Value*> ElementalEmitter::EmitFloatBinary(
    HloOpcode op, llvm::Value* lhs, llvm::Value* rhs) {
  switch (op) {
    case HloOpcode::kAdd:
      return b_->CreateFAdd(lhs, rhs);
    case HloOpcode::kSubtract:
      return b_->CreateFSub(lhs, rhs);
    case HloOpcode::kMultiply:
      return b_->CreateFMul(lhs, rhs);
    case HloOpcode::kDivide:
      return b_->CreateFDiv(lhs, rhs);
    case HloOpcode::kRemainder: {
      if (math_->HasExactFrem()) return b_->CreateFRem(lhs, rhs);
      // fmod is exact, so a 16-bit remainder computed in f32 narrows back
      // without rounding.
      llvm::Type* type = lhs->getType();
      const bool narrow = type->isHalfTy() || type->isBFloatTy();
      llvm::Value* r =
          MathCall(math_, MathFunction::kFmod,
                   {narrow ? Widen(lhs) : lhs, narrow ? Widen(rhs) : rhs},
                   module_, b_);
      return narrow ? b_->CreateFPTrunc(r, type) : r;
    }
    case HloOpcode::kMaximum:
      return b_->CreateBinaryIntrinsic(llvm::Intrinsic::maximum, lhs, rhs);
    case HloOpcode::kMinimum:
      return b_->CreateBinaryIntrinsic(llvm::Intrinsic::minimum, lhs, rhs);
    case HloOpcode::kPower:
      return MathCall(math_, MathFunction::kPow, {lhs, rhs}, module_, b_);
    case HloOpcode::kAtan2:
      return MathCall(math_, MathFunction::kAtan2, {lhs, rhs}, module_, b_);
    default:
      return absl::UnimplementedError(
          absl::StrCat("elemental emitter: float binary op ",
                       std::string(HloOpcodeString(op))));
  }
}

absl::StatusOr<llvm::Value*> ElementalEmitter::EmitIntegerBinary(
    HloOpcode op, PrimitiveType type, llvm::Value* lhs, llvm::Value* rhs) {
  llvm::Type* t = lhs->getType();
  bool is_signed = IsSignedIntegralType(type);
  int bits = t->getIntegerBitWidth();
  llvm::Value* zero = llvm::ConstantInt::get(t, 0);
  llvm::Value* one = llvm::ConstantInt::get(t, 1);
  if (type == PRED) {
    // pred arithmetic as the evaluator defines it: add/max are or, mul/min
    // are and.
    switch (op) {
      case HloOpcode::kAdd:
      case HloOpcode::kOr:
      case HloOpcode::kMaximum:
        return b_->CreateOr(lhs, rhs);
      case HloOpcode::kMultiply:
      case HloOpcode::kAnd:
      case HloOpcode::kMinimum:
        return b_->CreateAnd(lhs, rhs);
      case HloOpcode::kXor:
        return b_->CreateXor(lhs, rhs);
      default:
        return absl::UnimplementedError(
            absl::StrCat("elemental emitter: pred binary op ",
                         std::string(HloOpcodeString(op))));
    }
  }
  switch (op) {
    case HloOpcode::kAdd:
      return b_->CreateAdd(lhs, rhs);
    case HloOpcode::kSubtract:
      return b_->CreateSub(lhs, rhs);
    case HloOpcode::kMultiply:
      return b_->CreateMul(lhs, rhs);
    case HloOpcode::kAnd:
      return b_->CreateAnd(lhs, rhs);
    case HloOpcode::kOr:
      return b_->CreateOr(lhs, rhs);
    case HloOpcode::kXor:
      return b_->CreateXor(lhs, rhs);
    case HloOpcode::kMaximum:
      return b_->CreateBinaryIntrinsic(
          is_signed ? llvm::Intrinsic::smax : llvm::Intrinsic::umax, lhs, rhs);
    case HloOpcode::kMinimum:
      return b_->CreateBinaryIntrinsic(
          is_signed ? llvm::Intrinsic::smin : llvm::Intrinsic::umin, lhs, rhs);
    case HloOpcode::kDivide:
    case HloOpcode::kRemainder: {
      bool divide = op == HloOpcode::kDivide;
      llvm::Value* by_zero = b_->CreateICmpEQ(rhs, zero);
      if (!is_signed) {
        llvm::Value* safe = b_->CreateSelect(by_zero, one, rhs);
        llvm::Value* q =
            divide ? b_->CreateUDiv(lhs, safe) : b_->CreateURem(lhs, safe);
        return b_->CreateSelect(
            by_zero, divide ? llvm::ConstantInt::getAllOnesValue(t) : lhs, q);
      }
      llvm::Value* overflow = b_->CreateAnd(
          b_->CreateICmpEQ(lhs, llvm::ConstantInt::get(
                                    t, llvm::APInt::getSignedMinValue(bits))),
          b_->CreateICmpEQ(rhs, llvm::ConstantInt::getAllOnesValue(t)));
      llvm::Value* safe =
          b_->CreateSelect(b_->CreateOr(by_zero, overflow), one, rhs);
      llvm::Value* q =
          divide ? b_->CreateSDiv(lhs, safe) : b_->CreateSRem(lhs, safe);
      // INT_MIN / -1 = INT_MIN (= lhs); INT_MIN % -1 = 0.
      q = b_->CreateSelect(overflow, divide ? lhs : zero, q);
      return b_->CreateSelect(
          by_zero, divide ? llvm::ConstantInt::getAllOnesValue(t) : lhs, q);
    }
    case HloOpcode::kShiftLeft:
    case HloOpcode::kShiftRightLogical:
    case HloOpcode::kShiftRightArithmetic: {
      llvm::Value* bw = llvm::ConstantInt::get(t, bits);
      llvm::Value* too_far = b_->CreateICmpUGE(rhs, bw);
      if (op == HloOpcode::kShiftRightArithmetic) {
        llvm::Value* fill =
            b_->CreateAShr(lhs, llvm::ConstantInt::get(t, bits - 1));
        llvm::Value* amount =
            b_->CreateSelect(too_far, llvm::ConstantInt::get(t, bits - 1), rhs);
        return b_->CreateSelect(too_far, fill, b_->CreateAShr(lhs, amount));
      }
      llvm::Value* safe_amount = b_->CreateSelect(too_far, zero, rhs);
      llvm::Value* shifted = op == HloOpcode::kShiftLeft
                                 ? b_->CreateShl(lhs, safe_amount)
                                 : b_->CreateLShr(lhs, safe_amount);
      return b_->CreateSelect(too_far, zero, shifted);
    }
    case HloOpcode::kMulhi: {
      llvm::Type* wide = b_->getIntNTy(2 * bits);
      llvm::Value* product =
          b_->CreateMul(b_->CreateIntCast(lhs, wide, is_signed),
                        b_->CreateIntCast(rhs, wide, is_signed));
      return b_->CreateTrunc(b_->CreateLShr(product, bits), t);
    }
    case HloOpcode::kPower: {
      // Square-and-multiply over the exponent's bits (a real loop: the
      // exponent may have up to 64 of them); negative exponents give 0,
      // except 1^e = 1.
      llvm::Value* result_slot = EmitAllocaAtEntry(t, "pow.result", b_);
      llvm::Value* base_slot = EmitAllocaAtEntry(t, "pow.base", b_);
      b_->CreateStore(one, result_slot);
      b_->CreateStore(lhs, base_slot);
      llvm::Value* significant =
          b_->CreateSub(llvm::ConstantInt::get(t, bits),
                        b_->CreateIntrinsic(llvm::Intrinsic::ctlz, {t},
                                            {rhs, b_->getFalse()}));
      llvm::Value* trips = b_->CreateZExtOrTrunc(significant, b_->getInt64Ty());
      HLOC_RETURN_IF_ERROR(EmitForLoop(
          "pow", b_->getInt64(0), trips, b_->getInt64(1),
          [&](llvm::Value* i) -> absl::Status {
            llvm::Value* bit = b_->CreateAnd(
                b_->CreateLShr(rhs, b_->CreateZExtOrTrunc(i, t)), one);
            llvm::Value* r = b_->CreateLoad(t, result_slot);
            llvm::Value* base = b_->CreateLoad(t, base_slot);
            b_->CreateStore(b_->CreateSelect(b_->CreateICmpNE(bit, zero),
                                             b_->CreateMul(r, base), r),
                            result_slot);
            b_->CreateStore(b_->CreateMul(base, base), base_slot);
            return absl::OkStatus();
          },
          b_));
      llvm::Value* result = b_->CreateLoad(t, result_slot);
      if (is_signed) {
        llvm::Value* negative_result =
            b_->CreateZExt(b_->CreateICmpEQ(lhs, one), t);
        result = b_->CreateSelect(b_->CreateICmpSLT(rhs, zero), negative_result,
                                  result);
      }
      return result;
    }
    default:
      return absl::UnimplementedError(
          absl::StrCat("elemental emitter: integer binary op ",
                       std::string(HloOpcodeString(op))));
  }
}

absl::StatusOr<llvm::Value*> ElementalEmitter::EmitCompare(
    const HloInstruction* hlo, llvm::Value* lhs, llvm::Value* rhs) {
  PrimitiveType type = hlo->operand(0)->shape().element_type();
  const HloAttributes& attrs = hlo->attrs();
  ComparisonDirection dir = attrs.comparison_direction;
  bool total_order = attrs.comparison_type == ComparisonType::kTotalOrder ||
                     attrs.comparison_order == ComparisonOrder::kTotal;
  if (IsComplexType(type)) {
    absl::StatusOr<llvm::Value*> v =
        ComplexEmitter(module_, b_, math_).EmitCompare(dir, lhs, rhs);
    if (!v.ok()) return Unimplemented(hlo, v.status().message());
    return v;
  }
  if (IsFloatingPointType(type) && !total_order) {
    lhs = FenceFloatFromBits(Widen(lhs), math_, b_);
    rhs = FenceFloatFromBits(Widen(rhs), math_, b_);
    switch (dir) {
      case ComparisonDirection::kEq:
        return b_->CreateFCmpOEQ(lhs, rhs);
      case ComparisonDirection::kNe:
        return b_->CreateFCmpUNE(lhs, rhs);
      case ComparisonDirection::kGe:
        return b_->CreateFCmpOGE(lhs, rhs);
      case ComparisonDirection::kGt:
        return b_->CreateFCmpOGT(lhs, rhs);
      case ComparisonDirection::kLe:
        return b_->CreateFCmpOLE(lhs, rhs);
      case ComparisonDirection::kLt:
        return b_->CreateFCmpOLT(lhs, rhs);
    }
  }
  bool is_signed = IsSignedIntegralType(type);
  if (attrs.comparison_type == ComparisonType::kSigned) is_signed = true;
  if (attrs.comparison_type == ComparisonType::kUnsigned) is_signed = false;
  if (IsFloatingPointType(type)) {
    // Total order: flip the magnitude bits of negative values, then compare
    // the bit patterns as signed integers.
    llvm::Type* int_type = b_->getIntNTy(BitWidth(type));
    auto key = [&](llvm::Value* v) {
      llvm::Value* bits = b_->CreateBitCast(v, int_type);
      llvm::Value* max = llvm::ConstantInt::get(
          int_type, llvm::APInt::getSignedMaxValue(BitWidth(type)));
      llvm::Value* flipped = b_->CreateXor(bits, max);
      return b_->CreateSelect(
          b_->CreateICmpSLT(bits, llvm::ConstantInt::get(int_type, 0)), flipped,
          bits);
    };
    lhs = key(lhs);
    rhs = key(rhs);
    is_signed = true;
  }
  switch (dir) {
    case ComparisonDirection::kEq:
      return b_->CreateICmpEQ(lhs, rhs);
    case ComparisonDirection::kNe:
      return b_->CreateICmpNE(lhs, rhs);
    case ComparisonDirection::kGe:
      return is_signed ? b_->CreateICmpSGE(lhs, rhs)
                       : b_->CreateICmpUGE(lhs, rhs);
    case ComparisonDirection::kGt:
      return is_signed ? b_->CreateICmpSGT(lhs, rhs)
                       : b_->CreateICmpUGT(lhs, rhs);
    case ComparisonDirection::kLe:
      return is_signed ? b_->CreateICmpSLE(lhs, rhs)
                       : b_->CreateICmpULE(lhs, rhs);
    case ComparisonDirection::kLt:
      return is_signed ? b_->CreateICmpSLT(lhs, rhs)
                       : b_->CreateICmpULT(lhs, rhs);
  }
  return Unimplemented(hlo, "comparison");
}

// XLA's reduce-precision: round the mantissa to nearest even on the bits,
// then flush exponents out of the reduced range to zero or infinity; NaN
// stays NaN. f16
// and bf16 go through f32 like every other op.
absl::StatusOr<llvm::Value*> ElementalEmitter::EmitReducePrecision(
    const HloInstruction* hlo, llvm::Value* x) {
  PrimitiveType type = hlo->shape().element_type();
  if (!IsFloatingPointType(type)) return Unimplemented(hlo, "reduce-precision");
  llvm::Value* value = Widen(x);
  int nbits = value->getType()->isDoubleTy() ? 64 : 32;
  int src_mantissa = nbits == 64 ? 52 : 23;
  int src_exponent = nbits - src_mantissa - 1;
  int64_t exponent_bits = hlo->attrs().exponent_bits;
  int64_t mantissa_bits = hlo->attrs().mantissa_bits;
  llvm::Type* int_type = b_->getIntNTy(nbits);
  auto c = [&](uint64_t v) { return llvm::ConstantInt::get(int_type, v); };
  llvm::Value* bits = b_->CreateBitCast(value, int_type);
  if (mantissa_bits < src_mantissa) {
    uint64_t last_bit_mask = uint64_t{1} << (src_mantissa - mantissa_bits);
    uint64_t base_bias = (last_bit_mask >> 1) - 1;
    llvm::Value* last_bit = b_->CreateLShr(
        b_->CreateAnd(bits, c(last_bit_mask)), src_mantissa - mantissa_bits);
    llvm::Value* bias = b_->CreateAdd(last_bit, c(base_bias));
    bits = b_->CreateAnd(b_->CreateAdd(bits, bias), c(~(last_bit_mask - 1)));
  }
  if (exponent_bits < src_exponent) {
    uint64_t sign_mask = uint64_t{1} << (nbits - 1);
    uint64_t exp_mask = ((uint64_t{1} << src_exponent) - 1) << src_mantissa;
    uint64_t bias = (uint64_t{1} << (src_exponent - 1)) - 1;
    uint64_t reduced_bias = (uint64_t{1} << (exponent_bits - 1)) - 1;
    uint64_t max_exp = bias + reduced_bias;
    uint64_t min_exp = bias - reduced_bias;
    llvm::Value* exponent = b_->CreateAnd(bits, c(exp_mask));
    llvm::Value* overflows =
        b_->CreateICmpUGT(exponent, c(max_exp << src_mantissa));
    llvm::Value* underflows =
        b_->CreateICmpULE(exponent, c(min_exp << src_mantissa));
    llvm::Value* signed_zero = b_->CreateAnd(bits, c(sign_mask));
    llvm::Value* signed_inf = b_->CreateOr(signed_zero, c(exp_mask));
    bits = b_->CreateSelect(overflows, signed_inf, bits);
    bits = b_->CreateSelect(underflows, signed_zero, bits);
  }
  llvm::Value* result = b_->CreateBitCast(bits, value->getType());
  // A NaN stays the input NaN even with no mantissa bits left to carry it,
  // as XLA:CPU's and XLA:GPU's emitters do (MHLO's reducePrecision); only
  // XLA's HloEvaluator still turns it into infinity.
  result = b_->CreateSelect(b_->CreateFCmpUNO(value, value), value, result);
  return Narrow(result, type);
}

// --- Scalar computations
// -------------------------------------------------------

absl::StatusOr<llvm::Value*> ElementalEmitter::EmitScalarComputation(
    const HloComputation* computation, absl::Span<llvm::Value* const> args) {
  if (static_cast<int64_t>(args.size()) != computation->num_parameters()) {
    return absl::InternalError(absl::StrCat(
        "computation ", computation->name(), " takes ",
        computation->num_parameters(), " arguments, given ", args.size()));
  }
  absl::flat_hash_map<const HloInstruction*, llvm::Value*> values;
  IrIndex scalar = IrIndex::Scalar(b_->getInt64Ty());
  for (const HloInstruction* instr : computation->MakeInstructionPostOrder()) {
    if (instr->opcode() == HloOpcode::kParameter) {
      values[instr] = args[instr->parameter_number()];
      continue;
    }
    std::vector<ElementGenerator> operands;
    for (const HloInstruction* operand : instr->operands()) {
      llvm::Value* v = values[operand];
      operands.push_back(
          [v](const IrIndex&) -> absl::StatusOr<llvm::Value*> { return v; });
    }
    HLOC_ASSIGN_OR_RETURN(ElementGenerator gen,
                          MakeElementGenerator(instr, std::move(operands)));
    HLOC_ASSIGN_OR_RETURN(values[instr], gen(scalar));
  }
  return values[computation->root_instruction()];
}

// --- Generators
// ------------------------------------------------------------------

namespace {

// The register type of an array shape, or a struct of them for a tuple.
absl::StatusOr<llvm::Type*> ValueType(const Shape& shape,
                                      llvm::LLVMContext& context) {
  if (!shape.IsTuple()) return RegisterType(shape.element_type(), context);
  std::vector<llvm::Type*> elements;
  for (const Shape& s : shape.tuple_shapes()) {
    if (s.IsTuple()) {
      return absl::UnimplementedError("elemental emitter: nested tuples");
    }
    HLOC_ASSIGN_OR_RETURN(llvm::Type * t,
                          RegisterType(s.element_type(), context));
    elements.push_back(t);
  }
  return llvm::StructType::get(context, elements);
}

// A constant of the index's integer type: generators build index arithmetic
// in the type the caller chose (GPU kernels index in 32 bits where the
// shapes fit), never in a fixed i64 that would force widening.
llvm::Constant* IndexConstant(const IrIndex& index, int64_t value) {
  return llvm::ConstantInt::get(index.index_type(), value, /*IsSigned=*/true);
}

absl::StatusOr<llvm::Value*> ReadStartIndex(const ElementGenerator& gen,
                                            PrimitiveType type,
                                            llvm::Type* index_type,
                                            llvm::IRBuilderBase* b) {
  HLOC_ASSIGN_OR_RETURN(llvm::Value * v, gen(IrIndex::Scalar(index_type)));
  return ConvertStartIndex(v, type, index_type, b);
}

llvm::Value* ClampIndex(llvm::Value* v, int64_t lo, int64_t hi,
                        llvm::IRBuilderBase* b) {
  llvm::Type* type = v->getType();
  v = b->CreateBinaryIntrinsic(llvm::Intrinsic::smin, v,
                               llvm::ConstantInt::get(type, hi, true));
  return b->CreateBinaryIntrinsic(llvm::Intrinsic::smax, v,
                                  llvm::ConstantInt::get(type, lo, true));
}

}  // namespace

llvm::Value* ConvertStartIndex(llvm::Value* v, PrimitiveType type,
                               llvm::Type* index_type, llvm::IRBuilderBase* b) {
  const unsigned from = v->getType()->getIntegerBitWidth();
  const unsigned to = index_type->getIntegerBitWidth();
  if (!IsSignedIntegralType(type)) {  // unsigned, or pred
    if (from < to) return b->CreateZExt(v, index_type);
    // A value with the index type's sign bit set (a u32 of 2^32 - 1 in an
    // i32 index, a u64 of 2^63 in an i64 one) is past every bound; taken
    // as it is, the signed clamp after would see it negative and clamp it
    // to 0. Saturated, it clamps to the far end, as XLA clamps it.
    const llvm::APInt max = llvm::APInt::getSignedMaxValue(to).zext(from);
    v = b->CreateBinaryIntrinsic(llvm::Intrinsic::umin, v, b->getInt(max));
    return b->CreateTrunc(v, index_type);
  }
  if (from <= to) return b->CreateSExt(v, index_type);
  // A wide start outside the index type's range would wrap before the
  // clamp: saturate it in its own width first.
  const llvm::APInt max = llvm::APInt::getSignedMaxValue(to).sext(from);
  const llvm::APInt min = llvm::APInt::getSignedMinValue(to).sext(from);
  v = b->CreateBinaryIntrinsic(llvm::Intrinsic::smin, v, b->getInt(max));
  v = b->CreateBinaryIntrinsic(llvm::Intrinsic::smax, v, b->getInt(min));
  return b->CreateTrunc(v, index_type);
}

absl::StatusOr<llvm::Value*> EmitClampedStartIndex(
    const ElementGenerator& start, PrimitiveType type, int64_t max_start,
    llvm::Type* index_type, llvm::IRBuilderBase* b) {
  HLOC_ASSIGN_OR_RETURN(llvm::Value * v,
                        ReadStartIndex(start, type, index_type, b));
  return ClampIndex(v, 0, max_start, b);
}

namespace {

// Emits `cond ? then_gen() : else_gen()` with real branches (only the taken
// side is evaluated, so it may read what would be out of bounds otherwise).
absl::StatusOr<llvm::Value*> EmitBranchSelect(
    llvm::Value* cond, llvm::Type* type,
    const std::function<absl::StatusOr<llvm::Value*>()>& then_gen,
    const std::function<absl::StatusOr<llvm::Value*>()>& else_gen,
    llvm::IRBuilderBase* b) {
  llvm::Value* slot = EmitAllocaAtEntry(type, "select.slot", b);
  auto store = [&](const std::function<absl::StatusOr<llvm::Value*>()>& gen) {
    return [&, gen]() -> absl::Status {
      HLOC_ASSIGN_OR_RETURN(llvm::Value * v, gen());
      b->CreateStore(v, slot);
      return absl::OkStatus();
    };
  };
  HLOC_RETURN_IF_ERROR(
      EmitIfThenElse(cond, store(then_gen), store(else_gen), b));
  return b->CreateLoad(type, slot);
}

// Loops over `dims` (positions into `multidim`, most major first), setting
// multidim[dim] to each loop's induction variable around `body`.
absl::Status EmitLoopsOver(const std::vector<int64_t>& dims,
                           const std::vector<int64_t>& bounds,
                           std::vector<llvm::Value*>& multidim,
                           const std::function<absl::Status()>& body,
                           llvm::Type* index_type, llvm::IRBuilderBase* b,
                           size_t level = 0) {
  if (level == dims.size()) return body();
  return EmitForLoop(
      "loop" + std::to_string(dims[level]),
      llvm::ConstantInt::get(index_type, 0),
      llvm::ConstantInt::get(index_type, bounds[level]),
      llvm::ConstantInt::get(index_type, 1),
      [&](llvm::Value* iv) {
        multidim[dims[level]] = iv;
        return EmitLoopsOver(dims, bounds, multidim, body, index_type, b,
                             level + 1);
      },
      b);
}

}  // namespace

absl::StatusOr<ElementGenerator> ElementalEmitter::MakeConstantGenerator(
    const HloInstruction* hlo) {
  const Literal& literal = hlo->literal();
  const Shape& shape = hlo->shape();
  llvm::LLVMContext& ctx = b_->getContext();
  HLOC_ASSIGN_OR_RETURN(llvm::Type * storage,
                        StorageType(shape.element_type(), ctx));
  llvm::IRBuilderBase* b = b_;
  if (shape.rank() == 0 || shape.ElementCount() == 1) {
    // A scalar (or one-element array): an immediate.
    llvm::Constant* c = nullptr;
    const uint8_t* data = literal.untyped_data();
    switch (shape.element_type()) {
      case PRED:
        c = b->getInt1(data[0] != 0);
        break;
      case F16:
      case BF16: {
        uint16_t bits;
        std::memcpy(&bits, data, 2);
        c = llvm::ConstantFP::get(ctx,
                                  llvm::APFloat(shape.element_type() == F16
                                                    ? llvm::APFloat::IEEEhalf()
                                                    : llvm::APFloat::BFloat(),
                                                llvm::APInt(16, bits)));
        break;
      }
      case F32: {
        float f;
        std::memcpy(&f, data, 4);
        c = llvm::ConstantFP::get(storage, f);
        break;
      }
      case F64: {
        double d;
        std::memcpy(&d, data, 8);
        c = llvm::ConstantFP::get(storage, d);
        break;
      }
      case C64:
      case C128: {
        llvm::Type* part = storage->getStructElementType(0);
        double re, im;
        if (shape.element_type() == C64) {
          float f[2];
          std::memcpy(f, data, sizeof(f));
          re = f[0];
          im = f[1];
        } else {
          std::memcpy(&re, data, 8);
          std::memcpy(&im, data + 8, 8);
        }
        c = llvm::ConstantStruct::get(
            llvm::cast<llvm::StructType>(storage),
            {llvm::ConstantFP::get(part, re), llvm::ConstantFP::get(part, im)});
        break;
      }
      default: {
        uint64_t bits = 0;
        std::memcpy(&bits, data, ByteWidth(shape.element_type()));
        c = llvm::ConstantInt::get(storage, bits);
        break;
      }
    }
    return [c](const IrIndex&) -> absl::StatusOr<llvm::Value*> { return c; };
  }
  // An array: a private global holding the literal's row-major bytes.
  std::string name = "constant." + hlo->name();
  llvm::GlobalVariable* global = module_->getNamedGlobal(name);
  if (global == nullptr) {
    // A complex array is stored as its interleaved parts: a data array
    // holds only scalars, and the bytes are the same.
    const bool complex = IsComplexType(shape.element_type());
    llvm::Constant* init = llvm::ConstantDataArray::getRaw(
        llvm::StringRef(reinterpret_cast<const char*>(literal.untyped_data()),
                        literal.size_bytes()),
        shape.ElementCount() * (complex ? 2 : 1),
        complex ? storage->getStructElementType(0) : storage);
    global = new llvm::GlobalVariable(
        *module_, init->getType(),
        /*isConstant=*/true, llvm::GlobalValue::PrivateLinkage, init, name);
    global->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
    global->setAlignment(llvm::Align(64));
  }
  IrArray array(global, Shape::Array(shape.element_type(), shape.dimensions()));
  return [array, b](const IrIndex& index) { return array.EmitRead(index, b); };
}

// XLA's bitcast-convert between widths: the wider side's element is the
// narrower side's elements along an extra minor dimension, lowest bits
// first (JAX turns its u32[4] rbg keys into u64[2] states this way).
absl::StatusOr<ElementGenerator>
ElementalEmitter::MakeResizingBitcastConvertGenerator(PrimitiveType from,
                                                     PrimitiveType to,
                                                     ElementGenerator operand) {
  llvm::IRBuilderBase* b = b_;
  const int from_bits = BitWidth(from);
  const int to_bits = BitWidth(to);
  if (from == PRED || to == PRED || IsComplexType(from) ||
      IsComplexType(to) || from_bits % 8 != 0 || to_bits % 8 != 0) {
    return absl::UnimplementedError(absl::StrCat(
        "elemental emitter: bitcast-convert from ",
        std::string(PrimitiveTypeName(from)), " to ",
        std::string(PrimitiveTypeName(to))));
  }
  HLOC_ASSIGN_OR_RETURN(llvm::Type * to_type,
                        RegisterType(to, b->getContext()));
  llvm::Type* from_int = b->getIntNTy(from_bits);
  llvm::Type* to_int = b->getIntNTy(to_bits);
  if (from_bits > to_bits) {
    // Output element [..., j] is piece j of input element [...].
    return [operand, from_int, to_int, to_type, to_bits,
            b](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
      std::vector<llvm::Value*> in_index(index.multidim().begin(),
                                         index.multidim().end() - 1);
      HLOC_ASSIGN_OR_RETURN(llvm::Value * v,
                            operand(IrIndex(in_index, index.index_type())));
      llvm::Value* bits = b->CreateBitCast(v, from_int);
      llvm::Value* shift = b->CreateMul(
          b->CreateZExtOrTrunc(index.multidim().back(), from_int),
          llvm::ConstantInt::get(from_int, to_bits));
      return b->CreateBitCast(b->CreateTrunc(b->CreateLShr(bits, shift), to_int),
                              to_type);
    };
  }
  const int pieces = to_bits / from_bits;
  return [operand, from_int, to_int, to_type, from_bits, pieces,
          b](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
    llvm::Value* result = llvm::ConstantInt::get(to_int, 0);
    for (int j = 0; j < pieces; ++j) {
      std::vector<llvm::Value*> in_index = index.multidim();
      in_index.push_back(IndexConstant(index, j));
      HLOC_ASSIGN_OR_RETURN(llvm::Value * v,
                            operand(IrIndex(in_index, index.index_type())));
      llvm::Value* piece = b->CreateZExt(b->CreateBitCast(v, from_int), to_int);
      result = b->CreateOr(result, b->CreateShl(piece, j * from_bits));
    }
    return b->CreateBitCast(result, to_type);
  };
}

absl::StatusOr<ElementGenerator> ElementalEmitter::MakeElementGenerator(
    const HloInstruction* hlo, std::vector<ElementGenerator> operands) {
  llvm::IRBuilderBase* b = b_;
  const Shape& shape = hlo->shape();
  {
    absl::StatusOr<llvm::Type*> t = ValueType(shape, b->getContext());
    if (!t.ok()) return Unimplemented(hlo, t.status().message());
    for (const HloInstruction* operand : hlo->operands()) {
      t = ValueType(operand->shape(), b->getContext());
      if (!t.ok()) return Unimplemented(hlo, t.status().message());
    }
  }
  const HloAttributes& attrs = hlo->attrs();
  switch (hlo->opcode()) {
    case HloOpcode::kParameter:
      return absl::InternalError(
          "elemental emitter: parameters are bound by the caller");
    case HloOpcode::kConstant:
      return MakeConstantGenerator(hlo);
    case HloOpcode::kIota: {
      int64_t dim = attrs.iota_dimension;
      PrimitiveType type = shape.element_type();
      return [this, dim, type](const IrIndex& index) {
        // The index is signed and non-negative, in the index type's width.
        PrimitiveType from =
            index.index_type()->getIntegerBitWidth() == 32 ? S32 : S64;
        return EmitConvert(index[dim], from, type);
      };
    }
    case HloOpcode::kBroadcast: {
      std::vector<int64_t> dims = hlo->dimensions();
      return [operands, dims](const IrIndex& index) {
        std::vector<llvm::Value*> op_index;
        for (int64_t d : dims) op_index.push_back(index[d]);
        return operands[0](IrIndex(op_index, index.index_type()));
      };
    }
    case HloOpcode::kReshape: {
      const Shape in = hlo->operand(0)->shape();
      const Shape out = shape;
      std::vector<int64_t> out_strides = RowMajorStrides(out.dimensions());
      Shape in_row_major = Shape::Array(in.element_type(), in.dimensions());
      return [operands, in, out, out_strides, in_row_major,
              b](const IrIndex& index) {
        if (index.LinearValidOn(out) && out.HasDescendingLayout() &&
            in.HasDescendingLayout()) {
          return operands[0](IrIndex::FromLinear(index.linear(), in, b));
        }
        llvm::Value* linear = IndexConstant(index, 0);
        for (int64_t d = 0; d < out.rank(); ++d) {
          if (out.dimensions(d) == 1) continue;
          linear = b->CreateAdd(
              linear,
              b->CreateMul(index[d], IndexConstant(index, out_strides[d]), "",
                           true, true),
              "", true, true);
        }
        return operands[0](IrIndex::FromLinear(linear, in_row_major, b));
      };
    }
    case HloOpcode::kBitcast: {
      const Shape in = hlo->operand(0)->shape();
      const Shape out = shape;
      if (BitWidth(in.element_type()) != BitWidth(out.element_type()) ||
          in.ElementCount() != out.ElementCount()) {
        return Unimplemented(hlo, "bitcast changing the byte size");
      }
      if (in.element_type() != out.element_type() &&
          (IsComplexType(in.element_type()) ||
           IsComplexType(out.element_type()))) {
        return Unimplemented(hlo, "bitcast between complex and another type");
      }
      llvm::Type* out_type = *RegisterType(out.element_type(), b->getContext());
      bool retype = in.element_type() != out.element_type();
      return [operands, in, out, out_type, retype,
              b](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
        llvm::Value* linear = IrArray(nullptr, out).EmitLinearOffset(index, b);
        HLOC_ASSIGN_OR_RETURN(llvm::Value * v,
                              operands[0](IrIndex::FromLinear(linear, in, b)));
        return retype ? b->CreateBitCast(v, out_type) : v;
      };
    }
    case HloOpcode::kTranspose: {
      const Shape in = hlo->operand(0)->shape();
      const Shape out = shape;
      std::vector<int64_t> dims = hlo->dimensions();
      std::vector<int64_t> in_strides = LayoutStrides(in);
      std::vector<int64_t> out_strides = LayoutStrides(out);
      bool is_bitcast = true;  // Same physical order: the linear index holds.
      for (size_t i = 0; i < dims.size(); ++i) {
        if (out.dimensions(i) != 1 && out_strides[i] != in_strides[dims[i]]) {
          is_bitcast = false;
        }
      }
      return [operands, in, out, dims, is_bitcast](const IrIndex& index) {
        std::vector<llvm::Value*> op_index(dims.size());
        for (size_t i = 0; i < dims.size(); ++i) op_index[dims[i]] = index[i];
        if (is_bitcast && index.LinearValidOn(out)) {
          return operands[0](
              IrIndex(op_index, index.linear(), in, index.index_type()));
        }
        return operands[0](IrIndex::KeepingOrigin(op_index, index));
      };
    }
    case HloOpcode::kCopy:
      return operands[0];
    case HloOpcode::kBitcastConvert: {
      PrimitiveType from = hlo->operand(0)->shape().element_type();
      PrimitiveType to = shape.element_type();
      if (BitWidth(from) == BitWidth(to)) break;  // One to one, below.
      return MakeResizingBitcastConvertGenerator(from, to, operands[0]);
    }
    case HloOpcode::kSlice: {
      std::vector<int64_t> starts = attrs.slice_starts;
      std::vector<int64_t> strides = attrs.slice_strides;
      return [operands, starts, strides, b](const IrIndex& index) {
        std::vector<llvm::Value*> op_index;
        for (int64_t d = 0; d < index.rank(); ++d) {
          llvm::Value* v = index[d];
          int64_t stride =
              d < static_cast<int64_t>(strides.size()) ? strides[d] : 1;
          if (stride != 1)
            v = b->CreateMul(v, IndexConstant(index, stride), "", true, true);
          if (starts[d] != 0)
            v = b->CreateAdd(v, IndexConstant(index, starts[d]), "", true,
                             true);
          op_index.push_back(v);
        }
        return operands[0](IrIndex(op_index, index.index_type()));
      };
    }
    case HloOpcode::kReverse: {
      std::vector<int64_t> dims = hlo->dimensions();
      std::vector<int64_t> bounds = shape.dimensions();
      return [operands, dims, bounds, b](const IrIndex& index) {
        std::vector<llvm::Value*> op_index = index.multidim();
        for (int64_t d : dims) {
          op_index[d] =
              b->CreateSub(IndexConstant(index, bounds[d] - 1), index[d]);
        }
        return operands[0](IrIndex(op_index, index.index_type()));
      };
    }
    case HloOpcode::kDynamicSlice: {
      const Shape in = hlo->operand(0)->shape();
      std::vector<int64_t> sizes = shape.dimensions();
      std::vector<PrimitiveType> index_types;
      for (int64_t i = 1; i < hlo->operand_count(); ++i) {
        index_types.push_back(hlo->operand(i)->shape().element_type());
      }
      return [operands, in, sizes, index_types,
              b](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
        std::vector<llvm::Value*> op_index;
        for (int64_t d = 0; d < index.rank(); ++d) {
          HLOC_ASSIGN_OR_RETURN(
              llvm::Value * start,
              EmitClampedStartIndex(operands[1 + d], index_types[d],
                                    in.dimensions(d) - sizes[d],
                                    index.index_type(), b));
          op_index.push_back(b->CreateAdd(start, index[d]));
        }
        return operands[0](IrIndex(op_index, index.index_type()));
      };
    }
    case HloOpcode::kDynamicUpdateSlice: {
      const Shape update = hlo->operand(1)->shape();
      std::vector<int64_t> bounds = shape.dimensions();
      std::vector<PrimitiveType> index_types;
      for (int64_t i = 2; i < hlo->operand_count(); ++i) {
        index_types.push_back(hlo->operand(i)->shape().element_type());
      }
      llvm::Type* type = *RegisterType(shape.element_type(), b->getContext());
      return [operands, update, bounds, index_types, type,
              b](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
        std::vector<llvm::Value*> update_index;
        llvm::Value* inside = b->getTrue();
        for (int64_t d = 0; d < index.rank(); ++d) {
          HLOC_ASSIGN_OR_RETURN(
              llvm::Value * start,
              EmitClampedStartIndex(operands[2 + d], index_types[d],
                                    bounds[d] - update.dimensions(d),
                                    index.index_type(), b));
          llvm::Value* rel = b->CreateSub(index[d], start);
          inside = b->CreateAnd(inside,
                                b->CreateICmpSGE(rel, IndexConstant(index, 0)));
          inside = b->CreateAnd(
              inside, b->CreateICmpSLT(
                          rel, IndexConstant(index, update.dimensions(d))));
          update_index.push_back(rel);
        }
        return EmitBranchSelect(
            inside, type,
            [&]() {
              return operands[1](IrIndex(update_index, index.index_type()));
            },
            [&]() { return operands[0](index); }, b);
      };
    }
    case HloOpcode::kConcatenate: {
      int64_t dim = hlo->dimensions(0);
      std::vector<int64_t> ends;
      int64_t end = 0;
      for (const HloInstruction* operand : hlo->operands()) {
        end += operand->shape().dimensions(dim);
        ends.push_back(end);
      }
      llvm::Type* type = *RegisterType(shape.element_type(), b->getContext());
      return [operands, dim, ends, type, b](const IrIndex& index) {
        // A binary search over the operands' end offsets: operands [lo, hi)
        // are read as if (i < end[mid - 1]) search [lo, mid) else search
        // [mid, hi), and operand k at i - end[k - 1]. Each element takes
        // log2(n) compares, not up to n: a chain of n nested branches
        // (jnp.stack of a list of 600 arrays) made LLVM's IndVarSimplify
        // quadratic (9 of the 13 s of O3 for wide_concat_stack). With two
        // or three operands the branches are the chain's.
        std::function<absl::StatusOr<llvm::Value*>(size_t, size_t)> emit =
            [&](size_t lo, size_t hi) -> absl::StatusOr<llvm::Value*> {
          if (hi - lo == 1) {
            std::vector<llvm::Value*> op_index = index.multidim();
            if (lo > 0)
              op_index[dim] =
                  b->CreateSub(index[dim], IndexConstant(index, ends[lo - 1]));
            return operands[lo](IrIndex(op_index, index.index_type()));
          }
          const size_t mid = lo + (hi - lo) / 2;
          return EmitBranchSelect(
              b->CreateICmpSLT(index[dim], IndexConstant(index, ends[mid - 1])),
              type, [&, lo, mid]() { return emit(lo, mid); },
              [&, mid, hi]() { return emit(mid, hi); }, b);
        };
        return emit(0, ends.size());
      };
    }
    case HloOpcode::kPad: {
      const Shape in = hlo->operand(0)->shape();
      PaddingConfig config = *attrs.padding_config;
      llvm::Type* type = *RegisterType(shape.element_type(), b->getContext());
      return [operands, in, config, type, b](const IrIndex& index) {
        std::vector<llvm::Value*> op_index;
        llvm::Value* inside = b->getTrue();
        for (int64_t d = 0; d < index.rank(); ++d) {
          const PaddingDimension& p = config.dimensions[d];
          llvm::Value* t =
              b->CreateSub(index[d], IndexConstant(index, p.edge_padding_low));
          inside = b->CreateAnd(inside,
                                b->CreateICmpSGE(t, IndexConstant(index, 0)));
          if (p.interior_padding != 0) {
            llvm::Value* step = IndexConstant(index, p.interior_padding + 1);
            inside =
                b->CreateAnd(inside, b->CreateICmpEQ(b->CreateSRem(t, step),
                                                     IndexConstant(index, 0)));
            t = b->CreateSDiv(t, step);
          }
          inside = b->CreateAnd(
              inside,
              b->CreateICmpSLT(t, IndexConstant(index, in.dimensions(d))));
          op_index.push_back(t);
        }
        return EmitBranchSelect(
            inside, type,
            [&]() {
              return operands[0](IrIndex(op_index, index.index_type()));
            },
            [&]() { return operands[1](IrIndex::Scalar(index.index_type())); },
            b);
      };
    }
    case HloOpcode::kGather:
      return MakeGatherGenerator(hlo, std::move(operands));
    case HloOpcode::kReduce:
      return MakeReduceGenerator(hlo, std::move(operands));
    case HloOpcode::kReduceWindow:
      return MakeReduceWindowGenerator(hlo, std::move(operands));
    case HloOpcode::kDot:
      return MakeDotGenerator(hlo, std::move(operands));
    case HloOpcode::kConvolution:
      return MakeConvolutionGenerator(hlo, std::move(operands));
    case HloOpcode::kMap: {
      const HloComputation* computation = hlo->to_apply();
      return [this, operands, computation](
                 const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
        std::vector<llvm::Value*> args;
        for (const ElementGenerator& gen : operands) {
          HLOC_ASSIGN_OR_RETURN(llvm::Value * v, gen(index));
          args.push_back(v);
        }
        return EmitScalarComputation(computation, args);
      };
    }
    case HloOpcode::kTuple: {
      llvm::Type* type = *ValueType(shape, b->getContext());
      return [operands, type,
              b](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
        llvm::Value* result = llvm::UndefValue::get(type);
        for (size_t i = 0; i < operands.size(); ++i) {
          HLOC_ASSIGN_OR_RETURN(llvm::Value * v, operands[i](index));
          result = b->CreateInsertValue(result, v, {static_cast<unsigned>(i)});
        }
        return result;
      };
    }
    case HloOpcode::kGetTupleElement: {
      unsigned i = static_cast<unsigned>(hlo->tuple_index());
      return [operands, i,
              b](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
        HLOC_ASSIGN_OR_RETURN(llvm::Value * v, operands[0](index));
        return b->CreateExtractValue(v, {i});
      };
    }
    default:
      break;
  }
  // bitcast-convert of equal widths maps elements one to one.
  if (!HloOpcodeIsElementwise(hlo->opcode()) &&
      hlo->opcode() != HloOpcode::kBitcastConvert) {
    return Unimplemented(hlo, "no elemental code generation for this op");
  }
  switch (hlo->opcode()) {
    case HloOpcode::kStochasticConvert:
      return Unimplemented(hlo, "op not supported by code generation");
    default:
      break;
  }
  std::vector<bool> scalar_operand;
  for (const HloInstruction* operand : hlo->operands()) {
    scalar_operand.push_back(operand->shape().rank() == 0 && shape.rank() != 0);
  }
  return [this, hlo, operands, scalar_operand](
             const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
    std::vector<llvm::Value*> values;
    for (size_t i = 0; i < operands.size(); ++i) {
      HLOC_ASSIGN_OR_RETURN(
          llvm::Value * v,
          operands[i](scalar_operand[i] ? IrIndex::Scalar(index.index_type())
                                        : index));
      values.push_back(v);
    }
    return EmitElementwise(hlo, values);
  };
}

namespace {

// The running values of a (variadic) reduction of n inputs, shared by
// reduce and reduce-window: operands are the n inputs' then the n inits'
// generators, as the instructions order them.
struct Accumulators {
  std::vector<llvm::Type*> types;  // register types, one per input
  std::vector<llvm::Value*> slots;

  // Allocas holding the inits.
  static absl::StatusOr<Accumulators> Emit(
      const std::vector<ElementGenerator>& operands,
      std::vector<llvm::Type*> types, llvm::Type* index_type,
      absl::string_view name, llvm::IRBuilderBase* b) {
    Accumulators acc{std::move(types), {}};
    const size_t n = acc.types.size();
    for (size_t k = 0; k < n; ++k) {
      HLOC_ASSIGN_OR_RETURN(llvm::Value * init,
                            operands[n + k](IrIndex::Scalar(index_type)));
      acc.slots.push_back(EmitAllocaAtEntry(acc.types[k], name, b));
      b->CreateStore(init, acc.slots[k]);
    }
    return acc;
  }

  // slots = combiner(slots..., inputs at `input_index`...).
  absl::Status Accumulate(ElementalEmitter* emitter,
                          const HloComputation* combiner,
                          const std::vector<ElementGenerator>& operands,
                          const IrIndex& input_index,
                          llvm::IRBuilderBase* b) const {
    const size_t n = types.size();
    std::vector<llvm::Value*> args;
    for (size_t k = 0; k < n; ++k) {
      args.push_back(b->CreateLoad(types[k], slots[k]));
    }
    for (size_t k = 0; k < n; ++k) {
      HLOC_ASSIGN_OR_RETURN(llvm::Value * x, operands[k](input_index));
      args.push_back(x);
    }
    HLOC_ASSIGN_OR_RETURN(llvm::Value * r,
                          emitter->EmitScalarComputation(combiner, args));
    for (size_t k = 0; k < n; ++k) {
      b->CreateStore(
          n == 1 ? r : b->CreateExtractValue(r, {static_cast<unsigned>(k)}),
          slots[k]);
    }
    return absl::OkStatus();
  }

  // The result: the one value, or a struct of result_type for n > 1.
  llvm::Value* Load(llvm::Type* result_type, llvm::IRBuilderBase* b) const {
    if (types.size() == 1) return b->CreateLoad(types[0], slots[0]);
    llvm::Value* result = llvm::UndefValue::get(result_type);
    for (size_t k = 0; k < types.size(); ++k) {
      result = b->CreateInsertValue(result, b->CreateLoad(types[k], slots[k]),
                                    {static_cast<unsigned>(k)});
    }
    return result;
  }
};

}  // namespace

absl::StatusOr<ElementGenerator> ElementalEmitter::MakeReduceGenerator(
    const HloInstruction* hlo, std::vector<ElementGenerator> operands) {
  llvm::IRBuilderBase* b = b_;
  size_t n = operands.size() / 2;
  const Shape in = hlo->operand(0)->shape();
  std::vector<int64_t> reduced = hlo->dimensions();
  std::vector<bool> is_reduced(in.rank(), false);
  for (int64_t d : reduced) is_reduced[d] = true;
  std::vector<int64_t> kept;
  for (int64_t d = 0; d < in.rank(); ++d) {
    if (!is_reduced[d]) kept.push_back(d);
  }
  // Reduced dimensions, most major (physically) first.
  std::vector<int64_t> loop_dims, loop_bounds;
  std::vector<int64_t> minor_to_major = in.MinorToMajor();
  for (auto it = minor_to_major.rbegin(); it != minor_to_major.rend(); ++it) {
    if (is_reduced[*it]) {
      loop_dims.push_back(*it);
      loop_bounds.push_back(in.dimensions(*it));
    }
  }
  std::vector<llvm::Type*> types;
  for (size_t k = 0; k < n; ++k) {
    types.push_back(*RegisterType(hlo->operand(k)->shape().element_type(),
                                  b->getContext()));
  }
  llvm::Type* result_type = *ValueType(hlo->shape(), b->getContext());
  const HloComputation* combiner = hlo->to_apply();
  return [this, operands, in, kept, loop_dims, loop_bounds, types, result_type,
          combiner, b](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
    HLOC_ASSIGN_OR_RETURN(
        Accumulators acc,
        Accumulators::Emit(operands, types, index.index_type(), "reduce.acc",
                           b));
    std::vector<llvm::Value*> in_index(in.rank());
    for (size_t j = 0; j < kept.size(); ++j) in_index[kept[j]] = index[j];
    HLOC_RETURN_IF_ERROR(EmitLoopsOver(
        loop_dims, loop_bounds, in_index,
        [&]() -> absl::Status {
          return acc.Accumulate(this, combiner, operands,
                                IrIndex(in_index, index.index_type()), b);
        },
        index.index_type(), b));
    return acc.Load(result_type, b);
  };
}

absl::StatusOr<ElementGenerator> ElementalEmitter::MakeReduceWindowGenerator(
    const HloInstruction* hlo, std::vector<ElementGenerator> operands) {
  llvm::IRBuilderBase* b = b_;
  size_t n = operands.size() / 2;
  const Shape in = hlo->operand(0)->shape();
  // XLA omits the empty window of a rank-0 operand.
  Window window = hlo->attrs().window.value_or(Window{});
  for (const WindowDimension& w : window.dimensions) {
    if (w.window_reversal) return Unimplemented(hlo, "window reversal");
  }
  std::vector<int64_t> loop_dims, loop_bounds;
  for (int64_t d = 0; d < in.rank(); ++d) {
    loop_dims.push_back(d);
    loop_bounds.push_back(window.dimensions[d].size);
  }
  std::vector<llvm::Type*> types;
  for (size_t k = 0; k < n; ++k) {
    types.push_back(*RegisterType(hlo->operand(k)->shape().element_type(),
                                  b->getContext()));
  }
  llvm::Type* result_type = *ValueType(hlo->shape(), b->getContext());
  const HloComputation* combiner = hlo->to_apply();
  return [this, operands, in, window, loop_dims, loop_bounds, types,
          result_type, combiner,
          b](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
    HLOC_ASSIGN_OR_RETURN(
        Accumulators acc,
        Accumulators::Emit(operands, types, index.index_type(), "window.acc",
                           b));
    std::vector<llvm::Value*> window_index(in.rank());
    HLOC_RETURN_IF_ERROR(EmitLoopsOver(
        loop_dims, loop_bounds, window_index,
        [&]() -> absl::Status {
          std::vector<llvm::Value*> in_index;
          llvm::Value* inside = b->getTrue();
          for (int64_t d = 0; d < in.rank(); ++d) {
            const WindowDimension& w = window.dimensions[d];
            llvm::Value* pos = b->CreateSub(
                b->CreateAdd(
                    b->CreateMul(index[d], IndexConstant(index, w.stride)),
                    b->CreateMul(window_index[d],
                                 IndexConstant(index, w.window_dilation))),
                IndexConstant(index, w.padding_low));
            inside = b->CreateAnd(
                inside, b->CreateICmpSGE(pos, IndexConstant(index, 0)));
            if (w.base_dilation > 1) {
              llvm::Value* bd = IndexConstant(index, w.base_dilation);
              inside = b->CreateAnd(inside,
                                    b->CreateICmpEQ(b->CreateSRem(pos, bd),
                                                    IndexConstant(index, 0)));
              pos = b->CreateSDiv(pos, bd);
            }
            inside = b->CreateAnd(
                inside,
                b->CreateICmpSLT(pos, IndexConstant(index, in.dimensions(d))));
            in_index.push_back(pos);
          }
          return EmitIfThenElse(
              inside,
              [&]() -> absl::Status {
                return acc.Accumulate(this, combiner, operands,
                                      IrIndex(in_index, index.index_type()), b);
              },
              nullptr, b);
        },
        index.index_type(), b));
    return acc.Load(result_type, b);
  };
}

// XLA's gather: output dimensions not in offset_dims are batch dimensions
// (they index start_indices, skipping index_vector_dim); offset_dims walk
// the operand dimensions that are neither collapsed nor batching; starts
// are clamped so the whole slice is in bounds.
absl::StatusOr<ElementGenerator> ElementalEmitter::MakeGatherGenerator(
    const HloInstruction* hlo, std::vector<ElementGenerator> operands) {
  llvm::IRBuilderBase* b = b_;
  if (!hlo->attrs().gather_dimension_numbers.has_value()) {
    return Unimplemented(hlo, "gather without dimension numbers");
  }
  const GatherDimensionNumbers dn = *hlo->attrs().gather_dimension_numbers;
  const std::vector<int64_t> slice_sizes = hlo->attrs().gather_slice_sizes;
  const Shape operand = hlo->operand(0)->shape();
  const Shape indices = hlo->operand(1)->shape();
  const Shape out = hlo->shape();
  PrimitiveType index_type = indices.element_type();
  auto contains = [](const std::vector<int64_t>& v, int64_t x) {
    return std::find(v.begin(), v.end(), x) != v.end();
  };
  std::vector<int64_t> batch_out_dims;  // output dims that are batch dims
  for (int64_t d = 0; d < out.rank(); ++d) {
    if (!contains(dn.offset_dims, d)) batch_out_dims.push_back(d);
  }
  // Operand dims that receive an offset output dim, in order.
  std::vector<int64_t> offset_operand_dims;
  for (int64_t d = 0; d < operand.rank(); ++d) {
    if (!contains(dn.collapsed_slice_dims, d) &&
        !contains(dn.operand_batching_dims, d)) {
      offset_operand_dims.push_back(d);
    }
  }
  if (offset_operand_dims.size() != dn.offset_dims.size()) {
    return Unimplemented(hlo, "inconsistent gather dimension numbers");
  }
  int64_t ivd = dn.index_vector_dim;
  // For a start_indices dim (not ivd): its position among the batch dims.
  auto batch_position = [ivd](int64_t s) { return s < ivd ? s : s - 1; };
  return [operands, dn, slice_sizes, operand, indices, index_type,
          batch_out_dims, offset_operand_dims, ivd, batch_position,
          b](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
    std::vector<llvm::Value*> batch;
    for (int64_t d : batch_out_dims) batch.push_back(index[d]);
    std::vector<llvm::Value*> op_index(operand.rank(), IndexConstant(index, 0));
    for (size_t k = 0; k < dn.start_index_map.size(); ++k) {
      std::vector<llvm::Value*> idx;
      for (int64_t s = 0; s < indices.rank(); ++s) {
        idx.push_back(s == ivd ? IndexConstant(index, k)
                               : batch[batch_position(s)]);
      }
      HLOC_ASSIGN_OR_RETURN(llvm::Value * start,
                            operands[1](IrIndex(idx, index.index_type())));
      start = ConvertStartIndex(start, index_type, index.index_type(), b);
      int64_t od = dn.start_index_map[k];
      op_index[od] =
          ClampIndex(start, 0, operand.dimensions(od) - slice_sizes[od], b);
    }
    for (size_t i = 0; i < dn.operand_batching_dims.size(); ++i) {
      op_index[dn.operand_batching_dims[i]] =
          batch[batch_position(dn.start_indices_batching_dims[i])];
    }
    for (size_t j = 0; j < offset_operand_dims.size(); ++j) {
      int64_t od = offset_operand_dims[j];
      op_index[od] = b->CreateAdd(op_index[od], index[dn.offset_dims[j]]);
    }
    return operands[0](IrIndex(op_index, index.index_type()));
  };
}

// --- FusedIrEmitter
// ------------------------------------------------------------

void FusedIrEmitter::BindParameter(int64_t parameter_number,
                                   ElementGenerator generator) {
  parameters_[parameter_number] = std::move(generator);
}

void FusedIrEmitter::BindInstruction(const HloInstruction* hlo,
                                     ElementGenerator generator) {
  generators_[hlo] = std::move(generator);
}

absl::StatusOr<ElementGenerator> FusedIrEmitter::GetGenerator(
    const HloInstruction* hlo) {
  if (auto it = generators_.find(hlo); it != generators_.end())
    return it->second;
  ElementGenerator generator;
  if (hlo->opcode() == HloOpcode::kParameter) {
    auto it = parameters_.find(hlo->parameter_number());
    if (it == parameters_.end()) {
      return absl::InternalError(
          absl::StrCat("no generator bound for ", hlo->ToShortString()));
    }
    generator = it->second;
  } else if (hlo->opcode() == HloOpcode::kGetTupleElement &&
             hlo->operand(0)->opcode() == HloOpcode::kTuple) {
    return GetGenerator(hlo->operand(0)->operand(hlo->tuple_index()));
  } else {
    std::vector<ElementGenerator> operands;
    for (const HloInstruction* operand : hlo->operands()) {
      HLOC_ASSIGN_OR_RETURN(ElementGenerator g, GetGenerator(operand));
      operands.push_back(std::move(g));
    }
    HLOC_ASSIGN_OR_RETURN(
        generator, elemental_->MakeElementGenerator(hlo, std::move(operands)));
  }
  llvm::IRBuilderBase* b = elemental_->builder();
  auto cache = cache_;
  // Shared, not copied: a generator's closure holds its operands'
  // generators by value, so copying one copies the whole expression below
  // it, and a fused DAG whose values are used more than once (JAX's lgamma
  // and erfinv are hundreds of instructions that reuse x) unfolds into a
  // tree exponential in its depth. Behind a shared_ptr each instruction's
  // closure exists once and a copy costs a reference count.
  auto shared = std::make_shared<const ElementGenerator>(std::move(generator));
  ElementGenerator cached =
      [cache, hlo, shared,
       b](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
    std::vector<CacheEntry>& entries = (*cache)[hlo];
    for (const CacheEntry& e : entries) {
      if (e.block == b->GetInsertBlock() && e.index == index.multidim()) {
        return e.value;
      }
    }
    HLOC_ASSIGN_OR_RETURN(llvm::Value * value, (*shared)(index));
    (*cache)[hlo].push_back({index.multidim(), b->GetInsertBlock(), value});
    return value;
  };
  generators_[hlo] = cached;
  return cached;
}

}  // namespace hloc
