#include "runtime/executable.h"

#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
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
  switch (kind) {
    case ExecutableStep::Kind::kKernel:
      return "kernel";
    case ExecutableStep::Kind::kEvaluator:
      return "evaluator";
    case ExecutableStep::Kind::kWhile:
      return "while";
    case ExecutableStep::Kind::kConditional:
      return "conditional";
    case ExecutableStep::Kind::kCopy:
      return "copy";
    case ExecutableStep::Kind::kLibraryCall:
      return "library-call";
    case ExecutableStep::Kind::kCollective:
      return "collective";
  }
  return "unknown";
}

void StepToProto(const ExecutableStep& step, runtime::StepProto* p) {
  static constexpr runtime::StepProto::Kind kKinds[] = {
      runtime::StepProto::KERNEL, runtime::StepProto::EVALUATOR,
      runtime::StepProto::WHILE,  runtime::StepProto::CONDITIONAL,
      runtime::StepProto::COPY,   runtime::StepProto::LIBRARY_CALL,
      runtime::StepProto::COLLECTIVE,
  };
  p->set_kind(kKinds[static_cast<int>(step.kind)]);
  p->set_instruction(step.instruction);
  p->set_kernel_name(step.kernel_name);
  for (int64_t slot : step.buffers) p->add_buffers(slot);
  p->set_fallback_hlo(step.fallback_hlo);
  p->set_fallback_reason(step.fallback_reason);
  if (step.kind == ExecutableStep::Kind::kKernel) {
    runtime::LaunchDimsProto* l = p->mutable_launch();
    l->set_grid_x(step.launch.grid[0]);
    l->set_grid_y(step.launch.grid[1]);
    l->set_grid_z(step.launch.grid[2]);
    l->set_block_x(step.launch.block[0]);
    l->set_block_y(step.launch.block[1]);
    l->set_block_z(step.launch.block[2]);
    l->set_shared_memory_bytes(step.launch.shared_memory_bytes);
    l->set_programmatic(step.launch.programmatic);
  }
  for (const ExecutableStep& s : step.condition) {
    StepToProto(s, p->add_condition());
  }
  for (const ExecutableStep& s : step.body) StepToProto(s, p->add_body());
  for (const std::vector<ExecutableStep>& branch : step.branches) {
    runtime::StepListProto* list = p->add_branches();
    for (const ExecutableStep& s : branch) StepToProto(s, list->add_steps());
  }
  p->set_predicate_buffer(step.predicate_buffer);
  if (step.trip_count >= 0) p->set_trip_count(step.trip_count);
  if (step.output_buffers >= 0) p->set_output_buffers(step.output_buffers);
  p->set_library(step.library);
  if (step.kind == ExecutableStep::Kind::kCollective) {
    const CollectiveConfig& c = step.collective;
    runtime::CollectiveConfigProto* cp = p->mutable_collective();
    cp->set_op(static_cast<runtime::CollectiveConfigProto::Op>(c.op));
    cp->set_reduction(static_cast<int32_t>(c.reduction));
    cp->set_replica_count(c.replica_count);
    cp->set_num_partitions(c.num_partitions);
    for (const std::vector<int64_t>& group : c.groups) {
      cp->add_groups()->mutable_devices()->Add(group.begin(), group.end());
    }
    cp->mutable_sources()->Add(c.sources.begin(), c.sources.end());
  }
  if (step.kind == ExecutableStep::Kind::kLibraryCall) {
    const GemmConfig& g = step.gemm;
    runtime::GemmConfigProto* q = p->mutable_gemm();
    q->set_m(g.m);
    q->set_n(g.n);
    q->set_k(g.k);
    q->set_batch(g.batch);
    q->set_transpose_lhs(g.transpose_lhs);
    q->set_transpose_rhs(g.transpose_rhs);
    q->set_lda(g.lda);
    q->set_ldb(g.ldb);
    q->set_ldc(g.ldc);
    q->set_stride_lhs(g.stride_lhs);
    q->set_stride_rhs(g.stride_rhs);
    q->set_stride_out(g.stride_out);
    q->set_lhs_type(g.lhs_type);
    q->set_rhs_type(g.rhs_type);
    q->set_out_type(g.out_type);
    q->set_alpha(g.alpha);
    q->set_beta(g.beta);
    q->set_allow_tf32(g.allow_tf32);
    q->set_epilogue(g.epilogue);
    const ConvConfig& v = step.conv;
    runtime::ConvConfigProto* vp = p->mutable_conv();
    vp->set_type(v.type);
    vp->set_channels_last(v.channels_last);
    vp->set_batch(v.batch);
    vp->set_input_features(v.input_features);
    vp->set_output_features(v.output_features);
    vp->set_feature_group_count(v.feature_group_count);
    for (auto [from, to] :
         {std::pair{&v.input_spatial, vp->mutable_input_spatial()},
          std::pair{&v.kernel_spatial, vp->mutable_kernel_spatial()},
          std::pair{&v.output_spatial, vp->mutable_output_spatial()},
          std::pair{&v.strides, vp->mutable_strides()},
          std::pair{&v.padding, vp->mutable_padding()},
          std::pair{&v.dilation, vp->mutable_dilation()}}) {
      to->Add(from->begin(), from->end());
    }
    vp->set_allow_tf32(v.allow_tf32);
    vp->set_backward_filter(v.backward_filter);
    const LibraryConfig& c = step.library_config;
    runtime::LibraryConfigProto* cp = p->mutable_library_config();
    cp->set_fft_type(static_cast<int32_t>(c.fft_type));
    for (int64_t n : c.fft_length) cp->add_fft_length(n);
    cp->set_uplo(c.uplo);
    cp->set_side(c.side);
    cp->set_trans(c.trans);
    cp->set_diag(c.diag);
    cp->set_mode(c.mode);
    cp->set_jobvl(c.jobvl);
    cp->set_jobvr(c.jobvr);
    cp->set_ilo(c.ilo);
    cp->set_ihi(c.ihi);
    cp->set_hlo_cholesky(c.hlo_cholesky);
    cp->set_econ(c.econ);
    cp->set_eigh_algorithm(c.eigh_algorithm);
  }
}

