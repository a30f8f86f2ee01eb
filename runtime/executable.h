// The executable: what compilation hands the runtime. Kernels as object
// code, the thunk sequence (one step per instruction that does work: a
// kernel call on buffer slots, or the reference evaluator on a one-
// instruction module), the buffer plan (allocations and where each value
// lives in them) and the entry signature. It holds no pointers into the
// compiler's IR, so it can be saved, shipped and loaded (cpu_executor.h
// runs it; object_loader.h links its object code).
//
// File format: a 32-byte header, then an ExecutableProto
// (runtime/executable.proto):
//   bytes 0-7   magic "hlocexe\0"
//   bytes 8-11  format version (little-endian u32, kExecutableFormatVersion)
//   bytes 12-15 zero
//   bytes 16-23 payload size in bytes (u64)
//   bytes 24-31 FNV-1a 64-bit hash of the payload (u64)
// Reading checks the header, the size and the hash before parsing, then
// every index, offset and size (ValidateExecutable): a truncated or corrupt
// file gives an error saying which, never a crash.
#ifndef RUNTIME_EXECUTABLE_H_
#define RUNTIME_EXECUTABLE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hlo/instruction.h"
#include "hlo/module.h"
#include "hlo/shape.h"
#include "runtime/buffer_assignment.h"

namespace hloc {

inline constexpr uint32_t kExecutableFormatVersion = 1;

struct ExecutableAllocation {
  BufferAllocation::Kind kind = BufferAllocation::Kind::kArena;
  int64_t size = 0;
  int64_t parameter_number = -1;
  int64_t parameter_leaf = -1;
  // kConstant: the bytes, laid out as the buffer's shape says.
  std::string constant_data;
};

// Where one value lives: a slot.
struct ExecutableBuffer {
  int64_t allocation = 0;
  int64_t offset = 0;
  int64_t size = 0;
  // An array (or token) shape with its layout.
  Shape shape;
  std::string name;
};

struct ExecutableStep {
  enum class Kind { kKernel, kEvaluator };
  Kind kind = Kind::kKernel;
  std::string instruction;
  // kKernel: the symbol, called as void(void** buffers).
  std::string kernel_name;
  // Buffer slots: the operands' leaves, then the outputs' leaves.
  std::vector<int64_t> buffers;
  // kEvaluator: HLO text of a module whose entry applies the instruction
  // to one parameter per operand; and why code generation declined it.
  std::string fallback_hlo;
  std::string fallback_reason;
};

struct Executable {
  std::string name;
  std::string platform = "cpu";
  // What the object code was compiled for ("x86_64-unknown-linux-gnu",
  // "skylake-avx512", "+avx512f,+avx2,...").
  std::string target_triple;
  std::string cpu_name;
  std::string cpu_features;
  // An ELF relocatable object with every kernel (empty if none).
  std::string object_code;
  // The optimized module, as HLO text (for inputs, tolerances, messages).
  std::string hlo_module;

  std::vector<Shape> parameter_shapes;
  Shape result_shape;
  std::vector<ExecutableAllocation> allocations;
  std::vector<ExecutableBuffer> buffers;
  // Per entry parameter, the slots of its leaves (depth-first).
  std::vector<std::vector<int64_t>> parameter_buffers;
  // The slots of the result's leaves (depth-first).
  std::vector<int64_t> result_buffers;
  std::vector<ExecutableStep> steps;

  // Bytes of allocations of one kind.
  int64_t AllocationBytes(BufferAllocation::Kind kind) const;
};

// Fills the buffer plan and the signature of `executable` from an
// assignment of `computation` (the entry): slot i is value i; constants'
// bytes are laid out here.
absl::Status SetBufferPlan(const BufferAssignment& assignment,
                           const HloComputation& computation,
                           Executable* executable);

// The module an evaluator step carries: `instruction` applied to one
// parameter per operand, with the computations it calls.
absl::StatusOr<std::unique_ptr<HloModule>> MakeFallbackModule(
    const HloInstruction& instruction);

// Structural checks: every slot fits its allocation and has its shape's
// size; parameters and the result have slots of their leaves' shapes;
// steps name existing slots; constants carry their bytes.
absl::Status ValidateExecutable(const Executable& executable);

absl::StatusOr<std::string> SerializeExecutable(const Executable& executable);
// `what` names the source in errors (a file name).
absl::StatusOr<Executable> DeserializeExecutable(
    absl::string_view bytes, absl::string_view what = "executable");

absl::Status WriteExecutableFile(const std::string& path,
                                 const Executable& executable);
absl::StatusOr<Executable> ReadExecutableFile(const std::string& path);

// A readable summary: signature, allocations, slots and steps.
std::string DescribeExecutable(const Executable& executable);

}  // namespace hloc

#endif  // RUNTIME_EXECUTABLE_H_
