// Dots too small for a library call, as multiplies and a reduce
// ("dot-strength-reduction", XLA:GPU's DotStrengthReduction), for the GPU
// pipelines.
//
// A GPU dot is a cuBLASLt call (cuda) or a tiled matrix kernel (rocm): a
// few microseconds of fixed cost however small the dot, a kernel of its
// own, and on cuda a break in the CUDA graph its neighbours run in. The
// recurrent cells of a scan (a GRU of hidden size 4: six 2x3x4 products an
// iteration, each a cuBLAS call) spend their time in those calls, not in
// arithmetic. As a multiply of broadcasts summed by a reduce, such a dot
// is a reduction fusion like any other: its operands' producers and its
// consumers fuse with it, and the whole body stays one graph.
//
// Which dots (B batch elements, M and N free sizes, K contracted):
//   - a vector on either side (M or N is 1), as XLA does for vector x
//     vector always and for matrix x vector under 10 million elements of
//     the operands: a matrix-vector product reads its matrix once either
//     way, and a reduction kernel reads it at the bandwidth limit;
//   - other products of at most kMaxReducedProducts terms B M N K, where
//     the reduction's arithmetic costs less than the call would.
// Dots with an explicit algorithm (which fixes operand roundings), pred,
// 8-bit float and sub-byte dots stay.
//
// The product's dimensions are the dot's output dimensions in its order,
// so the reduce's result is the dot's without a transpose, with the larger
// operand's contracted dimensions each placed after the dimension before
// it in that operand's physical order: the reduction reads the larger
// operand in its own order (a matrix times a vector sums along its rows,
// a vector times a row-major matrix down its columns, both coalesced).
// bf16 and f16 dots multiply and sum in f32 and round once, as a gemm's
// f32 accumulator does; other types in the dot's own type. Products and
// sums are full f32 arithmetic, never TF32: at least as precise as the
// library call.
#ifndef PASSES_DOT_STRENGTH_REDUCTION_H_
#define PASSES_DOT_STRENGTH_REDUCTION_H_

#include <cstdint>

#include "hlo/instruction.h"
#include "passes/pass.h"

namespace hloc {

class DotStrengthReduction : public HloPass {
 public:
  // Matrix x matrix products up to this many terms (B M N K).
  static constexpr int64_t kMaxReducedProducts = int64_t{1} << 16;
  // Matrix x vector products up to this many operand elements.
  static constexpr int64_t kMaxVectorOperandElements = 10'000'000;

  absl::string_view name() const override { return "dot-strength-reduction"; }
  absl::StatusOr<bool> Run(HloModule* module) override;
};

// Whether the pass rewrites `dot` (a kDot).
bool ShouldStrengthReduceDot(const HloInstruction& dot);

}  // namespace hloc

#endif  // PASSES_DOT_STRENGTH_REDUCTION_H_
