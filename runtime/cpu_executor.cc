#include "runtime/cpu_executor.h"

#include <algorithm>
#include <cstring>
#include <new>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "hlo/collectives.h"
#include "hlo/computation.h"
#include "hlo/large_block_allocator.h"
#include "runtime/cpu_library_call.h"
#include "runtime/dense_buffer.h"
#include "runtime/evaluator_step.h"
#include "runtime/while_limit.h"

namespace hloc {
namespace {

constexpr int64_t kAlignment = 64;

int64_t RoundUp(int64_t x) {
  return (x + kAlignment - 1) / kAlignment * kAlignment;
}

// The bytes a row-major literal of an array shape holds.
int64_t LiteralBytes(const Shape& shape) {
  return shape.ElementCount() * ByteWidth(shape.element_type());
}

// Zero-size leaves point here, so no kernel sees a null pointer.
alignas(64) uint8_t empty_leaf[64];

// The first instruction of `module` whose value depends on the device it
// runs on (a collective, replica-id, partition-id), "OPCODE NAME", or "".
std::string FirstDeviceDependent(const HloModule& module) {
  for (const HloComputation* computation : module.computations()) {
    for (const HloInstruction* instr : computation->instructions()) {
      if (IsCrossDeviceCollective(instr->opcode()) ||
          instr->opcode() == HloOpcode::kReplicaId ||
          instr->opcode() == HloOpcode::kPartitionId) {
        return absl::StrCat(HloOpcodeString(instr->opcode()), " ",
                            instr->name());
      }
    }
  }
  return "";
}

}  // namespace

ByteBlock CpuExecutor::AllocateBlock(int64_t bytes) {
  try {
    return ByteBlock::Uninitialized(
        static_cast<size_t>(std::max<int64_t>(bytes, kAlignment)));
  } catch (const std::bad_alloc&) {
    return ByteBlock();
  }
}

std::vector<bool> CpuExecutor::result_in_place() const {
  std::vector<bool> in_place;
  for (int64_t a : result_allocation_) in_place.push_back(a >= 0);
  return in_place;
}

CpuExecutor::~CpuExecutor() = default;

absl::StatusOr<std::unique_ptr<CpuExecutor>> CpuExecutor::Create(
    Executable executable_in, const KernelResolver& resolve) {
  absl::Status status = ValidateExecutable(executable_in);
  if (!status.ok()) return status;
  if (executable_in.platform != "cpu") {
    return absl::InvalidArgumentError(
        absl::StrCat("the executable is for platform '", executable_in.platform,
                     "', not cpu"));
  }
  std::unique_ptr<CpuExecutor> executor(new CpuExecutor());
  // Moved in first: constants are used where the executable holds them.
  executor->executable_ = std::move(executable_in);
  const Executable& executable = executor->executable_;
  const std::vector<ExecutableBuffer>& slots = executable.buffers;
  for (size_t s = 0; s < executable.steps.size(); ++s) {
    const ExecutableStep& step = executable.steps[s];
    executor->kernels_.push_back(nullptr);
    executor->evaluators_.push_back(nullptr);
    executor->library_calls_.push_back(nullptr);
    executor->device_dependent_.emplace_back();
    if (step.kind == ExecutableStep::Kind::kCollective) {
      executor->has_collectives_ = true;
      continue;
    }
    if (step.kind == ExecutableStep::Kind::kKernel) {
      absl::StatusOr<void*> address = resolve(step.kernel_name);
      if (!address.ok()) {
        return absl::Status(
            address.status().code(),
            absl::StrCat("kernel ", step.kernel_name, " of ", step.instruction,
                         ": ", address.status().message()));
      }
      if (*address == nullptr) {
        return absl::NotFoundError(
            absl::StrCat("kernel ", step.kernel_name, " has no address"));
      }
      executor->kernels_.back() = reinterpret_cast<Kernel>(*address);
      continue;
    }
    if (step.kind == ExecutableStep::Kind::kLibraryCall) {
      absl::StatusOr<std::unique_ptr<CpuLibraryCall>> call =
          CpuLibraryCall::Create(
              executable, step,
              absl::StrCat("library step ", s, " (", step.library, " ",
                           step.instruction, ")"));
      if (!call.ok()) return call.status();
      executor->library_calls_.back() = *std::move(call);
      continue;
    }
    if (step.kind != ExecutableStep::Kind::kEvaluator) {
      return absl::InvalidArgumentError(
          absl::StrCat("step ", s, " (", step.instruction,
                       ") is of a kind the CPU executor does not run"));
    }
    absl::StatusOr<std::unique_ptr<EvaluatorStep>> evaluator =
        EvaluatorStep::Create(
            executable, step,
            absl::StrCat("evaluator step ", s, " (", step.instruction, ")"));
    if (!evaluator.ok()) return evaluator.status();
    executor->device_dependent_.back() =
        FirstDeviceDependent((*evaluator)->module());
    executor->evaluators_.back() = *std::move(evaluator);
  }
  // Parameter slots are bound to the caller's data as a whole.
  for (const ExecutableBuffer& slot : slots) {
    if (executable.allocations[slot.allocation].kind ==
            BufferAllocation::Kind::kParameter &&
        slot.offset != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("parameter slot ", slot.name, " is not at offset 0"));
    }
  }
  executor->PlanMemory();
  return executor;
}

