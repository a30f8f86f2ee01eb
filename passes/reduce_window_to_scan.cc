#include "passes/reduce_window_to_scan.h"

#include <memory>
#include <optional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "hlo/computation.h"
#include "hlo/opcode.h"
#include "hlo/reducer_patterns.h"

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

// Whether `reducer` is exactly op(p0, p1) or op(p1, p0) for one of the
// opcodes HloOpcodeIsAssociativeBinary accepts (they all commute, so either
// order folds the same way).
bool IsAssociativeReducer(const HloComputation* reducer) {
  if (reducer == nullptr || reducer->num_parameters() != 2 ||
      reducer->instruction_count() != 3) {
    return false;
  }
  const HloInstruction* root = reducer->root_instruction();
  if (!HloOpcodeIsAssociativeBinary(root->opcode()) ||
      root->operand_count() != 2) {
    return false;
  }
  const HloInstruction* p0 = reducer->parameter_instruction(0);
  const HloInstruction* p1 = reducer->parameter_instruction(1);
  return (root->operand(0) == p0 && root->operand(1) == p1) ||
         (root->operand(0) == p1 && root->operand(1) == p0);
}

// Whether `reducer` computes a `type` scalar from its two `type` scalar
// parameters with elementwise instructions and scalar constants only: then
// the same instructions on slices (constants broadcast) apply it to every
// element of a slice at once, which is what a scan body does.
bool IsElementwiseReducer(const HloComputation* reducer, PrimitiveType type) {
  const Shape scalar = Shape::Scalar(type);
  if (reducer == nullptr || reducer->num_parameters() != 2 ||
      reducer->parameter_instruction(0)->shape() != scalar ||
      reducer->parameter_instruction(1)->shape() != scalar ||
      reducer->root_instruction()->shape() != scalar) {
    return false;
  }
  for (const HloInstruction* instr : reducer->instructions()) {
    if (!instr->shape().IsArray() || instr->shape().rank() != 0) return false;
    if (instr->opcode() != HloOpcode::kParameter &&
        instr->opcode() != HloOpcode::kConstant && !instr->IsElementwise()) {
      return false;
    }
  }
  return true;
}

// The scan body { x, c -> s = reducer(c, x); (s, s) } on slices of shape
// `slice_dims`: the reducer's instructions cloned at slice shape, its
// constants broadcast. The carry is the reducer's first parameter, the
// accumulated value, as reduce-window folds left to right. With `widened`,
// the reducer's values of its own type are computed in F32 instead (its
// constants converted).
std::unique_ptr<HloComputation> MakeScanBody(
    const std::string& name, const HloComputation& reducer,
    const std::vector<int64_t>& slice_dims, bool widened) {
  const PrimitiveType own = reducer.root_instruction()->shape().element_type();
  auto compute = [&](PrimitiveType t) { return widened && t == own ? F32 : t; };
  const PrimitiveType type = compute(own);
  auto body = std::make_unique<HloComputation>(name);
  const Shape slice = Shape::Array(type, slice_dims);
  HloInstruction* x =
      body->AddParameter(HloInstruction::CreateParameter(0, slice, "x"));
  HloInstruction* c =
      body->AddParameter(HloInstruction::CreateParameter(1, slice, "carry"));
  absl::flat_hash_map<const HloInstruction*, HloInstruction*> cloned = {
      {reducer.parameter_instruction(0), c},
      {reducer.parameter_instruction(1), x}};
  for (const HloInstruction* instr : reducer.MakeInstructionPostOrder()) {
    if (instr->opcode() == HloOpcode::kParameter) continue;
    const PrimitiveType t = compute(instr->shape().element_type());
    const Shape shape = Shape::Array(t, slice_dims);
    if (instr->opcode() == HloOpcode::kConstant) {
      HloInstruction* scalar =
          body->AddInstruction(instr->CloneWithNewOperands(instr->shape(), {}));
      if (t != instr->shape().element_type()) {
        scalar = body->AddInstruction(HloInstruction::CreateUnary(
            Shape::Scalar(t), HloOpcode::kConvert, scalar));
      }
      cloned[instr] = body->AddInstruction(
          HloInstruction::CreateBroadcast(shape, scalar, {}));
      continue;
    }
    std::vector<HloInstruction*> operands;
    for (const HloInstruction* operand : instr->operands()) {
      operands.push_back(cloned.at(operand));
    }
    cloned[instr] =
        body->AddInstruction(instr->CloneWithNewOperands(shape, operands));
  }
  HloInstruction* s = cloned.at(reducer.root_instruction());
  body->set_root_instruction(
      body->AddInstruction(HloInstruction::CreateTuple({s, s})));
  return body;
}

