// The elemental emitter: for an HLO instruction inside a fusion (or alone),
// the LLVM IR that computes its element at one multi-dimensional index, given
// generators for its operands' elements. This is the one place that knows
// what each op computes; the CPU loops, the CPU reductions and (later) the
// GPU loop, reduction and transpose kernels all call it and differ only in
// which indices they ask for (the LoopMapping of loop_emitter.h) and in their
// MathLibrary.
//
// Semantics follow XLA's elemental IR emitter:
// - f16/bf16 compute in f32 and round once per op (fptrunc to half; bf16 by
//   integer round-to-nearest-even, which needs no runtime library).
// - convert float->int saturates, NaN -> 0; float->pred is x != 0 (NaN true).
// - integer divide by zero gives -1 (all ones), remainder by zero gives x;
//   INT_MIN / -1 gives INT_MIN and INT_MIN % -1 gives 0.
// - shifts by >= the bit width (unsigned compare) give 0, or the sign fill
//   for shift-right-arithmetic.
// - maximum/minimum propagate NaN (llvm.maximum/minimum).
// - compare: NE on floats is unordered (NaN != x); type TOTALORDER or
//   order=TOTAL orders -NaN < -inf < ... < -0 < +0 < ... < inf < NaN.
// Element types: pred, s8..s64, u8..u64, f16, bf16, f32, f64, and c64 and
// c128 as {T, T} structs (complex_emitter.h has their ops' formulas). The
// sub-byte and f8 types are Unimplemented (the caller falls back).
//
// Tuple-shaped results (variadic reduce) are LLVM struct values; a
// get-tuple-element of them is an extractvalue.
#ifndef BACKENDS_COMMON_ELEMENTAL_EMITTER_H_
#define BACKENDS_COMMON_ELEMENTAL_EMITTER_H_

#include <functional>
#include <memory>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "backends/common/ir_array.h"
#include "backends/common/math_library.h"
#include "hlo/computation.h"
#include "hlo/instruction.h"

namespace llvm {
class BasicBlock;
class Module;
class Type;
}  // namespace llvm

namespace hloc {

class MathLibrary;

// Computes one element (register-typed) at an index of the generated value.
using ElementGenerator =
    std::function<absl::StatusOr<llvm::Value*>(const IrIndex& index)>;

class ElementalEmitter {
 public:
  ElementalEmitter(llvm::Module* module, llvm::IRBuilderBase* b,
                   const MathLibrary* math);
  virtual ~ElementalEmitter() = default;

  llvm::Module* module() const { return module_; }
  llvm::IRBuilderBase* builder() const { return b_; }
  const MathLibrary* math() const { return math_; }

  // The generator of `hlo`'s elements; operands[i] generates hlo->operand(i).
  // Parameters are not handled here (the caller binds them).
  absl::StatusOr<ElementGenerator> MakeElementGenerator(
      const HloInstruction* hlo, std::vector<ElementGenerator> operands);

  // One element of an elementwise op from its operands' elements.
  absl::StatusOr<llvm::Value*> EmitElementwise(
      const HloInstruction* hlo, absl::Span<llvm::Value* const> operands);
  absl::StatusOr<llvm::Value*> EmitConvert(llvm::Value* value,
                                           PrimitiveType from,
                                           PrimitiveType to);
  absl::StatusOr<llvm::Value*> EmitComplexConvert(llvm::Value* value,
                                                  PrimitiveType from,
                                                  PrimitiveType to);

  // Emits a scalar computation's body inline (reduce and map combiners,
  // comparators): `args` are its parameters' values, the result its root's
  // value (a struct for a tuple root).
  absl::StatusOr<llvm::Value*> EmitScalarComputation(
      const HloComputation* computation, absl::Span<llvm::Value* const> args);

 private:
  absl::StatusOr<llvm::Value*> EmitUnary(const HloInstruction* hlo,
                                         llvm::Value* x);
  absl::StatusOr<llvm::Value*> EmitBinary(const HloInstruction* hlo,
                                          llvm::Value* lhs, llvm::Value* rhs);
  // `tolerated_error`: the relative error the result may have
  // (ToleratedRelativeError); a target's faster approximation of the
  // function is used where its error is within it.
  absl::StatusOr<llvm::Value*> EmitFloatUnary(HloOpcode op, llvm::Value* x,
                                              double tolerated_error);
  // fn(x), or the target's approximation of it where that errs by at most
  // `tolerated_error` (relative) and `x` is f32.
  llvm::Value* EmitMath(MathFunction fn, llvm::Value* x,
                        double tolerated_error);
  absl::StatusOr<llvm::Value*> EmitFloatBinary(HloOpcode op, llvm::Value* lhs,
                                               llvm::Value* rhs);
  absl::StatusOr<llvm::Value*> EmitIntegerUnary(HloOpcode op,
                                                PrimitiveType type,
                                                llvm::Value* x);
  absl::StatusOr<llvm::Value*> EmitIntegerBinary(HloOpcode op,
                                                 PrimitiveType type,
                                                 llvm::Value* lhs,
                                                 llvm::Value* rhs);
  absl::StatusOr<llvm::Value*> EmitCompare(const HloInstruction* hlo,
                                           llvm::Value* lhs, llvm::Value* rhs);
  absl::StatusOr<llvm::Value*> EmitReducePrecision(const HloInstruction* hlo,
                                                   llvm::Value* x);
  // f16/bf16 <-> f32 for arithmetic.
  llvm::Value* Widen(llvm::Value* x);
  llvm::Value* Narrow(llvm::Value* x, PrimitiveType to);
  // Narrow for the result of `op` on widened operands: where that result
  // is already exactly representable in `to` (see the .cc), no rounding.
  llvm::Value* NarrowResult(HloOpcode op, llvm::Value* x, PrimitiveType to);