void CpuExecutor::PlanMemory() {
  const Executable& e = executable_;
  const size_t num_allocations = e.allocations.size();
  // How many result leaves name each allocation, and where its last slot
  // ends.
  std::vector<int64_t> result_uses(num_allocations, 0);
  for (int64_t slot : e.result_buffers) {
    ++result_uses[e.buffers[slot].allocation];
  }
  std::vector<int64_t> slots_end(num_allocations, 0);
  for (const ExecutableBuffer& slot : e.buffers) {
    slots_end[slot.allocation] =
        std::max(slots_end[slot.allocation], slot.offset + slot.size);
  }
  std::vector<bool> bound(num_allocations, false);
  for (int64_t slot_index : e.result_buffers) {
    const ExecutableBuffer& slot = e.buffers[slot_index];
    const int64_t a = slot.allocation;
    const bool in_place =
        e.allocations[a].kind == BufferAllocation::Kind::kOutput &&
        result_uses[a] == 1 && slot.offset == 0 && slot.size > 0 &&
        slot.shape.IsArray() && slot.size == LiteralBytes(slot.shape) &&
        slots_end[a] <= slot.size &&
        (slot.shape.HasDescendingLayout() || slot.shape.rank() <= 1);
    result_allocation_.push_back(in_place ? a : -1);
    if (in_place) bound[a] = true;
  }
  // The block holds the arena and the outputs nothing binds.
  for (size_t a = 0; a < num_allocations; ++a) {
    const BufferAllocation::Kind kind = e.allocations[a].kind;
    run_offset_.push_back(-1);
    if (kind == BufferAllocation::Kind::kArena ||
        (kind == BufferAllocation::Kind::kOutput && !bound[a])) {
      run_offset_.back() = run_bytes_;
      run_bytes_ += RoundUp(e.allocations[a].size);
    }
  }
}

