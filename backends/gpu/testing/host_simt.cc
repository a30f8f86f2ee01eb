#include "backends/gpu/testing/host_simt.h"

#include <algorithm>
#include <array>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/common/compile_phase_times.h"
#include "backends/common/loop_emitter.h"
#include "backends/common/math_library.h"
#include "backends/gpu/amdgpu_target.h"
#include "backends/gpu/gpu_compiler.h"
#include "backends/gpu/llvm_codegen.h"
#include "backends/gpu/nvptx_target.h"
#include "backends/gpu/testing/matrix_model.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"
#include "runtime/dense_buffer.h"
#include "runtime/lapack_step.h"
#include "runtime/object_loader.h"

namespace hloc {
namespace {

// A barrier for a group of threads that may shrink: a thread that leaves
// the kernel drops out, so the others' later barriers do not wait for it
// (as a GPU barrier counts only threads that have not exited).
class ShrinkingBarrier {
 public:
  explicit ShrinkingBarrier(int64_t count) : expected_(count) {}

  void Wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    const int64_t generation = generation_;
    if (++arrived_ == expected_) {
      Release();
      return;
    }
    released_.wait(lock, [&] { return generation_ != generation; });
  }

  void Drop() {
    std::lock_guard<std::mutex> lock(mutex_);
    --expected_;
    if (arrived_ > 0 && arrived_ == expected_) Release();
  }

 private:
  void Release() {
    arrived_ = 0;
    ++generation_;
    released_.notify_all();
  }

