#include "backends/gpu/atomic_combine.h"

#include "backends/gpu/register_bits.h"
#include "hlo/status_macros.h"
#include "llvm/IR/Module.h"

namespace hloc {
namespace {

// The atomicrmw that computes `opcode(old, update)` in place, if any. Float
// min/max have none we use (XLA's propagate NaN, which atomicrmw's fmax
// and fmin do not): EmitFloatMinMax does them with integer atomics.
llvm::AtomicRMWInst::BinOp AtomicOp(HloOpcode opcode, PrimitiveType type) {
  // A complex sum is two independent sums of its parts (EmitCombine issues
  // one atomicrmw per part). Half-precision sums are 16-bit atomic adds
  // (sm_90's atom.add.noftz.bf16, sm_70's .f16; elsewhere LLVM expands them
  // into a compare-and-swap of the 32-bit word): each add rounds once, as
  // the serial walk's does, and an embedding gradient's duplicated rows
  // no longer serialise on a thread per column (gpt_block_train_step's
  // bf16 scatter took 0.25 ms on an H200 that way, session 29).
  const bool is_float = type == F32 || type == F64 || type == F16 ||
                        type == BF16 || IsComplexType(type);
  const bool is_int = type == S32 || type == U32 || type == S64 || type == U64;
  const bool is_signed = type == S32 || type == S64;
  switch (opcode) {
    case HloOpcode::kAdd:
      if (is_float) return llvm::AtomicRMWInst::FAdd;
      if (is_int) return llvm::AtomicRMWInst::Add;
      break;
    case HloOpcode::kMaximum:
      if (is_int) {
        return is_signed ? llvm::AtomicRMWInst::Max : llvm::AtomicRMWInst::UMax;
      }
      break;
    case HloOpcode::kMinimum:
      if (is_int) {
        return is_signed ? llvm::AtomicRMWInst::Min : llvm::AtomicRMWInst::UMin;
      }
      break;
    default:
      break;
  }
  return llvm::AtomicRMWInst::BAD_BINOP;
}

// *ptr = combine(*ptr, update) by compare-and-swap, retried until no other
// thread changed the element in between. An element of 8 or 16 bits is
// swapped as the aligned 32-bit word that holds it, its neighbours written
// back as they were read (every buffer starts 64-byte aligned, so the word
// never leaves the buffer's allocation). No swap is made where the
// combined value equals the old one: the update changed nothing at the
// moment of the load, which is when it takes effect. Updates that meet on
// few elements mostly end that way once an element settles (a maximum, an
// and, an or): 60000 HyperLogLog updates of 16 u8 registers, serialised by
// an ordered walk before (session 39), retry only while a register is
// still rising.
absl::Status EmitCompareAndSwap(
    llvm::Value* ptr, llvm::Type* type, llvm::Value* update,
    const std::function<absl::StatusOr<llvm::Value*>(llvm::Value*,
                                                     llvm::Value*)>& combine,
    llvm::SyncScope::ID scope, llvm::IRBuilderBase* b) {
  const llvm::DataLayout& dl = b->GetInsertBlock()->getModule()->getDataLayout();
  const unsigned width = RegisterBits(type, dl);
  llvm::Type* bits = b->getIntNTy(width);
  const bool narrow = width < 32;
  llvm::Type* word = narrow ? b->getInt32Ty() : bits;
  llvm::Value* word_ptr = ptr;
  llvm::Value* shift = nullptr;  // the element's bit offset in its word
  llvm::Value* keep = nullptr;   // the neighbours' bits of the word
  if (narrow) {
    // Little-endian (NVPTX and AMDGPU): byte k of the word is bits 8k..
    llvm::Value* byte =
        b->CreateAnd(b->CreatePtrToInt(ptr, b->getInt64Ty()), b->getInt64(3));
    word_ptr = b->CreateGEP(b->getInt8Ty(), ptr, b->CreateNeg(byte));
    shift = b->CreateTrunc(b->CreateShl(byte, 3), word);
    keep = b->CreateNot(b->CreateShl(
        llvm::ConstantInt::get(word, llvm::APInt::getLowBitsSet(32, width)),
        shift));
  }
  auto element_of = [&](llvm::Value* w) {
    return narrow ? b->CreateTrunc(b->CreateLShr(w, shift), bits) : w;
  };
  llvm::Function* fn = b->GetInsertBlock()->getParent();
  llvm::LLVMContext& ctx = b->getContext();
  llvm::LoadInst* initial = b->CreateLoad(word, word_ptr);
  if (narrow) initial->setAlignment(llvm::Align(4));
  llvm::BasicBlock* entry = b->GetInsertBlock();
  llvm::BasicBlock* loop = llvm::BasicBlock::Create(ctx, "cas.loop", fn);
  llvm::BasicBlock* swap = llvm::BasicBlock::Create(ctx, "cas.swap", fn);
  llvm::BasicBlock* done = llvm::BasicBlock::Create(ctx, "cas.done", fn);
  b->CreateBr(loop);
  b->SetInsertPoint(loop);
  llvm::PHINode* old = b->CreatePHI(word, 2);
  old->addIncoming(initial, entry);
  llvm::Value* old_bits = element_of(old);
  HLOC_ASSIGN_OR_RETURN(llvm::Value * value,
                        combine(UnpackBits(b, dl, old_bits, type), update));
  llvm::Value* new_bits = PackBits(b, dl, value);
  b->CreateCondBr(b->CreateICmpEQ(new_bits, old_bits), done, swap);

  b->SetInsertPoint(swap);
  llvm::Value* new_word = new_bits;
  if (narrow) {
    new_word = b->CreateOr(b->CreateAnd(old, keep),
                           b->CreateShl(b->CreateZExt(new_bits, word), shift));
  }
  llvm::Value* pair = b->CreateAtomicCmpXchg(
      word_ptr, old, new_word,
      narrow ? llvm::MaybeAlign(4) : llvm::MaybeAlign(),
      llvm::AtomicOrdering::Monotonic, llvm::AtomicOrdering::Monotonic, scope);
  old->addIncoming(b->CreateExtractValue(pair, {0}), b->GetInsertBlock());
  b->CreateCondBr(b->CreateExtractValue(pair, {1}), done, loop);
  b->SetInsertPoint(done);
  return absl::OkStatus();
}

// *ptr = maximum(*ptr, update) (or minimum) for f32/f64, NaN propagating as
// XLA's kMaximum/kMinimum do, without a compare-and-swap loop, which every
// update that loses a race to its element retries (5000 updates meet on
// each element of one row in zoo scatter_segment_histograms). An IEEE float
// with its sign clear orders as its bits do as a signed integer; one with
// its sign set orders in reverse of its bits as an unsigned integer, and
// every such pattern is above every positive one. So for a maximum a
// positive update is a signed integer max (any negative value, signed,
// loses to it) and a negative update an unsigned integer min (any positive
// value, unsigned, is below it and stays); a minimum is the mirror image.
// A NaN update becomes the one NaN each op can never replace (all bits but
// the sign for a maximum: the largest signed value; all bits for a
// minimum: the largest unsigned), which the same atomics store. An element
// that is NaN already is left alone (checked by a load first): only the
// operand's own NaNs, of either sign, could otherwise be replaced, and the
// stored NaN needs no more atomics. -0 and +0 are ordered (+0 above -0),
// one of the results the orders duplicates may meet in give anyway.
absl::Status EmitFloatMinMax(llvm::Value* ptr, llvm::Value* update,
                             bool maximum, llvm::SyncScope::ID scope,
                             llvm::IRBuilderBase* b) {
  llvm::Type* type = update->getType();
  const unsigned width = type->getPrimitiveSizeInBits();
  if (!type->isFloatTy() && !type->isDoubleTy()) {
    return absl::InternalError("float min/max atomic of a non-f32/f64 value");
  }
  llvm::IntegerType* bits = b->getIntNTy(width);
  llvm::Function* fn = b->GetInsertBlock()->getParent();
  llvm::LLVMContext& ctx = b->getContext();
  llvm::BasicBlock* apply = llvm::BasicBlock::Create(ctx, "minmax.apply", fn);
  llvm::BasicBlock* positive =
      llvm::BasicBlock::Create(ctx, "minmax.positive", fn);
  llvm::BasicBlock* negative =
      llvm::BasicBlock::Create(ctx, "minmax.negative", fn);
  llvm::BasicBlock* done = llvm::BasicBlock::Create(ctx, "minmax.done", fn);
  const llvm::Align align(width / 8);
  llvm::LoadInst* old = b->CreateAlignedLoad(bits, ptr, align);
  old->setAtomic(llvm::AtomicOrdering::Monotonic, scope);
  llvm::Value* old_value = b->CreateBitCast(old, type);
  b->CreateCondBr(b->CreateFCmpUNO(old_value, old_value), done, apply);

  b->SetInsertPoint(apply);
  const llvm::APInt ones = llvm::APInt::getAllOnes(width);
  llvm::Value* nan = b->getInt(maximum ? ones.lshr(1) : ones);
  llvm::Value* value = b->CreateSelect(b->CreateFCmpUNO(update, update), nan,
                                       b->CreateBitCast(update, bits));
  b->CreateCondBr(b->CreateICmpSLT(value, llvm::ConstantInt::get(bits, 0)),
                  negative, positive);

  b->SetInsertPoint(positive);
  b->CreateAtomicRMW(
      maximum ? llvm::AtomicRMWInst::Max : llvm::AtomicRMWInst::Min, ptr, value,
      align, llvm::AtomicOrdering::Monotonic, scope);
  b->CreateBr(done);

  b->SetInsertPoint(negative);
  b->CreateAtomicRMW(
      maximum ? llvm::AtomicRMWInst::UMin : llvm::AtomicRMWInst::UMax, ptr,
      value, align, llvm::AtomicOrdering::Monotonic, scope);
  b->CreateBr(done);

  b->SetInsertPoint(done);
  return absl::OkStatus();
}

}  // namespace

CombinePlan PlanCombine(const HloComputation* combiner, PrimitiveType type,
                        bool exclusive) {
  if (exclusive) return {Combine::kPlain};
  const HloInstruction* root = combiner->root_instruction();
  if (root->opcode() == HloOpcode::kParameter &&
      root->parameter_number() == 1) {
    return {Combine::kStore};
  }
  if (root->operand_count() == 2 &&
      root->operand(0)->opcode() == HloOpcode::kParameter &&
      root->operand(1)->opcode() == HloOpcode::kParameter &&
      root->operand(0) != root->operand(1)) {
    llvm::AtomicRMWInst::BinOp op = AtomicOp(root->opcode(), type);
    if (op != llvm::AtomicRMWInst::BAD_BINOP) return {Combine::kAtomicRmw, op};
    if ((type == F32 || type == F64) &&
        (root->opcode() == HloOpcode::kMaximum ||
         root->opcode() == HloOpcode::kMinimum)) {
      return {Combine::kFloatMinMax, root->opcode() == HloOpcode::kMaximum
                                         ? llvm::AtomicRMWInst::Max
                                         : llvm::AtomicRMWInst::Min};
    }
  }
  // 8/16-bit types swap the 32-bit word that holds them. PRED (an i1 in
  // registers, a byte in memory) and sub-byte integers keep the caller's
  // ordered walk.
  const int64_t bytes = ByteWidth(type);
  const bool narrow = type == S8 || type == U8 || type == S16 || type == U16 ||
                      type == F16 || type == BF16;
  if (narrow || (type != PRED && (bytes == 4 || bytes == 8))) {
    return {Combine::kCompareAndSwap};
  }
  return {Combine::kNone};
}

absl::Status EmitCombine(KernelBuilder& kernel, const CombinePlan& plan,
                         const HloComputation* combiner, const IrArray& out,
                         const IrIndex& index, llvm::Value* update) {
  llvm::IRBuilderBase* b = kernel.b();
  const llvm::SyncScope::ID scope =
      b->getContext().getOrInsertSyncScopeID(kernel.target().atomic_scope());
  auto combine = [&](llvm::Value* old, llvm::Value* upd) {
    return kernel.elemental()->EmitScalarComputation(combiner, {old, upd});
  };
  switch (plan.how) {
    case Combine::kStore:
      return out.EmitWrite(index, update, b);
    case Combine::kAtomicRmw: {
      llvm::Value* ptr = out.EmitElementPointer(index, b);
      auto* parts = llvm::dyn_cast<llvm::StructType>(update->getType());
      if (parts == nullptr) {
        b->CreateAtomicRMW(plan.op, ptr, update, llvm::MaybeAlign(),
                           llvm::AtomicOrdering::Monotonic, scope);
        return absl::OkStatus();
      }
      // A complex add: each part on its own (AtomicOp).
      for (unsigned i = 0; i < parts->getNumElements(); ++i) {
        b->CreateAtomicRMW(plan.op, b->CreateStructGEP(parts, ptr, i),
                           b->CreateExtractValue(update, i), llvm::MaybeAlign(),
                           llvm::AtomicOrdering::Monotonic, scope);
      }
      return absl::OkStatus();
    }
    case Combine::kFloatMinMax:
      return EmitFloatMinMax(out.EmitElementPointer(index, b), update,
                             plan.op == llvm::AtomicRMWInst::Max, scope, b);
    case Combine::kCompareAndSwap:
      return EmitCompareAndSwap(out.EmitElementPointer(index, b),
                                update->getType(), update, combine, scope, b);
    case Combine::kPlain:
    case Combine::kNone: {
      HLOC_ASSIGN_OR_RETURN(llvm::Value * old, out.EmitRead(index, b));
      HLOC_ASSIGN_OR_RETURN(llvm::Value * value, combine(old, update));
      return out.EmitWrite(index, value, b);
    }
  }
  return absl::OkStatus();
}

}  // namespace hloc
