#include "hlo/evaluator/linalg_kernels.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace hloc {
namespace eval {
namespace {

// LAPACK's izamax measure (cabs1): |re| + |im|.
double Abs1(complex128 z) { return std::abs(z.real()) + std::abs(z.imag()); }

}  // namespace

int64_t CholeskyInPlace(complex128* a, int64_t n, bool lower,
                        bool continue_on_failure) {
  // The upper case is the lower one of the conjugate transpose: element
  // (i, j), i >= j, of L is at (i, j) when lower and is the conjugate of
  // (j, i) when upper.
  auto at = [&](int64_t i, int64_t j) -> complex128& {
    return lower ? a[i * n + j] : a[j * n + i];
  };
  auto get = [&](int64_t i, int64_t j) {
    return lower ? at(i, j) : std::conj(at(i, j));
  };
  auto set = [&](int64_t i, int64_t j, complex128 v) {
    at(i, j) = lower ? v : std::conj(v);
  };
  for (int64_t j = 0; j < n; ++j) {
    double pivot = get(j, j).real();
    for (int64_t k = 0; k < j; ++k) pivot -= std::norm(get(j, k));
    if (!(pivot > 0) && !continue_on_failure) {
      set(j, j, pivot);
      return j + 1;
    }
    const double d = std::sqrt(pivot);
    set(j, j, d);
    for (int64_t i = j + 1; i < n; ++i) {
      complex128 s = get(i, j);
      for (int64_t k = 0; k < j; ++k) s -= get(i, k) * std::conj(get(j, k));
      set(i, j, s / d);
    }
  }
  return 0;
}

void TriangularSolveInPlace(const complex128* a, complex128* b, int64_t m,
                            int64_t n, bool left, bool lower, char trans,
                            bool unit_diagonal) {
  const int64_t k = left ? m : n;
  // op(A) made explicit, zero outside its triangle: T lower when A's
  // triangle is lower and not transposed, or upper and transposed.
  std::vector<complex128> t(k * k);
  for (int64_t i = 0; i < k; ++i) {
    for (int64_t j = 0; j < k; ++j) {
      const bool inside = lower ? i >= j : i <= j;
      complex128 v = !inside                     ? 0.0
                     : (i == j && unit_diagonal) ? 1.0
                                                 : a[i * k + j];
      if (trans == 'N') {
        t[i * k + j] = v;
      } else {
        t[j * k + i] = trans == 'C' ? std::conj(v) : v;
      }
    }
  }
  const bool t_lower = lower == (trans == 'N');
  if (left) {
    // Column c of X: T x = b, forward when T is lower.
    for (int64_t c = 0; c < n; ++c) {
      for (int64_t s = 0; s < k; ++s) {
        const int64_t i = t_lower ? s : k - 1 - s;
        complex128 v = b[i * n + c];
        for (int64_t s2 = 0; s2 < s; ++s2) {
          const int64_t j = t_lower ? s2 : k - 1 - s2;
          v -= t[i * k + j] * b[j * n + c];
        }
        b[i * n + c] = v / t[i * k + i];
      }
    }
  } else {
    // Row r of X: x T = b, i.e. T^T x^T = b^T, forward when T is upper.
    for (int64_t r = 0; r < m; ++r) {
      for (int64_t s = 0; s < k; ++s) {
        const int64_t j = t_lower ? k - 1 - s : s;
        complex128 v = b[r * n + j];
        for (int64_t s2 = 0; s2 < s; ++s2) {
          const int64_t i = t_lower ? k - 1 - s2 : s2;
          v -= b[r * n + i] * t[i * k + j];
        }
        b[r * n + j] = v / t[j * k + j];
      }
    }
  }
}

int64_t LuInPlace(complex128* a, int64_t m, int64_t n, int32_t* ipiv) {
  int64_t info = 0;
  const int64_t steps = std::min(m, n);
  for (int64_t j = 0; j < steps; ++j) {
    int64_t p = j;
    for (int64_t i = j + 1; i < m; ++i) {
      if (Abs1(a[i * n + j]) > Abs1(a[p * n + j])) p = i;
    }
    ipiv[j] = static_cast<int32_t>(p + 1);
    if (a[p * n + j] != 0.0) {
      if (p != j) {
        for (int64_t c = 0; c < n; ++c) std::swap(a[p * n + c], a[j * n + c]);
      }
      for (int64_t i = j + 1; i < m; ++i) a[i * n + j] /= a[j * n + j];
    } else if (info == 0) {
      info = j + 1;
    }
    for (int64_t i = j + 1; i < m; ++i) {
      for (int64_t c = j + 1; c < n; ++c) {
        a[i * n + c] -= a[i * n + j] * a[j * n + c];
      }
    }
  }
  return info;
}

namespace {

// Applies H = I - tau v v^H from the left to columns [c0, n) of rows
// [r0, m) of `a`, where v = (1, a[r0+1.., vc]) is stored in column vc.
void ApplyReflector(complex128* a, int64_t m, int64_t n, int64_t r0, int64_t vc,
                    int64_t c0, complex128 tau) {
  if (tau == 0.0) return;
  for (int64_t c = c0; c < n; ++c) {
    complex128 w = a[r0 * n + c];
    for (int64_t i = r0 + 1; i < m; ++i)
      w += std::conj(a[i * n + vc]) * a[i * n + c];
    a[r0 * n + c] -= tau * w;
    for (int64_t i = r0 + 1; i < m; ++i)
      a[i * n + c] -= tau * a[i * n + vc] * w;
  }
}

}  // namespace

void QrInPlace(complex128* a, int64_t m, int64_t n, complex128* tau) {
  const int64_t k = std::min(m, n);
  for (int64_t j = 0; j < k; ++j) {
    // larfg: alpha = a[j][j], x below it.
    const complex128 alpha = a[j * n + j];
    double xnorm2 = 0;
    for (int64_t i = j + 1; i < m; ++i) xnorm2 += std::norm(a[i * n + j]);
    if (xnorm2 == 0 && alpha.imag() == 0) {
      tau[j] = 0.0;
    } else {
      const double norm = std::sqrt(std::norm(alpha) + xnorm2);
      const double beta = alpha.real() >= 0 ? -norm : norm;
      tau[j] = complex128((beta - alpha.real()) / beta, -alpha.imag() / beta);
      const complex128 scale = 1.0 / (alpha - beta);
      for (int64_t i = j + 1; i < m; ++i) a[i * n + j] *= scale;
      a[j * n + j] = beta;
    }
    // geqr2 applies H(j)^H to the trailing columns; its v has a 1 where
    // beta now is.
    const complex128 saved = a[j * n + j];
    a[j * n + j] = 1.0;
    ApplyReflector(a, m, n, j, j, j + 1, std::conj(tau[j]));
    a[j * n + j] = saved;
  }
}

void HouseholderProductInPlace(complex128* a, int64_t m, int64_t n,
                               const complex128* tau, int64_t k) {
  // org2r: columns k.. start as those of the identity; then the reflectors
  // from the last to the first, each building its column.
  for (int64_t j = k; j < n; ++j) {
    for (int64_t i = 0; i < m; ++i) a[i * n + j] = i == j ? 1.0 : 0.0;
  }
  for (int64_t j = k - 1; j >= 0; --j) {
    if (j < n - 1) {
      a[j * n + j] = 1.0;
      ApplyReflector(a, m, n, j, j, j + 1, tau[j]);
    }
    for (int64_t i = j + 1; i < m; ++i) a[i * n + j] *= -tau[j];
    a[j * n + j] = 1.0 - tau[j];
    for (int64_t i = 0; i < j; ++i) a[i * n + j] = 0.0;
  }
}

std::vector<complex128> ToComplexValues(const Literal& literal) {
  std::vector<complex128> values(literal.element_count());
  for (int64_t i = 0; i < literal.element_count(); ++i) {
    values[i] = literal.GetAsComplex(i);
  }
  return values;
}

void StoreComplexValues(const std::vector<complex128>& values,
                        Literal* literal) {
  const int64_t count = literal->element_count();
  switch (literal->element_type()) {
    case C64:
      for (int64_t i = 0; i < count; ++i) {
        literal->data<complex64>()[i] = complex64(values[i]);
      }
      break;
    case C128:
      for (int64_t i = 0; i < count; ++i)
        literal->data<complex128>()[i] = values[i];
      break;
    default:
      for (int64_t i = 0; i < count; ++i) {
        literal->SetFromDouble(i, values[i].real());
      }
  }
}

}  // namespace eval
}  // namespace hloc
