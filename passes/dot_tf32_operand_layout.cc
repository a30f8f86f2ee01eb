#include "passes/dot_tf32_operand_layout.h"

#include <vector>

#include "absl/algorithm/container.h"
#include "hlo/computation.h"
#include "passes/permutation.h"

namespace hloc {
namespace {

// When copying an operand pays. The copy costs a read and a write of the
// operand, B*K*min(M,N) elements; the slow gemm's extra time grows as
// B*M*N*K (measured: 0.63 against 0.36-0.40 ms at 4096^3 in TF32, about
// 4e-15 s per multiply-add; gemm_layout_probe.py). Per element copied
// that is N multiply-adds (N the other operand's free size), against the
// copy's 8 bytes at ~4 TB/s (2e-12 s): the copy pays from N ~ 500; 1024
// leaves a margin for smaller gemms' lower rates.
constexpr int64_t kMinOtherFreeSize = 1024;
// And the gemm must save more than a kernel launch and its ramp (a few
// microseconds): 2^31 multiply-adds save ~8 us at the rate above.
constexpr int64_t kMinMultiplyAdds = int64_t{1} << 31;

int64_t Product(const Shape& shape, const std::vector<int64_t>& dims) {
  int64_t p = 1;
  for (int64_t d : dims) p *= shape.dimensions(d);
  return p;
}

// An operand in gemm order ([batch, free, contracting] or [batch,
// contracting, free], dot-operand-order's forms) is K-major when its
// minor dimension is a contracting one.
bool IsKMajor(const Shape& shape, const std::vector<int64_t>& contracting) {
  return absl::c_linear_search(contracting, shape.rank() - 1);
}

absl::StatusOr<bool> MakeOneKMajor(HloComputation* computation,
                                   HloInstruction* dot) {
  if (!dot->attrs().dot_dimension_numbers || dot->operand_count() != 2 ||
      !dot->shape().IsArray() || !dot->shape().HasDescendingLayout()) {
    return false;
  }
  HloInstruction* lhs = dot->operand(0);
  HloInstruction* rhs = dot->operand(1);
  const Shape& ls = lhs->shape();
  const Shape& rs = rhs->shape();
  if (!ls.IsArray() || !rs.IsArray() || !ls.HasDescendingLayout() ||
      !rs.HasDescendingLayout() || ls.element_type() != F32 ||
      rs.element_type() != F32 ||
      !AllowsTf32(F32, dot->attrs().precision_config)) {
    return false;
  }
  DotDimensionNumbers dnums = *dot->attrs().dot_dimension_numbers;
  if (IsKMajor(ls, dnums.lhs_contracting_dimensions) ||
      IsKMajor(rs, dnums.rhs_contracting_dimensions)) {
    return false;
  }
  const std::vector<int64_t> lhs_free =
      DotFreeDimensions(ls.rank(), dnums.lhs_batch_dimensions,
                        dnums.lhs_contracting_dimensions);
  const std::vector<int64_t> rhs_free =
      DotFreeDimensions(rs.rank(), dnums.rhs_batch_dimensions,
                        dnums.rhs_contracting_dimensions);
  const int64_t batch = Product(ls, dnums.lhs_batch_dimensions);
  const int64_t m = Product(ls, lhs_free);
  const int64_t n = Product(rs, rhs_free);
  const int64_t k = Product(ls, dnums.lhs_contracting_dimensions);
  // Copy the smaller operand; the other's free size is what pays for it.
  const bool copy_lhs = m <= n;
  if ((copy_lhs ? n : m) < kMinOtherFreeSize) return false;
  if (static_cast<double>(batch) * m * n * k < kMinMultiplyAdds) return false;
  std::vector<int64_t>& batch_dims = copy_lhs ? dnums.lhs_batch_dimensions
                                              : dnums.rhs_batch_dimensions;
  std::vector<int64_t>& contracting = copy_lhs
                                          ? dnums.lhs_contracting_dimensions
                                          : dnums.rhs_contracting_dimensions;
  const std::vector<int64_t>& free = copy_lhs ? lhs_free : rhs_free;
  // [batch..., free..., contracting...], each run in the order the dot
  // pairs it; the dot's dimension numbers follow the dimensions.
  std::vector<int64_t> order = batch_dims;
  order.insert(order.end(), free.begin(), free.end());
  order.insert(order.end(), contracting.begin(), contracting.end());
  RenumberForTranspose(order, &batch_dims, &contracting);
  if (copy_lhs) {
    lhs = AddTranspose(computation, lhs, order);
  } else {
    rhs = AddTranspose(computation, rhs, order);
  }
  if (absl::Status s = ReplaceDotOperands(computation, dot, lhs, rhs, dnums);
      !s.ok()) {
    return s;
  }
  return true;
}

}  // namespace

absl::StatusOr<bool> DotTf32OperandLayout::Run(HloModule* module) {
  return RewriteEach(module, HloOpcode::kDot, "dots-given-a-k-major-operand",
                     [&](HloComputation* computation, HloInstruction* instr) {
                       return MakeOneKMajor(computation, instr);
                     });
}

}  // namespace hloc
