// fft: the discrete Fourier transform over the last 1-3 dimensions, as XLA
// defines it (FFT forward; IFFT inverse scaled by 1/N; RFFT of a real
// array keeping the n/2+1 non-negative frequencies of the last dimension;
// IRFFT its inverse, reading only those). As the oracle it computes in
// complex128 with the twiddle factors exp(-+2 pi i m/n) taken from a table
// indexed by (j k) mod n, so no error accumulates from repeated rotations,
// and checks the FFT libraries the backends call rather than sharing their
// algorithm: a line of prime length straight from the definition, O(n^2);
// a composite one, n = p m with p its smallest prime factor, as p
// transforms of length m of the elements j = r (mod p), each term of the
// definition regrouped by r (mixed-radix decimation in time, the same sums
// in another order), O(n (p1 + p2 + ...)) over n's prime factors. A
// transform of 65536 points, 4.3e9 products from the definition, is then
// 2 million.
#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"
#include "hlo/evaluator/evaluator_internal.h"
#include "hlo/evaluator/linalg_kernels.h"

namespace hloc {
namespace eval {
namespace {

int64_t SmallestPrimeFactor(int64_t n) {
  for (int64_t p = 2; p * p <= n; ++p) {
    if (n % p == 0) return p;
  }
  return n;
}

// out[k] = sum_j in[j stride] w^(j k), k < n, for w = table[step], the
// table holding the powers of the full length's root (table.size() = n
// step).
void Transform(const complex128* in, int64_t stride, int64_t n, int64_t step,
               const std::vector<complex128>& table, complex128* out) {
  if (n == 1) {
    out[0] = in[0];
    return;
  }
  const int64_t p = SmallestPrimeFactor(n);
  if (p == n) {
    for (int64_t k = 0; k < n; ++k) {
      complex128 sum = 0.0;
      for (int64_t j = 0; j < n; ++j) {
        sum += in[j * stride] * table[(j * k) % n * step];
      }
      out[k] = sum;
    }
    return;
  }
  // sub[r m + k'] = sum_i in[(i p + r) stride] w^(p i k'), so that
  // out[k] = sum_r w^(r k) sub[r m + k mod m].
  const int64_t m = n / p;
  std::vector<complex128> sub(n);
  for (int64_t r = 0; r < p; ++r) {
    Transform(in + r * stride, stride * p, m, step * p, table,
              sub.data() + r * m);
  }
  for (int64_t k = 0; k < n; ++k) {
    complex128 sum = 0.0;
    for (int64_t r = 0; r < p; ++r) {
      sum += sub[r * m + k % m] * table[(r * k) % n * step];
    }
    out[k] = sum;
  }
}

// Transforms every line of `values` (dimensions `dims`, row-major) along
// `axis`: forward (exp(-2 pi i jk/n)) or inverse (exp(+...) / n).
void DftAlongAxis(const std::vector<int64_t>& dims, int64_t axis, bool inverse,
                  std::vector<complex128>* values) {
  const int64_t n = dims[axis];
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= dims[d];
  for (size_t d = axis + 1; d < dims.size(); ++d) inner *= dims[d];
  if (n == 0 || outer == 0 || inner == 0) return;
  std::vector<complex128> twiddle(n);
  const double sign = inverse ? 2.0 : -2.0;
  for (int64_t m = 0; m < n; ++m) {
    const double angle = sign * M_PI * static_cast<double>(m) / n;
    twiddle[m] = complex128(std::cos(angle), std::sin(angle));
  }
  const double scale = inverse ? 1.0 / n : 1.0;
  std::vector<complex128> line(n), transformed(n);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      complex128* base = values->data() + o * n * inner + i;
      for (int64_t j = 0; j < n; ++j) line[j] = base[j * inner];
      Transform(line.data(), 1, n, 1, twiddle, transformed.data());
      for (int64_t k = 0; k < n; ++k) base[k * inner] = transformed[k] * scale;
    }
  }
}

// The array with its last dimension `from` resized to `to`: truncated, or
// (IRFFT) extended by Hermitian symmetry from the n/2+1 stored frequencies,
// whose imaginary parts at frequency 0 and n/2 are not read, as a real
// inverse transform does.
std::vector<complex128> ResizeLastDimension(const std::vector<complex128>& in,
                                            int64_t from, int64_t to,
                                            bool hermitian) {
  const int64_t rows = from == 0 ? 0 : in.size() / from;
  std::vector<complex128> out(rows * to);
  for (int64_t r = 0; r < rows; ++r) {
    const complex128* src = in.data() + r * from;
    complex128* dst = out.data() + r * to;
    for (int64_t k = 0; k < to; ++k) {
      if (!hermitian) {
        dst[k] = src[k];
      } else if (k == 0 || 2 * k == to) {
        dst[k] = src[k].real();
      } else if (k < from) {
        dst[k] = src[k];
      } else {
        dst[k] = std::conj(src[to - k]);
      }
    }
  }
  return out;
}

}  // namespace

absl::StatusOr<Literal> EvaluateFft(const HloInstruction& instr,
                                    OperandValues& operands) {
  const Shape& in_shape = instr.operand(0)->shape();
  const std::vector<int64_t>& lengths = instr.attrs().fft_length;
  const int64_t rank = static_cast<int64_t>(lengths.size());
  if (!in_shape.IsArray() || rank < 1 || rank > 3 || in_shape.rank() < rank) {
    return InstructionError(
        instr, absl::StrCat("fft_length of ", rank,
                            " dimensions does not fit the operand ",
                            in_shape.ToString(false)));
  }
  Literal result(instr.shape());
  if (result.element_count() == 0) return result;
  const int64_t first = in_shape.rank() - rank;
  std::vector<int64_t> dims = in_shape.dimensions();
  std::vector<complex128> values = ToComplexValues(operands.Get(0));
  switch (instr.attrs().fft_type) {
    case FftType::kFft:
    case FftType::kIfft:
      for (int64_t a = first; a < in_shape.rank(); ++a) {
        DftAlongAxis(dims, a, instr.attrs().fft_type == FftType::kIfft,
                     &values);
      }
      break;
    case FftType::kRfft:
      for (int64_t a = first; a < in_shape.rank(); ++a) {
        DftAlongAxis(dims, a, false, &values);
      }
      values = ResizeLastDimension(values, dims.back(),
                                   instr.shape().dimensions().back(), false);
      break;
    case FftType::kIrfft:
      for (int64_t a = first; a + 1 < in_shape.rank(); ++a) {
        DftAlongAxis(dims, a, true, &values);
      }
      values = ResizeLastDimension(values, dims.back(), lengths.back(), true);
      dims.back() = lengths.back();
      DftAlongAxis(dims, in_shape.rank() - 1, true, &values);
      break;
  }
  if (static_cast<int64_t>(values.size()) != result.element_count()) {
    return InstructionError(
        instr, absl::StrCat("the result ", instr.shape().ToString(false),
                            " does not fit fft_length"));
  }
  StoreComplexValues(values, &result);
  return result;
}

}  // namespace eval
}  // namespace hloc
