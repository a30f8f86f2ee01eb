#include "passes/csr_sparse_dense_expander.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "hlo/computation.h"
#include "hlo/primitive_type.h"
#include "hlo/sparse_custom_call.h"
#include "passes/hlo_template.h"

namespace hloc {
namespace {

std::string Expansion(const HloInstruction& call, const CsrSparseDenseCall& c) {
  const PrimitiveType t = c.type, it = c.index_type;
  const int64_t nse = c.nse, m = c.rows, k = c.cols, n = c.rhs_cols;
  const std::string index = ShapeText(it, {}), value = ShapeText(t, {});
  const std::string positions = ShapeText(it, {nse});
  const std::string flags = ShapeText(PRED, {nse});
  const std::string result = call.shape().ToString(/*print_layout=*/false);
  TemplateBody body;
  body.Add("data", ShapeText(t, {nse}), "parameter(0)");
  body.Add("indptr", ShapeText(it, {m + 1}), "parameter(1)");
  body.Add("indices", positions, "parameter(2)");
  body.Add("rhs", call.operand(3)->shape().ToString(false), "parameter(3)");
  body.Add("value_zero", value,
           absl::StrCat("constant(", ConstantText(t, 0), ")"));
  if (nse == 0 || m == 0 || k == 0 || n == 0) {
    return absl::StrCat(
        "HloModule csr_sparse_dense_expansion\n\nENTRY "
        "expansion {\n",
        body.text(), "  ROOT result = ", result,
        " broadcast(value_zero), dimensions={}\n}\n");
  }
  const std::string matrix = ShapeText(t, {nse, n});
  body.Add("rhs_matrix", ShapeText(t, {k, n}), "reshape(rhs)");
  body.Add("index_zero", index, "constant(0)");
  body.Add("index_one", index, "constant(1)");
  // marks[p]: how many rows end at position p; its prefix sum, each
  // element's row.
  body.Add("ends", ShapeText(it, {m}),
           absl::StrCat("slice(indptr), slice={[1:", m + 1, "]}"));
  body.Add("end_positions", ShapeText(it, {m, 1}), "reshape(ends)");
  body.Add("ones", ShapeText(it, {m}), "broadcast(index_one), dimensions={}");
  body.Add("no_marks", positions, "broadcast(index_zero), dimensions={}");
  body.Add("marks", positions,
           "scatter(no_marks, end_positions, ones), update_window_dims={}, "
           "inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, "
           "index_vector_dim=1, to_apply=add_index");
  body.Add("rows", positions,
           absl::StrCat("reduce-window(marks, index_zero), window={size=", nse,
                        " pad=", nse - 1, "_0}, to_apply=add_index"));
  // Elements outside [indptr[0], indptr[m]) or with a column outside
  // [0, k) go to row m, past the result.
  body.Add("element", positions, "iota(), iota_dimension=0");
  body.Add("first_slice", ShapeText(it, {1}), "slice(indptr), slice={[0:1]}");
  body.Add("last_slice", ShapeText(it, {1}),
           absl::StrCat("slice(indptr), slice={[", m, ":", m + 1, "]}"));
  body.Add("first", index, "reshape(first_slice)");
  body.Add("last", index, "reshape(last_slice)");
  body.Add("firsts", positions, "broadcast(first), dimensions={}");
  body.Add("lasts", positions, "broadcast(last), dimensions={}");
  body.Add("k", index, absl::StrCat("constant(", k, ")"));
  body.Add("ks", positions, "broadcast(k), dimensions={}");
  body.Add("m", index, absl::StrCat("constant(", m, ")"));
  body.Add("ms", positions, "broadcast(m), dimensions={}");
  body.Add("from_first", flags, "compare(element, firsts), direction=GE");
  body.Add("before_last", flags, "compare(element, lasts), direction=LT");
  body.Add("column_low", flags, "compare(indices, no_marks), direction=GE");
  body.Add("column_high", flags, "compare(indices, ks), direction=LT");
  body.Add("in_rows", flags, "and(from_first, before_last)");
  body.Add("in_columns", flags, "and(column_low, column_high)");
  body.Add("valid", flags, "and(in_rows, in_columns)");
  body.Add("targets", positions, "select(valid, rows, ms)");
  body.Add("target_rows", ShapeText(it, {nse, 1}), "reshape(targets)");
  body.Add("columns", ShapeText(it, {nse, 1}), "reshape(indices)");
  body.Add("picked", matrix,
           absl::StrCat("gather(rhs_matrix, columns), offset_dims={1}, "
                        "collapsed_slice_dims={0}, start_index_map={0}, "
                        "index_vector_dim=1, slice_sizes={1,",
                        n, "}"));
  body.Add("scales", matrix, "broadcast(data), dimensions={0}");
  body.Add("products", matrix, "multiply(scales, picked)");
  body.Add("zeros", ShapeText(t, {m, n}),
           "broadcast(value_zero), dimensions={}");
  body.Add("sums", ShapeText(t, {m, n}),
           "scatter(zeros, target_rows, products), update_window_dims={1}, "
           "inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, "
           "index_vector_dim=1, to_apply=add_value");
  auto adder = [](const char* name, const std::string& scalar) {
    return absl::StrCat(
        name, " {\n  x = ", scalar, " parameter(0)\n  y = ", scalar,
        " parameter(1)\n  ROOT sum = ", scalar, " add(x, y)\n}\n\n");
  };
  return absl::StrCat("HloModule csr_sparse_dense_expansion\n\n",
                      adder("add_index", index), adder("add_value", value),
                      "ENTRY expansion {\n", body.text(),
                      "  ROOT result = ", result, " reshape(sums)\n}\n");
}

}  // namespace

absl::StatusOr<bool> CsrSparseDenseExpander::Run(HloModule* module) {
  return RewriteEach(
      module, HloOpcode::kCustomCall, "csr-sparse-dense-calls-expanded",
      [](HloComputation*, HloInstruction* call) -> absl::StatusOr<bool> {
        if (!IsCsrSparseDenseCustomCall(*call)) return false;
        absl::StatusOr<CsrSparseDenseCall> c = ReadCsrSparseDenseCall(*call);
        if (!c.ok()) return c.status();
        absl::StatusOr<HloInstruction*> replaced =
            ReplaceWithTemplate(call, Expansion(*call, *c));
        if (!replaced.ok()) return replaced.status();
        return true;
      });
}

}  // namespace hloc
