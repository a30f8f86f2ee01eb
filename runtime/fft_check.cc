#include "runtime/fft_check.h"

#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace hloc {

absl::Status CheckFft(FftType type, const std::vector<int64_t>& fft_length,
                      const Shape& input, const Shape& output) {
  const int64_t rank = static_cast<int64_t>(fft_length.size());
  auto fail = [&](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat(
        FftTypeString(type), " fft_length={", absl::StrJoin(fft_length, ","),
        "} of ", input.ToString(false), " to ", output.ToString(false), ": ",
        why));
  };
  if (!input.IsArray() || !output.IsArray()) return fail("not arrays");
  if (rank < 1 || rank > 3 || input.rank() < rank ||
      output.rank() != input.rank()) {
    return fail("fft_length needs 1 to 3 dimensions of equal-rank arrays");
  }
  const bool real_in = type == FftType::kRfft;
  const bool real_out = type == FftType::kIrfft;
  const PrimitiveType in_type = input.element_type();
  const PrimitiveType out_type = output.element_type();
  const bool single = real_in ? in_type == F32 : in_type == C64;
  const bool valid_in = single || (real_in ? in_type == F64 : in_type == C128);
  const PrimitiveType expect_out =
      real_out ? (single ? F32 : F64) : (single ? C64 : C128);
  if (!valid_in || out_type != expect_out) return fail("element types");
  const int64_t first = input.rank() - rank;
  for (int64_t d = 0; d < input.rank(); ++d) {
    const int64_t in_dim = input.dimensions(d);
    const int64_t out_dim = output.dimensions(d);
    if (d < first) {
      if (in_dim != out_dim) return fail("batch dimensions differ");
      continue;
    }
    const int64_t n = fft_length[d - first];
    const bool last = d == input.rank() - 1;
    const int64_t half = n / 2 + 1;
    const int64_t want_in = last && type == FftType::kIrfft ? half : n;
    const int64_t want_out = last && type == FftType::kRfft ? half : n;
    if (in_dim != want_in || out_dim != want_out) {
      return fail(absl::StrCat("dimension ", d, " does not fit length ", n));
    }
  }
  if (input.ElementCount() > std::numeric_limits<int>::max() ||
      output.ElementCount() > std::numeric_limits<int>::max()) {
    return fail("more elements than an int indexes (FFTW, cuFFT)");
  }
  return absl::OkStatus();
}

}  // namespace hloc
