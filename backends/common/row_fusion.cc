#include "backends/common/row_fusion.h"

#include <utility>

namespace hloc {

RowIndexer::RowIndexer(const Shape& shape, int64_t row_length, llvm::Value* row,
                       llvm::Type* index_type, llvm::IRBuilderBase* b)
    : shape_(shape),
      row_length_(row_length),
      row_(row),
      index_type_(index_type) {
  const int64_t rank = shape.rank();
  // The shortest trailing group holding row_length elements.
  int64_t product = 1;
  split_ = rank;
  while (split_ > 0 && product < row_length) {
    product *= shape.dimensions(--split_);
  }
  leading_ = SplitRowMajor(row, 0, split_, b);
}

llvm::Value* RowIndexer::Constant(int64_t v) const {
  return llvm::ConstantInt::get(index_type_, v);
}

IrIndex RowIndexer::At(llvm::Value* c, llvm::IRBuilderBase* b) const {
  std::vector<llvm::Value*> multidim = leading_;
  std::vector<llvm::Value*> trailing =
      SplitRowMajor(c, split_, shape_.rank(), b);
  multidim.insert(multidim.end(), trailing.begin(), trailing.end());
  llvm::Value* linear =
      b->CreateAdd(b->CreateMul(row_, Constant(row_length_), "", true, true), c,
                   "", true, true);
  return IrIndex(std::move(multidim), linear, shape_, index_type_);
}

llvm::Value* RowIndexer::PositionInRow(const IrIndex& index,
                                       llvm::IRBuilderBase* b) const {
  llvm::Value* position = Constant(0);
  int64_t stride = 1;
  for (int64_t d = shape_.rank() - 1; d >= split_; --d) {
    if (shape_.dimensions(d) != 1) {
      position = b->CreateAdd(
          position, b->CreateMul(index[d], Constant(stride), "", true, true),
          "", true, true);
    }
    stride *= shape_.dimensions(d);
  }
  return position;
}

std::vector<llvm::Value*> RowIndexer::SplitRowMajor(
    llvm::Value* x, int64_t from, int64_t to, llvm::IRBuilderBase* b) const {
  std::vector<llvm::Value*> out(to - from, Constant(0));
  std::vector<int64_t> live;
  for (int64_t d = from; d < to; ++d) {
    if (shape_.dimensions(d) != 1) live.push_back(d);
  }
  int64_t stride = 1;
  for (size_t i = live.size(); i-- > 0;) {
    const int64_t d = live[i];
    llvm::Value* v = x;
    if (stride != 1) v = b->CreateUDiv(v, Constant(stride));
    if (i > 0) v = b->CreateURem(v, Constant(shape_.dimensions(d)));
    out[d - from] = v;
    stride *= shape_.dimensions(d);
  }
  return out;
}

bool HasOtherUsers(const HloInstruction* hlo, const HloInstruction* except) {
  for (const HloInstruction* user : hlo->users()) {
    if (user != except) return true;
  }
  return false;
}

absl::flat_hash_set<const HloInstruction*> DependentsOfReductions(
    const HloComputation& fused,
    const std::vector<const HloInstruction*>& reductions) {
  absl::flat_hash_set<const HloInstruction*> dependents(reductions.begin(),
                                                        reductions.end());
  for (const HloInstruction* instr : fused.MakeInstructionPostOrder()) {
    for (const HloInstruction* operand : instr->operands()) {
      if (dependents.contains(operand)) {
        dependents.insert(instr);
        break;
      }
    }
  }
  return dependents;
}

namespace {

// Walks the values computed from `parameter`'s element at its own row and
// position (elementwise ops of its dimensions) and notes how they are read:
// by a reduction, or by a user that reads it at another position.
struct OwnPositionReads {
  bool reduced = false;
  bool elsewhere = false;
};

OwnPositionReads FindOwnPositionReads(const HloInstruction* parameter,
                                      int64_t full_elements) {
  OwnPositionReads reads;
  const Shape& shape = parameter->shape();
  if (!shape.IsArray() || shape.ElementCount() != full_elements ||
      !shape.HasDescendingLayout()) {
    reads.elsewhere = true;
    return reads;
  }
  std::vector<const HloInstruction*> work = {parameter};
  absl::flat_hash_set<const HloInstruction*> seen = {parameter};
  while (!work.empty()) {
    const HloInstruction* value = work.back();
    work.pop_back();
    for (const HloInstruction* user : value->users()) {
      if (user->opcode() == HloOpcode::kTuple) continue;  // An output.
      // A reduction's input is read along its own row; its result is a
      // per-row value, no longer this parameter's element.
      if (user->opcode() == HloOpcode::kReduce && user->operand(0) == value &&
          user->operand_count() == 2) {
        reads.reduced = true;
        continue;
      }
      if (!user->IsElementwise() || !user->shape().IsArray() ||
          !user->shape().SameDimensions(shape)) {
        reads.elsewhere = true;
        continue;
      }
      if (seen.insert(user).second) work.push_back(user);
    }
  }
  return reads;
}

}  // namespace

bool IsReadAtOwnPositionOnly(const HloInstruction* parameter,
                             int64_t full_elements) {
  return !FindOwnPositionReads(parameter, full_elements).elsewhere;
}

bool IsReducedAtOwnPosition(const HloInstruction* parameter,
                            int64_t full_elements) {
  return FindOwnPositionReads(parameter, full_elements).reduced;
}

}  // namespace hloc
