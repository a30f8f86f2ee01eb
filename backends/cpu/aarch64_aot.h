// Ahead-of-time code for AArch64 (aarch64-unknown-linux-gnu with NEON),
// run under qemu-user on an x86 machine.
//
// Compilation uses the CPU backend's one kernel emitter (ir_emitter.h: the
// same kernels, range functions and GOMP_parallel calls as the host JIT);
// only the triple, data layout and TargetMachine differ. To the kernels it
// adds an entry function that runs them in order over the module's buffer
// plan (runtime/buffer_assignment.h), so a module needs no generated C:
//
//   void hloc_aot_entry(void** parameters, void* scratch, void** results);
//
// parameters holds one pointer per parameter leaf (entry parameters in
// order, tuples depth-first), each buffer laid out as its shape says;
// scratch is hloc_aot_scratch_bytes bytes (64-byte aligned) for the arena
// of intermediates and the outputs; the entry stores the address of each
// result leaf in results. Constants live in the object's read-only data;
// the object also exports the sizes the driver needs (hloc_aot_num_*,
// hloc_aot_*_bytes; runtime/aot/aot_main.c lists them).
//
// Running: the object is linked with the fixed driver runtime/aot/aot_main.c
// by `aarch64-linux-gnu-gcc -fopenmp` (the kernels call libgomp, as on the
// host) and run by `qemu-aarch64 -L SYSROOT`; inputs and outputs travel as
// raw buffer files in a temporary directory.
//
// No evaluator on the target, so compilation is strict by default: an
// instruction that code generation declines fails it, listing each such
// instruction and why (backends/common/evaluator_fallback.h). With
// Aarch64AotOptions::allow_fallback (hlo-opt --fallback) such a module
// still compiles, a one-line warning per instruction, so the kernels'
// assembly can be read, but gets no entry, and running it fails with
// "aarch64 AOT cannot run NAME (OPCODE): no generated code yet". Custom
// calls the CPU backend does not implement (custom_call_targets.h) are
// refused by name either way.
#ifndef BACKENDS_CPU_AARCH64_AOT_H_
#define BACKENDS_CPU_AARCH64_AOT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "backends/cpu/ir_emitter.h"
#include "hlo/literal.h"
#include "hlo/module.h"
#include "runtime/executable.h"

namespace hloc {

inline constexpr char kAarch64Triple[] = "aarch64-unknown-linux-gnu";
inline constexpr char kAarch64Cpu[] = "generic";
inline constexpr char kAarch64Features[] = "+neon";

struct Aarch64AotOptions {
  CpuCodegenOptions codegen;
  // Compile even when an instruction has no generated code (the object
  // then has no entry); false: such instructions fail the compilation.
  bool allow_fallback = false;
  // With allow_fallback: print one line to stderr per such instruction.
  bool log_fallbacks = true;
  // Keep the optimized LLVM IR / the AArch64 assembly text.
  bool keep_ir = false;
  bool keep_asm = false;
};

struct Aarch64AotModule {
  // The buffer plan and the steps (kernel symbols; evaluator steps where
  // code generation declined), the object code, triple, cpu and features.
  Executable executable;
  // Where each arena or output allocation starts in the scratch block (-1
  // for parameters and constants), and the block's size.
  std::vector<int64_t> scratch_offsets;
  int64_t scratch_bytes = 0;
  // "NAME (OPCODE)" of each instruction without generated code; the module
  // runs only when this is empty (then the object has hloc_aot_entry).
  std::vector<std::string> missing;
  std::string optimized_ir;
  std::string assembly;
};

// Compiles `module` (after the CPU pass pipeline, or not; see
// cpu_compiler.h for what a valid input is) to an AArch64 ELF object.
absl::StatusOr<Aarch64AotModule> CompileForAarch64(
    const HloModule& module, const Aarch64AotOptions& options = {});

// The cross tools: from $HLOC_AARCH64_CC, $HLOC_QEMU_AARCH64 and
// $HLOC_AARCH64_SYSROOT if set, else aarch64-linux-gnu-gcc and qemu-aarch64
// found on PATH and /usr/aarch64-linux-gnu. FailedPrecondition naming what
// is missing (and the Debian package that has it) otherwise.
struct Aarch64Tools {
  std::string cc;
  std::string qemu;
  std::string sysroot;
};
absl::StatusOr<Aarch64Tools> FindAarch64Tools();

struct Aarch64RunStats {
  double link_ms = 0;
  // Wall time of the qemu process (start-up, I/O and the run).
  double qemu_ms = 0;
  // The entry's own time, as the driver measured it under emulation.
  double entry_ms = 0;
};

struct Aarch64RunOptions {
  // Where the object, driver, program and buffer files go; empty: a fresh
  // temporary directory, removed afterwards.
  std::string work_dir;
  Aarch64RunStats* stats = nullptr;
};

// Links `compiled` with the driver and runs it once under qemu on
// `arguments` (one per entry parameter, row-major literals); returns the
// result (a tuple for a tuple-shaped root).
absl::StatusOr<Literal> RunAarch64UnderQemu(
    const Aarch64AotModule& compiled, absl::Span<const Literal> arguments,
    const Aarch64RunOptions& options = {});

}  // namespace hloc

#endif  // BACKENDS_CPU_AARCH64_AOT_H_
