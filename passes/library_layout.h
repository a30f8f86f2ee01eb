// The operands and results of ffts and triangular-solves in row-major
// layouts ("library-layout", the cuda pipeline).
//
// cuFFT reads and writes dense row-major arrays, and the cuda runtime's
// cuBLAS trsm takes an HLO triangular-solve's row-major bytes as the
// transposed column-major problem (runtime/cusolver_solver.cc), while an
// FFT over a leading axis (jnp.fft.fft(x, axis=0)) or a solve with a
// transposed operand reaches the backend with a transposed layout: the
// simplifier turns JAX's transposes around it into layout changes. XLA's
// layout assignment constrains both to row-major and copies; this pass
// does the same, so the library step reads and writes its buffers in
// place:
//
//   f = c64[4,4]{1,0} fft(p),  p: c64[4,4]{0,1}
// becomes
//   t = c64[4,4]{1,0} copy(p)
//   f = c64[4,4]{1,0} fft(t)
//
// and a result in another layout is computed row-major and copied into it.
// --stats counts the copies.
#ifndef PASSES_LIBRARY_LAYOUT_H_
#define PASSES_LIBRARY_LAYOUT_H_

#include "passes/pass.h"

namespace hloc {

class LibraryLayout : public HloPass {
 public:
  absl::string_view name() const override { return "library-layout"; }
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace hloc

#endif  // PASSES_LIBRARY_LAYOUT_H_
