#include "backends/common/float8_convert.h"

#include "llvm/IR/Intrinsics.h"

namespace hloc {

namespace {

// f8e8m0fnu: the bits are f32's exponent field (hlo/float8.h).
llvm::Value* EmitE8M0ToF32(llvm::IRBuilderBase* b, llvm::Value* bits) {
  llvm::Value* x = b->CreateZExt(bits, b->getInt32Ty());
  llvm::Value* result = b->CreateSelect(
      b->CreateICmpEQ(x, b->getInt32(0)),
      b->getInt32(0x00400000),  // 2^-127, an f32 denormal
      b->CreateShl(x, 23));
  result = b->CreateSelect(b->CreateICmpEQ(x, b->getInt32(0xff)),
                           b->getInt32(0x7fc00000), result);
  return b->CreateBitCast(result, b->getFloatTy());
}

// f32 -> f8e8m0fnu, on the bits as the host's FloatToFloat8Bits.
llvm::Value* EmitF32ToE8M0(llvm::IRBuilderBase* b, llvm::Value* value) {
  llvm::Value* x = b->CreateBitCast(value, b->getInt32Ty());
  // The exponent field, rounded half way up by the mantissa; at most 0xff
  // (0x7fffffff + 2^22 does not wrap).
  llvm::Value* field = b->CreateBinaryIntrinsic(
      llvm::Intrinsic::umin,
      b->CreateLShr(b->CreateAdd(x, b->getInt32(0x00400000)), 23),
      b->getInt32(0xff));
  // At or below 2^-127: the smallest value; zero and negatives: NaN.
  field = b->CreateSelect(b->CreateICmpULE(x, b->getInt32(0x00400000)),
                          b->getInt32(0), field);
  field = b->CreateSelect(b->CreateICmpSLE(x, b->getInt32(0)),
                          b->getInt32(0xff), field);
  return b->CreateTrunc(field, b->getInt8Ty());
}

}  // namespace

llvm::Value* EmitFloat8ToF32(llvm::IRBuilderBase* b, llvm::Value* bits,
                             const Float8Format& format) {
  if (format.kind == Float8Format::kExponentOnly) {
    return EmitE8M0ToF32(b, bits);
  }
  const int m = format.mantissa_bits;
  const int sign_bit = format.SignBit();
  llvm::Type* i32 = b->getInt32Ty();
  llvm::Value* x = b->CreateAnd(b->CreateZExt(bits, i32), format.Mask());
  llvm::Value* sign = b->CreateShl(
      b->CreateAnd(x, sign_bit), 31 - format.exponent_bits - m);
  llvm::Value* magnitude = b->CreateAnd(x, sign_bit - 1);
  llvm::Value* field = b->CreateLShr(magnitude, m);
  llvm::Value* fraction = b->CreateAnd(magnitude, (1 << m) - 1);
  // A normal value: rebias the exponent, move the fraction to the top of
  // f32's.
  llvm::Value* normal = b->CreateOr(
      b->CreateShl(b->CreateAdd(field, b->getInt32(127 - format.bias)), 23),
      b->CreateShl(fraction, 23 - m));
  // A denormal (or zero): fraction x 2^(min exponent - m), exact in f32.
  llvm::Value* denormal = b->CreateBitCast(
      b->CreateFMul(
          b->CreateUIToFP(fraction, b->getFloatTy()),
          llvm::ConstantFP::get(b->getFloatTy(),
                                std::ldexp(1.0, format.MinExponent() - m))),
      i32);
  llvm::Value* result =
      b->CreateOr(sign, b->CreateSelect(b->CreateICmpEQ(field, b->getInt32(0)),
                                        denormal, normal));
  llvm::Value* nan_bits = b->CreateOr(sign, b->getInt32(0x7fc00000));
  switch (format.kind) {
    case Float8Format::kIeee: {
      // An all-ones exponent is inf (zero fraction) or NaN.
      llvm::Value* top =
          b->CreateICmpEQ(field, b->getInt32((1 << format.exponent_bits) - 1));
      llvm::Value* special =
          b->CreateSelect(b->CreateICmpEQ(fraction, b->getInt32(0)),
                          b->CreateOr(sign, b->getInt32(0x7f800000)), nan_bits);
      result = b->CreateSelect(top, special, result);
      break;
    }
    case Float8Format::kFn:
      result = b->CreateSelect(b->CreateICmpEQ(magnitude, b->getInt32(0x7f)),
                               nan_bits, result);
      break;
    case Float8Format::kFnuz:
      result = b->CreateSelect(b->CreateICmpEQ(x, b->getInt32(0x80)),
                               b->getInt32(0x7fc00000), result);
      break;
    case Float8Format::kFiniteOnly:
    case Float8Format::kExponentOnly:
      break;
  }
  return b->CreateBitCast(result, b->getFloatTy());
}

llvm::Value* EmitF64ToF32RoundToOdd(llvm::IRBuilderBase* b,
                                    llvm::Value* value) {
  llvm::Value* nearest = b->CreateFPTrunc(value, b->getFloatTy());
  // Ordered: NaN is no inexact result, it stays the nearest's NaN.
  llvm::Value* inexact =
      b->CreateFCmpONE(b->CreateFPExt(nearest, b->getDoubleTy()), value);
  llvm::Value* bits = b->CreateBitCast(nearest, b->getInt32Ty());
  llvm::Value* even =
      b->CreateICmpEQ(b->CreateAnd(bits, b->getInt32(1)), b->getInt32(0));
  llvm::Value* farther_out = b->CreateFCmpOGT(
      b->CreateUnaryIntrinsic(llvm::Intrinsic::fabs, value),
      b->CreateFPExt(b->CreateUnaryIntrinsic(llvm::Intrinsic::fabs, nearest),
                     b->getDoubleTy()));
  llvm::Value* odd =
      b->CreateSelect(farther_out, b->CreateAdd(bits, b->getInt32(1)),
                      b->CreateSub(bits, b->getInt32(1)));
  return b->CreateBitCast(
      b->CreateSelect(b->CreateAnd(inexact, even), odd, bits), b->getFloatTy());
}

llvm::Value* EmitF32ToFloat8(llvm::IRBuilderBase* b, llvm::Value* value,
                             const Float8Format& format) {
  if (format.kind == Float8Format::kExponentOnly) {
    return EmitF32ToE8M0(b, value);
  }
  const int m = format.mantissa_bits;
  llvm::Type* i32 = b->getInt32Ty();
  llvm::Value* x = b->CreateBitCast(value, i32);
  llvm::Value* negative = b->CreateICmpSLT(x, b->getInt32(0));
  llvm::Value* abs = b->CreateAnd(x, 0x7fffffff);
  // The exponent the result is quantised at: the value's own, or the
  // format's smallest normal one (denormals and below).
  llvm::Value* exponent = b->CreateBinaryIntrinsic(
      llvm::Intrinsic::smax,
      b->CreateSub(b->CreateLShr(abs, 23), b->getInt32(127)),
      b->getInt32(format.MinExponent()));
  // x 2^(m - exponent), a power of two (127 + m - exponent is within f32's
  // normal exponents for every finite input), makes one unit in the last
  // place 1: rint then rounds to the format, to nearest even.
  llvm::Value* scale = b->CreateBitCast(
      b->CreateShl(b->CreateSub(b->getInt32(127 + m), exponent), 23),
      b->getFloatTy());
  llvm::Value* scaled =
      b->CreateFMul(b->CreateBitCast(abs, b->getFloatTy()), scale);
  llvm::Value* rounded = b->CreateUnaryIntrinsic(llvm::Intrinsic::rint, scaled);
  // Saturating, so that inf and NaN inputs (chosen away below) stay
  // well-defined values.
  llvm::Value* mantissa = b->CreateIntrinsic(llvm::Intrinsic::fptoui_sat,
                                             {i32, b->getFloatTy()}, {rounded});
  // Rounded up into the next binade: 2^(m+1) is 2^m one exponent higher.
  llvm::Value* carry = b->CreateICmpUGE(mantissa, b->getInt32(2 << m));
  mantissa = b->CreateSelect(carry, b->CreateLShr(mantissa, 1), mantissa);
  exponent = b->CreateAdd(exponent, b->CreateZExt(carry, i32));
  llvm::Value* is_denormal = b->CreateICmpULT(mantissa, b->getInt32(1 << m));
  llvm::Value* field = b->CreateAdd(exponent, b->getInt32(format.bias));
  llvm::Value* fraction = b->CreateSub(mantissa, b->getInt32(1 << m));
  llvm::Value* max_field = b->getInt32(format.MaxExponentField());
  llvm::Value* overflow = b->CreateAnd(
      b->CreateNot(is_denormal),
      b->CreateOr(
          b->CreateICmpSGT(field, max_field),
          b->CreateAnd(b->CreateICmpEQ(field, max_field),
                       b->CreateICmpSGT(
                           fraction, b->getInt32(format.MaxMantissaAtTop())))));
  llvm::Value* magnitude = b->CreateSelect(
      is_denormal, mantissa, b->CreateOr(b->CreateShl(field, m), fraction));
  llvm::Value* signed_result = b->CreateOr(magnitude, format.SignBit());
  if (format.kind == Float8Format::kFnuz) {
    // No -0: a negative value that rounds to zero is +0.
    signed_result = b->CreateSelect(b->CreateICmpEQ(magnitude, b->getInt32(0)),
                                    magnitude, signed_result);
  }
  llvm::Value* result = b->CreateSelect(negative, signed_result, magnitude);
  auto by_sign = [&](uint8_t positive, uint8_t negative_bits) {
    return b->CreateSelect(negative, b->getInt32(negative_bits),
                           b->getInt32(positive));
  };
  llvm::Value* nan = by_sign(format.Nan(false), format.Nan(true));
  const uint8_t largest = format.SignBit() - 1;  // f4e2m1fn saturates
  llvm::Value* too_large =
      format.kind == Float8Format::kIeee
          ? by_sign(format.Inf(false), format.Inf(true))
      : format.kind == Float8Format::kFiniteOnly
          ? by_sign(largest, largest | format.SignBit())
          : nan;
  result = b->CreateSelect(overflow, too_large, result);
  // Last, so that nothing computed from an inf or NaN input survives.
  result = b->CreateSelect(b->CreateICmpEQ(abs, b->getInt32(0x7f800000)),
                           too_large, result);
  result = b->CreateSelect(b->CreateICmpUGT(abs, b->getInt32(0x7f800000)), nan,
                           result);
  return b->CreateTrunc(result, b->getInt8Ty());
}

}  // namespace hloc
