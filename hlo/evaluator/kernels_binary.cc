// Binary and ternary elementwise kernels (arithmetic, bitwise, shifts,
// complex, select, clamp) and the row reductions (sequential; f32 and f64
// sums of a reduce pairwise).
#include <cmath>
#include <complex>

#include "hlo/evaluator/kernel_util.h"

namespace hloc {
namespace eval {
namespace {

struct SameType {
  template <typename T>
  using Out = T;
};

struct SubOp : SameType {
  template <typename T>
  static constexpr bool kOk = !kIsPred<T>;
  template <typename T>
  static T Apply(T a, T b) {
    if constexpr (kIsInt<T>) {
      return static_cast<T>(static_cast<WrapT<T>>(a) -
                            static_cast<WrapT<T>>(b));
    } else {
      return Store<T>(Load(a) - Load(b));
    }
  }
};

struct DivOp : SameType {
  template <typename T>
  static constexpr bool kOk = !kIsPred<T>;
  template <typename T>
  static T Apply(T a, T b) {
    if constexpr (kIsInt<T>) {
      return IntDivide(a, b);
    } else if constexpr (kIsComplex<T>) {
      return ComplexDivide(a, b);
    } else {
      return Store<T>(Load(a) / Load(b));
    }
  }
};

struct RemOp : SameType {
  template <typename T>
  static constexpr bool kOk = kIsInt<T> || kIsFloat<T>;
  template <typename T>
  static T Apply(T a, T b) {
    if constexpr (kIsInt<T>) {
      return IntRemainder(a, b);
    } else {
      return Store<T>(std::fmod(Load(a), Load(b)));
    }
  }
};

struct PowOp : SameType {
  template <typename T>
  static constexpr bool kOk = true;
  template <typename T>
  static T Apply(T a, T b) {
    if constexpr (kIsPred<T>) {
      return a || !b;
    } else if constexpr (kIsInt<T>) {
      return IntPower(a, b);
    } else if constexpr (kIsComplex<T>) {
      return ComplexPower(a, b);
    } else {
      return Store<T>(FloatPower(Load(a), Load(b)));
    }
  }
};

struct Atan2Op : SameType {
  template <typename T>
  static constexpr bool kOk = kIsFloat<T> || kIsComplex<T>;
  template <typename T>
  static T Apply(T y, T x) {
    if constexpr (kIsComplex<T>) {
      // atan2(y, x) = -i * log((x + i*y) / sqrt(x^2 + y^2))
      const T i(0, 1);
      return -i * std::log((x + i * y) / std::sqrt(x * x + y * y));
    } else {
      return Store<T>(std::atan2(Load(y), Load(x)));
    }
  }
};

struct ShlOp : SameType {
  template <typename T>
  static constexpr bool kOk = kIsInt<T>;
  template <typename T>
  static T Apply(T a, T b) {
    return ShiftLeft(a, b);
  }
};

struct SraOp : SameType {
  template <typename T>
  static constexpr bool kOk = kIsInt<T>;
  template <typename T>
  static T Apply(T a, T b) {
    return ShiftRightArithmetic(a, b);
  }
};

struct SrlOp : SameType {
  template <typename T>
  static constexpr bool kOk = kIsInt<T>;
  template <typename T>
  static T Apply(T a, T b) {
    return ShiftRightLogical(a, b);
  }
};

// High half of the double-width product.
struct MulhiOp : SameType {
  template <typename T>
  static constexpr bool kOk = kIsInt<T>;
  template <typename T>
  static T Apply(T a, T b) {
    if constexpr (sizeof(T) == 8) {
      using W =
          std::conditional_t<std::is_signed_v<T>, __int128, unsigned __int128>;
      return static_cast<T>((static_cast<W>(a) * static_cast<W>(b)) >> 64);
    } else {
      using W = std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>;
      return static_cast<T>((static_cast<W>(a) * static_cast<W>(b)) >>
                            (8 * sizeof(T)));
    }
  }
};

struct ComplexOp {
  template <typename T>
  using Out = std::complex<T>;
  template <typename T>
  static constexpr bool kOk =
      std::is_same_v<T, float> || std::is_same_v<T, double>;
  template <typename T>
  static std::complex<T> Apply(T re, T im) {
    return std::complex<T>(re, im);
  }
};

// Adapts the shared reduction ops (kernel_util.h) to this file's interface.
template <typename Base>
struct Binary : Base, SameType {};

template <typename T, typename Op>
void BinaryLoop(const void* const* in, void* out, int64_t n,
                const KernelAttrs&) {
  const T* a = static_cast<const T*>(in[0]);
  const T* b = static_cast<const T*>(in[1]);
  using R = typename Op::template Out<T>;
  R* o = static_cast<R*>(out);
  for (int64_t i = 0; i < n; ++i) o[i] = Op::template Apply<T>(a[i], b[i]);
}

template <typename Op>
ElementwiseFn Pick(PrimitiveType operand, PrimitiveType result) {
  return DispatchType<ElementwiseFn>(operand, nullptr,
                                     [&](auto t) -> ElementwiseFn {
                                       using T = decltype(t);
                                       if constexpr (Op::template kOk<T>) {
                                         using R = typename Op::template Out<T>;
                                         if (PrimitiveTypeOf<R>() != result)
                                           return nullptr;
                                         return &BinaryLoop<T, Op>;
                                       } else {
                                         return nullptr;
                                       }
                                     });
}

template <int kBytes>
struct Bytes {
  unsigned char b[kBytes];
};

template <typename S>
void SelectLoop(const void* const* in, void* out, int64_t n,
                const KernelAttrs&) {
  const bool* p = static_cast<const bool*>(in[0]);
  const S* t = static_cast<const S*>(in[1]);
  const S* f = static_cast<const S*>(in[2]);
  S* o = static_cast<S*>(out);
  for (int64_t i = 0; i < n; ++i) o[i] = p[i] ? t[i] : f[i];
}

template <typename T>
void ClampLoop(const void* const* in, void* out, int64_t n,
               const KernelAttrs&) {
  const T* lo = static_cast<const T*>(in[0]);
  const T* x = static_cast<const T*>(in[1]);
  const T* hi = static_cast<const T*>(in[2]);
  T* o = static_cast<T*>(out);
  for (int64_t i = 0; i < n; ++i) o[i] = Min(hi[i], Max(lo[i], x[i]));
}

// Runs up to this long are summed one element after another.
constexpr int64_t kPairwiseBlock = 64;

// The sum of v[0, n), n >= 1, pairwise: halves summed recursively, blocks
// of kPairwiseBlock in order. Its rounding error grows with log(n), not n.
template <typename T>
T PairwiseSum(const T* v, int64_t n) {
  if (n <= kPairwiseBlock) {
    T s = v[0];
    for (int64_t i = 1; i < n; ++i) s = AddOp::Apply<T>(s, v[i]);
    return s;
  }
  const int64_t half = n / 2;
  return AddOp::Apply<T>(PairwiseSum(v, half),
                         PairwiseSum(v + half, n - half));
}

template <typename T, typename Op>
void ReduceRowLoop(void* acc, const void* x, int64_t n) {
  T a = *static_cast<T*>(acc);
  const T* v = static_cast<const T*>(x);
  for (int64_t i = 0; i < n; ++i) a = Op::template Apply<T>(a, v[i]);
  *static_cast<T*>(acc) = a;
}

// f32 and f64 sums of a reduce's contiguous run, pairwise: folded in one
// element at a time, the square sum of 2M f32 values near 1e-3 came out
// 1.2e-3 relative below XLA:CPU's (and the exact) value, past the
// comparison tolerance (the eighth zoo hunt's adamw_millions, a global
// gradient norm).
template <typename T>
void PairwiseSumRow(void* acc, const void* x, int64_t n) {
  if (n > 0) {
    *static_cast<T*>(acc) = AddOp::Apply<T>(
        *static_cast<T*>(acc), PairwiseSum(static_cast<const T*>(x), n));
  }
}

template <typename Op>
ReduceRowFn PickRow(PrimitiveType type) {
  return DispatchType<ReduceRowFn>(type, nullptr, [&](auto t) -> ReduceRowFn {
    using T = decltype(t);
    if constexpr (Op::template kOk<T>) {
      return &ReduceRowLoop<T, Op>;
    } else {
      return nullptr;
    }
  });
}

}  // namespace

ElementwiseFn SelectBinaryKernel(HloOpcode opcode, PrimitiveType operand,
                                 PrimitiveType result) {
  switch (opcode) {
    case HloOpcode::kAdd:
      return Pick<Binary<AddOp>>(operand, result);
    case HloOpcode::kSubtract:
      return Pick<SubOp>(operand, result);
    case HloOpcode::kMultiply:
      return Pick<Binary<MulOp>>(operand, result);
    case HloOpcode::kDivide:
      return Pick<DivOp>(operand, result);
    case HloOpcode::kRemainder:
      return Pick<RemOp>(operand, result);
    case HloOpcode::kMaximum:
      return Pick<Binary<MaxOp>>(operand, result);
    case HloOpcode::kMinimum:
      return Pick<Binary<MinOp>>(operand, result);
    case HloOpcode::kPower:
      return Pick<PowOp>(operand, result);
    case HloOpcode::kAtan2:
      return Pick<Atan2Op>(operand, result);
    case HloOpcode::kAnd:
      return Pick<Binary<AndOp>>(operand, result);
    case HloOpcode::kOr:
      return Pick<Binary<OrOp>>(operand, result);
    case HloOpcode::kXor:
      return Pick<Binary<XorOp>>(operand, result);
    case HloOpcode::kShiftLeft:
      return Pick<ShlOp>(operand, result);
    case HloOpcode::kShiftRightArithmetic:
      return Pick<SraOp>(operand, result);
    case HloOpcode::kShiftRightLogical:
      return Pick<SrlOp>(operand, result);
    case HloOpcode::kMulhi:
      return Pick<MulhiOp>(operand, result);
    case HloOpcode::kComplex:
      return Pick<ComplexOp>(operand, result);
    default:
      return nullptr;
  }
}

ElementwiseFn SelectSelectKernel(PrimitiveType type) {
  switch (ByteWidth(type)) {
    case 1:
      return &SelectLoop<uint8_t>;
    case 2:
      return &SelectLoop<uint16_t>;
    case 4:
      return &SelectLoop<uint32_t>;
    case 8:
      return &SelectLoop<uint64_t>;
    case 16:
      return &SelectLoop<Bytes<16>>;
    default:
      return nullptr;
  }
}

ElementwiseFn SelectClampKernel(PrimitiveType type) {
  return DispatchType<ElementwiseFn>(type, nullptr,
                                     [](auto t) -> ElementwiseFn {
                                       using T = decltype(t);
                                       if constexpr (!kIsComplex<T>) {
                                         return &ClampLoop<T>;
                                       } else {
                                         return nullptr;
                                       }
                                     });
}

ReduceRowFn SelectReduceRowKernel(HloOpcode opcode, PrimitiveType type,
                                  bool pairwise_sums) {
  if (pairwise_sums && opcode == HloOpcode::kAdd) {
    if (type == F32) return &PairwiseSumRow<float>;
    if (type == F64) return &PairwiseSumRow<double>;
  }
  switch (opcode) {
    case HloOpcode::kAdd:
      return PickRow<AddOp>(type);
    case HloOpcode::kMultiply:
      return PickRow<MulOp>(type);
    case HloOpcode::kMaximum:
      return PickRow<MaxOp>(type);
    case HloOpcode::kMinimum:
      return PickRow<MinOp>(type);
    case HloOpcode::kAnd:
      return PickRow<AndOp>(type);
    case HloOpcode::kOr:
      return PickRow<OrOp>(type);
    case HloOpcode::kXor:
      return PickRow<XorOp>(type);
    default:
      return nullptr;
  }
}

}  // namespace eval
}  // namespace hloc
