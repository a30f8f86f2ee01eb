#include "backends/cpu/kernel_util.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "backends/common/ir_array.h"
#include "backends/cpu/ir_emitter.h"
#include "hlo/computation.h"
#include "hlo/status_macros.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"

namespace hloc {

absl::Status OpUnimplemented(const HloInstruction& hlo, absl::string_view why) {
  return absl::UnimplementedError(absl::StrCat(
      "CPU codegen: ", std::string(why), " (", hlo.ToShortString(), ")"));
}

llvm::Function* CreateRangeFunction(llvm::Module* module,
                                    const std::string& name,
                                    int64_t num_buffers) {
  llvm::LLVMContext& ctx = module->getContext();
  std::vector<llvm::Type*> params(num_buffers, llvm::PointerType::get(ctx, 0));
  params.push_back(llvm::Type::getInt64Ty(ctx));
  params.push_back(llvm::Type::getInt64Ty(ctx));
  llvm::Function* fn = llvm::Function::Create(
      llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), params, false),
      llvm::GlobalValue::InternalLinkage, name, module);
  fn->setDoesNotThrow();
  for (int64_t i = 0; i < num_buffers; ++i) {
    fn->addParamAttr(i, llvm::Attribute::NoAlias);
    fn->addParamAttr(i, llvm::Attribute::NoCapture);
  }
  llvm::BasicBlock::Create(ctx, "entry", fn);
  return fn;
}

namespace {

std::vector<llvm::Value*> LoadBuffers(llvm::Value* buffers, int64_t n,
                                      llvm::IRBuilderBase* b) {
  llvm::Type* ptr = b->getPtrTy();
  std::vector<llvm::Value*> out;
  for (int64_t i = 0; i < n; ++i) {
    out.push_back(
        b->CreateLoad(ptr, b->CreateConstInBoundsGEP1_64(ptr, buffers, i)));
  }
  return out;
}

// `void name(ptr buffers)` for GOMP_parallel: this thread's share of
// [0, work_items).
llvm::Function* EmitOmpOutlined(llvm::Module* module, const std::string& name,
                                llvm::Function* range, int64_t num_buffers,
                                int64_t work_items) {
  llvm::LLVMContext& ctx = module->getContext();
  llvm::Type* ptr = llvm::PointerType::get(ctx, 0);
  llvm::Type* i32 = llvm::Type::getInt32Ty(ctx);
  llvm::Function* fn = llvm::Function::Create(
      llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {ptr}, false),
      llvm::GlobalValue::InternalLinkage, name, module);
  fn->setDoesNotThrow();
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", fn));
  llvm::FunctionCallee thread_num = module->getOrInsertFunction(
      "omp_get_thread_num", llvm::FunctionType::get(i32, {}, false));
  llvm::FunctionCallee num_threads = module->getOrInsertFunction(
      "omp_get_num_threads", llvm::FunctionType::get(i32, {}, false));
  llvm::Value* tid = b.CreateSExt(b.CreateCall(thread_num), b.getInt64Ty());
  llvm::Value* nt = b.CreateSExt(b.CreateCall(num_threads), b.getInt64Ty());
  llvm::Value* total = b.getInt64(work_items);
  llvm::Value* lo = b.CreateUDiv(b.CreateMul(total, tid), nt);
  llvm::Value* hi =
      b.CreateUDiv(b.CreateMul(total, b.CreateAdd(tid, b.getInt64(1))), nt);
  std::vector<llvm::Value*> args = LoadBuffers(fn->getArg(0), num_buffers, &b);
  args.push_back(lo);
  args.push_back(hi);
  b.CreateCall(range, args);
  b.CreateRetVoid();
  return fn;
}

}  // namespace

