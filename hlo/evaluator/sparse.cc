// jaxlib's CPU sparse kernel, cpu_csr_sparse_dense_ffi
// (hlo/sparse_custom_call.h says what it computes): each result row summed over
// its stored elements in storage order, in the element type, as Eigen's product
// sums it.
#include <algorithm>
#include <type_traits>

#include "hlo/evaluator/evaluator_internal.h"
#include "hlo/sparse_custom_call.h"

namespace hloc {
namespace eval {
namespace {

// a * b + c in T: integers wrap (computed unsigned), complex products by
// the textbook formula, as Eigen's scalar product computes them (no NaN
// recovery of C's Annex G).
template <typename T>
T MultiplyAdd(T a, T b, T c) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(
        static_cast<U>(static_cast<U>(a) * static_cast<U>(b)) +
        static_cast<U>(c));
  } else if constexpr (std::is_floating_point_v<T>) {
    const T product = a * b;
    return c + product;
  } else {
    const T product(a.real() * b.real() - a.imag() * b.imag(),
                    a.real() * b.imag() + a.imag() * b.real());
    return c + product;
  }
}

}  // namespace

absl::StatusOr<Literal> EvaluateCsrSparseDense(const HloInstruction& instr,
                                               OperandValues& operands) {
  absl::StatusOr<CsrSparseDenseCall> call = ReadCsrSparseDenseCall(instr);
  if (!call.ok()) return call.status();
  const CsrSparseDenseCall& c = *call;
  const Literal& indptr = operands.Get(1);
  const Literal& indices = operands.Get(2);
  Literal out(instr.shape());
  absl::Status typed = TypeSwitch(c.type, [&](auto t) {
    using T = NativeType<decltype(t)::value>;
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> ||
                  std::is_same_v<T, complex64> ||
                  std::is_same_v<T, complex128> || std::is_same_v<T, int32_t> ||
                  std::is_same_v<T, int64_t>) {
      const auto data = operands.Get(0).data<T>();
      const auto rhs = operands.Get(3).data<T>();
      auto result = out.data<T>();
      std::fill(result.begin(), result.end(), T(0));
      for (int64_t i = 0; i < c.rows; ++i) {
        const int64_t begin = std::max<int64_t>(IndexValue(indptr, i), 0);
        const int64_t end = std::min<int64_t>(IndexValue(indptr, i + 1), c.nse);
        T* row = result.data() + i * c.rhs_cols;
        for (int64_t e = begin; e < end; ++e) {
          const int64_t col = IndexValue(indices, e);
          if (col < 0 || col >= c.cols) continue;
          const T* from = rhs.data() + col * c.rhs_cols;
          for (int64_t j = 0; j < c.rhs_cols; ++j) {
            row[j] = MultiplyAdd(data[e], from[j], row[j]);
          }
        }
      }
    }
  });
  if (!typed.ok()) return typed;
  return out;
}

}  // namespace eval
}  // namespace hloc
