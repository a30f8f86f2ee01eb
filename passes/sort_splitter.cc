#include "passes/sort_splitter.h"

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "hlo/computation.h"
#include "hlo/module.h"
#include "passes/computation_builder.h"

namespace hloc {
namespace {

// Whether `cmp` can be evaluated on arrays by cloning its instructions at
// the arrays' shape: scalar parameters, constants and elementwise ops only.
bool ClonesElementwise(const HloComputation& cmp) {
  for (const HloInstruction* instr : cmp.instructions()) {
    const HloOpcode op = instr->opcode();
    if (!instr->shape().IsScalar() || instr->HasSideEffect()) return false;
    if (op == HloOpcode::kParameter || op == HloOpcode::kConstant) continue;
    if (!instr->IsElementwise() && op != HloOpcode::kBitcastConvert) {
      return false;
    }
  }
  return true;
}

// The comparator `cmp` applied to `args` (one per parameter), all of
// dimensions `dims`: its instructions cloned into `e`'s computation, at
// `dims` (empty: scalars, any instruction; else ClonesElementwise must
// hold). Returns the clone of its root.
HloInstruction* ApplyComparator(ComputationBuilder& e, const HloComputation& cmp,
                                const std::vector<HloInstruction*>& args,
                                const std::vector<int64_t>& dims) {
  absl::flat_hash_map<const HloInstruction*, HloInstruction*> clones;
  for (const HloInstruction* instr : cmp.MakeInstructionPostOrder()) {
    HloInstruction* clone;
    if (instr->opcode() == HloOpcode::kParameter) {
      clone = args[instr->parameter_number()];
    } else if (instr->opcode() == HloOpcode::kConstant && !dims.empty()) {
      clone = e.Splat(instr->literal(), dims);
    } else {
      std::vector<HloInstruction*> operands;
      for (const HloInstruction* operand : instr->operands()) {
        operands.push_back(clones.at(operand));
      }
      clone = e.Add(instr->CloneWithNewOperands(
          dims.empty() ? instr->shape()
                       : Shape::Array(instr->shape().element_type(), dims),
          operands));
    }
    clones[instr] = clone;
  }
  return clones.at(cmp.root_instruction());
}

// Operand values and the position of a set of elements: the sort's
// operands, then the s32 position.
using Elements = std::vector<HloInstruction*>;

// before(a, b) of the header, on elements of dimensions `dims`, emitted
// into `e`'s computation.
HloInstruction* EmitBefore(ComputationBuilder& e, const HloComputation& cmp,
                           const Elements& a, const Elements& b, int64_t length,
                           const std::vector<int64_t>& dims) {
  const size_t n = a.size() - 1;
  Elements ab, ba;  // cmp's parameters: op0 of each side, op1 of each, ...
  for (size_t k = 0; k < n; ++k) {
    ab.insert(ab.end(), {a[k], b[k]});
    ba.insert(ba.end(), {b[k], a[k]});
  }
  HloInstruction* a_pos = a[n];
  HloInstruction* b_pos = b[n];
  HloInstruction* end = e.Splat(
      Literal::CreateR0<int32_t>(S32, static_cast<int32_t>(length)), dims);
  // Emitted one at a time: the order of the instructions is deterministic.
  HloInstruction* a_real = e.Compare(a_pos, end, ComparisonDirection::kLt);
  HloInstruction* b_padding = e.Compare(b_pos, end, ComparisonDirection::kGe);
  HloInstruction* a_less = ApplyComparator(e, cmp, ab, dims);
  HloInstruction* b_less = ApplyComparator(e, cmp, ba, dims);
  HloInstruction* a_earlier = e.Compare(a_pos, b_pos, ComparisonDirection::kLt);
  HloInstruction* tie_to_a =
      e.Binary(HloOpcode::kAnd, e.Not(b_less), a_earlier);
  HloInstruction* a_first = e.Binary(HloOpcode::kOr, a_less, tie_to_a);
  HloInstruction* b_after = e.Binary(HloOpcode::kOr, b_padding, a_first);
  return e.Binary(HloOpcode::kAnd, a_real, b_after);
}

// Rewrites one long sort.
class SortSplit {
 public:
  SortSplit(HloComputation* computation, HloInstruction* sort, int64_t chunk)
      : computation_(computation),
        sort_(sort),
        e_(computation),
        cmp_(*sort->to_apply()),
        dim_(sort->dimensions(0)),
        length_(sort->operand(0)->shape().dimensions(dim_)),
        rows_(sort->operand(0)->shape().ElementCount() / length_),
        chunk_(chunk),
        elementwise_(ClonesElementwise(cmp_)) {
    padded_ = chunk_;
    while (padded_ < length_) padded_ *= 2;
  }

