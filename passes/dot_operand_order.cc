#include "passes/dot_operand_order.h"

#include <vector>

#include "absl/algorithm/container.h"
#include "hlo/computation.h"
#include "passes/permutation.h"

namespace hloc {
namespace {

std::vector<int64_t> Concat(std::vector<int64_t> a,
                            const std::vector<int64_t>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// True when the operand's dimensions, in order, are the batch run then the
// free and contracting runs (either first), each run in the order the dot
// pairs them: a strided batch of matrices.
bool IsGemmOrder(int64_t rank, const std::vector<int64_t>& batch,
                 const std::vector<int64_t>& contracting) {
  const std::vector<int64_t> free = DotFreeDimensions(rank, batch, contracting);
  return IsIdentityPermutation(Concat(Concat(batch, free), contracting)) ||
         IsIdentityPermutation(Concat(Concat(batch, contracting), free));
}

// The order to transpose an operand into: [batch..., free...,
// contracting...] or [batch..., contracting..., free...], whichever keeps
// the operand's minor dimension minor (the transpose then moves whole
// rows, reading and writing them contiguously); else the one
// `contracting_last` names (the usual lhs and rhs forms).
std::vector<int64_t> GemmOrder(int64_t rank, const std::vector<int64_t>& batch,
                               const std::vector<int64_t>& contracting,
                               bool contracting_last) {
  const std::vector<int64_t> free = DotFreeDimensions(rank, batch, contracting);
  if (absl::c_linear_search(contracting, rank - 1)) contracting_last = true;
  if (absl::c_linear_search(free, rank - 1)) contracting_last = false;
  return contracting_last ? Concat(Concat(batch, free), contracting)
                          : Concat(Concat(batch, contracting), free);
}

absl::StatusOr<bool> Reorder(HloComputation* computation, HloInstruction* dot) {
  if (!dot->attrs().dot_dimension_numbers || dot->operand_count() != 2 ||
      !dot->shape().IsArray() || !dot->shape().HasDescendingLayout()) {
    return false;
  }
  HloInstruction* lhs = dot->operand(0);
  HloInstruction* rhs = dot->operand(1);
  if (!lhs->shape().IsArray() || !rhs->shape().IsArray() ||
      !lhs->shape().HasDescendingLayout() ||
      !rhs->shape().HasDescendingLayout()) {
    return false;
  }
  DotDimensionNumbers dnums = *dot->attrs().dot_dimension_numbers;
  const int64_t lhs_rank = lhs->shape().rank();
  const int64_t rhs_rank = rhs->shape().rank();
  const bool lhs_ok = IsGemmOrder(lhs_rank, dnums.lhs_batch_dimensions,
                                  dnums.lhs_contracting_dimensions);
  const bool rhs_ok = IsGemmOrder(rhs_rank, dnums.rhs_batch_dimensions,
                                  dnums.rhs_contracting_dimensions);
  if (lhs_ok && rhs_ok) return false;
  if (!lhs_ok) {
    const std::vector<int64_t> order =
        GemmOrder(lhs_rank, dnums.lhs_batch_dimensions,
                  dnums.lhs_contracting_dimensions, /*contracting_last=*/true);
    lhs = AddTranspose(computation, lhs, order);
    RenumberForTranspose(order, &dnums.lhs_batch_dimensions,
                         &dnums.lhs_contracting_dimensions);
  }
  if (!rhs_ok) {
    const std::vector<int64_t> order =
        GemmOrder(rhs_rank, dnums.rhs_batch_dimensions,
                  dnums.rhs_contracting_dimensions, /*contracting_last=*/false);
    rhs = AddTranspose(computation, rhs, order);
    RenumberForTranspose(order, &dnums.rhs_batch_dimensions,
                         &dnums.rhs_contracting_dimensions);
  }
  if (absl::Status s = ReplaceDotOperands(computation, dot, lhs, rhs, dnums);
      !s.ok()) {
    return s;
  }
  return true;
}

}  // namespace

absl::StatusOr<bool> DotOperandOrder::Run(HloModule* module) {
  return RewriteEach(module, HloOpcode::kDot, "dots-reordered",
                     [&](HloComputation* computation, HloInstruction* instr) {
                       return Reorder(computation, instr);
                     });
}

}  // namespace hloc
