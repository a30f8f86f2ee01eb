// IrIndex and IrArray: the LLVM view of an HLO buffer. An IrArray is a base
// pointer plus the HLO shape (dimensions, element type and layout) of the
// buffer it points at; an IrIndex is a multi-dimensional index of LLVM values,
// optionally with the physical linear position it stands for. Addressing goes
// through the layout's minor_to_major, except that an index whose linear
// position was computed for the same dimensions and layout addresses the
// buffer directly: elementwise ops on same-shaped operands then cost one GEP,
// with no multiply-add chain for the vectorizer to see through.
//
// Types: in memory PRED is i8 (as the host literal's bool), in registers it
// is i1; f16 is `half`, bf16 is `bfloat` (arithmetic on both goes through
// f32, see elemental_emitter.h); c64 and c128 are {float, float} and
// {double, double} structs, real part first (complex_emitter.h). The
// narrow floats of hlo/float8.h are their bits in an i8. The sub-byte
// integers are i8 in memory and in registers, holding the value itself
// (hlo/sub_byte_int.h): every i8 load and store stays byte-addressed and
// vectorizes as s8's do, compares, selects and moves are exact on them,
// and reads wrap whatever a buffer from outside holds (ml_dtypes keeps
// the low bits only) to the type's bits. Only the element types
// IsSupportedElementType accepts have LLVM types here; the others are an
// error.
#ifndef BACKENDS_COMMON_IR_ARRAY_H_
#define BACKENDS_COMMON_IR_ARRAY_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "hlo/shape.h"

namespace llvm {
class IRBuilderBase;
class LLVMContext;
class Type;
class Value;
}  // namespace llvm

namespace hloc {

// LLVM type of one element as stored in a buffer / held in a register.
absl::StatusOr<llvm::Type*> StorageType(PrimitiveType type,
                                        llvm::LLVMContext& context);
absl::StatusOr<llvm::Type*> RegisterType(PrimitiveType type,
                                         llvm::LLVMContext& context);

// `value` (an i8, or a vector of them) wrapped to the bits of sub-byte
// integer type `type`: sign-extended from them (s4, s2) or masked to them
// (u4, u2), as a conversion to the type wraps. `value` itself for every
// other type.
llvm::Value* EmitWrapSubByte(llvm::Value* value, PrimitiveType type,
                             llvm::IRBuilderBase* b);

// The byte alignment of a run of `count` consecutive elements of `type`
// whose first physical position is a multiple of `count`, in a buffer
// aligned to 16 bytes (every kernel buffer): the power-of-two part of the
// run's bytes, up to 16.
uint64_t AlignmentOfRun(int64_t count, PrimitiveType type);

class IrIndex {
 public:
  IrIndex() = default;
  // A multi-dimensional index with no linear position.
  IrIndex(std::vector<llvm::Value*> multidim, llvm::Type* index_type);
  // A multi-dimensional index whose physical linear position in an array of
  // `shape`'s dimensions and layout is `linear`.
  IrIndex(std::vector<llvm::Value*> multidim, llvm::Value* linear,
          const Shape& shape, llvm::Type* index_type);
  // `multidim`, a rearrangement of `from`'s values (a transpose's operand
  // index), keeping `from`'s linear position as an origin: it holds again
  // for an index of exactly the origin's values in an array of its
  // dimensions and layout, as after a second transpose that undoes the
  // first (a channels-last convolution's result taken to NCHW for a ReLU
  // and back), so such a loop reads its source as it writes its output.
  static IrIndex KeepingOrigin(std::vector<llvm::Value*> multidim,
                               const IrIndex& from);
  // The index of a rank-0 array.
  static IrIndex Scalar(llvm::Type* index_type);
  // Splits a physical linear position in an array of `shape` into its
  // multi-dimensional index (keeping `linear` for the fast path).
  static IrIndex FromLinear(llvm::Value* linear, const Shape& shape,
                            llvm::IRBuilderBase* b);

  int64_t rank() const { return static_cast<int64_t>(multidim_.size()); }
  llvm::Value* operator[](int64_t i) const { return multidim_[i]; }
  const std::vector<llvm::Value*>& multidim() const { return multidim_; }
  llvm::Value* linear() const { return linear_; }
  llvm::Type* index_type() const { return index_type_; }

  // True if linear() is the physical position of this index in an array of
  // `shape`: same dimensions and same minor_to_major, and the values the
  // linear position was computed for.
  bool LinearValidOn(const Shape& shape) const;

 private:
  std::vector<llvm::Value*> multidim_;
  llvm::Value* linear_ = nullptr;
  // The multi-dimensional index linear_ stands for: multidim_ itself, but
  // for an index made by KeepingOrigin.
  std::vector<llvm::Value*> linear_multidim_;
  std::vector<int64_t> linear_dims_;
  std::vector<int64_t> linear_minor_to_major_;
  llvm::Type* index_type_ = nullptr;
};

class IrArray {
 public:
  IrArray() = default;
  // `base` points at the first element of a dense buffer of `shape` (an
  // array shape; a missing layout means row-major).
  IrArray(llvm::Value* base, const Shape& shape);

  // A window of a buffer of `shape`: `base` points at the element whose
  // physical linear position is `origin` (an index-typed value), and only
  // positions from there on are addressed. The CPU kernels stage a chunk of
  // an output in a stack buffer this way (streaming_store.h).
  static IrArray Window(llvm::Value* base, const Shape& shape,
                        llvm::Value* origin);

  llvm::Value* base() const { return base_; }
  const Shape& shape() const { return shape_; }

  // Physical element offset of `index` from base() (the linear fast path
  // when valid).
  llvm::Value* EmitLinearOffset(const IrIndex& index,
                                llvm::IRBuilderBase* b) const;
  llvm::Value* EmitElementPointer(const IrIndex& index,
                                  llvm::IRBuilderBase* b) const;
  // Loads the element at `index` in its register type (PRED as i1).
  absl::StatusOr<llvm::Value*> EmitRead(const IrIndex& index,
                                        llvm::IRBuilderBase* b,
                                        absl::string_view name = "") const;
  // Stores a register-typed value at `index`.
  absl::Status EmitWrite(const IrIndex& index, llvm::Value* value,
                         llvm::IRBuilderBase* b) const;

  // A run: `count` elements at consecutive physical offsets from `first`'s,
  // whose first element's address is a multiple of `alignment` bytes (the
  // caller knows both). They are read or written as one vector access, so
  // the run is one wide load or store whatever LLVM can prove about the
  // address (its load/store vectorizer otherwise splits a run whose
  // alignment it cannot see: a bf16 layer norm's first stores came out as
  // b16, b16, b32, v4.b16 instead of one v4.b32). Values in register type,
  // as EmitRead and EmitWrite.
  absl::StatusOr<std::vector<llvm::Value*>> EmitReadRun(
      const IrIndex& first, int64_t count, uint64_t alignment,
      llvm::IRBuilderBase* b) const;
  absl::Status EmitWriteRun(const IrIndex& first,
                            absl::Span<llvm::Value* const> values,
                            uint64_t alignment, llvm::IRBuilderBase* b) const;

 private:
  // Physical element offset of `index` from the buffer's start.
  llvm::Value* EmitBufferOffset(const IrIndex& index,
                                llvm::IRBuilderBase* b) const;

  llvm::Value* base_ = nullptr;
  Shape shape_;
  std::vector<int64_t> strides_;
  llvm::Value* origin_ = nullptr;  // Window: base_'s physical position.
};

}  // namespace hloc

#endif  // BACKENDS_COMMON_IR_ARRAY_H_
