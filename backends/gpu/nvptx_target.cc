#include "backends/gpu/nvptx_target.h"

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
#include "backends/gpu/llvm_codegen.h"
#include "backends/gpu/nvptx_paired_conversions.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"

namespace hloc {
namespace {

constexpr char kTriple[] = "nvptx64-nvidia-cuda";
// Address spaces of the NVPTX backend.
constexpr unsigned kGlobalAddressSpace = 1;
constexpr unsigned kSharedAddressSpace = 3;
// Where libdevice lives in a CUDA toolkit.
constexpr char kLibdeviceRelativePath[] = "nvvm/libdevice/libdevice.10.bc";
constexpr char kLibdevicePrefix[] = "__nv_";

// libdevice's functions are libm's names with a __nv_ prefix (__nv_expf,
// __nv_exp, __nv_atan2f, ...), f32 and f64 alike.
class LibdeviceMathLibrary : public MathLibrary {
 public:
  std::string FunctionName(MathFunction fn, llvm::Type* type) const override {
    return kLibdevicePrefix + MathLibrary::FunctionName(fn, type);
  }
  // cvt.rn.bf16.f32 (sm_80 and later; every architecture this target
  // accepts). bf16 elementwise chains are otherwise bound by the rounding
  // arithmetic, not by memory (chain5 in bf16 ran at 29% of copy).
  bool HasBf16Truncation() const override { return true; }
  // f64 to f16/bf16 in one rounding, as XLA:GPU (found by the second
  // unseen-program hunt's f64_to_f16_double_rounding on the H200).
  bool HasExactF64Narrowing() const override { return true; }
  // __nv_fmodf / __nv_fmod (exact) instead of NVPTX's frem expansion;
  // found by the conformance suite's cuda column (tests/conformance).
  bool HasExactFrem() const override { return false; }
  // Where a result may err by their bounds (elemental_emitter.cc): exp as
  // ex2.approx.f32 of x * log2(e) (subnormal results kept, unlike the .ftz
  // form), where __nv_expf spends about ten instructions on its range
  // reduction (a bf16 sigmoid's kernel was issue-bound on them); tanh as
  // tanh.approx.f32 (sm_75 and later: every architecture this target
  // takes), one MUFU.TANH where __nv_tanhf takes an exponential and a
  // division. PTX documents tanh.approx.f32's relative error as about
  // 2^-11; 2^-10 is said for margin, which bf16's rounding (2^-8) allows
  // and f16's (2^-11) does not. tests/gpu/approximate_math measures both.
  double ApproximationError(MathFunction fn) const override {
    if (fn == MathFunction::kExp) return kExpThroughExp2Error;
    if (fn == MathFunction::kTanh) return 1.0 / 1024;
    return 0;
  }
  llvm::Value* EmitApproximation(MathFunction fn, llvm::Value* x,
                                 llvm::IRBuilderBase* b) const override {
    llvm::Module* module = b->GetInsertBlock()->getModule();
    if (fn == MathFunction::kTanh) {
      // LLVM 19 has no intrinsic for it.
      llvm::InlineAsm* tanh = llvm::InlineAsm::get(
          llvm::FunctionType::get(x->getType(), {x->getType()}, false),
          "tanh.approx.f32 $0, $1;", "=f,f", /*hasSideEffects=*/false);
      llvm::CallInst* call = b->CreateCall(tanh, {x});
      call->setDoesNotAccessMemory();
      return call;
    }
    return EmitExpThroughExp2(
        x,
        llvm::Intrinsic::getDeclaration(module,
                                        llvm::Intrinsic::nvvm_ex2_approx_f),
        b);
  }
};

// f32 division as div.full.f32 (at most 2 ulp over the whole range: a
// reciprocal and a multiply with the operands scaled), not div.rn.f32's
// IEEE sequence with its slow-path branch. This is what XLA:GPU compiles
// (it sets LLVM's -nvptx-prec-divf32=1 for the same reason), so results
// match XLA's, and a softmax's division of every element by its row's sum
// no longer makes the kernel issue-bound (the bf16 softmax used 73% of
// its issue slots on the H100, a division costing MUFU.RCP, FCHK and a
// branch; over 8192 x 8192 on an H200 it went from 79.0-79.9 to 69.5 us).
// f64 division stays div.rn.f64. The option is NVPTX's alone, so setting
// it process-wide touches no other target.
void UseFullRangeF32Division() {
  llvm::StringMap<llvm::cl::Option*>& options =
      llvm::cl::getRegisteredOptions();
  auto it = options.find("nvptx-prec-divf32");
  if (it != options.end()) {
    it->second->addOccurrence(0, "nvptx-prec-divf32", "1");
  }
}

void InitializeNvptxOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
    UseFullRangeF32Division();
  });
}