// `where` names the step in errors ("step 3", "step 3 body step 0").
absl::StatusOr<ExecutableStep> StepFromProto(const runtime::StepProto& p,
                                             const std::string& where,
                                             int depth) {
  // Nesting follows the module's control flow; a file nested deeper than
  // any real module is corrupt (and would exhaust the stack).
  if (depth > 64) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": steps nested more than 64 deep"));
  }
  ExecutableStep step;
  switch (p.kind()) {
    case runtime::StepProto::KERNEL:
      step.kind = ExecutableStep::Kind::kKernel;
      break;
    case runtime::StepProto::EVALUATOR:
      step.kind = ExecutableStep::Kind::kEvaluator;
      break;
    case runtime::StepProto::WHILE:
      step.kind = ExecutableStep::Kind::kWhile;
      break;
    case runtime::StepProto::CONDITIONAL:
      step.kind = ExecutableStep::Kind::kConditional;
      break;
    case runtime::StepProto::COPY:
      step.kind = ExecutableStep::Kind::kCopy;
      break;
    case runtime::StepProto::LIBRARY_CALL:
      step.kind = ExecutableStep::Kind::kLibraryCall;
      break;
    case runtime::StepProto::COLLECTIVE:
      step.kind = ExecutableStep::Kind::kCollective;
      break;
    default:
      return absl::InvalidArgumentError(
          absl::StrCat(where, " has an unknown kind ", p.kind()));
  }
  step.instruction = p.instruction();
  step.kernel_name = p.kernel_name();
  step.buffers.assign(p.buffers().begin(), p.buffers().end());
  if (p.has_output_buffers()) step.output_buffers = p.output_buffers();
  step.fallback_hlo = p.fallback_hlo();
  step.fallback_reason = p.fallback_reason();
  const runtime::LaunchDimsProto& l = p.launch();
  step.launch.grid[0] = l.grid_x();
  step.launch.grid[1] = l.grid_y();
  step.launch.grid[2] = l.grid_z();
  step.launch.block[0] = l.block_x();
  step.launch.block[1] = l.block_y();
  step.launch.block[2] = l.block_z();
  step.launch.shared_memory_bytes = l.shared_memory_bytes();
  step.launch.programmatic = l.programmatic();
  auto convert_list =
      [&](const google::protobuf::RepeatedPtrField<runtime::StepProto>& list,
          const std::string& what,
          std::vector<ExecutableStep>* out) -> absl::Status {
    for (int i = 0; i < list.size(); ++i) {
      absl::StatusOr<ExecutableStep> s = StepFromProto(
          list.Get(i), absl::StrCat(where, " ", what, " step ", i), depth + 1);
      if (!s.ok()) return s.status();
      out->push_back(*std::move(s));
    }
    return absl::OkStatus();
  };
  absl::Status status =
      convert_list(p.condition(), "condition", &step.condition);
  if (status.ok()) status = convert_list(p.body(), "body", &step.body);
  for (int b = 0; status.ok() && b < p.branches_size(); ++b) {
    step.branches.emplace_back();
    status = convert_list(p.branches(b).steps(), absl::StrCat("branch ", b),
                          &step.branches.back());
  }
  if (!status.ok()) return status;
  step.predicate_buffer = p.predicate_buffer();
  if (p.has_trip_count()) {
    if (p.trip_count() < 0 || step.kind != ExecutableStep::Kind::kWhile) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, " has trip count ", p.trip_count(),
                       " (only a while's, at least 0)"));
    }
    step.trip_count = p.trip_count();
  }
  step.library = p.library();
  const runtime::GemmConfigProto& q = p.gemm();
  GemmConfig& g = step.gemm;
  g.m = q.m();
  g.n = q.n();
  g.k = q.k();
  g.batch = q.batch();
  g.transpose_lhs = q.transpose_lhs();
  g.transpose_rhs = q.transpose_rhs();
  g.lda = q.lda();
  g.ldb = q.ldb();
  g.ldc = q.ldc();
  g.stride_lhs = q.stride_lhs();
  g.stride_rhs = q.stride_rhs();
  g.stride_out = q.stride_out();
  g.lhs_type = static_cast<PrimitiveType>(q.lhs_type());
  g.rhs_type = static_cast<PrimitiveType>(q.rhs_type());
  g.out_type = static_cast<PrimitiveType>(q.out_type());
  g.alpha = q.alpha();
  g.beta = q.beta();
  g.allow_tf32 = q.allow_tf32();
  g.epilogue = q.epilogue();
  // Checked where the call is set up (runtime/cudnn_conv.h).
  const runtime::ConvConfigProto& vp = p.conv();
  ConvConfig& v = step.conv;
  v.type = static_cast<PrimitiveType>(vp.type());
  v.channels_last = vp.channels_last();
  v.batch = vp.batch();
  v.input_features = vp.input_features();
  v.output_features = vp.output_features();
  v.feature_group_count = vp.feature_group_count();
  v.input_spatial.assign(vp.input_spatial().begin(), vp.input_spatial().end());
  v.kernel_spatial.assign(vp.kernel_spatial().begin(),
                          vp.kernel_spatial().end());
  v.output_spatial.assign(vp.output_spatial().begin(),
                          vp.output_spatial().end());
  v.strides.assign(vp.strides().begin(), vp.strides().end());
  v.padding.assign(vp.padding().begin(), vp.padding().end());
  v.dilation.assign(vp.dilation().begin(), vp.dilation().end());
  v.allow_tf32 = vp.allow_tf32();
  v.backward_filter = vp.backward_filter();
  // Checked where the call is set up (runtime/cpu_library_call.h); here
  // only kept in range of the types.
  const runtime::LibraryConfigProto& cp = p.library_config();
  LibraryConfig& c = step.library_config;
  if (cp.fft_type() < 0 || cp.fft_type() > 3) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": fft_type ", cp.fft_type(), " out of range"));
  }
  c.fft_type = static_cast<FftType>(cp.fft_type());
  c.fft_length.assign(cp.fft_length().begin(), cp.fft_length().end());
  for (int32_t code : {cp.uplo(), cp.side(), cp.trans(), cp.diag(), cp.mode(),
                       cp.jobvl(), cp.jobvr()}) {
    if (code < 0 || code > 127) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": a LAPACK character code ", code, " out of range"));
    }
  }
  c.uplo = static_cast<char>(cp.uplo());
  c.side = static_cast<char>(cp.side());
  c.trans = static_cast<char>(cp.trans());
  c.diag = static_cast<char>(cp.diag());
  c.mode = static_cast<char>(cp.mode());
  c.econ = cp.econ();
  if (cp.eigh_algorithm() < 0 || cp.eigh_algorithm() > 2) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": eigh algorithm ", cp.eigh_algorithm(),
                     " is not 0 (default), 1 (QR) or 2 (Jacobi)"));
  }
  c.eigh_algorithm = cp.eigh_algorithm();
  c.jobvl = static_cast<char>(cp.jobvl());
  c.jobvr = static_cast<char>(cp.jobvr());
  c.ilo = cp.ilo();
  c.ihi = cp.ihi();
  c.hlo_cholesky = cp.hlo_cholesky();
  // Checked against the buffers by ValidateExecutable; here only kept in
  // range of the enums.
  const runtime::CollectiveConfigProto& kp = p.collective();
  CollectiveConfig& k = step.collective;
  if (kp.op() < 0 ||
      kp.op() > static_cast<int>(CollectiveConfig::Op::kPartitionId) ||
      kp.reduction() < 0 ||
      kp.reduction() > static_cast<int>(CollectiveReduction::kMax)) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": collective op or reduction out of range"));
  }
  k.op = static_cast<CollectiveConfig::Op>(kp.op());
  k.reduction = static_cast<CollectiveReduction>(kp.reduction());
  k.replica_count = kp.replica_count();
  k.num_partitions = kp.num_partitions();
  for (const auto& group : kp.groups()) {
    k.groups.emplace_back(group.devices().begin(), group.devices().end());
  }
  k.sources.assign(kp.sources().begin(), kp.sources().end());
  return step;
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
  bool calls_kernels = false;
  ForEachStep(e.steps, [&](const ExecutableStep& step) {
    calls_kernels |= step.kind == ExecutableStep::Kind::kKernel;
  });
  if (!calls_kernels) return absl::OkStatus();
  if (e.IsGpu() && e.device_code.empty()) {
    return absl::FailedPreconditionError(
        "the executable launches kernels but carries no device code");
  }
  if (!e.IsGpu() && e.object_code.empty()) {
    return absl::FailedPreconditionError(
        "the executable calls kernels but carries no object code (compile "
        "with keep_executable)");
  }
  return absl::OkStatus();
}


