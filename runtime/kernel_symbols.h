// The symbols compiled kernels call that this program provides, bound by
// address in every JIT that links kernels: the compiler's (backends/cpu/
// jit.h) and the saved-executable loader's (object_loader.h). Any other
// external symbol resolves to this process (libm).
//
// - libgomp's entry points (see backends/cpu/ir_emitter.h for why the
//   kernels call GOMP_parallel): the ones this program runs with, whatever
//   else the process has loaded.
// - The compiler-rt builtins LLVM's x86 code generator calls for f16 and
//   bf16 where the CPU has no conversion instruction: without F16C every
//   f16 <-> f32 conversion is __extendhfsf2 / __truncsfhf2, and without
//   AVX512-BF16 (or AVX-NE-CONVERT) a bf16 value that LLVM keeps in a
//   register across blocks is promoted to f32 and stored back through
//   __truncsfbf2, even where the IR has no conversion at all. Neither this
//   process nor Debian's libgcc reliably defines them, so the program does,
//   with the same rounding as hlo/float16.h (round to nearest even, NaN
//   stays a quiet NaN) and hence the evaluator.
// - hloc_while_iteration, which compiled while loops ask before each
//   iteration (runtime/while_limit.h).
#ifndef RUNTIME_KERNEL_SYMBOLS_H_
#define RUNTIME_KERNEL_SYMBOLS_H_

#include <utility>
#include <vector>

#include "absl/status/status.h"

namespace llvm {
namespace orc {
class LLJIT;
}  // namespace orc
}  // namespace llvm

namespace hloc {

// Each symbol's name and address (for tests and for the JITs below).
std::vector<std::pair<const char*, void*>> KernelRuntimeSymbols();

// Defines KernelRuntimeSymbols() in `jit`'s main library and lets the
// remaining external symbols resolve to this process.
absl::Status DefineKernelRuntimeSymbols(llvm::orc::LLJIT& jit);

}  // namespace hloc

#endif  // RUNTIME_KERNEL_SYMBOLS_H_
