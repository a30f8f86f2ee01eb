#include "backends/gpu/loop_mapping.h"

#include "hlo/status_macros.h"

namespace hloc {

absl::Status GpuLoopMapping::EmitLoopNest(const Shape& shape,
                                          const BodyEmitter& body,
                                          llvm::IRBuilderBase* b) {
  const int64_t n = shape.ElementCount();
  const int64_t unroll = launch_.unroll;
  llvm::Value* thread =
      b->CreateAdd(b->CreateMul(kernel_->BlockId(0),
                                kernel_->Index(launch_.threads_per_block), "",
                                /*HasNUW=*/true, /*HasNSW=*/true),
                   kernel_->ThreadId(0), "thread", true, true);
  llvm::Value* base =
      b->CreateMul(thread, kernel_->Index(unroll), "base", true, true);
  auto run = [&](bool checked) -> absl::Status {
    for (int64_t j = 0; j < unroll; ++j) {
      llvm::Value* linear =
          j == 0 ? base : b->CreateAdd(base, kernel_->Index(j), "", true, true);
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
  if (n % unroll == 0) {
    return EmitIfThenElse(
        b->CreateICmpULT(base, kernel_->Index(n)),
        [&]() { return run(/*checked=*/false); }, nullptr, b);
  }
  return EmitIfThenElse(
      b->CreateICmpSLE(base, kernel_->Index(n - unroll)),
      [&]() { return run(/*checked=*/false); },
      [&]() { return run(/*checked=*/true); }, b);
}

}  // namespace hloc
