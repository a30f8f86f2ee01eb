#include "passes/triangular_solve_expander.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/substitute.h"
#include "hlo/computation.h"
#include "hlo/primitive_type.h"
#include "passes/hlo_template.h"

namespace hloc {
namespace {

// Substitution: M X = B, M [$1,$2,$2] triangular, B and X [$1,$2,$3].
// $0: element type; $4: the row of iteration t ("t" from the top, or
// "last - t" from the bottom); $5: the comparison direction that selects
// the known part of a row (LT below the diagonal, GT above); $6: the
// division by the diagonal, or nothing with a unit diagonal.
constexpr char kSubstitution[] = R"(
HloModule triangular_solve_expansion

cond {
  s = (s32[], $0[$1,$2,$2], $0[$1,$2,$3], $0[$1,$2,$3]) parameter(0)
  t = s32[] get-tuple-element(s), index=0
  m = s32[] constant($2)
  ROOT more = pred[] compare(t, m), direction=LT
}

body {
  s = (s32[], $0[$1,$2,$2], $0[$1,$2,$3], $0[$1,$2,$3]) parameter(0)
  t = s32[] get-tuple-element(s), index=0
  a = $0[$1,$2,$2] get-tuple-element(s), index=1
  b = $0[$1,$2,$3] get-tuple-element(s), index=2
  x = $0[$1,$2,$3] get-tuple-element(s), index=3
  zero = s32[] constant(0)
  zero_t = $0[] constant($8)
  last = s32[] constant($7)
  i = s32[] $4
  row = $0[$1,1,$2] dynamic-slice(a, zero, i, zero), dynamic_slice_sizes={$1,1,$2}
  k = s32[$1,1,$2] iota(), iota_dimension=2
  i_row = s32[$1,1,$2] broadcast(i), dimensions={}
  known = pred[$1,1,$2] compare(k, i_row), direction=$5
  zeros_row = $0[$1,1,$2] broadcast(zero_t), dimensions={}
  row_known = $0[$1,1,$2] select(known, row, zeros_row)
  dot = $0[$1,1,$3] dot(row_known, x), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}, operand_precision={highest,highest}
  b_row = $0[$1,1,$3] dynamic-slice(b, zero, i, zero), dynamic_slice_sizes={$1,1,$3}
  rest = $0[$1,1,$3] subtract(b_row, dot)
$6
  x_next = $0[$1,$2,$3] dynamic-update-slice(x, x_row, zero, i, zero)
  one = s32[] constant(1)
  t_next = s32[] add(t, one)
  ROOT next = (s32[], $0[$1,$2,$2], $0[$1,$2,$3], $0[$1,$2,$3]) tuple(t_next, a, b, x_next)
}
)";

// $0: element type, $1: batch, $3: columns of X.
constexpr char kDivide[] = R"(  diagonal = $0[$1,1,1] dynamic-slice(a, zero, i, i), dynamic_slice_sizes={$1,1,1}
  diagonal_flat = $0[$1] reshape(diagonal)
  diagonal_row = $0[$1,1,$3] broadcast(diagonal_flat), dimensions={0}
  x_row = $0[$1,1,$3] divide(rest, diagonal_row))";
constexpr char kUnit[] = R"(  x_row = $0[$1,1,$3] copy(rest))";