  std::mutex mutex_;
  std::condition_variable released_;
  int64_t expected_;
  int64_t arrived_ = 0;
  int64_t generation_ = 0;
};

// One lane's registers of a matrix instruction (as floats).
struct MatrixRegisters {
  std::vector<float> a, b, acc;
};

// One block's threads, barriers and shuffle slots.
struct Block {
  Block(int64_t threads, int64_t warp)
      : threads(threads),
        warp(warp),
        barrier(threads),
        exchange(threads),
        rows(threads),
        matrix(threads) {
    for (int64_t first = 0; first < threads; first += warp) {
      warps.push_back(
          std::make_unique<ShrinkingBarrier>(std::min(warp, threads - first)));
    }
  }
  int64_t threads;
  int64_t warp;
  ShrinkingBarrier barrier;
  std::vector<std::unique_ptr<ShrinkingBarrier>> warps;
  std::vector<int32_t> exchange;
  std::vector<const uint8_t*> rows;  // ldmatrix's row addresses
  std::vector<MatrixRegisters> matrix;
  int32_t block_id[3] = {0, 0, 0};
  int32_t block_dim[3] = {1, 1, 1};
};

struct SimtThread {
  Block* block = nullptr;
  int32_t thread_id[3] = {0, 0, 0};
  int64_t linear = 0;
};

thread_local SimtThread* current = nullptr;

// The calls the kernels make (their addresses are constants in the IR).
int32_t SimtThreadId(int32_t dim) { return current->thread_id[dim]; }
int32_t SimtBlockId(int32_t dim) { return current->block->block_id[dim]; }
int32_t SimtLane() {
  return static_cast<int32_t>(current->linear % current->block->warp);
}
void SimtBarrier() { current->block->barrier.Wait(); }
// Every lane of the warp publishes its value, waits for the others, reads
// its source lane's and waits again (so no lane overwrites its slot before
// every reader is done).
int32_t SimtShuffle(int32_t value, int32_t source_lane) {
  Block* block = current->block;
  const int64_t w = current->linear / block->warp;
  const int64_t first = w * block->warp;
  block->exchange[current->linear] = value;
  block->warps[w]->Wait();
  const int64_t source = first + source_lane;
  const int32_t result =
      source >= 0 && source < block->threads && source_lane < block->warp
          ? block->exchange[source]
          : value;
  block->warps[w]->Wait();
  return result;
}

// The warp's lanes whose `predicate` is not zero (lane i is bit i, up to
// 64 lanes): every lane publishes it, waits for the others, gathers them
// and waits again (as a shuffle).
int64_t SimtBallot(int32_t predicate) {
  Block* block = current->block;
  const int64_t w = current->linear / block->warp;
  const int64_t first = w * block->warp;
  block->exchange[current->linear] = predicate;
  block->warps[w]->Wait();
  uint64_t mask = 0;
  for (int64_t l = 0; l < block->warp && first + l < block->threads; ++l) {
    if (block->exchange[first + l] != 0) mask |= uint64_t{1} << l;
  }
  block->warps[w]->Wait();
  return static_cast<int64_t>(mask);
}

// Every lane of the warp waits for the others; the waits order their
// shared-memory accesses, as __syncwarp() does.
int32_t SimtWarpSync() {
  Block* block = current->block;
  block->warps[current->linear / block->warp]->Wait();
  return 0;
}

// Asynchronous copies (cp.async): each thread's copies read their source
// when issued but land in shared memory only when a wait retires their
// group, the latest the hardware may, so a kernel that reads a tile
// without waiting for it reads stale data here too.
struct AsyncCopy {
  uint8_t* dst;
  uint8_t bytes[16];
};
struct AsyncCopies {
  std::vector<AsyncCopy> open;                    // not yet committed
  std::vector<std::vector<AsyncCopy>> committed;  // oldest first
};
thread_local AsyncCopies async_copies;

int32_t SimtAsyncCopy(uint8_t* dst, const uint8_t* src, int32_t valid) {
  AsyncCopy copy{dst, {}};
  if (valid != 0) std::memcpy(copy.bytes, src, sizeof(copy.bytes));
  async_copies.open.push_back(copy);
  return 0;
}
int32_t SimtAsyncCommit() {
  async_copies.committed.push_back(std::move(async_copies.open));
  async_copies.open.clear();
  return 0;
}
int32_t SimtAsyncWait(int32_t pending) {
  auto& groups = async_copies.committed;
  while (static_cast<int64_t>(groups.size()) > pending) {
    for (const AsyncCopy& copy : groups.front()) {
      std::memcpy(copy.dst, copy.bytes, sizeof(copy.bytes));
    }
    groups.erase(groups.begin());
  }
  return 0;
}

// ldmatrix.x4 (GpuTarget::EmitMatrixLoad): every lane publishes its row
// address, waits for the others, gathers its four registers and waits
// again.
int32_t SimtMatrixLoad(const uint8_t* row, int32_t transpose, int32_t* out) {
  Block* block = current->block;
  const int64_t w = current->linear / block->warp;
  const int64_t first = w * block->warp;
  const int64_t lane = current->linear - first;
  block->rows[current->linear] = row;
  block->warps[w]->Wait();
  auto element = [&](int64_t matrix, int64_t r, int64_t c) {
    uint16_t e;
    std::memcpy(&e, block->rows[first + 8 * matrix + r] + 2 * c, 2);
    return static_cast<uint32_t>(e);
  };
  const int64_t g = lane / 4, t = lane % 4;
  for (int64_t i = 0; i < 4; ++i) {
    const uint32_t low =
        transpose ? element(i, 2 * t, g) : element(i, g, 2 * t);
    const uint32_t high =
        transpose ? element(i, 2 * t + 1, g) : element(i, g, 2 * t + 1);
    out[i] = static_cast<int32_t>(low | (high << 16));
  }
  block->warps[w]->Wait();
  return 0;
}

// A matrix instruction of kind `kind`: every lane of the warp publishes its
// operands and accumulators, waits for the others, and takes its own part
// of the model's D = A * B + C (testing/matrix_model.h); a second wait keeps
// the registers until every lane has read them.
void SimtMatrix(int32_t kind, const float* a, const float* b, float* acc) {
  Block* block = current->block;
  const MatrixShape s = GetMatrixShape(static_cast<MatrixKind>(kind));
  const int64_t w = current->linear / block->warp;
  const int64_t first = w * block->warp;
  const int64_t lane = current->linear - first;
  MatrixRegisters& mine = block->matrix[current->linear];
  mine.a.assign(a, a + s.a_values);
  mine.b.assign(b, b + s.b_values);
  mine.acc.assign(acc, acc + s.accumulators);
  block->warps[w]->Wait();
  std::vector<std::vector<float>> wa, wb, wacc;
  for (int64_t l = 0; l < s.lanes; ++l) {
    const MatrixRegisters& r = block->matrix[first + l];
    wa.push_back(r.a);
    wb.push_back(r.b);
    wacc.push_back(r.acc);
  }
  ExecuteMatrixModel(s, wa, wb, wacc);
  std::copy(wacc[lane].begin(), wacc[lane].end(), acc);
  block->warps[w]->Wait();
}

void InitializeHostOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
}

