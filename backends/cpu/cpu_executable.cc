#include "backends/cpu/cpu_executable.h"

#include <utility>

namespace hloc {

CpuExecutable::CpuExecutable(std::unique_ptr<HloModule> module,
                             BufferAssignment assignment,
                             std::vector<CpuStep> steps,
                             std::unique_ptr<JitModule> jit,
                             std::unique_ptr<CpuExecutor> executor)
    : module_(std::move(module)),
      assignment_(std::move(assignment)),
      steps_(std::move(steps)),
      jit_(std::move(jit)),
      executor_(std::move(executor)) {}

CpuExecutable::~CpuExecutable() = default;

std::vector<std::string> CpuExecutable::fallback_instructions() const {
  std::vector<std::string> names;
  ForEachStep(executable().steps, [&](const ExecutableStep& step) {
    if (step.kind == ExecutableStep::Kind::kEvaluator) {
      names.push_back(step.instruction);
    }
  });
  return names;
}

int64_t CpuExecutable::kernel_count() const {
  int64_t n = 0;
  ForEachStep(executable().steps, [&](const ExecutableStep& step) {
    n += step.kind == ExecutableStep::Kind::kKernel;
  });
  return n;
}

absl::StatusOr<Literal> CpuExecutable::Run(absl::Span<const Literal> arguments,
                                           DenormalMode denormals,
                                           int64_t max_while_iterations,
                                           const HostReplica& replica) {
  return executor_->Run(arguments, denormals, max_while_iterations, replica);
}

}  // namespace hloc