  absl::Status Run() {
    MakeWrappedComparator();
    Elements rows = ToRows();
    rows = SortChunks(rows);
    for (int64_t run = chunk_; run < padded_; run *= 2) {
      rows = ReverseOddRuns(rows, run);
      for (int64_t stride = run; stride >= chunk_; stride /= 2) {
        rows = HalfClean(rows, stride);
      }
      rows = SortChunks(rows);
    }
    if (absl::Status s =
            computation_->ReplaceInstruction(sort_, FromRows(rows));
        !s.ok()) {
      return s;
    }
    // The positions' last reshape, which nothing reads.
    return computation_->RemoveInstructionAndUnusedOperands(rows.back());
  }

 private:
  int64_t operands() const { return sort_->operand_count(); }

  // The sort dimension last, then the others: the row order.
  std::vector<int64_t> RowPermutation() const {
    std::vector<int64_t> perm;
    const int64_t rank = sort_->operand(0)->shape().rank();
    for (int64_t d = 0; d < rank; ++d) {
      if (d != dim_) perm.push_back(d);
    }
    perm.push_back(dim_);
    return perm;
  }

  // before() as a sort comparator: (a_0, b_0, ..., a_pos, b_pos) scalars.
  void MakeWrappedComparator() {
    auto wrapped = std::make_unique<HloComputation>(
        absl::StrCat(cmp_.name(), ".split_order"));
    ComputationBuilder e(wrapped.get());
    Elements a, b;
    for (int64_t k = 0; k <= operands(); ++k) {
      const PrimitiveType type =
          k < operands() ? sort_->operand(k)->shape().element_type() : S32;
      for (Elements* side : {&a, &b}) {
        side->push_back(wrapped->AddParameter(HloInstruction::CreateParameter(
            2 * k + (side == &b), Shape::Scalar(type),
            absl::StrCat(side == &a ? "a" : "b", k))));
      }
    }
    wrapped->set_root_instruction(EmitBefore(e, cmp_, a, b, length_, {}));
    wrapped_ = computation_->parent()->AddEmbeddedComputation(
        std::move(wrapped), computation_);
  }

  // The operands as [R, P] rows, padded, and their positions.
  Elements ToRows() {
    Elements rows;
    for (HloInstruction* operand : sort_->operands()) {
      // Padding is ordered by position: no comparison reads its values.
      rows.push_back(e_.PadRows(
          e_.Reshape(e_.Transpose(operand, RowPermutation()), {rows_, length_}),
          padded_, [&] {
            return e_.Constant(
                Literal(Shape::Scalar(operand->shape().element_type())));
          }));
    }
    rows.push_back(e_.Iota(S32, {rows_, padded_}, 1));
    return rows;
  }

  // Every C-chunk of the rows sorted by before(): the kernel's sort.
  Elements SortChunks(const Elements& rows) {
    std::vector<Shape> shapes;
    Elements chunks;
    for (HloInstruction* x : rows) {
      chunks.push_back(e_.Reshape(x, {rows_ * (padded_ / chunk_), chunk_}));
      shapes.push_back(chunks.back()->shape());
    }
    HloInstruction* sort = e_.Add(
        HloInstruction::Create(HloOpcode::kSort, Shape::Tuple(shapes), chunks));
    sort->set_called_computations({wrapped_});
    sort->mutable_attrs().dimensions = {1};
    sort->mutable_attrs().is_stable = true;
    Elements sorted;
    for (size_t k = 0; k < rows.size(); ++k) {
      sorted.push_back(e_.Reshape(e_.Element(sort, k), {rows_, padded_}));
    }
    return sorted;
  }

  // The pairs' halves of 2 * `half` elements: [R, P / (2 half), 2, half].
  std::vector<int64_t> PairDims(int64_t half) const {
    return {rows_, padded_ / (2 * half), 2, half};
  }

  // Each pair of sorted runs of `run` made one bitonic sequence: the
  // second run reversed (descending after ascending).
  Elements ReverseOddRuns(const Elements& rows, int64_t run) {
    const std::vector<int64_t> dims = PairDims(run);
    Elements result;
    for (HloInstruction* x : rows) {
      HloInstruction* pairs = e_.Reshape(x, dims);
      HloInstruction* first =
          e_.Slice(pairs, {0, 0, 0, 0}, {dims[0], dims[1], 1, dims[3]});
      HloInstruction* second =
          e_.Slice(pairs, {0, 0, 1, 0}, {dims[0], dims[1], 2, dims[3]});
      result.push_back(e_.Reshape(
          e_.Concatenate(first, e_.Reverse(second, 3), 2), {rows_, padded_}));
    }
    return result;
  }