class NvptxTarget : public GpuTarget {
 public:
  NvptxTarget(GpuDeviceInfo device, std::string cuda_path,
              std::unique_ptr<llvm::TargetMachine> tm)
      : GpuTarget(std::move(device)),
        cuda_path_(std::move(cuda_path)),
        tm_(std::move(tm)) {}

  std::string triple() const override { return kTriple; }
  std::string data_layout() const override {
    return tm_->createDataLayout().getStringRepresentation();
  }
  std::string platform() const override { return "cuda"; }
  std::string code_format() const override { return "ptx"; }

  llvm::Value* EmitThreadId(int dim, llvm::IRBuilderBase* b) const override {
    static constexpr llvm::Intrinsic::ID kIds[] = {
        llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x,
        llvm::Intrinsic::nvvm_read_ptx_sreg_tid_y,
        llvm::Intrinsic::nvvm_read_ptx_sreg_tid_z};
    return b->CreateIntrinsic(kIds[dim], {}, {});
  }
  llvm::Value* EmitBlockId(int dim, llvm::IRBuilderBase* b) const override {
    static constexpr llvm::Intrinsic::ID kIds[] = {
        llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x,
        llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_y,
        llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_z};
    return b->CreateIntrinsic(kIds[dim], {}, {});
  }
  void EmitBarrier(llvm::IRBuilderBase* b) const override {
    b->CreateIntrinsic(llvm::Intrinsic::nvvm_barrier0, {}, {});
  }
  llvm::Value* EmitShuffleXorI32(llvm::Value* value, int lane_mask,
                                 llvm::IRBuilderBase* b) const override {
    // All 32 lanes take part; c = 0x1f: the whole warp is one segment.
    return b->CreateIntrinsic(llvm::Intrinsic::nvvm_shfl_sync_bfly_i32, {},
                              {b->getInt32(0xffffffffu), value,
                               b->getInt32(lane_mask), b->getInt32(0x1f)});
  }
  llvm::Value* EmitShuffleUpI32(llvm::Value* value, int delta,
                                llvm::IRBuilderBase* b) const override {
    // c = 0: no clamp above, the whole warp one segment (shfl.up compares
    // the source lane against the segment's start).
    return b->CreateIntrinsic(
        llvm::Intrinsic::nvvm_shfl_sync_up_i32, {},
        {b->getInt32(0xffffffffu), value, b->getInt32(delta), b->getInt32(0)});
  }
  llvm::Value* EmitShuffleIndexI32(llvm::Value* value, int source_lane,
                                   llvm::IRBuilderBase* b) const override {
    return b->CreateIntrinsic(llvm::Intrinsic::nvvm_shfl_sync_idx_i32, {},
                              {b->getInt32(0xffffffffu), value,
                               b->getInt32(source_lane), b->getInt32(0x1f)});
  }
  llvm::Value* EmitBallot(llvm::Value* predicate,
                          llvm::IRBuilderBase* b) const override {
    return b->CreateIntrinsic(llvm::Intrinsic::nvvm_vote_ballot_sync, {},
                              {b->getInt32(0xffffffffu), predicate});
  }
  void EmitWarpSync(llvm::IRBuilderBase* b) const override {
    // Independent thread scheduling (sm_70 on) lets a warp's lanes
    // diverge: __syncwarp() orders their shared-memory accesses.
    b->CreateIntrinsic(llvm::Intrinsic::nvvm_bar_warp_sync, {},
                       {b->getInt32(0xffffffffu)});
  }
  std::optional<MatrixShape> MatrixInstruction(
      PrimitiveType operand_type) const override {
    return NvptxMatrixInstruction(device(), operand_type);
  }
  llvm::Value* EmitMatrixMultiplyAdd(
      const MatrixShape& shape, llvm::Value* a, llvm::Value* b, llvm::Value* c,
      llvm::IRBuilderBase* builder) const override {
    return EmitNvptxMatrixMultiplyAdd(shape, a, b, c, builder);
  }
  bool has_matrix_load() const override { return true; }
  llvm::Value* EmitMatrixLoad(llvm::Value* shared_row, bool transpose,
                              llvm::IRBuilderBase* b) const override {
    llvm::Value* regs = b->CreateIntrinsic(
        transpose
            ? llvm::Intrinsic::nvvm_ldmatrix_sync_aligned_m8n8_x4_trans_b16
            : llvm::Intrinsic::nvvm_ldmatrix_sync_aligned_m8n8_x4_b16,
        {shared_row->getType()}, {shared_row});
    llvm::Value* v =
        llvm::PoisonValue::get(llvm::FixedVectorType::get(b->getInt32Ty(), 4));
    for (unsigned i = 0; i < 4; ++i) {
      v = b->CreateInsertElement(v, b->CreateExtractValue(regs, {i}), i);
    }
    return v;
  }
  // cp.async.cg: 16 bytes straight to shared memory, cached in L2 only
  // (the blocks that share a tile meet it there); a source size of 0
  // writes zeros.
  void EmitAsyncCopy(llvm::Value* shared_dst, llvm::Value* global_src,
                     llvm::Value* valid,
                     llvm::IRBuilderBase* b) const override {
    llvm::Value* src = b->CreateAddrSpaceCast(
        global_src,
        llvm::PointerType::get(b->getContext(), kGlobalAddressSpace));
    b->CreateIntrinsic(
        llvm::Intrinsic::nvvm_cp_async_cg_shared_global_16_s, {},
        {shared_dst, src,
         b->CreateSelect(valid, b->getInt32(16), b->getInt32(0))});
  }
  void EmitAsyncCommit(llvm::IRBuilderBase* b) const override {
    b->CreateIntrinsic(llvm::Intrinsic::nvvm_cp_async_commit_group, {}, {});
  }
  void EmitAsyncWait(int pending, llvm::IRBuilderBase* b) const override {
    b->CreateIntrinsic(llvm::Intrinsic::nvvm_cp_async_wait_group, {},
                       {b->getInt32(pending)});
  }
  unsigned shared_address_space() const override { return kSharedAddressSpace; }
  unsigned global_address_space() const override { return kGlobalAddressSpace; }

