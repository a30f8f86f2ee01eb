// Excess precision ("simplify-fp-conversions"): what XLA does when
// xla_allow_excess_precision is true (its default) -- values may be kept
// more precise than the HLO's types say, where that removes a rounding.
//
// Two steps, in one walk per computation:
//  1. A bf16 or f16 dot or convolution that some user immediately widens
//     (convert to a wider float type) is computed with an f32 result and
//     narrowed once for the users that want the narrow type (convolutions
//     only where Contractions::kDotsAndConvolutions says so):
//       dot(a, b) -> bf16      =>   convert(dot(a, b) -> f32) -> bf16
//     (our backends and the evaluator accumulate such dots in f32 and round
//     the sum, so the narrow value is unchanged). This is XLA's CPU and GPU
//     upcasting of low-precision dots (ChangeOpDataType / float
//     normalization), limited to the dots whose values get widened.
//  2. XLA's SimplifyFPConversions: a chain of two or more converts between
//     float types collapses to one convert from the chain's start (none when
//     the start already has the final type):
//       convert(convert(x: f32 -> bf16) -> f32)   =>   x
//     Unlike the algebraic simplifier's round-trip rule, which only removes
//     exact round trips (bf16 -> f32 -> bf16), this one removes the rounding
//     in the middle, so results may be more precise than strict evaluation.
//     Never a rounding to an 8-bit float: that is a quantisation.
//
// Scope (the cpu pipeline asks for kCompilerRoundings): XLA:CPU removes only
// the roundings its own widening introduced, and of those only the ones the
// program widens again itself. A round trip the program wrote,
// x.astype(f16).astype(f32), keeps its rounding there: 7e4 becomes inf, and
// 1e-8 becomes 0 in bf16. So does the rounding between two widened bf16
// operations: floor(x * 10) floors the bf16 product (-8.0078 rounds to -8
// first). In that scope a chain collapses only when its first convert
// rounds what a widened operation computed -- an instruction (not a
// convert) producing f32 from operands that all have the narrow type or are
// widened from it, the shape step 1 and float-normalization leave,
// op(convert(a), convert(b)) -> f32 -> narrow -- and its last convert does
// not widen the value for another such operation (exp(x).astype(f32) on
// bf16 x is exp in f32, unrounded). kAllChains (the default, and the cuda
// and rocm pipelines') collapses every chain.
//
// The reference evaluator never runs this pass (it stays strict); the cpu
// and cuda pipelines run it unless PipelineOptions::allow_excess_precision
// is false (hlo-opt and hlo-run --allow-excess-precision=false).
#ifndef PASSES_SIMPLIFY_FP_CONVERSIONS_H_
#define PASSES_SIMPLIFY_FP_CONVERSIONS_H_

#include "passes/pass.h"

namespace hloc {

class SimplifyFpConversions : public HloPass {
 public:
  enum class Scope { kAllChains, kCompilerRoundings };
  // Which contractions step 1 gives an f32 result. cuDNN's convolutions
  // write the type they read (its legacy API has no bf16 x bf16 -> f32
  // configuration, and XLA:GPU keeps them narrow too): on cuda a widened
  // convolution would be a direct kernel, many times slower.
  enum class Contractions { kDotsAndConvolutions, kDots };

  explicit SimplifyFpConversions(
      Scope scope = Scope::kAllChains,
      Contractions contractions = Contractions::kDotsAndConvolutions)
      : scope_(scope), contractions_(contractions) {}
  absl::string_view name() const override { return "simplify-fp-conversions"; }
  absl::StatusOr<bool> Run(HloModule* module) override;

 private:
  Scope scope_;
  Contractions contractions_;
};

}  // namespace hloc

#endif  // PASSES_SIMPLIFY_FP_CONVERSIONS_H_