// A collective step's buffers against its config (see
// CollectiveConfigProto): the right number of operand and result slots,
// one element type, and sizes that fit the op and the group size; groups
// that cover the run's devices once each.
absl::Status CheckCollectiveStep(const Executable& e,
                                 const ExecutableStep& step) {
  using Op = CollectiveConfig::Op;
  const CollectiveConfig& c = step.collective;
  if (c.replica_count < 1 || c.num_partitions < 1 ||
      c.replica_count * c.num_partitions > (int64_t{1} << 20)) {
    return absl::InvalidArgumentError("bad replica or partition count");
  }
  const int64_t devices = c.replica_count * c.num_partitions;
  const int64_t n = static_cast<int64_t>(step.buffers.size());
  auto slot = [&](int64_t i) -> const ExecutableBuffer& {
    return e.buffers[step.buffers[i]];
  };
  if (c.op == Op::kReplicaId || c.op == Op::kPartitionId) {
    if (n != 1 || !slot(0).shape.IsArray() ||
        slot(0).shape.element_type() != U32 || slot(0).size != 4) {
      return absl::InvalidArgumentError("a device id writes one u32 slot");
    }
    return absl::OkStatus();
  }
  int64_t group_size = 1;
  if (c.op == Op::kCollectivePermute) {
    if (static_cast<int64_t>(c.sources.size()) != devices) {
      return absl::InvalidArgumentError("needs one source per device");
    }
    for (int64_t source : c.sources) {
      if (source < -1 || source >= devices) {
        return absl::InvalidArgumentError("a source is out of range");
      }
    }
  } else {
    if (c.groups.empty()) {
      return absl::InvalidArgumentError("groups must name every device once");
    }
    std::vector<bool> seen(devices, false);
    for (const std::vector<int64_t>& group : c.groups) {
      if (group.empty() || group.size() != c.groups[0].size()) {
        return absl::InvalidArgumentError("groups must be of one size");
      }
      for (int64_t d : group) {
        if (d < 0 || d >= devices || seen[d]) {
          return absl::InvalidArgumentError(
              "groups must name every device once");
        }
        seen[d] = true;
      }
    }
    if (static_cast<int64_t>(c.groups.size()) * c.groups[0].size() !=
        static_cast<size_t>(devices)) {
      return absl::InvalidArgumentError("groups must name every device once");
    }
    group_size = static_cast<int64_t>(c.groups[0].size());
  }
  if (n == 0 || n % 2 != 0) {
    return absl::InvalidArgumentError("needs operand and result slots");
  }
  const int64_t operands = n / 2;
  if (c.op == Op::kCollectivePermute && operands != 1) {
    return absl::InvalidArgumentError("a permute has one operand");
  }
  if (c.op == Op::kAllToAll && operands != 1 && operands != group_size) {
    return absl::InvalidArgumentError(
        "all-to-all has one operand or one per participant");
  }
  for (int64_t i = 0; i < n; ++i) {
    if (!slot(i).shape.IsArray() ||
        slot(i).shape.element_type() != slot(0).shape.element_type()) {
      return absl::InvalidArgumentError("slots must be arrays of one type");
    }
  }
  for (int64_t i = 0; i < operands; ++i) {
    const int64_t in = slot(i).size;
    const int64_t out = slot(operands + i).size;
    const bool fits =
        c.op == Op::kAllGather       ? out == in * group_size
        : c.op == Op::kReduceScatter ? in == out * group_size
        : c.op == Op::kAllToAll && operands == 1
            ? in == out && in % group_size == 0
            : in == out;
    if (!fits) {
      return absl::InvalidArgumentError(absl::StrCat(
          "operand ", i, " (", in, " bytes) and its result (", out,
          " bytes) do not fit a group of ", group_size));
    }
  }
  return absl::OkStatus();
}

}  // namespace

