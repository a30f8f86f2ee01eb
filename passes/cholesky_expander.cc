#include "passes/cholesky_expander.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/substitute.h"
#include "hlo/computation.h"
#include "hlo/primitive_type.h"
#include "passes/hlo_template.h"

namespace hloc {
namespace {

// $0: the element type, $1: batch, $2: n. A is [$1,$2,$2], lower.
constexpr char kCholeskyLower[] = R"(
HloModule cholesky_expansion

cond {
  s = (s32[], $0[$1,$2,$2], $0[$1,$2,$2]) parameter(0)
  j = s32[] get-tuple-element(s), index=0
  n = s32[] constant($2)
  ROOT more = pred[] compare(j, n), direction=LT
}

body {
  s = (s32[], $0[$1,$2,$2], $0[$1,$2,$2]) parameter(0)
  j = s32[] get-tuple-element(s), index=0
  a = $0[$1,$2,$2] get-tuple-element(s), index=1
  l = $0[$1,$2,$2] get-tuple-element(s), index=2
  zero = s32[] constant(0)
  zero_t = $0[] constant(0)
  row = $0[$1,1,$2] dynamic-slice(l, zero, j, zero), dynamic_slice_sizes={$1,1,$2}
  k = s32[$1,1,$2] iota(), iota_dimension=2
  j_row = s32[$1,1,$2] broadcast(j), dimensions={}
  left = pred[$1,1,$2] compare(k, j_row), direction=LT
  zeros_row = $0[$1,1,$2] broadcast(zero_t), dimensions={}
  row_left = $0[$1,1,$2] select(left, row, zeros_row)
  dot = $0[$1,$2,1] dot(l, row_left), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={2}, operand_precision={highest,highest}
  a_col = $0[$1,$2,1] dynamic-slice(a, zero, zero, j), dynamic_slice_sizes={$1,$2,1}
  c = $0[$1,$2,1] subtract(a_col, dot)
  c_jj = $0[$1,1,1] dynamic-slice(c, zero, j, zero), dynamic_slice_sizes={$1,1,1}
  d = $0[$1,1,1] sqrt(c_jj)
  d_flat = $0[$1] reshape(d)
  d_col = $0[$1,$2,1] broadcast(d_flat), dimensions={0}
  q = $0[$1,$2,1] divide(c, d_col)
  i = s32[$1,$2,1] iota(), iota_dimension=1
  j_col = s32[$1,$2,1] broadcast(j), dimensions={}
  below = pred[$1,$2,1] compare(i, j_col), direction=GT
  diagonal = pred[$1,$2,1] compare(i, j_col), direction=EQ
  zeros_col = $0[$1,$2,1] broadcast(zero_t), dimensions={}
  under = $0[$1,$2,1] select(below, q, zeros_col)
  col = $0[$1,$2,1] select(diagonal, d_col, under)
  l_next = $0[$1,$2,$2] dynamic-update-slice(l, col, zero, zero, j)
  one = s32[] constant(1)
  j_next = s32[] add(j, one)
  ROOT next = (s32[], $0[$1,$2,$2], $0[$1,$2,$2]) tuple(j_next, a, l_next)
}

)";

// The whole expansion: A reshaped to [batch, n, n] (transposed first for an
// upper factor), the loop, and the factor reshaped (and transposed) back.
std::string Expansion(const HloInstruction& instr) {
  const Shape& shape = instr.shape();
  const PrimitiveType type = shape.element_type();
  const std::string t(PrimitiveTypeName(type));
  const int64_t rank = shape.rank();
  const int64_t n = shape.dimensions(rank - 1);
  int64_t batch = 1;
  for (int64_t d = 0; d + 2 < rank; ++d) batch *= shape.dimensions(d);
  const std::string square = absl::StrCat(t, "[", batch, ",", n, ",", n, "]");
  const std::string state = absl::StrCat("(s32[], ", square, ", ", square, ")");
  const std::string full = shape.ToString(/*print_layout=*/false);
  // An upper factor is the transpose of the lower factor of the transpose.
  const std::string transposed =
      instr.attrs().cholesky_lower ? "" : ", dimensions={0,2,1}";
  const char* move = instr.attrs().cholesky_lower ? "copy" : "transpose";
  return absl::StrCat(
      absl::Substitute(kCholeskyLower, t, batch, n), "ENTRY expansion {\n",
      "  a = ", full, " parameter(0)\n",
      "  flat = ", square, " reshape(a)\n",
      "  input = ", square, " ", move, "(flat)", transposed, "\n",
      "  zero = s32[] constant(0)\n",
      "  zero_t = ", t, "[] constant(0)\n",
      "  l = ", square, " broadcast(zero_t), dimensions={}\n",
      "  init = ", state, " tuple(zero, input, l)\n",
      "  loop = ", state, " while(init), condition=cond, body=body\n",
      "  factor = ", square, " get-tuple-element(loop), index=2\n",
      "  out = ", square, " ", move, "(factor)", transposed, "\n",
      "  ROOT result = ", full, " reshape(out)\n}\n");
}

}  // namespace

absl::StatusOr<bool> CholeskyExpander::Run(HloModule* module) {
  return RewriteEach(
      module, HloOpcode::kCholesky, "choleskys-expanded",
      [](HloComputation*, HloInstruction* instr) -> absl::StatusOr<bool> {
        const Shape& shape = instr->shape();
        if (!shape.IsArray() || shape.rank() < 2 ||
            !IsFloatingPointType(shape.element_type()) ||
            ByteWidth(shape.element_type()) < 2) {
          return false;
        }
        absl::StatusOr<HloInstruction*> replaced =
            ReplaceWithTemplate(instr, Expansion(*instr));
        if (!replaced.ok()) return replaced.status();
        return true;
      });
}

}  // namespace hloc
