#include "hlo/literal.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>

#include "absl/strings/str_cat.h"
#include "hlo/sub_byte_int.h"

namespace hloc {
namespace {

// XLA's spelling of a float: the type's digits10 significant digits when
// that text reads back to the same value, else max_digits10 (which always
// does). f32 0.999 prints "0.999", 0.70710677f prints "0.707106769".
template <typename T>
std::string RoundTripFloat(double value, int short_digits, int max_digits) {
  if (std::isnan(value)) return std::signbit(value) ? "-nan" : "nan";
  if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", short_digits, value);
  const double back = std::strtod(buf, nullptr);
  const bool round_trips =
      std::is_same_v<T, double>
          ? back == value
          : static_cast<float>(T(back)) == static_cast<float>(T(value));
  if (!round_trips) std::snprintf(buf, sizeof buf, "%.*g", max_digits, value);
  return buf;
}

template <typename T>
std::string ElementToString(T v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v ? "true" : "false";
  } else if constexpr (std::is_same_v<T, Half>) {
    return RoundTripFloat<T>(static_cast<float>(v), 3, 5);
  } else if constexpr (std::is_same_v<T, BFloat16>) {
    return RoundTripFloat<T>(static_cast<float>(v), 2, 4);
  } else if constexpr (IsFloat8<T>::value) {
    return RoundTripFloat<T>(static_cast<float>(v), 3, 4);
  } else if constexpr (std::is_same_v<T, float>) {
    return RoundTripFloat<float>(v, 6, 9);
  } else if constexpr (std::is_same_v<T, double>) {
    return RoundTripFloat<double>(v, 15, 17);
  } else if constexpr (std::is_same_v<T, complex64>) {
    return absl::StrCat("(", RoundTripFloat<float>(v.real(), 6, 9), ", ",
                        RoundTripFloat<float>(v.imag(), 6, 9), ")");
  } else if constexpr (std::is_same_v<T, complex128>) {
    return absl::StrCat("(", RoundTripFloat<double>(v.real(), 15, 17), ", ",
                        RoundTripFloat<double>(v.imag(), 15, 17), ")");
  } else {
    return absl::StrCat(v);
  }
}

}  // namespace

Literal::Literal(const Shape& shape) : shape_(shape) {
  if (shape.IsTuple()) {
    for (const Shape& s : shape.tuple_shapes()) elements_.emplace_back(s);
  } else if (shape.IsArray()) {
    bytes_ = ByteBlock::Zeroed(shape.ElementCount() *
                               ByteWidth(shape.element_type()));
  }
}

Literal Literal::CreateUninitialized(const Shape& shape) {
  Literal lit;
  lit.shape_ = shape;
  if (shape.IsTuple()) {
    lit.elements_.reserve(shape.tuple_shapes().size());
    for (const Shape& s : shape.tuple_shapes()) {
      lit.elements_.push_back(CreateUninitialized(s));
    }
  } else if (shape.IsArray()) {
    lit.bytes_ = ByteBlock::Uninitialized(shape.ElementCount() *
                                          ByteWidth(shape.element_type()));
  }
  return lit;
}

Literal Literal::CreateView(const Shape& shape, const void* data) {
  Literal lit;
  lit.shape_ = shape;
  lit.bytes_ =
      ByteBlock::Borrow(static_cast<uint8_t*>(const_cast<void*>(data)),
                        shape.ElementCount() * ByteWidth(shape.element_type()));
  return lit;
}

Literal Literal::MakeTuple(std::vector<Literal> elements) {
  std::vector<Shape> shapes;
  for (const Literal& e : elements) shapes.push_back(e.shape());
  Literal lit;
  lit.shape_ = Shape::Tuple(std::move(shapes));
  lit.elements_ = std::move(elements);
  return lit;
}

int64_t Literal::LinearIndex(absl::Span<const int64_t> index) const {
  int64_t linear = 0;
  for (size_t d = 0; d < index.size(); ++d) {
    linear = linear * shape_.dimensions(d) + index[d];
  }
  return linear;
}

double Literal::GetAsDouble(int64_t linear) const {
  double out = 0;
  (void)TypeSwitch(element_type(), [&](auto t) {
    using T = NativeType<decltype(t)::value>;
    T v = data<T>()[linear];
    if constexpr (std::is_same_v<T, complex64> ||
                  std::is_same_v<T, complex128>) {
      out = static_cast<double>(v.real());
    } else {
      out = static_cast<double>(
          static_cast<std::conditional_t<kIsNarrowFloat<T>, float, T>>(v));
    }
  });
  return out;
}

