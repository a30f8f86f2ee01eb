#include "backends/common/loop_emitter.h"

#include <string>
#include <utility>

#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"

namespace hloc {
namespace {

llvm::StringRef Ref(const std::string& s) { return llvm::StringRef(s); }

absl::Status CheckOpenBlock(llvm::IRBuilderBase* b) {
  if (b->GetInsertBlock() == nullptr ||
      b->GetInsertBlock()->getTerminator() != nullptr) {
    return absl::InternalError(
        "control flow must be emitted at the end of an open basic block");
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status EmitForLoop(absl::string_view name, llvm::Value* start,
                         llvm::Value* end, llvm::Value* step,
                         const std::function<absl::Status(llvm::Value*)>& body,
                         llvm::IRBuilderBase* b) {
  if (absl::Status s = CheckOpenBlock(b); !s.ok()) return s;
  std::string n(name);
  llvm::LLVMContext& ctx = b->getContext();
  llvm::BasicBlock* preheader = b->GetInsertBlock();
  llvm::Function* f = preheader->getParent();
  llvm::BasicBlock* header =
      llvm::BasicBlock::Create(ctx, Ref(n + ".header"), f);
  llvm::BasicBlock* body_bb =
      llvm::BasicBlock::Create(ctx, Ref(n + ".body"), f);
  llvm::BasicBlock* exit = llvm::BasicBlock::Create(ctx, Ref(n + ".exit"), f);
  b->CreateBr(header);
  b->SetInsertPoint(header);
  llvm::PHINode* iv = b->CreatePHI(start->getType(), 2, Ref(n + ".iv"));
  iv->addIncoming(start, preheader);
  b->CreateCondBr(b->CreateICmpSLT(iv, end), body_bb, exit);
  b->SetInsertPoint(body_bb);
  if (absl::Status s = body(iv); !s.ok()) return s;
  llvm::Value* next = b->CreateAdd(iv, step, Ref(n + ".next"),
                                   /*HasNUW=*/true, /*HasNSW=*/true);
  iv->addIncoming(next, b->GetInsertBlock());
  b->CreateBr(header);
  b->SetInsertPoint(exit);
  return absl::OkStatus();
}

absl::Status EmitIfThenElse(llvm::Value* cond,
                            const std::function<absl::Status()>& then_body,
                            const std::function<absl::Status()>& else_body,
                            llvm::IRBuilderBase* b) {
  if (absl::Status s = CheckOpenBlock(b); !s.ok()) return s;
  llvm::LLVMContext& ctx = b->getContext();
  llvm::Function* f = b->GetInsertBlock()->getParent();
  llvm::BasicBlock* then_bb = llvm::BasicBlock::Create(ctx, "if.then", f);
  llvm::BasicBlock* else_bb =
      else_body ? llvm::BasicBlock::Create(ctx, "if.else", f) : nullptr;
  llvm::BasicBlock* merge = llvm::BasicBlock::Create(ctx, "if.end", f);
  b->CreateCondBr(cond, then_bb, else_bb ? else_bb : merge);
  b->SetInsertPoint(then_bb);
  if (absl::Status s = then_body(); !s.ok()) return s;
  b->CreateBr(merge);
  if (else_bb) {
    b->SetInsertPoint(else_bb);
    if (absl::Status s = else_body(); !s.ok()) return s;
    b->CreateBr(merge);
  }
  b->SetInsertPoint(merge);
  return absl::OkStatus();
}

llvm::Value* EmitAllocaAtEntry(llvm::Type* type, absl::string_view name,
                               llvm::IRBuilderBase* b) {
  llvm::Function* f = b->GetInsertBlock()->getParent();
  llvm::IRBuilder<> entry(&f->getEntryBlock(), f->getEntryBlock().begin());
  return entry.CreateAlloca(type, nullptr,
                            llvm::StringRef(name.data(), name.size()));
}

absl::Status SerialLoopMapping::EmitLoopNest(const Shape& shape,
                                             const BodyEmitter& body,
                                             llvm::IRBuilderBase* b) {
  llvm::Type* index_type =
      index_type_ != nullptr ? index_type_ : b->getInt64Ty();
  std::vector<int64_t> minor_to_major = shape.MinorToMajor();
  std::vector<llvm::Value*> multidim(shape.rank());
  // Loops from the most major physical dimension inwards; the linear
  // position is carried along (linear = linear * dim + iv).
  std::function<absl::Status(int64_t, llvm::Value*)> emit_level =
      [&](int64_t level, llvm::Value* linear) -> absl::Status {
    if (level == shape.rank()) {
      return body(IrIndex(multidim, linear, shape, index_type));
    }
    int64_t d = minor_to_major[shape.rank() - 1 - level];
    return EmitForLoop(
        "dim" + std::to_string(d), llvm::ConstantInt::get(index_type, 0),
        llvm::ConstantInt::get(index_type, shape.dimensions(d)),
        llvm::ConstantInt::get(index_type, 1),
        [&](llvm::Value* iv) {
          multidim[d] = iv;
          llvm::Value* next = b->CreateAdd(
              b->CreateMul(
                  linear,
                  llvm::ConstantInt::get(index_type, shape.dimensions(d)), "",
                  true, true),
              iv, "", true, true);
          return emit_level(level + 1, next);
        },
        b);
  };
  return emit_level(0, llvm::ConstantInt::get(index_type, 0));
}

LoopEmitter::LoopEmitter(std::vector<ElementGenerator> generators,
                         std::vector<IrArray> outputs, llvm::IRBuilderBase* b)
    : generators_(std::move(generators)), outputs_(std::move(outputs)), b_(b) {}

absl::Status LoopEmitter::EmitBody(const IrIndex& index) {
  // All values first, then the stores: a store cannot then sit between the
  // loads of a later output (which would only cost alias checks).
  std::vector<llvm::Value*> values;
  for (const ElementGenerator& generator : generators_) {
    absl::StatusOr<llvm::Value*> value = generator(index);
    if (!value.ok()) return value.status();
    values.push_back(*value);
  }
  for (size_t i = 0; i < outputs_.size(); ++i) {
    if (absl::Status s = outputs_[i].EmitWrite(index, values[i], b_); !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

absl::Status LoopEmitter::EmitRunBody(const std::vector<IrIndex>& run) {
  std::vector<std::vector<llvm::Value*>> values(outputs_.size());
  for (const IrIndex& index : run) {
    for (size_t i = 0; i < generators_.size(); ++i) {
      absl::StatusOr<llvm::Value*> value = generators_[i](index);
      if (!value.ok()) return value.status();
      values[i].push_back(*value);
    }
  }
  for (size_t i = 0; i < outputs_.size(); ++i) {
    const IrArray& out = outputs_[i];
    bool linear = true;
    for (const IrIndex& index : run) {
      linear = linear && index.LinearValidOn(out.shape());
    }
    if (!linear) {
      for (size_t e = 0; e < run.size(); ++e) {
        if (absl::Status s = out.EmitWrite(run[e], values[i][e], b_); !s.ok()) {
          return s;
        }
      }
      continue;
    }
    if (absl::Status s = out.EmitWriteRun(
            run[0], values[i],
            AlignmentOfRun(run.size(), out.shape().element_type()), b_);
        !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

absl::Status LoopEmitter::EmitLoop(LoopMapping& mapping) {
  if (outputs_.empty()) return absl::OkStatus();
  for (const IrArray& out : outputs_) {
    if (!out.shape().SameDimensions(outputs_[0].shape())) {
      return absl::InternalError(
          "LoopEmitter: outputs of a loop must have the same dimensions");
    }
  }
  return mapping.EmitLoopNestInRuns(
      outputs_[0].shape(),
      [this](const IrIndex& index) { return EmitBody(index); },
      [this](const std::vector<IrIndex>& run) { return EmitRunBody(run); }, b_);
}

}  // namespace hloc