class HostSimtTarget : public GpuTarget {
 public:
  HostSimtTarget(GpuDeviceInfo device, std::unique_ptr<llvm::TargetMachine> tm)
      : GpuTarget(std::move(device)), tm_(std::move(tm)) {}

  std::string triple() const override { return tm_->getTargetTriple().str(); }
  std::string data_layout() const override {
    return tm_->createDataLayout().getStringRepresentation();
  }
  std::string platform() const override { return "host-simt"; }
  std::string code_format() const override { return "object"; }

  llvm::Value* EmitThreadId(int dim, llvm::IRBuilderBase* b) const override {
    return Call(reinterpret_cast<void*>(&SimtThreadId), {b->getInt32(dim)}, b);
  }
  llvm::Value* EmitBlockId(int dim, llvm::IRBuilderBase* b) const override {
    return Call(reinterpret_cast<void*>(&SimtBlockId), {b->getInt32(dim)}, b);
  }
  void EmitBarrier(llvm::IRBuilderBase* b) const override {
    llvm::FunctionType* type =
        llvm::FunctionType::get(b->getVoidTy(), {}, false);
    b->CreateCall(type, Address(reinterpret_cast<void*>(&SimtBarrier), b));
  }
  llvm::Value* EmitShuffleXorI32(llvm::Value* value, int lane_mask,
                                 llvm::IRBuilderBase* b) const override {
    return Shuffle(value, b->CreateXor(Lane(b), b->getInt32(lane_mask)), b);
  }
  llvm::Value* EmitShuffleUpI32(llvm::Value* value, int delta,
                                llvm::IRBuilderBase* b) const override {
    llvm::Value* lane = Lane(b);
    llvm::Value* source =
        b->CreateSelect(b->CreateICmpUGE(lane, b->getInt32(delta)),
                        b->CreateSub(lane, b->getInt32(delta)), lane);
    return Shuffle(value, source, b);
  }
  llvm::Value* EmitShuffleIndexI32(llvm::Value* value, int source_lane,
                                   llvm::IRBuilderBase* b) const override {
    return Shuffle(value, b->getInt32(source_lane), b);
  }
  // Ballots of the simulated warp's width, as NVIDIA's vote.ballot.sync
  // (32) and AMD's ballot (32 or 64).
  llvm::Value* EmitBallot(llvm::Value* predicate,
                          llvm::IRBuilderBase* b) const override {
    llvm::FunctionType* type =
        llvm::FunctionType::get(b->getInt64Ty(), {b->getInt32Ty()}, false);
    llvm::Value* mask =
        b->CreateCall(type, Address(reinterpret_cast<void*>(&SimtBallot), b),
                      {b->CreateZExt(predicate, b->getInt32Ty())});
    return b->CreateTrunc(
        mask, b->getIntNTy(static_cast<unsigned>(device().warp_size)));
  }
  void EmitWarpSync(llvm::IRBuilderBase* b) const override {
    Call(reinterpret_cast<void*>(&SimtWarpSync), {}, b);
  }
  // gfx90a's and gfx942's facts get their MFMA instructions and sm_80's
  // and sm_90's their mma.sync, executed by the model of
  // testing/matrix_model.h: the tiled dot kernel's matrix path (staging,
  // lane layout, accumulators, output positions) runs here; only the
  // instruction itself is the model, not the hardware.
  std::optional<MatrixShape> MatrixInstruction(
      PrimitiveType operand_type) const override {
    if (device().platform == "cuda") {
      return NvptxMatrixInstruction(device(), operand_type);
    }
    return AmdgpuMatrixInstruction(device(), operand_type);
  }
  llvm::Value* EmitMatrixMultiplyAdd(
      const MatrixShape& shape, llvm::Value* a, llvm::Value* b, llvm::Value* c,
      llvm::IRBuilderBase* builder) const override {
    llvm::Type* f32 = builder->getFloatTy();
    auto spill = [&](llvm::Value* v, int count, const char* name) {
      llvm::Type* array = llvm::ArrayType::get(f32, count);
      llvm::Value* slot = EmitAllocaAtEntry(array, name, builder);
      for (int i = 0; i < count; ++i) {
        llvm::Value* e = v->getType()->isVectorTy()
                             ? builder->CreateExtractElement(v, i)
                             : v;
        if (!e->getType()->isFloatTy()) e = builder->CreateFPExt(e, f32);
        builder->CreateStore(
            e, builder->CreateConstInBoundsGEP2_32(array, slot, 0, i));
      }
      return slot;
    };
    llvm::Value* pa = spill(a, shape.a_values, "matrix.a");
    llvm::Value* pb = spill(b, shape.b_values, "matrix.b");
    llvm::Value* pc = spill(c, shape.accumulators, "matrix.c");
    llvm::FunctionType* type =
        llvm::FunctionType::get(builder->getVoidTy(),
                                {builder->getInt32Ty(), builder->getPtrTy(),
                                 builder->getPtrTy(), builder->getPtrTy()},
                                false);
    builder->CreateCall(
        type, Address(reinterpret_cast<void*>(&SimtMatrix), builder),
        {builder->getInt32(static_cast<int32_t>(shape.kind)), pa, pb, pc});
    llvm::Value* d = llvm::UndefValue::get(c->getType());
    llvm::Type* array = llvm::ArrayType::get(f32, shape.accumulators);
    for (int i = 0; i < shape.accumulators; ++i) {
      d = builder->CreateInsertElement(
          d,
          builder->CreateLoad(
              f32, builder->CreateConstInBoundsGEP2_32(array, pc, 0, i)),
          builder->getInt32(i));
    }
    return d;
  }
  bool has_matrix_load() const override { return true; }
  llvm::Value* EmitMatrixLoad(llvm::Value* shared_row, bool transpose,
                              llvm::IRBuilderBase* b) const override {
    llvm::Type* regs = llvm::FixedVectorType::get(b->getInt32Ty(), 4);
    llvm::Value* out = EmitAllocaAtEntry(regs, "matrix.load", b);
    llvm::FunctionType* type = llvm::FunctionType::get(
        b->getInt32Ty(), {b->getPtrTy(), b->getInt32Ty(), b->getPtrTy()},
        false);
    b->CreateCall(type, Address(reinterpret_cast<void*>(&SimtMatrixLoad), b),
                  {shared_row, b->getInt32(transpose ? 1 : 0), out});
    return b->CreateLoad(regs, out);
  }
  void EmitAsyncCopy(llvm::Value* shared_dst, llvm::Value* global_src,
                     llvm::Value* valid,
                     llvm::IRBuilderBase* b) const override {
    llvm::FunctionType* type = llvm::FunctionType::get(
        b->getInt32Ty(), {b->getPtrTy(), b->getPtrTy(), b->getInt32Ty()},
        false);
    b->CreateCall(
        type, Address(reinterpret_cast<void*>(&SimtAsyncCopy), b),
        {shared_dst, global_src, b->CreateZExt(valid, b->getInt32Ty())});
  }
  void EmitAsyncCommit(llvm::IRBuilderBase* b) const override {
    Call(reinterpret_cast<void*>(&SimtAsyncCommit), {}, b);
  }
  void EmitAsyncWait(int pending, llvm::IRBuilderBase* b) const override {
    Call(reinterpret_cast<void*>(&SimtAsyncWait), {b->getInt32(pending)}, b);
  }
  unsigned shared_address_space() const override { return 0; }
  unsigned global_address_space() const override { return 0; }
  void MarkKernel(llvm::Function*, int64_t) const override {}
  const MathLibrary& math() const override { return math_; }

