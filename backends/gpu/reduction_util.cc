#include "backends/gpu/reduction_util.h"

#include <functional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/gpu/register_bits.h"
#include "hlo/instruction.h"
#include "llvm/IR/Module.h"

namespace hloc {

namespace {

// `value` (any register type, complex structs included) moved between lanes
// by `shuffle`, which moves one i32: split into 32-bit pieces, each shuffled.
llvm::Value* ShuffleWords(
    KernelBuilder& kernel, llvm::Value* value,
    const std::function<llvm::Value*(llvm::Value*)>& shuffle) {
  llvm::IRBuilderBase* b = kernel.b();
  const llvm::DataLayout& dl = kernel.function()->getParent()->getDataLayout();
  unsigned bits = RegisterBits(value->getType(), dl);
  unsigned words = (bits + 31) / 32;
  llvm::Type* int_type = b->getIntNTy(bits);
  llvm::Type* wide_type = b->getIntNTy(words * 32);
  llvm::Value* x = b->CreateZExt(PackBits(b, dl, value), wide_type);
  llvm::Value* result = llvm::ConstantInt::get(wide_type, 0);
  for (unsigned w = 0; w < words; ++w) {
    llvm::Value* piece = b->CreateTrunc(
        b->CreateLShr(x, llvm::ConstantInt::get(wide_type, 32 * w)),
        b->getInt32Ty());
    llvm::Value* shuffled = shuffle(piece);
    result = b->CreateOr(
        result, b->CreateShl(b->CreateZExt(shuffled, wide_type),
                             llvm::ConstantInt::get(wide_type, 32 * w)));
  }
  return UnpackBits(b, dl, b->CreateTrunc(result, int_type), value->getType());
}

}  // namespace

llvm::Value* ShuffleXor(KernelBuilder& kernel, llvm::Value* value, int mask) {
  return ShuffleWords(kernel, value, [&](llvm::Value* piece) {
    return kernel.target().EmitShuffleXorI32(piece, mask, kernel.b());
  });
}

llvm::Value* ShuffleUp(KernelBuilder& kernel, llvm::Value* value, int delta) {
  return ShuffleWords(kernel, value, [&](llvm::Value* piece) {
    return kernel.target().EmitShuffleUpI32(piece, delta, kernel.b());
  });
}

llvm::Value* ShuffleIndex(KernelBuilder& kernel, llvm::Value* value,
                          int source_lane) {
  return ShuffleWords(kernel, value, [&](llvm::Value* piece) {
    return kernel.target().EmitShuffleIndexI32(piece, source_lane, kernel.b());
  });
}

llvm::GlobalVariable* SharedArray(KernelBuilder& kernel, llvm::Type* type,
                                  int64_t count, const std::string& what) {
  llvm::Module* module = kernel.function()->getParent();
  llvm::Type* array = llvm::ArrayType::get(type, count);
  return new llvm::GlobalVariable(
      *module, array, false, llvm::GlobalValue::InternalLinkage,
      llvm::UndefValue::get(array),
      absl::StrCat(kernel.function()->getName().str(), ".", what), nullptr,
      llvm::GlobalValue::NotThreadLocal,
      kernel.target().shared_address_space());
}

llvm::Value* SharedElement(KernelBuilder& kernel, llvm::GlobalVariable* array,
                           llvm::Value* i) {
  return kernel.b()->CreateInBoundsGEP(array->getValueType(), array,
                                       {kernel.Index(0), i});
}

bool ReadAtOutputPositionOnly(const HloInstruction* value,
                              const HloInstruction* root) {
  std::vector<const HloInstruction*> work = {value};
  while (!work.empty()) {
    const HloInstruction* v = work.back();
    work.pop_back();
    if (v == root) continue;
    if (v->users().empty()) return false;
    for (const HloInstruction* user : v->users()) {
      if (!user->IsElementwise() || !user->shape().IsArray() ||
          !user->shape().SameDimensions(root->shape())) {
        return false;
      }
      work.push_back(user);
    }
  }
  return true;
}

}  // namespace hloc
