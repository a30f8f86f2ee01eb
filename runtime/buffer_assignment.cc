#include "runtime/buffer_assignment.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hlo/math_util.h"
#include "hlo/primitive_type.h"
#include "hlo/status_macros.h"

namespace hloc {
namespace {

struct Leaf {
  std::vector<int64_t> index;
  const Shape* shape;
};

void CollectLeaves(const Shape& shape, std::vector<int64_t>* index,
                   std::vector<Leaf>* out) {
  if (!shape.IsTuple()) {
    out->push_back({*index, &shape});
    return;
  }
  for (int64_t i = 0; i < shape.tuple_shapes_size(); ++i) {
    index->push_back(i);
    CollectLeaves(shape.tuple_shapes(i), index, out);
    index->pop_back();
  }
}

std::vector<Leaf> Leaves(const Shape& shape) {
  std::vector<Leaf> leaves;
  std::vector<int64_t> index;
  CollectLeaves(shape, &index, &leaves);
  return leaves;
}

int64_t LeafCount(const Shape& shape) {
  if (!shape.IsTuple()) return 1;
  int64_t n = 0;
  for (const Shape& s : shape.tuple_shapes()) n += LeafCount(s);
  return n;
}

int64_t DenseBytes(const Shape& shape) {
  return shape.IsArray()
             ? shape.ElementCount() * ByteWidth(shape.element_type())
             : 0;
}

bool Overlap(int64_t a_start, int64_t a_end, int64_t b_start, int64_t b_end) {
  return a_start <= b_end && b_start <= a_end;
}

// The leaves an alias instruction names, from its operands' leaves.
absl::StatusOr<std::vector<int64_t>> AliasLeaves(
    const HloInstruction& instr,
    const absl::flat_hash_map<const HloInstruction*, std::vector<int64_t>>&
        leaf_values) {
  auto of = [&](const HloInstruction* operand)
      -> absl::StatusOr<const std::vector<int64_t>*> {
    auto it = leaf_values.find(operand);
    if (it == leaf_values.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("buffer assignment: ", instr.name(), " uses ",
                       operand->name(), " before it is defined in the order"));
    }
    return &it->second;
  };
  std::vector<int64_t> leaves;
  switch (instr.opcode()) {
    case HloOpcode::kTuple:
      for (const HloInstruction* operand : instr.operands()) {
        absl::StatusOr<const std::vector<int64_t>*> l = of(operand);
        if (!l.ok()) return l.status();
        leaves.insert(leaves.end(), (*l)->begin(), (*l)->end());
      }
      return leaves;
    case HloOpcode::kGetTupleElement: {
      const HloInstruction* tuple = instr.operand(0);
      absl::StatusOr<const std::vector<int64_t>*> l = of(tuple);
      if (!l.ok()) return l.status();
      int64_t start = 0;
      for (int64_t i = 0; i < instr.tuple_index(); ++i) {
        start += LeafCount(tuple->shape().tuple_shapes(i));
      }
      const int64_t count = LeafCount(instr.shape());
      if (start + count > static_cast<int64_t>((*l)->size())) {
        return absl::InternalError(absl::StrCat(
            "buffer assignment: ", instr.name(), " reads past its tuple"));
      }
      leaves.assign((*l)->begin() + start, (*l)->begin() + start + count);
      return leaves;
    }
    default: {
      // opt-barrier, add-dependency and bitcast: the (first) operand's.
      absl::StatusOr<const std::vector<int64_t>*> l = of(instr.operand(0));
      if (!l.ok()) return l.status();
      return **l;
    }
  }
}

// Whether `instr` updates its operand 0 in place when allowed to: a
// dynamic-update-slice, or (with `scatter`) a scatter of one operand.
bool IsInPlaceUpdate(const HloInstruction& instr, bool scatter) {
  if (instr.opcode() == HloOpcode::kDynamicUpdateSlice) return true;
  return scatter && instr.opcode() == HloOpcode::kScatter &&
         instr.operand_count() == 3;
}

// The number of times `target` is among the operand leaves of `instr`.
int64_t OperandUses(const HloInstruction& instr, int64_t target,
                    const BufferAssignment& a) {
  int64_t uses = 0;
  for (const HloInstruction* o : instr.operands()) {
    for (int64_t v : a.LeafValues(o)) uses += v == target;
  }
  return uses;
}

// Whether `instr` reads operand `k` only at the index of the output
// element it computes: an elementwise op, or a loop fusion in which that
// operand reaches the root through elementwise ops of the root's
// dimensions alone, and whose other instructions only index or move
// (broadcast, slice, reshape, gather, transpose, ...): every backend makes
// such a fusion one loop in which the thread that writes an element
// computes it alone, or (a transpose) tiles that read the moved operand
// first and then compute each output element, the operand read there, by
// the thread that writes it; either way each element of the operand is
// read before it is overwritten, and by no other thread. (Fusions with a
// dot or a reduction get kernels of other shapes; a multi-output fusion
// may store one output before it reads the operand again for the next.)
bool ReadsAtOutputIndexOnly(const HloInstruction& instr, int64_t k) {
  // The same bytes at the same index: one shape, layout and type.
  const Shape& out = instr.shape();
  if (!out.IsArray() ||
      !instr.operand(k)->shape().Equal(out, /*compare_layouts=*/true)) {
    return false;
  }
  if (instr.opcode() != HloOpcode::kFusion) return instr.IsElementwise();
  if (instr.fusion_kind() != FusionKind::kLoop) return false;
  const HloComputation* fused = instr.fused_computation();
  for (const HloInstruction* f : fused->instructions()) {
    switch (f->opcode()) {
      case HloOpcode::kParameter:
      case HloOpcode::kConstant:
      case HloOpcode::kIota:
      case HloOpcode::kBroadcast:
      case HloOpcode::kReshape:
      case HloOpcode::kBitcast:
      case HloOpcode::kSlice:
      case HloOpcode::kDynamicSlice:
      case HloOpcode::kPad:
      case HloOpcode::kReverse:
      case HloOpcode::kGather:
      case HloOpcode::kTranspose:
      case HloOpcode::kCopy:
        break;
      default:
        if (!f->IsElementwise()) return false;
    }
  }
  const HloInstruction* root = fused->root_instruction();
  std::vector<const HloInstruction*> pending = {
      fused->parameter_instruction(k)};
  while (!pending.empty()) {
    const HloInstruction* x = pending.back();
    pending.pop_back();
    if (x->shape().dimensions() != root->shape().dimensions()) return false;
    for (const HloInstruction* user : x->users()) {
      if (!user->IsElementwise()) return false;
      pending.push_back(user);
    }
  }
  return true;
}

// Whether `instr`, which reads `value` (an array), may write its output
// over it: every operand that is `value` is read at the output's own index
// only, or is the one operand updated in place (InPlaceOperand: a
// dynamic-update-slice's where `options` allow it, a scatter's likewise).
bool MayOverwrite(const HloInstruction& instr, int64_t value,
                  const BufferAssignment& a,
                  const BufferAssignmentOptions& options) {
  if (instr.shape().IsTuple()) return false;
  const int64_t updated = options.in_place_dynamic_update_slice
                              ? InPlaceOperand(instr, options.in_place_scatter)
                              : -1;
  for (int64_t k = 0; k < instr.operand_count(); ++k) {
    const std::vector<int64_t>& leaves = a.LeafValues(instr.operand(k));
    if (std::find(leaves.begin(), leaves.end(), value) == leaves.end()) {
      continue;
    }
    if (leaves.size() != 1) return false;
    const bool in_place_update =
        k == updated && OperandUses(instr, value, a) == 1;
    if (!in_place_update && !ReadsAtOutputIndexOnly(instr, k)) return false;
  }
  return true;
}

// Whether root value `root` may ever take over the state leaf `param` it
// is returned in place of: not the leaf passed through, not a parameter or
// constant (copied), not a value placed already (returned twice), not over
// an old leaf the root returns elsewhere (read by the copy back), and of
// the same shape and layout.
bool IsStateCandidate(const BufferAssignment& a, int64_t root, int64_t param) {
  const BufferValue& v = a.values[root];
  const BufferValue& p = a.values[param];
  const HloOpcode opcode = v.instruction->opcode();
  return root != param && v.state_of < 0 && opcode != HloOpcode::kParameter &&
         opcode != HloOpcode::kConstant && !p.live_out &&
         v.shape.Equal(p.shape, /*compare_layouts=*/true);
}

// BufferAssignmentOptions::loop_state_in_place: marks each root leaf j
// that may live in parameter leaf j's buffer (state_of), and in_place_of
// where its own instruction reads that leaf last. Live ranges are known;
// allocations are not made yet.
void TakeOverLoopState(const HloComputation& computation,
                       const BufferAssignmentOptions& options,
                       BufferAssignment* a) {
  if (computation.num_parameters() != 1) return;
  const std::vector<int64_t> params =
      a->LeafValues(computation.parameter_instruction(0));
  const std::vector<int64_t> roots =
      a->LeafValues(computation.root_instruction());
  if (params.size() != roots.size()) return;
  for (size_t j = 0; j < roots.size(); ++j) {
    if (!IsStateCandidate(*a, roots[j], params[j])) continue;
    BufferValue& v = a->values[roots[j]];
    const BufferValue& p = a->values[params[j]];
    if (p.last_use >= v.defined_at) {
      // Only the instruction that defines it may read the old leaf there,
      // and only in a way that may overwrite it.
      if (p.last_use != v.defined_at ||
          !MayOverwrite(*v.instruction, params[j], *a, options)) {
        continue;
      }
      v.in_place_of = params[j];
    }
    v.state_of = params[j];
  }
}

// The arena value whose bytes `value` may take over as it dies there, or
// -1:
//   - a dynamic-update-slice's updated operand, read once, last there;
//   - a while's init leaf for its state leaf, where the init value dies at
//     the while: the loop then starts with its state in place instead of
//     a copy. A value that is several init leaves goes to the first of
//     their states (the others are copied from it before the loop changes
//     anything).
int64_t InPlaceTarget(const BufferAssignment& a, const BufferValue& value,
                      const BufferAssignmentOptions& options) {
  const HloInstruction* instr = value.instruction;
  auto dies_here = [&](int64_t target) {
    return a.values[target].allocation == 0 &&
           a.values[target].last_use == value.defined_at;
  };
  const int64_t operand_number =
      options.in_place_dynamic_update_slice
          ? InPlaceOperand(*instr, options.in_place_scatter)
          : -1;
  if (operand_number >= 0 && operand_number < instr->operand_count() &&
      !instr->shape().IsTuple()) {
    const HloInstruction* operand = instr->operand(operand_number);
    const std::vector<int64_t>& target = a.LeafValues(operand);
    if (target.size() == 1 && dies_here(target[0]) &&
        OperandUses(*instr, target[0], a) == 1 &&
        operand->shape().Equal(instr->shape(), /*compare_layouts=*/true)) {
      return target[0];
    }
  }
  if (instr->opcode() == HloOpcode::kWhile && options.in_place_while_state) {
    const std::vector<int64_t>& init = a.LeafValues(instr->operand(0));
    if (value.leaf < static_cast<int64_t>(init.size())) {
      const int64_t target = init[value.leaf];
      if (dies_here(target) &&
          std::find(init.begin(), init.end(), target) - init.begin() ==
              value.leaf &&
          a.values[target].shape.Equal(value.shape,
                                       /*compare_layouts=*/true)) {
        return target;
      }
    }
  }
  return -1;
}

struct Group {
  std::vector<int64_t> values;
  int64_t start = 0;
  int64_t end = 0;
  int64_t size = 0;
  int64_t offset = 0;
  // Positions that read or write its values.
  std::vector<int64_t> touches;
};

// Per position of an order, the positions it depends on through operands
// and control predecessors, itself included: one bit per pair.
class DataflowAncestors {
 public:
  DataflowAncestors(
      absl::Span<HloInstruction* const> order,
      const absl::flat_hash_map<const HloInstruction*, int64_t>& position)
      : words_((static_cast<int64_t>(order.size()) + 63) / 64),
        bits_(order.size() * words_, 0) {
    for (size_t i = 0; i < order.size(); ++i) {
      uint64_t* row = &bits_[i * words_];
      row[i / 64] |= uint64_t{1} << (i % 64);
      auto inherit = [&](const HloInstruction* from) {
        const uint64_t* other = &bits_[position.at(from) * words_];
        for (int64_t w = 0; w < words_; ++w) row[w] |= other[w];
      };
      for (const HloInstruction* operand : order[i]->operands()) {
        inherit(operand);
      }
      for (const HloInstruction* p : order[i]->control_predecessors()) {
        inherit(p);
      }
    }
  }
  // Whether position `a` is `b` or one of its ancestors.
  bool Reaches(int64_t a, int64_t b) const {
    return (bits_[b * words_ + a / 64] >> (a % 64)) & 1;
  }