void EmitKernelEntry(llvm::Module* module, const std::string& symbol,
                     int64_t num_buffers,
                     const std::vector<KernelLoop>& loops) {
  llvm::LLVMContext& ctx = module->getContext();
  llvm::Type* ptr = llvm::PointerType::get(ctx, 0);
  llvm::Function* kernel = llvm::Function::Create(
      llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {ptr}, false),
      llvm::GlobalValue::ExternalLinkage, symbol, module);
  kernel->setDoesNotThrow();
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", kernel));
  llvm::Value* buffers = kernel->getArg(0);
  for (size_t i = 0; i < loops.size(); ++i) {
    const KernelLoop& loop = loops[i];
    if (loop.work_items == 0) continue;
    if (loop.parallel && loop.work_items >= 2) {
      llvm::Function* outlined =
          EmitOmpOutlined(module, absl::StrCat(symbol, ".loop", i, ".omp"),
                          loop.range, num_buffers, loop.work_items);
      llvm::FunctionCallee gomp = module->getOrInsertFunction(
          "GOMP_parallel",
          llvm::FunctionType::get(b.getVoidTy(),
                                  {ptr, ptr, b.getInt32Ty(), b.getInt32Ty()},
                                  false));
      b.CreateCall(gomp, {outlined, buffers, b.getInt32(0), b.getInt32(0)});
      continue;
    }
    std::vector<llvm::Value*> args = LoadBuffers(buffers, num_buffers, &b);
    args.push_back(b.getInt64(0));
    args.push_back(b.getInt64(loop.work_items));
    b.CreateCall(loop.range, args);
  }
  b.CreateRetVoid();
}

llvm::FastMathFlags ReductionFastMathFlags(const HloComputation& combiner) {
  llvm::FastMathFlags flags;
  flags.setAllowReassoc();
  for (const HloInstruction* hlo : combiner.instructions()) {
    switch (hlo->opcode()) {
      case HloOpcode::kAdd:
      case HloOpcode::kSubtract:
      case HloOpcode::kMultiply:
      case HloOpcode::kDivide:
        return flags;
      default:
        break;
    }
  }
  flags.setNoSignedZeros();
  return flags;
}

bool ShouldRunParallel(const CpuCodegenOptions& options, int64_t work_items,
                       int64_t elements) {
  return options.parallel && work_items >= 2 &&
         elements >= options.min_parallel_elements;
}

llvm::Value* EmitAlignedMalloc(llvm::Value* bytes, llvm::IRBuilderBase* b) {
  llvm::Module* module = b->GetInsertBlock()->getModule();
  llvm::Type* i64 = b->getInt64Ty();
  llvm::FunctionCallee fn = module->getOrInsertFunction(
      "aligned_alloc",
      llvm::FunctionType::get(b->getPtrTy(), {i64, i64}, false));
  // A multiple of 64 (aligned_alloc's contract), never 0.
  llvm::Value* rounded = b->CreateAnd(b->CreateAdd(bytes, b->getInt64(64)),
                                      b->getInt64(~int64_t{63}));
  return b->CreateCall(fn, {b->getInt64(64), rounded});
}

void EmitFree(llvm::Value* pointer, llvm::IRBuilderBase* b) {
  llvm::Module* module = b->GetInsertBlock()->getModule();
  llvm::FunctionCallee fn = module->getOrInsertFunction(
      "free", llvm::FunctionType::get(b->getVoidTy(), {b->getPtrTy()}, false));
  b->CreateCall(fn, {pointer});
}

absl::Status EmitWhileLoop(
    absl::string_view name, llvm::Value* start, llvm::Value* end,
    const std::function<absl::StatusOr<llvm::Value*>(llvm::Value*)>& body,
    llvm::IRBuilderBase* b) {
  std::string n(name);
  llvm::LLVMContext& ctx = b->getContext();
  llvm::BasicBlock* preheader = b->GetInsertBlock();
  llvm::Function* f = preheader->getParent();
  llvm::BasicBlock* header = llvm::BasicBlock::Create(ctx, n + ".header", f);
  llvm::BasicBlock* body_bb = llvm::BasicBlock::Create(ctx, n + ".body", f);
  llvm::BasicBlock* exit = llvm::BasicBlock::Create(ctx, n + ".exit", f);
  b->CreateBr(header);
  b->SetInsertPoint(header);
  llvm::PHINode* iv = b->CreatePHI(start->getType(), 2, n + ".iv");
  iv->addIncoming(start, preheader);
  b->CreateCondBr(b->CreateICmpSLT(iv, end), body_bb, exit);
  b->SetInsertPoint(body_bb);
  HLOC_ASSIGN_OR_RETURN(llvm::Value * next, body(iv));
  iv->addIncoming(next, b->GetInsertBlock());
  b->CreateBr(header);
  b->SetInsertPoint(exit);
  return absl::OkStatus();
}

