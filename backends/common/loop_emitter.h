// The loop emitter: drives element generators over an output shape and
// stores what they compute, for one output or several of the same
// dimensions (multi-output fusions).
//
// Where a target differs is the LoopMapping: the code that visits every
// index of the iteration shape exactly once. The loop emitter hands the
// mapping a body ("compute and store every output at this index"); the
// mapping decides the control flow around it:
//   - CPU (backends/cpu): the kernel's range function receives [lo, hi) of
//     work items from an OpenMP thread; each work item is a chunk of one row
//     (the physically minor dimension), walked by an inner loop that the
//     loop vectorizer widens. The linear index (row * minor + column) comes
//     with every index, so same-shaped operands are read with one GEP.
//   - GPU (later): block and thread ids give a linear index per thread (times
//     an unroll factor), bounds-checked, split with IrIndex::FromLinear.
// SerialLoopMapping is the plainest mapping: one loop per dimension in
// physical order, the innermost over the minor dimension.
#ifndef BACKENDS_COMMON_LOOP_EMITTER_H_
#define BACKENDS_COMMON_LOOP_EMITTER_H_

#include <functional>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "backends/common/elemental_emitter.h"
#include "backends/common/ir_array.h"

namespace hloc {

// Emits `for (iv = start; iv < end; iv += step) body(iv)` at b's insertion
// point (all three are index-typed values) and leaves b at the loop's exit.
absl::Status EmitForLoop(absl::string_view name, llvm::Value* start,
                         llvm::Value* end, llvm::Value* step,
                         const std::function<absl::Status(llvm::Value*)>& body,
                         llvm::IRBuilderBase* b);

// Emits `if (cond) then_body(); else else_body();` (else optional) and
// leaves b after both.
absl::Status EmitIfThenElse(llvm::Value* cond,
                            const std::function<absl::Status()>& then_body,
                            const std::function<absl::Status()>& else_body,
                            llvm::IRBuilderBase* b);

// An alloca in the current function's entry block (so mem2reg/SROA promote
// it), with b's insertion point unchanged.
llvm::Value* EmitAllocaAtEntry(llvm::Type* type, absl::string_view name,
                               llvm::IRBuilderBase* b);

class LoopMapping {
 public:
  using BodyEmitter = std::function<absl::Status(const IrIndex& index)>;
  // The body for a run of whole consecutive physical positions, in order,
  // the first a multiple of the run's length.
  using RunEmitter =
      std::function<absl::Status(const std::vector<IrIndex>& run)>;
  virtual ~LoopMapping() = default;
  // Emits control flow at b's insertion point that calls `body` (emitting
  // its IR) for every index of `shape` exactly once, and leaves b where code
  // after the iteration goes.
  virtual absl::Status EmitLoopNest(const Shape& shape, const BodyEmitter& body,
                                    llvm::IRBuilderBase* b) = 0;
  // The same, where the mapping may hand a thread's whole runs of
  // consecutive positions to `run` instead (the GPU's unrolled runs); by
  // default every index goes to `body`.
  virtual absl::Status EmitLoopNestInRuns(const Shape& shape,
                                          const BodyEmitter& body,
                                          const RunEmitter& run,
                                          llvm::IRBuilderBase* b) {
    return EmitLoopNest(shape, body, b);
  }
};

class SerialLoopMapping : public LoopMapping {
 public:
  // Indices of `index_type` (nullptr: i64); a GPU kernel that runs one
  // thread indexes in its own index type.
  explicit SerialLoopMapping(llvm::Type* index_type = nullptr)
      : index_type_(index_type) {}
  absl::Status EmitLoopNest(const Shape& shape, const BodyEmitter& body,
                            llvm::IRBuilderBase* b) override;

 private:
  llvm::Type* index_type_;
};

class LoopEmitter {
 public:
  // generators[i] computes outputs[i]; all outputs have the dimensions of
  // outputs[0], whose shape (with its layout) is the iteration shape.
  LoopEmitter(std::vector<ElementGenerator> generators,
              std::vector<IrArray> outputs, llvm::IRBuilderBase* b);
  absl::Status EmitLoop(LoopMapping& mapping);
  // Where output i is stored from here on. A mapping that first writes a
  // chunk elsewhere (the CPU's staged streaming stores) swaps the array
  // before it emits the chunk's loop.
  void set_output_array(size_t i, IrArray array) {
    outputs_[i] = std::move(array);
  }
  // The body alone: compute and store every output at `index`.
  absl::Status EmitBody(const IrIndex& index);
  // A run's body (LoopMapping::RunEmitter): every output's values at
  // every position first, then each output stored as one vector where its
  // layout is the iteration's (the load/store vectorizer would only merge
  // stores of one basic block, and an element computed through libdevice
  // ends its block).
  absl::Status EmitRunBody(const std::vector<IrIndex>& run);

 private:
  std::vector<ElementGenerator> generators_;
  std::vector<IrArray> outputs_;
  llvm::IRBuilderBase* b_;
};

}  // namespace hloc

#endif  // BACKENDS_COMMON_LOOP_EMITTER_H_