  void MarkKernel(llvm::Function* fn,
                  int64_t max_threads_per_block) const override {
    llvm::Module* module = fn->getParent();
    llvm::LLVMContext& ctx = module->getContext();
    llvm::NamedMDNode* annotations =
        module->getOrInsertNamedMetadata("nvvm.annotations");
    auto i32 = [&](int64_t v) {
      return llvm::ConstantAsMetadata::get(
          llvm::ConstantInt::get(llvm::Type::getInt32Ty(ctx), v));
    };
    llvm::Metadata* f = llvm::ConstantAsMetadata::get(fn);
    annotations->addOperand(llvm::MDNode::get(
        ctx, {f, llvm::MDString::get(ctx, "kernel"), i32(1)}));
    // Lets ptxas budget registers for the block size we launch with.
    annotations->addOperand(llvm::MDNode::get(
        ctx,
        {f, llvm::MDString::get(ctx, "maxntidx"), i32(max_threads_per_block)}));
  }

  void EmitKernelPrologue(llvm::IRBuilderBase* b) const override {
    if (!device().grid_dependency_control) return;
    // LLVM 19 has no intrinsics for these (PTX ISA 7.8, sm_90). The memory
    // clobber keeps every load and store of the kernel after the wait.
    llvm::FunctionType* type =
        llvm::FunctionType::get(b->getVoidTy(), /*isVarArg=*/false);
    for (const char* text :
         {"griddepcontrol.wait;", "griddepcontrol.launch_dependents;"}) {
      b->CreateCall(llvm::InlineAsm::get(type, text, "~{memory}",
                                         /*hasSideEffects=*/true));
    }
  }

