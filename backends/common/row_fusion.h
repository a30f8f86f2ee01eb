// What every backend's row-reduction fusion emitter (fusion_kinds.h,
// kRowReduction: softmax, layer norm, log-softmax) shares: addressing a
// full value by (row, position in the row), and which fused values depend
// on a reduction (the only ones a kernel may keep per row, since an
// invariant value may be read at another row, through a reverse, say).
#ifndef BACKENDS_COMMON_ROW_FUSION_H_
#define BACKENDS_COMMON_ROW_FUSION_H_

#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "backends/common/ir_array.h"
#include "hlo/computation.h"
#include "hlo/instruction.h"
#include "llvm/IR/IRBuilder.h"

namespace hloc {

// Indices into a row-major array of num_rows * row_length elements (a full
// value) for logical position r * row_length + c: the dimensions split into
// a leading group (the row, split once per row) and a trailing group (the
// position in the row), so the inner loop over c does no division when
// the row is one dimension. Every index is of `index_type`.
class RowIndexer {
 public:
  RowIndexer(const Shape& shape, int64_t row_length, llvm::Value* row,
             llvm::Type* index_type, llvm::IRBuilderBase* b);

  IrIndex At(llvm::Value* c, llvm::IRBuilderBase* b) const;

  // Position in the row of an index into this shape.
  llvm::Value* PositionInRow(const IrIndex& index,
                             llvm::IRBuilderBase* b) const;

 private:
  // Row-major split of x over dimensions [from, to) of the shape.
  std::vector<llvm::Value*> SplitRowMajor(llvm::Value* x, int64_t from,
                                          int64_t to,
                                          llvm::IRBuilderBase* b) const;
  llvm::Value* Constant(int64_t v) const;

  Shape shape_;
  int64_t row_length_;
  llvm::Value* row_;
  llvm::Type* index_type_;
  int64_t split_ = 0;
  std::vector<llvm::Value*> leading_;
};

// Users of `hlo` inside the fusion other than `except`.
bool HasOtherUsers(const HloInstruction* hlo, const HloInstruction* except);

// The fused instructions that depend on a reduction: the "full" and
// "per-row" values of fusion_kinds.h, which are only ever read at their
// own row.
absl::flat_hash_set<const HloInstruction*> DependentsOfReductions(
    const HloComputation& fused,
    const std::vector<const HloInstruction*>& reductions);

// True if every read of fusion parameter `parameter` is at its own row
// and position (it reaches the reductions and outputs only through
// elementwise ops of its own dimensions), so a kernel may load its row
// once and serve every pass from a copy of that row. `full_elements` is
// num_rows * row_length.
bool IsReadAtOwnPositionOnly(const HloInstruction* parameter,
                             int64_t full_elements);

// True if some reduction reads each element of fusion parameter `parameter`
// at its own row and position (through elementwise ops of its dimensions),
// whatever else reads it elsewhere in its row (a rotary embedding's other
// half of a head): a kernel that loads the row once for the reductions
// serves those reads from that copy and reads the others from memory.
bool IsReducedAtOwnPosition(const HloInstruction* parameter,
                            int64_t full_elements);

}  // namespace hloc

#endif  // BACKENDS_COMMON_ROW_FUSION_H_
