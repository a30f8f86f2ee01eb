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
#include "hlo/math_util.h"
#include "runtime/cpu_library_call.h"
#include "runtime/dense_buffer.h"
#include "runtime/evaluator_step.h"
#include "runtime/while_limit.h"

namespace hloc {
namespace {

constexpr int64_t kAlignment = 64;

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
  for (const ExecutableStep& step : executable.steps) {
    executor->has_collectives_ |=
        step.kind == ExecutableStep::Kind::kCollective;
  }
  absl::Status prepared = executor->Prepare(executable.steps, "", resolve,
                                            &executor->prepared_);
  if (!prepared.ok()) return prepared;
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

absl::Status CpuExecutor::Prepare(const std::vector<ExecutableStep>& steps,
                                  const std::string& what,
                                  const KernelResolver& resolve,
                                  std::vector<PreparedStep>* out) {
  const Executable& executable = executable_;
  using Kind = ExecutableStep::Kind;
  for (size_t s = 0; s < steps.size(); ++s) {
    const ExecutableStep& step = steps[s];
    const std::string name =
        absl::StrCat(what, "step ", s, " (", step.instruction, ")");
    PreparedStep& prepared = out->emplace_back();
    switch (step.kind) {
      case Kind::kCollective:
        // A collective meets its peers only as a top-level step.
        if (!what.empty()) {
          return absl::InvalidArgumentError(absl::StrCat(
              name, " is a collective inside a while or a conditional, "
                    "which the cpu runs only at the top level"));
        }
        break;
      case Kind::kKernel: {
        absl::StatusOr<void*> address = resolve(step.kernel_name);
        if (!address.ok()) {
          return absl::Status(
              address.status().code(),
              absl::StrCat("kernel ", step.kernel_name, " of ",
                           step.instruction, ": ", address.status().message()));
        }
        if (*address == nullptr) {
          return absl::NotFoundError(
              absl::StrCat("kernel ", step.kernel_name, " has no address"));
        }
        prepared.kernel = reinterpret_cast<Kernel>(*address);
        break;
      }
      case Kind::kLibraryCall: {
        absl::StatusOr<std::unique_ptr<CpuLibraryCall>> call =
            CpuLibraryCall::Create(
                executable, step,
                absl::StrCat("library ", what, "step ", s, " (", step.library,
                             " ", step.instruction, ")"));
        if (!call.ok()) return call.status();
        prepared.library_call = *std::move(call);
        break;
      }
      case Kind::kEvaluator: {
        absl::StatusOr<std::unique_ptr<EvaluatorStep>> evaluator =
            EvaluatorStep::Create(executable, step,
                                  absl::StrCat("evaluator ", name));
        if (!evaluator.ok()) return evaluator.status();
        prepared.device_dependent =
            FirstDeviceDependent((*evaluator)->module());
        prepared.evaluator = *std::move(evaluator);
        break;
      }
      case Kind::kCopy:
        break;
      case Kind::kWhile: {
        absl::Status status = Prepare(step.condition, name + " condition ",
                                      resolve, &prepared.condition);
        if (status.ok()) {
          status = Prepare(step.body, name + " body ", resolve, &prepared.body);
        }
        if (!status.ok()) return status;
        break;
      }
      case Kind::kConditional:
        for (size_t b = 0; b < step.branches.size(); ++b) {
          absl::Status status =
              Prepare(step.branches[b], absl::StrCat(name, " branch ", b, " "),
                      resolve, &prepared.branches.emplace_back());
          if (!status.ok()) return status;
        }
        break;
    }
  }
  return absl::OkStatus();
}

std::string CpuExecutor::DeviceDependent(
    const std::vector<ExecutableStep>& steps,
    const std::vector<PreparedStep>& prepared) {
  for (size_t s = 0; s < steps.size(); ++s) {
    const PreparedStep& p = prepared[s];
    std::string found =
        p.device_dependent.empty()
            ? ""
            : absl::StrCat("step ", s, " (", steps[s].instruction, ") holds ",
                           p.device_dependent);
    if (found.empty()) found = DeviceDependent(steps[s].condition, p.condition);
    if (found.empty()) found = DeviceDependent(steps[s].body, p.body);
    for (size_t b = 0; found.empty() && b < p.branches.size(); ++b) {
      found = DeviceDependent(steps[s].branches[b], p.branches[b]);
    }
    if (!found.empty()) return found;
  }
  return "";
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
      run_bytes_ += RoundUpTo(e.allocations[a].size, kAlignment);
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
    const std::string dependent = DeviceDependent(e.steps, prepared_);
    if (!dependent.empty()) {
      return absl::UnimplementedError(absl::StrCat(
          "evaluator ", dependent,
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
        staged.push_back(AllocateBlock(RoundUpTo(slot.size, kAlignment)));
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
  const ScopedDenormalMode denormal_mode(denormals);
  const ScopedWhileLimit while_limit(max_while_iterations);
  const RunContext context{&address, collectives, replica.device,
                           max_while_iterations, &while_limit};
  absl::Status status = RunSteps(e.steps, prepared_, context);
  if (!status.ok()) return status;
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

absl::Status CpuExecutor::RunSteps(const std::vector<ExecutableStep>& steps,
                                   const std::vector<PreparedStep>& prepared,
                                   const RunContext& context) {
  const Executable& e = executable_;
  const std::vector<uint8_t*>& address = *context.address;
  std::vector<void*> pointers;
  using Kind = ExecutableStep::Kind;
  for (size_t s = 0; s < steps.size(); ++s) {
    const ExecutableStep& step = steps[s];
    const PreparedStep& p = prepared[s];
    absl::Status status;
    switch (step.kind) {
      case Kind::kKernel:
        pointers.clear();
        for (int64_t slot : step.buffers) pointers.push_back(address[slot]);
        p.kernel(pointers.data());
        break;
      case Kind::kLibraryCall:
        status = p.library_call->Run(e, step, address);
        break;
      case Kind::kCollective:
        status = RunCollective(s, step, context);
        break;
      case Kind::kEvaluator:
        fallback_runs_.fetch_add(1);
        status = p.evaluator->Run(e, step, address,
                                  context.max_while_iterations);
        break;
      case Kind::kCopy:
        std::memcpy(address[step.buffers[1]], address[step.buffers[0]],
                    e.buffers[step.buffers[1]].size);
        break;
      case Kind::kWhile:
        // The loop asks the limit before each body run, as a compiled
        // while kernel does (runtime/while_limit.h).
        // A counted loop (step.trip_count) skips the condition.
        for (int64_t iteration = 0;; ++iteration) {
          if (step.trip_count >= 0) {
            if (iteration == step.trip_count) break;
          } else {
            status = RunSteps(step.condition, p.condition, context);
            if (!status.ok()) break;
            if (*address[step.predicate_buffer] == 0) break;
          }
          if (hloc_while_iteration(step.instruction.c_str(), iteration) != 0) {
            break;
          }
          status = RunSteps(step.body, p.body, context);
          if (!status.ok()) break;
        }
        break;
      case Kind::kConditional: {
        // pred: true runs branch 0; s32: out of range runs the last.
        const uint8_t* predicate = address[step.predicate_buffer];
        const int64_t last = static_cast<int64_t>(step.branches.size()) - 1;
        int64_t branch;
        if (e.buffers[step.predicate_buffer].shape.element_type() == PRED) {
          branch = *predicate != 0 ? 0 : 1;
        } else {
          int32_t index;
          std::memcpy(&index, predicate, sizeof(index));
          branch = index < 0 || index > last ? last : index;
        }
        status = RunSteps(step.branches[branch], p.branches[branch], context);
        break;
      }
    }
    if (!status.ok()) return status;
    // A while kernel or loop stopped by the limit left its outputs
    // unfinished: the run ends with the limit's error.
    status = context.while_limit->status();
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

absl::Status CpuExecutor::RunCollective(size_t s, const ExecutableStep& step,
                                        const RunContext& context) const {
  const Executable& e = executable_;
  std::vector<void*> buffers;
  std::vector<int64_t> sizes;
  for (int64_t slot : step.buffers) {
    buffers.push_back((*context.address)[slot]);
    sizes.push_back(e.buffers[slot].size);
  }
  HostCollectiveCall call;
  call.step = static_cast<int64_t>(s);
  call.name = step.instruction;
  call.config = &step.collective;
  call.element_type = e.buffers[step.buffers[0]].shape.element_type();
  call.buffers = buffers;
  call.sizes = sizes;
  return context.collectives->Run(context.device, call);
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
