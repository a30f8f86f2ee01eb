#include "backends/common/in_place_update.h"

#include <vector>

#include "hlo/status_macros.h"
#include "llvm/IR/IRBuilder.h"

namespace hloc {

absl::StatusOr<LoopMapping::BodyEmitter> InPlaceDynamicUpdateSliceBody(
    const HloInstruction& dus, KernelGenerators& generators,
    const IrArray& output, llvm::Type* index_type, llvm::IRBuilderBase* b) {
  const Shape& out = dus.shape();
  const Shape& update = dus.operand(1)->shape();
  HLOC_ASSIGN_OR_RETURN(ElementGenerator update_gen,
                        generators.Get(dus.operand(1)));
  std::vector<ElementGenerator> starts;
  for (int64_t d = 0; d < out.rank(); ++d) {
    HLOC_ASSIGN_OR_RETURN(ElementGenerator g,
                          generators.Get(dus.operand(2 + d)));
    starts.push_back(std::move(g));
  }
  return LoopMapping::BodyEmitter([&dus, out, update, update_gen, starts,
                                   output, index_type,
                                   b](const IrIndex& index) -> absl::Status {
    HLOC_ASSIGN_OR_RETURN(llvm::Value * value, update_gen(index));
    std::vector<llvm::Value*> out_index;
    for (int64_t d = 0; d < out.rank(); ++d) {
      HLOC_ASSIGN_OR_RETURN(
          llvm::Value * start,
          EmitClampedStartIndex(
              starts[d], dus.operand(2 + d)->shape().element_type(),
              out.dimensions(d) - update.dimensions(d), index_type, b));
      out_index.push_back(b->CreateAdd(start, index[d], "", true, true));
    }
    return output.EmitWrite(IrIndex(out_index, index_type), value, b);
  });
}

}  // namespace hloc
