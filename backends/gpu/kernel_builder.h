// What every GPU kernel emitter shares: the kernel function (one pointer
// parameter per buffer, the runtime's ABI), its IR builder, the elemental
// emitter and the kernel's generators, the index type, and thread/block ids
// in that type. Included only by the emitters' .cc files (it pulls in
// LLVM's IRBuilder).
//
// Parameters: operand buffers in operand order, then output buffers. Each
// is 16-byte aligned (the buffer plan aligns every slot to 64 bytes), and
// noalias unless the compiler says it shares memory with another parameter
// (an in-place dynamic-update-slice): marking such a pair noalias would be
// undefined behaviour. Inputs that alias nothing are also readonly, so they
// are read through the non-coherent cache (ld.global.nc).
#ifndef BACKENDS_GPU_KERNEL_BUILDER_H_
#define BACKENDS_GPU_KERNEL_BUILDER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "backends/common/elemental_emitter.h"
#include "backends/common/ir_array.h"
#include "backends/common/kernel_analysis.h"
#include "backends/common/kernel_generators.h"
#include "backends/gpu/gpu_kernel_emitter.h"
#include "backends/gpu/gpu_target.h"
#include "llvm/IR/IRBuilder.h"

namespace hloc {

class KernelBuilder {
 public:
  // Creates `symbol` in `module` for `info`'s buffers; `max_elements` is
  // the largest number of elements any index of the kernel reaches (it
  // picks 32- or 64-bit indexing).
  KernelBuilder(const GpuTarget& target, llvm::Module* module,
                const KernelInfo& info, const KernelBuffers& buffers,
                const std::string& symbol, int64_t threads_per_block,
                bool index64);

  llvm::IRBuilderBase* b() { return &builder_; }
  llvm::Function* function() { return fn_; }
  const GpuTarget& target() const { return target_; }
  ElementalEmitter* elemental() { return &elemental_; }
  KernelGenerators& generators() { return generators_; }
  const std::vector<IrArray>& outputs() const { return outputs_; }
  const IrArray& output(size_t i) const { return outputs_[i]; }
  llvm::Type* index_type() const { return index_type_; }
  llvm::Value* Index(int64_t v);

  // Thread and block ids (x, y, z), zero-extended to the index type.
  llvm::Value* ThreadId(int dim);
  llvm::Value* BlockId(int dim);

  // Closes the kernel (ret) when `status` is ok, else removes it; returns
  // `status`.
  absl::Status Finish(absl::Status status);

 private:
  const GpuTarget& target_;
  llvm::Module* module_;
  llvm::Function* fn_;
  llvm::IRBuilder<> builder_;
  llvm::Type* index_type_;
  ElementalEmitter elemental_;
  std::vector<IrArray> outputs_;
  KernelGenerators generators_;
};

// The largest element count of any array the kernel touches: its buffers
// and (fused) every instruction of the fused computation.
int64_t MaxElementsTouched(const KernelInfo& info);

// The widest element (bytes) among a kernel's outputs.
int64_t WidestOutputBytes(const KernelInfo& info);

// The widest element (bytes) among the kernel's inputs of at least
// `elements` elements: those a loop over `elements` output positions
// streams through (smaller ones, broadcast along the way, stay in cache);
// 0 if none.
int64_t WidestStreamedInputBytes(const KernelInfo& info, int64_t elements);

// A concatenate written operand by operand (concatenate_emitter.cc, row
// fusions with a concatenate hero): its generator is bound to give the
// operand and index the kernel selects, whatever index its users pass.
// They read it only at the output's own position, which the kernel
// computes from that same operand index (PositionInConcatenate).
class ConcatenateHero {
 public:
  static absl::StatusOr<ConcatenateHero> Bind(const HloInstruction* concat,
                                              KernelBuilder& kernel);
  // The element the concatenate gives from now on: `operand`'s at `index`.
  void Select(size_t operand, const IrIndex& index);
  size_t operand_count() const { return current_->operands.size(); }

 private:
  struct Current {
    std::vector<ElementGenerator> operands;
    size_t operand = 0;
    IrIndex index;
  };
  std::shared_ptr<Current> current_;
};

// The linear position in `concat` (row-major) of the element at `index` of
// its operand whose block along the concatenated dimension starts at
// `offset`: the kernels that write a concatenate operand by operand
// (concatenate_emitter.cc, row fusions with a concatenate hero).
llvm::Value* PositionInConcatenate(const HloInstruction* concat,
                                   int64_t offset, const IrIndex& index,
                                   KernelBuilder& kernel);

}  // namespace hloc

#endif  // BACKENDS_GPU_KERNEL_BUILDER_H_