  absl::StatusOr<std::string> CompileModule(
      llvm::Module* module, CompilePhaseTimes* times) const override {
    module->setTargetTriple(tm_->getTargetTriple().str());
    module->setDataLayout(tm_->createDataLayout());
    std::string errors;
    llvm::raw_string_ostream error_stream(errors);
    if (llvm::verifyModule(*module, &error_stream)) {
      return absl::InternalError(
          absl::StrCat("GPU codegen produced invalid LLVM IR: ", errors));
    }
    OptimizeModule(module, tm_.get());
    return EmitMachineCode(module, tm_.get(), /*object=*/true);
  }

 private:
  static llvm::Value* Address(void* function, llvm::IRBuilderBase* b) {
    return llvm::ConstantExpr::getIntToPtr(
        b->getInt64(reinterpret_cast<uint64_t>(function)), b->getPtrTy());
  }
  // i32 f(i32...) at `function`'s address: an opaque call, so the
  // optimizer keeps memory accesses on their side of it.
  static llvm::Value* Call(void* function, std::vector<llvm::Value*> args,
                           llvm::IRBuilderBase* b) {
    std::vector<llvm::Type*> params(args.size(), b->getInt32Ty());
    llvm::FunctionType* type =
        llvm::FunctionType::get(b->getInt32Ty(), params, false);
    return b->CreateCall(type, Address(function, b), args);
  }
  static llvm::Value* Lane(llvm::IRBuilderBase* b) {
    return Call(reinterpret_cast<void*>(&SimtLane), {}, b);
  }
  static llvm::Value* Shuffle(llvm::Value* value, llvm::Value* source,
                              llvm::IRBuilderBase* b) {
    return Call(reinterpret_cast<void*>(&SimtShuffle), {value, source}, b);
  }

