#include "backends/common/kernel_analysis.h"

#include <algorithm>
#include <functional>

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

std::optional<ReductionInfo> AnalyzeReduction(const KernelInfo& info) {
  ReductionInfo r;
  for (const KernelOutput& o : info.outputs) {
    if (o.root->opcode() != HloOpcode::kReduce) continue;
    if (std::find(r.reduces.begin(), r.reduces.end(), o.root) !=
        r.reduces.end()) {
      continue;
    }
    const Shape& in = o.root->operand(0)->shape();
    std::vector<int64_t> dims = o.root->dimensions();
    std::sort(dims.begin(), dims.end());
    if (r.reduces.empty()) {
      r.input_shape = in;
      r.reduced_dims = dims;
    } else if (!in.SameDimensions(r.input_shape) || dims != r.reduced_dims) {
      return std::nullopt;
    }
    r.reduces.push_back(o.root);
  }
  if (r.reduces.empty() || r.input_shape.rank() == 0) return std::nullopt;
  for (const KernelOutput& o : info.outputs) {
    if (o.root->opcode() != HloOpcode::kReduce &&
        !o.root->shape().SameDimensions(r.input_shape)) {
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
  std::vector<const HloInstruction*> work = {concat};
  absl::flat_hash_set<const HloInstruction*> seen = {concat};
  while (!work.empty()) {
    const HloInstruction* value = work.back();
    work.pop_back();
    for (const HloInstruction* user : value->users()) {
      const Shape& s = user->shape();
      if (!s.IsArray() || s.ElementCount() != shape.ElementCount() ||
          !s.HasDescendingLayout()) {
        return nullptr;
      }
      const bool keeps_position =
          user->opcode() == HloOpcode::kReshape ||
          user->opcode() == HloOpcode::kBitcast ||
          (user->IsElementwise() && s.SameDimensions(value->shape()));
      if (!keeps_position) return nullptr;
      if (seen.insert(user).second) work.push_back(user);
    }
  }
  return seen.contains(root) ? concat : nullptr;
}

}  // namespace hloc
