#include "backends/gpu/gpu_kernel_emitter.h"

#include <cctype>
#include <utility>

#include "absl/strings/str_cat.h"
#include "backends/common/kernel_analysis.h"
#include "backends/gpu/kernel_emitters.h"
#include "hlo/status_macros.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"
#include "passes/fusion/fusion_kinds.h"
#include "runtime/buffer_assignment.h"

namespace hloc {
namespace {

// PTX identifiers: letters, digits, _ and $ (and . after the first
// character is not allowed by every tool), so everything else becomes _.
std::string KernelSymbol(const std::string& name) {
  std::string out;
  for (char c : name) {
    out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  }
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0]))) {
    out = "k_" + out;
  }
  return out;
}

// Whether every array leaf of `shape` is empty (a tuple of none included).
bool HasNoElements(const Shape& shape) {
  if (shape.IsArray()) return shape.ElementCount() == 0;
  if (!shape.IsTuple()) return false;
  for (const Shape& leaf : shape.tuple_shapes()) {
    if (!HasNoElements(leaf)) return false;
  }
  return true;
}

}  // namespace

struct GpuModuleEmitter::State {
  const GpuTarget* target;
  std::unique_ptr<llvm::LLVMContext> context;
  std::unique_ptr<llvm::Module> module;

  std::string UniqueSymbol(const std::string& name) {
    std::string base = KernelSymbol(name);
    std::string symbol = base;
    for (int i = 1; module->getNamedValue(symbol) != nullptr; ++i) {
      symbol = absl::StrCat(base, "_", i);
    }
    return symbol;
  }
};

GpuModuleEmitter::GpuModuleEmitter(const std::string& module_name,
                                   const GpuTarget& target)
    : state_(std::make_unique<State>()) {
  state_->target = &target;
  state_->context = std::make_unique<llvm::LLVMContext>();
  state_->module =
      std::make_unique<llvm::Module>(module_name, *state_->context);
  state_->module->setTargetTriple(target.triple());
  state_->module->setDataLayout(target.data_layout());
}

GpuModuleEmitter::~GpuModuleEmitter() = default;

