// The target facts the GPU kernel emitters need, behind one small
// interface: thread/block ids and dimensions, the block barrier, warp
// shuffles, the shared-memory address space, how a function becomes a
// kernel, the math library, the triple and data layout, and turning the
// finished module into device code. NVIDIA (nvptx_target.h) and AMD
// (amdgpu_target.h) implement it: a second implementation, not a second
// backend. The emitters never look at the triple; what differs between
// GPU models as data (warp size, shared memory) is in device().
//
// Only forward declarations of LLVM types here: this header is included by
// the compiler driver, which must not pay for LLVM's headers.
#ifndef BACKENDS_GPU_GPU_TARGET_H_
#define BACKENDS_GPU_GPU_TARGET_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "backends/gpu/device_info.h"
#include "backends/gpu/matrix_layout.h"
#include "hlo/primitive_type.h"

namespace llvm {
class Function;
class IRBuilderBase;
class Module;
class Value;
}  // namespace llvm

namespace hloc {

class MathLibrary;
struct CompilePhaseTimes;

class GpuTarget {
 public:
  virtual ~GpuTarget() = default;

  const GpuDeviceInfo& device() const { return device_; }

  virtual std::string triple() const = 0;
  virtual std::string data_layout() const = 0;
  // The platform name executables carry ("cuda", "rocm").
  virtual std::string platform() const = 0;
  // The device code format CompileModule returns ("ptx", "hsaco").
  virtual std::string code_format() const = 0;

  // i32 values of the hardware registers; dim is 0 (x), 1 (y) or 2 (z).
  virtual llvm::Value* EmitThreadId(int dim, llvm::IRBuilderBase* b) const = 0;
  virtual llvm::Value* EmitBlockId(int dim, llvm::IRBuilderBase* b) const = 0;
  // Waits for every thread of the block; shared-memory writes before it are
  // visible to every thread after it.
  virtual void EmitBarrier(llvm::IRBuilderBase* b) const = 0;
  // The i32 `value` of the lane (own lane id xor lane_mask), all lanes of
  // the warp taking part (a butterfly step of a warp reduction).
  virtual llvm::Value* EmitShuffleXorI32(llvm::Value* value, int lane_mask,
                                         llvm::IRBuilderBase* b) const = 0;
  // The i32 `value` of lane (own lane id - delta), all lanes taking part;
  // lanes below `delta` get their own value back (a step of a warp prefix
  // scan).
  virtual llvm::Value* EmitShuffleUpI32(llvm::Value* value, int delta,
                                        llvm::IRBuilderBase* b) const = 0;
  // The i32 `value` of lane `source_lane`, all lanes taking part (a
  // broadcast within the warp).
  virtual llvm::Value* EmitShuffleIndexI32(llvm::Value* value, int source_lane,
                                           llvm::IRBuilderBase* b) const = 0;
  // The mask of the warp's lanes whose i1 `predicate` is true, an integer
  // of warp_size bits (lane i is bit i), all lanes taking part (a radix
  // sort's ranking of equal digits); nullptr where the target has none (a
  // logical warp wider than the hardware's).
  virtual llvm::Value* EmitBallot(llvm::Value* predicate,
                                  llvm::IRBuilderBase* b) const {
    return nullptr;
  }
  // Waits for every lane of the warp; shared-memory writes before it are
  // visible to the warp's lanes after it.
  virtual void EmitWarpSync(llvm::IRBuilderBase* b) const {}
  // The warp-wide matrix multiply-add instruction (AMD's MFMA, NVIDIA's
  // mma.sync) the tiled dot kernel may use for operands of `operand_type`
  // accumulating in f32, or none (RDNA has no MFMA; pre-Ampere NVIDIA
  // parts are not modelled).
  virtual std::optional<MatrixShape> MatrixInstruction(
      PrimitiveType operand_type) const {
    return std::nullopt;
  }
  // D = A * B + C of one instruction of `shape`, every lane of the warp
  // taking part (matrix_layout.h says which elements a lane holds): `a` and
  // `b` are the lane's operand elements (a scalar, or a vector of a_values
  // / b_values), `c` its accumulators (<accumulators x float>).
  virtual llvm::Value* EmitMatrixMultiplyAdd(
      const MatrixShape& shape, llvm::Value* a, llvm::Value* b, llvm::Value* c,
      llvm::IRBuilderBase* builder) const {
    return nullptr;
  }
  // NVIDIA's ldmatrix.x4 for the mma.sync operands of 16-bit types: four
  // 8 x 8 matrices of 16-bit elements read from shared memory, row r of
  // matrix i (16 bytes, 16-byte aligned) at the address `shared_row` of
  // lane 8i + r. Lane l receives register i: the elements (row l / 4,
  // columns 2 (l % 4) and 2 (l % 4) + 1) of matrix i, or with `transpose`
  // (rows 2 (l % 4) and 2 (l % 4) + 1, column l / 4), the lower in the
  // low half: exactly an mma.sync m16n8k16 operand register's pair. A
  // <4 x i32>; only called where has_matrix_load().
  virtual bool has_matrix_load() const { return false; }
  virtual llvm::Value* EmitMatrixLoad(llvm::Value* shared_row, bool transpose,
                                      llvm::IRBuilderBase* b) const {
    return nullptr;
  }
  virtual unsigned shared_address_space() const = 0;
  virtual unsigned global_address_space() const = 0;

