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

#include "absl/status/statusor.h"
#include "backends/common/elemental_emitter.h"
#include "backends/common/ir_array.h"
#include "backends/common/kernel_analysis.h"

namespace hloc {

class KernelGenerators {
 public:
  // `inputs[i]` is the buffer of info.hlo's operand i.
  KernelGenerators(const KernelInfo& info, std::vector<IrArray> inputs,
                   ElementalEmitter* elemental);

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

 private:
  ElementGenerator Reader(const IrArray& array) const;

  const KernelInfo& info_;
  std::vector<IrArray> inputs_;
  ElementalEmitter* elemental_;
  FusedIrEmitter fused_;
  std::optional<ElementGenerator> unfused_;
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
