#include "backends/gpu/reduction_util.h"

#include <functional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/gpu/register_bits.h"
#include "hlo/instruction.h"
#include "hlo/status_macros.h"
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

std::vector<llvm::Value*> ButterflyOperands(
    KernelBuilder& kernel, const HloComputation& reducer, int mask,
    const std::vector<llvm::Value*>& own,
    const std::vector<llvm::Value*>& other) {
  std::vector<llvm::Value*> operands(own);
  if (MatchSimpleReducer(reducer).has_value()) {
    operands.insert(operands.end(), other.begin(), other.end());
    return operands;
  }
  // The warp is a power of two wider than `mask`, so the lane's bit is the
  // thread id's.
  llvm::IRBuilderBase* b = kernel.b();
  llvm::Value* tid = kernel.ThreadId(0);
  llvm::Value* upper = b->CreateICmpNE(
      b->CreateAnd(tid, llvm::ConstantInt::get(tid->getType(), mask)),
      llvm::ConstantInt::get(tid->getType(), 0), "upper_lane");
  for (size_t k = 0; k < own.size(); ++k) {
    operands[k] = b->CreateSelect(upper, other[k], own[k]);
  }
  for (size_t k = 0; k < own.size(); ++k) {
    operands.push_back(b->CreateSelect(upper, own[k], other[k]));
  }
  return operands;
}

llvm::GlobalVariable* SharedArray(KernelBuilder& kernel, llvm::Type* type,
                                  int64_t count, const std::string& what) {
  llvm::Module* module = kernel.function()->getParent();
  llvm::Type* array = llvm::ArrayType::get(type, count);
  auto* global = new llvm::GlobalVariable(
      *module, array, false, llvm::GlobalValue::InternalLinkage,
      llvm::UndefValue::get(array),
      absl::StrCat(kernel.function()->getName().str(), ".", what), nullptr,
      llvm::GlobalValue::NotThreadLocal,
      kernel.target().shared_address_space());
  // Explicitly 16-byte aligned. Without an alignment of its own, LLVM's
  // optimizer takes an array over 16 bytes to be 16-byte aligned (the
  // preferred alignment of a large global) and merges four f32 accesses
  // into one 16-byte ld.shared.v4, while the NVPTX printer declares the
  // array with its element's alignment: placed after an 8-byte array of
  // pred partials, the f32 partials sat at 0x408 and the vector load
  // faulted (CUDA_ERROR_MISALIGNED_ADDRESS, a row fusion of a pred
  // reduce_or, an f32 sum and an s64 output).
  global->setAlignment(llvm::Align(kSharedArrayAlign));
  return global;
}

llvm::Value* SharedElement(KernelBuilder& kernel, llvm::GlobalVariable* array,
                           llvm::Value* i) {
  return kernel.b()->CreateInBoundsGEP(array->getValueType(), array,
                                       {kernel.Index(0), i});
}

int64_t DimensionsProduct(const Shape& shape,
                          const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= shape.dimensions(d);
  return n;
}

void SplitLinearInto(llvm::Value* x, const Shape& shape,
                     const std::vector<int64_t>& dims,
                     std::vector<llvm::Value*>& index, llvm::IRBuilderBase* b) {
  if (dims.empty()) return;
  std::vector<int64_t> sizes;
  for (int64_t d : dims) sizes.push_back(shape.dimensions(d));
  IrIndex split =
      IrIndex::FromLinear(x, Shape::Array(shape.element_type(), sizes), b);
  for (size_t j = 0; j < dims.size(); ++j) index[dims[j]] = split[j];
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

ReductionOutputWriter::ReductionOutputWriter(KernelBuilder& kernel,
                                             const KernelInfo& info,
                                             const ReductionInfo& r)
    : kernel_(kernel),
      info_(info),
      r_(r),
      results_(std::make_shared<
               absl::flat_hash_map<const HloInstruction*, llvm::Value*>>()) {
  if (r.epilogue_outputs.empty()) return;
  // AnalyzeReduction(allow_epilogue) found every path from an epilogue
  // output to a reduce elementwise, so a reduce is only ever asked for the
  // position being written: the index can be ignored.
  for (const HloInstruction* reduce : r.reduces) {
    if (!reduce->shape().IsArray()) continue;
    auto results = results_;
    kernel.generators().Bind(
        reduce,
        [results, reduce](const IrIndex&) -> absl::StatusOr<llvm::Value*> {
          auto it = results->find(reduce);
          if (it == results->end() || it->second == nullptr) {
            return absl::InternalError(
                absl::StrCat("codegen: the result of ", reduce->name(),
                             " was read outside the reduction's output stage"));
          }
          return it->second;
        });
  }
}

absl::Status ReductionOutputWriter::Write(
    const std::vector<ReduceState>& states, const IrIndex& out_index) {
  llvm::IRBuilderBase* b = kernel_.b();
  for (const ReduceState& s : states) {
    for (size_t k = 0; k < s.n; ++k) {
      llvm::Value* value = b->CreateLoad(s.types[k], s.slots[k]);
      if (s.n == 1) (*results_)[s.reduce] = value;
      if (s.output_of[k] < 0) continue;
      HLOC_RETURN_IF_ERROR(
          kernel_.output(s.output_of[k]).EmitWrite(out_index, value, b));
    }
  }
  for (size_t o : r_.epilogue_outputs) {
    HLOC_ASSIGN_OR_RETURN(ElementGenerator g,
                          kernel_.generators().ForOutput(info_.outputs[o]));
    HLOC_ASSIGN_OR_RETURN(llvm::Value * value, g(out_index));
    HLOC_RETURN_IF_ERROR(kernel_.output(o).EmitWrite(out_index, value, b));
  }
  results_->clear();
  return absl::OkStatus();
}

}  // namespace hloc
