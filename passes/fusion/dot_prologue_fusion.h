// Producers of a dot's operands fused into the dot ("dot-prologue-
// fusion"), as XLA:GPU's gemm fusions take the converts and broadcasts
// that feed a dot.
//
// A dot whose operands are computed (x.astype(bf16) @ w.astype(bf16) on f32
// values, a broadcast bias matrix, a negated operand) otherwise runs as
// kernels that write each computed operand, then the dot that reads it
// back. Here the cheap producers (ShouldFuseIntoDotPrologue, the cost
// model's rule) become part of a kOutput fusion with the dot, computed as
// the dot's kernel loads its operands: on ROCm by the tiled dot kernel
// (backends/gpu/tiled_dot_emitter.cc), at any size, since every ROCm dot
// is that kernel. On CUDA, only into small dots with f16/bf16 operands,
// which the tiled kernel computes on the tensor cores (mma.sync) and
// where one kernel beats the producers' kernels plus a cuBLASLt call
// (FusionOptions::dot_prologue_matrix_types_only and
// dot_prologue_max_flops, measured); larger dots keep cuBLASLt, and exact
// widening converts reach it through dot-convert-folding, on every
// pipeline and before this pass.
//
// On the CPU only views and converts join (FusionOptions::
// dot_prologue_views_only): its packing GEMM reads a broadcast operand
// with stride 0, a transposed one with swapped strides, a rounded one
// through the conversion (backends/cpu/dot_emitter.cc), at any size.
//
// Runs before instruction-fusion, which may then add an elementwise
// epilogue to the fusion (fusion_kinds.h, kDotEpilogue) but adds nothing
// to its prologue. Every producer considered is recorded in the
// FusionReport with its rule.
#ifndef PASSES_FUSION_DOT_PROLOGUE_FUSION_H_
#define PASSES_FUSION_DOT_PROLOGUE_FUSION_H_

#include "passes/fusion/cost_model.h"
#include "passes/fusion/report.h"
#include "passes/pass.h"

namespace hloc {

class DotPrologueFusion : public HloPass {
 public:
  explicit DotPrologueFusion(FusionOptions options = {},
                             FusionReport* report = nullptr)
      : options_(options), report_(report) {}
  absl::string_view name() const override { return "dot-prologue-fusion"; }
  absl::StatusOr<bool> Run(HloModule* module) override;

 private:
  FusionOptions options_;
  FusionReport* report_;
};

}  // namespace hloc

#endif  // PASSES_FUSION_DOT_PROLOGUE_FUSION_H_
