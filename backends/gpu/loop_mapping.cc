#include "backends/gpu/loop_mapping.h"

#include <vector>

#include "hlo/status_macros.h"

namespace hloc {

absl::Status GpuLoopMapping::EmitLoopNest(const Shape& shape,
                                          const BodyEmitter& body,
                                          llvm::IRBuilderBase* b) {
  return EmitLoopNestInRuns(shape, body, nullptr, b);
}

absl::Status GpuLoopMapping::EmitLoopNestInRuns(const Shape& shape,
                                                const BodyEmitter& body,
                                                const RunEmitter& run_body,
                                                llvm::IRBuilderBase* b) {
  const int64_t n = shape.ElementCount();
  // An empty iteration space is launched on no blocks (launch_dims.cc).
  if (n == 0) return absl::OkStatus();
  const int64_t unroll = launch_.unroll;
  const int64_t vectors = launch_.vectors;
  const int64_t threads = launch_.threads_per_block;
  // The thread's first run; its run j is `j * threads` runs further.
  llvm::Value* first_run = b->CreateAdd(
      b->CreateMul(kernel_->BlockId(0), kernel_->Index(vectors * threads), "",
                   /*HasNUW=*/true, /*HasNSW=*/true),
      kernel_->ThreadId(0), "run", true, true);
  std::vector<llvm::Value*> bases;
  for (int64_t j = 0; j < vectors; ++j) {
    llvm::Value* run =
        j == 0 ? first_run
               : b->CreateAdd(first_run, kernel_->Index(j * threads), "", true,
                              true);
    bases.push_back(
        b->CreateMul(run, kernel_->Index(unroll), "base", true, true));
  }
  // One run: its elements unchecked (the run is whole), or each checked.
  auto emit_run = [&](llvm::Value* base, bool checked) -> absl::Status {
    if (!checked && run_body && unroll > 1) {
      // A whole run to `run_body`, its inputs read at its positions one
      // vector load each (KernelGenerators::BeginRun).
      std::vector<llvm::Value*> linears;
      std::vector<IrIndex> run;
      for (int64_t e = 0; e < unroll; ++e) {
        linears.push_back(
            e == 0 ? base
                   : b->CreateAdd(base, kernel_->Index(e), "", true, true));
      }
      kernel_->generators().BeginRun(linears);
      for (llvm::Value* linear : linears) {
        run.push_back(IrIndex::FromLinear(linear, shape, b));
      }
      absl::Status status = run_body(run);
      kernel_->generators().EndRun();
      return status;
    }
    for (int64_t e = 0; e < unroll; ++e) {
      llvm::Value* linear =
          e == 0 ? base : b->CreateAdd(base, kernel_->Index(e), "", true, true);
      auto visit = [&]() {
        return body(IrIndex::FromLinear(linear, shape, b));
      };
      if (checked) {
        HLOC_RETURN_IF_ERROR(EmitIfThenElse(
            b->CreateICmpULT(linear, kernel_->Index(n)), visit, nullptr, b));
      } else {
        HLOC_RETURN_IF_ERROR(visit());
      }
    }
    return absl::OkStatus();
  };
  // Threads whose last (highest) run is whole take one unchecked block, so
  // that all their runs' loads can be issued before the first computes.
  auto all_runs = [&]() -> absl::Status {
    for (llvm::Value* base : bases) {
      HLOC_RETURN_IF_ERROR(emit_run(base, /*checked=*/false));
    }
    return absl::OkStatus();
  };
  // The threads at the end: when n is a multiple of `unroll` every run is
  // whole or wholly past the end (one check a run, vector accesses kept);
  // otherwise one run is partial and every element is checked.
  auto last_runs = [&]() -> absl::Status {
    for (llvm::Value* base : bases) {
      if (n % unroll == 0) {
        HLOC_RETURN_IF_ERROR(EmitIfThenElse(
            b->CreateICmpULT(base, kernel_->Index(n)),
            [&]() { return emit_run(base, /*checked=*/false); }, nullptr, b));
      } else {
        HLOC_RETURN_IF_ERROR(emit_run(base, /*checked=*/true));
      }
    }
    return absl::OkStatus();
  };
  if (n % (unroll * vectors * launch_.threads_per_block) == 0 ||
      (vectors == 1 && n % unroll == 0)) {
    // Every thread's runs are all whole or all past the end.
    return EmitIfThenElse(b->CreateICmpULT(bases.back(), kernel_->Index(n)),
                          all_runs, nullptr, b);
  }
  return EmitIfThenElse(
      b->CreateICmpSLE(bases.back(), kernel_->Index(n - unroll)), all_runs,
      last_runs, b);
}

}  // namespace hloc
