#include "backends/common/kernel_analysis.h"

#include <algorithm>
#include <functional>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "hlo/computation.h"
#include "hlo/status_macros.h"

namespace hloc {

absl::Status CodegenUnimplemented(const HloInstruction& hlo,
                                  absl::string_view why) {
  return absl::UnimplementedError(absl::StrCat("codegen: ", std::string(why),
                                               " (", hlo.ToShortString(), ")"));
}

absl::StatusOr<KernelInfo> AnalyzeKernel(const HloInstruction& hlo) {
  KernelInfo info{&hlo, hlo.opcode() == HloOpcode::kFusion, {}, {}, {}};
  for (const HloInstruction* operand : hlo.operands()) {
    if (!operand->shape().IsArray()) {
      return CodegenUnimplemented(hlo, "an operand is not an array");
    }
    info.input_shapes.push_back(operand->shape());
  }
  // Nested tuple results (a fusion computing a reduce and a variadic
  // reduce) are flattened: one output per array leaf, depth first, the
  // order in which the buffer plan gives leaves their slots.
  std::function<void(const Shape&)> add_leaves = [&](const Shape& s) {
    if (!s.IsTuple()) {
      info.output_shapes.push_back(s);
      return;
    }
    for (const Shape& element : s.tuple_shapes()) add_leaves(element);
  };
  add_leaves(hlo.shape());
  for (const Shape& s : info.output_shapes) {
    if (!s.IsArray()) {
      return CodegenUnimplemented(hlo,
                                  "result is not an array or tuple of arrays");
    }
  }
  const HloInstruction* root = info.fused ? hlo.fused_expression_root() : &hlo;
  // A fused tuple's elements are outputs of their own (recursively); any
  // other tuple-shaped value (a variadic reduce, sort) gives one output per
  // element.
  std::function<absl::Status(const HloInstruction*, bool)> add_outputs =
      [&](const HloInstruction* value, bool fused_tuple) -> absl::Status {
    if (value->shape().IsArray()) {
      info.outputs.push_back({value, -1});
      return absl::OkStatus();
    }
    if (fused_tuple && value->opcode() == HloOpcode::kTuple) {
      for (const HloInstruction* element : value->operands()) {
        HLOC_RETURN_IF_ERROR(add_outputs(element, true));
      }
      return absl::OkStatus();
    }
    for (int64_t i = 0; i < value->shape().tuple_shapes_size(); ++i) {
      if (!value->shape().tuple_shapes(i).IsArray()) {
        return CodegenUnimplemented(hlo, "nested tuple-shaped value");
      }
      info.outputs.push_back({value, i});
    }
    return absl::OkStatus();
  };
  HLOC_RETURN_IF_ERROR(add_outputs(root, info.fused));
  if (info.outputs.size() != info.output_shapes.size()) {
    return CodegenUnimplemented(hlo, "outputs do not match the result shape");
  }
  for (size_t i = 0; i < info.outputs.size(); ++i) {
    const Shape& root_shape = info.outputs[i].element < 0
                                  ? info.outputs[i].root->shape()
                                  : info.outputs[i].root->shape().tuple_shapes(
                                        info.outputs[i].element);
    if (!root_shape.Compatible(info.output_shapes[i])) {
      return CodegenUnimplemented(
          hlo, "a fused root's shape differs from the output");
    }
  }
  return info;
}

namespace {

// A reduce over at least one dimension of size > 1 (one over size-1
// dimensions only is a reshape, computed per element like any op).
bool ReducesElements(const HloInstruction& instr) {
  if (instr.opcode() != HloOpcode::kReduce) return false;
  const Shape& input = instr.operand(0)->shape();
  for (int64_t d : instr.dimensions()) {
    if (input.dimensions(d) != 1) return true;
  }
  return false;
}

// Whether fused `value` depends on a reduce (ReducesElements); those it
// reaches go to `reduces`. Clears `*elementwise` if a path to one passes
// through anything but elementwise ops of `dims`. `memo` remembers the
// answer per instruction.
bool DependsOnReduce(const HloInstruction* value, const Shape& dims,
                     bool* elementwise,
                     std::vector<const HloInstruction*>* reduces,
                     absl::flat_hash_map<const HloInstruction*, bool>* memo) {
  if (auto it = memo->find(value); it != memo->end()) return it->second;
  bool depends = false;
  if (ReducesElements(*value)) {
    depends = true;
    if (std::find(reduces->begin(), reduces->end(), value) == reduces->end()) {
      reduces->push_back(value);
    }
  } else {
    for (const HloInstruction* operand : value->operands()) {
      depends |= DependsOnReduce(operand, dims, elementwise, reduces, memo);
    }
    if (depends && (!value->IsElementwise() || !value->shape().IsArray() ||
                    !value->shape().SameDimensions(dims))) {
      *elementwise = false;
    }
  }
  (*memo)[value] = depends;
  return depends;
}

}  // namespace

bool ReductionInfo::IsEpilogueOutput(size_t o) const {
  return std::find(epilogue_outputs.begin(), epilogue_outputs.end(), o) !=
         epilogue_outputs.end();
}

std::optional<ReductionInfo> AnalyzeReduction(const KernelInfo& info,
                                              bool allow_epilogue) {
  ReductionInfo r;
  auto add_reduce = [&r](const HloInstruction* reduce) {
    if (std::find(r.reduces.begin(), r.reduces.end(), reduce) !=
        r.reduces.end()) {
      return true;
    }
    const Shape& in = reduce->operand(0)->shape();
    std::vector<int64_t> dims = reduce->dimensions();
    std::sort(dims.begin(), dims.end());
    if (r.reduces.empty()) {
      r.input_shape = in;
      r.reduced_dims = dims;
    } else if (!in.SameDimensions(r.input_shape) || dims != r.reduced_dims) {
      return false;
    }
    r.reduces.push_back(reduce);
    return true;
  };
  for (const KernelOutput& o : info.outputs) {
    if (o.root->opcode() != HloOpcode::kReduce) continue;
    if (!add_reduce(o.root)) return std::nullopt;
  }
  if (allow_epilogue && info.fused) {
    absl::flat_hash_map<const HloInstruction*, bool> memo;
    for (size_t o = 0; o < info.outputs.size(); ++o) {
      const HloInstruction* root = info.outputs[o].root;
      if (root->opcode() == HloOpcode::kReduce || !root->shape().IsArray()) {
        continue;
      }
      bool elementwise = true;
      std::vector<const HloInstruction*> reduces;
      if (!DependsOnReduce(root, root->shape(), &elementwise, &reduces,
                           &memo)) {
        continue;
      }
      if (!elementwise) return std::nullopt;
      for (const HloInstruction* reduce : reduces) {
        // The epilogue reads the result as an array of its own dimensions.
        if (!reduce->shape().IsArray() ||
            !reduce->shape().SameDimensions(root->shape()) ||
            !add_reduce(reduce)) {
          return std::nullopt;
        }
      }
      r.epilogue_outputs.push_back(o);
    }
  }
  if (r.reduces.empty() || r.input_shape.rank() == 0) return std::nullopt;
  for (size_t o = 0; o < info.outputs.size(); ++o) {
    const HloInstruction* root = info.outputs[o].root;
    if (root->opcode() != HloOpcode::kReduce && !r.IsEpilogueOutput(o) &&
        !root->shape().SameDimensions(r.input_shape)) {
      return std::nullopt;
    }
  }
  std::vector<bool> reduced(r.input_shape.rank(), false);
  for (int64_t d : r.reduced_dims) reduced[d] = true;
  for (int64_t d = 0; d < r.input_shape.rank(); ++d) {
    if (!reduced[d]) r.kept_dims.push_back(d);
  }
  r.row = reduced[r.input_shape.MinorToMajor()[0]];
  return r;
}

// The reduced dimensions in physical order, most major first.
std::vector<int64_t> ReducedLoopOrder(const ReductionInfo& r) {
  std::vector<int64_t> order;
  std::vector<int64_t> m2m = r.input_shape.MinorToMajor();
  for (auto it = m2m.rbegin(); it != m2m.rend(); ++it) {
    if (std::find(r.reduced_dims.begin(), r.reduced_dims.end(), *it) !=
        r.reduced_dims.end()) {
      order.push_back(*it);
    }
  }
  return order;
}

std::vector<std::vector<size_t>> GroupOutputsByDimensions(
    const KernelInfo& info) {
  std::vector<std::vector<size_t>> groups;
  for (size_t o = 0; o < info.outputs.size(); ++o) {
    bool placed = false;
    for (auto& g : groups) {
      if (info.output_shapes[g[0]].SameDimensions(info.output_shapes[o])) {
        g.push_back(o);
        placed = true;
        break;
      }
    }
    if (!placed) groups.push_back({o});
  }
  return groups;
}

const HloInstruction* FindConcatenateHero(const KernelInfo& info) {
  if (!info.fused || info.outputs.size() != 1 || info.outputs[0].element >= 0) {
    return nullptr;
  }
  const HloInstruction* root = info.outputs[0].root;
  const HloComputation* fused = info.hlo->fused_computation();
  const HloInstruction* concat = nullptr;
  for (const HloInstruction* instr : fused->instructions()) {
    if (instr->opcode() != HloOpcode::kConcatenate) continue;
    if (concat != nullptr) return nullptr;  // One hero only.
    concat = instr;
  }
  if (concat == nullptr || concat->operand_count() < 2 ||
      concat->operand_count() > kMaxConcatenateHeroOperands) {
    return nullptr;
  }
  const Shape& shape = concat->shape();
  if (!shape.IsArray() || !shape.HasDescendingLayout() ||
      !root->shape().IsArray() || !root->shape().HasDescendingLayout() ||
      root->shape().ElementCount() != shape.ElementCount()) {
    return nullptr;
  }
  // Forward from the concatenate: every user keeps the linear position.
  return ReadAtOwnLinearPositionUpTo(
             concat, root, [](const HloInstruction*) { return true; })
             ? concat
             : nullptr;
}

}  // namespace hloc
