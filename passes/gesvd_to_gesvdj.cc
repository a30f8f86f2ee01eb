#include "passes/gesvd_to_gesvdj.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hlo/computation.h"
#include "hlo/lapack_custom_call.h"
#include "hlo/primitive_type.h"
#include "passes/hlo_template.h"

namespace hloc {
namespace {

constexpr char kGesvd[] = "cusolver_gesvd_ffi";
constexpr char kGesvdj[] = "cusolver_gesvdj_ffi";

// `type[batch.., rows, cols]` in the column-major matrix layout the solver
// calls use.
std::string ColumnMajor(PrimitiveType type, std::vector<int64_t> batch,
                        int64_t rows, int64_t cols) {
  const int64_t rank = batch.size() + 2;
  std::vector<int64_t> order = {rank - 2, rank - 1};
  for (int64_t d = rank - 3; d >= 0; --d) order.push_back(d);
  batch.push_back(rows);
  batch.push_back(cols);
  return absl::StrCat(PrimitiveTypeName(type), "[", absl::StrJoin(batch, ","),
                      "]{", absl::StrJoin(order, ","), "}");
}

// Swaps the last two dimensions.
std::string SwapLast(int64_t rank) {
  std::vector<int64_t> perm;
  for (int64_t d = 0; d + 2 < rank; ++d) perm.push_back(d);
  perm.push_back(rank - 1);
  perm.push_back(rank - 2);
  return absl::StrCat("dimensions={", absl::StrJoin(perm, ","), "}");
}

std::string Expansion(const HloInstruction& call, bool compute_uv,
                      bool full_matrices, bool transposed) {
  const Shape& a = call.operand(0)->shape();
  const Shape& result = call.shape();
  const PrimitiveType t = a.element_type();
  const bool complex = IsComplexType(t);
  const PrimitiveType real = complex ? ComplexComponentType(t) : t;
  const int64_t rank = a.rank();
  std::vector<int64_t> batch(a.dimensions().begin(), a.dimensions().end() - 2);
  const int64_t m = a.dimensions(rank - 2), n = a.dimensions(rank - 1);
  // What gesvdj factors: A, or A^T for a transposed call.
  const int64_t rows = transposed ? n : m, cols = transposed ? m : n;
  const int64_t k = std::min(m, n);
  const bool econ = !full_matrices || !compute_uv;
  const std::string factored = ColumnMajor(t, batch, rows, cols);
  const std::string u = ColumnMajor(t, batch, rows, econ ? k : rows);
  const std::string v = ColumnMajor(t, batch, cols, econ ? k : cols);
  const std::string info = absl::StrCat("s32[", absl::StrJoin(batch, ","), "]");
  const std::string s =
      absl::StrCat(PrimitiveTypeName(real), "[", absl::StrJoin(batch, ","),
                   batch.empty() ? "" : ",", k, "]");
  auto slot = [&](int64_t i) {
    return result.tuple_shapes(i).ToString(/*print_layout=*/true);
  };
  std::string body =
      absl::StrCat("  a = ", a.ToString(true), " parameter(0)\n");
  if (transposed) {
    absl::StrAppend(&body, "  x = ", factored, " transpose(a), ",
                    SwapLast(rank), "\n");
  } else {
    absl::StrAppend(&body, "  x = ", factored, " copy(a)\n");
  }
  absl::StrAppend(
      &body, "  svd = (", factored, ", ", s, ", ", u, ", ", v, ", ", info,
      ") custom-call(x), custom_call_target=\"", kGesvdj,
      "\", operand_layout_constraints={", factored,
      "}, api_version=API_VERSION_TYPED_FFI, backend_config={compute_uv = ",
      compute_uv ? "true" : "false",
      ", full_matrices = ", econ ? "false" : "true", "}\n");
  absl::StrAppend(&body, "  values = ", slot(1),
                  " get-tuple-element(svd), index=1\n");
  absl::StrAppend(&body, "  info = ", slot(4),
                  " get-tuple-element(svd), index=4\n");
  absl::StrAppend(&body, "  a_out = ", slot(0), " copy(a)\n");
  if (!compute_uv) {
    const std::string zero = ConstantText(t, 0);
    absl::StrAppend(&body, "  first = ", slot(2), " constant(", zero, ")\n");
    absl::StrAppend(&body, "  second = ", slot(3), " constant(", zero, ")\n");
  } else {
    absl::StrAppend(&body, "  u = ", u, " get-tuple-element(svd), index=2\n");
    absl::StrAppend(&body, "  v = ", v, " get-tuple-element(svd), index=3\n");
    // conj(v): the same array for real types.
    std::string v_conj = "v";
    if (complex) {
      const std::string v_real =
          ColumnMajor(real, batch, cols, econ ? k : cols);
      absl::StrAppend(&body, "  v_re = ", v_real, " real(v)\n");
      absl::StrAppend(&body, "  v_im = ", v_real, " imag(v)\n");
      absl::StrAppend(&body, "  v_im_neg = ", v_real, " negate(v_im)\n");
      absl::StrAppend(&body, "  v_conj = ", v, " complex(v_re, v_im_neg)\n");
      v_conj = "v_conj";
    }
    if (transposed) {
      // Slot 2 (read by JAX as V^T of A) is U'^T, slot 3 (U of A) conj(V').
      absl::StrAppend(&body, "  first = ", slot(2), " transpose(u), ",
                      SwapLast(rank), "\n");
      absl::StrAppend(&body, "  second = ", slot(3), " copy(", v_conj, ")\n");
    } else {
      absl::StrAppend(&body, "  first = ", slot(2), " copy(u)\n");
      absl::StrAppend(&body, "  second = ", slot(3), " transpose(", v_conj,
                      "), ", SwapLast(rank), "\n");
    }
  }
  return absl::StrCat("HloModule gesvd_as_gesvdj\n\nENTRY expansion {\n", body,
                      "  ROOT result = ", result.ToString(true),
                      " tuple(a_out, values, first, second, info)\n}\n");
}

}  // namespace

absl::StatusOr<bool> GesvdToGesvdj::Run(HloModule* module) {
  return RewriteEach(
      module, HloOpcode::kCustomCall, "gesvd-calls-rewritten",
      [](HloComputation*, HloInstruction* call) -> absl::StatusOr<bool> {
        if (call->attrs().custom_call_target != kGesvd) return false;
        const std::string& config = call->backend_config();
        // jaxlib's attribute dictionary: {compute_uv = true,
        // full_matrices = false, transposed = false}.
        std::optional<bool> compute_uv, full, transposed;
        absl::StatusOr<std::vector<std::pair<std::string, int64_t>>>
            attributes = ParseFfiIntegerAttributes(config);
        if (attributes.ok()) {
          for (const auto& [name, value] : *attributes) {
            if (name == "compute_uv") compute_uv = value != 0;
            if (name == "full_matrices") full = value != 0;
            if (name == "transposed") transposed = value != 0;
          }
        }
        const Shape& shape = call->shape();
        if (!compute_uv || !full || !transposed || call->operand_count() != 1 ||
            !shape.IsTuple() || shape.tuple_shapes().size() != 5 ||
            !call->operand(0)->shape().IsArray() ||
            call->operand(0)->shape().rank() < 2) {
          return absl::InvalidArgumentError(absl::StrCat(
              "custom-call ", call->name(), " (", kGesvd,
              "): expected one matrix operand, five results and "
              "backend_config {compute_uv, full_matrices, transposed}, got "
              "backend_config '",
              config, "'"));
        }
        absl::StatusOr<HloInstruction*> replaced = ReplaceWithTemplate(
            call, Expansion(*call, *compute_uv, *full, *transposed));
        if (!replaced.ok()) return replaced.status();
        return true;
      });
}

}  // namespace hloc
