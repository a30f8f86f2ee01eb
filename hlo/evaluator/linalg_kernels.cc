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

// Step j of geqr2: the reflector that zeroes column j below the diagonal
// (larfg; its scalar into tau[j]), applied to the columns after j.
void QrColumnStep(complex128* a, int64_t m, int64_t n, int64_t j,
                  complex128* tau) {
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

void SwapColumns(complex128* a, int64_t m, int64_t n, int64_t p, int64_t q) {
  for (int64_t i = 0; i < m; ++i) std::swap(a[i * n + p], a[i * n + q]);
}

}  // namespace

void QrInPlace(complex128* a, int64_t m, int64_t n, complex128* tau) {
  const int64_t k = std::min(m, n);
  for (int64_t j = 0; j < k; ++j) QrColumnStep(a, m, n, j, tau);
}

void PivotedQrInPlace(complex128* a, int64_t m, int64_t n, int32_t* jpvt,
                      complex128* tau) {
  // geqp3: the columns jpvt pins move to the front, in their order...
  int64_t fixed = 0;
  for (int64_t j = 0; j < n; ++j) {
    if (jpvt[j] != 0) {
      if (j != fixed) {
        SwapColumns(a, m, n, j, fixed);
        jpvt[j] = jpvt[fixed];
        jpvt[fixed] = static_cast<int32_t>(j + 1);
      } else {
        jpvt[j] = static_cast<int32_t>(j + 1);
      }
      ++fixed;
    } else {
      jpvt[j] = static_cast<int32_t>(j + 1);
    }
  }
  // ... and are factored as they stand; after them each step takes the
  // free column of the largest norm below the rows done (the first of
  // equals, as LAPACK's idamax). LAPACK downdates its norms where this
  // recomputes them: the same choice but for near-ties.
  const int64_t k = std::min(m, n);
  for (int64_t j = 0; j < k; ++j) {
    if (j >= fixed) {
      int64_t best = j;
      double best_norm = -1;
      for (int64_t c = j; c < n; ++c) {
        double norm2 = 0;
        for (int64_t i = j; i < m; ++i) norm2 += std::norm(a[i * n + c]);
        if (norm2 > best_norm) {
          best_norm = norm2;
          best = c;
        }
      }
      if (best != j) {
        SwapColumns(a, m, n, j, best);
        std::swap(jpvt[j], jpvt[best]);
      }
    }
    QrColumnStep(a, m, n, j, tau);
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

void ApplyHouseholderInPlace(const complex128* a, int64_t r, int64_t ka,
                             const complex128* tau, int64_t k, complex128* c,
                             int64_t p, int64_t q, bool left, bool conjugate) {
  // Q C and C Q^H take the reflectors from the last; Q^H C and C Q from
  // the first. Q^H's reflectors are H(i)^H: conj(tau).
  const bool from_last = left != conjugate;
  for (int64_t step = 0; step < k; ++step) {
    const int64_t i = from_last ? k - 1 - step : step;
    const complex128 t = conjugate ? std::conj(tau[i]) : tau[i];
    if (t == 0.0) continue;
    auto v = [&](int64_t l) {
      return l == i ? complex128(1.0) : a[l * ka + i];
    };
    if (left) {
      for (int64_t col = 0; col < q; ++col) {
        complex128 w = 0;
        for (int64_t l = i; l < r; ++l) w += std::conj(v(l)) * c[l * q + col];
        for (int64_t l = i; l < r; ++l) c[l * q + col] -= t * v(l) * w;
      }
    } else {
      for (int64_t row = 0; row < p; ++row) {
        complex128 w = 0;
        for (int64_t l = i; l < r; ++l) w += c[row * q + l] * v(l);
        for (int64_t l = i; l < r; ++l) {
          c[row * q + l] -= t * w * std::conj(v(l));
        }
      }
    }
  }
}

int64_t TridiagonalSolveInPlace(complex128* dl, complex128* d, complex128* du,
                                complex128* b, int64_t n, int64_t nrhs) {
  // LAPACK's DL(i) is dl[i + 1]: row i + 1's entry left of the diagonal.
  complex128* sub = dl + 1;
  for (int64_t i = 0; i + 1 < n; ++i) {
    if (Abs1(d[i]) >= Abs1(sub[i])) {
      if (d[i] == 0.0) return i + 1;
      const complex128 fact = sub[i] / d[i];
      d[i + 1] -= fact * du[i];
      for (int64_t j = 0; j < nrhs; ++j) {
        b[(i + 1) * nrhs + j] -= fact * b[i * nrhs + j];
      }
      if (i + 2 < n) sub[i] = 0.0;
    } else {
      // Rows i and i + 1 change places; row i gains a second
      // super-diagonal entry, kept in sub[i].
      const complex128 fact = d[i] / sub[i];
      d[i] = sub[i];
      const complex128 temp = d[i + 1];
      d[i + 1] = du[i] - fact * temp;
      if (i + 2 < n) {
        sub[i] = du[i + 1];
        du[i + 1] = -fact * sub[i];
      }
      du[i] = temp;
      for (int64_t j = 0; j < nrhs; ++j) {
        const complex128 upper = b[i * nrhs + j];
        b[i * nrhs + j] = b[(i + 1) * nrhs + j];
        b[(i + 1) * nrhs + j] = upper - fact * b[(i + 1) * nrhs + j];
      }
    }
  }
  if (n > 0 && d[n - 1] == 0.0) return n;
  for (int64_t j = 0; j < nrhs; ++j) {
    for (int64_t i = n - 1; i >= 0; --i) {
      complex128 x = b[i * nrhs + j];
      if (i + 1 < n) x -= du[i] * b[(i + 1) * nrhs + j];
      if (i + 2 < n) x -= sub[i] * b[(i + 2) * nrhs + j];
      b[i * nrhs + j] = x / d[i];
    }
  }
  return 0;
}

namespace {

// larfg on alpha and the `count` elements x[0], x[stride], ...: returns
// tau and leaves beta in alpha and v's tail (v = (1, x)) in x, so that
// H^H (alpha, x) = (beta, 0) with H = I - tau v v^H.
complex128 Larfg(complex128* alpha, complex128* x, int64_t count,
                 int64_t stride) {
  double xnorm2 = 0;
  for (int64_t i = 0; i < count; ++i) xnorm2 += std::norm(x[i * stride]);
  if (xnorm2 == 0 && alpha->imag() == 0) return 0.0;
  const double norm = std::sqrt(std::norm(*alpha) + xnorm2);
  const double beta = alpha->real() >= 0 ? -norm : norm;
  const complex128 tau((beta - alpha->real()) / beta, -alpha->imag() / beta);
  const complex128 scale = 1.0 / (*alpha - beta);
  for (int64_t i = 0; i < count; ++i) x[i * stride] *= scale;
  *alpha = beta;
  return tau;
}

}  // namespace

void HessenbergInPlace(complex128* a, int64_t n, int64_t ilo, int64_t ihi,
                       complex128* tau) {
  for (int64_t i = 0; i + 1 < n; ++i) tau[i] = 0.0;
  // 0-based: columns ilo - 1 .. ihi - 2, each reflector acting on rows and
  // columns i + 1 .. ihi - 1.
  const int64_t hi = ihi - 1;
  for (int64_t i = ilo - 1; i < hi; ++i) {
    complex128* alpha = &a[(i + 1) * n + i];
    const int64_t below = hi - i - 1;
    const complex128 t =
        Larfg(alpha, &a[std::min(i + 2, n - 1) * n + i], below, n);
    tau[i] = t;
    const complex128 beta = *alpha;
    *alpha = 1.0;
    auto v = [&](int64_t l) { return a[l * n + i]; };
    // A := A H on rows 0 .. hi, columns i + 1 .. hi.
    for (int64_t r = 0; r <= hi; ++r) {
      complex128 w = 0;
      for (int64_t l = i + 1; l <= hi; ++l) w += a[r * n + l] * v(l);
      for (int64_t l = i + 1; l <= hi; ++l) {
        a[r * n + l] -= t * w * std::conj(v(l));
      }
    }
    // A := H^H A on rows i + 1 .. hi, columns i + 1 .. n - 1.
    for (int64_t c = i + 1; c < n; ++c) {
      complex128 w = 0;
      for (int64_t l = i + 1; l <= hi; ++l) w += std::conj(v(l)) * a[l * n + c];
      for (int64_t l = i + 1; l <= hi; ++l) {
        a[l * n + c] -= std::conj(t) * v(l) * w;
      }
    }
    *alpha = beta;
  }
}

void TridiagonalizeInPlace(complex128* a, int64_t n, bool lower, double* d,
                           double* e, complex128* tau) {
  if (n == 0) return;
  // The stored triangle's (r, c) of the Hermitian matrix, its diagonal
  // taken as real (hemv/her2 never read the imaginary parts there).
  auto at = [&](int64_t r, int64_t c) -> complex128 {
    if (r == c) return a[r * n + r].real();
    const bool stored = lower ? r > c : r < c;
    return stored ? a[r * n + c] : std::conj(a[c * n + r]);
  };
  // One step on the block [lo, hi] with v (its 1 included) in `v`:
  // w = tau A v, w -= tau/2 (w^H v) v, A -= v w^H + w v^H on the stored
  // triangle.
  std::vector<complex128> w(n);
  auto update = [&](int64_t lo, int64_t hi, const std::vector<complex128>& v,
                    complex128 t) {
    for (int64_t r = lo; r <= hi; ++r) {
      complex128 sum = 0;
      for (int64_t c = lo; c <= hi; ++c) sum += at(r, c) * v[c];
      w[r] = t * sum;
    }
    complex128 dot = 0;
    for (int64_t l = lo; l <= hi; ++l) dot += std::conj(w[l]) * v[l];
    const complex128 scale = -0.5 * t * dot;
    for (int64_t l = lo; l <= hi; ++l) w[l] += scale * v[l];
    for (int64_t r = lo; r <= hi; ++r) {
      for (int64_t c = lo; c <= hi; ++c) {
        if (lower ? r < c : r > c) continue;
        complex128& x = a[r * n + c];
        x -= v[r] * std::conj(w[c]) + w[r] * std::conj(v[c]);
        if (r == c) x = x.real();
      }
    }
  };
  std::vector<complex128> v(n);
  if (lower) {
    a[0] = a[0].real();
    for (int64_t i = 0; i + 1 < n; ++i) {
      complex128* alpha = &a[(i + 1) * n + i];
      const complex128 t =
          Larfg(alpha, &a[std::min(i + 2, n - 1) * n + i], n - i - 2, n);
      e[i] = alpha->real();
      if (t != 0.0) {
        *alpha = 1.0;
        for (int64_t l = i + 1; l < n; ++l) v[l] = a[l * n + i];
        update(i + 1, n - 1, v, t);
      } else {
        a[(i + 1) * n + i + 1] = a[(i + 1) * n + i + 1].real();
      }
      *alpha = e[i];
      d[i] = a[i * n + i].real();
      tau[i] = t;
    }
    d[n - 1] = a[(n - 1) * n + n - 1].real();
    return;
  }
  a[(n - 1) * n + n - 1] = a[(n - 1) * n + n - 1].real();
  for (int64_t i = n - 2; i >= 0; --i) {
    // alpha is (i, i + 1); x the column above it, v = (x, 1).
    complex128* alpha = &a[i * n + i + 1];
    const complex128 t = Larfg(alpha, &a[i + 1], i, n);
    e[i] = alpha->real();
    if (t != 0.0) {
      *alpha = 1.0;
      for (int64_t l = 0; l <= i; ++l) v[l] = a[l * n + i + 1];
      update(0, i, v, t);
    } else {
      a[i * n + i] = a[i * n + i].real();
    }
    *alpha = e[i];
    d[i + 1] = a[(i + 1) * n + i + 1].real();
    tau[i] = t;
  }
  d[0] = a[0].real();
}

void SingularValues(const complex128* a, int64_t m, int64_t n, double* s) {
  // Columns of A, or of A^H when it is wide: k columns of length r, k the
  // number of singular values (A and A^H have the same ones).
  const bool wide = m < n;
  const int64_t k = wide ? m : n;
  const int64_t r = wide ? n : m;
  std::vector<std::vector<complex128>> col(k, std::vector<complex128>(r));
  for (int64_t j = 0; j < k; ++j) {
    for (int64_t i = 0; i < r; ++i) {
      col[j][i] = wide ? std::conj(a[j * n + i]) : a[i * n + j];
    }
  }
  auto dot = [&](int64_t p, int64_t q) {
    complex128 sum = 0.0;
    for (int64_t i = 0; i < r; ++i) sum += std::conj(col[p][i]) * col[q][i];
    return sum;
  };
  constexpr double kEpsilon = 1e-15;
  constexpr int kMaxSweeps = 100;
  bool rotated = true;
  for (int sweep = 0; rotated && sweep < kMaxSweeps; ++sweep) {
    rotated = false;
    for (int64_t p = 0; p + 1 < k; ++p) {
      for (int64_t q = p + 1; q < k; ++q) {
        const double alpha = dot(p, p).real();
        const double beta = dot(q, q).real();
        const complex128 gamma = dot(p, q);
        const double g = std::abs(gamma);
        if (!(g > kEpsilon * std::sqrt(alpha * beta))) continue;
        rotated = true;
        // Turn column q by gamma's phase so that the pair's inner product
        // is real, then zero it with a real rotation; a column's phase
        // leaves the singular values alone.
        const complex128 phase = std::conj(gamma) / g;
        const double zeta = (beta - alpha) / (2 * g);
        const double t = (zeta < 0 ? -1.0 : 1.0) /
                         (std::abs(zeta) + std::sqrt(1 + zeta * zeta));
        const double c = 1 / std::sqrt(1 + t * t);
        const double sn = c * t;
        for (int64_t i = 0; i < r; ++i) {
          const complex128 x = col[p][i];
          const complex128 y = col[q][i] * phase;
          col[p][i] = c * x - sn * y;
          col[q][i] = sn * x + c * y;
        }
      }
    }
  }
  for (int64_t j = 0; j < k; ++j) s[j] = std::sqrt(dot(j, j).real());
  std::sort(s, s + k, [](double x, double y) { return x > y; });
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
