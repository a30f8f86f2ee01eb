#include "backends/gpu/testing/nvptx_wide_warp.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "backends/gpu/nvptx_target.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/Module.h"

namespace hloc {
namespace {

class NvptxWideWarpTarget : public GpuTarget {
 public:
  NvptxWideWarpTarget(GpuDeviceInfo device, std::unique_ptr<GpuTarget> nvptx)
      : GpuTarget(std::move(device)), nvptx_(std::move(nvptx)) {}

  std::string triple() const override { return nvptx_->triple(); }
  std::string data_layout() const override { return nvptx_->data_layout(); }
  std::string platform() const override { return nvptx_->platform(); }
  std::string code_format() const override { return nvptx_->code_format(); }
  llvm::Value* EmitThreadId(int dim, llvm::IRBuilderBase* b) const override {
    return nvptx_->EmitThreadId(dim, b);
  }
  llvm::Value* EmitBlockId(int dim, llvm::IRBuilderBase* b) const override {
    return nvptx_->EmitBlockId(dim, b);
  }
  void EmitBarrier(llvm::IRBuilderBase* b) const override {
    nvptx_->EmitBarrier(b);
  }
  llvm::Value* EmitShuffleXorI32(llvm::Value* value, int lane_mask,
                                 llvm::IRBuilderBase* b) const override {
    return Exchange(
        value,
        [&](llvm::Value* lane) {
          return b->CreateXor(lane, b->getInt32(lane_mask));
        },
        b);
  }
  llvm::Value* EmitShuffleUpI32(llvm::Value* value, int delta,
                                llvm::IRBuilderBase* b) const override {
    return Exchange(
        value,
        [&](llvm::Value* lane) {
          return b->CreateSelect(b->CreateICmpUGE(lane, b->getInt32(delta)),
                                 b->CreateSub(lane, b->getInt32(delta)), lane);
        },
        b);
  }
  llvm::Value* EmitShuffleIndexI32(llvm::Value* value, int source_lane,
                                   llvm::IRBuilderBase* b) const override {
    return Exchange(
        value, [&](llvm::Value*) { return b->getInt32(source_lane); }, b);
  }
  unsigned shared_address_space() const override {
    return nvptx_->shared_address_space();
  }
  unsigned global_address_space() const override {
    return nvptx_->global_address_space();
  }
  void MarkKernel(llvm::Function* fn,
                  int64_t max_threads_per_block) const override {
    nvptx_->MarkKernel(fn, max_threads_per_block);
  }
  const MathLibrary& math() const override { return nvptx_->math(); }
  absl::StatusOr<std::string> CompileModule(
      llvm::Module* module, CompilePhaseTimes* times) const override {
    return nvptx_->CompileModule(module, times);
  }

 private:
  // The kernel's exchange slots: one i32 per thread of a 960-thread block.
  llvm::GlobalVariable* Slots(llvm::IRBuilderBase* b) const {
    llvm::Function* fn = b->GetInsertBlock()->getParent();
    llvm::Module* module = fn->getParent();
    const std::string name = absl::StrCat(fn->getName().str(), ".wide_warp");
    if (llvm::GlobalVariable* g = module->getNamedGlobal(name)) return g;
    llvm::Type* array =
        llvm::ArrayType::get(b->getInt32Ty(), kWideWarpMaxThreads);
    return new llvm::GlobalVariable(
        *module, array, false, llvm::GlobalValue::InternalLinkage,
        llvm::UndefValue::get(array), name, nullptr,
        llvm::GlobalValue::NotThreadLocal, shared_address_space());
  }

  void SyncLogicalWarp(llvm::Value* warp, llvm::IRBuilderBase* b) const {
    b->CreateIntrinsic(
        llvm::Intrinsic::nvvm_barrier_sync_cnt, {},
        {b->CreateAdd(warp, b->getInt32(1)), b->getInt32(kWideWarpSize)});
  }

  template <typename Source>
  llvm::Value* Exchange(llvm::Value* value, Source source,
                        llvm::IRBuilderBase* b) const {
    llvm::Value* tid = nvptx_->EmitThreadId(0, b);
    llvm::Value* warp = b->CreateUDiv(tid, b->getInt32(kWideWarpSize));
    llvm::Value* lane = b->CreateURem(tid, b->getInt32(kWideWarpSize));
    llvm::Value* first = b->CreateMul(warp, b->getInt32(kWideWarpSize));
    llvm::GlobalVariable* slots = Slots(b);
    auto slot = [&](llvm::Value* index) {
      return b->CreateInBoundsGEP(slots->getValueType(), slots,
                                  {b->getInt32(0), index});
    };
    b->CreateStore(value, slot(tid));
    SyncLogicalWarp(warp, b);
    llvm::Value* result =
        b->CreateLoad(b->getInt32Ty(), slot(b->CreateAdd(first, source(lane))));
    SyncLogicalWarp(warp, b);
    return result;
  }

  std::unique_ptr<GpuTarget> nvptx_;
};

absl::Status CheckSteps(const std::vector<ExecutableStep>& steps) {
  for (const ExecutableStep& step : steps) {
    if (step.kind == ExecutableStep::Kind::kKernel) {
      const int64_t threads = step.launch.NumThreadsPerBlock();
      if (threads > kWideWarpMaxThreads || threads % kWideWarpSize != 0) {
        return absl::FailedPreconditionError(absl::StrCat(
            step.kernel_name, " is launched with ", threads,
            " threads per block; 64-wide logical warps need whole warps and "
            "at most ",
            kWideWarpMaxThreads));
      }
    }
    for (const auto* list : {&step.condition, &step.body}) {
      if (absl::Status s = CheckSteps(*list); !s.ok()) return s;
    }
    for (const auto& branch : step.branches) {
      if (absl::Status s = CheckSteps(branch); !s.ok()) return s;
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<GpuTarget>> CreateNvptxWideWarpTarget(
    const std::string& arch, const std::string& cuda_path) {
  absl::StatusOr<std::unique_ptr<GpuTarget>> nvptx =
      CreateNvptxTarget(arch, cuda_path);
  if (!nvptx.ok()) return nvptx.status();
  GpuDeviceInfo device = (*nvptx)->device();
  device.warp_size = kWideWarpSize;
  device.max_threads_per_block = kWideWarpMaxThreads;
  device.core_count = 1;
  return std::unique_ptr<GpuTarget>(
      new NvptxWideWarpTarget(std::move(device), *std::move(nvptx)));
}

absl::Status CheckWideWarpLaunches(const Executable& executable) {
  return CheckSteps(executable.steps);
}

}  // namespace hloc
