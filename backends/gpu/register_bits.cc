#include "backends/gpu/register_bits.h"

#include "llvm/IR/DataLayout.h"

namespace hloc {

unsigned RegisterBits(llvm::Type* type, const llvm::DataLayout& layout) {
  if (type->isIntegerTy(1)) return 1;
  return static_cast<unsigned>(layout.getTypeStoreSizeInBits(type));
}

llvm::Value* PackBits(llvm::IRBuilderBase* b, const llvm::DataLayout& layout,
                      llvm::Value* value) {
  llvm::Type* type = value->getType();
  llvm::Type* int_type = b->getIntNTy(RegisterBits(type, layout));
  auto* fields = llvm::dyn_cast<llvm::StructType>(type);
  if (fields == nullptr) {
    return type->isIntegerTy() ? value : b->CreateBitCast(value, int_type);
  }
  const llvm::StructLayout* offsets = layout.getStructLayout(fields);
  llvm::Value* packed = llvm::ConstantInt::get(int_type, 0);
  for (unsigned i = 0; i < fields->getNumElements(); ++i) {
    llvm::Value* field = PackBits(b, layout, b->CreateExtractValue(value, i));
    packed = b->CreateOr(
        packed, b->CreateShl(b->CreateZExt(field, int_type),
                             offsets->getElementOffsetInBits(i)));
  }
  return packed;
}

llvm::Value* UnpackBits(llvm::IRBuilderBase* b, const llvm::DataLayout& layout,
                        llvm::Value* bits, llvm::Type* type) {
  auto* fields = llvm::dyn_cast<llvm::StructType>(type);
  if (fields == nullptr) {
    return type->isIntegerTy() ? bits : b->CreateBitCast(bits, type);
  }
  const llvm::StructLayout* offsets = layout.getStructLayout(fields);
  llvm::Value* value = llvm::UndefValue::get(type);
  for (unsigned i = 0; i < fields->getNumElements(); ++i) {
    llvm::Type* field_type = fields->getElementType(i);
    llvm::Value* field_bits = b->CreateTrunc(
        b->CreateLShr(bits, offsets->getElementOffsetInBits(i)),
        b->getIntNTy(RegisterBits(field_type, layout)));
    value = b->CreateInsertValue(
        value, UnpackBits(b, layout, field_bits, field_type), i);
  }
  return value;
}

}  // namespace hloc
