#include "passes/triangular_solve_expander.h"

#include <algorithm>
#include <initializer_list>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
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
constexpr char kDivide[] =
    R"(  diagonal = $0[$1,1,1] dynamic-slice(a, zero, i, i), dynamic_slice_sizes={$1,1,1}
  diagonal_flat = $0[$1] reshape(diagonal)
  diagonal_row = $0[$1,1,$3] broadcast(diagonal_flat), dimensions={0}
  x_row = $0[$1,1,$3] divide(rest, diagonal_row))";
constexpr char kUnit[] = R"(  x_row = $0[$1,1,$3] copy(rest))";

// The problem brought to M X = B: M [batch, m, m] triangular (lower or
// not), B and X [batch, m, k].
struct Problem {
  PrimitiveType type = F32;
  std::string t;  // its name
  int64_t batch = 1, m = 0, k = 0;
  bool lower = true, unit = false, complex = false;
  std::string Shape(int64_t rows, int64_t columns,
                    const std::string& type = "") const {
    return absl::StrCat(type.empty() ? t : type, "[", batch, ",", rows, ",",
                        columns, "]");
  }
};

// The substitution loop's computations, and the ENTRY lines that run it on
// `m` and `rhs` into `solved`.
std::string SubstitutionComputations(const Problem& p) {
  const std::string divide =
      absl::Substitute(p.unit ? kUnit : kDivide, p.t, p.batch, p.m, p.k);
  return absl::Substitute(kSubstitution, p.t, p.batch, p.m, p.k,
                          p.lower ? "copy(t)" : "subtract(last, t)",
                          p.lower ? "LT" : "GT", divide, p.m - 1,
                          p.complex ? "(0, 0)" : "0");
}

std::string SubstitutionLines(const Problem& p) {
  const std::string square = p.Shape(p.m, p.m), rhs = p.Shape(p.m, p.k);
  const std::string state =
      absl::StrCat("(s32[], ", square, ", ", rhs, ", ", rhs, ")");
  std::string out = "  zero = s32[] constant(0)\n";
  absl::StrAppend(&out, "  zero_t = ", p.t, "[] constant(",
                  p.complex ? "(0, 0)" : "0", ")\n");
  absl::StrAppend(&out, "  x = ", rhs, " broadcast(zero_t), dimensions={}\n");
  absl::StrAppend(&out, "  init = ", state, " tuple(zero, m, rhs, x)\n");
  absl::StrAppend(&out, "  loop = ", state,
                  " while(init), condition=cond, body=body\n");
  absl::StrAppend(&out, "  solved = ", rhs,
                  " get-tuple-element(loop), index=3\n");
  return out;
}

// The inverse method's largest square (batch x padded m x padded m): 64 Mi
// elements, 256 MiB of f32 per temporary; larger problems substitute.
constexpr int64_t kMaxInverseElements = int64_t{1} << 26;

// Products of blocks up to this size are summed by a reduce instead of a
// dot: at 32, a level's product is at most 32 terms per element, and one
// fused kernel against a gemm call each.
constexpr int64_t kMaxReducedProduct = 32;

// The side of the inverse method's square: m padded to a power of two.
int64_t InverseSize(int64_t m) {
  int64_t size = 1;
  while (size < m) size *= 2;
  return size;
}

// The compute type of the inverse method: half-precision types compute in
// f32 and round the solution once.
std::string InverseComputeType(const Problem& p) {
  return ByteWidth(p.type) == 2 ? "f32" : p.t;
}

// The inverse method's module header: the sum its reduces apply.
std::string InverseComputations(const Problem& p) {
  const std::string ct = InverseComputeType(p);
  return absl::StrCat(
      "HloModule triangular_solve_expansion\n\nadd_c {\n  x = ", ct,
      "[] parameter(0)\n  y = ", ct, "[] parameter(1)\n  ROOT sum = ", ct,
      "[] add(x, y)\n}\n");
}

