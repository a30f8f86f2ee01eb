// HipExecutor: runs a "rocm" Executable (executable.h) on an AMD GPU through
// the HIP runtime (hip_driver.h); it compiles nothing and links no LLVM and
// no ROCm. The same executable format and buffer plan as CudaExecutor's:
// one device allocation for the whole plan (256-byte aligned allocations),
// constants uploaded once, kernel arguments computed once, a run copying
// only the entry parameters in and the results out.
//
// Create loads the first code object ("hsaco") the runtime accepts for the
// device (the runtime refuses code objects for another ISA) and resolves
// every kernel. Steps run in order on one stream: kernels, copies, and
// while loops and conditionals whose predicate is read on the host. The
// rocm compiler emits no evaluator or library steps; an executable with one
// is refused by Create, naming it.
//
// Not yet run on an AMD GPU (none could be reached while it was written):
// hip_executor_test runs it where one is present and skips, saying so,
// elsewhere.
#ifndef RUNTIME_HIP_EXECUTOR_H_
#define RUNTIME_HIP_EXECUTOR_H_

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hlo/literal.h"
#include "runtime/executable.h"
#include "runtime/hip_driver.h"

namespace hloc {

class HipExecutor {
 public:
  static absl::StatusOr<std::unique_ptr<HipExecutor>> Create(
      Executable executable, int device_ordinal = 0);
  ~HipExecutor();

  // One argument per entry parameter, shapes compatible with the
  // parameters'.
  absl::StatusOr<Literal> Run(absl::Span<const Literal> arguments);

  const Executable& executable() const { return executable_; }
  // The device's name and which code object was loaded ("hsaco gfx942").
  const std::string& device_name() const { return device_name_; }
  const std::string& loaded_code() const { return loaded_code_; }
  int64_t kernel_launches() const { return kernel_launches_; }

 private:
  HipExecutor() = default;
  absl::Status LoadModule();
  absl::Status AllocateAndUpload();
  absl::Status ResolveKernels(const std::vector<ExecutableStep>& steps,
                              const std::string& prefix);
  absl::Status RunSteps(const std::vector<ExecutableStep>& steps,
                        const std::string& prefix);
  absl::StatusOr<int64_t> ReadPredicate(const ExecutableStep& step,
                                        const std::string& what);

  Executable executable_;
  hip::HipDriver* driver_ = nullptr;
  std::string device_name_;
  std::string loaded_code_;
  hip::hipModule_t module_ = nullptr;
  hip::hipStream_t stream_ = nullptr;
  char* block_ = nullptr;
  int64_t device_bytes_ = 0;
  std::vector<char*> slot_address_;
  std::map<std::string, hip::hipFunction_t> kernels_;
  int64_t kernel_launches_ = 0;
  std::mutex run_mutex_;
};

}  // namespace hloc

#endif  // RUNTIME_HIP_EXECUTOR_H_