  const MathLibrary& math() const override { return math_; }

  absl::StatusOr<std::string> CompileModule(
      llvm::Module* module, CompilePhaseTimes* times) const override {
    std::optional<ScopedPhaseTimer> optimize_timer;
    optimize_timer.emplace(
        PhaseField(times, &CompilePhaseTimes::optimize_s));
    module->setTargetTriple(kTriple);
    module->setDataLayout(tm_->createDataLayout());
    if (absl::Status s = LinkLibdevice(module); !s.ok()) return s;
    std::string errors;
    llvm::raw_string_ostream error_stream(errors);
    if (llvm::verifyModule(*module, &error_stream)) {
      return absl::InternalError(
          absl::StrCat("GPU codegen produced invalid LLVM IR: ", errors));
    }
    OptimizeModule(module, tm_.get());
    PairNarrowingConversions(*module);
    optimize_timer.reset();
    ScopedPhaseTimer codegen_timer(
        PhaseField(times, &CompilePhaseTimes::codegen_s));
    return EmitMachineCode(module, tm_.get(), /*object=*/false);
  }

 private:
  // Links libdevice's functions the module calls (only those: LinkOnlyNeeded)
  // and makes them internal, so they are inlined and their bodies dropped.
  // nvvm-reflect-ftz = 0: libdevice's __nvvm_reflect("__CUDA_FTZ") branches
  // keep denormals, as XLA does by default.
  absl::Status LinkLibdevice(llvm::Module* module) const {
    bool needed = false;
    for (const llvm::Function& fn : *module) {
      if (fn.isDeclaration() && fn.getName().starts_with(kLibdevicePrefix)) {
        needed = true;
      }
    }
    if (!needed) return absl::OkStatus();
    std::string path = absl::StrCat(cuda_path_, "/", kLibdeviceRelativePath);
    if (!llvm::sys::fs::exists(path)) {
      return absl::FailedPreconditionError(absl::StrCat(
          "libdevice not found at ", path,
          " (the module calls math functions; give the CUDA toolkit with "
          "--cuda-path, CUDA_HOME or CUDA_PATH)"));
    }
    std::set<std::string> own = DefinedSymbols(*module);
    module->addModuleFlag(llvm::Module::Override, "nvvm-reflect-ftz",
                          static_cast<uint32_t>(0));
    if (absl::Status s = LinkBitcodeOnlyNeeded(module, path, "libdevice");
        !s.ok()) {
      return s;
    }
    InternalizeAllBut(module, own);
    return absl::OkStatus();
  }

  std::string cuda_path_;
  std::unique_ptr<llvm::TargetMachine> tm_;
  LibdeviceMathLibrary math_;
};

// Elements [first, first + 2) of `v` as one 32-bit operand register, of
// type `reg` (<2 x half> for f16, i32 for bf16: the intrinsics' types).
llvm::Value* PackPair(llvm::Value* v, int first, llvm::Type* reg,
                      llvm::IRBuilderBase* b) {
  llvm::Value* pair = b->CreateShuffleVector(v, {first, first + 1}, "mma.pair");
  return b->CreateBitCast(pair, reg);
}

}  // namespace

