// Loading a saved executable to run: its object code is linked into this
// process by LLVM's ORC JIT linker (LLJIT::addObjectFile; JITLink), with no
// code generation: this library needs LLVM's JIT linker only, never the
// compiler's IR emitters or optimization pipeline. The kernels' external
// symbols resolve as kernel_symbols.h says: libgomp's entry points and the
// f16/bf16 conversion builtins bound by address, the rest (libm) to this
// process.
//
// Before linking, the executable's target is checked against the host: the
// same architecture, and every CPU feature the kernels were compiled for
// ("+avx512f", ...) present, so a file compiled on a newer CPU gives an
// error instead of an illegal instruction.
#ifndef RUNTIME_OBJECT_LOADER_H_
#define RUNTIME_OBJECT_LOADER_H_

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "hlo/literal.h"
#include "runtime/cpu_executor.h"
#include "runtime/executable.h"

namespace hloc {

// An object file linked into this process.
class LoadedObject {
 public:
  // `name` labels the object in errors.
  static absl::StatusOr<std::unique_ptr<LoadedObject>> Load(
      absl::string_view object_code, absl::string_view name);
  ~LoadedObject();

  // The address of a symbol of the object (links it on first use).
  absl::StatusOr<void*> Lookup(const std::string& symbol);

 private:
  struct State;
  LoadedObject();
  std::unique_ptr<State> state_;
};

// Whether this host can run code compiled for `target_triple` with
// `cpu_features`.
absl::Status CheckHostCanRun(const Executable& executable);

// An executable ready to run: its object linked, its kernels resolved.
class LoadedCpuExecutable {
 public:
  static absl::StatusOr<std::unique_ptr<LoadedCpuExecutable>> Load(
      Executable executable);
  ~LoadedCpuExecutable();

  // As CpuExecutor::Run.
  absl::StatusOr<Literal> Run(absl::Span<const Literal> arguments,
                              DenormalMode denormals = DenormalMode::kFlush,
                              int64_t max_while_iterations = 0) {
    return executor_->Run(arguments, denormals, max_while_iterations);
  }
  const Executable& executable() const { return executor_->executable(); }
  int64_t fallback_runs() const { return executor_->fallback_runs(); }

 private:
  LoadedCpuExecutable() = default;
  // Declared first: the executor's kernels live in it.
  std::unique_ptr<LoadedObject> object_;
  std::unique_ptr<CpuExecutor> executor_;
};

// ReadExecutableFile + LoadedCpuExecutable::Load.
absl::StatusOr<std::unique_ptr<LoadedCpuExecutable>> LoadCpuExecutableFile(
    const std::string& path);

}  // namespace hloc

#endif  // RUNTIME_OBJECT_LOADER_H_