  absl::StatusOr<ElementGenerator> MakeConstantGenerator(
      const HloInstruction* hlo);
  absl::StatusOr<ElementGenerator> MakeResizingBitcastConvertGenerator(
      PrimitiveType from, PrimitiveType to, ElementGenerator operand);
  absl::StatusOr<ElementGenerator> MakeReduceGenerator(
      const HloInstruction* hlo, std::vector<ElementGenerator> operands);
  absl::StatusOr<ElementGenerator> MakeReduceWindowGenerator(
      const HloInstruction* hlo, std::vector<ElementGenerator> operands);
  absl::StatusOr<ElementGenerator> MakeGatherGenerator(
      const HloInstruction* hlo, std::vector<ElementGenerator> operands);

  // Contractions (contraction_generators.cc). One term of the sum: lhs() *
  // rhs(), counted where `valid` holds (null: always).
  struct ContractionTerm {
    llvm::Value* valid;
    std::function<absl::StatusOr<llvm::Value*>()> lhs;
    std::function<absl::StatusOr<llvm::Value*>()> rhs;
  };
  // The sum over the loop nest `bounds` of term(induction variables), in
  // the accumulation type, converted to hlo's element type.
  absl::StatusOr<llvm::Value*> EmitSumOfProducts(
      const HloInstruction* hlo, const std::vector<int64_t>& bounds,
      const IrIndex& index,
      const std::function<absl::StatusOr<ContractionTerm>(
          const std::vector<llvm::Value*>&)>& term);
  absl::StatusOr<ElementGenerator> MakeDotGenerator(
      const HloInstruction* hlo, std::vector<ElementGenerator> operands);
  absl::StatusOr<ElementGenerator> MakeConvolutionGenerator(
      const HloInstruction* hlo, std::vector<ElementGenerator> operands);

  llvm::Module* module_;
  llvm::IRBuilderBase* b_;
  const MathLibrary* math_;
};

// A start index `v` of element type `type`, as dynamic-slice,
// dynamic-update-slice, gather and scatter read theirs, converted to a
// signed value of `index_type` and saturated to its range, so that a
// comparison or clamp against a bound gives what the exact value would:
// unsigned values are zero-extended (a u8 of 200 is 200, never -56) and
// never turn negative. Every bound fits the index type, so saturating
// changes no clamped result. The CPU and GPU emitters all read starts here.
llvm::Value* ConvertStartIndex(llvm::Value* v, PrimitiveType type,
                               llvm::Type* index_type, llvm::IRBuilderBase* b);

// A dynamic-slice / dynamic-update-slice start index: the scalar `start`
// (of element type `type`) as a signed value of `index_type`, clamped to
// [0, max_start] as XLA clamps it so the slice stays in bounds.
absl::StatusOr<llvm::Value*> EmitClampedStartIndex(
    const ElementGenerator& start, PrimitiveType type, int64_t max_start,
    llvm::Type* index_type, llvm::IRBuilderBase* b);

// Builds the generators of a fused computation's instructions on demand.
// Fused parameters get the generators the caller binds (usually reads of
// the fusion's operand buffers). Values are memoized per (instruction,
// index) within a basic block, so an instruction used several times at one
// index is computed once.
class FusedIrEmitter {
 public:
  explicit FusedIrEmitter(ElementalEmitter* elemental)
      : elemental_(elemental) {}

  void BindParameter(int64_t parameter_number, ElementGenerator generator);
  // Replaces the generator of a non-parameter instruction: a kernel that
  // computes some values itself (a row fusion's per-row reduction results)
  // binds them before anything that uses them asks for a generator.
  void BindInstruction(const HloInstruction* hlo, ElementGenerator generator);
  absl::StatusOr<ElementGenerator> GetGenerator(const HloInstruction* hlo);

 private:
  struct CacheEntry {
    std::vector<llvm::Value*> index;
    llvm::BasicBlock* block;
    llvm::Value* value;
  };
  ElementalEmitter* elemental_;
  absl::flat_hash_map<int64_t, ElementGenerator> parameters_;
  absl::flat_hash_map<const HloInstruction*, ElementGenerator> generators_;
  std::shared_ptr<
      absl::flat_hash_map<const HloInstruction*, std::vector<CacheEntry>>>
      cache_ = std::make_shared<absl::flat_hash_map<const HloInstruction*,
                                                    std::vector<CacheEntry>>>();
};

}  // namespace hloc

#endif  // BACKENDS_COMMON_ELEMENTAL_EMITTER_H_