void DisableLoopUnrolling(llvm::Function* fn) {
  llvm::DominatorTree dom(*fn);
  llvm::LoopInfo loops(dom);
  llvm::LLVMContext& ctx = fn->getContext();
  for (llvm::Loop* loop : loops.getLoopsInPreorder()) {
    llvm::MDNode* disable = llvm::MDNode::get(
        ctx, llvm::MDString::get(ctx, "llvm.loop.unroll.disable"));
    llvm::TempMDTuple placeholder = llvm::MDNode::getTemporary(ctx, {});
    llvm::MDNode* id = llvm::MDNode::get(ctx, {placeholder.get(), disable});
    id->replaceOperandWith(0, id);
    loop->setLoopID(id);
  }
}

absl::StatusOr<llvm::Value*> LoadFlat(PrimitiveType type, llvm::Value* base,
                                      llvm::Value* offset,
                                      llvm::IRBuilderBase* b) {
  HLOC_ASSIGN_OR_RETURN(llvm::Type * storage,
                        StorageType(type, b->getContext()));
  llvm::Value* v =
      b->CreateLoad(storage, b->CreateInBoundsGEP(storage, base, offset));
  if (type == PRED) v = b->CreateICmpNE(v, llvm::ConstantInt::get(storage, 0));
  return v;
}

absl::Status StoreFlat(PrimitiveType type, llvm::Value* base,
                       llvm::Value* offset, llvm::Value* value,
                       llvm::IRBuilderBase* b) {
  HLOC_ASSIGN_OR_RETURN(llvm::Type * storage,
                        StorageType(type, b->getContext()));
  if (type == PRED) value = b->CreateZExt(value, storage);
  b->CreateStore(value, b->CreateInBoundsGEP(storage, base, offset));
  return absl::OkStatus();
}

DimGroup::DimGroup(std::vector<int64_t> sizes, std::vector<int64_t> strides)
    : sizes_(std::move(sizes)), strides_(std::move(strides)) {
  // Size-1 dimensions never move the offset.
  std::vector<int64_t> s, t;
  for (size_t i = 0; i < sizes_.size(); ++i) {
    size_ *= sizes_[i];
    if (sizes_[i] != 1) {
      s.push_back(sizes_[i]);
      t.push_back(strides_[i]);
    }
  }
  collapsed_stride_ = t.empty() ? 0 : t.back();
  for (size_t i = 0; i + 1 < s.size(); ++i) {
    if (t[i] != t[i + 1] * s[i + 1]) collapsed_stride_ = -1;
  }
}

llvm::Value* DimGroup::Offset(llvm::Value* x, llvm::IRBuilderBase* b) const {
  if (collapsed_stride_ >= 0) {
    if (collapsed_stride_ == 1) return x;
    return b->CreateMul(x, b->getInt64(collapsed_stride_), "", true, true);
  }
  std::vector<llvm::Value*> idx = Split(x, b);
  llvm::Value* offset = b->getInt64(0);
  for (size_t i = 0; i < idx.size(); ++i) {
    if (sizes_[i] == 1) continue;
    offset = b->CreateAdd(
        offset, b->CreateMul(idx[i], b->getInt64(strides_[i]), "", true, true),
        "", true, true);
  }
  return offset;
}

std::vector<llvm::Value*> DimGroup::Split(llvm::Value* x,
                                          llvm::IRBuilderBase* b) const {
  std::vector<llvm::Value*> idx(sizes_.size());
  int64_t inner = 1;
  for (int64_t i = static_cast<int64_t>(sizes_.size()) - 1; i >= 0; --i) {
    if (sizes_[i] == 1) {
      idx[i] = b->getInt64(0);
      continue;
    }
    llvm::Value* v = inner == 1 ? x : b->CreateUDiv(x, b->getInt64(inner));
    bool outermost = true;
    for (int64_t j = 0; j < i; ++j) outermost &= sizes_[j] == 1;
    if (!outermost) v = b->CreateURem(v, b->getInt64(sizes_[i]));
    idx[i] = v;
    inner *= sizes_[i];
  }
  return idx;
}

}  // namespace hloc