void ForEachStep(const std::vector<ExecutableStep>& steps,
                 const std::function<void(const ExecutableStep&)>& fn) {
  for (const ExecutableStep& step : steps) {
    fn(step);
    ForEachStep(step.condition, fn);
    ForEachStep(step.body, fn);
    for (const std::vector<ExecutableStep>& branch : step.branches) {
      ForEachStep(branch, fn);
    }
  }
}

int64_t Executable::AllocationBytes(BufferAllocation::Kind kind) const {
  int64_t total = 0;
  for (const ExecutableAllocation& a : allocations) {
    if (a.kind == kind) total += a.size;
  }
  return total;
}

absl::StatusOr<std::vector<int64_t>> AppendBufferPlan(
    const BufferAssignment& assignment, bool nested, Executable* executable) {
  // Where each of the assignment's allocations went (-1: none, the
  // parameters of a nested computation).
  std::vector<int64_t> allocation_index;
  for (const BufferAllocation& a : assignment.allocations) {
    if (nested && a.kind == BufferAllocation::Kind::kParameter) {
      allocation_index.push_back(-1);
      continue;
    }
    ExecutableAllocation allocation;
    allocation.kind = a.kind;
    allocation.size = a.size;
    // A nested computation's results are rewritten on every run: plain
    // scratch memory, not the executable's outputs.
    if (nested && a.kind == BufferAllocation::Kind::kOutput) {
      allocation.kind = BufferAllocation::Kind::kArena;
    }
    allocation.parameter_number = a.parameter_number;
    allocation.parameter_leaf = a.parameter_leaf;
    if (a.kind == BufferAllocation::Kind::kConstant) {
      allocation.constant_data.assign(a.size, '\0');
    }
    allocation_index.push_back(
        static_cast<int64_t>(executable->allocations.size()));
    executable->allocations.push_back(std::move(allocation));
  }
  std::vector<int64_t> slots;
  for (const BufferValue& value : assignment.values) {
    const int64_t index = allocation_index[value.allocation];
    if (index < 0) {
      slots.push_back(-1);
      continue;
    }
    ExecutableBuffer buffer;
    buffer.allocation = index;
    buffer.offset = value.offset;
    buffer.size = value.size;
    buffer.shape = value.shape;
    buffer.name = value.Name();
    ExecutableAllocation& allocation = executable->allocations[index];
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
    slots.push_back(static_cast<int64_t>(executable->buffers.size()));
    executable->buffers.push_back(std::move(buffer));
  }
  return slots;
}