  std::unique_ptr<llvm::TargetMachine> tm_;
  HostMathLibrary math_;
};

// Calls `fn` with the N pointers of `args`.
template <size_t... I>
void CallWith(void* fn, void* const* args, std::index_sequence<I...>) {
  using Fn = void (*)(decltype((void)I, static_cast<void*>(nullptr))...);
  reinterpret_cast<Fn>(fn)(args[I]...);
}
using Caller = void (*)(void*, void* const*);
template <size_t N>
void CallN(void* fn, void* const* args) {
  CallWith(fn, args, std::make_index_sequence<N>());
}
template <size_t... N>
constexpr std::array<Caller, sizeof...(N)> MakeCallers(
    std::index_sequence<N...>) {
  return {&CallN<N>...};
}
// Enough for the widest fusions the pipelines make (the cyclic reduction
// of tridiagonal-solve-expander passes 35 buffers to one kernel).
constexpr size_t kMaxKernelParameters = 64;
const auto kCallers =
    MakeCallers(std::make_index_sequence<kMaxKernelParameters + 1>());

// Runs every block of a launch, one after another; a block's threads at
// once.
void Launch(void* kernel, const std::vector<void*>& args,
            const LaunchDims& dims, int64_t warp) {
  const int64_t threads = dims.NumThreadsPerBlock();
  for (int64_t z = 0; z < dims.grid[2]; ++z) {
    for (int64_t y = 0; y < dims.grid[1]; ++y) {
      for (int64_t x = 0; x < dims.grid[0]; ++x) {
        Block block(threads, warp);
        block.block_id[0] = static_cast<int32_t>(x);
        block.block_id[1] = static_cast<int32_t>(y);
        block.block_id[2] = static_cast<int32_t>(z);
        std::vector<std::thread> workers;
        workers.reserve(threads);
        for (int64_t t = 0; t < threads; ++t) {
          workers.emplace_back([&, t] {
            SimtThread self;
            self.block = &block;
            self.linear = t;
            self.thread_id[0] = static_cast<int32_t>(t % dims.block[0]);
            self.thread_id[1] =
                static_cast<int32_t>(t / dims.block[0] % dims.block[1]);
            self.thread_id[2] =
                static_cast<int32_t>(t / (dims.block[0] * dims.block[1]));
            current = &self;
            kCallers[args.size()](kernel, args.data());
            block.warps[t / warp]->Drop();
            block.barrier.Drop();
            current = nullptr;
          });
        }
        for (std::thread& w : workers) w.join();
      }
    }
  }
}

