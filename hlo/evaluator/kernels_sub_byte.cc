// Kernels whose result is a sub-byte integer (s4, u4, s2, u2). Their values
// live in int8/uint8 (hlo/sub_byte_int.h); each operation is computed on
// the values in 64 bits with XLA's integer semantics at the type's width
// and wrapped back, so add, multiply, negate and shifts wrap at 4 (or 2)
// bits, converts from wider integers truncate, converts from floats
// saturate to the type's range (NaN -> 0), and clz, popcnt and the right
// shifts see only the type's bits. Compare, select and clamp need no
// kernels of their own: on canonical values the 8-bit ones are exact.
#include "hlo/evaluator/kernel_util.h"
#include "hlo/sub_byte_int.h"

namespace hloc {
namespace eval {
namespace {

template <int kBits, bool kSigned>
struct SubByte {
  using T = std::conditional_t<kSigned, int8_t, uint8_t>;
  static constexpr int64_t kMin = kSigned ? -(int64_t{1} << (kBits - 1)) : 0;
  static constexpr int64_t kMax =
      kSigned ? (int64_t{1} << (kBits - 1)) - 1 : (int64_t{1} << kBits) - 1;
  static constexpr uint64_t kMask = (uint64_t{1} << kBits) - 1;

  static T Wrap(int64_t v) {
    return static_cast<T>(WrapToBits(v, kBits, kSigned));
  }
  // The type's bits of v, as an unsigned number.
  static uint64_t Pattern(int64_t v) {
    return static_cast<uint64_t>(v) & kMask;
  }
};

template <typename S, HloOpcode kOp>
int64_t ApplyBinary(int64_t a, int64_t b) {
  using T = typename S::T;
  constexpr int kBits = __builtin_popcountll(S::kMask);
  constexpr bool kSigned = S::kMin < 0;
  switch (kOp) {
    case HloOpcode::kAdd:
      return a + b;
    case HloOpcode::kSubtract:
      return a - b;
    case HloOpcode::kMultiply:
      return a * b;
    case HloOpcode::kDivide:
      if (b == 0) return -1;  // all ones
      if (kSigned && b == -1 && a == S::kMin) return a;
      return a / b;
    case HloOpcode::kRemainder:
      if (b == 0) return a;
      if (kSigned && b == -1) return 0;
      return a % b;
    case HloOpcode::kMaximum:
      return a > b ? a : b;
    case HloOpcode::kMinimum:
      return a < b ? a : b;
    case HloOpcode::kPower:
      return IntPower<int64_t>(a, b);
    case HloOpcode::kAnd:
      return a & b;
    case HloOpcode::kOr:
      return a | b;
    case HloOpcode::kXor:
      return a ^ b;
    case HloOpcode::kShiftLeft:
      return S::Pattern(b) >= kBits
                 ? 0
                 : static_cast<int64_t>(S::Pattern(a) << S::Pattern(b));
    case HloOpcode::kShiftRightArithmetic: {
      const int64_t s = WrapToBits(a, kBits, /*is_signed=*/true);
      if (S::Pattern(b) >= kBits) return s < 0 ? -1 : 0;
      return s >> S::Pattern(b);
    }
    case HloOpcode::kShiftRightLogical:
      if (S::Pattern(b) >= kBits) return 0;
      return static_cast<int64_t>(S::Pattern(a) >> S::Pattern(b));
    default:
      static_assert(sizeof(T) == 1, "unreachable");
      return 0;
  }
}

template <typename S, HloOpcode kOp>
int64_t ApplyUnary(int64_t a) {
  constexpr int kBits = __builtin_popcountll(S::kMask);
  switch (kOp) {
    case HloOpcode::kAbs:
      return a < 0 ? -a : a;
    case HloOpcode::kNegate:
      return -a;
    case HloOpcode::kNot:
      return ~a;
    case HloOpcode::kSign:
      return a < 0 ? -1 : (a > 0 ? 1 : 0);
    case HloOpcode::kClz:
      return S::Pattern(a) == 0 ? kBits
                                : __builtin_clzll(S::Pattern(a)) - (64 - kBits);
    case HloOpcode::kPopulationCount:
      return __builtin_popcountll(S::Pattern(a));
    default:
      return 0;
  }
}

template <typename S, HloOpcode kOp>
void BinaryLoop(const void* const* in, void* out, int64_t n,
                const KernelAttrs&) {
  using T = typename S::T;
  const T* a = static_cast<const T*>(in[0]);
  const T* b = static_cast<const T*>(in[1]);
  T* o = static_cast<T*>(out);
  for (int64_t i = 0; i < n; ++i) {
    o[i] = S::Wrap(ApplyBinary<S, kOp>(a[i], b[i]));
  }
}

template <typename S, HloOpcode kOp>
void UnaryLoop(const void* const* in, void* out, int64_t n,
               const KernelAttrs&) {
  using T = typename S::T;
  const T* a = static_cast<const T*>(in[0]);
  T* o = static_cast<T*>(out);
  for (int64_t i = 0; i < n; ++i) o[i] = S::Wrap(ApplyUnary<S, kOp>(a[i]));
}

// XLA's convert to a sub-byte integer from any type.
template <typename From, typename S>
typename S::T ConvertToSubByte(From v) {
  if constexpr (kIsPred<From>) {
    return S::Wrap(v ? 1 : 0);
  } else if constexpr (kIsComplex<From>) {
    return ConvertToSubByte<typename From::value_type, S>(v.real());
  } else if constexpr (kIsFloat<From>) {
    const double d = static_cast<double>(Load(v));
    if (std::isnan(d)) return 0;
    if (d <= static_cast<double>(S::kMin)) return S::Wrap(S::kMin);
    if (d >= static_cast<double>(S::kMax)) return S::Wrap(S::kMax);
    return S::Wrap(static_cast<int64_t>(d));
  } else {
    return S::Wrap(static_cast<int64_t>(v));
  }
}

template <typename From, typename S>
void ConvertLoop(const void* const* in, void* out, int64_t n,
                 const KernelAttrs&) {
  const From* a = static_cast<const From*>(in[0]);
  typename S::T* o = static_cast<typename S::T*>(out);
  for (int64_t i = 0; i < n; ++i) o[i] = ConvertToSubByte<From, S>(a[i]);
}

template <typename S>
ElementwiseFn SelectFor(HloOpcode opcode,
                        absl::Span<const PrimitiveType> operands,
                        PrimitiveType result) {
  const size_t n = operands.size();
  if (opcode == HloOpcode::kConvert) {
    if (n != 1) return nullptr;
    return DispatchType<ElementwiseFn>(
        operands[0], nullptr,
        [](auto f) -> ElementwiseFn { return &ConvertLoop<decltype(f), S>; });
  }
  for (PrimitiveType t : operands) {
    if (t != result) return nullptr;
  }
#define HLOC_UNARY(op) \
  case HloOpcode::op:  \
    return n == 1 ? &UnaryLoop<S, HloOpcode::op> : nullptr;
#define HLOC_BINARY(op) \
  case HloOpcode::op:   \
    return n == 2 ? &BinaryLoop<S, HloOpcode::op> : nullptr;
  switch (opcode) {
    HLOC_UNARY(kAbs)
    HLOC_UNARY(kNegate)
    HLOC_UNARY(kNot)
    HLOC_UNARY(kSign)
    HLOC_UNARY(kClz)
    HLOC_UNARY(kPopulationCount)
    HLOC_BINARY(kAdd)
    HLOC_BINARY(kSubtract)
    HLOC_BINARY(kMultiply)
    HLOC_BINARY(kDivide)
    HLOC_BINARY(kRemainder)
    HLOC_BINARY(kMaximum)
    HLOC_BINARY(kMinimum)
    HLOC_BINARY(kPower)
    HLOC_BINARY(kAnd)
    HLOC_BINARY(kOr)
    HLOC_BINARY(kXor)
    HLOC_BINARY(kShiftLeft)
    HLOC_BINARY(kShiftRightArithmetic)
    HLOC_BINARY(kShiftRightLogical)
    default:
      return nullptr;
  }
#undef HLOC_UNARY
#undef HLOC_BINARY
}

}  // namespace

ElementwiseFn SelectSubByteKernel(HloOpcode opcode,
                                  absl::Span<const PrimitiveType> operands,
                                  PrimitiveType result) {
  switch (result) {
    case S4:
      return SelectFor<SubByte<4, true>>(opcode, operands, result);
    case U4:
      return SelectFor<SubByte<4, false>>(opcode, operands, result);
    case S2:
      return SelectFor<SubByte<2, true>>(opcode, operands, result);
    case U2:
      return SelectFor<SubByte<2, false>>(opcode, operands, result);
    default:
      return nullptr;
  }
}

}  // namespace eval
}  // namespace hloc