absl::StatusOr<std::vector<GpuKernel>> GpuModuleEmitter::EmitKernels(
    const HloInstruction& hlo, const std::string& name,
    const KernelBuffers& buffers) {
  if (state_->module == nullptr) {
    return absl::FailedPreconditionError("GpuModuleEmitter already finished");
  }
  // Fusions our passes make have a known shape (fusion_kinds.h); fusions
  // from elsewhere (XLA's optimized modules: kInput, Triton softmax) still
  // compute their root from their parameters element by element, so the
  // same emitters handle them. Dots and dot-epilogue fusions get here on
  // rocm, and on cuda where no cuBLAS call fits (gemm_lowering.h): a tiled
  // kernel (tiled_dot_emitter.cc), or where it does not apply a loop
  // kernel whose every element loops over the contracted dimension.
  HLOC_ASSIGN_OR_RETURN(KernelInfo info, AnalyzeKernel(hlo));
  KernelRequest request{state_->target, state_->module.get(), &info, &buffers,
                        ""};
  std::vector<GpuKernel> kernels;
  // A result of no elements is written by no kernel, whatever computes it
  // (a ragged-dot with an empty dimension has no emitter that takes it).
  if (HasNoElements(hlo.shape())) return kernels;
  auto emit = [&](const std::function<absl::StatusOr<LaunchDims>()>& body)
      -> absl::Status {
    HLOC_ASSIGN_OR_RETURN(LaunchDims dims, body());
    // An empty iteration space needs no launch.
    if (dims.NumBlocks() == 0) {
      state_->module->getFunction(request.symbol)->eraseFromParent();
      return absl::OkStatus();
    }
    // Every kernel built here began with the target's prologue. The
    // kernels of a radix sort of several passes launch the ordinary way:
    // launched programmatically, sort_1m took 61.9 us against 56.6 and
    // argsort_1m 76.5 against 72.5 (H200, session 22 call 5, four rounds
    // alike), while a one-kernel sort (argsort_rows, 89.7 against 91.2)
    // gains like every other kernel.
    const bool multi_pass_sort =
        IsRadixSortCall(&hlo) && RadixSortKernelSteps(&hlo) > 1;
    dims.programmatic =
        state_->target->device().grid_dependency_control && !multi_pass_sort;
    kernels.push_back({request.symbol, dims});
    return absl::OkStatus();
  };
  auto cleanup = [&](absl::Status status) -> absl::Status {
    for (const GpuKernel& k : kernels) {
      if (llvm::Function* f = state_->module->getFunction(k.name)) {
        f->eraseFromParent();
      }
    }
    return status;
  };

  const HloInstruction* root = info.fused ? hlo.fused_expression_root() : &hlo;
  if (info.outputs.size() == 1 &&
      root->opcode() == HloOpcode::kDynamicUpdateSlice &&
      !buffers.output_in_place_of.empty() &&
      buffers.output_in_place_of[0] >= 0 &&
      buffers.output_in_place_of[0] == InPlaceOperand(hlo, /*scatter=*/false)) {
    request.symbol = state_->UniqueSymbol(name);
    absl::Status s = emit(
        [&]() { return EmitInPlaceDynamicUpdateSliceKernel(request, root); });
    if (!s.ok()) return cleanup(s);
    return kernels;
  }
  if (int steps = OpKernelSteps(request, root); steps > 0) {
    for (int step = 0; step < steps; ++step) {
      request.symbol = state_->UniqueSymbol(name);
      absl::Status s =
          emit([&]() { return EmitOpKernel(request, root, step); });
      if (!s.ok()) return cleanup(s);
    }
    return kernels;
  }
  if (const HloInstruction* dot = FindTiledDot(info)) {
    request.symbol = state_->UniqueSymbol(name);
    absl::Status s = emit([&]() { return EmitTiledDotKernel(request, dot); });
    if (!s.ok()) return cleanup(s);
    return kernels;
  }
  if (IsRowFusion(hlo)) {
    request.symbol = state_->UniqueSymbol(name);
    absl::Status s = emit([&]() { return EmitRowFusionKernel(request); });
    if (!s.ok()) return cleanup(s);
    return kernels;
  }
  // Reduction kernels compute epilogue outputs (fusion_kinds.h) as they
  // write; a reduction fusion neither kernel takes falls to the loop kernel
  // below, which reduces per output element.
  if (std::optional<ReductionInfo> r =
          AnalyzeReduction(info, /*allow_epilogue=*/true);
      r && IsContiguousRowReduction(*r)) {
    request.symbol = state_->UniqueSymbol(name);
    absl::Status s =
        emit([&]() { return EmitRowReductionKernel(request, *r); });
    if (!s.ok()) return cleanup(s);
    return kernels;
  }
  if (std::optional<ReductionInfo> r =
          AnalyzeReduction(info, /*allow_epilogue=*/true);
      r && IsColumnReduction(*r)) {
    request.symbol = state_->UniqueSymbol(name);
    absl::Status s =
        emit([&]() { return EmitColumnReductionKernel(request, *r); });
    if (!s.ok()) return cleanup(s);
    return kernels;
  }
  if (const HloInstruction* hero = FindTransposeHero(info)) {
    request.symbol = state_->UniqueSymbol(name);
    absl::Status s = emit([&]() { return EmitTransposeKernel(request, hero); });
    if (!s.ok()) return cleanup(s);
    return kernels;
  }
  for (const std::vector<size_t>& group : GroupOutputsByDimensions(info)) {
    request.symbol = state_->UniqueSymbol(name);
    absl::Status s = emit([&]() { return EmitLoopKernel(request, group); });
    if (!s.ok()) return cleanup(s);
  }
  return kernels;
}

std::string GpuModuleEmitter::ModuleText() const {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (state_->module) state_->module->print(os, nullptr);
  return text;
}

absl::StatusOr<std::string> GpuModuleEmitter::Finish(CompilePhaseTimes* times,
                                                     bool assembly) {
  if (state_->module == nullptr) {
    return absl::FailedPreconditionError("GpuModuleEmitter already finished");
  }
  absl::StatusOr<std::string> code =
      assembly
          ? state_->target->CompileModuleToAssembly(state_->module.get(), times)
          : state_->target->CompileModule(state_->module.get(), times);
  state_->module.reset();
  return code;
}

}  // namespace hloc
