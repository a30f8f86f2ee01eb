// fft: the discrete Fourier transform over the last 1-3 dimensions, as XLA
// defines it (FFT forward; IFFT inverse scaled by 1/N; RFFT of a real
// array keeping the n/2+1 non-negative frequencies of the last dimension;
// IRFFT its inverse, reading only those). As the oracle it computes each
// transform directly from the definition, O(n^2) per line in complex128,
// with the twiddle factors exp(-+2 pi i m/n) taken from a table indexed by
// (j k) mod n, so no error accumulates from repeated rotations, and checks
// the FFT libraries the backends call rather than sharing their algorithm.
#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"
#include "hlo/evaluator/evaluator_internal.h"
#include "hlo/evaluator/linalg_kernels.h"

namespace hloc {
namespace eval {
namespace {

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
  std::vector<complex128> line(n);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      complex128* base = values->data() + o * n * inner + i;
      for (int64_t j = 0; j < n; ++j) line[j] = base[j * inner];
      for (int64_t k = 0; k < n; ++k) {
        complex128 sum = 0.0;
        for (int64_t j = 0; j < n; ++j) sum += line[j] * twiddle[(j * k) % n];
        base[k * inner] = sum * scale;
      }
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
