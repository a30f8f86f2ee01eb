// convert and compare kernels: one typed loop per (source, destination)
// type pair and per (type, direction, order).
#include "hlo/evaluator/kernel_util.h"

namespace hloc {
namespace eval {
namespace {

template <typename From, typename To>
void ConvertLoop(const void* const* in, void* out, int64_t n,
                 const KernelAttrs&) {
  const From* a = static_cast<const From*>(in[0]);
  To* o = static_cast<To*>(out);
  for (int64_t i = 0; i < n; ++i) o[i] = ConvertValue<From, To>(a[i]);
}

template <int kDirection, typename K>
inline bool Compare(K a, K b) {
  constexpr auto d = static_cast<ComparisonDirection>(kDirection);
  if constexpr (d == ComparisonDirection::kEq) {
    return a == b;
  } else if constexpr (d == ComparisonDirection::kNe) {
    return a != b;
  } else if constexpr (d == ComparisonDirection::kGe) {
    return a >= b;
  } else if constexpr (d == ComparisonDirection::kGt) {
    return a > b;
  } else if constexpr (d == ComparisonDirection::kLe) {
    return a <= b;
  } else {
    return a < b;
  }
}

template <typename T, int kDirection, bool kTotal>
void CompareLoop(const void* const* in, void* out, int64_t n,
                 const KernelAttrs&) {
  const T* a = static_cast<const T*>(in[0]);
  const T* b = static_cast<const T*>(in[1]);
  bool* o = static_cast<bool*>(out);
  for (int64_t i = 0; i < n; ++i) {
    if constexpr (kTotal) {
      o[i] = Compare<kDirection>(TotalOrderKey(a[i]), TotalOrderKey(b[i]));
    } else {
      o[i] = Compare<kDirection>(Load(a[i]), Load(b[i]));
    }
  }
}

template <typename T, bool kTotal>
ElementwiseFn PickDirection(ComparisonDirection direction) {
  switch (direction) {
    case ComparisonDirection::kEq:
      return &CompareLoop<T, static_cast<int>(ComparisonDirection::kEq),
                          kTotal>;
    case ComparisonDirection::kNe:
      return &CompareLoop<T, static_cast<int>(ComparisonDirection::kNe),
                          kTotal>;
    case ComparisonDirection::kGe:
      return &CompareLoop<T, static_cast<int>(ComparisonDirection::kGe),
                          kTotal>;
    case ComparisonDirection::kGt:
      return &CompareLoop<T, static_cast<int>(ComparisonDirection::kGt),
                          kTotal>;
    case ComparisonDirection::kLe:
      return &CompareLoop<T, static_cast<int>(ComparisonDirection::kLe),
                          kTotal>;
    case ComparisonDirection::kLt:
      return &CompareLoop<T, static_cast<int>(ComparisonDirection::kLt),
                          kTotal>;
  }
  return nullptr;
}

}  // namespace

ElementwiseFn SelectConvertKernel(PrimitiveType from, PrimitiveType to) {
  return DispatchType<ElementwiseFn>(
      from, nullptr, [&](auto f) -> ElementwiseFn {
        using From = decltype(f);
        return DispatchType<ElementwiseFn>(to, nullptr,
                                           [&](auto t) -> ElementwiseFn {
                                             using To = decltype(t);
                                             return &ConvertLoop<From, To>;
                                           });
      });
}

ElementwiseFn SelectCompareKernel(PrimitiveType operand,
                                  ComparisonDirection direction,
                                  bool total_order) {
  return DispatchType<ElementwiseFn>(
      operand, nullptr, [&](auto t) -> ElementwiseFn {
        using T = decltype(t);
        if constexpr (kIsComplex<T>) {
          constexpr int kEq = static_cast<int>(ComparisonDirection::kEq);
          constexpr int kNe = static_cast<int>(ComparisonDirection::kNe);
          if (direction == ComparisonDirection::kEq) {
            return &CompareLoop<T, kEq, false>;
          }
          if (direction == ComparisonDirection::kNe) {
            return &CompareLoop<T, kNe, false>;
          }
          return nullptr;
        } else if constexpr (kIsFloat<T>) {
          return total_order ? PickDirection<T, true>(direction)
                             : PickDirection<T, false>(direction);
        } else {
          return PickDirection<T, false>(direction);
        }
      });
}

}  // namespace eval
}  // namespace hloc
