#include "passes/tridiagonal_solve_expander.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hlo/computation.h"
#include "hlo/primitive_type.h"
#include "passes/hlo_template.h"

namespace hloc {
namespace {

bool IsGtsvCall(const HloInstruction& instr) {
  const std::string& target = instr.attrs().custom_call_target;
  return target == "cusparse_gtsv2_ffi" || target == "hipsparse_gtsv2_ffi";
}

std::string Expansion(const HloInstruction& call) {
  const Shape& diag = call.operand(1)->shape();
  const Shape& rhs = call.operand(3)->shape();
  const PrimitiveType t = diag.element_type();
  const int64_t rank = diag.rank();
  const int64_t n = diag.dimensions(rank - 1);
  const std::vector<int64_t> vdims = diag.dimensions();
  const std::vector<int64_t> mdims = rhs.dimensions();
  const std::string v = ShapeText(t, vdims), m = ShapeText(t, mdims);
  const std::string vp = ShapeText(PRED, vdims);
  // The vectors broadcast along the right-hand sides.
  std::vector<int64_t> along(rank);
  for (int64_t d = 0; d < rank; ++d) along[d] = d;
  const std::string broadcast_dims =
      absl::StrCat("dimensions={", absl::StrJoin(along, ","), "}");
  // Padding that shifts an array by `by` along the equations (dimension
  // rank - 1 of a vector, rank - 1 of b too: b's columns come last):
  // element i of the result is element i - by of the operand.
  auto shift = [&](int64_t array_rank, int64_t by) {
    std::vector<std::string> pads(array_rank, "0_0");
    pads[rank - 1] = absl::StrCat(by, "_", -by);
    return absl::StrCat("padding=", absl::StrJoin(pads, "x"));
  };
  TemplateBody body;
  body.Add("dl", call.operand(0)->shape().ToString(false), "parameter(0)");
  body.Add("d", v, "parameter(1)");
  body.Add("du", call.operand(2)->shape().ToString(false), "parameter(2)");
  body.Add("b", m, "parameter(3)");
  body.Add("zero", ShapeText(t, {}),
           absl::StrCat("constant(", ConstantText(t, 0), ")"));
  body.Add("one", ShapeText(t, {}),
           absl::StrCat("constant(", ConstantText(t, 1), ")"));
  body.Add("zeros", v, "broadcast(zero), dimensions={}");
  body.Add("i", ShapeText(S32, vdims),
           absl::StrCat("iota(), iota_dimension=", rank - 1));
  body.Add("first", ShapeText(S32, {}), "constant(0)");
  body.Add("last", ShapeText(S32, {}), absl::StrCat("constant(", n - 1, ")"));
  body.Add("firsts", ShapeText(S32, vdims), "broadcast(first), dimensions={}");
  body.Add("lasts", ShapeText(S32, vdims), "broadcast(last), dimensions={}");
  body.Add("has_lower", vp, "compare(i, firsts), direction=GT");
  body.Add("has_upper", vp, "compare(i, lasts), direction=LT");
  // dl[0] and du[n-1] are outside the matrix: zero, whatever they hold.
  std::string a = body.Add("a0", v, "select(has_lower, dl, zeros)");
  std::string c = body.Add("c0", v, "select(has_upper, du, zeros)");
  std::string dg = "d", r = "b";
  for (int64_t s = 1, stage = 1; s < n; s *= 2, ++stage) {
    auto name = [&](const char* what) { return absl::StrCat(what, stage); };
    auto binary = [&](const char* what, const std::string& shape,
                      const char* opcode, const std::string& x,
                      const std::string& y) {
      return body.Add(name(what), shape,
                      absl::StrCat(opcode, "(", x, ", ", y, ")"));
    };
    // x shifted by `by` along the equations, `fill` where it has no
    // element; r has the right-hand sides' dimension too.
    auto shifted = [&](const char* what, const std::string& x, const char* fill,
                       int64_t by) {
      const bool matrix = x == r;
      return body.Add(name(what), matrix ? m : v,
                      absl::StrCat("pad(", x, ", ", fill, "), ",
                                   shift(matrix ? rank + 1 : rank, by)));
    };
    auto along_rhs = [&](const char* what, const std::string& x) {
      return body.Add(name(what), m,
                      absl::StrCat("broadcast(", x, "), ", broadcast_dims));
    };
    // The equations at i - s (below: past the top they are 0 = 0 with a
    // unit diagonal) and at i + s.
    const std::string a_below = shifted("a_below", a, "zero", s);
    const std::string c_below = shifted("c_below", c, "zero", s);
    const std::string d_below = shifted("d_below", dg, "one", s);
    const std::string r_below = shifted("r_below", r, "zero", s);
    const std::string a_above = shifted("a_above", a, "zero", -s);
    const std::string c_above = shifted("c_above", c, "zero", -s);
    const std::string d_above = shifted("d_above", dg, "one", -s);
    const std::string r_above = shifted("r_above", r, "zero", -s);
    // Equation i minus alpha times the one below and gamma times the one
    // above, alpha = a[i] / d[i-s], gamma = c[i] / d[i+s].
    const std::string alpha = binary("alpha", v, "divide", a, d_below);
    const std::string gamma = binary("gamma", v, "divide", c, d_above);
    const std::string a_next =
        binary("a_product", v, "multiply", alpha, a_below);
    const std::string c_next =
        binary("c_product", v, "multiply", gamma, c_above);
    const std::string d_sum =
        binary("d_sum", v, "add",
               binary("d_from_below", v, "multiply", alpha, c_below),
               binary("d_from_above", v, "multiply", gamma, a_above));
    const std::string r_sum =
        binary("r_sum", m, "add",
               binary("r_from_below", m, "multiply",
                      along_rhs("alpha_m", alpha), r_below),
               binary("r_from_above", m, "multiply",
                      along_rhs("gamma_m", gamma), r_above));
    a = body.Add(name("a"), v, absl::StrCat("negate(", a_next, ")"));
    c = body.Add(name("c"), v, absl::StrCat("negate(", c_next, ")"));
    dg = binary("d", v, "subtract", dg, d_sum);
    r = binary("r", m, "subtract", r, r_sum);
  }
  body.Add("d_m", m, absl::StrCat("broadcast(", dg, "), ", broadcast_dims));
  return absl::StrCat(
      "HloModule tridiagonal_solve_expansion\n\nENTRY "
      "expansion {\n",
      body.text(), "  ROOT x = ", m, " divide(", r, ", d_m)\n}\n");
}

// The call's operands as the expansion reads them, or why not.
absl::Status Check(const HloInstruction& call) {
  auto fail = [&](absl::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat("custom-call ", call.name(), " (",
                     call.attrs().custom_call_target, "): ", why));
  };
  if (call.operand_count() != 4 || !call.shape().IsArray()) {
    return fail("expected operands (dl, d, du, b) and one array result");
  }
  const Shape& d = call.operand(1)->shape();
  const Shape& b = call.operand(3)->shape();
  if (!d.IsArray() || d.rank() < 1 ||
      (!IsFloatingPointType(d.element_type()) &&
       !IsComplexType(d.element_type()))) {
    return fail("d must be a floating-point or complex array [batch.., n]");
  }
  for (int i : {0, 2}) {
    if (!call.operand(i)->shape().Compatible(d)) {
      return fail("dl, d and du must have one shape");
    }
  }
  std::vector<int64_t> expected = d.dimensions();
  if (!b.IsArray() || b.element_type() != d.element_type() ||
      b.rank() != d.rank() + 1 ||
      !std::equal(expected.begin(), expected.end(), b.dimensions().begin()) ||
      !call.shape().Compatible(b)) {
    return fail("b and the result must be [batch.., n, k] of d's type");
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<bool> TridiagonalSolveExpander::Run(HloModule* module) {
  return RewriteEach(
      module, HloOpcode::kCustomCall, "tridiagonal-solves-expanded",
      [](HloComputation*, HloInstruction* call) -> absl::StatusOr<bool> {
        if (!IsGtsvCall(*call)) return false;
        absl::Status valid = Check(*call);
        if (!valid.ok()) return valid;
        absl::StatusOr<HloInstruction*> replaced =
            ReplaceWithTemplate(call, Expansion(*call));
        if (!replaced.ok()) return replaced.status();
        return true;
      });
}

}  // namespace hloc
