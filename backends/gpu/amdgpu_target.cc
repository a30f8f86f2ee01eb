#include "backends/gpu/amdgpu_target.h"

#include <cstdlib>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/common/compile_phase_times.h"
#include "backends/common/math_library.h"
#include "backends/gpu/device_bitcode.h"
#include "backends/gpu/hsaco_linker.h"
#include "backends/gpu/llvm_codegen.h"
#include "llvm/IR/CallingConv.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/IntrinsicsAMDGPU.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"

namespace hloc {
namespace {

constexpr char kTriple[] = "amdgcn-amd-amdhsa";
// Address spaces of the AMDGPU backend (LLVM's AMDGPUUsage): global memory
// and the workgroup's LDS (local data share, CUDA's shared memory).
constexpr unsigned kGlobalAddressSpace = 1;
constexpr unsigned kLdsAddressSpace = 3;
constexpr char kOcmlPrefix[] = "__ocml_";
// The code object version the kernels and oclc_abi_version_500.bc agree
// on (LLVM 19's default; ROCm 5.x and later load it).
constexpr int kCodeObjectVersion = 500;

// ocml's functions are named __ocml_<libm base name>_f32 / _f64.
class OcmlMathLibrary : public MathLibrary {
 public:
  std::string FunctionName(MathFunction fn, llvm::Type* type) const override {
    // libm's name: the base name, plus "f" for float.
    std::string name = MathLibrary::FunctionName(fn, type);
    if (type->isFloatTy()) {
      name.pop_back();
      return absl::StrCat(kOcmlPrefix, name, "_f32");
    }
    return absl::StrCat(kOcmlPrefix, name, "_f64");
  }
  // exp as llvm.exp2.f32 of x * log2(e), which the AMDGPU backend lowers
  // to v_exp_f32 with its scaling for subnormal results, where the result
  // may err by kExpThroughExp2Error (as the NVPTX target's).
  double ApproximationError(MathFunction fn) const override {
    return fn == MathFunction::kExp ? kExpThroughExp2Error : 0;
  }
  llvm::Value* EmitApproximation(MathFunction fn, llvm::Value* x,
                                 llvm::IRBuilderBase* b) const override {
    llvm::Module* module = b->GetInsertBlock()->getModule();
    return EmitExpThroughExp2(
        x,
        llvm::Intrinsic::getDeclaration(module, llvm::Intrinsic::exp2,
                                        {x->getType()}),
        b);
  }
};

void InitializeAmdgpuOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeAMDGPUTargetInfo();
    LLVMInitializeAMDGPUTarget();
    LLVMInitializeAMDGPUTargetMC();
    LLVMInitializeAMDGPUAsmPrinter();
  });
}

// The value of __oclc_ISA_version for `arch` (major * 1000 + minor * 100
// + stepping; gfx90a is 9.0.10): what oclc_isa_version_<N>.bc defines.
int IsaVersion(const std::string& arch) {
  if (arch == "gfx90a") return 9010;
  if (arch == "gfx942") return 9402;
  if (arch == "gfx1100") return 11000;
  return 0;
}

class AmdgpuTarget : public GpuTarget {
 public:
  AmdgpuTarget(GpuDeviceInfo device, std::string device_libs,
               std::unique_ptr<llvm::TargetMachine> tm)
      : GpuTarget(std::move(device)),
        device_libs_(std::move(device_libs)),
        tm_(std::move(tm)) {}

  std::string triple() const override { return kTriple; }
  std::string data_layout() const override {
    return tm_->createDataLayout().getStringRepresentation();
  }
  std::string platform() const override { return "rocm"; }
  std::string code_format() const override { return "hsaco"; }

