#include "backends/gpu/kernel_builder.h"

#include <algorithm>

#include "hlo/computation.h"
#include "hlo/status_macros.h"
#include "llvm/IR/Attributes.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Module.h"

namespace hloc {
namespace {

// Every slot of the buffer plan is 64-byte aligned; 16 is what vector
// loads and stores need.
constexpr uint64_t kBufferAlignment = 16;

llvm::Function* CreateKernelFunction(const GpuTarget& target,
                                     llvm::Module* module,
                                     const KernelInfo& info,
                                     const KernelBuffers& buffers,
                                     const std::string& symbol,
                                     int64_t threads_per_block) {
  llvm::LLVMContext& ctx = module->getContext();
  size_t num_inputs = info.input_shapes.size();
  size_t num_params = num_inputs + info.output_shapes.size();
  std::vector<llvm::Type*> params(num_params, llvm::PointerType::get(ctx, 0));
  llvm::Function* fn = llvm::Function::Create(
      llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), params, false),
      llvm::GlobalValue::ExternalLinkage, symbol, module);
  fn->setDoesNotThrow();
  for (size_t i = 0; i < num_params; ++i) {
    fn->addParamAttr(i, llvm::Attribute::NoCapture);
    fn->addParamAttr(i, llvm::Attribute::getWithAlignment(
                            ctx, llvm::Align(kBufferAlignment)));
    bool aliased = i < buffers.may_alias.size() && buffers.may_alias[i];
    if (aliased) continue;
    fn->addParamAttr(i, llvm::Attribute::NoAlias);
    if (i < num_inputs) fn->addParamAttr(i, llvm::Attribute::ReadOnly);
  }
  target.MarkKernel(fn, threads_per_block);
  return fn;
}

std::vector<IrArray> Arrays(llvm::Function* fn, size_t first,
                            const std::vector<Shape>& shapes) {
  std::vector<IrArray> arrays;
  for (size_t i = 0; i < shapes.size(); ++i) {
    arrays.emplace_back(fn->getArg(first + i), shapes[i]);
  }
  return arrays;
}

}  // namespace

KernelBuilder::KernelBuilder(const GpuTarget& target, llvm::Module* module,
                             const KernelInfo& info,
                             const KernelBuffers& buffers,
                             const std::string& symbol,
                             int64_t threads_per_block, bool index64)
    : target_(target),
      module_(module),
      fn_(CreateKernelFunction(target, module, info, buffers, symbol,
                               threads_per_block)),
      builder_(llvm::BasicBlock::Create(module->getContext(), "entry", fn_)),
      index_type_(index64 ? builder_.getInt64Ty() : builder_.getInt32Ty()),
      elemental_(module, &builder_, &target.math()),
      outputs_(Arrays(fn_, info.input_shapes.size(), info.output_shapes)),
      generators_(info, Arrays(fn_, 0, info.input_shapes), &elemental_) {
  target.EmitKernelPrologue(&builder_);
}

llvm::Value* KernelBuilder::Index(int64_t v) {
  return llvm::ConstantInt::get(index_type_, v);
}

llvm::Value* KernelBuilder::ThreadId(int dim) {
  return builder_.CreateZExtOrTrunc(target_.EmitThreadId(dim, &builder_),
                                    index_type_);
}

llvm::Value* KernelBuilder::BlockId(int dim) {
  return builder_.CreateZExtOrTrunc(target_.EmitBlockId(dim, &builder_),
                                    index_type_);
}

absl::Status KernelBuilder::Finish(absl::Status status) {
  if (!status.ok()) {
    fn_->eraseFromParent();
    std::vector<llvm::GlobalVariable*> dead;
    for (llvm::GlobalVariable& g : module_->globals()) {
      if (g.use_empty() && g.hasPrivateLinkage()) dead.push_back(&g);
    }
    for (llvm::GlobalVariable* g : dead) g->eraseFromParent();
    return status;
  }
  builder_.CreateRetVoid();
  return absl::OkStatus();
}

int64_t MaxElementsTouched(const KernelInfo& info) {
  int64_t max_elements = 1;
  for (const Shape& s : info.input_shapes) {
    max_elements = std::max(max_elements, s.ElementCount());
  }
  for (const Shape& s : info.output_shapes) {
    max_elements = std::max(max_elements, s.ElementCount());
  }
  if (info.fused) {
    for (const HloInstruction* instr :
         info.hlo->fused_computation()->instructions()) {
      if (instr->shape().IsArray()) {
        max_elements = std::max(max_elements, instr->shape().ElementCount());
      }
    }
  }
  return max_elements;
}

int64_t WidestOutputBytes(const KernelInfo& info) {
  int64_t widest = 1;
  for (const Shape& s : info.output_shapes) {
    widest = std::max<int64_t>(widest, ByteWidth(s.element_type()));
  }
  return widest;
}

int64_t WidestStreamedInputBytes(const KernelInfo& info, int64_t elements) {
  int64_t widest = 0;
  for (const Shape& s : info.input_shapes) {
    if (s.IsArray() && s.ElementCount() >= elements) {
      widest = std::max<int64_t>(widest, ByteWidth(s.element_type()));
    }
  }
  return widest;
}

absl::StatusOr<ConcatenateHero> ConcatenateHero::Bind(
    const HloInstruction* concat, KernelBuilder& kernel) {
  ConcatenateHero hero;
  hero.current_ = std::make_shared<Current>();
  for (const HloInstruction* operand : concat->operands()) {
    HLOC_ASSIGN_OR_RETURN(ElementGenerator g, kernel.generators().Get(operand));
    hero.current_->operands.push_back(std::move(g));
  }
  std::shared_ptr<Current> current = hero.current_;
  kernel.generators().Bind(
      concat, [current](const IrIndex&) -> absl::StatusOr<llvm::Value*> {
        return current->operands[current->operand](current->index);
      });
  return hero;
}

void ConcatenateHero::Select(size_t operand, const IrIndex& index) {
  current_->operand = operand;
  current_->index = index;
}

llvm::Value* PositionInConcatenate(const HloInstruction* concat, int64_t offset,
                                   const IrIndex& index,
                                   KernelBuilder& kernel) {
  llvm::IRBuilderBase* b = kernel.b();
  const Shape& shape = concat->shape();
  const int64_t dim = concat->dimensions(0);
  llvm::Value* linear = nullptr;
  int64_t stride = 1;
  for (int64_t d = shape.rank() - 1; d >= 0; --d) {
    llvm::Value* c = index[d];
    if (d == dim && offset != 0) {
      c = b->CreateAdd(c, kernel.Index(offset), "", true, true);
    }
    if (stride != 1) c = b->CreateMul(c, kernel.Index(stride), "", true, true);
    linear = linear ? b->CreateAdd(linear, c, "", true, true) : c;
    stride *= shape.dimensions(d);
  }
  return linear != nullptr ? linear : kernel.Index(0);
}

}  // namespace hloc
