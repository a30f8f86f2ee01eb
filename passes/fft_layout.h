// FFT operands and results in row-major layouts ("fft-layout", the cuda
// pipeline).
//
// cuFFT reads and writes dense row-major arrays, while an FFT over a
// leading axis (jnp.fft.fft(x, axis=0)) reaches the backend with a
// transposed layout: the simplifier turns JAX's transposes around it into
// layout changes. XLA's layout assignment constrains the FFT to row-major
// and copies; this pass does the same, so the cuFFT step reads and writes
// its buffers in place:
//
//   f = c64[4,4]{1,0} fft(p),  p: c64[4,4]{0,1}
// becomes
//   t = c64[4,4]{1,0} copy(p)
//   f = c64[4,4]{1,0} fft(t)
//
// and a result in another layout is computed row-major and copied into it.
// --stats counts the copies.
#ifndef PASSES_FFT_LAYOUT_H_
#define PASSES_FFT_LAYOUT_H_

#include "passes/pass.h"

namespace hloc {

class FftLayout : public HloPass {
 public:
  absl::string_view name() const override { return "fft-layout"; }
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace hloc

#endif  // PASSES_FFT_LAYOUT_H_