 private:
  int64_t words_;
  std::vector<uint64_t> bits_;
};

// Whether two groups may not share bytes: their live ranges overlap.
bool LiveRangesOverlap(const Group& a, const Group& b) {
  return Overlap(a.start, a.end, b.start, b.end);
}

// Places `groups` in the order given, apart from every placed group
// `conflict` says they may not share bytes with; returns the arena size.
int64_t Pack(std::vector<Group>* groups, const std::vector<size_t>& order,
             bool best_fit,
             const std::function<bool(const Group&, const Group&)>& conflict) {
  int64_t arena = 0;
  std::vector<size_t> placed;
  std::vector<std::pair<int64_t, int64_t>> occupied;
  for (size_t g : order) {
    Group& group = (*groups)[g];
    group.offset = 0;
    if (group.size == 0) continue;
    occupied.clear();
    for (size_t h : placed) {
      const Group& other = (*groups)[h];
      if (conflict(group, other)) {
        occupied.push_back({other.offset, other.offset + other.size});
      }
    }
    std::sort(occupied.begin(), occupied.end());
    int64_t chosen = -1;
    int64_t chosen_gap = std::numeric_limits<int64_t>::max();
    int64_t cursor = 0;
    for (const auto& [begin, end] : occupied) {
      if (begin > cursor) {
        const int64_t gap = begin - cursor;
        if (gap >= group.size && gap < chosen_gap) {
          chosen = cursor;
          chosen_gap = gap;
          if (!best_fit) break;
        }
      }
      cursor = std::max(cursor, end);
    }
    if (chosen < 0) chosen = cursor;
    group.offset = chosen;
    arena = std::max(arena, chosen + group.size);
    placed.push_back(g);
  }
  return arena;
}

std::string LiveText(const BufferValue& value) {
  return absl::StrCat(
      value.defined_at, "..",
      value.live_out ? std::string("end") : absl::StrCat(value.last_use));
}

// `instr`'s users, looking through the buffer aliases (get-tuple-element,
// tuple, bitcast) that name its bytes: the aliases into `aliases`, the
// others into `readers`.
void CollectUsers(const HloInstruction* instr,
                  std::vector<const HloInstruction*>* aliases,
                  std::vector<const HloInstruction*>* readers) {
  for (const HloInstruction* user : instr->users()) {
    if (IsBufferAlias(*user)) {
      aliases->push_back(user);
      CollectUsers(user, aliases, readers);
    } else {
      readers->push_back(user);
    }
  }
}

}  // namespace

