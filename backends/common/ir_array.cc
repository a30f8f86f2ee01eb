#include "backends/common/ir_array.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "backends/common/complex_emitter.h"
#include "hlo/float8.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Type.h"

namespace hloc {

absl::StatusOr<llvm::Type*> StorageType(PrimitiveType type,
                                        llvm::LLVMContext& context) {
  // Bits: LLVM has no 8-bit float type (backends/common/float8_convert).
  if (IsFloat8Type(type)) return llvm::Type::getInt8Ty(context);
  switch (type) {
    case PRED:
    case S2:
    case S4:
    case S8:
    case U2:
    case U4:
    case U8:
      return llvm::Type::getInt8Ty(context);
    case S16:
    case U16:
      return llvm::Type::getInt16Ty(context);
    case S32:
    case U32:
      return llvm::Type::getInt32Ty(context);
    case S64:
    case U64:
      return llvm::Type::getInt64Ty(context);
    case F16:
      return llvm::Type::getHalfTy(context);
    case BF16:
      return llvm::Type::getBFloatTy(context);
    case F32:
      return llvm::Type::getFloatTy(context);
    case F64:
      return llvm::Type::getDoubleTy(context);
    case C64:
      return ComplexStructType(llvm::Type::getFloatTy(context));
    case C128:
      return ComplexStructType(llvm::Type::getDoubleTy(context));
    default:
      return absl::UnimplementedError(
          absl::StrCat("code generation does not support element type ",
                       std::string(PrimitiveTypeName(type))));
  }
}

absl::StatusOr<llvm::Type*> RegisterType(PrimitiveType type,
                                         llvm::LLVMContext& context) {
  if (type == PRED) return llvm::Type::getInt1Ty(context);
  return StorageType(type, context);
}

llvm::Value* EmitWrapSubByte(llvm::Value* value, PrimitiveType type,
                             llvm::IRBuilderBase* b) {
  if (!IsSubByteIntegralType(type)) return value;
  llvm::Type* narrow = b->getIntNTy(BitWidth(type));
  if (auto* vector = llvm::dyn_cast<llvm::VectorType>(value->getType())) {
    narrow = llvm::VectorType::get(narrow, vector->getElementCount());
  }
  llvm::Value* low = b->CreateTrunc(value, narrow);
  return IsSignedIntegralType(type) ? b->CreateSExt(low, value->getType())
                                    : b->CreateZExt(low, value->getType());
}

IrIndex::IrIndex(std::vector<llvm::Value*> multidim, llvm::Type* index_type)
    : multidim_(std::move(multidim)), index_type_(index_type) {}

IrIndex::IrIndex(std::vector<llvm::Value*> multidim, llvm::Value* linear,
                 const Shape& shape, llvm::Type* index_type)
    : multidim_(std::move(multidim)),
      linear_(linear),
      linear_multidim_(multidim_),
      linear_dims_(shape.dimensions()),
      linear_minor_to_major_(shape.MinorToMajor()),
      index_type_(index_type) {}

IrIndex IrIndex::KeepingOrigin(std::vector<llvm::Value*> multidim,
                               const IrIndex& from) {
  IrIndex index(std::move(multidim), from.index_type_);
  index.linear_ = from.linear_;
  index.linear_multidim_ = from.linear_multidim_;
  index.linear_dims_ = from.linear_dims_;
  index.linear_minor_to_major_ = from.linear_minor_to_major_;
  return index;
}

IrIndex IrIndex::Scalar(llvm::Type* index_type) {
  return IrIndex(std::vector<llvm::Value*>{}, index_type);
}

IrIndex IrIndex::FromLinear(llvm::Value* linear, const Shape& shape,
                            llvm::IRBuilderBase* b) {
  std::vector<int64_t> strides = LayoutStrides(shape);
  std::vector<int64_t> minor_to_major = shape.MinorToMajor();
  std::vector<llvm::Value*> multidim(shape.rank());
  llvm::Type* type = linear->getType();
  for (int64_t i = 0; i < shape.rank(); ++i) {
    int64_t d = minor_to_major[i];
    if (shape.dimensions(d) == 1) {
      multidim[d] = llvm::ConstantInt::get(type, 0);
      continue;
    }
    llvm::Value* v = linear;
    if (strides[d] != 1) {
      v = b->CreateUDiv(v, llvm::ConstantInt::get(type, strides[d]));
    }
    // The most major dimension needs no wrap-around.
    if (i + 1 < shape.rank()) {
      v = b->CreateURem(v, llvm::ConstantInt::get(type, shape.dimensions(d)));
    }
    multidim[d] = v;
  }
  return IrIndex(std::move(multidim), linear, shape, type);
}

bool IrIndex::LinearValidOn(const Shape& shape) const {
  return linear_ != nullptr && linear_dims_ == shape.dimensions() &&
         linear_minor_to_major_ == shape.MinorToMajor() &&
         multidim_ == linear_multidim_;
}

IrArray::IrArray(llvm::Value* base, const Shape& shape)
    : base_(base), shape_(shape), strides_(LayoutStrides(shape)) {}

IrArray IrArray::Window(llvm::Value* base, const Shape& shape,
                        llvm::Value* origin) {
  IrArray array(base, shape);
  array.origin_ = origin;
  return array;
}

llvm::Value* IrArray::EmitLinearOffset(const IrIndex& index,
                                       llvm::IRBuilderBase* b) const {
  llvm::Value* offset = EmitBufferOffset(index, b);
  if (origin_ == nullptr) return offset;
  return b->CreateSub(offset, origin_, "", /*HasNUW=*/true, /*HasNSW=*/true);
}

llvm::Value* IrArray::EmitBufferOffset(const IrIndex& index,
                                       llvm::IRBuilderBase* b) const {
  if (index.LinearValidOn(shape_)) return index.linear();
  llvm::Type* type = index.index_type() ? index.index_type() : b->getInt64Ty();
  llvm::Value* offset = nullptr;
  for (int64_t d = 0; d < shape_.rank(); ++d) {
    if (shape_.dimensions(d) == 1) continue;  // The index must be 0 there.
    llvm::Value* term = index[d];
    if (strides_[d] != 1) {
      term = b->CreateMul(term, llvm::ConstantInt::get(type, strides_[d]), "",
                          /*HasNUW=*/true, /*HasNSW=*/true);
    }
    offset = offset ? b->CreateAdd(offset, term, "", true, true) : term;
  }
  return offset ? offset : llvm::ConstantInt::get(type, 0);
}

llvm::Value* IrArray::EmitElementPointer(const IrIndex& index,
                                         llvm::IRBuilderBase* b) const {
  llvm::Type* element = *StorageType(shape_.element_type(), b->getContext());
  llvm::Value* offset = EmitLinearOffset(index, b);
  if (auto* c = llvm::dyn_cast<llvm::ConstantInt>(offset); c && c->isZero()) {
    return base_;
  }
  return b->CreateInBoundsGEP(element, base_, offset);
}

absl::StatusOr<llvm::Value*> IrArray::EmitRead(const IrIndex& index,
                                               llvm::IRBuilderBase* b,
                                               absl::string_view name) const {
  auto element = StorageType(shape_.element_type(), b->getContext());
  if (!element.ok()) return element.status();
  llvm::Value* ptr = EmitElementPointer(index, b);
  llvm::Value* value =
      b->CreateLoad(*element, ptr, llvm::StringRef(name.data(), name.size()));
  if (shape_.element_type() == PRED) {
    value = b->CreateICmpNE(value, llvm::ConstantInt::get(*element, 0));
  }
  return EmitWrapSubByte(value, shape_.element_type(), b);
}

absl::Status IrArray::EmitWrite(const IrIndex& index, llvm::Value* value,
                                llvm::IRBuilderBase* b) const {
  auto element = StorageType(shape_.element_type(), b->getContext());
  if (!element.ok()) return element.status();
  if (shape_.element_type() == PRED) value = b->CreateZExt(value, *element);
  if (value->getType() != *element) {
    return absl::InternalError("IrArray::EmitWrite: value of the wrong type");
  }
  b->CreateStore(value, EmitElementPointer(index, b));
  return absl::OkStatus();
}

uint64_t AlignmentOfRun(int64_t count, PrimitiveType type) {
  const uint64_t bytes = static_cast<uint64_t>(count * ByteWidth(type));
  return std::min<uint64_t>(16, bytes & -bytes);
}

absl::StatusOr<std::vector<llvm::Value*>> IrArray::EmitReadRun(
    const IrIndex& first, int64_t count, uint64_t alignment,
    llvm::IRBuilderBase* b) const {
  auto element = StorageType(shape_.element_type(), b->getContext());
  if (!element.ok()) return element.status();
  if (!llvm::VectorType::isValidElementType(*element)) {
    // A complex element is a struct, which no vector holds: one load per
    // element, each with the alignment its offset from `first` keeps.
    llvm::Value* base = EmitElementPointer(first, b);
    const uint64_t bytes = ByteWidth(shape_.element_type());
    std::vector<llvm::Value*> values;
    for (int64_t i = 0; i < count; ++i) {
      llvm::Value* ptr =
          i == 0 ? base : b->CreateInBoundsGEP(*element, base, b->getInt64(i));
      llvm::LoadInst* load = b->CreateLoad(*element, ptr);
      load->setAlignment(llvm::commonAlignment(llvm::Align(alignment), i * bytes));
      values.push_back(load);
    }
    return values;
  }
  auto* vector_type = llvm::FixedVectorType::get(*element, count);
  llvm::LoadInst* load =
      b->CreateLoad(vector_type, EmitElementPointer(first, b));
  load->setAlignment(llvm::Align(alignment));
  llvm::Value* loaded = EmitWrapSubByte(load, shape_.element_type(), b);
  std::vector<llvm::Value*> values;
  for (int64_t i = 0; i < count; ++i) {
    llvm::Value* value = b->CreateExtractElement(loaded, b->getInt32(i));
    if (shape_.element_type() == PRED) {
      value = b->CreateICmpNE(value, llvm::ConstantInt::get(*element, 0));
    }
    values.push_back(value);
  }
  return values;
}

absl::Status IrArray::EmitWriteRun(const IrIndex& first,
                                   absl::Span<llvm::Value* const> values,
                                   uint64_t alignment,
                                   llvm::IRBuilderBase* b) const {
  auto element = StorageType(shape_.element_type(), b->getContext());
  if (!element.ok()) return element.status();
  if (!llvm::VectorType::isValidElementType(*element)) {
    // Complex elements: one store each, as EmitReadRun's loads.
    llvm::Value* base = EmitElementPointer(first, b);
    const uint64_t bytes = ByteWidth(shape_.element_type());
    for (size_t i = 0; i < values.size(); ++i) {
      if (values[i]->getType() != *element) {
        return absl::InternalError(
            "IrArray::EmitWriteRun: value of the wrong type");
      }
      llvm::Value* ptr =
          i == 0 ? base : b->CreateInBoundsGEP(*element, base, b->getInt64(i));
      llvm::StoreInst* store = b->CreateStore(values[i], ptr);
      store->setAlignment(
          llvm::commonAlignment(llvm::Align(alignment), i * bytes));
    }
    return absl::OkStatus();
  }
  llvm::Value* vector = llvm::PoisonValue::get(
      llvm::FixedVectorType::get(*element, values.size()));
  for (size_t i = 0; i < values.size(); ++i) {
    llvm::Value* value = values[i];
    if (shape_.element_type() == PRED) value = b->CreateZExt(value, *element);
    if (value->getType() != *element) {
      return absl::InternalError(
          "IrArray::EmitWriteRun: value of the wrong type");
    }
    vector = b->CreateInsertElement(vector, value, b->getInt32(i));
  }
  llvm::StoreInst* store =
      b->CreateStore(vector, EmitElementPointer(first, b));
  store->setAlignment(llvm::Align(alignment));
  return absl::OkStatus();
}

}  // namespace hloc
