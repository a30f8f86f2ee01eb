// The shapes an HLO fft takes, checked once for every runtime that runs one
// (FFTW on the CPU, cuFFT on cuda): both link only this, not each other's
// library.
#ifndef RUNTIME_FFT_CHECK_H_
#define RUNTIME_FFT_CHECK_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "hlo/attributes.h"
#include "hlo/shape.h"

namespace hloc {

// Checks that `input` and `output` (array shapes, layouts ignored) fit an
// fft of `type` over the last fft_length.size() (1 to 3) dimensions, with
// sizes FFTW and cuFFT can index (int).
absl::Status CheckFft(FftType type, const std::vector<int64_t>& fft_length,
                      const Shape& input, const Shape& output);

}  // namespace hloc

#endif  // RUNTIME_FFT_CHECK_H_