int64_t InPlaceOperand(const HloInstruction& instr, bool scatter) {
  if (IsInPlaceUpdate(instr, scatter)) return 0;
  if (instr.opcode() != HloOpcode::kFusion) return -1;
  const HloInstruction* root = instr.fused_expression_root();
  if (root == nullptr || !IsInPlaceUpdate(*root, scatter)) return -1;
  const HloInstruction* target = root->operand(0);
  // Read only as the updated array: then each element is read exactly at
  // the index the kernel writes.
  if (target->opcode() != HloOpcode::kParameter || target->user_count() != 1 ||
      root->OperandIndices(target).size() != 1) {
    return -1;
  }
  return target->parameter_number();
}

bool UpdatesOperandInPlace(const HloInstruction& instr,
                           const BufferAssignment& assignment) {
  const int64_t k = InPlaceOperand(instr, /*scatter=*/false);
  if (k < 0 || instr.shape().IsTuple()) return false;
  const std::vector<int64_t>& operand = assignment.LeafValues(instr.operand(k));
  const std::vector<int64_t>& output = assignment.LeafValues(&instr);
  return operand.size() == 1 && output.size() == 1 &&
         assignment.values[output[0]].in_place_of == operand[0];
}

bool IsBufferAlias(const HloInstruction& instr) {
  switch (instr.opcode()) {
    case HloOpcode::kTuple:
    case HloOpcode::kGetTupleElement:
    case HloOpcode::kOptimizationBarrier:
    case HloOpcode::kAddDependency:
      return true;
    case HloOpcode::kBitcast: {
      const Shape& in = instr.operand(0)->shape();
      return in.IsArray() &&
             in.element_type() == instr.shape().element_type() &&
             in.ElementCount() == instr.shape().ElementCount();
    }
    default:
      return false;
  }
}

