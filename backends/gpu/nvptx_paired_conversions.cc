#include "backends/gpu/nvptx_paired_conversions.h"

#include <vector>

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Instructions.h"
#include "llvm/Transforms/Utils/Local.h"

namespace hloc {
namespace {

// The lanes' f32 values rounded pairwise into a vector of `to` (an even
// number of lanes), inserted before `where`.
llvm::Value* PairedConversion(const std::vector<llvm::Value*>& lanes,
                              llvm::FixedVectorType* to,
                              llvm::Instruction* where) {
  llvm::IRBuilder<> b(where);
  const bool bf16 = to->getElementType()->isBFloatTy();
  // cvt.rn.{bf16,f16}x2.f32 d, a, b puts a's rounding in d's upper half
  // and b's in the lower: lane 2k+1 is a, lane 2k is b, so that d,
  // bitcast to a 2-element vector, holds lane 2k first.
  llvm::InlineAsm* cvt = llvm::InlineAsm::get(
      llvm::FunctionType::get(b.getInt32Ty(), {b.getFloatTy(), b.getFloatTy()},
                              false),
      bf16 ? "cvt.rn.bf16x2.f32 $0, $1, $2;" : "cvt.rn.f16x2.f32 $0, $1, $2;",
      "=r,f,f", /*hasSideEffects=*/false);
  auto* pair_type = llvm::FixedVectorType::get(to->getElementType(), 2);
  llvm::Value* result = llvm::PoisonValue::get(to);
  for (size_t k = 0; k < lanes.size(); k += 2) {
    llvm::CallInst* packed = b.CreateCall(cvt, {lanes[k + 1], lanes[k]});
    packed->setDoesNotAccessMemory();
    llvm::Value* pair = b.CreateBitCast(packed, pair_type);
    for (int half = 0; half < 2; ++half) {
      result = b.CreateInsertElement(
          result, b.CreateExtractElement(pair, b.getInt32(half)),
          b.getInt32(k + half));
    }
  }
  return result;
}

// A narrow vector whose lanes are all scalar f32 conversions, gathered by
// a chain of insertelements (what the load/store vectorizer makes of a
// run's scalar stores): the conversions' f32 operands by lane, or empty.
std::vector<llvm::Value*> ConvertedLanes(llvm::Value* vector,
                                         llvm::FixedVectorType* type) {
  std::vector<llvm::Value*> lanes(type->getNumElements(), nullptr);
  while (auto* insert = llvm::dyn_cast<llvm::InsertElementInst>(vector)) {
    auto* index = llvm::dyn_cast<llvm::ConstantInt>(insert->getOperand(2));
    auto* trunc = llvm::dyn_cast<llvm::FPTruncInst>(insert->getOperand(1));
    if (index == nullptr || trunc == nullptr ||
        !trunc->getSrcTy()->isFloatTy()) {
      return {};
    }
    const uint64_t lane = index->getZExtValue();
    if (lane < lanes.size() && lanes[lane] == nullptr) {
      lanes[lane] = trunc->getOperand(0);
    }
    vector = insert->getOperand(0);
  }
  if (!llvm::isa<llvm::PoisonValue, llvm::UndefValue>(vector)) return {};
  for (llvm::Value* lane : lanes) {
    if (lane == nullptr) return {};
  }
  return lanes;
}

bool IsNarrowPairable(llvm::Type* type) {
  auto* vector = llvm::dyn_cast<llvm::FixedVectorType>(type);
  if (vector == nullptr || vector->getNumElements() % 2 != 0) return false;
  return vector->getElementType()->isBFloatTy() ||
         vector->getElementType()->isHalfTy();
}

}  // namespace

int PairNarrowingConversions(llvm::Module& module) {
  std::vector<llvm::StoreInst*> stores;
  for (llvm::Function& function : module) {
    for (llvm::BasicBlock& block : function) {
      for (llvm::Instruction& inst : block) {
        auto* store = llvm::dyn_cast<llvm::StoreInst>(&inst);
        if (store != nullptr &&
            IsNarrowPairable(store->getValueOperand()->getType())) {
          stores.push_back(store);
        }
      }
    }
  }
  int rewritten = 0;
  for (llvm::StoreInst* store : stores) {
    llvm::Value* value = store->getValueOperand();
    auto* type = llvm::cast<llvm::FixedVectorType>(value->getType());
    std::vector<llvm::Value*> lanes = ConvertedLanes(value, type);
    if (lanes.empty()) continue;
    store->setOperand(0, PairedConversion(lanes, type, store));
    // The old chain and its conversions, now unused.
    llvm::RecursivelyDeleteTriviallyDeadInstructions(value);
    ++rewritten;
  }
  return rewritten;
}

}  // namespace hloc