  llvm::Value* EmitThreadId(int dim, llvm::IRBuilderBase* b) const override {
    static constexpr llvm::Intrinsic::ID kIds[] = {
        llvm::Intrinsic::amdgcn_workitem_id_x,
        llvm::Intrinsic::amdgcn_workitem_id_y,
        llvm::Intrinsic::amdgcn_workitem_id_z};
    return b->CreateIntrinsic(kIds[dim], {}, {});
  }
  llvm::Value* EmitBlockId(int dim, llvm::IRBuilderBase* b) const override {
    static constexpr llvm::Intrinsic::ID kIds[] = {
        llvm::Intrinsic::amdgcn_workgroup_id_x,
        llvm::Intrinsic::amdgcn_workgroup_id_y,
        llvm::Intrinsic::amdgcn_workgroup_id_z};
    return b->CreateIntrinsic(kIds[dim], {}, {});
  }
  // s_barrier only waits for the workgroup's waves; it does not order
  // memory. The workgroup-scope release before and acquire after make LDS
  // (and global) writes before it visible after it, as bar.sync does on
  // NVIDIA (and as HIP's __syncthreads is built).
  void EmitBarrier(llvm::IRBuilderBase* b) const override {
    llvm::SyncScope::ID workgroup =
        b->getContext().getOrInsertSyncScopeID("workgroup");
    b->CreateFence(llvm::AtomicOrdering::Release, workgroup);
    b->CreateIntrinsic(llvm::Intrinsic::amdgcn_s_barrier, {}, {});
    b->CreateFence(llvm::AtomicOrdering::Acquire, workgroup);
  }
  // Every shuffle is a ds_bpermute (a gather across the whole wavefront,
  // 32 or 64 lanes, through the LDS crossbar without using LDS): the lane
  // reads the value of the lane whose byte address (lane * 4) it gives.
  llvm::Value* EmitShuffleXorI32(llvm::Value* value, int lane_mask,
                                 llvm::IRBuilderBase* b) const override {
    llvm::Value* source = b->CreateXor(LaneId(b), b->getInt32(lane_mask));
    return Bpermute(value, source, b);
  }
  llvm::Value* EmitShuffleUpI32(llvm::Value* value, int delta,
                                llvm::IRBuilderBase* b) const override {
    llvm::Value* lane = LaneId(b);
    llvm::Value* source =
        b->CreateSelect(b->CreateICmpUGE(lane, b->getInt32(delta)),
                        b->CreateSub(lane, b->getInt32(delta)), lane);
    return Bpermute(value, source, b);
  }
  llvm::Value* EmitShuffleIndexI32(llvm::Value* value, int source_lane,
                                   llvm::IRBuilderBase* b) const override {
    return Bpermute(value, b->getInt32(source_lane), b);
  }
  // The wave's mask, i64 on wave64 and i32 on wave32 (s_cmp into an SGPR
  // pair or an SGPR).
  llvm::Value* EmitBallot(llvm::Value* predicate,
                          llvm::IRBuilderBase* b) const override {
    return b->CreateIntrinsic(
        llvm::Intrinsic::amdgcn_ballot,
        {b->getIntNTy(static_cast<unsigned>(device().warp_size))},
        {predicate});
  }
  // A wave's lanes run in lockstep and its LDS accesses complete in order:
  // the fence only keeps the compiler from moving shared-memory accesses
  // across, and the wave barrier keeps them in the wave's program order.
  void EmitWarpSync(llvm::IRBuilderBase* b) const override {
    b->CreateFence(llvm::AtomicOrdering::AcquireRelease,
                   b->getContext().getOrInsertSyncScopeID("wavefront"));
    b->CreateIntrinsic(llvm::Intrinsic::amdgcn_wave_barrier, {}, {});
  }
  unsigned shared_address_space() const override { return kLdsAddressSpace; }
  unsigned global_address_space() const override { return kGlobalAddressSpace; }
  std::string atomic_scope() const override { return "agent"; }

  // amdgpu_kernel makes it an entry point with a kernel descriptor; the
  // flat work-group size bounds the block size the backend allocates
  // registers for (its default assumes 1024 threads, which halves the
  // registers a wave64 kernel of 256 threads could use). Every launch's
  // grid is whole blocks (uniform-work-group-size).
  void MarkKernel(llvm::Function* fn,
                  int64_t max_threads_per_block) const override {
    fn->setCallingConv(llvm::CallingConv::AMDGPU_KERNEL);
    fn->addFnAttr("amdgpu-flat-work-group-size",
                  absl::StrCat("1,", max_threads_per_block));
    fn->addFnAttr("uniform-work-group-size", "true");
  }