// The inverse method's ENTRY lines, from `m` and `rhs` to `solved`:
//   an upper M becomes lower by reversing its rows and columns (J M J, J
//   the reversal; then (J M J)(J X) = J B);
//   L is M's lower triangle (its diagonal ones with unit_diagonal), padded
//   to p = 2^levels >= m with the identity;
//   L's inverse by recursive doubling: the inverses of L's diagonal blocks
//   of size s give those of size 2s, as
//     [A 0; C D]^-1 = [A^-1 0; -D^-1 C A^-1  D^-1]
//   for all blocks of a level at once (two batched dots); level 0 is the
//   reciprocal diagonal;
//   X = L^-1 B, one dot.
// The diagonal blocks of size w of L come without a gather: L's p^2
// elements, padded by p, are q = p / w rows of w p + w elements, and row j
// begins at L[j w, j w]; its first w p elements are w rows of p, whose
// first w columns are block j.
std::string InverseLines(const Problem& p) {
  const std::string ct = InverseComputeType(p);
  const bool half = ct != p.t;
  const std::string zero = p.complex ? "(0, 0)" : "0";
  const std::string one = p.complex ? "(1, 0)" : "1";
  const int64_t size = InverseSize(p.m);
  const int64_t b = p.batch, m = p.m, k = p.k;
  auto shape = [&](std::initializer_list<int64_t> dims,
                   const std::string& type) {
    return absl::StrCat(type, "[", absl::StrJoin(dims, ","), "]");
  };
  auto full = [&](const std::string& type) {
    return shape({b, size, size}, type);
  };
  const std::string highest = "operand_precision={highest,highest}";
  std::string out;
  auto add = [&](const std::string& name, const std::string& type,
                 const std::string& rest) {
    absl::StrAppend(&out, "  ", name, " = ", type, " ", rest, "\n");
  };
  // Lower form, in the compute type.
  std::string ml = "m", rl = "rhs";
  if (!p.lower) {
    add("m_rev", p.Shape(m, m), "reverse(m), dimensions={1,2}");
    add("rhs_rev", p.Shape(m, k), "reverse(rhs), dimensions={1}");
    ml = "m_rev";
    rl = "rhs_rev";
  }
  if (half) {
    add("m_wide", p.Shape(m, m, ct), absl::StrCat("convert(", ml, ")"));
    add("rhs_wide", p.Shape(m, k, ct), absl::StrCat("convert(", rl, ")"));
    ml = "m_wide";
    rl = "rhs_wide";
  }
  add("zero_c", ct + "[]", absl::StrCat("constant(", zero, ")"));
  add("one_c", ct + "[]", absl::StrCat("constant(", one, ")"));
  // L: the triangle, the diagonal (ones where unit or padded), zeros.
  add("l_padded", full(ct),
      absl::StrCat("pad(", ml, ", zero_c), padding=0_0x0_", size - m, "x0_",
                   size - m));
  add("rows", full("s32"), "iota(), iota_dimension=1");
  add("columns", full("s32"), "iota(), iota_dimension=2");
  add("below", full("pred"), "compare(rows, columns), direction=GT");
  add("on_diagonal", full("pred"), "compare(rows, columns), direction=EQ");
  add("zeros", full(ct), "broadcast(zero_c), dimensions={}");
  add("ones", full(ct), "broadcast(one_c), dimensions={}");
  std::string diagonal = "ones";
  if (!p.unit) {
    add("m_s32", "s32[]", absl::StrCat("constant(", m, ")"));
    add("m_splat", full("s32"), "broadcast(m_s32), dimensions={}");
    add("padded_row", full("pred"), "compare(rows, m_splat), direction=GE");
    add("diagonal", full(ct), "select(padded_row, ones, l_padded)");
    diagonal = "diagonal";
  }
  add("strict", full(ct), "select(below, l_padded, zeros)");
  add("l", full(ct),
      absl::StrCat("select(on_diagonal, ", diagonal, ", strict)"));
  add("l_flat", shape({b, size * size}, ct), "reshape(l)");
  add("l_rows", shape({b, size * size + size}, ct),
      absl::StrCat("pad(l_flat, zero_c), padding=0_0x0_", size));
  // The diagonal blocks of width w: [b, size / w, w, w].
  auto blocks = [&](int64_t w) {
    const int64_t q = size / w;
    const std::string n = absl::StrCat("blocks_", w);
    add(n + "_rows", shape({b, q, w * size + w}, ct), "reshape(l_rows)");
    add(n + "_cut", shape({b, q, w * size}, ct),
        absl::StrCat("slice(", n, "_rows), slice={[0:", b, "], [0:", q,
                     "], [0:", w * size, "]}"));
    add(n + "_wide", shape({b, q, w, size}, ct),
        absl::StrCat("reshape(", n, "_cut)"));
    add(n, shape({b, q, w, w}, ct),
        absl::StrCat("slice(", n, "_wide), slice={[0:", b, "], [0:", q,
                     "], [0:", w, "], [0:", w, "]}"));
    return n;
  };
  const std::string d = blocks(1);
  add("ones_1", shape({b, size, 1, 1}, ct), "broadcast(one_c), dimensions={}");
  add("inverse_1", shape({b, size, 1, 1}, ct),
      absl::StrCat("divide(ones_1, ", d, ")"));
  // x y for the [b, q, s, s] blocks x and y: a batched dot, or for small
  // blocks products summed by a reduce, which fusion makes one kernel
  // (a library call per tiny product would cost more than its
  // arithmetic).
  auto product = [&](const std::string& name, const std::string& x,
                     const std::string& y, int64_t q, int64_t s) {
    const std::string square = shape({b, q, s, s}, ct);
    if (s > kMaxReducedProduct) {
      add(name, square,
          absl::StrCat("dot(", x, ", ", y,
                       "), lhs_batch_dims={0,1}, lhs_contracting_dims={3}, "
                       "rhs_batch_dims={0,1}, rhs_contracting_dims={2}, ",
                       highest));
      return;
    }
    // [b, q, i, j, k]: k, the summed index, minor.
    const std::string cube = shape({b, q, s, s, s}, ct);
    add(name + "_x", cube,
        absl::StrCat("broadcast(", x, "), dimensions={0,1,2,4}"));
    add(name + "_y", cube,
        absl::StrCat("broadcast(", y, "), dimensions={0,1,4,3}"));
    add(name + "_terms", cube,
        absl::StrCat("multiply(", name, "_x, ", name, "_y)"));
    add(name, square,
        absl::StrCat("reduce(", name,
                     "_terms, zero_c), dimensions={4}, to_apply=add_c"));
  };
  for (int64_t s = 1; s < size; s *= 2) {
    const int64_t w = 2 * s, q = size / w;
    const std::string ws = absl::StrCat(w);
    const std::string square = shape({b, q, s, s}, ct);
    const std::string block = blocks(w);
    auto slice4 = [&](const std::string& from, int64_t r0, int64_t c0) {
      return absl::StrCat("slice(", from, "), slice={[0:", b, "], [0:", q,
                          "], [", r0, ":", r0 + s, "], [", c0, ":", c0 + s,
                          "]}");
    };
    add("c_" + ws, square, slice4(block, s, 0));
    add("pairs_" + ws, shape({b, q, 2, s, s}, ct),
        absl::StrCat("reshape(inverse_", s, ")"));
    for (int half_index : {0, 1}) {
      const std::string name = half_index == 0 ? "a_" : "d_";
      add(name + ws + "_cut", shape({b, q, 1, s, s}, ct),
          absl::StrCat("slice(pairs_", ws, "), slice={[0:", b, "], [0:", q,
                       "], [", half_index, ":", half_index + 1, "], [0:", s,
                       "], [0:", s, "]}"));
      add(name + ws, square, absl::StrCat("reshape(", name, ws, "_cut)"));
    }
    product("ca_" + ws, "c_" + ws, "a_" + ws, q, s);
    product("dca_" + ws, "d_" + ws, "ca_" + ws, q, s);
    add("lower_left_" + ws, square, absl::StrCat("negate(dca_", ws, ")"));
    add("zeros_" + ws, square, "broadcast(zero_c), dimensions={}");
    add("top_" + ws, shape({b, q, s, w}, ct),
        absl::StrCat("concatenate(a_", ws, ", zeros_", ws,
                     "), dimensions={3}"));
    add("bottom_" + ws, shape({b, q, s, w}, ct),
        absl::StrCat("concatenate(lower_left_", ws, ", d_", ws,
                     "), dimensions={3}"));
    add("inverse_" + ws, shape({b, q, w, w}, ct),
        absl::StrCat("concatenate(top_", ws, ", bottom_", ws,
                     "), dimensions={2}"));
  }
  add("inverse_full", full(ct), absl::StrCat("reshape(inverse_", size, ")"));
  add("inverse", p.Shape(m, m, ct),
      absl::StrCat("slice(inverse_full), slice={[0:", b, "], [0:", m,
                   "], [0:", m, "]}"));
  add("x_lower", p.Shape(m, k, ct),
      absl::StrCat("dot(inverse, ", rl,
                   "), lhs_batch_dims={0}, lhs_contracting_dims={2}, "
                   "rhs_batch_dims={0}, rhs_contracting_dims={1}, ",
                   highest));
  std::string x = "x_lower";
  if (half) {
    add("x_narrow", p.Shape(m, k), "convert(x_lower)");
    x = "x_narrow";
  }
  add("solved", p.Shape(m, k),
      p.lower ? absl::StrCat("copy(", x, ")")
              : absl::StrCat("reverse(", x, "), dimensions={1}"));
  return out;
}

