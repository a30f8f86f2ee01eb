// The operands and results of ffts and triangular-solves in the layouts
// the cuda runtime's libraries read and write ("library-layout", the cuda
// pipeline): row-major for cuFFT, and for cuBLAS's trsm each matrix
// column-major (minor_to_major {r-2, r-1, r-3, ..., 0}), as XLA:GPU's
// layout assignment gives its triangular solves. (Solving the row-major
// bytes as the transposed problem instead turns a solve against a few
// right-hand sides into a right-side trsm of a few rows, which cuBLAS runs
// several times slower: session 37, tools/gpu_bench/RESULTS.md.)
//
// An FFT over a leading axis (jnp.fft.fft(x, axis=0)) reaches the backend
// with a transposed layout: the simplifier turns JAX's transposes around
// it into layout changes. XLA's layout assignment constrains such
// instructions and copies; this pass does the same, so the library step
// reads and writes its buffers in place:
//
//   f = c64[4,4]{1,0} fft(p),  p: c64[4,4]{0,1}
// becomes
//   t = c64[4,4]{1,0} copy(p)
//   f = c64[4,4]{1,0} fft(t)
//
// and a result in another layout is computed in the wanted one and copied
// into it. A solve's array whose bytes are already in the wanted order (a
// single right-hand side is row- and column-major at once) is left alone;
// the cuFFT step takes only the row-major layout itself.
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
