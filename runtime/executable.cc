#include "runtime/executable.h"

#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hlo/computation.h"
#include "hlo/primitive_type.h"
#include "hlo/text/parser.h"
#include "hlo/text/printer.h"
#include "runtime/dense_buffer.h"
#include "runtime/executable.pb.h"

namespace hloc {
namespace {

constexpr char kMagic[8] = {'h', 'l', 'o', 'c', 'e', 'x', 'e', '\0'};
constexpr size_t kHeaderBytes = 32;
// No allocation or slot is larger (keeps offset + size from overflowing).
constexpr int64_t kMaxBytes = int64_t{1} << 46;

uint64_t Fnv1a64(absl::string_view bytes) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (unsigned char c : bytes) {
    hash ^= c;
    hash *= 0x100000001b3ull;
  }
  return hash;
}

void PutLe(uint64_t value, int bytes, std::string* out) {
  for (int i = 0; i < bytes; ++i) {
    out->push_back(static_cast<char>((value >> (8 * i)) & 0xff));
  }
}

uint64_t GetLe(absl::string_view data, size_t at, int bytes) {
  uint64_t value = 0;
  for (int i = 0; i < bytes; ++i) {
    value |= static_cast<uint64_t>(static_cast<unsigned char>(data[at + i]))
             << (8 * i);
  }
  return value;
}

void CollectLeafShapes(const Shape& shape, std::vector<const Shape*>* out) {
  if (shape.IsTuple()) {
    for (const Shape& s : shape.tuple_shapes()) CollectLeafShapes(s, out);
  } else {
    out->push_back(&shape);
  }
}

int64_t DenseBytes(const Shape& shape) {
  return shape.IsArray()
             ? shape.ElementCount() * ByteWidth(shape.element_type())
             : 0;
}

// Same element type, dimensions and physical layout.
bool SameLeafShape(const Shape& a, const Shape& b) {
  if (!a.Compatible(b)) return false;
  return !a.IsArray() || a.MinorToMajor() == b.MinorToMajor();
}

const Literal* LiteralLeaf(const Literal& literal,
                           const std::vector<int64_t>& index) {
  const Literal* leaf = &literal;
  for (int64_t i : index) {
    if (!leaf->shape().IsTuple() ||
        i >= static_cast<int64_t>(leaf->tuple_elements().size())) {
      return nullptr;
    }
    leaf = &leaf->tuple_elements()[i];
  }
  return leaf;
}

std::string KindName(ExecutableStep::Kind kind) {
  return kind == ExecutableStep::Kind::kKernel ? "kernel" : "evaluator";
}

absl::StatusOr<Shape> ShapeFromText(const std::string& text,
                                    absl::string_view what) {
  absl::StatusOr<Shape> shape = ParseShape(text);
  if (!shape.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, ": bad shape '", text, "': ", shape.status().message()));
  }
  return shape;
}

// A saved executable must carry its kernels.
absl::Status CheckSelfContained(const Executable& e) {
  for (const ExecutableStep& step : e.steps) {
    if (step.kind == ExecutableStep::Kind::kKernel && e.object_code.empty()) {
      return absl::FailedPreconditionError(
          "the executable calls kernels but carries no object code (compile "
          "with keep_executable)");
    }
  }
  return absl::OkStatus();
}

}  // namespace

int64_t Executable::AllocationBytes(BufferAllocation::Kind kind) const {
  int64_t total = 0;
  for (const ExecutableAllocation& a : allocations) {
    if (a.kind == kind) total += a.size;
  }
  return total;
}

