// The executable: what compilation hands the runtime. Kernels as object
// code (CPU) or device code (GPU: PTX, cubin, HSA code objects), the thunk
// sequence (one step per instruction that does work: a kernel call on
// buffer slots, the reference evaluator on a one-instruction module, and on
// GPUs also host-driven while loops and conditionals with nested steps,
// device copies and vendor library calls), the buffer plan (allocations and
// where each value lives in them) and the entry signature. It holds no pointers
// into the compiler's IR, so it can be saved, shipped and loaded
// (cpu_executor.h runs it; object_loader.h links its object code).
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
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hlo/collectives.h"
#include "hlo/instruction.h"
#include "hlo/lapack_custom_call.h"
#include "hlo/module.h"
#include "hlo/shape.h"
#include "runtime/buffer_assignment.h"

namespace hloc {

// Version 2 added device code, launch dimensions, nested steps (while,
// conditional), copies and library calls.
inline constexpr uint32_t kExecutableFormatVersion = 2;

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

// A GPU kernel's grid and block (see ExecutableStep::launch).
struct LaunchDims {
  int64_t grid[3] = {1, 1, 1};
  int64_t block[3] = {1, 1, 1};
  int64_t shared_memory_bytes = 0;
  // The kernel begins by waiting for the grid launched before it in the
  // stream (griddepcontrol.wait, backends/gpu/gpu_target.h), so the
  // runtime may launch it as a programmatic dependent of that grid.
  bool programmatic = false;
  int64_t NumBlocks() const { return grid[0] * grid[1] * grid[2]; }
  int64_t NumThreadsPerBlock() const { return block[0] * block[1] * block[2]; }
};

// A matrix product done by a vendor library; see GemmConfigProto in
// executable.proto for the meaning of each field.
struct GemmConfig {
  int64_t m = 0, n = 0, k = 0, batch = 1;
  bool transpose_lhs = false, transpose_rhs = false;
  int64_t lda = 0, ldb = 0, ldc = 0;
  int64_t stride_lhs = 0, stride_rhs = 0, stride_out = 0;
  PrimitiveType lhs_type = PRIMITIVE_TYPE_INVALID;
  PrimitiveType rhs_type = PRIMITIVE_TYPE_INVALID;
  PrimitiveType out_type = PRIMITIVE_TYPE_INVALID;
  double alpha = 1.0, beta = 0.0;
  bool allow_tf32 = false;
  std::string epilogue;
};

// A convolution (or its filter gradient) done by a vendor library (cuDNN); see
// ConvConfigProto in executable.proto for the meaning of each field.
struct ConvConfig {
  PrimitiveType type = PRIMITIVE_TYPE_INVALID;
  bool channels_last = true;
  int64_t batch = 0, input_features = 0, output_features = 0;
  int64_t feature_group_count = 1;
  std::vector<int64_t> input_spatial, kernel_spatial, output_spatial;
  std::vector<int64_t> strides, padding, dilation;
  bool allow_tf32 = false;
  // The filter's gradient of the convolution described (cuDNN's backward
  // filter): the step's buffers are (input, output gradient, filter), not
  // (input, filter, output). XLA's batch-grouped convolutions are these.
  bool backward_filter = false;
};

// The settings of a library call other than a gemm or a convolution (the
// CPU's fft and LAPACK calls, cuda's cuFFT); see LibraryConfigProto in
// executable.proto.
struct LibraryConfig {
  FftType fft_type = FftType::kFft;
  std::vector<int64_t> fft_length;
  char uplo = 'L', side = 'L', trans = 'N', diag = 'N', mode = 'V';
  // geev's jobvl and jobvr; gehrd's ilo and ihi.
  char jobvl = 'N', jobvr = 'N';
  int64_t ilo = 1, ihi = 0;
  bool hlo_cholesky = false;
  // "cusolver.gesvdj": U and V with min(m, n) columns only.
  bool econ = false;
  // "cusolver.syevd": jaxlib's algorithm (0 default, 1 QR, 2 Jacobi;
  // runtime/solver_method.h says what each runs).
  int eigh_algorithm = 0;
};

// A triangular-solve's options as LAPACK's and cuBLAS's codes in `config`
// (the CPU's lapack.trsm and cuda's cublas.trsm steps): side 'L' or 'R',
// uplo 'L' or 'U', trans 'N', 'T' or 'C' (XLA's NO_TRANSPOSE, TRANSPOSE,
// ADJOINT) and diag 'U' (unit) or 'N'.
void SetTriangularSolveCodes(const TriangularSolveOptions& options,
                             LibraryConfig* config);

// A LAPACK custom call's attributes (hlo/lapack_custom_call.h) in `config`,
// for the "lapack.<routine>" step that runs it (the CPU's, and cuda's host
// calls).
void SetLapackCodes(const LapackCall& call, LibraryConfig* config);

// A collective across the devices of a replicated run, or a device's own
// id; see CollectiveConfigProto in executable.proto for each field. The
// CPU runtime runs it between threads (runtime/host_collectives.h), the
// CUDA runtime through NCCL (runtime/nccl_collectives.h).
struct CollectiveConfig {
  enum class Op {
    kAllReduce,
    kAllGather,
    kReduceScatter,
    kAllToAll,
    kCollectivePermute,
    kReplicaId,
    kPartitionId,
  };
  Op op = Op::kAllReduce;
  CollectiveReduction reduction = CollectiveReduction::kSum;
  int64_t replica_count = 1;
  int64_t num_partitions = 1;
  // Not for permutes and ids: the groups of flattened device ids (replica
  // * num_partitions + partition) that meet, each in rank order; every
  // device of the run is in exactly one.
  std::vector<std::vector<int64_t>> groups;
  // collective-permute: per device, the device it receives from (-1: it
  // receives zeros).
  std::vector<int64_t> sources;
};

absl::string_view CollectiveOpString(CollectiveConfig::Op op);

struct ExecutableStep {
  enum class Kind {
    kKernel,
    kEvaluator,
    // Host-driven control flow (GPU): see the fields below.
    kWhile,
    kConditional,
    // buffers[0] copied to buffers[1] (slots of equal size).
    kCopy,
    // A vendor library call (`library`) on `buffers`.
    kLibraryCall,
    // A collective or a device id (`collective`) on `buffers`.
    kCollective,
  };
  Kind kind = Kind::kKernel;
  std::string instruction;
  // kKernel: the symbol. CPU: called as void(void** buffers). GPU: launched
  // with `launch`, one pointer parameter per entry of `buffers`, in order.
  std::string kernel_name;
  // Buffer slots: the operands' leaves, then the outputs' leaves.
  std::vector<int64_t> buffers;
  // kKernel: how many of the last entries of `buffers` are the outputs the
  // kernel writes; it only reads the others. -1 (an executable saved
  // before the field): it may write any of them. A GPU runtime orders the
  // kernels of a graph by what they read and write (graph_streams.h).
  int64_t output_buffers = -1;
  // kEvaluator: HLO text of a module whose entry applies the instruction
  // to one parameter per operand; and why code generation declined it.
  std::string fallback_hlo;
  std::string fallback_reason;
  // kKernel on a GPU.
  LaunchDims launch;
  // kWhile: `condition` leaves its pred in predicate_buffer; while it is
  // true, `body` runs and then `condition` again. The compiler puts any
  // copies the loop state needs into these lists as kCopy steps.
  std::vector<ExecutableStep> condition;
  std::vector<ExecutableStep> body;
  // kWhile: how many times `body` runs where the compiler proved it
  // (hlo/while_trip_count.h), else -1. With a count the runtimes run the
  // body that many times and never the condition, so a GPU's iterations
  // are enqueued without the host reading each predicate back.
  int64_t trip_count = -1;
  // kConditional: branches[i] runs, i from predicate_buffer (pred: true is
  // branch 0, false branch 1; s32: out of range is the last branch).
  std::vector<std::vector<ExecutableStep>> branches;
  int64_t predicate_buffer = -1;
  // kLibraryCall: "cublas.gemm" (buffers: lhs, rhs, [bias,] out),
  // "cudnn.conv" (buffers: input, filter, out), "cufft" (buffers: input,
  // out; runtime/cufft_fft.h), "cusolver.<routine>" (buffers: operands,
  // then results; runtime/solver_check.h); on the CPU "fft" and
  // "lapack.<routine>" (runtime/cpu_library_call.h).
  std::string library;
  GemmConfig gemm;
  ConvConfig conv;
  LibraryConfig library_config;
  CollectiveConfig collective;
};

// Device code for a GPU platform, in one form.
struct DeviceCode {
  // "ptx", "cubin" or "hsaco".
  std::string format;
  // "sm_90", "gfx942", ...
  std::string arch;
  std::string code;
};

struct Executable {
  std::string name;
  // "cpu", "cuda" or "rocm".
  std::string platform = "cpu";
  // What the code was compiled for ("x86_64-unknown-linux-gnu",
  // "nvptx64-nvidia-cuda"); on CPUs also the CPU ("skylake-avx512") and
  // its features ("+avx512f,+avx2,...").
  std::string target_triple;
  std::string cpu_name;
  std::string cpu_features;
  // CPU: an ELF relocatable object with every kernel (empty if none).
  std::string object_code;
  // GPU: the kernels, in one or more forms (PTX and a cubin, say).
  std::vector<DeviceCode> device_code;
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
  bool IsGpu() const { return platform == "cuda" || platform == "rocm"; }
};

// Fills the buffer plan and the signature of `executable` from an
// assignment of `computation` (the entry): slot i is value i; constants'
// bytes are laid out here.
absl::Status SetBufferPlan(const BufferAssignment& assignment,
                           const HloComputation& computation,
                           Executable* executable);

// Appends the allocations and slots of `assignment` to `executable`'s plan
// and returns each value's slot. A nested computation's (`nested`: a while
// body, a branch) parameters get no slot (-1: the caller maps them onto
// the slots of the values they are) and its results are scratch memory.
absl::StatusOr<std::vector<int64_t>> AppendBufferPlan(
    const BufferAssignment& assignment, bool nested, Executable* executable);

// Calls `fn` on every step of `steps`, those nested in whiles and
// conditionals included (depth first, each before its nested ones).
void ForEachStep(const std::vector<ExecutableStep>& steps,
                 const std::function<void(const ExecutableStep&)>& fn);

// The module an evaluator step carries: `instruction` applied to one
// parameter per operand, with the computations it calls.
absl::StatusOr<std::unique_ptr<HloModule>> MakeFallbackModule(
    const HloInstruction& instruction);

// Structural checks: a known platform; every slot fits its allocation and
// has its shape's size; parameters and the result have slots of their
// leaves' shapes; steps (nested ones too) name existing slots and carry
// what their kind needs; constants carry their bytes.
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