int64_t Literal::GetAsInt64(int64_t linear) const {
  int64_t out = 0;
  (void)TypeSwitch(element_type(), [&](auto t) {
    using T = NativeType<decltype(t)::value>;
    T v = data<T>()[linear];
    if constexpr (std::is_same_v<T, complex64> ||
                  std::is_same_v<T, complex128>) {
      out = static_cast<int64_t>(v.real());
    } else if constexpr (kIsNarrowFloat<T>) {
      out = static_cast<int64_t>(static_cast<float>(v));
    } else {
      out = static_cast<int64_t>(v);
    }
  });
  return out;
}

complex128 Literal::GetAsComplex(int64_t linear) const {
  if (element_type() == C64) return complex128(data<complex64>()[linear]);
  if (element_type() == C128) return data<complex128>()[linear];
  return complex128(GetAsDouble(linear), 0.0);
}

void Literal::SetFromDouble(int64_t linear, double value) {
  (void)TypeSwitch(element_type(), [&](auto t) {
    using T = NativeType<decltype(t)::value>;
    if constexpr (kIsNarrowFloat<T>) {
      data<T>()[linear] = T(value);
    } else {
      data<T>()[linear] = static_cast<T>(value);
    }
  });
  CanonicalizeSubByteInts(element_type(), untyped_data() + linear, 1);
}

void Literal::SetFromInt64(int64_t linear, int64_t value) {
  (void)TypeSwitch(element_type(), [&](auto t) {
    using T = NativeType<decltype(t)::value>;
    if constexpr (kIsNarrowFloat<T>) {
      data<T>()[linear] = T(static_cast<double>(value));
    } else {
      data<T>()[linear] = static_cast<T>(value);
    }
  });
  CanonicalizeSubByteInts(element_type(), untyped_data() + linear, 1);
}

bool Literal::operator==(const Literal& o) const {
  if (!shape_.Compatible(o.shape_)) return false;
  if (shape_.IsTuple()) return elements_ == o.elements_;
  return bytes_ == o.bytes_;
}

absl::StatusOr<Literal> Literal::Reshape(std::vector<int64_t> dimensions) const {
  Shape shape = Shape::Array(element_type(), std::move(dimensions));
  if (!shape_.IsArray() || shape.ElementCount() != element_count()) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot reshape ", shape_.ToString(), " to ",
                     shape.ToString()));
  }
  Literal out = *this;
  out.shape_ = std::move(shape);
  return out;
}

std::string Literal::ValuesToString() const {
  if (shape_.IsTuple()) {
    std::string out = "(";
    for (size_t i = 0; i < elements_.size(); ++i) {
      if (i) absl::StrAppend(&out, ", ");
      absl::StrAppend(&out, elements_[i].ToString());
    }
    return out + ")";
  }
  if (!shape_.IsArray()) return "";
  std::vector<std::string> items;
  items.reserve(element_count());
  absl::Status status = TypeSwitch(element_type(), [&](auto t) {
    using T = NativeType<decltype(t)::value>;
    for (T v : data<T>()) items.push_back(ElementToString(v));
  });
  if (!status.ok()) return "<unsupported element type>";
  const int64_t rank = shape_.rank();
  if (rank == 0) return items.empty() ? "" : items[0];
  // Nested braces, one level per dimension; XLA pads inner levels with
  // spaces ("{ { 1, 2 }, { 3, 4 } }") and writes rank 1 tightly ("{1, 2}").
  std::string out;
  size_t next = 0;
  std::function<void(int64_t)> emit = [&](int64_t dim) {
    const bool tight = rank == 1;
    absl::StrAppend(&out, tight ? "{" : "{ ");
    for (int64_t i = 0; i < shape_.dimensions(dim); ++i) {
      if (i) absl::StrAppend(&out, ", ");
      if (dim + 1 == rank) {
        absl::StrAppend(&out, items[next++]);
      } else {
        emit(dim + 1);
      }
    }
    absl::StrAppend(&out, tight ? "}" : " }");
  };
  emit(0);
  return out;
}

std::string Literal::ToString() const {
  if (shape_.IsTuple()) return ValuesToString();
  return absl::StrCat(shape_.ToString(false), " ", ValuesToString());
}

}  // namespace hloc
