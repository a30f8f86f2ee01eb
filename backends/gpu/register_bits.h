// A register value of any element type as one integer of its bits, and
// back. Warp shuffles move 32-bit words and compare-and-swap works on one
// integer, but an element may be a struct: a complex number is {re, im}
// (complex_emitter.h), which LLVM cannot bitcast. Included only by emitters'
// .cc files (LLVM headers).
#ifndef BACKENDS_GPU_REGISTER_BITS_H_
#define BACKENDS_GPU_REGISTER_BITS_H_

#include "llvm/IR/IRBuilder.h"

namespace hloc {

// The width in bits of `type` as PackBits packs it: 1 for i1, else its store
// size (a struct's fields laid out as the data layout says).
unsigned RegisterBits(llvm::Type* type, const llvm::DataLayout& layout);

// `value` as an integer of RegisterBits(value's type) bits: a struct's
// fields at their data-layout offsets (padding zero).
llvm::Value* PackBits(llvm::IRBuilderBase* b, const llvm::DataLayout& layout,
                      llvm::Value* value);

// The inverse of PackBits: `bits` read back as a value of `type`.
llvm::Value* UnpackBits(llvm::IRBuilderBase* b, const llvm::DataLayout& layout,
                        llvm::Value* bits, llvm::Type* type);

}  // namespace hloc

#endif  // BACKENDS_GPU_REGISTER_BITS_H_
