#include "backends/cpu/op_emitters.h"

#include <vector>

#include "absl/container/flat_hash_set.h"
#include "backends/cpu/control_flow_emitter.h"
#include "backends/cpu/conv_emitter.h"
#include "backends/cpu/dot_emitter.h"
#include "backends/cpu/row_fusion_emitter.h"
#include "backends/cpu/scan_emitter.h"
#include "backends/cpu/scatter_emitter.h"
#include "backends/cpu/select_and_scatter_emitter.h"
#include "backends/cpu/sort_emitter.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Module.h"

namespace hloc {
namespace {

absl::Status Dispatch(const HloInstruction& hlo, const std::string& symbol,
                      const OpEmitterContext& ctx) {
  if (IsDotKernel(hlo)) return EmitDotKernel(hlo, symbol, ctx);
  if (IsControlFlow(hlo)) return EmitControlFlowKernel(hlo, symbol, ctx);
  if (IsRowFusionKernel(hlo)) return EmitRowFusionKernel(hlo, symbol, ctx);
  switch (hlo.opcode()) {
    case HloOpcode::kConvolution:
      return EmitConvolutionKernel(hlo, symbol, ctx);
    case HloOpcode::kSort:
      return EmitSortKernel(hlo, symbol, ctx);
    case HloOpcode::kScan:
      return EmitScanKernel(hlo, symbol, ctx);
    case HloOpcode::kScatter:
      return EmitScatterKernel(hlo, symbol, ctx);
    case HloOpcode::kSelectAndScatter:
      return EmitSelectAndScatterKernel(hlo, symbol, ctx);
    default:
      return OpUnimplemented(hlo, "no op emitter");
  }
}

}  // namespace

bool HasOpEmitter(const HloInstruction& hlo) {
  if (IsDotKernel(hlo) || IsControlFlow(hlo) || IsRowFusionKernel(hlo)) {
    return true;
  }
  switch (hlo.opcode()) {
    case HloOpcode::kConvolution:
    case HloOpcode::kSort:
    case HloOpcode::kScan:
    case HloOpcode::kScatter:
    case HloOpcode::kSelectAndScatter:
      return true;
    default:
      return false;
  }
}

absl::Status EmitOpKernel(const HloInstruction& hlo, const std::string& symbol,
                          const OpEmitterContext& ctx) {
  absl::flat_hash_set<const llvm::Function*> before;
  for (const llvm::Function& f : *ctx.module) before.insert(&f);
  absl::flat_hash_set<const llvm::GlobalVariable*> globals_before;
  for (const llvm::GlobalVariable& g : ctx.module->globals()) {
    globals_before.insert(&g);
  }
  absl::Status status = Dispatch(hlo, symbol, ctx);
  if (status.ok()) return status;
  // Remove what the failed kernel emitted: its functions (they may call
  // each other, so references go first), then its constants.
  std::vector<llvm::Function*> created;
  for (llvm::Function& f : *ctx.module) {
    if (!before.contains(&f)) created.push_back(&f);
  }
  for (llvm::Function* f : created) f->dropAllReferences();
  for (llvm::Function* f : created) f->eraseFromParent();
  std::vector<llvm::GlobalVariable*> globals;
  for (llvm::GlobalVariable& g : ctx.module->globals()) {
    if (!globals_before.contains(&g)) globals.push_back(&g);
  }
  for (llvm::GlobalVariable* g : globals) g->eraseFromParent();
  return status;
}

}  // namespace hloc