std::string Expansion(const HloInstruction& instr, bool inverse) {
  const TriangularSolveOptions& o = *instr.attrs().triangular_solve_options;
  const Shape& a_shape = instr.operand(0)->shape();
  const Shape& b_shape = instr.operand(1)->shape();
  const PrimitiveType type = b_shape.element_type();
  Problem p;
  p.type = type;
  p.t = std::string(PrimitiveTypeName(type));
  const int64_t rank = b_shape.rank();
  p.m = a_shape.dimensions(rank - 1);
  // B's columns after a right-side solve is transposed into a left one.
  p.k = b_shape.dimensions(o.left_side ? rank - 1 : rank - 2);
  for (int64_t d = 0; d + 2 < rank; ++d) p.batch *= b_shape.dimensions(d);
  // M is op(A) (left) or op(A)^T (right): A itself exactly when op and the
  // side's transpose cancel.
  const bool transpose_a = (o.transpose_a != 1) != !o.left_side;
  p.lower = o.lower != transpose_a;
  p.unit = o.unit_diagonal;
  p.complex = IsComplexType(type);
  const std::string square = p.Shape(p.m, p.m), rhs = p.Shape(p.m, p.k);
  const std::string rhs_given =
      p.Shape(b_shape.dimensions(rank - 2), b_shape.dimensions(rank - 1));
  const std::string swap = ", dimensions={0,2,1}";
  // ADJOINT conjugates A as well (for either side: X A^H = B is
  // conj(A) X^T = B^T); for real types it is TRANSPOSE. HLO has no
  // conjugate op: conj(a) = complex(real(a), -imag(a)).
  std::string a_square = "a_flat";
  std::string conjugate;
  if (p.complex && o.transpose_a == 3) {
    const std::string parts = p.Shape(
        p.m, p.m, std::string(PrimitiveTypeName(ComplexComponentType(type))));
    conjugate = absl::StrCat(
        "  a_re = ", parts, " real(a_flat)\n  a_im = ", parts,
        " imag(a_flat)\n  a_im_neg = ", parts,
        " negate(a_im)\n  a_conj = ", square, " complex(a_re, a_im_neg)\n");
    a_square = "a_conj";
  }
  return absl::StrCat(
      inverse ? InverseComputations(p) : SubstitutionComputations(p),
      "\nENTRY expansion {\n", "  a = ", a_shape.ToString(false),
      " parameter(0)\n", "  b = ", b_shape.ToString(false), " parameter(1)\n",
      "  a_flat = ", square, " reshape(a)\n", conjugate, "  m = ", square,
      transpose_a ? " transpose(" : " copy(", a_square, ")",
      transpose_a ? swap : "", "\n", "  b_flat = ", rhs_given, " reshape(b)\n",
      "  rhs = ", rhs, o.left_side ? " copy(b_flat)" : " transpose(b_flat)",
      o.left_side ? "" : swap, "\n",
      inverse ? InverseLines(p) : SubstitutionLines(p), "  out = ", rhs_given,
      o.left_side ? " copy(solved)" : " transpose(solved)",
      o.left_side ? "" : swap, "\n",
      "  ROOT result = ", b_shape.ToString(false), " reshape(out)\n}\n");
}

}  // namespace

