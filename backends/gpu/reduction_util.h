// Pieces every GPU reduction kernel uses (row and column reductions, row-
// reduction fusions, transposes' and dots' tiles, row scans): warp shuffles of
// any register type and a block's shared-memory array. Included only by
// emitters' .cc files (it pulls in LLVM's IR headers through kernel_builder.h).
#ifndef BACKENDS_GPU_REDUCTION_UTIL_H_
#define BACKENDS_GPU_REDUCTION_UTIL_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "backends/common/kernel_analysis.h"
#include "backends/common/kernel_generators.h"
#include "backends/gpu/kernel_builder.h"
#include "hlo/computation.h"

namespace hloc {

// The value of `value` in lane (lane ^ mask), any register type: split
// into 32-bit pieces, each shuffled. Every lane of the warp must execute it.
llvm::Value* ShuffleXor(KernelBuilder& kernel, llvm::Value* value, int mask);

// The value of `value` in lane (lane - delta); lanes below `delta` get
// their own. Any register type; every lane of the warp must execute it.
llvm::Value* ShuffleUp(KernelBuilder& kernel, llvm::Value* value, int delta);

// The value of `value` in lane `source_lane`, in every lane. Any register
// type; every lane of the warp must execute it.
llvm::Value* ShuffleIndex(KernelBuilder& kernel, llvm::Value* value,
                          int source_lane);

// The operands of one butterfly step (ShuffleXor by `mask`) of a group
// reduction with `reducer`: this lane's partial results `own` and those of
// lane (lane ^ mask), `other`, the lower lane's first. Both partners then
// compute the same value, and with the masks taken in increasing order
// (1, 2, 4, ...) every lane ends with the group's partial results combined
// in lane order, as a sequential loop over the lanes would combine them.
// That matters for a reducer that is not commutative (an argmax whose ties
// keep the first operand's index: JAX programs write them; XLA:CPU's
// sequential loop keeps the first of equal maxima, and so did XLA:GPU on
// the zoo's variadic_reductions, where hloc's widest-mask-first butterfly
// did not); a commutative one (MatchSimpleReducer) takes them as they are.
// Where a lane holds several runs of the row (strided by the group), ties
// between them still resolve by lane, not by position.
std::vector<llvm::Value*> ButterflyOperands(
    KernelBuilder& kernel, const HloComputation& reducer, int mask,
    const std::vector<llvm::Value*>& own,
    const std::vector<llvm::Value*>& other);

// A block-shared array of `count` elements of `type`, named after the
// kernel and `what`, aligned to kSharedArrayAlign bytes (the widest vector
// access, so that LLVM may merge accesses to any of its elements).
constexpr int64_t kSharedArrayAlign = 16;
llvm::GlobalVariable* SharedArray(KernelBuilder& kernel, llvm::Type* type,
                                  int64_t count, const std::string& what);

// The address of element `i` of a SharedArray.
llvm::Value* SharedElement(KernelBuilder& kernel, llvm::GlobalVariable* array,
                           llvm::Value* i);

// The product of `shape`'s sizes of `dims`.
int64_t DimensionsProduct(const Shape& shape, const std::vector<int64_t>& dims);

// Sets index[d] for each of `dims` (a group of `shape`'s dimensions, major
// first) to its part of `x`, a linear position in the group (row-major):
// how column kernels split an outer or a column position into the
// dimensions it stands for.
void SplitLinearInto(llvm::Value* x, const Shape& shape,
                     const std::vector<int64_t>& dims,
                     std::vector<llvm::Value*>& index, llvm::IRBuilderBase* b);

// True if every use of `value` (a fused instruction) reaches `root`
// through elementwise ops of root's dimensions only, so a kernel that
// computes `value` itself (a transpose's tile, a dot's register tile) is
// only asked for it at the output position it is writing.
bool ReadAtOutputPositionOnly(const HloInstruction* value,
                              const HloInstruction* root);

// Writes what a reduction kernel's reduces give at one output position,
// once their accumulators hold the complete results there: each reduce
// result that is a kernel output and each epilogue output
// (ReductionInfo::epilogue_outputs, fusion_kinds.h's kReduction), which the
// fused computation computes elementwise from those results before its
// store (a convert to bf16, a mean's divide). The reduces' generators are
// bound to the results of the position being written, so construct the
// writer before anything asks for an epilogue's generator.
class ReductionOutputWriter {
 public:
  ReductionOutputWriter(KernelBuilder& kernel, const KernelInfo& info,
                        const ReductionInfo& r);

  // `states`: the reduces' accumulators (r.reduces' order); `out_index`: a
  // position of the reduce output's dimensions.
  absl::Status Write(const std::vector<ReduceState>& states,
                     const IrIndex& out_index);

 private:
  KernelBuilder& kernel_;
  const KernelInfo& info_;
  const ReductionInfo& r_;
  // The result of each single-result reduce at the position being written
  // (null outside Write).
  std::shared_ptr<absl::flat_hash_map<const HloInstruction*, llvm::Value*>>
      results_;
};

}  // namespace hloc

#endif  // BACKENDS_GPU_REDUCTION_UTIL_H_