absl::string_view AllocationKindName(BufferAllocation::Kind kind) {
  switch (kind) {
    case BufferAllocation::Kind::kArena:
      return "arena";
    case BufferAllocation::Kind::kParameter:
      return "parameter";
    case BufferAllocation::Kind::kConstant:
      return "constant";
    case BufferAllocation::Kind::kOutput:
      return "output";
  }
  return "?";
}

std::string BufferValue::Name() const {
  if (instruction == nullptr) return "?";
  if (!instruction->shape().IsTuple()) return instruction->name();
  return absl::StrCat(instruction->name(), "{", absl::StrJoin(index, ","), "}");
}

const std::vector<int64_t>& BufferAssignment::LeafValues(
    const HloInstruction* instr) const {
  static const auto* empty = new std::vector<int64_t>();
  auto it = leaf_values.find(instr);
  return it == leaf_values.end() ? *empty : it->second;
}

int64_t BufferAssignment::total_intermediate_bytes() const {
  int64_t total = 0;
  for (const BufferValue& value : values) {
    if (allocations[value.allocation].kind == BufferAllocation::Kind::kArena) {
      total += RoundUpTo(value.size, alignment);
    }
  }
  return total;
}

int64_t BufferAssignment::live_peak_bytes() const {
  // A value taken over in place shares its successor's bytes.
  std::vector<int64_t> delta(order.size() + 2, 0);
  for (const BufferValue& value : values) {
    if (allocations[value.allocation].kind != BufferAllocation::Kind::kArena) {
      continue;
    }
    int64_t start = value.defined_at;
    if (value.in_place_of >= 0) ++start;
    if (start > value.last_use) continue;
    delta[start] += RoundUpTo(value.size, alignment);
    delta[value.last_use + 1] -= RoundUpTo(value.size, alignment);
  }
  int64_t live = 0, peak = 0;
  for (int64_t d : delta) {
    live += d;
    peak = std::max(peak, live);
  }
  return peak;
}

int64_t BufferAssignment::AllocationBytes(BufferAllocation::Kind kind) const {
  int64_t total = 0;
  for (const BufferAllocation& allocation : allocations) {
    if (allocation.kind == kind) total += allocation.size;
  }
  return total;
}