absl::StatusOr<bool> TriangularSolveExpander::Run(HloModule* module) {
  return RewriteEach(
      module, HloOpcode::kTriangularSolve, "triangular-solves-expanded",
      [this](HloComputation*, HloInstruction* instr) -> absl::StatusOr<bool> {
        const Shape& shape = instr->shape();
        if (!shape.IsArray() || shape.rank() < 2 ||
            !instr->attrs().triangular_solve_options ||
            !(IsFloatingPointType(shape.element_type()) ||
              IsComplexType(shape.element_type())) ||
            ByteWidth(shape.element_type()) < 2) {
          return false;
        }
        if (keep_ && keep_(*instr)) return false;
        const int64_t m =
            instr->operand(0)->shape().dimensions(shape.rank() - 1);
        // The inverse's padded square per batch element must fit the
        // budget: a batch of thousands of large solves substitutes.
        const int64_t padded = InverseSize(m);
        const int64_t batch = shape.ElementCount() / std::max<int64_t>(
                                  1, shape.dimensions(shape.rank() - 1) *
                                         shape.dimensions(shape.rank() - 2));
        const bool inverse =
            m <= max_inverse_size_ &&
            batch * padded * padded <= kMaxInverseElements;
        Count(inverse ? "inverted" : "substituted");
        absl::StatusOr<HloInstruction*> replaced =
            ReplaceWithTemplate(instr, Expansion(*instr, inverse));
        if (!replaced.ok()) return replaced.status();
        return true;
      });
}

}  // namespace hloc