absl::Status SetBufferPlan(const BufferAssignment& assignment,
                           const HloComputation& computation,
                           Executable* executable) {
  executable->allocations.clear();
  for (const BufferAllocation& a : assignment.allocations) {
    ExecutableAllocation allocation;
    allocation.kind = a.kind;
    allocation.size = a.size;
    allocation.parameter_number = a.parameter_number;
    allocation.parameter_leaf = a.parameter_leaf;
    if (a.kind == BufferAllocation::Kind::kConstant) {
      allocation.constant_data.assign(a.size, '\0');
    }
    executable->allocations.push_back(std::move(allocation));
  }
  executable->buffers.clear();
  for (const BufferValue& value : assignment.values) {
    ExecutableBuffer buffer;
    buffer.allocation = value.allocation;
    buffer.offset = value.offset;
    buffer.size = value.size;
    buffer.shape = value.shape;
    buffer.name = value.Name();
    ExecutableAllocation& allocation =
        executable->allocations[value.allocation];
    if (allocation.kind == BufferAllocation::Kind::kConstant) {
      const Literal* leaf =
          LiteralLeaf(value.instruction->literal(), value.index);
      if (leaf == nullptr || !leaf->shape().Compatible(value.shape)) {
        return absl::InternalError(absl::StrCat("constant ", value.Name(),
                                                " does not match its shape"));
      }
      CopyLiteralToBuffer(
          *leaf, value.shape,
          reinterpret_cast<uint8_t*>(allocation.constant_data.data()) +
              value.offset);
    }
    executable->buffers.push_back(std::move(buffer));
  }
  executable->parameter_shapes.clear();
  executable->parameter_buffers.clear();
  for (const HloInstruction* parameter : computation.parameter_instructions()) {
    executable->parameter_shapes.push_back(parameter->shape());
    executable->parameter_buffers.push_back(assignment.LeafValues(parameter));
  }
  executable->result_shape = computation.root_instruction()->shape();
  executable->result_buffers =
      assignment.LeafValues(computation.root_instruction());
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<HloModule>> MakeFallbackModule(
    const HloInstruction& instruction) {
  auto module = std::make_unique<HloModule>(
      absl::StrCat("fallback.", instruction.name()));
  // Called computations, callees first.
  absl::flat_hash_map<const HloComputation*, HloComputation*> remap;
  std::function<void(const HloComputation*)> add =
      [&](const HloComputation* computation) {
        if (remap.contains(computation)) return;
        for (const HloInstruction* instr : computation->instructions()) {
          for (const HloComputation* callee : instr->called_computations()) {
            add(callee);
          }
        }
        remap[computation] =
            module->AddEmbeddedComputation(computation->Clone("", &remap));
      };
  for (const HloComputation* callee : instruction.called_computations()) {
    add(callee);
  }
  auto entry = std::make_unique<HloComputation>(
      absl::StrCat("fallback.", instruction.name()));
  std::vector<HloInstruction*> parameters;
  for (int64_t i = 0; i < instruction.operand_count(); ++i) {
    parameters.push_back(entry->AddParameter(HloInstruction::CreateParameter(
        i, instruction.operand(i)->shape(), absl::StrCat("p", i))));
  }
  std::unique_ptr<HloInstruction> clone =
      instruction.CloneWithNewOperands(instruction.shape(), parameters);
  std::vector<HloComputation*> called = clone->called_computations();
  for (HloComputation*& c : called) c = remap.at(c);
  clone->set_called_computations(std::move(called));
  entry->set_root_instruction(entry->AddInstruction(std::move(clone)));
  module->AddEntryComputation(std::move(entry));
  return module;
}

absl::Status ValidateExecutable(const Executable& e) {
  auto fail = [](auto&&... parts) {
    return absl::InvalidArgumentError(absl::StrCat(parts...));
  };
  if (e.platform != "cpu") {
    return fail("the executable is for platform '", e.platform, "', not cpu");
  }
  const int64_t num_allocations = static_cast<int64_t>(e.allocations.size());
  const int64_t num_buffers = static_cast<int64_t>(e.buffers.size());
  const int64_t num_parameters =
      static_cast<int64_t>(e.parameter_shapes.size());
  absl::flat_hash_set<std::pair<int64_t, int64_t>> parameter_leaves;
  for (int64_t i = 0; i < num_allocations; ++i) {
    const ExecutableAllocation& a = e.allocations[i];
    if (a.size < 0 || a.size > kMaxBytes) {
      return fail("allocation ", i, " has a bad size ", a.size);
    }
    if (a.kind == BufferAllocation::Kind::kConstant) {
      if (static_cast<int64_t>(a.constant_data.size()) != a.size) {
        return fail("constant allocation ", i, " has ", a.constant_data.size(),
                    " bytes of data for ", a.size, " bytes");
      }
    } else if (!a.constant_data.empty()) {
      return fail("allocation ", i, " is not a constant but has data");
    }
    if (a.kind == BufferAllocation::Kind::kParameter) {
      if (a.parameter_number < 0 || a.parameter_number >= num_parameters) {
        return fail("allocation ", i, " is for parameter ", a.parameter_number,
                    " of ", num_parameters);
      }
      std::vector<const Shape*> leaves;
      CollectLeafShapes(e.parameter_shapes[a.parameter_number], &leaves);
      if (a.parameter_leaf < 0 ||
          a.parameter_leaf >= static_cast<int64_t>(leaves.size()) ||
          !parameter_leaves.insert({a.parameter_number, a.parameter_leaf})
               .second) {
        return fail("allocation ", i, " is for leaf ", a.parameter_leaf,
                    " of parameter ", a.parameter_number,
                    ", which is out of range or has another allocation");
      }
    }
  }
  for (int64_t i = 0; i < num_buffers; ++i) {
    const ExecutableBuffer& b = e.buffers[i];
    if (b.allocation < 0 || b.allocation >= num_allocations) {
      return fail("slot ", i, " (", b.name, ") is in allocation ", b.allocation,
                  " of ", num_allocations);
    }
    if (b.shape.IsTuple() || (b.shape.IsArray() && !b.shape.is_static())) {
      return fail("slot ", i, " (", b.name, ") has shape ", b.shape.ToString(),
                  ", not a static array");
    }
    const int64_t limit = e.allocations[b.allocation].size;
    if (b.size != DenseBytes(b.shape) || b.offset < 0 || b.offset > limit ||
        b.size > limit - b.offset) {
      return fail("slot ", i, " (", b.name, ": ", b.shape.ToString(), ", ",
                  b.size, " bytes at offset ", b.offset,
                  ") does not fit allocation ", b.allocation, " (", limit,
                  " bytes)");
    }
  }
  auto check_leaves = [&](const Shape& shape, const std::vector<int64_t>& slots,
                          const std::string& what) -> absl::Status {
    std::vector<const Shape*> leaves;
    CollectLeafShapes(shape, &leaves);
    if (leaves.size() != slots.size()) {
      return fail(what, " has ", leaves.size(), " leaves but ", slots.size(),
                  " slots");
    }
    for (size_t l = 0; l < leaves.size(); ++l) {
      if (slots[l] < 0 || slots[l] >= num_buffers) {
        return fail(what, " leaf ", l, " names slot ", slots[l], " of ",
                    num_buffers);
      }
      if (!SameLeafShape(*leaves[l], e.buffers[slots[l]].shape)) {
        return fail(what, " leaf ", l, " is ", leaves[l]->ToString(),
                    " but slot ", slots[l], " holds ",
                    e.buffers[slots[l]].shape.ToString());
      }
    }
    return absl::OkStatus();
  };
  if (e.parameter_buffers.size() != e.parameter_shapes.size()) {
    return fail(e.parameter_shapes.size(), " parameters but ",
                e.parameter_buffers.size(), " parameter slot lists");
  }
  for (int64_t p = 0; p < num_parameters; ++p) {
    absl::Status status =
        check_leaves(e.parameter_shapes[p], e.parameter_buffers[p],
                     absl::StrCat("parameter ", p));
    if (!status.ok()) return status;
    for (size_t l = 0; l < e.parameter_buffers[p].size(); ++l) {
      const ExecutableAllocation& a =
          e.allocations[e.buffers[e.parameter_buffers[p][l]].allocation];
      if (a.kind != BufferAllocation::Kind::kParameter ||
          a.parameter_number != p ||
          a.parameter_leaf != static_cast<int64_t>(l)) {
        return fail("parameter ", p, " leaf ", l,
                    " is not in its parameter allocation");
      }
    }
  }
  absl::Status status =
      check_leaves(e.result_shape, e.result_buffers, "the result");
  if (!status.ok()) return status;
  for (size_t s = 0; s < e.steps.size(); ++s) {
    const ExecutableStep& step = e.steps[s];
    for (int64_t slot : step.buffers) {
      if (slot < 0 || slot >= num_buffers) {
        return fail("step ", s, " (", step.instruction, ") names slot ", slot,
                    " of ", num_buffers);
      }
    }
    if (step.kind == ExecutableStep::Kind::kKernel) {
      if (step.kernel_name.empty()) {
        return fail("step ", s, " (", step.instruction, ") has no kernel");
      }
    } else if (step.fallback_hlo.empty()) {
      return fail("step ", s, " (", step.instruction,
                  ") has no module for the evaluator");
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> SerializeExecutable(const Executable& e) {
  absl::Status status = CheckSelfContained(e);
  if (!status.ok()) return status;
  runtime::ExecutableProto proto;
  proto.set_name(e.name);
  proto.set_platform(e.platform);
  proto.set_target_triple(e.target_triple);
  proto.set_cpu_name(e.cpu_name);
  proto.set_cpu_features(e.cpu_features);
  proto.set_object_code(e.object_code);
  proto.set_hlo_module(e.hlo_module);
  for (const Shape& shape : e.parameter_shapes) {
    proto.add_parameter_shapes(shape.ToString());
  }
  proto.set_result_shape(e.result_shape.ToString());
  for (const ExecutableAllocation& a : e.allocations) {
    runtime::AllocationProto* p = proto.add_allocations();
    p->set_kind(static_cast<runtime::AllocationProto::Kind>(a.kind));
    p->set_size(a.size);
    p->set_parameter_number(a.parameter_number);
    p->set_parameter_leaf(a.parameter_leaf);
    p->set_constant_data(a.constant_data);
  }
  for (const ExecutableBuffer& b : e.buffers) {
    runtime::BufferProto* p = proto.add_buffers();
    p->set_allocation(b.allocation);
    p->set_offset(b.offset);
    p->set_size(b.size);
    p->set_shape(b.shape.ToString());
    p->set_name(b.name);
  }
  for (const std::vector<int64_t>& slots : e.parameter_buffers) {
    runtime::BufferList* p = proto.add_parameter_buffers();
    for (int64_t slot : slots) p->add_buffers(slot);
  }
  for (int64_t slot : e.result_buffers) proto.add_result_buffers(slot);
  for (const ExecutableStep& step : e.steps) {
    runtime::StepProto* p = proto.add_steps();
    p->set_kind(step.kind == ExecutableStep::Kind::kKernel
                    ? runtime::StepProto::KERNEL
                    : runtime::StepProto::EVALUATOR);
    p->set_instruction(step.instruction);
    p->set_kernel_name(step.kernel_name);
    for (int64_t slot : step.buffers) p->add_buffers(slot);
    p->set_fallback_hlo(step.fallback_hlo);
    p->set_fallback_reason(step.fallback_reason);
  }
  std::string payload;
  if (!proto.SerializeToString(&payload)) {
    return absl::InternalError("cannot serialize the executable");
  }
  std::string out(kMagic, sizeof(kMagic));
  PutLe(kExecutableFormatVersion, 4, &out);
  PutLe(0, 4, &out);
  PutLe(payload.size(), 8, &out);
  PutLe(Fnv1a64(payload), 8, &out);
  out += payload;
  return out;
}

absl::StatusOr<Executable> DeserializeExecutable(absl::string_view bytes,
                                                 absl::string_view what) {
  const std::string where(what);
  auto fail = [&](auto&&... parts) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": ", parts...));
  };
  const absl::string_view magic(kMagic, sizeof(kMagic));
  if (bytes.size() < magic.size() && magic.substr(0, bytes.size()) == bytes) {
    return fail("truncated: ", bytes.size(), " bytes, shorter than the ",
                kHeaderBytes, "-byte header");
  }
  if (bytes.substr(0, magic.size()) != magic) {
    return fail("not an hloc executable (no 'hlocexe' magic number)");
  }
  if (bytes.size() < kHeaderBytes) {
    return fail("truncated: ", bytes.size(), " bytes, shorter than the ",
                kHeaderBytes, "-byte header");
  }
  const uint64_t version = GetLe(bytes, 8, 4);
  if (version != kExecutableFormatVersion) {
    return fail("executable format version ", version,
                "; this runtime reads version ", kExecutableFormatVersion);
  }
  if (GetLe(bytes, 12, 4) != 0) {
    return fail("corrupt: reserved header bytes are not zero");
  }
  const uint64_t payload_size = GetLe(bytes, 16, 8);
  const uint64_t available = bytes.size() - kHeaderBytes;
  if (payload_size > available) {
    return fail("truncated: the header announces ", payload_size,
                " bytes of payload, the file has ", available);
  }
  if (payload_size < available) {
    return fail("corrupt: ", available - payload_size,
                " bytes after the payload");
  }
  const absl::string_view payload = bytes.substr(kHeaderBytes);
  if (Fnv1a64(payload) != GetLe(bytes, 24, 8)) {
    return fail("corrupt: the payload's checksum does not match the header");
  }
  runtime::ExecutableProto proto;
  if (!proto.ParseFromArray(payload.data(), static_cast<int>(payload.size()))) {
    return fail("corrupt: the payload is not an ExecutableProto");
  }
  Executable e;
  e.name = proto.name();
  e.platform = proto.platform();
  e.target_triple = proto.target_triple();
  e.cpu_name = proto.cpu_name();
  e.cpu_features = proto.cpu_features();
  e.object_code = proto.object_code();
  e.hlo_module = proto.hlo_module();
  for (int i = 0; i < proto.parameter_shapes_size(); ++i) {
    absl::StatusOr<Shape> shape = ShapeFromText(
        proto.parameter_shapes(i), absl::StrCat(where, ": parameter ", i));
    if (!shape.ok()) return shape.status();
    e.parameter_shapes.push_back(*std::move(shape));
  }
  {
    absl::StatusOr<Shape> shape =
        ShapeFromText(proto.result_shape(), absl::StrCat(where, ": result"));
    if (!shape.ok()) return shape.status();
    e.result_shape = *std::move(shape);
  }
  for (int i = 0; i < proto.allocations_size(); ++i) {
    const runtime::AllocationProto& p = proto.allocations(i);
    ExecutableAllocation a;
    switch (p.kind()) {
      case runtime::AllocationProto::ARENA:
        a.kind = BufferAllocation::Kind::kArena;
        break;
      case runtime::AllocationProto::PARAMETER:
        a.kind = BufferAllocation::Kind::kParameter;
        break;
      case runtime::AllocationProto::CONSTANT:
        a.kind = BufferAllocation::Kind::kConstant;
        break;
      case runtime::AllocationProto::OUTPUT:
        a.kind = BufferAllocation::Kind::kOutput;
        break;
      default:
        return fail("allocation ", i, " has an unknown kind ", p.kind());
    }
    a.size = p.size();
    a.parameter_number = p.parameter_number();
    a.parameter_leaf = p.parameter_leaf();
    a.constant_data = p.constant_data();
    e.allocations.push_back(std::move(a));
  }
  for (int i = 0; i < proto.buffers_size(); ++i) {
    const runtime::BufferProto& p = proto.buffers(i);
    absl::StatusOr<Shape> shape =
        ShapeFromText(p.shape(), absl::StrCat(where, ": slot ", i));
    if (!shape.ok()) return shape.status();
    e.buffers.push_back(
        {p.allocation(), p.offset(), p.size(), *std::move(shape), p.name()});
  }
  for (const runtime::BufferList& list : proto.parameter_buffers()) {
    e.parameter_buffers.emplace_back(list.buffers().begin(),
                                     list.buffers().end());
  }
  e.result_buffers.assign(proto.result_buffers().begin(),
                          proto.result_buffers().end());
  for (int i = 0; i < proto.steps_size(); ++i) {
    const runtime::StepProto& p = proto.steps(i);
    ExecutableStep step;
    switch (p.kind()) {
      case runtime::StepProto::KERNEL:
        step.kind = ExecutableStep::Kind::kKernel;
        break;
      case runtime::StepProto::EVALUATOR:
        step.kind = ExecutableStep::Kind::kEvaluator;
        break;
      default:
        return fail("step ", i, " has an unknown kind ", p.kind());
    }
    step.instruction = p.instruction();
    step.kernel_name = p.kernel_name();
    step.buffers.assign(p.buffers().begin(), p.buffers().end());
    step.fallback_hlo = p.fallback_hlo();
    step.fallback_reason = p.fallback_reason();
    e.steps.push_back(std::move(step));
  }
  absl::Status status = ValidateExecutable(e);
  if (status.ok()) status = CheckSelfContained(e);
  if (!status.ok()) return fail("invalid executable: ", status.message());
  return e;
}

absl::Status WriteExecutableFile(const std::string& path,
                                 const Executable& executable) {
  absl::StatusOr<std::string> bytes = SerializeExecutable(executable);
  if (!bytes.ok()) return bytes.status();
  std::ofstream out(path, std::ios::binary);
  out.write(bytes->data(), static_cast<std::streamsize>(bytes->size()));
  out.close();
  if (!out)
    return absl::InvalidArgumentError(absl::StrCat("cannot write ", path));
  return absl::OkStatus();
}

absl::StatusOr<Executable> ReadExecutableFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot open"));
  std::string bytes((std::istreambuf_iterator<char>(in)),
                    std::istreambuf_iterator<char>());
  if (in.bad()) return absl::DataLossError(absl::StrCat(path, ": read error"));
  return DeserializeExecutable(bytes, path);
}