std::string Expansion(const HloInstruction& instr) {
  const TriangularSolveOptions& o = *instr.attrs().triangular_solve_options;
  const Shape& a_shape = instr.operand(0)->shape();
  const Shape& b_shape = instr.operand(1)->shape();
  const PrimitiveType type = b_shape.element_type();
  const std::string t(PrimitiveTypeName(type));
  const int64_t rank = b_shape.rank();
  const int64_t m = a_shape.dimensions(rank - 1);
  // B's columns after a right-side solve is transposed into a left one.
  const int64_t k = b_shape.dimensions(o.left_side ? rank - 1 : rank - 2);
  int64_t batch = 1;
  for (int64_t d = 0; d + 2 < rank; ++d) batch *= b_shape.dimensions(d);
  // M is op(A) (left) or op(A)^T (right): A itself exactly when op and the
  // side's transpose cancel.
  const bool transpose_a = (o.transpose_a != 1) != !o.left_side;
  const bool lower = o.lower != transpose_a;
  const std::string square = absl::StrCat(t, "[", batch, ",", m, ",", m, "]");
  const std::string rhs = absl::StrCat(t, "[", batch, ",", m, ",", k, "]");
  const std::string rhs_given = absl::StrCat(
      t, "[", batch, ",", b_shape.dimensions(rank - 2), ",",
      b_shape.dimensions(rank - 1), "]");
  const std::string state =
      absl::StrCat("(s32[], ", square, ", ", rhs, ", ", rhs, ")");
  const std::string swap = ", dimensions={0,2,1}";
  const std::string divide = absl::Substitute(
      o.unit_diagonal ? kUnit : kDivide, t, batch, m, k);
  const std::string row =
      lower ? "copy(t)" : "subtract(last, t)";
  const bool complex = IsComplexType(type);
  // A complex zero is written as its (real, imaginary) pair.
  const std::string zero = complex ? "(0, 0)" : "0";
  // ADJOINT conjugates A as well (for either side: X A^H = B is
  // conj(A) X^T = B^T); for real types it is TRANSPOSE. HLO has no
  // conjugate op: conj(a) = complex(real(a), -imag(a)).
  std::string a_square = "a_flat";
  std::string conjugate;
  if (complex && o.transpose_a == 3) {
    const std::string parts = absl::StrCat(
        PrimitiveTypeName(ComplexComponentType(type)), "[", batch, ",", m,
        ",", m, "]");
    conjugate = absl::StrCat(
        "  a_re = ", parts, " real(a_flat)\n  a_im = ", parts,
        " imag(a_flat)\n  a_im_neg = ", parts, " negate(a_im)\n  a_conj = ",
        square, " complex(a_re, a_im_neg)\n");
    a_square = "a_conj";
  }
  return absl::StrCat(
      absl::Substitute(kSubstitution, t, batch, m, k, row,
                       lower ? "LT" : "GT", divide, m - 1, zero),
      "ENTRY expansion {\n",
      "  a = ", a_shape.ToString(false), " parameter(0)\n",
      "  b = ", b_shape.ToString(false), " parameter(1)\n",
      "  a_flat = ", square, " reshape(a)\n", conjugate,
      "  m = ", square, transpose_a ? " transpose(" : " copy(", a_square, ")",
      transpose_a ? swap : "", "\n",
      "  b_flat = ", rhs_given, " reshape(b)\n",
      "  rhs = ", rhs, o.left_side ? " copy(b_flat)" : " transpose(b_flat)",
      o.left_side ? "" : swap, "\n",
      "  zero = s32[] constant(0)\n",
      "  zero_t = ", t, "[] constant(", zero, ")\n",
      "  x = ", rhs, " broadcast(zero_t), dimensions={}\n",
      "  init = ", state, " tuple(zero, m, rhs, x)\n",
      "  loop = ", state, " while(init), condition=cond, body=body\n",
      "  solved = ", rhs, " get-tuple-element(loop), index=3\n",
      "  out = ", rhs_given, o.left_side ? " copy(solved)" : " transpose(solved)",
      o.left_side ? "" : swap, "\n",
      "  ROOT result = ", b_shape.ToString(false), " reshape(out)\n}\n");
}

}  // namespace

absl::StatusOr<bool> TriangularSolveExpander::Run(HloModule* module) {
  return RewriteEach(
      module, HloOpcode::kTriangularSolve, "triangular-solves-expanded",
      [](HloComputation*, HloInstruction* instr) -> absl::StatusOr<bool> {
        const Shape& shape = instr->shape();
        if (!shape.IsArray() || shape.rank() < 2 ||
            !instr->attrs().triangular_solve_options ||
            !(IsFloatingPointType(shape.element_type()) ||
              IsComplexType(shape.element_type())) ||
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
