#include "backends/common/kernel_generators.h"

#include <algorithm>
#include <utility>

#include "hlo/status_macros.h"
#include "llvm/IR/IRBuilder.h"

namespace hloc {

KernelGenerators::KernelGenerators(const KernelInfo& info,
                                   std::vector<IrArray> inputs,
                                   ElementalEmitter* elemental)
    : info_(info),
      inputs_(std::move(inputs)),
      elemental_(elemental),
      fused_(elemental) {
  if (info_.fused) {
    for (size_t i = 0; i < inputs_.size(); ++i) {
      fused_.BindParameter(i, Reader(i, inputs_[i]));
    }
  }
}

ElementGenerator KernelGenerators::Reader(size_t i, const IrArray& array) {
  return [this, i, array](const IrIndex& index) {
    return ReadInRun(i, array, index);
  };
}

void KernelGenerators::BeginRun(std::vector<llvm::Value*> linears) {
  llvm::IRBuilderBase* b = elemental_->builder();
  Run run;
  run.linears = std::move(linears);
  run.block = b->GetInsertBlock();
  run.after = b->GetInsertPoint() == run.block->begin()
                  ? nullptr
                  : &*std::prev(b->GetInsertPoint());
  run_ = std::move(run);
}

void KernelGenerators::EndRun() { run_.reset(); }

absl::StatusOr<llvm::Value*> KernelGenerators::ReadInRun(size_t i,
                                                         const IrArray& array,
                                                         const IrIndex& index) {
  llvm::IRBuilderBase* b = elemental_->builder();
  if (!run_ || index.linear() == nullptr ||
      !index.LinearValidOn(array.shape())) {
    return array.EmitRead(index, b);
  }
  const std::vector<llvm::Value*>& linears = run_->linears;
  auto at = std::find(linears.begin(), linears.end(), index.linear());
  if (at == linears.end()) return array.EmitRead(index, b);
  std::vector<llvm::Value*>& values = run_->loaded[i];
  if (values.empty()) {
    llvm::IRBuilderBase::InsertPointGuard guard(*b);
    if (run_->after != nullptr) {
      b->SetInsertPoint(run_->after->getNextNode());
    } else {
      b->SetInsertPoint(run_->block, run_->block->begin());
    }
    HLOC_ASSIGN_OR_RETURN(
        values,
        array.EmitReadRun(
            IrIndex::FromLinear(linears[0], array.shape(), b),
            static_cast<int64_t>(linears.size()),
            AlignmentOfRun(linears.size(), array.shape().element_type()), b));
  }
  return values[at - linears.begin()];
}

absl::StatusOr<ElementGenerator> KernelGenerators::Get(
    const HloInstruction* hlo) {
  if (info_.fused) return fused_.GetGenerator(hlo);
  const HloInstruction* self = info_.hlo;
  for (int64_t i = 0; i < self->operand_count(); ++i) {
    if (self->operand(i) == hlo) return Reader(i, inputs_[i]);
  }
  if (hlo != self) {
    return absl::InternalError("codegen: generator of a foreign instruction");
  }
  if (!unfused_) {
    std::vector<ElementGenerator> operands;
    for (size_t i = 0; i < inputs_.size(); ++i) {
      operands.push_back(Reader(i, inputs_[i]));
    }
    HLOC_ASSIGN_OR_RETURN(ElementGenerator g, elemental_->MakeElementGenerator(
                                                  self, std::move(operands)));
    unfused_ = std::move(g);
  }
  return *unfused_;
}

absl::StatusOr<ElementGenerator> KernelGenerators::ForOutput(
    const KernelOutput& o) {
  HLOC_ASSIGN_OR_RETURN(ElementGenerator g, Get(o.root));
  if (o.element < 0) return g;
  unsigned e = static_cast<unsigned>(o.element);
  llvm::IRBuilderBase* b = elemental_->builder();
  return ElementGenerator(
      [g, e, b](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
        HLOC_ASSIGN_OR_RETURN(llvm::Value * v, g(index));
        return b->CreateExtractValue(v, {e});
      });
}

void KernelGenerators::Bind(const HloInstruction* hlo,
                            ElementGenerator generator) {
  fused_.BindInstruction(hlo, std::move(generator));
}

absl::StatusOr<std::vector<ReduceState>> MakeReduceStates(
    const KernelInfo& info, const ReductionInfo& r,
    const std::function<
        absl::StatusOr<ElementGenerator>(const HloInstruction*)>& generator,
    llvm::LLVMContext& context) {
  std::vector<ReduceState> states;
  for (const HloInstruction* reduce : r.reduces) {
    ReduceState s;
    s.reduce = reduce;
    s.n = reduce->operand_count() / 2;
    for (size_t k = 0; k < s.n; ++k) {
      HLOC_ASSIGN_OR_RETURN(ElementGenerator in, generator(reduce->operand(k)));
      HLOC_ASSIGN_OR_RETURN(ElementGenerator init,
                            generator(reduce->operand(s.n + k)));
      s.inputs.push_back(std::move(in));
      s.inits.push_back(std::move(init));
      HLOC_ASSIGN_OR_RETURN(
          llvm::Type * t,
          RegisterType(reduce->operand(k)->shape().element_type(), context));
      s.types.push_back(t);
      s.output_of.push_back(-1);
    }
    for (size_t o = 0; o < info.outputs.size(); ++o) {
      if (info.outputs[o].root != reduce) continue;
      s.output_of[std::max<int64_t>(info.outputs[o].element, 0)] = o;
    }
    states.push_back(std::move(s));
  }
  return states;
}

}  // namespace hloc