class Runner {
 public:
  Runner(const Executable& e, LoadedObject* object, int64_t warp,
         std::vector<uint8_t*> slots)
      : e_(e), object_(object), warp_(warp), slots_(std::move(slots)) {}

  absl::Status Run(const std::vector<ExecutableStep>& steps) {
    using Kind = ExecutableStep::Kind;
    for (const ExecutableStep& step : steps) {
      switch (step.kind) {
        case Kind::kKernel: {
          absl::StatusOr<void*> kernel = Kernel(step.kernel_name);
          if (!kernel.ok()) return kernel.status();
          if (step.buffers.size() > kMaxKernelParameters) {
            return absl::UnimplementedError(
                absl::StrCat(step.kernel_name, " has ", step.buffers.size(),
                             " parameters; the simulator calls up to ",
                             kMaxKernelParameters));
          }
          std::vector<void*> args;
          for (int64_t slot : step.buffers) args.push_back(slots_[slot]);
          Launch(*kernel, args, step.launch, warp_);
          break;
        }
        case Kind::kCopy:
          std::memmove(slots_[step.buffers[1]], slots_[step.buffers[0]],
                       e_.buffers[step.buffers[0]].size);
          break;
        case Kind::kWhile:
          for (int64_t i = 0; i != step.trip_count; ++i) {
            if (step.trip_count < 0) {
              absl::Status s = Run(step.condition);
              if (!s.ok()) return s;
              if (Predicate(step) == 0) break;
            }
            absl::Status s = Run(step.body);
            if (!s.ok()) return s;
          }
          break;
        case Kind::kConditional: {
          const int64_t n = static_cast<int64_t>(step.branches.size());
          const int64_t p = Predicate(step);
          int64_t branch = n - 1;
          if (e_.buffers[step.predicate_buffer].shape.element_type() == PRED) {
            branch = p != 0 ? 0 : 1;
          } else if (p >= 0 && p < n) {
            branch = p;
          }
          absl::Status s = Run(step.branches[std::min(branch, n - 1)]);
          if (!s.ok()) return s;
          break;
        }
        case Kind::kLibraryCall: {
          // A GPU runtime runs LAPACK steps on the host anyway.
          if (!LapackStep::Handles(step.library)) {
            return absl::UnimplementedError(absl::StrCat(
                step.instruction, ": the simulator runs no ", step.library));
          }
          absl::StatusOr<std::unique_ptr<LapackStep>> lapack =
              LapackStep::Create(e_, step, step.instruction);
          if (!lapack.ok()) return lapack.status();
          absl::Status s = (*lapack)->Run(e_, step, slots_);
          if (!s.ok()) return s;
          break;
        }
        default:
          return absl::UnimplementedError(
              absl::StrCat(step.instruction,
                           ": the simulator runs kernels, copies, control "
                           "flow and LAPACK calls"));
      }
    }
    return absl::OkStatus();
  }

 private:
  absl::StatusOr<void*> Kernel(const std::string& name) {
    auto it = kernels_.find(name);
    if (it != kernels_.end()) return it->second;
    absl::StatusOr<void*> address = object_->Lookup(name);
    if (!address.ok()) return address.status();
    kernels_[name] = *address;
    return *address;
  }
  int64_t Predicate(const ExecutableStep& step) {
    const uint8_t* p = slots_[step.predicate_buffer];
    if (e_.buffers[step.predicate_buffer].shape.element_type() == PRED) {
      return *p != 0;
    }
    int32_t value;
    std::memcpy(&value, p, sizeof value);
    return value;
  }

