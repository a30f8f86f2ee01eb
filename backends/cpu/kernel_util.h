// What the CPU op emitters (dot, convolution, sort, scatter; see
// op_emitters.h) share: the kernel ABI of ir_emitter.h, range functions
// over noalias buffers, the GOMP_parallel split of work items, heap scratch
// and flat element access.
//
// A kernel is `void symbol(void** buffers)` (operand buffers in operand
// order, then output buffers). It runs a sequence of loops; each loop is a
// range function `void name(ptr noalias b0, ..., i64 lo, i64 hi)` doing work
// items [lo, hi), called directly or from every OpenMP thread with a static
// contiguous split (thread t of T does [W*t/T, W*(t+1)/T)), as the
// elementwise kernels of ir_emitter.cc do.
#ifndef BACKENDS_CPU_KERNEL_UTIL_H_
#define BACKENDS_CPU_KERNEL_UTIL_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hlo/instruction.h"
#include "hlo/shape.h"

namespace llvm {
class FastMathFlags;
class Function;
class IRBuilderBase;
class Module;
class Type;
class Value;
}  // namespace llvm

namespace hloc {

struct CpuCodegenOptions;
class MathLibrary;

// Where an op emitter puts its kernel.
struct OpEmitterContext {
  llvm::Module* module;
  const CpuCodegenOptions* options;
  const MathLibrary* math;
  // Emits the kernel of another instruction into the module (any kind:
  // the control-flow emitter compiles called computations with it); returns
  // its symbol, made unique from `name`.
  std::function<absl::StatusOr<std::string>(const HloInstruction& hlo,
                                            const std::string& name)>
      emit_kernel;
  // Likewise, the kernel of a dynamic-update-slice (or a fusion rooted at
  // one) whose output buffer is its updated operand's: it stores the update
  // alone (CpuModuleEmitter::EmitInPlaceUpdateKernel).
  std::function<absl::StatusOr<std::string>(const HloInstruction& hlo,
                                            const std::string& name)>
      emit_in_place_update_kernel;
};

absl::Status OpUnimplemented(const HloInstruction& hlo, absl::string_view why);

// Creates `void name(ptr noalias nocapture x num_buffers, i64 lo, i64 hi)`
// (internal) with an empty entry block.
llvm::Function* CreateRangeFunction(llvm::Module* module,
                                    const std::string& name,
                                    int64_t num_buffers);

struct KernelLoop {
  llvm::Function* range;
  int64_t work_items;
  bool parallel;
};

// Emits the kernel `void symbol(ptr buffers)` running `loops` in order.
void EmitKernelEntry(llvm::Module* module, const std::string& symbol,
                     int64_t num_buffers, const std::vector<KernelLoop>& loops);

// Whether a loop of `work_items` items touching `elements` elements runs
// on all threads under `options`.
bool ShouldRunParallel(const CpuCodegenOptions& options, int64_t work_items,
                       int64_t elements);

// aligned_alloc(64, bytes rounded up to 64) and free, from the process.
llvm::Value* EmitAlignedMalloc(llvm::Value* bytes, llvm::IRBuilderBase* b);
void EmitFree(llvm::Value* pointer, llvm::IRBuilderBase* b);

// `while (iv < end) { next = body(iv); iv = next; }`: a loop whose step
// the body computes. Leaves b at the exit.
absl::Status EmitWhileLoop(
    absl::string_view name, llvm::Value* start, llvm::Value* end,
    const std::function<absl::StatusOr<llvm::Value*>(llvm::Value*)>& body,
    llvm::IRBuilderBase* b);

// The fast-math flags of a reduction's combiner when the reduction order
// is free (row reductions): reassoc, so the loop vectorizer keeps vector
// partial results (the order differs from a sequential loop, as in XLA).
// Plus nsz for a combiner without arithmetic (maximum, minimum, compare,
// select): a reduction in unspecified order has no defined sign for a zero
// result (XLA's own maximum returns whichever of -0 and +0 comes first),
// and nsz makes a maximum/minimum one vmaxps and a NaN fix-up instead of
// six instructions. Never nsz on an add, subtract, multiply or divide:
// with reassoc and nsz on the accumulating fadd, InstCombine rewrites the
// whole expression feeding it as a sum of terms, flags or not on the
// operands, and cancels `x - x` to 0 where x is NaN or an infinity
// (XLA:CPU gives NaN; fuzz/differential/regressions/diff-3030.hlo).
// reassoc alone is enough for the vectorizer and keeps NaN.
llvm::FastMathFlags ReductionFastMathFlags(const HloComputation& combiner);

// Marks every loop of `fn` llvm.loop.unroll.disable: loop nests of known
// trip counts (tiles, blocks) would otherwise be unrolled into megabytes of
// IR. The loop vectorizer still widens (and interleaves) inner loops.
void DisableLoopUnrolling(llvm::Function* fn);

// Loads / stores element `offset` (elements, i64) of a dense buffer of
// `type` at `base`, in register type (PRED as i1).
absl::StatusOr<llvm::Value*> LoadFlat(PrimitiveType type, llvm::Value* base,
                                      llvm::Value* offset,
                                      llvm::IRBuilderBase* b);
absl::Status StoreFlat(PrimitiveType type, llvm::Value* base,
                       llvm::Value* offset, llvm::Value* value,
                       llvm::IRBuilderBase* b);

// A group of logical dimensions walked as one index (row-major over the
// group): its sizes and element strides. Offset(x) is the element offset of
// group index x: one multiply when the group collapses to a single stride,
// else a div/mod chain.
class DimGroup {
 public:
  DimGroup() = default;
  DimGroup(std::vector<int64_t> sizes, std::vector<int64_t> strides);
  int64_t size() const { return size_; }
  // The single stride of the group, or -1 when it does not collapse.
  int64_t collapsed_stride() const { return collapsed_stride_; }
  llvm::Value* Offset(llvm::Value* x, llvm::IRBuilderBase* b) const;
  // The per-dimension indices of group index x (row-major over the group).
  std::vector<llvm::Value*> Split(llvm::Value* x, llvm::IRBuilderBase* b) const;

 private:
  std::vector<int64_t> sizes_;
  std::vector<int64_t> strides_;
  int64_t size_ = 1;
  int64_t collapsed_stride_ = 0;
};

}  // namespace hloc

#endif  // BACKENDS_CPU_KERNEL_UTIL_H_
