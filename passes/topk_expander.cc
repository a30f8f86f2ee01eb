#include "passes/topk_expander.h"

#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "hlo/module.h"

namespace hloc {
namespace {

// compare(a, b) of topk's order on scalars of `type`: a comes first when it
// is greater (largest) or less, in the total order for floats.
std::unique_ptr<HloComputation> MakeComparator(const std::string& name,
                                               PrimitiveType type,
                                               bool largest) {
  auto cmp = std::make_unique<HloComputation>(name);
  const Shape scalar = Shape::Scalar(type);
  const Shape index = Shape::Scalar(S32);
  HloInstruction* a =
      cmp->AddParameter(HloInstruction::CreateParameter(0, scalar, "a"));
  HloInstruction* b =
      cmp->AddParameter(HloInstruction::CreateParameter(1, scalar, "b"));
  cmp->AddParameter(HloInstruction::CreateParameter(2, index, "a_index"));
  cmp->AddParameter(HloInstruction::CreateParameter(3, index, "b_index"));
  cmp->set_root_instruction(cmp->AddInstruction(HloInstruction::CreateCompare(
      Shape::Scalar(PRED), a, b,
      largest ? ComparisonDirection::kGt : ComparisonDirection::kLt,
      IsFloatingPointType(type) ? ComparisonType::kTotalOrder
                                : ComparisonType::kDefault)));
  return cmp;
}

Shape WithMinor(const Shape& shape, PrimitiveType type, int64_t minor) {
  std::vector<int64_t> dims = shape.dimensions();
  dims.back() = minor;
  return Shape::Array(type, dims);
}

HloInstruction* SliceMinor(HloComputation* computation, HloInstruction* x,
                           int64_t k) {
  const Shape& shape = x->shape();
  const Shape result = WithMinor(shape, shape.element_type(), k);
  HloInstruction* slice = computation->AddInstruction(
      HloInstruction::Create(HloOpcode::kSlice, result, {x}));
  HloAttributes& attrs = slice->mutable_attrs();
  attrs.slice_starts.assign(shape.rank(), 0);
  attrs.slice_limits = result.dimensions();
  attrs.slice_strides.assign(shape.rank(), 1);
  return slice;
}

absl::StatusOr<bool> Expand(HloComputation* computation, HloInstruction* topk) {
  const Shape& shape = topk->operand(0)->shape();
  if (!shape.IsArray() || shape.rank() == 0 ||
      !TopKOrderSupported(shape.element_type())) {
    return false;
  }
  const Shape index_shape = WithMinor(shape, S32, shape.dimensions().back());
  HloInstruction* iota = computation->AddInstruction(
      HloInstruction::Create(HloOpcode::kIota, index_shape, {}));
  iota->mutable_attrs().iota_dimension = shape.rank() - 1;
  TopKValues top = SortedTopK(computation, {topk->operand(0), iota},
                              topk->attrs().k, topk->attrs().largest);
  HloInstruction* tuple = computation->AddInstruction(
      HloInstruction::CreateTuple({top.values, top.indices}));
  if (absl::Status s = computation->ReplaceInstruction(topk, tuple); !s.ok()) {
    return s;
  }
  return true;
}

}  // namespace

bool TopKOrderSupported(PrimitiveType type) {
  return IsSupportedElementType(type) && !IsComplexType(type);
}

TopKValues SortedTopK(HloComputation* computation, TopKValues rows, int64_t k,
                      bool largest) {
  const Shape& shape = rows.values->shape();
  const PrimitiveType type = shape.element_type();
  HloModule* module = computation->parent();
  HloComputation* cmp = module->AddEmbeddedComputation(
      MakeComparator(absl::StrCat("topk_order_", PrimitiveTypeName(type),
                                  largest ? "_largest" : "_smallest"),
                     type, largest),
      computation);
  HloInstruction* sort = computation->AddInstruction(HloInstruction::Create(
      HloOpcode::kSort, Shape::Tuple({shape, rows.indices->shape()}),
      {rows.values, rows.indices}));
  sort->set_called_computations({cmp});
  sort->mutable_attrs().dimensions = {shape.rank() - 1};
  sort->mutable_attrs().is_stable = true;
  TopKValues top;
  top.values =
      SliceMinor(computation,
                 computation->AddInstruction(
                     HloInstruction::CreateGetTupleElement(shape, sort, 0)),
                 k);
  top.indices = SliceMinor(
      computation,
      computation->AddInstruction(HloInstruction::CreateGetTupleElement(
          rows.indices->shape(), sort, 1)),
      k);
  return top;
}

absl::StatusOr<bool> TopKExpander::Run(HloModule* module) {
  return RewriteEach(module, HloOpcode::kTopK, "topks-expanded",
                     [&](HloComputation* computation, HloInstruction* instr) {
                       return Expand(computation, instr);
                     });
}

}  // namespace hloc