  // Copies between global and shared memory that the thread does not wait
  // for (device().async_copy: NVIDIA's cp.async, sm_80 and later), so that
  // a kernel can have the next tiles in flight while it computes on the
  // last ones without holding them in registers. EmitAsyncCopy copies 16
  // bytes from `global_src` (a global pointer, 16-byte aligned, readable
  // even where `valid` is false) to `shared_dst` (16-byte aligned), or
  // writes 16 zero bytes where the i1 `valid` is false. EmitAsyncCommit
  // closes the thread's copies issued since the last commit into a group;
  // EmitAsyncWait waits until at most `pending` of its groups are still in
  // flight. The copies become visible to the block's other threads at the
  // barrier after the wait. Only targets whose devices set async_copy are
  // asked for them.
  virtual void EmitAsyncCopy(llvm::Value* shared_dst, llvm::Value* global_src,
                             llvm::Value* valid, llvm::IRBuilderBase* b) const {
  }
  virtual void EmitAsyncCommit(llvm::IRBuilderBase* b) const {}
  virtual void EmitAsyncWait(int pending, llvm::IRBuilderBase* b) const {}

  // The scope of the atomics with which kernels combine values in global
  // memory (scatters): every thread that meets them runs on this device.
  // The LLVM sync scope's name: "", LLVM's default, the whole system, is
  // what NVPTX's atom.global gives; AMDGPU narrows it to "agent", where
  // system-scope integer atomics would be expanded into compare-and-swap
  // loops.
  virtual std::string atomic_scope() const { return ""; }

  // Makes `fn` a kernel entry point launched with at most
  // `max_threads_per_block` threads per block.
  virtual void MarkKernel(llvm::Function* fn,
                          int64_t max_threads_per_block) const = 0;

  // What every kernel does before it touches memory. Where the device has
  // grid dependency control (device_info.h): wait for the grid launched
  // before it, then let the next launch's blocks be scheduled. The
  // runtime may launch such kernels as programmatic dependents
  // (LaunchDims::programmatic, CudaExecutorOptions::programmatic_launch).
  virtual void EmitKernelPrologue(llvm::IRBuilderBase* b) const {}

  virtual const MathLibrary& math() const = 0;

  // Links the device libraries the module calls into (only what it needs),
  // optimizes it and returns its device code in code_format(). The module
  // is consumed (left empty or undefined). Adds the time of the
  // optimisation and of the code generation to `times` when not null.
  virtual absl::StatusOr<std::string> CompileModule(
      llvm::Module* module, CompilePhaseTimes* times) const = 0;

  // As CompileModule, but the target's assembly text (hlo-opt's asm
  // stage). PTX is both NVPTX's assembly and its device code.
  virtual absl::StatusOr<std::string> CompileModuleToAssembly(
      llvm::Module* module, CompilePhaseTimes* times) const {
    return CompileModule(module, times);
  }

 protected:
  explicit GpuTarget(GpuDeviceInfo device) : device_(std::move(device)) {}

 private:
  GpuDeviceInfo device_;
};

}  // namespace hloc

#endif  // BACKENDS_GPU_GPU_TARGET_H_