  const MathLibrary& math() const override { return math_; }

  std::optional<MatrixShape> MatrixInstruction(
      PrimitiveType operand_type) const override {
    return AmdgpuMatrixInstruction(device(), operand_type);
  }

  // Never run on an AMD GPU here: see matrix_layout.h.
  llvm::Value* EmitMatrixMultiplyAdd(
      const MatrixShape& shape, llvm::Value* a, llvm::Value* b, llvm::Value* c,
      llvm::IRBuilderBase* builder) const override {
    llvm::Intrinsic::ID id = llvm::Intrinsic::not_intrinsic;
    switch (shape.kind) {
      case MatrixKind::kF32_32x32x2:
        id = llvm::Intrinsic::amdgcn_mfma_f32_32x32x2f32;
        break;
      case MatrixKind::kF32_16x16x4:
        id = llvm::Intrinsic::amdgcn_mfma_f32_16x16x4f32;
        break;
      case MatrixKind::kF16_32x32x8:
        id = llvm::Intrinsic::amdgcn_mfma_f32_32x32x8f16;
        break;
      case MatrixKind::kF16_16x16x16:
        id = llvm::Intrinsic::amdgcn_mfma_f32_16x16x16f16;
        break;
      case MatrixKind::kBF16_32x32x8:
        id = llvm::Intrinsic::amdgcn_mfma_f32_32x32x8bf16_1k;
        break;
      case MatrixKind::kBF16_16x16x16:
        id = llvm::Intrinsic::amdgcn_mfma_f32_16x16x16bf16_1k;
        break;
    }
    if (shape.kind == MatrixKind::kBF16_32x32x8 ||
        shape.kind == MatrixKind::kBF16_16x16x16) {
      llvm::Type* i16x4 = llvm::FixedVectorType::get(builder->getInt16Ty(), 4);
      a = builder->CreateBitCast(a, i16x4);
      b = builder->CreateBitCast(b, i16x4);
    }
    // cbsz, abid, blgp = 0: no broadcast or lane swizzle of the operands.
    return builder->CreateIntrinsic(
        id, {},
        {a, b, c, builder->getInt32(0), builder->getInt32(0),
         builder->getInt32(0)});
  }

  absl::StatusOr<std::string> CompileModule(
      llvm::Module* module, CompilePhaseTimes* times) const override {
    absl::StatusOr<std::string> object = Compile(module, times, true);
    if (!object.ok()) return object.status();
    ScopedPhaseTimer codegen_timer(
        PhaseField(times, &CompilePhaseTimes::codegen_s));
    return LinkHsaco(*object);
  }

  absl::StatusOr<std::string> CompileModuleToAssembly(
      llvm::Module* module, CompilePhaseTimes* times) const override {
    return Compile(module, times, false);
  }

 private:
  // The lane's index in its wavefront: mbcnt counts the set bits of the
  // mask below the lane, in the low then the high 32 lanes.
  llvm::Value* LaneId(llvm::IRBuilderBase* b) const {
    llvm::Value* low = b->CreateIntrinsic(llvm::Intrinsic::amdgcn_mbcnt_lo, {},
                                          {b->getInt32(-1), b->getInt32(0)});
    if (device().warp_size == 32) return low;
    return b->CreateIntrinsic(llvm::Intrinsic::amdgcn_mbcnt_hi, {},
                              {b->getInt32(-1), low});
  }

  llvm::Value* Bpermute(llvm::Value* value, llvm::Value* source_lane,
                        llvm::IRBuilderBase* b) const {
    return b->CreateIntrinsic(llvm::Intrinsic::amdgcn_ds_bpermute, {},
                              {b->CreateShl(source_lane, 2), value});
  }

