// Host values of HLO: a dense array of one element type, or a tuple of
// literals. Array elements are stored densely in row-major order of their
// logical index, whatever the shape's layout says; the layout is kept as
// metadata for the stages that lay buffers out physically.
#ifndef HLO_LITERAL_H_
#define HLO_LITERAL_H_

#include <complex>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hlo/float16.h"
#include "hlo/float8.h"
#include "hlo/large_block_allocator.h"
#include "hlo/primitive_type.h"
#include "hlo/shape.h"

namespace hloc {

using complex64 = std::complex<float>;
using complex128 = std::complex<double>;

// The host type that stores one element of each supported PrimitiveType.
template <PrimitiveType kType>
struct NativeTypeOf;
#define HLOC_NATIVE_TYPE(ptype, ctype) \
  template <>                          \
  struct NativeTypeOf<ptype> {         \
    using type = ctype;                \
  };
HLOC_NATIVE_TYPE(PRED, bool)
HLOC_NATIVE_TYPE(S8, int8_t)
// Sub-byte integers hold their value in a byte (hlo/sub_byte_int.h).
HLOC_NATIVE_TYPE(S2, int8_t)
HLOC_NATIVE_TYPE(S4, int8_t)
HLOC_NATIVE_TYPE(U2, uint8_t)
HLOC_NATIVE_TYPE(U4, uint8_t)
HLOC_NATIVE_TYPE(S16, int16_t)
HLOC_NATIVE_TYPE(S32, int32_t)
HLOC_NATIVE_TYPE(S64, int64_t)
HLOC_NATIVE_TYPE(U8, uint8_t)
HLOC_NATIVE_TYPE(U16, uint16_t)
HLOC_NATIVE_TYPE(U32, uint32_t)
HLOC_NATIVE_TYPE(U64, uint64_t)
HLOC_NATIVE_TYPE(F16, Half)
HLOC_NATIVE_TYPE(BF16, BFloat16)
HLOC_NATIVE_TYPE(F8E5M2, Float8E5M2)
HLOC_NATIVE_TYPE(F8E4M3, Float8E4M3)
HLOC_NATIVE_TYPE(F8E3M4, Float8E3M4)
HLOC_NATIVE_TYPE(F8E4M3FN, Float8E4M3FN)
HLOC_NATIVE_TYPE(F8E4M3FNUZ, Float8E4M3FNUZ)
HLOC_NATIVE_TYPE(F8E5M2FNUZ, Float8E5M2FNUZ)
HLOC_NATIVE_TYPE(F8E4M3B11FNUZ, Float8E4M3B11FNUZ)
HLOC_NATIVE_TYPE(F4E2M1FN, Float4E2M1FN)
HLOC_NATIVE_TYPE(F8E8M0FNU, Float8E8M0FNU)
HLOC_NATIVE_TYPE(F32, float)
HLOC_NATIVE_TYPE(F64, double)
HLOC_NATIVE_TYPE(C64, complex64)
HLOC_NATIVE_TYPE(C128, complex128)
#undef HLOC_NATIVE_TYPE

template <PrimitiveType kType>
using NativeType = typename NativeTypeOf<kType>::type;

// The float types stored as bits and computed in f32 (f16, bf16, the
// narrow floats of hlo/float8.h): host code converts them to float,
// computes, and rounds back.
template <typename T>
inline constexpr bool kIsNarrowFloat =
    std::is_same_v<T, Half> || std::is_same_v<T, BFloat16> ||
    IsFloat8<T>::value;

// Calls fn(std::integral_constant<PrimitiveType, T>{}) for a supported
// element type, so one generic lambda serves every type:
//   TypeSwitch(type, [&](auto t) { using T = NativeType<decltype(t)::value>; });
// Returns an "unsupported type" error for the others.
template <typename Fn>
absl::Status TypeSwitch(PrimitiveType type, Fn&& fn) {
#define HLOC_CASE(T)                                 \
  case T:                                            \
    fn(std::integral_constant<PrimitiveType, T>{}); \
    return absl::OkStatus();
  switch (type) {
    HLOC_CASE(PRED)
    HLOC_CASE(S2)
    HLOC_CASE(S4)
    HLOC_CASE(S8)
    HLOC_CASE(S16)
    HLOC_CASE(S32)
    HLOC_CASE(S64)
    HLOC_CASE(U2)
    HLOC_CASE(U4)
    HLOC_CASE(U8)
    HLOC_CASE(U16)
    HLOC_CASE(U32)
    HLOC_CASE(U64)
    HLOC_CASE(F16)
    HLOC_CASE(BF16)
    HLOC_CASE(F8E5M2)
    HLOC_CASE(F8E4M3)
    HLOC_CASE(F8E3M4)
    HLOC_CASE(F8E4M3FN)
    HLOC_CASE(F8E4M3FNUZ)
    HLOC_CASE(F8E5M2FNUZ)
    HLOC_CASE(F8E4M3B11FNUZ)
    HLOC_CASE(F4E2M1FN)
    HLOC_CASE(F8E8M0FNU)
    HLOC_CASE(F32)
    HLOC_CASE(F64)
    HLOC_CASE(C64)
    HLOC_CASE(C128)
    default:
      return UnsupportedTypeError(type, "host literal");
  }
#undef HLOC_CASE
}

class Literal {
 public:
  Literal() = default;
  // A zero-filled literal of `shape` (tuples get zero-filled elements).
  // Shapes with unsupported element types get storage sized by ByteWidth.
  explicit Literal(const Shape& shape);
  // A literal of `shape` whose array bytes are not written (for callers
  // that overwrite every byte: no zeroing pass, and a recycled large block
  // is not touched before they fill it).
  static Literal CreateUninitialized(const Shape& shape);
  // An array literal of `shape` over the caller's row-major `data` (element
  // aligned, ElementCount * ByteWidth bytes), not copied: how the Python
  // bindings pass NumPy arrays to an executable. The caller keeps `data`
  // alive while the view lives and only reads through it; a copy of the
  // view owns its bytes.
  static Literal CreateView(const Shape& shape, const void* data);