std::string BufferAssignment::ToString() const {
  std::string out =
      absl::StrCat("buffer assignment: ", values.size(), " values over ",
                   order.size(), " instructions, alignment ", alignment, "\n");
  absl::StrAppend(&out, "allocations:\n");
  for (size_t i = 0; i < allocations.size(); ++i) {
    const BufferAllocation& a = allocations[i];
    absl::StrAppend(&out, "  #", i, " ", AllocationKindName(a.kind), " ",
                    a.size, " bytes");
    if (a.kind == BufferAllocation::Kind::kParameter) {
      absl::StrAppend(&out, " (parameter ", a.parameter_number, " leaf ",
                      a.parameter_leaf, ")");
    }
    absl::StrAppend(&out, "\n");
  }
  std::vector<std::vector<std::string>> rows = {
      {"value", "shape", "size", "live", "allocation", "offset", ""}};
  for (const BufferValue& v : values) {
    const BufferAllocation& a = allocations[v.allocation];
    rows.push_back(
        {v.Name(), v.shape.ToString(), absl::StrCat(v.size), LiveText(v),
         absl::StrCat("#", v.allocation, " ", AllocationKindName(a.kind)),
         absl::StrCat(v.offset),
         v.in_place_of >= 0
             ? absl::StrCat("in place of ", values[v.in_place_of].Name())
         : v.state_of >= 0
             ? absl::StrCat("loop state ", values[v.state_of].Name())
             : ""});
  }
  std::vector<size_t> widths(rows[0].size(), 0);
  for (const auto& row : rows) {
    for (size_t c = 0; c < row.size(); ++c) {
      widths[c] = std::max(widths[c], row[c].size());
    }
  }
  absl::StrAppend(&out, "values:\n");
  for (const auto& row : rows) {
    std::string line = "  ";
    for (size_t c = 0; c < row.size(); ++c) {
      // Numbers right-aligned, text left-aligned.
      const bool numeric = c == 2 || c == 5;
      const std::string pad(widths[c] - row[c].size(), ' ');
      absl::StrAppend(&line, numeric ? pad : "", row[c], numeric ? "" : pad,
                      c + 1 < row.size() ? "  " : "");
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    absl::StrAppend(&out, line, "\n");
  }
  absl::StrAppend(
      &out, "parameters: ", AllocationBytes(BufferAllocation::Kind::kParameter),
      " bytes, constants: ", AllocationBytes(BufferAllocation::Kind::kConstant),
      " bytes, outputs: ", AllocationBytes(BufferAllocation::Kind::kOutput),
      " bytes, live peak (lower bound): ", live_peak_bytes(), " bytes\n");
  absl::StrAppend(&out,
                  "total of all intermediates: ", total_intermediate_bytes(),
                  " bytes, arena (peak): ", arena_bytes(), " bytes\n");
  return out;
}

absl::StatusOr<BufferAssignment> AssignBuffers(
    const HloComputation& computation, absl::Span<HloInstruction* const> order,
    const BufferAssignmentOptions& options) {
  if (options.alignment <= 0 ||
      (options.alignment & (options.alignment - 1)) != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("buffer assignment: alignment ", options.alignment,
                     " is not a power of two"));
  }
  BufferAssignment result;
  result.alignment = options.alignment;
  result.allocations.push_back({BufferAllocation::Kind::kArena, 0, -1, -1});
  if (static_cast<int64_t>(order.size()) != computation.instruction_count()) {
    return absl::InvalidArgumentError(
        absl::StrCat("buffer assignment: the order has ", order.size(),
                     " instructions, computation ", computation.name(), " has ",
                     computation.instruction_count()));
  }
  absl::flat_hash_map<const HloInstruction*, int64_t> position;
  for (size_t i = 0; i < order.size(); ++i) {
    const HloInstruction* instr = order[i];
    if (instr->parent() != &computation ||
        !position.emplace(instr, static_cast<int64_t>(i)).second) {
      return absl::InvalidArgumentError(absl::StrCat(
          "buffer assignment: ", instr->name(), " is not an instruction of ",
          computation.name(), " or appears twice in the order"));
    }
    result.order.push_back(instr);
  }

  // Values and leaves.
  for (size_t i = 0; i < order.size(); ++i) {
    const HloInstruction* instr = order[i];
    if (IsBufferAlias(*instr)) {
      absl::StatusOr<std::vector<int64_t>> leaves =
          AliasLeaves(*instr, result.leaf_values);
      if (!leaves.ok()) return leaves.status();
      result.leaf_values[instr] = *std::move(leaves);
      continue;
    }
    for (const HloInstruction* operand : instr->operands()) {
      if (!result.leaf_values.contains(operand)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "buffer assignment: ", instr->name(), " uses ", operand->name(),
            " before it is defined in the order"));
      }
    }
    std::vector<int64_t>& ids = result.leaf_values[instr];
    std::vector<Leaf> leaves = Leaves(instr->shape());
    for (size_t l = 0; l < leaves.size(); ++l) {
      BufferValue value;
      value.instruction = instr;
      value.index = leaves[l].index;
      value.leaf = static_cast<int64_t>(l);
      value.shape = *leaves[l].shape;
      value.size = DenseBytes(value.shape);
      value.defined_at = static_cast<int64_t>(i);
      value.last_use = value.defined_at;
      ids.push_back(static_cast<int64_t>(result.values.size()));
      result.values.push_back(std::move(value));
    }
  }

  // Live ranges: every non-alias reader extends its operands' values.
  std::vector<std::vector<int64_t>> readers(result.values.size());
  for (size_t i = 0; i < order.size(); ++i) {
    const HloInstruction* instr = order[i];
    if (IsBufferAlias(*instr)) continue;
    for (const HloInstruction* operand : instr->operands()) {
      for (int64_t id : result.leaf_values.at(operand)) {
        BufferValue& value = result.values[id];
        value.last_use = std::max(value.last_use, static_cast<int64_t>(i));
        readers[id].push_back(static_cast<int64_t>(i));
      }
    }
  }
  const HloInstruction* root = computation.root_instruction();
  if (root == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "buffer assignment: computation ", computation.name(), " has no root"));
  }
  for (int64_t id : result.leaf_values.at(root)) {
    result.values[id].live_out = true;
    result.values[id].last_use = static_cast<int64_t>(order.size());
  }
  if (options.loop_state_in_place) {
    TakeOverLoopState(computation, options, &result);
  }

  // Allocations of their own; the rest go to the arena.
  auto add_allocation = [&](BufferAllocation::Kind kind, int64_t size) {
    result.allocations.push_back(
        {kind, RoundUpTo(size, options.alignment), -1, -1});
    return static_cast<int64_t>(result.allocations.size()) - 1;
  };
  for (BufferValue& value : result.values) {
    const HloOpcode opcode = value.instruction->opcode();
    if (opcode == HloOpcode::kParameter) {
      value.allocation =
          add_allocation(BufferAllocation::Kind::kParameter, value.size);
      result.allocations.back().parameter_number =
          value.instruction->parameter_number();
      result.allocations.back().parameter_leaf = value.leaf;
    } else if (opcode == HloOpcode::kConstant) {
      value.allocation =
          add_allocation(BufferAllocation::Kind::kConstant, value.size);
    } else if (value.state_of >= 0) {
      // The parameter's value comes first: it is defined earlier.
      value.allocation = result.values[value.state_of].allocation;
    } else if (value.live_out) {
      value.allocation =
          add_allocation(BufferAllocation::Kind::kOutput, value.size);
    } else {
      value.allocation = 0;
    }
  }

  // Groups of values sharing memory: one per arena value, merged for
  // in-place updates.
  std::vector<int64_t> group_of(result.values.size(), -1);
  std::vector<Group> groups;
  auto is_arena = [&](int64_t id) { return result.values[id].allocation == 0; };
  for (size_t id = 0; id < result.values.size(); ++id) {
    if (!is_arena(id)) continue;
    BufferValue& value = result.values[id];
    // The arena value whose bytes this one takes over as it dies, or -1.
    const int64_t target = InPlaceTarget(result, value, options);
    std::vector<int64_t> touches = readers[id];
    touches.push_back(value.defined_at);
    if (target >= 0) {
      Group& group = groups[group_of[target]];
      group.values.push_back(static_cast<int64_t>(id));
      group.end = std::max(group.end, value.last_use);
      group.touches.insert(group.touches.end(), touches.begin(), touches.end());
      group_of[id] = group_of[target];
      value.in_place_of = target;
      continue;
    }
    Group group;
    group.values = {static_cast<int64_t>(id)};
    group.start = value.defined_at;
    group.end = value.last_use;
    group.size = RoundUpTo(value.size, options.alignment);
    group.touches = std::move(touches);
    group_of[id] = static_cast<int64_t>(groups.size());
    groups.push_back(std::move(group));
  }

  // Two packings; the smaller arena wins (ties: the first).
  std::vector<size_t> by_size(groups.size());
  for (size_t g = 0; g < groups.size(); ++g) by_size[g] = g;
  std::stable_sort(by_size.begin(), by_size.end(), [&](size_t a, size_t b) {
    if (groups[a].size != groups[b].size)
      return groups[a].size > groups[b].size;
    return groups[a].start < groups[b].start;
  });
  std::vector<size_t> by_start(groups.size());
  for (size_t g = 0; g < groups.size(); ++g) by_start[g] = g;
  auto pack = [&](std::vector<Group>* packed, const auto& conflict) {
    std::vector<Group> first_fit = *packed;
    const int64_t best_fit_size = Pack(packed, by_size, true, conflict);
    const int64_t first_fit_size = Pack(&first_fit, by_start, false, conflict);
    if (first_fit_size < best_fit_size) *packed = std::move(first_fit);
    return std::min(best_fit_size, first_fit_size);
  };
  int64_t arena = pack(&groups, LiveRangesOverlap);
  if (options.reuse_in_dataflow_order &&
      static_cast<int64_t>(order.size()) <= kMaxDataflowReuseInstructions) {
    const DataflowAncestors ancestors(order, position);
    // The later group's first writer must come after every position that
    // touches the earlier group.
    auto ordered = [&](const Group& earlier, const Group& later) {
      for (int64_t t : earlier.touches) {
        if (!ancestors.Reaches(t, later.start)) return false;
      }
      return true;
    };
    auto conflict = [&](const Group& a, const Group& b) {
      if (LiveRangesOverlap(a, b)) return true;
      return a.start < b.start ? !ordered(a, b) : !ordered(b, a);
    };
    // Pack sets every offset afresh, so the packed groups serve as input.
    std::vector<Group> dataflow = groups;
    const int64_t dataflow_arena = pack(&dataflow, conflict);
    const int64_t slack =
        std::max(kDataflowReuseSlackBytes,
                 static_cast<int64_t>(static_cast<double>(arena) *
                                      kDataflowReuseSlackRatio));
    if (dataflow_arena <= arena + slack) {
      groups = std::move(dataflow);
      arena = dataflow_arena;
    }
  }
  result.allocations[0].size = arena;
  for (const Group& group : groups) {
    for (int64_t id : group.values) result.values[id].offset = group.offset;
  }
  return result;
}