  absl::StatusOr<std::string> Compile(llvm::Module* module,
                                      CompilePhaseTimes* times,
                                      bool object) const {
    std::optional<ScopedPhaseTimer> optimize_timer;
    optimize_timer.emplace(PhaseField(times, &CompilePhaseTimes::optimize_s));
    module->setTargetTriple(kTriple);
    module->setDataLayout(tm_->createDataLayout());
    module->addModuleFlag(llvm::Module::Error, "amdhsa_code_object_version",
                          kCodeObjectVersion);
    if (absl::Status s = LinkDeviceLibraries(module); !s.ok()) return s;
    std::string errors;
    llvm::raw_string_ostream error_stream(errors);
    if (llvm::verifyModule(*module, &error_stream)) {
      return absl::InternalError(
          absl::StrCat("GPU codegen produced invalid LLVM IR: ", errors));
    }
    OptimizeModule(module, tm_.get());
    optimize_timer.reset();
    ScopedPhaseTimer codegen_timer(
        PhaseField(times, &CompilePhaseTimes::codegen_s));
    return EmitMachineCode(module, tm_.get(), object);
  }

  // Links ocml's functions the module calls, what they call of ockl, and
  // the oclc_* control variables they read, which select the code paths
  // for the architecture and wavefront size: IEEE denormals (daz off, as
  // libdevice is linked for NVIDIA), no finite-only or unsafe shortcuts,
  // correctly rounded f32 sqrt. All of it becomes internal, so it is
  // inlined and dropped.
  absl::Status LinkDeviceLibraries(llvm::Module* module) const {
    bool needed = false;
    for (const llvm::Function& fn : *module) {
      if (fn.isDeclaration() && fn.getName().starts_with(kOcmlPrefix)) {
        needed = true;
      }
    }
    if (!needed) return absl::OkStatus();
    if (device_libs_.empty() ||
        !llvm::sys::fs::exists(device_libs_ + "/ocml.bc")) {
      return absl::FailedPreconditionError(absl::StrCat(
          "ROCm device libraries (ocml.bc) not found",
          device_libs_.empty() ? "" : absl::StrCat(" in ", device_libs_),
          " (the module calls math functions; Debian: apt-get install "
          "rocm-device-libs, or set HLOC_ROCM_DEVICE_LIBS to the folder of "
          "ocml.bc)"));
    }
    std::set<std::string> own = DefinedSymbols(*module);
    const bool wave64 = device().warp_size == 64;
    std::vector<std::string> files = {
        "ocml",
        "ockl",
        "oclc_finite_only_off",
        "oclc_unsafe_math_off",
        "oclc_daz_opt_off",
        "oclc_correctly_rounded_sqrt_on",
        wave64 ? "oclc_wavefrontsize64_on" : "oclc_wavefrontsize64_off",
        "oclc_abi_version_500",
    };
    // Older device libraries (Debian's 5.2) have no control file for
    // gfx942 or gfx1100; the variable it would define is defined here.
    const std::string isa_file =
        absl::StrCat("oclc_isa_version_", device().arch.substr(3));
    const bool has_isa_file =
        llvm::sys::fs::exists(absl::StrCat(device_libs_, "/", isa_file, ".bc"));
    if (has_isa_file) files.push_back(isa_file);
    for (const std::string& file : files) {
      std::string path = absl::StrCat(device_libs_, "/", file, ".bc");
      if (!llvm::sys::fs::exists(path)) {
        return absl::FailedPreconditionError(
            absl::StrCat("ROCm device library ", path, " not found"));
      }
      if (absl::Status s = LinkBitcodeOnlyNeeded(module, path, file); !s.ok()) {
        return s;
      }
    }
    if (!has_isa_file) DefineIsaVersion(module);
    InternalizeAllBut(module, own);
    // The libraries are OpenCL builds; their version metadata would make
    // the code object's kernels claim to be OpenCL C kernels.
    for (const char* name : {"opencl.ocl.version", "llvm.ident"}) {
      if (llvm::NamedMDNode* md = module->getNamedMetadata(name)) {
        module->eraseNamedMetadata(md);
      }
    }
    return absl::OkStatus();
  }