  const Executable& e_;
  LoadedObject* object_;
  int64_t warp_;
  std::vector<uint8_t*> slots_;
  std::map<std::string, void*> kernels_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<GpuTarget>> CreateHostSimtTarget(
    const GpuDeviceInfo& device) {
  InitializeHostOnce();
  const std::string triple = llvm::sys::getProcessTriple();
  std::string error;
  const llvm::Target* target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (target == nullptr) {
    return absl::InternalError(absl::StrCat("no LLVM host target: ", error));
  }
  std::unique_ptr<llvm::TargetMachine> tm(target->createTargetMachine(
      triple, "x86-64", "", llvm::TargetOptions(), llvm::Reloc::PIC_,
      std::nullopt, llvm::CodeGenOptLevel::Default));
  if (tm == nullptr) {
    return absl::InternalError("cannot create a host target machine");
  }
  return std::unique_ptr<GpuTarget>(new HostSimtTarget(device, std::move(tm)));
}

absl::StatusOr<Literal> RunOnHostSimt(const Executable& e,
                                      const GpuDeviceInfo& device,
                                      absl::Span<const Literal> arguments) {
  if (e.platform != "host-simt" || e.device_code.size() != 1) {
    return absl::InvalidArgumentError(
        "not an executable of the host-simt target");
  }
  absl::StatusOr<std::unique_ptr<LoadedObject>> object =
      LoadedObject::Load(e.device_code[0].code, e.name);
  if (!object.ok()) return object.status();
  // The buffer plan in host memory, each allocation 64-byte aligned.
  std::vector<std::unique_ptr<uint8_t[]>> allocations;
  std::vector<uint8_t*> base;
  for (const ExecutableAllocation& a : e.allocations) {
    allocations.emplace_back(new uint8_t[a.size + 64]());
    uint8_t* p = allocations.back().get();
    p += (64 - reinterpret_cast<uintptr_t>(p) % 64) % 64;
    base.push_back(p);
    if (a.kind == BufferAllocation::Kind::kConstant) {
      std::memcpy(p, a.constant_data.data(), a.constant_data.size());
    }
  }
  std::vector<uint8_t*> slots;
  for (const ExecutableBuffer& slot : e.buffers) {
    slots.push_back(base[slot.allocation] + slot.offset);
  }
  if (arguments.size() != e.parameter_shapes.size()) {
    return absl::InvalidArgumentError("wrong number of arguments");
  }
  for (size_t p = 0; p < arguments.size(); ++p) {
    const std::vector<const Literal*> leaves = LiteralLeaves(arguments[p]);
    for (size_t l = 0; l < leaves.size(); ++l) {
      const int64_t s = e.parameter_buffers[p][l];
      if (e.buffers[s].size == 0) continue;
      CopyLiteralToBuffer(*leaves[l], e.buffers[s].shape, slots[s]);
    }
  }
  Runner runner(e, object->get(), device.warp_size, slots);
  absl::Status status = runner.Run(e.steps);
  if (!status.ok()) return status;
  Literal result = Literal::CreateUninitialized(e.result_shape);
  std::vector<Literal*> leaves = MutableLiteralLeaves(&result);
  for (size_t l = 0; l < leaves.size(); ++l) {
    const int64_t s = e.result_buffers[l];
    if (e.buffers[s].size == 0 || leaves[l]->size_bytes() == 0) continue;
    CopyBufferToLiteral(slots[s], e.buffers[s].shape, leaves[l]);
  }
  return result;
}

absl::StatusOr<Executable> CompileForHostSimt(const HloModule& module,
                                              const std::string& platform,
                                              const std::string& arch,
                                              const GpuDeviceInfo& device) {
  absl::StatusOr<std::unique_ptr<GpuTarget>> target =
      CreateHostSimtTarget(device);
  if (!target.ok()) return target.status();
  GpuCompileOptions options;
  options.platform = platform;
  options.arch = arch;
  options.target = target->get();
  return CompileForGpu(module, options);
}

}  // namespace hloc