  // A bitonic half-cleaner: element i of each block of 2 * `stride` and
  // element i + stride swap where the second is before the first.
  Elements HalfClean(const Elements& rows, int64_t stride) {
    const std::vector<int64_t> dims = PairDims(stride);
    const std::vector<int64_t> half = {dims[0], dims[1], 1, dims[3]};
    Elements lo, hi;
    for (HloInstruction* x : rows) {
      HloInstruction* pairs = e_.Reshape(x, dims);
      lo.push_back(e_.Slice(pairs, {0, 0, 0, 0}, half));
      hi.push_back(
          e_.Slice(pairs, {0, 0, 1, 0}, {dims[0], dims[1], 2, dims[3]}));
    }
    HloInstruction* swap = Before(hi, lo, half);
    Elements result;
    for (size_t k = 0; k < rows.size(); ++k) {
      HloInstruction* new_lo = e_.Select(swap, hi[k], lo[k]);
      HloInstruction* new_hi = e_.Select(swap, lo[k], hi[k]);
      result.push_back(
          e_.Reshape(e_.Concatenate(new_lo, new_hi, 2), {rows_, padded_}));
    }
    return result;
  }

  // before(a, b) elementwise over arrays of `dims`: the comparator's
  // clone where it clones elementwise (it fuses), else a map of the
  // wrapped comparator.
  HloInstruction* Before(const Elements& a, const Elements& b,
                         const std::vector<int64_t>& dims) {
    if (elementwise_) return EmitBefore(e_, cmp_, a, b, length_, dims);
    Elements args;
    for (size_t k = 0; k < a.size(); ++k) args.insert(args.end(), {a[k], b[k]});
    HloInstruction* map = e_.Add(HloInstruction::Create(
        HloOpcode::kMap, Shape::Array(PRED, dims), args));
    map->set_called_computations({wrapped_});
    map->mutable_attrs().dimensions = {0, 1, 2, 3};
    return map;
  }

  // The sorted rows back in the operands' shapes and layouts, as the
  // sort's result.
  HloInstruction* FromRows(const Elements& rows) {
    const std::vector<int64_t> perm = RowPermutation();
    std::vector<int64_t> inverse(perm.size());
    for (size_t i = 0; i < perm.size(); ++i) inverse[perm[i]] = i;
    Elements results;
    for (int64_t k = 0; k < operands(); ++k) {
      const Shape& want = sort_->shape().IsTuple()
                              ? sort_->shape().tuple_shapes(k)
                              : sort_->shape();
      HloInstruction* x = e_.Slice(rows[k], {0, 0}, {rows_, length_});
      std::vector<int64_t> permuted;
      for (int64_t d : perm) permuted.push_back(want.dimensions(d));
      x = e_.Transpose(e_.Reshape(x, permuted), inverse);
      if (x->shape() != want) {
        x = e_.Add(HloInstruction::Create(HloOpcode::kCopy, want, {x}));
      }
      results.push_back(x);
    }
    if (!sort_->shape().IsTuple()) return results[0];
    return e_.Add(HloInstruction::CreateTuple(results));
  }

  HloComputation* computation_;
  HloInstruction* sort_;
  ComputationBuilder e_;
  const HloComputation& cmp_;
  HloComputation* wrapped_ = nullptr;
  const int64_t dim_;
  const int64_t length_;  // L
  const int64_t rows_;    // R
  const int64_t chunk_;   // C
  int64_t padded_;        // P
  const bool elementwise_;
};

bool ShouldSplit(const HloInstruction& sort, int64_t chunk) {
  if (sort.operand_count() == 0 || sort.dimensions().size() != 1 ||
      sort.to_apply() == nullptr) {
    return false;
  }
  const Shape& shape = sort.operand(0)->shape();
  for (const HloInstruction* operand : sort.operands()) {
    if (!operand->shape().IsArray() || !operand->shape().is_static()) {
      return false;
    }
  }
  const int64_t length = shape.dimensions(sort.dimensions(0));
  return length > chunk && length <= SortSplitter::kMaxSplitRowLength;
}

}  // namespace

absl::StatusOr<bool> SortSplitter::Run(HloModule* module) {
  return RewriteEach(
      module, HloOpcode::kSort, "sorts-split",
      [&](HloComputation* computation,
          HloInstruction* sort) -> absl::StatusOr<bool> {
        if (!ShouldSplit(*sort, max_row_length_)) return false;
        if (absl::Status s =
                SortSplit(computation, sort, max_row_length_).Run();
            !s.ok()) {
          return s;
        }
        return true;
      });
}

}  // namespace hloc
