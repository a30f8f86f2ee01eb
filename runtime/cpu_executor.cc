#include "runtime/cpu_executor.h"

#include <algorithm>
#include <cstring>
#include <new>
#include <utility>

#include "absl/strings/str_cat.h"
#include "hlo/computation.h"
#include "hlo/evaluator/evaluator.h"
#include "hlo/large_block_allocator.h"
#include "hlo/text/parser.h"
#include "hlo/verifier.h"
#include "runtime/dense_buffer.h"

namespace hloc {
namespace {

constexpr int64_t kAlignment = 64;

int64_t RoundUp(int64_t x) {
  return (x + kAlignment - 1) / kAlignment * kAlignment;
}

void LeafShapes(const Shape& shape, std::vector<const Shape*>* out) {
  if (shape.IsTuple()) {
    for (const Shape& s : shape.tuple_shapes()) LeafShapes(s, out);
  } else {
    out->push_back(&shape);
  }
}

void LiteralLeaves(const Literal& literal, std::vector<const Literal*>* out) {
  if (literal.shape().IsTuple()) {
    for (const Literal& e : literal.tuple_elements()) LiteralLeaves(e, out);
  } else {
    out->push_back(&literal);
  }
}

void MutableLiteralLeaves(Literal* literal, std::vector<Literal*>* out) {
  if (literal->shape().IsTuple()) {
    for (Literal& e : literal->tuple_elements()) MutableLiteralLeaves(&e, out);
  } else {
    out->push_back(literal);
  }
}

// The bytes a row-major literal of an array shape holds.
int64_t LiteralBytes(const Shape& shape) {
  return shape.ElementCount() * ByteWidth(shape.element_type());
}

size_t LeafCount(const Shape& shape) {
  std::vector<const Shape*> leaves;
  LeafShapes(shape, &leaves);
  return leaves.size();
}

bool SameLeafShape(const Shape& a, const Shape& b) {
  if (!a.Compatible(b)) return false;
  return !a.IsArray() || a.MinorToMajor() == b.MinorToMajor();
}

// A literal of `shape` whose leaves come from `slots` in order.
Literal ReadLiteral(const Shape& shape, const std::vector<uint8_t*>& address,
                    const std::vector<int64_t>& slots, size_t* next) {
  if (!shape.IsTuple())
    return BufferToLiteral(address[slots[(*next)++]], shape);
  std::vector<Literal> elements;
  for (const Shape& s : shape.tuple_shapes()) {
    elements.push_back(ReadLiteral(s, address, slots, next));
  }
  return Literal::MakeTuple(std::move(elements));
}

// Zero-size leaves point here, so no kernel sees a null pointer.
alignas(64) uint8_t empty_leaf[64];

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
  std::unique_ptr<CpuExecutor> executor(new CpuExecutor());
  // Moved in first: constants are used where the executable holds them.
  executor->executable_ = std::move(executable_in);
  const Executable& executable = executor->executable_;
  const std::vector<ExecutableBuffer>& slots = executable.buffers;
  for (size_t s = 0; s < executable.steps.size(); ++s) {
    const ExecutableStep& step = executable.steps[s];
    executor->kernels_.push_back(nullptr);
    executor->modules_.push_back(nullptr);
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
    const std::string what =
        absl::StrCat("evaluator step ", s, " (", step.instruction, ")");
    absl::StatusOr<std::unique_ptr<HloModule>> module =
        ParseHloModule(step.fallback_hlo, what);
    if (!module.ok()) return module.status();
    status = VerifyModule(**module);
    if (!status.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, ": ", status.message()));
    }
    // Its parameters' leaves, then its result's, are the step's slots.
    const HloComputation* entry = (*module)->entry_computation();
    std::vector<const Shape*> leaves;
    for (const HloInstruction* p : entry->parameter_instructions()) {
      LeafShapes(p->shape(), &leaves);
    }
    LeafShapes(entry->root_instruction()->shape(), &leaves);
    if (leaves.size() != step.buffers.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, ": its module has ", leaves.size(),
                       " leaves, the step ", step.buffers.size(), " slots"));
    }
    for (size_t l = 0; l < leaves.size(); ++l) {
      if (!SameLeafShape(*leaves[l], slots[step.buffers[l]].shape)) {
        return absl::InvalidArgumentError(
            absl::StrCat(what, ": leaf ", l, " is ", leaves[l]->ToString(),
                         " but slot ", step.buffers[l], " holds ",
                         slots[step.buffers[l]].shape.ToString()));
      }
    }
    // It writes its result leaves: never a parameter's or a constant's.
    for (size_t l =
             leaves.size() - LeafCount(entry->root_instruction()->shape());
         l < leaves.size(); ++l) {
      const BufferAllocation::Kind kind =
          executable.allocations[slots[step.buffers[l]].allocation].kind;
      if (kind == BufferAllocation::Kind::kParameter ||
          kind == BufferAllocation::Kind::kConstant) {
        return absl::InvalidArgumentError(
            absl::StrCat(what, ": writes into a ", AllocationKindName(kind)));
      }
    }
    executor->modules_.back() = *std::move(module);
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
                                         DenormalMode denormals) {
  const Executable& e = executable_;
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
    return absl::ResourceExhaustedError(absl::StrCat(
        "cannot allocate the result ", e.result_shape.ToString()));
  }
  std::vector<Literal*> result_leaves;
  MutableLiteralLeaves(&result, &result_leaves);
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
    std::vector<const Literal*> leaves;
    LiteralLeaves(argument, &leaves);
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
  for (size_t s = 0; s < e.steps.size(); ++s) {
    if (kernels_[s] != nullptr) {
      pointers.clear();
      for (int64_t slot : e.steps[s].buffers) pointers.push_back(address[slot]);
      kernels_[s](pointers.data());
      continue;
    }
    absl::Status status = EvaluateStep(s, address);
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

absl::Status CpuExecutor::EvaluateStep(size_t s,
                                       const std::vector<uint8_t*>& address) {
  fallback_runs_.fetch_add(1);
  const ExecutableStep& step = executable_.steps[s];
  const HloComputation* entry = modules_[s]->entry_computation();
  std::vector<Literal> arguments;
  size_t next = 0;
  for (const HloInstruction* p : entry->parameter_instructions()) {
    arguments.push_back(ReadLiteral(p->shape(), address, step.buffers, &next));
  }
  absl::StatusOr<Literal> result = EvaluateModule(*modules_[s], arguments);
  if (!result.ok()) {
    return absl::Status(
        result.status().code(),
        absl::StrCat("evaluator fallback for ", step.instruction, ": ",
                     result.status().message()));
  }
  std::vector<const Literal*> values;
  LiteralLeaves(*result, &values);
  for (size_t l = 0; l < values.size() && next < step.buffers.size();
       ++l, ++next) {
    const ExecutableBuffer& slot = executable_.buffers[step.buffers[next]];
    if (slot.size > 0) {
      CopyLiteralToBuffer(*values[l], slot.shape, address[step.buffers[next]]);
    }
  }
  return absl::OkStatus();
}

}  // namespace hloc