absl::StatusOr<std::vector<HloInstruction*>> LoopBodyOrder(
    const HloComputation& body, const BufferAssignmentOptions& base) {
  std::vector<HloInstruction*> order = body.MakeInstructionPostOrder();
  if (body.num_parameters() != 1) return order;
  BufferAssignmentOptions options = base;
  options.loop_state_in_place = true;
  HLOC_ASSIGN_OR_RETURN(BufferAssignment a,
                        AssignBuffers(body, order, options));
  const size_t leaves = LeafCount(body.root_instruction()->shape());
  for (size_t j = 0; j < leaves; ++j) {
    const std::vector<int64_t>& params =
        a.LeafValues(body.parameter_instruction(0));
    const std::vector<int64_t>& roots = a.LeafValues(body.root_instruction());
    if (params.size() != roots.size()) return order;
    if (!IsStateCandidate(a, roots[j], params[j])) continue;
    const BufferValue& v = a.values[roots[j]];
    const BufferValue& p = a.values[params[j]];
    if (p.last_use < v.defined_at) continue;
    // Moved after the last read of the old leaf, with the aliases of it
    // that stand before that.
    std::vector<const HloInstruction*> aliases, readers;
    CollectUsers(v.instruction, &aliases, &readers);
    bool movable = true;
    for (const HloInstruction* reader : readers) {
      movable &= std::find(order.begin() + p.last_use + 1, order.end(),
                           reader) != order.end();
    }
    // One that reads the old leaf itself reads it last there: it must be
    // able to overwrite it.
    bool reads_old = false;
    for (const HloInstruction* operand : v.instruction->operands()) {
      for (int64_t value : a.LeafValues(operand)) {
        reads_old |= value == params[j];
      }
    }
    movable &=
        !reads_old || MayOverwrite(*v.instruction, params[j], a, options);
    if (!movable) continue;
    std::vector<HloInstruction*> moved;
    std::vector<HloInstruction*> rest;
    for (int64_t i = 0; i < static_cast<int64_t>(order.size()); ++i) {
      HloInstruction* instr = order[i];
      const bool alias =
          std::find(aliases.begin(), aliases.end(), instr) != aliases.end();
      if (i <= p.last_use && (instr == v.instruction || alias)) {
        moved.push_back(instr);
      } else {
        rest.push_back(instr);
      }
      if (i == p.last_use) {
        // Everything before and at the last read is placed: the moved
        // ones follow it, in their order.
        rest.insert(rest.end(), moved.begin(), moved.end());
        moved.clear();
      }
    }
    order = std::move(rest);
    // Positions and live ranges after the move.
    HLOC_ASSIGN_OR_RETURN(a, AssignBuffers(body, order, options));
  }
  return order;
}

