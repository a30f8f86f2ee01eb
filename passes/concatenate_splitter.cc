#include "passes/concatenate_splitter.h"

#include <algorithm>
#include <vector>

#include "hlo/computation.h"
#include "hlo/module.h"

namespace hloc {

absl::StatusOr<bool> ConcatenateSplitter::Run(HloModule* module) {
  return RewriteEach(
      module, HloOpcode::kConcatenate, "concatenates-split",
      [&](HloComputation* computation,
          HloInstruction* concat) -> absl::StatusOr<bool> {
        if (concat->operand_count() <= max_operands_ ||
            concat->dimensions().size() != 1) {
          return false;
        }
        const int64_t dim = concat->dimensions(0);
        std::vector<HloInstruction*> level = concat->operands();
        while (static_cast<int64_t>(level.size()) > max_operands_) {
          std::vector<HloInstruction*> next;
          for (size_t begin = 0; begin < level.size();
               begin += static_cast<size_t>(max_operands_)) {
            const size_t end = std::min(
                level.size(), begin + static_cast<size_t>(max_operands_));
            if (end - begin == 1) {
              next.push_back(level[begin]);
              continue;
            }
            std::vector<HloInstruction*> part(level.begin() + begin,
                                              level.begin() + end);
            Shape shape = concat->shape();
            int64_t size = 0;
            for (const HloInstruction* operand : part) {
              size += operand->shape().dimensions(dim);
            }
            (*shape.mutable_dimensions())[dim] = size;
            next.push_back(computation->AddInstruction(
                concat->CloneWithNewOperands(shape, part)));
          }
          level = std::move(next);
        }
        HloInstruction* top = computation->AddInstruction(
            concat->CloneWithNewOperands(concat->shape(), level));
        if (absl::Status s = computation->ReplaceInstruction(concat, top);
            !s.ok()) {
          return s;
        }
        return true;
      });
}

}  // namespace hloc
