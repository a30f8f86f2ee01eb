#include "passes/orgqr_expander.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/substitute.h"
#include "hlo/computation.h"
#include "hlo/primitive_type.h"
#include "passes/hlo_template.h"

namespace hloc {
namespace {

// $0: the element type, $1: batch, $2: m, $3: n, $4: k, $5: the lines
// computing `vc`, v's conjugate (a copy for real types), $6 and $7: the
// type's zero and one. The state is (i, a, tau, q); i counts down from
// k - 1.
constexpr char kOrgqrLoop[] = R"(
HloModule orgqr_expansion

cond {
  s = (s32[], $0[$1,$2,$3], $0[$1,$4], $0[$1,$2,$3]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  zero = s32[] constant(0)
  ROOT more = pred[] compare(i, zero), direction=GE
}

body {
  s = (s32[], $0[$1,$2,$3], $0[$1,$4], $0[$1,$2,$3]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  a = $0[$1,$2,$3] get-tuple-element(s), index=1
  tau = $0[$1,$4] get-tuple-element(s), index=2
  q = $0[$1,$2,$3] get-tuple-element(s), index=3
  zero = s32[] constant(0)
  column = $0[$1,$2,1] dynamic-slice(a, zero, zero, i), dynamic_slice_sizes={$1,$2,1}
  col = $0[$1,$2] reshape(column)
  r = s32[$1,$2] iota(), iota_dimension=1
  ib = s32[$1,$2] broadcast(i), dimensions={}
  below = pred[$1,$2] compare(r, ib), direction=GT
  at = pred[$1,$2] compare(r, ib), direction=EQ
  zero_t = $0[] constant($6)
  one_t = $0[] constant($7)
  zeros = $0[$1,$2] broadcast(zero_t), dimensions={}
  ones = $0[$1,$2] broadcast(one_t), dimensions={}
  lower = $0[$1,$2] select(below, col, zeros)
  v = $0[$1,$2] select(at, ones, lower)
$5
  w = $0[$1,$3] dot(vc, q), lhs_batch_dims={0}, lhs_contracting_dims={1}, rhs_batch_dims={0}, rhs_contracting_dims={1}, operand_precision={highest,highest}
  t2 = $0[$1,1] dynamic-slice(tau, zero, i), dynamic_slice_sizes={$1,1}
  t = $0[$1] reshape(t2)
  broadcast_t = $0[$1,$2] broadcast(t), dimensions={0}
  tv = $0[$1,$2] multiply(v, broadcast_t)
  tvb = $0[$1,$2,$3] broadcast(tv), dimensions={0,1}
  wb = $0[$1,$2,$3] broadcast(w), dimensions={0,2}
  update = $0[$1,$2,$3] multiply(tvb, wb)
  q_next = $0[$1,$2,$3] subtract(q, update)
  one = s32[] constant(1)
  i_next = s32[] subtract(i, one)
  ROOT next = (s32[], $0[$1,$2,$3], $0[$1,$4], $0[$1,$2,$3]) tuple(i_next, a, tau, q_next)
}

)";

struct Sizes {
  int64_t batch = 1, m = 0, n = 0, k = 0;
};

Sizes SizesOf(const HloInstruction& call) {
  const Shape& a = call.operand(0)->shape();
  const Shape& tau = call.operand(1)->shape();
  Sizes s;
  for (int64_t d = 0; d + 2 < a.rank(); ++d) s.batch *= a.dimensions(d);
  s.m = a.dimensions(a.rank() - 2);
  s.n = a.dimensions(a.rank() - 1);
  s.k = tau.dimensions(tau.rank() - 1);
  return s;
}

// Whether the call is one this pass takes: well formed (a [batch.., m, n]
// and tau [batch.., k] of one floating-point or complex type, 0 < k <= n <=
// m, the result a's shape) and a batch of small ones. Anything else is left
// to the runtime's cuSOLVER call, whose checks name what is wrong; so is a
// call with no reflectors (k = 0).
bool Expandable(const HloInstruction& call) {
  if (call.attrs().custom_call_target != "cusolver_orgqr_ffi" ||
      call.operand_count() != 2) {
    return false;
  }
  const Shape& a = call.operand(0)->shape();
  const Shape& tau = call.operand(1)->shape();
  if (!a.IsArray() || !tau.IsArray() || a.rank() < 2 ||
      tau.rank() + 1 != a.rank() || tau.element_type() != a.element_type() ||
      !call.shape().IsArray() || !call.shape().Compatible(a)) {
    return false;
  }
  const PrimitiveType type = a.element_type();
  if (type != F32 && type != F64 && type != C64 && type != C128) return false;
  for (int64_t d = 0; d + 2 < a.rank(); ++d) {
    if (a.dimensions(d) != tau.dimensions(d)) return false;
  }
  const Sizes s = SizesOf(call);
  return s.batch >= 2 && s.k > 0 && s.k <= s.n && s.n <= s.m &&
         s.n <= OrgqrExpander::kMaxColumns;
}

std::string Expansion(const HloInstruction& call) {
  const Shape& a = call.operand(0)->shape();
  const PrimitiveType type = a.element_type();
  const std::string t(PrimitiveTypeName(type));
  const Sizes s = SizesOf(call);
  const std::string matrices =
      absl::StrCat(t, "[", s.batch, ",", s.m, ",", s.n, "]");
  const std::string vectors = absl::StrCat(t, "[", s.batch, ",", s.k, "]");
  const std::string state =
      absl::StrCat("(s32[], ", matrices, ", ", vectors, ", ", matrices, ")");
  // v^H: the conjugate of a complex v (HLO has no conj: real and negated
  // imaginary parts, as JAX lowers it).
  std::string conjugate;
  if (IsComplexType(type)) {
    const std::string real(PrimitiveTypeName(ComplexComponentType(type)));
    const std::string parts = absl::StrCat(real, "[", s.batch, ",", s.m, "]");
    conjugate = absl::StrCat("  v_re = ", parts, " real(v)\n  v_im = ", parts,
                             " imag(v)\n", "  v_neg = ", parts,
                             " negate(v_im)\n  vc = ", t, "[", s.batch, ",",
                             s.m, "] complex(v_re, v_neg)");
  } else {
    conjugate = absl::StrCat("  vc = ", t, "[", s.batch, ",", s.m, "] copy(v)");
  }
  const std::string full = a.ToString(/*print_layout=*/false);
  const std::string tau_full =
      call.operand(1)->shape().ToString(/*print_layout=*/false);
  return absl::StrCat(
      absl::Substitute(kOrgqrLoop, t, s.batch, s.m, s.n, s.k, conjugate,
                       ConstantText(type, 0), ConstantText(type, 1)),
      "ENTRY expansion {\n", "  a_in = ", full, " parameter(0)\n",
      "  tau_in = ", tau_full, " parameter(1)\n", "  a = ", matrices,
      " reshape(a_in)\n", "  tau = ", vectors, " reshape(tau_in)\n",
      // Q starts as the first n columns of the identity.
      "  rows = s32[", s.batch, ",", s.m, ",", s.n,
      "] iota(), iota_dimension=1\n", "  cols = s32[", s.batch, ",", s.m, ",",
      s.n, "] iota(), iota_dimension=2\n", "  diagonal = pred[", s.batch, ",",
      s.m, ",", s.n, "] compare(rows, cols), direction=EQ\n", "  zero_t = ", t,
      "[] constant(", ConstantText(type, 0), ")\n", "  one_t = ", t,
      "[] constant(", ConstantText(type, 1), ")\n", "  zeros = ", matrices,
      " broadcast(zero_t), dimensions={}\n", "  ones = ", matrices,
      " broadcast(one_t), dimensions={}\n", "  identity = ", matrices,
      " select(diagonal, ones, zeros)\n", "  last = s32[] constant(", s.k - 1,
      ")\n", "  init = ", state, " tuple(last, a, tau, identity)\n",
      "  loop = ", state, " while(init), condition=cond, body=body\n",
      "  q = ", matrices, " get-tuple-element(loop), index=3\n",
      "  ROOT result = ", full, " reshape(q)\n}\n");
}

}  // namespace

absl::StatusOr<bool> OrgqrExpander::Run(HloModule* module) {
  return RewriteEach(
      module, HloOpcode::kCustomCall, "orgqrs-expanded",
      [](HloComputation*, HloInstruction* call) -> absl::StatusOr<bool> {
        if (!Expandable(*call)) return false;
        absl::StatusOr<HloInstruction*> replaced =
            ReplaceWithTemplate(call, Expansion(*call));
        if (!replaced.ok()) return replaced.status();
        return true;
      });
}

}  // namespace hloc