absl::StatusOr<Literal> CpuExecutor::Run(absl::Span<const Literal> arguments,
                                         DenormalMode denormals,
                                         int64_t max_while_iterations,
                                         const HostReplica& replica) {
  const Executable& e = executable_;
  // A one-device run meets only itself.
  std::optional<HostCollectives> alone;
  HostCollectives* collectives = replica.collectives;
  if (collectives == nullptr && has_collectives_) {
    collectives = &alone.emplace(1);
  }
  const int64_t num_devices =
      collectives == nullptr ? 1 : collectives->num_devices();
  if (num_devices > 1) {
    for (size_t s = 0; s < e.steps.size(); ++s) {
      if (device_dependent_[s].empty()) continue;
      return absl::UnimplementedError(absl::StrCat(
          "evaluator step ", s, " (", e.steps[s].instruction, ") holds ",
          device_dependent_[s],
          ", which the cpu runs only as a step of its own at the top level "
          "of the entry computation (not inside a while, a conditional or "
          "a fallback); it cannot run on device ",
          replica.device, " of ", num_devices));
    }
  }
  if (arguments.size() != e.parameter_shapes.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the entry computation takes ", e.parameter_shapes.size(),
                     " arguments, given ", arguments.size()));
  }
  ByteBlock block = TakeBlock();
  if (block.empty()) {
    return absl::ResourceExhaustedError(
        absl::StrCat("cannot allocate ", run_bytes_, " bytes for a run"));
  }
  // The result first: its in-place leaves are where kernels write.
  Literal result;
  try {
    result = Literal::CreateUninitialized(e.result_shape);
  } catch (const std::bad_alloc&) {
    return absl::ResourceExhaustedError(
        absl::StrCat("cannot allocate the result ", e.result_shape.ToString()));
  }
  std::vector<Literal*> result_leaves = MutableLiteralLeaves(&result);
  if (result_leaves.size() != result_allocation_.size()) {
    return absl::InternalError("result leaves do not match the result slots");
  }
  std::vector<uint8_t*> base(e.allocations.size(), nullptr);
  for (size_t l = 0; l < result_leaves.size(); ++l) {
    if (result_allocation_[l] >= 0) {
      base[result_allocation_[l]] = result_leaves[l]->untyped_data();
    }
  }
  for (size_t a = 0; a < e.allocations.size(); ++a) {
    // Kernels never write constants; they need only the elements'
    // natural alignment, which the string's storage has.
    if (e.allocations[a].kind == BufferAllocation::Kind::kConstant) {
      base[a] = reinterpret_cast<uint8_t*>(
          const_cast<char*>(e.allocations[a].constant_data.data()));
    }
    if (run_offset_[a] >= 0) base[a] = block.data() + run_offset_[a];
  }
  // Parameters: the caller's bytes where they are already laid out right.
  std::vector<ByteBlock> staged;
  for (size_t p = 0; p < arguments.size(); ++p) {
    const Literal& argument = arguments[p];
    if (!argument.shape().Compatible(e.parameter_shapes[p])) {
      return absl::InvalidArgumentError(absl::StrCat(
          "argument ", p, " has shape ", argument.shape().ToString(),
          ", the parameter ", e.parameter_shapes[p].ToString()));
    }
    const std::vector<const Literal*> leaves = LiteralLeaves(argument);
    for (size_t l = 0; l < leaves.size(); ++l) {
      const ExecutableBuffer& slot = e.buffers[e.parameter_buffers[p][l]];
      uint8_t*& address = base[slot.allocation];
      if (slot.size == 0) {
        address = empty_leaf;
      } else if (slot.shape.HasDescendingLayout() || slot.shape.rank() <= 1) {
        address = const_cast<uint8_t*>(leaves[l]->untyped_data());
      } else {
        staged.push_back(AllocateBlock(RoundUp(slot.size)));
        if (staged.back().empty()) {
          return absl::ResourceExhaustedError("cannot stage a parameter");
        }
        CopyLiteralToBuffer(*leaves[l], slot.shape, staged.back().data());
        address = staged.back().data();
      }
    }
  }
  std::vector<uint8_t*> address(e.buffers.size());
  for (size_t s = 0; s < e.buffers.size(); ++s) {
    const ExecutableBuffer& slot = e.buffers[s];
    address[s] = slot.size == 0 || base[slot.allocation] == nullptr
                     ? empty_leaf
                     : base[slot.allocation] + slot.offset;
  }
  std::vector<void*> pointers;
  const ScopedDenormalMode denormal_mode(denormals);
  const ScopedWhileLimit while_limit(max_while_iterations);
  for (size_t s = 0; s < e.steps.size(); ++s) {
    if (kernels_[s] != nullptr) {
      pointers.clear();
      for (int64_t slot : e.steps[s].buffers) pointers.push_back(address[slot]);
      kernels_[s](pointers.data());
      // A while kernel stopped by the limit left its outputs unfinished.
      absl::Status stopped = while_limit.status();
      if (!stopped.ok()) return stopped;
      continue;
    }
    if (library_calls_[s] != nullptr) {
      absl::Status status = library_calls_[s]->Run(e, e.steps[s], address);
      if (!status.ok()) return status;
      continue;
    }
    if (e.steps[s].kind == ExecutableStep::Kind::kCollective) {
      absl::Status status =
          RunCollective(s, address, *collectives, replica.device);
      if (!status.ok()) return status;
      continue;
    }
    fallback_runs_.fetch_add(1);
    absl::Status status =
        evaluators_[s]->Run(e, e.steps[s], address, max_while_iterations);
    if (!status.ok()) return status;
  }
  // The leaves not written in place: copied from their slots.
  int64_t copied = 0;
  for (size_t l = 0; l < result_leaves.size(); ++l) {
    if (result_allocation_[l] >= 0) continue;
    const ExecutableBuffer& slot = e.buffers[e.result_buffers[l]];
    if (slot.size == 0 || result_leaves[l]->size_bytes() == 0) continue;
    CopyBufferToLiteral(address[e.result_buffers[l]], slot.shape,
                        result_leaves[l]);
    copied += result_leaves[l]->size_bytes();
  }
  if (copied > 0) result_bytes_copied_.fetch_add(copied);
  ReturnBlock(std::move(block));
  return result;
}

absl::Status CpuExecutor::RunCollective(size_t s,
                                        const std::vector<uint8_t*>& address,
                                        HostCollectives& collectives,
                                        int64_t device) const {
  const Executable& e = executable_;
  const ExecutableStep& step = e.steps[s];
  std::vector<void*> buffers;
  std::vector<int64_t> sizes;
  for (int64_t slot : step.buffers) {
    buffers.push_back(address[slot]);
    sizes.push_back(e.buffers[slot].size);
  }
  HostCollectiveCall call;
  call.step = static_cast<int64_t>(s);
  call.name = step.instruction;
  call.config = &step.collective;
  call.element_type = e.buffers[step.buffers[0]].shape.element_type();
  call.buffers = buffers;
  call.sizes = sizes;
  return collectives.Run(device, call);
}

ByteBlock CpuExecutor::TakeBlock() {
  {
    std::lock_guard<std::mutex> lock(block_mutex_);
    if (!spare_block_.empty()) return std::move(spare_block_);
  }
  return AllocateBlock(run_bytes_);
}

void CpuExecutor::ReturnBlock(ByteBlock block) {
  std::lock_guard<std::mutex> lock(block_mutex_);
  if (spare_block_.empty()) spare_block_ = std::move(block);
}

}  // namespace hloc