absl::Status VerifyBufferAssignment(const BufferAssignment& a) {
  auto fail = [](auto&&... parts) {
    return absl::InternalError(
        absl::StrCat("buffer assignment check: ", parts...));
  };
  if (a.allocations.empty() ||
      a.allocations[0].kind != BufferAllocation::Kind::kArena) {
    return fail("allocation 0 is not the arena");
  }
  absl::flat_hash_map<const HloInstruction*, int64_t> position;
  for (size_t i = 0; i < a.order.size(); ++i) position[a.order[i]] = i;
  const int64_t end = static_cast<int64_t>(a.order.size());

  // Leaves, recomputed from the instructions.
  absl::flat_hash_map<const HloInstruction*, std::vector<int64_t>> leaves;
  std::vector<int64_t> expected_last_use(a.values.size(), -1);
  for (size_t i = 0; i < a.values.size(); ++i) {
    const BufferValue& v = a.values[i];
    auto it = position.find(v.instruction);
    if (it == position.end()) return fail(v.Name(), " is not in the order");
    if (v.defined_at != it->second) {
      return fail(v.Name(), " is defined at ", it->second, ", not ",
                  v.defined_at);
    }
    if (v.size != DenseBytes(v.shape)) {
      return fail(v.Name(), " has size ", v.size, ", its shape ",
                  DenseBytes(v.shape));
    }
    leaves[v.instruction].push_back(static_cast<int64_t>(i));
    expected_last_use[i] = v.defined_at;
  }
  for (const HloInstruction* instr : a.order) {
    if (IsBufferAlias(*instr)) {
      absl::StatusOr<std::vector<int64_t>> l = AliasLeaves(*instr, leaves);
      if (!l.ok()) return fail(l.status().message());
      leaves[instr] = *std::move(l);
    } else if (static_cast<int64_t>(leaves[instr].size()) !=
               LeafCount(instr->shape())) {
      return fail(instr->name(), " defines ", leaves[instr].size(),
                  " values for ", LeafCount(instr->shape()), " leaves");
    }
    if (a.LeafValues(instr) != leaves[instr]) {
      return fail("the leaves of ", instr->name(), " are wrong");
    }
    if (IsBufferAlias(*instr)) continue;
    for (const HloInstruction* operand : instr->operands()) {
      for (int64_t id : leaves[operand]) {
        expected_last_use[id] =
            std::max(expected_last_use[id], position.at(instr));
      }
    }
  }
  std::vector<int64_t> root_leaves;
  if (!a.order.empty()) {
    const HloInstruction* root = a.order.back()->parent()->root_instruction();
    root_leaves = leaves[root];
    for (int64_t id : root_leaves) expected_last_use[id] = end;
  }

  for (size_t i = 0; i < a.values.size(); ++i) {
    const BufferValue& v = a.values[i];
    if ((expected_last_use[i] == end) != v.live_out ||
        v.last_use != expected_last_use[i]) {
      return fail(v.Name(), " is live to ", v.last_use, " but read until ",
                  expected_last_use[i]);
    }
    if (v.allocation < 0 ||
        v.allocation >= static_cast<int64_t>(a.allocations.size())) {
      return fail(v.Name(), " has no allocation");
    }
    const BufferAllocation& alloc = a.allocations[v.allocation];
    if (v.offset < 0 || v.offset % a.alignment != 0 ||
        v.offset + v.size > alloc.size) {
      return fail(v.Name(), " at offset ", v.offset, " (", v.size,
                  " bytes) does not fit allocation #", v.allocation, " (",
                  alloc.size, " bytes) aligned");
    }
    BufferAllocation::Kind want = BufferAllocation::Kind::kArena;
    if (v.state_of >= 0) {
      // A loop state taken over: root leaf j in parameter 0's leaf j.
      const auto j = std::find(root_leaves.begin(), root_leaves.end(),
                               static_cast<int64_t>(i));
      const BufferValue& p = a.values.at(v.state_of);
      if (j == root_leaves.end() || !v.live_out ||
          p.instruction->opcode() != HloOpcode::kParameter ||
          p.instruction->parameter_number() != 0 ||
          p.leaf != j - root_leaves.begin() || v.allocation != p.allocation ||
          v.offset != p.offset) {
        return fail(v.Name(), " takes over ", p.Name(),
                    " but is not the root leaf in its buffer");
      }
      want = BufferAllocation::Kind::kParameter;
    } else if (v.instruction->opcode() == HloOpcode::kParameter) {
      want = BufferAllocation::Kind::kParameter;
      if (alloc.parameter_number != v.instruction->parameter_number() ||
          alloc.parameter_leaf != v.leaf) {
        return fail(v.Name(), " is in the wrong parameter allocation");
      }
    } else if (v.instruction->opcode() == HloOpcode::kConstant) {
      want = BufferAllocation::Kind::kConstant;
    } else if (v.live_out) {
      want = BufferAllocation::Kind::kOutput;
    }
    if (alloc.kind != want) {
      return fail(v.Name(), " is in a ", AllocationKindName(alloc.kind),
                  " allocation, expected ", AllocationKindName(want));
    }
    if (v.in_place_of >= 0) {
      const BufferValue& old = a.values.at(v.in_place_of);
      if (old.last_use != v.defined_at || old.allocation != v.allocation ||
          old.offset != v.offset || old.size != v.size) {
        return fail(v.Name(), " is marked in place of ", old.Name(),
                    " but does not take over its buffer as it dies");
      }
    }
  }

  // Interference: every pair.
  for (size_t i = 0; i < a.values.size(); ++i) {
    const BufferValue& x = a.values[i];
    for (size_t j = i + 1; j < a.values.size(); ++j) {
      const BufferValue& y = a.values[j];
      if (x.allocation != y.allocation) continue;
      // A parameter's bytes are there from the start.
      int64_t x_start = x.defined_at, y_start = y.defined_at;
      if (a.allocations[x.allocation].kind != BufferAllocation::Kind::kArena) {
        const bool state_pair = x.state_of == static_cast<int64_t>(j) ||
                                y.state_of == static_cast<int64_t>(i);
        if (!state_pair) {
          return fail(x.Name(), " and ", y.Name(), " share allocation #",
                      x.allocation, " of kind ",
                      AllocationKindName(a.allocations[x.allocation].kind));
        }
        (x.state_of >= 0 ? y_start : x_start) = 0;
      }
      if (x.size == 0 || y.size == 0 ||
          !(x.offset < y.offset + y.size && y.offset < x.offset + x.size)) {
        continue;
      }
      if (!Overlap(x_start, x.last_use, y_start, y.last_use)) continue;
      const bool in_place = (y.in_place_of == static_cast<int64_t>(i) &&
                             x.last_use == y.defined_at) ||
                            (x.in_place_of == static_cast<int64_t>(j) &&
                             y.last_use == x.defined_at);
      if (!in_place) {
        return fail(x.Name(), " (live ", LiveText(x), ", bytes ", x.offset,
                    "..", x.offset + x.size, ") and ", y.Name(), " (live ",
                    LiveText(y), ", bytes ", y.offset, "..", y.offset + y.size,
                    ") overlap");
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace hloc