  void DefineIsaVersion(llvm::Module* module) const {
    llvm::GlobalVariable* g = module->getNamedGlobal("__oclc_ISA_version");
    if (g == nullptr || !g->isDeclaration()) return;
    g->setInitializer(
        llvm::ConstantInt::get(llvm::Type::getInt32Ty(module->getContext()),
                               IsaVersion(device().arch)));
    g->setConstant(true);
  }

  std::string device_libs_;
  std::unique_ptr<llvm::TargetMachine> tm_;
  OcmlMathLibrary math_;
};

}  // namespace

// The 32x32 single-block MFMAs: a wave's 32x32 output tile in 16
// accumulators per lane, f32 (K = 2) or f16/bf16 (K = 8; bf16 as the "1k"
// variant, which both gfx90a and gfx942 have and which takes <4 x i16>).
std::optional<MatrixShape> AmdgpuMatrixInstruction(const GpuDeviceInfo& device,
                                                 PrimitiveType operand_type) {
  if (!device.matrix_cores || device.warp_size != kMfmaWaveSize) {
    return std::nullopt;
  }
  switch (operand_type) {
    case F32:
      return GetMatrixShape(MatrixKind::kF32_32x32x2);
    case F16:
      return GetMatrixShape(MatrixKind::kF16_32x32x8);
    case BF16:
      return GetMatrixShape(MatrixKind::kBF16_32x32x8);
    default:
      return std::nullopt;
  }
}

std::string FindRocmDeviceLibs(const std::string& flag) {
  if (!flag.empty()) return flag;
  const char* libs = std::getenv("HLOC_ROCM_DEVICE_LIBS");
  if (libs != nullptr && *libs != '\0') return libs;
  const char* rocm = std::getenv("ROCM_PATH");
  if (rocm != nullptr && *rocm != '\0') {
    return absl::StrCat(rocm, "/amdgcn/bitcode");
  }
  // Debian's rocm-device-libs, then AMD's ROCm packages.
  for (const char* dir : {"/usr/lib/x86_64-linux-gnu/amdgcn/bitcode",
                          "/usr/lib/aarch64-linux-gnu/amdgcn/bitcode",
                          "/opt/rocm/amdgcn/bitcode"}) {
    if (llvm::sys::fs::exists(absl::StrCat(dir, "/ocml.bc"))) return dir;
  }
  return "";
}

absl::StatusOr<std::unique_ptr<GpuTarget>> CreateAmdgpuTarget(
    const std::string& arch, const std::string& device_libs) {
  absl::StatusOr<GpuDeviceInfo> device = GetGpuDeviceInfo("rocm", arch);
  if (!device.ok()) return device.status();
  InitializeAmdgpuOnce();
  std::string error;
  const llvm::Target* target =
      llvm::TargetRegistry::lookupTarget(kTriple, error);
  if (target == nullptr) {
    return absl::InternalError(
        absl::StrCat("LLVM has no AMDGPU target: ", error));
  }
  // The wavefront size is a subtarget feature; the device facts decide it
  // (gfx1100 could run wave64 too, but its native size is 32).
  const std::string features =
      device->warp_size == 64 ? "+wavefrontsize64" : "+wavefrontsize32";
  llvm::TargetOptions options;
  std::unique_ptr<llvm::TargetMachine> tm(target->createTargetMachine(
      kTriple, arch, features, options, llvm::Reloc::PIC_, std::nullopt,
      llvm::CodeGenOptLevel::Aggressive));
  if (tm == nullptr) {
    return absl::InternalError(
        absl::StrCat("cannot create an AMDGPU target machine for ", arch));
  }
  return std::unique_ptr<GpuTarget>(
      new AmdgpuTarget(*std::move(device), device_libs, std::move(tm)));
}

}  // namespace hloc
