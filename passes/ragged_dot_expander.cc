#include "passes/ragged_dot_expander.h"

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hlo/computation.h"
#include "hlo/primitive_type.h"
#include "hlo/ragged_dot.h"
#include "passes/hlo_template.h"

namespace hloc {
namespace {

std::string List(const std::vector<int64_t>& values) {
  return absl::StrCat("{", absl::StrJoin(values, ","), "}");
}

std::vector<int64_t> PlusOne(std::vector<int64_t> dims) {
  for (int64_t& d : dims) d += 1;
  return dims;
}

// `x` (operand `name`, of `shape`) broadcast to [g, shape..], group i's
// copy zero outside group i's indices of dimension `ragged`. `prefix`:
// the dimensions of `shape` that group_sizes' leading dimensions follow
// ("starts" and "ends" are group_sizes' bounds, [prefix.., g]).
std::string Expand(TemplateBody& lines, const std::string& name,
                   const Shape& shape, int64_t ragged,
                   const std::vector<int64_t>& prefix,
                   const RaggedDotGeometry& g, PrimitiveType size_type) {
  std::vector<int64_t> dims = {g.num_groups};
  dims.insert(dims.end(), shape.dimensions().begin(), shape.dimensions().end());
  const std::string wide = ShapeText(shape.element_type(), dims);
  const std::string wide_sizes = ShapeText(size_type, dims);
  const std::string wide_pred = ShapeText(PRED, dims);
  std::vector<int64_t> all(shape.rank());
  std::iota(all.begin(), all.end(), 1);
  const std::string x =
      lines.Add(name + "_wide", wide,
                absl::StrCat("broadcast(", name, "), dimensions=", List(all)));
  const std::string index =
      lines.Add(name + "_index", wide_sizes,
                absl::StrCat("iota(), iota_dimension=", ragged + 1));
  // The bounds' dimensions [prefix.., g] land on [1 + prefix.., 0]: a
  // broadcast's dimensions must increase, so the bounds are transposed
  // into that order first.
  std::vector<int64_t> targets = PlusOne(prefix);
  targets.push_back(0);
  std::vector<int64_t> perm(targets.size());
  std::iota(perm.begin(), perm.end(), 0);
  std::sort(perm.begin(), perm.end(),
            [&](int64_t a, int64_t b) { return targets[a] < targets[b]; });
  std::vector<int64_t> sorted_targets, sorted_dims;
  for (int64_t p : perm) {
    sorted_targets.push_back(targets[p]);
    sorted_dims.push_back(dims[targets[p]]);
  }
  std::string bounds[2];
  const char* names[2] = {"starts", "ends"};
  for (int b = 0; b < 2; ++b) {
    const std::string ordered = lines.Add(
        absl::StrCat(name, "_", names[b], "_ordered"),
        ShapeText(size_type, sorted_dims),
        absl::StrCat("transpose(", names[b], "), dimensions=", List(perm)));
    bounds[b] = lines.Add(absl::StrCat(name, "_", names[b]), wide_sizes,
                          absl::StrCat("broadcast(", ordered,
                                       "), dimensions=", List(sorted_targets)));
  }
  const std::string after = lines.Add(
      name + "_after_start", wide_pred,
      absl::StrCat("compare(", index, ", ", bounds[0], "), direction=GE"));
  const std::string before = lines.Add(
      name + "_before_end", wide_pred,
      absl::StrCat("compare(", index, ", ", bounds[1], "), direction=LT"));
  const std::string in =
      lines.Add(name + "_in_group", wide_pred,
                absl::StrCat("and(", after, ", ", before, ")"));
  const std::string zero = lines.Add(
      name + "_zero", ShapeText(shape.element_type(), {}),
      absl::StrCat("constant(", ConstantText(shape.element_type(), 0), ")"));
  const std::string zeros =
      lines.Add(name + "_zeros", wide,
                absl::StrCat("broadcast(", zero, "), dimensions={}"));
  return lines.Add(name + "_masked", wide,
                   absl::StrCat("select(", in, ", ", x, ", ", zeros, ")"));
}

std::string DotText(const std::string& lhs, const std::string& rhs,
                    const std::vector<int64_t>& lb,
                    const std::vector<int64_t>& lc,
                    const std::vector<int64_t>& rb,
                    const std::vector<int64_t>& rc) {
  return absl::StrCat("dot(", lhs, ", ", rhs, "), lhs_batch_dims=", List(lb),
                      ", lhs_contracting_dims=", List(lc),
                      ", rhs_batch_dims=", List(rb),
                      ", rhs_contracting_dims=", List(rc));
}

std::string Expansion(const HloInstruction& instr, const RaggedDotGeometry& g) {
  const Shape& lhs = instr.operand(0)->shape();
  const Shape& rhs = instr.operand(1)->shape();
  const Shape& sizes = instr.operand(2)->shape();
  const PrimitiveType size_type = sizes.element_type();
  const std::string size_scalar = ShapeText(size_type, {});
  const std::string sizes_text = sizes.ToString(/*print_layout=*/false);
  const DotDimensionNumbers& dn =
      instr.attrs().ragged_dot_dimension_numbers->dot_dimension_numbers;
  const std::string result = instr.shape().ToString(/*print_layout=*/false);
  TemplateBody lines;
  lines.Add("lhs", lhs.ToString(false), "parameter(0)");
  lines.Add("rhs", rhs.ToString(false), "parameter(1)");
  lines.Add("sizes", sizes_text, "parameter(2)");
  std::string root;
  if (g.mode == RaggedDotMode::kBatch) {
    root = DotText("lhs", "rhs", dn.lhs_batch_dimensions,
                   dn.lhs_contracting_dimensions, dn.rhs_batch_dimensions,
                   dn.rhs_contracting_dimensions);
  } else {
    // Each group's end is the running sum of the sizes up to it, its start
    // the end less its size.
    lines.Add("size_zero", size_scalar, "constant(0)");
    std::vector<int64_t> window(sizes.rank(), 1), pad(sizes.rank(), 0);
    window.back() = g.num_groups;
    std::vector<std::string> pads;
    for (int64_t d = 0; d < sizes.rank(); ++d) {
      pads.push_back(
          absl::StrCat(d + 1 == sizes.rank() ? g.num_groups - 1 : 0, "_0"));
    }
    lines.Add("ends", sizes_text,
              absl::StrCat("reduce-window(sizes, size_zero), window={size=",
                           absl::StrJoin(window, "x"), " pad=",
                           absl::StrJoin(pads, "x"), "}, to_apply=add"));
    lines.Add("starts", sizes_text, "subtract(ends, sizes)");
    const std::string l =
        Expand(lines, "lhs", lhs, g.lhs_ragged_dim, g.lhs_prefix, g, size_type);
    if (g.mode == RaggedDotMode::kNonContracting) {
      std::vector<int64_t> lc = {0};
      for (int64_t d : PlusOne(dn.lhs_contracting_dimensions)) lc.push_back(d);
      std::vector<int64_t> rc = {g.rhs_group_dim};
      rc.insert(rc.end(), dn.rhs_contracting_dimensions.begin(),
                dn.rhs_contracting_dimensions.end());
      root = DotText(l, "rhs", PlusOne(dn.lhs_batch_dimensions), lc,
                     dn.rhs_batch_dimensions, rc);
    } else {
      const std::string r = Expand(lines, "rhs", rhs, g.rhs_ragged_dim,
                                   g.rhs_prefix, g, size_type);
      std::vector<int64_t> lb = {0}, rb = {0};
      for (int64_t d : PlusOne(dn.lhs_batch_dimensions)) lb.push_back(d);
      for (int64_t d : PlusOne(dn.rhs_batch_dimensions)) rb.push_back(d);
      root = DotText(l, r, lb, PlusOne(dn.lhs_contracting_dimensions), rb,
                     PlusOne(dn.rhs_contracting_dimensions));
    }
  }
  return absl::StrCat("HloModule ragged_dot_expansion\n\nadd {\n  x = ",
                      size_scalar, " parameter(0)\n  y = ", size_scalar,
                      " parameter(1)\n  ROOT sum = ", size_scalar,
                      " add(x, y)\n}\n\nENTRY expansion {\n", lines.text(),
                      "  ROOT result = ", result, " ", root, "\n}\n");
}

}  // namespace

absl::StatusOr<bool> RaggedDotExpander::Run(HloModule* module) {
  return RewriteEach(
      module, HloOpcode::kRaggedDot, "ragged-dots-expanded",
      [this](HloComputation*, HloInstruction* instr) -> absl::StatusOr<bool> {
        if (instr->operand_count() != 3 ||
            !instr->attrs().ragged_dot_dimension_numbers.has_value()) {
          return absl::InvalidArgumentError(
              absl::StrCat("ragged-dot ", instr->name(),
                           " needs three operands and dimension numbers"));
        }
        absl::StatusOr<RaggedDotGeometry> g = AnalyzeRaggedDot(
            instr->operand(0)->shape(), instr->operand(1)->shape(),
            instr->operand(2)->shape(),
            *instr->attrs().ragged_dot_dimension_numbers);
        if (!g.ok()) {
          return absl::InvalidArgumentError(
              absl::StrCat(instr->name(), ": ", g.status().message()));
        }
        if (keep_ && keep_(*instr, *g)) return false;
        // The dot keeps the ragged-dot's operand precisions (TF32 or not).
        const std::optional<PrecisionConfig> precision =
            instr->attrs().precision_config;
        absl::StatusOr<HloInstruction*> dot =
            ReplaceWithTemplate(instr, Expansion(*instr, *g));
        if (!dot.ok()) return dot.status();
        (*dot)->mutable_attrs().precision_config = precision;
        return true;
      });
}

}  // namespace hloc
