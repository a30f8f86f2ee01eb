// The triangular-solve op as HLO ("triangular-solve-expander"; the GPU
// pipelines and the AArch64 compiler, which have no BLAS trsm to call), as
// XLA's TriangularSolveExpander does for backends without one.
//
// Every form is brought to M X = B with M triangular, batches at once:
// op(A) is A, its transpose or its conjugate transpose (transpose_a;
// ADJOINT is TRANSPOSE for real types), and a right-side solve
// X op(A) = B is op(A)^T X^T = B^T. Then one of two methods:
//
// Substitution, one row of X per while-loop iteration, from the top for a
// lower M and from the bottom for an upper one:
//   X[i, :] = (B[i, :] - M[i, k<i or k>i] @ X) / M[i, i]   (no division
//   with unit_diagonal)
// m iterations, each O(m k) per batch: the least arithmetic, for a CPU.
//
// Inverse (where m <= max_inverse_size, and the batch's padded squares
// hold at most 64 Mi elements): M^-1 by recursive doubling over
// its diagonal blocks, [A 0; C D]^-1 = [A^-1 0; -D^-1 C A^-1  D^-1], all
// blocks of one size at once, log2(m) levels of batched dots with no loop;
// then X = M^-1 B as one dot. O(m^3) arithmetic but no iteration a host
// must drive: on a GPU a loop iteration costs microseconds whatever its
// size (192 of them per 192 x 192 solve). XLA computes its solves from
// inverted 128 x 128 diagonal blocks the same way where it has no trsm;
// bf16 and f16 compute in f32.
//
// Either way only M's own triangle (and its diagonal unless
// unit_diagonal) is read, as XLA's semantics require, and the products run
// at the highest precision (no TF32). Real floating-point and complex
// types (XLA:GPU calls cuBLAS's trsm for both; JAX's complex solve, inv
// and det lower to this op on the GPU).
#ifndef PASSES_TRIANGULAR_SOLVE_EXPANDER_H_
#define PASSES_TRIANGULAR_SOLVE_EXPANDER_H_

#include <cstdint>
#include <functional>
#include <utility>

#include "passes/pass.h"

namespace hloc {

class TriangularSolveExpander : public HloPass {
 public:
  // Solves of m <= max_inverse_size use the inverse method, the others
  // substitution (0, the default: substitution always). Solves for which
  // `keep` says true stay as they are (a library's trsm takes them).
  explicit TriangularSolveExpander(
      int64_t max_inverse_size = 0,
      std::function<bool(const HloInstruction&)> keep = nullptr)
      : max_inverse_size_(max_inverse_size), keep_(std::move(keep)) {}
  absl::string_view name() const override {
    return "triangular-solve-expander";
  }
  absl::StatusOr<bool> Run(HloModule* module) override;

 private:
  int64_t max_inverse_size_;
  std::function<bool(const HloInstruction&)> keep_;
};

}  // namespace hloc

#endif  // PASSES_TRIANGULAR_SOLVE_EXPANDER_H_
