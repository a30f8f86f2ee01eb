// The HLO fft on the host through FFTW (Debian's libfftw3: single precision
// for c64, double for c128). XLA:CPU uses DUCC's pocketfft, which Debian 12
// does not package; FFTW computes the same transforms with the same
// conventions (forward exp(-2 pi i jk/n), unnormalised; the inverse is
// scaled by 1/N here, as XLA's IFFT and IRFFT are).
#ifndef RUNTIME_FFT_LIBRARY_H_
#define RUNTIME_FFT_LIBRARY_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "hlo/attributes.h"
#include "hlo/literal.h"
#include "runtime/fft_check.h"

namespace hloc {

// Transforms the row-major array `input` into `output` (already of the
// result shape). `input` may be overwritten (an IRFFT's is).
absl::Status RunFft(FftType type, const std::vector<int64_t>& fft_length,
                    Literal* input, Literal* output);

}  // namespace hloc

#endif  // RUNTIME_FFT_LIBRARY_H_
