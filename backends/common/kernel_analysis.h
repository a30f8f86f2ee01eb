// What a kernel computes, found before any IR is emitted, for every backend:
// the buffers it reads and writes (one per operand, one per leaf of the
// result), the fused instruction computing each output, and whether the
// outputs form a reduction (reduces over one input shape and reduced
// dimensions, plus extra outputs of that input shape). No LLVM here.
#ifndef BACKENDS_COMMON_KERNEL_ANALYSIS_H_
#define BACKENDS_COMMON_KERNEL_ANALYSIS_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hlo/instruction.h"
#include "hlo/shape.h"

namespace hloc {

// Unimplemented "codegen: WHY (instruction)": what every emitter answers
// for an op, type or shape it does not handle.
absl::Status CodegenUnimplemented(const HloInstruction& hlo,
                                  absl::string_view why);

// One output buffer of a kernel: the instruction computing it and, for a
// tuple-shaped one (variadic reduce), which element.
struct KernelOutput {
  const HloInstruction* root;
  int64_t element;  // -1: the whole (array) value
};

struct KernelInfo {
  const HloInstruction* hlo;
  bool fused;
  std::vector<Shape> input_shapes;
  std::vector<Shape> output_shapes;
  std::vector<KernelOutput> outputs;
};

// Unimplemented for operands that are not arrays, nested tuple results and
// fused roots whose shapes do not match the result.
absl::StatusOr<KernelInfo> AnalyzeKernel(const HloInstruction& hlo);

// A reduction kernel: every output is either a reduce over the same input
// dimensions and reduced dimensions, or an array of the reduce input's
// dimensions (computed along the way), or (with `allow_epilogue`) an
// epilogue of the reduces' results: a fused value that reaches reduces only
// through elementwise ops of the reduce output's dimensions, so it can be
// computed at an output position from the reduces' results there
// (fusion_kinds.h, kReduction). Without `allow_epilogue` (a backend whose
// reduction loops write reduce results only) a kernel with such an output
// is no reduction: its loop computes the reduce per output element.
struct ReductionInfo {
  // Every reduce the kernel computes, outputs or read by an epilogue.
  std::vector<const HloInstruction*> reduces;
  Shape input_shape;
  std::vector<int64_t> reduced_dims;  // sorted
  std::vector<int64_t> kept_dims;
  bool row;  // the physically minor input dimension is reduced
  // Indices into KernelInfo::outputs of the epilogue outputs.
  std::vector<size_t> epilogue_outputs;

  bool IsEpilogueOutput(size_t o) const;
};

std::optional<ReductionInfo> AnalyzeReduction(const KernelInfo& info,
                                              bool allow_epilogue = false);

// The concatenate a loop fusion's single output is made of, when a kernel
// may walk each of its operands and write every element at its offset in
// the output instead of asking, element by element, which operand holds it
// (a branch per element, which also keeps the accesses scalar): every path
// from the concatenate to the root reads it only at the output's own
// linear position (elementwise ops of its element count, reshapes between
// row-major shapes) and the concatenate and the root are row-major. At
// most kMaxConcatenateHeroOperands operands (each is a loop of its own in
// the kernel). Null otherwise.
inline constexpr int64_t kMaxConcatenateHeroOperands = 16;
const HloInstruction* FindConcatenateHero(const KernelInfo& info);

// The reduced dimensions in physical order, most major first.
std::vector<int64_t> ReducedLoopOrder(const ReductionInfo& r);

// Indices of `info.outputs` grouped by dimensions (first appearance order):
// each group is one iteration space.
std::vector<std::vector<size_t>> GroupOutputsByDimensions(
    const KernelInfo& info);

}  // namespace hloc

#endif  // BACKENDS_COMMON_KERNEL_ANALYSIS_H_