absl::Status SetBufferPlan(const BufferAssignment& assignment,
                           const HloComputation& computation,
                           Executable* executable) {
  executable->allocations.clear();
  executable->buffers.clear();
  absl::StatusOr<std::vector<int64_t>> slots =
      AppendBufferPlan(assignment, /*nested=*/false, executable);
  if (!slots.ok()) return slots.status();
  executable->parameter_shapes.clear();
  executable->parameter_buffers.clear();
  for (const HloInstruction* parameter : computation.parameter_instructions()) {
    executable->parameter_shapes.push_back(parameter->shape());
    executable->parameter_buffers.push_back(assignment.LeafValues(parameter));
  }
  executable->result_shape = computation.root_instruction()->shape();
  executable->result_buffers =
      assignment.LeafValues(computation.root_instruction());
  // A root bitcast names its operand's value (buffer aliases), whose shape
  // is not the result's: such a leaf gets a slot of its own over the same
  // bytes, with the result's shape (say, a pmap module's f32[1,8,6] root
  // over an all-reduce's f32[8,6]).
  std::vector<const Shape*> leaves;
  CollectLeafShapes(executable->result_shape, &leaves);
  for (size_t l = 0;
       l < leaves.size() && l < executable->result_buffers.size(); ++l) {
    const int64_t slot = executable->result_buffers[l];
    if (slot < 0 ||
        SameLeafShape(*leaves[l], executable->buffers[slot].shape) ||
        !leaves[l]->IsArray() ||
        DenseBytes(*leaves[l]) != executable->buffers[slot].size) {
      continue;
    }
    ExecutableBuffer view = executable->buffers[slot];
    view.shape = *leaves[l];
    view.name = absl::StrCat(view.name, " (as the result)");
    executable->result_buffers[l] =
        static_cast<int64_t>(executable->buffers.size());
    executable->buffers.push_back(std::move(view));
  }
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

absl::string_view CollectiveOpString(CollectiveConfig::Op op) {
  switch (op) {
    case CollectiveConfig::Op::kAllReduce:
      return "all-reduce";
    case CollectiveConfig::Op::kAllGather:
      return "all-gather";
    case CollectiveConfig::Op::kReduceScatter:
      return "reduce-scatter";
    case CollectiveConfig::Op::kAllToAll:
      return "all-to-all";
    case CollectiveConfig::Op::kCollectivePermute:
      return "collective-permute";
    case CollectiveConfig::Op::kReplicaId:
      return "replica-id";
    case CollectiveConfig::Op::kPartitionId:
      return "partition-id";
  }
  return "unknown";
}

absl::Status ValidateExecutable(const Executable& e) {
  auto fail = [](auto&&... parts) {
    return absl::InvalidArgumentError(absl::StrCat(parts...));
  };
  if (e.platform != "cpu" && !e.IsGpu()) {
    return fail("the executable is for an unknown platform '", e.platform, "'");
  }
  for (size_t i = 0; i < e.device_code.size(); ++i) {
    const DeviceCode& code = e.device_code[i];
    if (code.format != "ptx" && code.format != "cubin" &&
        code.format != "hsaco") {
      return fail("device code ", i, " has an unknown format '", code.format,
                  "'");
    }
    if (code.code.empty()) return fail("device code ", i, " is empty");
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
  std::function<absl::Status(const std::vector<ExecutableStep>&,
                             const std::string&)>
      check_steps = [&](const std::vector<ExecutableStep>& steps,
                        const std::string& prefix) -> absl::Status {
    for (size_t s = 0; s < steps.size(); ++s) {
      const ExecutableStep& step = steps[s];
      const std::string what =
          absl::StrCat(prefix, "step ", s, " (", step.instruction, ")");
      for (int64_t slot : step.buffers) {
        if (slot < 0 || slot >= num_buffers) {
          return fail(what, " names slot ", slot, " of ", num_buffers);
        }
      }
      const bool nests = !step.condition.empty() || !step.body.empty() ||
                         !step.branches.empty();
      using Kind = ExecutableStep::Kind;
      if (nests && step.kind != Kind::kWhile &&
          step.kind != Kind::kConditional) {
        return fail(what, " is a ", KindName(step.kind),
                    " step but holds nested steps");
      }
      switch (step.kind) {
        case Kind::kKernel:
          if (step.kernel_name.empty()) return fail(what, " has no kernel");
          if (step.output_buffers < -1 ||
              step.output_buffers > static_cast<int64_t>(step.buffers.size())) {
            return fail(what, " writes ", step.output_buffers, " of its ",
                        step.buffers.size(), " buffers");
          }
          if (e.IsGpu()) {
            const LaunchDims& l = step.launch;
            for (int d = 0; d < 3; ++d) {
              if (l.grid[d] < 1 || l.grid[d] > (int64_t{1} << 31) - 1 ||
                  l.block[d] < 1 || l.block[d] > 1024) {
                return fail(what, " has bad launch dimensions");
              }
            }
            if (l.NumThreadsPerBlock() > 1024 || l.shared_memory_bytes < 0) {
              return fail(what, " has bad launch dimensions");
            }
          }
          break;
        case Kind::kEvaluator:
          if (step.fallback_hlo.empty()) {
            return fail(what, " has no module for the evaluator");
          }
          break;
        case Kind::kWhile:
        case Kind::kConditional: {
          if (step.predicate_buffer < 0 ||
              step.predicate_buffer >= num_buffers) {
            return fail(what, " reads its predicate from slot ",
                        step.predicate_buffer, " of ", num_buffers);
          }
          const Shape& p = e.buffers[step.predicate_buffer].shape;
          const bool is_pred =
              p.IsArray() && p.element_type() == PRED && p.ElementCount() == 1;
          const bool is_index =
              p.IsArray() && p.element_type() == S32 && p.ElementCount() == 1;
          if (!is_pred && !(is_index && step.kind == Kind::kConditional)) {
            return fail(what, " reads its predicate from slot ",
                        step.predicate_buffer, " of shape ", p.ToString());
          }
          if (step.kind == Kind::kConditional && step.branches.empty()) {
            return fail(what, " has no branches");
          }
          absl::Status status =
              check_steps(step.condition, what + " condition ");
          if (status.ok()) status = check_steps(step.body, what + " body ");
          for (size_t b = 0; status.ok() && b < step.branches.size(); ++b) {
            status = check_steps(step.branches[b],
                                 absl::StrCat(what, " branch ", b, " "));
          }
          if (!status.ok()) return status;
          break;
        }
        case Kind::kCopy:
          if (step.buffers.size() != 2 || e.buffers[step.buffers[0]].size !=
                                              e.buffers[step.buffers[1]].size) {
            return fail(what, " must copy one slot to one of equal size");
          }
          break;
        case Kind::kLibraryCall:
          if (step.library.empty()) return fail(what, " names no library");
          break;
        case Kind::kCollective: {
          absl::Status status = CheckCollectiveStep(e, step);
          if (!status.ok()) return fail(what, ": ", status.message());
          break;
        }
      }
    }
    return absl::OkStatus();
  };
  return check_steps(e.steps, "");
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
    StepToProto(step, proto.add_steps());
  }
  for (const DeviceCode& code : e.device_code) {
    runtime::DeviceCodeProto* p = proto.add_device_code();
    p->set_format(code.format);
    p->set_arch(code.arch);
    p->set_code(code.code);
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
    absl::StatusOr<ExecutableStep> step =
        StepFromProto(proto.steps(i), absl::StrCat("step ", i), 0);
    if (!step.ok()) return fail(step.status().message());
    e.steps.push_back(*std::move(step));
  }
  for (const runtime::DeviceCodeProto& p : proto.device_code()) {
    e.device_code.push_back({p.format(), p.arch(), p.code()});
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

namespace {

std::string DescribeCollective(const CollectiveConfig& c) {
  std::string out = absl::StrCat(" ", CollectiveOpString(c.op));
  if (c.op == CollectiveConfig::Op::kAllReduce ||
      c.op == CollectiveConfig::Op::kReduceScatter) {
    absl::StrAppend(&out, " ", CollectiveReductionString(c.reduction));
  }
  if (!c.groups.empty()) {
    std::vector<std::string> groups;
    for (const std::vector<int64_t>& group : c.groups) {
      groups.push_back(absl::StrCat("{", absl::StrJoin(group, ","), "}"));
    }
    absl::StrAppend(&out, " groups={", absl::StrJoin(groups, ","), "}");
  }
  if (!c.sources.empty()) {
    absl::StrAppend(&out, " sources={", absl::StrJoin(c.sources, ","), "}");
  }
  return out;
}

void DescribeSteps(const std::vector<ExecutableStep>& steps,
                   const std::string& indent, std::string* out) {
  for (size_t s = 0; s < steps.size(); ++s) {
    const ExecutableStep& step = steps[s];
    std::vector<std::string> slots;
    for (int64_t slot : step.buffers) slots.push_back(absl::StrCat("$", slot));
    std::string what = step.instruction;
    if (step.kind == ExecutableStep::Kind::kKernel) what = step.kernel_name;
    if (step.kind == ExecutableStep::Kind::kLibraryCall) {
      what = absl::StrCat(step.library, " ", step.instruction);
    }
    absl::StrAppend(out, indent, s, " ", KindName(step.kind), " ", what, " (",
                    absl::StrJoin(slots, " "), ")");
    if (step.kind == ExecutableStep::Kind::kEvaluator) {
      absl::StrAppend(out, ": ", step.fallback_reason);
    }
    if (step.kind == ExecutableStep::Kind::kKernel &&
        step.launch.NumThreadsPerBlock() > 1) {
      const LaunchDims& l = step.launch;
      absl::StrAppend(out, " grid ", l.grid[0], "x", l.grid[1], "x", l.grid[2],
                      " block ", l.block[0], "x", l.block[1], "x", l.block[2]);
      if (l.shared_memory_bytes > 0) {
        absl::StrAppend(out, " shared ", l.shared_memory_bytes);
      }
      if (l.programmatic) absl::StrAppend(out, " programmatic");
    }
    if (step.kind == ExecutableStep::Kind::kLibraryCall &&
        step.library == "cublas.gemm") {
      const GemmConfig& g = step.gemm;
      absl::StrAppend(
          out, " m=", g.m, " n=", g.n, " k=", g.k, " batch=", g.batch,
          g.transpose_lhs ? " A^T" : " A", g.transpose_rhs ? " B^T" : " B",
          " ld=", g.lda, ",", g.ldb, ",", g.ldc, " strides=", g.stride_lhs, ",",
          g.stride_rhs, ",", g.stride_out, " ", PrimitiveTypeName(g.lhs_type),
          "->", PrimitiveTypeName(g.out_type), g.allow_tf32 ? " tf32" : "");
      if (!g.epilogue.empty()) absl::StrAppend(out, " epilogue=", g.epilogue);
    }
    if (step.kind == ExecutableStep::Kind::kLibraryCall &&
        step.library == "cudnn.conv") {
      const ConvConfig& v = step.conv;
      absl::StrAppend(out, v.channels_last ? " nhwc" : " nchw", " n=", v.batch,
                      " c=", v.input_features, " k=", v.output_features,
                      " groups=", v.feature_group_count,
                      " in=", absl::StrJoin(v.input_spatial, "x"),
                      " window=", absl::StrJoin(v.kernel_spatial, "x"),
                      " out=", absl::StrJoin(v.output_spatial, "x"),
                      " stride=", absl::StrJoin(v.strides, ","),
                      " pad=", absl::StrJoin(v.padding, ","),
                      " dilation=", absl::StrJoin(v.dilation, ","), " ",
                      PrimitiveTypeName(v.type), v.allow_tf32 ? " tf32" : "",
                      v.backward_filter ? " backward-filter" : "");
    }
    if (step.kind == ExecutableStep::Kind::kLibraryCall &&
        (step.library == "fft" || step.library == "cufft")) {
      absl::StrAppend(out, " ", FftTypeString(step.library_config.fft_type),
                      " fft_length={",
                      absl::StrJoin(step.library_config.fft_length, ","), "}");
    }
    if (step.kind == ExecutableStep::Kind::kLibraryCall &&
        (absl::StartsWith(step.library, "lapack.") ||
         step.library == "cublas.trsm")) {
      const LibraryConfig& c = step.library_config;
      absl::StrAppend(out, " uplo=", std::string(1, c.uplo),
                      " side=", std::string(1, c.side),
                      " trans=", std::string(1, c.trans),
                      " diag=", std::string(1, c.diag));
      if (step.library != "cublas.trsm") {
        absl::StrAppend(out, " mode=", std::string(1, c.mode),
                        c.hlo_cholesky ? " (cholesky)" : "");
      }
      if (step.library == "lapack.geev") {
        absl::StrAppend(out, " jobvl=", std::string(1, c.jobvl),
                        " jobvr=", std::string(1, c.jobvr));
      }
      if (step.library == "lapack.gehrd") {
        absl::StrAppend(out, " ilo=", c.ilo, " ihi=", c.ihi);
      }
    }
    if (step.kind == ExecutableStep::Kind::kLibraryCall &&
        absl::StartsWith(step.library, "cusolver.")) {
      const LibraryConfig& c = step.library_config;
      absl::StrAppend(out, " uplo=", std::string(1, c.uplo), " mode=",
                      std::string(1, c.mode), c.econ ? " econ" : "");
      if (c.eigh_algorithm != 0) {
        absl::StrAppend(
            out, c.eigh_algorithm == 1 ? " algorithm=qr" : " algorithm=jacobi");
      }
    }
    if (step.kind == ExecutableStep::Kind::kCollective) {
      absl::StrAppend(out, DescribeCollective(step.collective));
    }
    if (step.predicate_buffer >= 0) {
      absl::StrAppend(out, " predicate $", step.predicate_buffer);
    }
    if (step.trip_count >= 0) {
      absl::StrAppend(out, " trip count ", step.trip_count);
    }
    absl::StrAppend(out, "\n");
    const std::string inner = indent + "    ";
    if (!step.condition.empty()) {
      absl::StrAppend(out, indent, "  condition:\n");
      DescribeSteps(step.condition, inner, out);
    }
    if (!step.body.empty()) {
      absl::StrAppend(out, indent, "  body:\n");
      DescribeSteps(step.body, inner, out);
    }
    for (size_t b = 0; b < step.branches.size(); ++b) {
      absl::StrAppend(out, indent, "  branch ", b, ":\n");
      DescribeSteps(step.branches[b], inner, out);
    }
  }
}

}  // namespace

std::string DescribeExecutable(const Executable& e) {
  std::string out = absl::StrCat("executable ", e.name, " for ", e.platform);
  if (!e.target_triple.empty()) {
    absl::StrAppend(&out, " (", e.target_triple, ", ", e.cpu_name, ")");
  }
  if (e.IsGpu()) {
    std::vector<std::string> forms;
    for (const DeviceCode& code : e.device_code) {
      forms.push_back(absl::StrCat(code.format, " ", code.arch, " ",
                                   code.code.size(), " bytes"));
    }
    absl::StrAppend(&out, ", device code: ", absl::StrJoin(forms, ", "), "\n");
  } else {
    absl::StrAppend(&out, ", object code ", e.object_code.size(), " bytes\n");
  }
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
  DescribeSteps(e.steps, "  ", &out);
  return out;
}

void SetTriangularSolveCodes(const TriangularSolveOptions& options,
                             LibraryConfig* config) {
  config->side = options.left_side ? 'L' : 'R';
  config->uplo = options.lower ? 'L' : 'U';
  config->trans = options.transpose_a == 2   ? 'T'
                  : options.transpose_a == 3 ? 'C'
                                             : 'N';
  config->diag = options.unit_diagonal ? 'U' : 'N';
}

void SetLapackCodes(const LapackCall& call, LibraryConfig* config) {
  config->uplo = call.uplo;
  config->side = call.side;
  config->trans = call.trans;
  config->diag = call.diag;
  config->mode = call.mode;
  config->jobvl = call.jobvl;
  config->jobvr = call.jobvr;
  config->ilo = call.ilo;
  config->ihi = call.ihi;
}

}  // namespace hloc
