// The element generators of one kernel, for every backend: a fusion's
// parameters read the kernel's input buffers and its instructions come
// from a FusedIrEmitter; an unfused instruction reads its operands'
// buffers and is computed by the elemental emitter. Kernel emitters ask for
// the generator of any instruction the kernel computes, or of an output.
#ifndef BACKENDS_COMMON_KERNEL_GENERATORS_H_
#define BACKENDS_COMMON_KERNEL_GENERATORS_H_

#include <functional>
#include <optional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "backends/common/elemental_emitter.h"
#include "backends/common/ir_array.h"
#include "backends/common/kernel_analysis.h"

namespace llvm {
class BasicBlock;
class Instruction;
}  // namespace llvm

namespace hloc {

class KernelGenerators {
 public:
  // `inputs[i]` is the buffer of info.hlo's operand i.
  KernelGenerators(const KernelInfo& info, std::vector<IrArray> inputs,
                   ElementalEmitter* elemental);
  // Its generators hold a pointer to it.
  KernelGenerators(const KernelGenerators&) = delete;
  KernelGenerators& operator=(const KernelGenerators&) = delete;

  // The generator of `hlo`: a fused instruction of info.hlo (fused), or
  // info.hlo itself or one of its operands (unfused).
  absl::StatusOr<ElementGenerator> Get(const HloInstruction* hlo);
  // The generator of output `o` (an element of a tuple-valued root taken
  // out of its struct).
  absl::StatusOr<ElementGenerator> ForOutput(const KernelOutput& o);
  // Replaces a fused instruction's generator (fused kernels only): a kernel
  // that computes some values itself binds them before their users ask.
  void Bind(const HloInstruction* hlo, ElementGenerator generator);

  const std::vector<IrArray>& inputs() const { return inputs_; }

  // A run: consecutive physical positions of the iteration shape that one
  // thread computes one after another, whole (a GPU loop thread's
  // unrolled run). Between BeginRun and EndRun, an input read at exactly
  // the run's positions is read once for the whole run, with one vector
  // load placed where BeginRun was called, and each element's read takes
  // its lane. LLVM's load/store vectorizer would merge the elements'
  // loads only within one basic block, and an element computed through
  // libdevice (tanhf, erff, powf...) ends its block: a bf16 GELU
  // gradient's loop read 2 bytes a load. `linears` are the run's linear
  // positions, in order; the first is a multiple of `linears.size()`.
  void BeginRun(std::vector<llvm::Value*> linears);
  void EndRun();

 private:
  // Reads input `i` (its buffer `array`).
  ElementGenerator Reader(size_t i, const IrArray& array);

  struct Run {
    std::vector<llvm::Value*> linears;
    // Where the run's loads go: after `after`, or at the start of `block`
    // when it is null.
    llvm::BasicBlock* block = nullptr;
    llvm::Instruction* after = nullptr;
    // Input -> its elements at the run's positions, once loaded.
    absl::flat_hash_map<size_t, std::vector<llvm::Value*>> loaded;
  };
  absl::StatusOr<llvm::Value*> ReadInRun(size_t i, const IrArray& array,
                                         const IrIndex& index);

  const KernelInfo& info_;
  std::vector<IrArray> inputs_;
  ElementalEmitter* elemental_;
  FusedIrEmitter fused_;
  std::optional<ElementGenerator> unfused_;
  std::optional<Run> run_;
};

// One reduce of a reduction kernel (r.reduces): its input and init
// generators, register types, and which kernel output holds each of its
// results. The CPU and GPU reduction emitters walk the reduced elements
// differently but set up their reduces with this one helper.
struct ReduceState {
  const HloInstruction* reduce;
  // Results (the reduce's operand count / 2).
  size_t n;
  std::vector<ElementGenerator> inputs;
  std::vector<ElementGenerator> inits;
  std::vector<llvm::Type*> types;
  // Result k -> kernel output index (-1: none).
  std::vector<int64_t> output_of;
  // Accumulators, where the emitter keeps them in allocas (it fills these).
  std::vector<llvm::Value*> slots;
};

absl::StatusOr<std::vector<ReduceState>> MakeReduceStates(
    const KernelInfo& info, const ReductionInfo& r,
    const std::function<
        absl::StatusOr<ElementGenerator>(const HloInstruction*)>& generator,
    llvm::LLVMContext& context);

}  // namespace hloc

#endif  // BACKENDS_COMMON_KERNEL_GENERATORS_H_
