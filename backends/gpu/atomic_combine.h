// Applying a scalar combiner `combine(old, update)` to an output element
// that other threads may update at the same time (scatter,
// select-and-scatter): one atomicrmw where the combiner is one (add,
// integer min/max), an integer atomic min or max on the bits of an f32 or
// f64 min/max, a plain store where it returns the update, a
// compare-and-swap loop around the inlined combiner for other 8- to 64-bit
// types (8/16-bit ones through their 32-bit word), or, where no thread can
// meet another, load-combine-store.
// Included only by emitters' .cc files (LLVM headers).
#ifndef BACKENDS_GPU_ATOMIC_COMBINE_H_
#define BACKENDS_GPU_ATOMIC_COMBINE_H_

#include "absl/status/status.h"
#include "backends/gpu/kernel_builder.h"
#include "hlo/computation.h"
#include "llvm/IR/Instructions.h"

namespace hloc {

enum class Combine {
  kPlain,
  kAtomicRmw,
  kFloatMinMax,  // f32/f64 maximum or minimum as integer atomics (op: Max
                 // or Min says which)
  kStore,
  kCompareAndSwap,
  kNone
};

struct CombinePlan {
  Combine how = Combine::kNone;
  llvm::AtomicRMWInst::BinOp op = llvm::AtomicRMWInst::BAD_BINOP;
};

// How `combiner` (two scalar parameters of `type`) is applied. `exclusive`:
// no two threads update one element (kPlain). kNone: no atomic way exists
// (pred, sub-byte integers, 16-byte complex); the caller serializes.
CombinePlan PlanCombine(const HloComputation* combiner, PrimitiveType type,
                        bool exclusive);

// out[index] = combiner(out[index], update), as `plan` says.
absl::Status EmitCombine(KernelBuilder& kernel, const CombinePlan& plan,
                         const HloComputation* combiner, const IrArray& out,
                         const IrIndex& index, llvm::Value* update);

}  // namespace hloc

#endif  // BACKENDS_GPU_ATOMIC_COMBINE_H_