// Whether a scan of `reducer` over `type` values stalls where the values
// are narrow: a sum (or log-add-exp) folded in order, each step rounded to
// bf16's 8 bits, stops growing once the carry is 256 times the addends
// (jnp.cumsum(jnp.ones(1000, bf16)) stops at 256; XLA:CPU scans in blocks
// of 16 and reaches 1000).
bool NarrowSum(const HloComputation& reducer, PrimitiveType type) {
  if (type != BF16 && type != F16) return false;
  return reducer.root_instruction()->opcode() == HloOpcode::kAdd
             ? IsAssociativeReducer(&reducer)
             : IsLogAddExpReducer(reducer);
}

absl::StatusOr<bool> RewriteReduceWindow(HloModule* module,
                                         HloComputation* computation,
                                         HloInstruction* rw,
                                         bool widen_narrow_sums) {
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
  if (!IsElementwiseReducer(rw->to_apply(), type)) return false;
  // Another reducer is folded in the reduce-window's own order: forward
  // only (a reverse scan folds from the end), and sequentially. Log-add-exp
  // (lax.cumlogsumexp's) is associative in real arithmetic, as a float sum
  // is: reverse windows of it too are scans, where windows cost O(n^2) (a
  // reverse cumlogsumexp of 20000 took the cpu 8 s, XLA:CPU 9 ms).
  const bool associative = IsAssociativeReducer(rw->to_apply()) ||
                           IsLogAddExpReducer(*rw->to_apply());
  if (!associative && window->reverse) return false;

  // A narrow sum is scanned in f32 where excess precision is allowed, and
  // each output rounded once.
  const bool widened = widen_narrow_sums && NarrowSum(*rw->to_apply(), type);
  const PrimitiveType scan_type = widened ? F32 : type;
  std::vector<int64_t> slice_dims = in.dimensions();
  slice_dims.erase(slice_dims.begin() + window->dimension);
  const Shape slice = Shape::Array(scan_type, slice_dims);
  // The scan's result keeps the reduce-window's layout (a column-major
  // cumulative sum stays column-major), in the scan's type.
  Shape scanned = rw->shape();
  scanned.set_element_type(scan_type);
  if (widened) {
    Shape wide_input = in;
    wide_input.set_element_type(F32);
    input = computation->AddInstruction(
        HloInstruction::CreateUnary(wide_input, HloOpcode::kConvert, input));
    init = computation->AddInstruction(HloInstruction::CreateUnary(
        Shape::Scalar(F32), HloOpcode::kConvert, init));
  }
  HloComputation* body = module->AddEmbeddedComputation(
      MakeScanBody(absl::StrCat(rw->to_apply()->name(), "_scan"),
                   *rw->to_apply(), slice_dims, widened),
      computation);
  HloInstruction* carry = computation->AddInstruction(
      HloInstruction::CreateBroadcast(slice, init, {}));
  HloInstruction* scan = computation->AddInstruction(HloInstruction::Create(
      HloOpcode::kScan, Shape::Tuple({scanned, slice}), {input, carry}));
  scan->set_called_computations({body});
  HloAttributes& attrs = scan->mutable_attrs();
  attrs.dimensions = {window->dimension};
  attrs.num_carries = 1;
  attrs.is_reverse = window->reverse;
  attrs.is_associative = associative;
  HloInstruction* result = computation->AddInstruction(
      HloInstruction::CreateGetTupleElement(scanned, scan, 0));
  if (widened) {
    result = computation->AddInstruction(
        HloInstruction::CreateUnary(rw->shape(), HloOpcode::kConvert, result));
  }
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
                       return RewriteReduceWindow(module, computation, instr,
                                                  widen_narrow_sums_);
                     });
}

}  // namespace hloc
