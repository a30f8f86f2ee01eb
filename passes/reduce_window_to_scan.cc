#include "passes/reduce_window_to_scan.h"

#include <memory>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "hlo/computation.h"

namespace hloc {
namespace {

// The dimension a prefix window scans and whether it runs backwards.
struct PrefixWindow {
  int64_t dimension = 0;
  bool reverse = false;
};

// The scanned dimension if `window` over `shape` is a whole-axis prefix (or
// suffix) window and trivial in every other dimension.
std::optional<PrefixWindow> MatchPrefixWindow(const Window& window,
                                              const Shape& shape) {
  if (static_cast<int64_t>(window.dimensions.size()) != shape.rank()) {
    return std::nullopt;
  }
  std::optional<PrefixWindow> found;
  for (int64_t d = 0; d < shape.rank(); ++d) {
    const WindowDimension& w = window.dimensions[d];
    if (w.stride != 1 || w.window_dilation != 1 || w.base_dilation != 1 ||
        w.window_reversal) {
      return std::nullopt;
    }
    if (w.size == 1 && w.padding_low == 0 && w.padding_high == 0) continue;
    const int64_t n = shape.dimensions(d);
    if (found || w.size != n || n < 2) return std::nullopt;
    if (w.padding_low == n - 1 && w.padding_high == 0) {
      found = PrefixWindow{d, false};
    } else if (w.padding_low == 0 && w.padding_high == n - 1) {
      found = PrefixWindow{d, true};
    } else {
      return std::nullopt;
    }
  }
  return found;
}

bool IsAssociativeBinaryOpcode(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kAdd:
    case HloOpcode::kMultiply:
    case HloOpcode::kMaximum:
    case HloOpcode::kMinimum:
    case HloOpcode::kAnd:
    case HloOpcode::kOr:
      return true;
    default:
      return false;
  }
}

// The reducer's binary opcode if it is exactly op(p0, p1) or op(p1, p0) on
// scalars of `type` (these opcodes all commute, so either order folds the
// same way).
std::optional<HloOpcode> MatchReducer(const HloComputation* reducer,
                                      PrimitiveType type) {
  if (reducer == nullptr || reducer->num_parameters() != 2 ||
      reducer->instruction_count() != 3) {
    return std::nullopt;
  }
  const HloInstruction* root = reducer->root_instruction();
  if (!IsAssociativeBinaryOpcode(root->opcode()) ||
      root->operand_count() != 2 || root->shape() != Shape::Scalar(type)) {
    return std::nullopt;
  }
  const HloInstruction* p0 = reducer->parameter_instruction(0);
  const HloInstruction* p1 = reducer->parameter_instruction(1);
  const bool in_order = root->operand(0) == p0 && root->operand(1) == p1;
  const bool swapped = root->operand(0) == p1 && root->operand(1) == p0;
  if (!in_order && !swapped) return std::nullopt;
  return root->opcode();
}

// The scan body { x, c -> s = op(c, x); (s, s) } on slices of `slice`.
std::unique_ptr<HloComputation> MakeScanBody(const std::string& name,
                                             HloOpcode opcode,
                                             const Shape& slice) {
  auto body = std::make_unique<HloComputation>(name);
  HloInstruction* x =
      body->AddParameter(HloInstruction::CreateParameter(0, slice, "x"));
  HloInstruction* c =
      body->AddParameter(HloInstruction::CreateParameter(1, slice, "carry"));
  HloInstruction* s =
      body->AddInstruction(HloInstruction::CreateBinary(slice, opcode, c, x));
  body->set_root_instruction(
      body->AddInstruction(HloInstruction::CreateTuple({s, s})));
  return body;
}

absl::StatusOr<bool> RewriteReduceWindow(HloModule* module,
                                         HloComputation* computation,
                                         HloInstruction* rw) {
  if (rw->operand_count() != 2 || !rw->shape().IsArray() ||
      !rw->attrs().window.has_value()) {
    return false;
  }
  HloInstruction* input = rw->operand(0);
  HloInstruction* init = rw->operand(1);
  const Shape& in = input->shape();
  if (!in.IsArray() || in.dimensions() != rw->shape().dimensions() ||
      init->opcode() != HloOpcode::kConstant || init->shape().rank() != 0) {
    return false;
  }
  const PrimitiveType type = rw->shape().element_type();
  const std::optional<PrefixWindow> window =
      MatchPrefixWindow(*rw->attrs().window, in);
  if (!window) return false;
  const std::optional<HloOpcode> opcode = MatchReducer(rw->to_apply(), type);
  if (!opcode) return false;

  std::vector<int64_t> slice_dims = in.dimensions();
  slice_dims.erase(slice_dims.begin() + window->dimension);
  const Shape slice = Shape::Array(type, slice_dims);
  HloComputation* body = module->AddEmbeddedComputation(
      MakeScanBody(absl::StrCat(rw->to_apply()->name(), "_scan"), *opcode,
                   slice),
      computation);
  HloInstruction* carry = computation->AddInstruction(
      HloInstruction::CreateBroadcast(slice, init, {}));
  HloInstruction* scan = computation->AddInstruction(HloInstruction::Create(
      HloOpcode::kScan, Shape::Tuple({rw->shape(), slice}), {input, carry}));
  scan->set_called_computations({body});
  HloAttributes& attrs = scan->mutable_attrs();
  attrs.dimensions = {window->dimension};
  attrs.num_carries = 1;
  attrs.is_reverse = window->reverse;
  attrs.is_associative = true;
  HloInstruction* result = computation->AddInstruction(
      HloInstruction::CreateGetTupleElement(rw->shape(), scan, 0));
  if (absl::Status s = computation->ReplaceInstruction(rw, result); !s.ok()) {
    return s;
  }
  return true;
}

}  // namespace

absl::StatusOr<bool> ReduceWindowToScan::Run(HloModule* module) {
  return RewriteEach(module, HloOpcode::kReduceWindow,
                     "prefix-reduce-windows-rewritten",
                     [&](HloComputation* computation, HloInstruction* instr) {
                       return RewriteReduceWindow(module, computation, instr);
                     });
}

}  // namespace hloc