std::string DescribeExecutable(const Executable& e) {
  std::string out = absl::StrCat("executable ", e.name, " for ", e.platform);
  if (!e.target_triple.empty()) {
    absl::StrAppend(&out, " (", e.target_triple, ", ", e.cpu_name, ")");
  }
  absl::StrAppend(&out, ", object code ", e.object_code.size(), " bytes\n");
  std::vector<std::string> parameters;
  for (const Shape& s : e.parameter_shapes) parameters.push_back(s.ToString());
  absl::StrAppend(&out, "signature: (", absl::StrJoin(parameters, ", "),
                  ") -> ", e.result_shape.ToString(), "\n");
  absl::StrAppend(&out, "allocations:\n");
  for (size_t i = 0; i < e.allocations.size(); ++i) {
    const ExecutableAllocation& a = e.allocations[i];
    absl::StrAppend(&out, "  #", i, " ", AllocationKindName(a.kind), " ",
                    a.size, " bytes");
    if (a.kind == BufferAllocation::Kind::kParameter) {
      absl::StrAppend(&out, " (parameter ", a.parameter_number, " leaf ",
                      a.parameter_leaf, ")");
    }
    absl::StrAppend(&out, "\n");
  }
  absl::StrAppend(&out, "slots:\n");
  for (size_t i = 0; i < e.buffers.size(); ++i) {
    const ExecutableBuffer& b = e.buffers[i];
    absl::StrAppend(&out, "  $", i, " ", b.name, " ", b.shape.ToString(), " #",
                    b.allocation, "+", b.offset, " ", b.size, " bytes\n");
  }
  std::vector<std::string> result;
  for (int64_t slot : e.result_buffers)
    result.push_back(absl::StrCat("$", slot));
  absl::StrAppend(&out, "result: ", absl::StrJoin(result, " "), "\n");
  absl::StrAppend(&out, "steps:\n");
  for (size_t s = 0; s < e.steps.size(); ++s) {
    const ExecutableStep& step = e.steps[s];
    std::vector<std::string> slots;
    for (int64_t slot : step.buffers) slots.push_back(absl::StrCat("$", slot));
    absl::StrAppend(&out, "  ", s, " ", KindName(step.kind), " ",
                    step.kind == ExecutableStep::Kind::kKernel
                        ? step.kernel_name
                        : step.instruction,
                    " (", absl::StrJoin(slots, " "), ")");
    if (step.kind == ExecutableStep::Kind::kEvaluator) {
      absl::StrAppend(&out, ": ", step.fallback_reason);
    }
    absl::StrAppend(&out, "\n");
  }
  return out;
}

}  // namespace hloc