  Literal(const Literal&) = default;
  Literal& operator=(const Literal&) = default;
  Literal(Literal&&) = default;
  Literal& operator=(Literal&&) = default;

  template <typename T>
  static Literal CreateR0(PrimitiveType type, T value);
  template <typename T>
  static Literal CreateR1(PrimitiveType type, absl::Span<const T> values);
  // An array literal of `shape` from row-major `values`.
  template <typename T>
  static Literal FromVector(const Shape& shape, absl::Span<const T> values);
  static Literal MakeTuple(std::vector<Literal> elements);

  const Shape& shape() const { return shape_; }
  Shape* mutable_shape_do_not_use() { return &shape_; }
  PrimitiveType element_type() const { return shape_.element_type(); }
  int64_t element_count() const { return shape_.ElementCount(); }

  // Raw dense bytes of an array literal; 64-byte aligned when non-empty.
  const uint8_t* untyped_data() const { return bytes_.data(); }
  uint8_t* untyped_data() { return bytes_.data(); }
  int64_t size_bytes() const { return static_cast<int64_t>(bytes_.size()); }

  // Typed view of the elements; T must be the element type's NativeType.
  template <typename T>
  absl::Span<const T> data() const {
    return absl::Span<const T>(reinterpret_cast<const T*>(bytes_.data()),
                               bytes_.size() / sizeof(T));
  }
  template <typename T>
  absl::Span<T> data() {
    return absl::Span<T>(reinterpret_cast<T*>(bytes_.data()),
                         bytes_.size() / sizeof(T));
  }

  // Row-major linear index of a multi-dimensional index.
  int64_t LinearIndex(absl::Span<const int64_t> index) const;
  template <typename T>
  T Get(absl::Span<const int64_t> index) const {
    return data<T>()[LinearIndex(index)];
  }
  template <typename T>
  void Set(absl::Span<const int64_t> index, T value) {
    data<T>()[LinearIndex(index)] = value;
  }

  // Element i (row-major) of any real or integer type, widened. Complex
  // values give their real part; pred gives 0/1.
  double GetAsDouble(int64_t linear) const;
  int64_t GetAsInt64(int64_t linear) const;
  complex128 GetAsComplex(int64_t linear) const;
  // Stores `value` converted to the element type (as C++ conversion would;
  // f16/bf16 round to nearest even; sub-byte integers wrap).
  void SetFromDouble(int64_t linear, double value);
  void SetFromInt64(int64_t linear, int64_t value);

  // Tuple elements.
  const std::vector<Literal>& tuple_elements() const { return elements_; }
  std::vector<Literal>& tuple_elements() { return elements_; }

  // Same shape (ignoring layout) and bitwise-identical element data.
  bool operator==(const Literal& o) const;
  bool operator!=(const Literal& o) const { return !(*this == o); }

  // The same values under another shape with the same element count
  // (reshape of row-major data is free).
  absl::StatusOr<Literal> Reshape(std::vector<int64_t> dimensions) const;

  // XLA's literal text: "{ {1, 2}, {3, 4} }" style nested braces for
  // arrays, "(...)" for tuples, with inf/-inf/nan and true/false. Without the
  // shape prefix.
  std::string ValuesToString() const;
  // "f32[2,2] {...}" for debugging and error messages.
  std::string ToString() const;

 private:
  // Large blocks come from the process-wide LargeBlockAllocator, so a
  // result freed before the next run of the same size is reused warm.
  Shape shape_;
  ByteBlock bytes_;
  std::vector<Literal> elements_;
};

template <typename T>
Literal Literal::CreateR0(PrimitiveType type, T value) {
  Literal lit(Shape::Scalar(type));
  lit.data<T>()[0] = value;
  return lit;
}

template <typename T>
Literal Literal::CreateR1(PrimitiveType type, absl::Span<const T> values) {
  return FromVector<T>(
      Shape::Array(type, {static_cast<int64_t>(values.size())}), values);
}

template <typename T>
Literal Literal::FromVector(const Shape& shape, absl::Span<const T> values) {
  Literal lit(shape);
  std::memcpy(lit.bytes_.data(), values.data(),
              std::min(lit.bytes_.size(), values.size() * sizeof(T)));
  return lit;
}

}  // namespace hloc

#endif  // HLO_LITERAL_H_