std::optional<MatrixShape> NvptxMatrixInstruction(const GpuDeviceInfo& device,
                                                  PrimitiveType operand_type) {
  if (!device.matrix_cores || device.warp_size != kNvWarpSize) {
    return std::nullopt;
  }
  switch (operand_type) {
    case F16:
      return GetMatrixShape(MatrixKind::kNvF16_16x8x16);
    case BF16:
      return GetMatrixShape(MatrixKind::kNvBF16_16x8x16);
    default:
      return std::nullopt;
  }
}

llvm::Value* EmitNvptxMatrixMultiplyAdd(const MatrixShape& shape,
                                        llvm::Value* a, llvm::Value* b,
                                        llvm::Value* c,
                                        llvm::IRBuilderBase* builder) {
  llvm::Type* reg = nullptr;
  llvm::Intrinsic::ID id = llvm::Intrinsic::not_intrinsic;
  switch (shape.kind) {
    case MatrixKind::kNvF16_16x8x16:
      reg = llvm::FixedVectorType::get(builder->getHalfTy(), 2);
      id = llvm::Intrinsic::nvvm_mma_m16n8k16_row_col_f32_f32;
      break;
    case MatrixKind::kNvBF16_16x8x16:
      reg = builder->getInt32Ty();
      id = llvm::Intrinsic::nvvm_mma_m16n8k16_row_col_bf16;
      break;
    default:
      return nullptr;
  }
  // The operands, in the intrinsic's order: A's four registers (elements
  // 0-1, 2-3, 4-5, 6-7), B's two, C's four floats.
  std::vector<llvm::Value*> args;
  for (int r = 0; r < shape.a_values / 2; ++r) {
    args.push_back(PackPair(a, 2 * r, reg, builder));
  }
  for (int r = 0; r < shape.b_values / 2; ++r) {
    args.push_back(PackPair(b, 2 * r, reg, builder));
  }
  for (int r = 0; r < shape.accumulators; ++r) {
    args.push_back(builder->CreateExtractElement(c, r));
  }
  llvm::Value* d = builder->CreateIntrinsic(id, {}, args);
  llvm::Value* result = llvm::UndefValue::get(c->getType());
  for (int r = 0; r < shape.accumulators; ++r) {
    result = builder->CreateInsertElement(
        result, builder->CreateExtractValue(d, r), builder->getInt32(r));
  }
  return result;
}

std::string FindCudaPath(const std::string& flag) {
  if (!flag.empty()) return flag;
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"}) {
    const char* value = std::getenv(var);
    if (value != nullptr && *value != '\0') return value;
  }
  return "/usr/local/cuda";
}

absl::StatusOr<std::unique_ptr<GpuTarget>> CreateNvptxTarget(
    const std::string& arch, const std::string& cuda_path) {
  absl::StatusOr<GpuDeviceInfo> device = GetGpuDeviceInfo(arch);
  if (!device.ok()) return device.status();
  InitializeNvptxOnce();
  std::string error;
  const llvm::Target* target =
      llvm::TargetRegistry::lookupTarget(kTriple, error);
  if (target == nullptr) {
    return absl::InternalError(
        absl::StrCat("LLVM has no NVPTX target: ", error));
  }
  llvm::TargetOptions options;
  std::unique_ptr<llvm::TargetMachine> tm(target->createTargetMachine(
      kTriple, arch, /*Features=*/"", options, llvm::Reloc::Static,
      std::nullopt, llvm::CodeGenOptLevel::Aggressive));
  if (tm == nullptr) {
    return absl::InternalError(
        absl::StrCat("cannot create an NVPTX target machine for ", arch));
  }
  return std::unique_ptr<GpuTarget>(
      new NvptxTarget(*std::move(device), cuda_path, std::move(tm)));
}

}  // namespace hloc
