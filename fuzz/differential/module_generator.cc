#include "fuzz/differential/module_generator.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace hloc {
namespace fuzz {

int ByteSource::Below(int n) {
  if (n <= 1) return 0;
  const uint32_t v = (static_cast<uint32_t>(Next()) << 8) | Next();
  return static_cast<int>(v % static_cast<uint32_t>(n));
}

namespace {

enum class Type { kF32, kF16, kBF16, kS32, kPred };
constexpr Type kTypes[] = {Type::kF32, Type::kF16, Type::kBF16, Type::kS32,
                           Type::kPred};

const char* TypeName(Type t) {
  switch (t) {
    case Type::kF32:
      return "f32";
    case Type::kF16:
      return "f16";
    case Type::kBF16:
      return "bf16";
    case Type::kS32:
      return "s32";
    case Type::kPred:
      return "pred";
  }
  return "?";
}

bool IsFloat(Type t) {
  return t == Type::kF32 || t == Type::kF16 || t == Type::kBF16;
}

// Significand bits (with the implicit one): a float value on the grid
// 2^-grid and below `bound` in magnitude is exact when bound * 2^grid
// stays below 2^bits.
int SignificandBits(Type t) {
  switch (t) {
    case Type::kF32:
      return 24;
    case Type::kF16:
      return 11;
    case Type::kBF16:
      return 8;
    default:
      return 0;
  }
}

using Dims = std::vector<int64_t>;

// What is known about a float value: `exact` when every finite element is
// a multiple of 2^-grid and at most `bound` in magnitude, and `finite` when
// no element is NaN or an infinity. An exact value may feed a float sum:
// its finite partial sums are exact in any order, and a NaN or infinity
// among the terms gives the same NaN or infinity in any order too (the
// cpu backend reassociates sums; fuzz/differential/regressions/
// diff-3030.hlo). A dot also needs `finite` (the simplifier may rewrite a
// dot by a zero as zero, as XLA's does). A quotient or an integer
// converted is not exact: its rounding error would depend on the order.
struct Magnitude {
  bool exact = false;
  double bound = 0;
  int grid = 0;
  bool finite = true;
};

bool FitsExactly(const Magnitude& m, Type t) {
  return m.exact && IsFloat(t) &&
         m.bound * std::ldexp(1.0, m.grid) < std::ldexp(1.0, SignificandBits(t));
}

struct Value {
  std::string name;
  Type type;
  Dims dims;
  Magnitude magnitude;
};

std::string ShapeText(Type t, const Dims& dims) {
  return absl::StrCat(TypeName(t), "[", absl::StrJoin(dims, ","), "]");
}

int64_t Product(const Dims& d) {
  return std::accumulate(d.begin(), d.end(), int64_t{1},
                         std::multiplies<int64_t>());
}

class Generator {
 public:
  explicit Generator(ByteSource& source) : src_(source) {}

  std::string Run() {
    const int roots = 1 + src_.Below(2);
    std::vector<Value> results;
    for (int i = 0; i < roots; ++i) {
      // A result in a non-default layout stays one: the tuple names the
      // default layout, and the backend must copy (passes/tuple_layout.h).
      results.push_back(Gen(RandomType(), RandomDims(), 0));
    }
    std::string text = "HloModule differential\n\n";
    for (const std::string& c : computations_) absl::StrAppend(&text, c, "\n");
    absl::StrAppend(&text, "ENTRY main {\n");
    for (const std::string& line : lines_) absl::StrAppend(&text, "  ", line, "\n");
    if (results.size() == 1) {
      absl::StrAppend(&text, "  ROOT root = ",
                      ShapeText(results[0].type, results[0].dims), " copy(",
                      results[0].name, ")\n");
    } else {
      std::vector<std::string> shapes, names;
      for (const Value& v : results) {
        shapes.push_back(ShapeText(v.type, v.dims));
        names.push_back(v.name);
      }
      absl::StrAppend(&text, "  ROOT root = (", absl::StrJoin(shapes, ", "),
                      ") tuple(", absl::StrJoin(names, ", "), ")\n");
    }
    absl::StrAppend(&text, "}\n");
    return text;
  }

 private:
  static constexpr int kMaxDepth = 5;
  static constexpr int kMaxInstructions = 40;

  Type RandomType() { return kTypes[src_.Below(5)]; }

  int64_t RandomDim() {
    // Size 0 now and then: every op must handle empty arrays.
    if (src_.OneIn(24)) return 0;
    return 1 + src_.Below(5);
  }

  Dims RandomDims() {
    Dims d(src_.Below(4));
    for (int64_t& x : d) x = RandomDim();
    return d;
  }

  Value Emit(Type t, const Dims& dims, const std::string& rhs, Magnitude m,
             const std::string& layout = "", const char* prefix = "v") {
    Value v{absl::StrCat(prefix, next_id_++), t, dims, m};
    lines_.push_back(
        absl::StrCat(v.name, " = ", ShapeText(t, dims), layout, " ", rhs));
    pool_.push_back(v);
    return v;
  }

  // An entry parameter. Float parameters get a range the checker honours
  // (MakeDifferentialInput): quarters in [-4, 4], or, for those named
  // "small...", integers in [-2, 2] where a sum needs more headroom in a
  // narrow type.
  Value Parameter(Type t, const Dims& dims, bool small) {
    Magnitude m;
    // Only small parameters are finite (see kSmallPrefix), so only they
    // (and what is computed from them exactly) may feed a dot.
    if (IsFloat(t)) {
      m = small ? Magnitude{true, 2, 0} : Magnitude{true, 4, 2, false};
    }
    if (t == Type::kPred) m = Magnitude{true, 1, 0};
    std::string layout;
    if (dims.size() >= 2 && src_.OneIn(3)) {
      // A non-default layout: the backends must honour it.
      std::vector<int64_t> minor_to_major(dims.size());
      std::iota(minor_to_major.begin(), minor_to_major.end(), 0);
      for (size_t i = minor_to_major.size(); i > 1; --i) {
        std::swap(minor_to_major[i - 1], minor_to_major[src_.Below(i)]);
      }
      layout = absl::StrCat("{", absl::StrJoin(minor_to_major, ","), "}");
    }
    const int number = num_parameters_++;
    return Emit(t, dims, absl::StrCat("parameter(", number, ")"), m, layout,
                small ? kSmallPrefix : "v");
  }

  Value Constant(Type t, const Dims& dims) {
    std::string literal;
    Magnitude m;
    switch (t) {
      case Type::kPred:
        literal = src_.OneIn(2) ? "true" : "false";
        m = Magnitude{true, 1, 0};
        break;
      case Type::kS32: {
        static const char* kEdges[] = {"-2147483648", "2147483647", "0",
                                       "-1"};
        literal = src_.OneIn(4) ? kEdges[src_.Below(4)]
                                : absl::StrCat(src_.Below(101) - 50);
        break;
      }
      default: {
        if (src_.OneIn(8)) {
          static const char* kSpecial[] = {"nan", "inf", "-inf"};
          literal = kSpecial[src_.Below(3)];
          m = Magnitude{true, 0, 0, false};
        } else {
          const int quarters = src_.Below(33) - 16;
          literal = absl::StrCat(quarters / 4.0);
          m = Magnitude{true, std::fabs(quarters / 4.0), 2};
        }
      }
    }
    Value scalar = Emit(t, {}, absl::StrCat("constant(", literal, ")"), m);
    if (dims.empty()) return scalar;
    return Emit(t, dims, absl::StrCat("broadcast(", scalar.name, "), dimensions={}"),
                m);
  }

  // A parameter or a constant, never a computed value.
  Value FreshLeaf(Type t, const Dims& dims) {
    if (num_parameters_ < 6 && src_.OneIn(2)) return Parameter(t, dims, false);
    return Constant(t, dims);
  }

  Value Leaf(Type t, const Dims& dims) {
    std::vector<const Value*> same;
    for (const Value& v : pool_) {
      if (v.type == t && v.dims == dims) same.push_back(&v);
    }
    if (!same.empty() && src_.OneIn(2)) return *same[src_.Below(same.size())];
    if (num_parameters_ < 6 && !src_.OneIn(4)) return Parameter(t, dims, false);
    if (t != Type::kPred && !dims.empty() && src_.OneIn(3)) {
      const int axis = src_.Below(dims.size());
      Magnitude m{true, static_cast<double>(std::max<int64_t>(dims[axis], 1)),
                  0};
      return Emit(t, dims, absl::StrCat("iota(), iota_dimension=", axis), m);
    }
    return Constant(t, dims);
  }

  // A float operand whose sums in `t` over `terms` values are exact (and
  // which is `finite` where that is asked for): the generated value if it
  // qualifies, else a fresh small parameter.
  Value ExactOperand(Type t, const Dims& dims, int depth, double terms,
                     double other_bound, int other_grid, bool finite) {
    Value v = Gen(t, dims, depth + 1);
    auto fits = [&](const Value& x) {
      Magnitude m = x.magnitude;
      m.bound = m.bound * other_bound * terms;
      m.grid += other_grid;
      return FitsExactly(m, t) && (m.finite || !finite);
    };
    if (fits(v)) return v;
    return Parameter(t, dims, true);
  }

  Value Gen(Type t, const Dims& dims, int depth) {
    if (depth >= kMaxDepth ||
        static_cast<int>(lines_.size()) >= kMaxInstructions ||
        src_.OneIn(6)) {
      return Leaf(t, dims);
    }
    switch (src_.Below(12)) {
      case 0:
      case 1:
        return Binary(t, dims, depth);
      case 2:
        return Unary(t, dims, depth);
      case 3:
        if (t == Type::kPred) return Compare(dims, depth);
        return Convert(t, dims, depth);
      case 4:
        return Select(t, dims, depth);
      case 5:
        return Broadcast(t, dims, depth);
      case 6:
        return Reshape(t, dims, depth);
      case 7:
        return Slice(t, dims, depth);
      case 8:
        return Concatenate(t, dims, depth);
      case 9:
        return Transpose(t, dims, depth);
      case 10:
        return Reduce(t, dims, depth);
      default:
        return Dot(t, dims, depth);
    }
  }

  Value Binary(Type t, const Dims& dims, int depth) {
    std::vector<std::string> ops;
    if (t == Type::kPred) {
      ops = {"and", "or", "xor"};
    } else {
      ops = {"add", "subtract", "multiply", "maximum", "minimum", "divide"};
      if (t == Type::kS32) {
        ops.insert(ops.end(), {"remainder", "and", "or", "xor"});
      }
    }
    const std::string op = ops[src_.Below(ops.size())];
    const Value a = Gen(t, dims, depth + 1);
    // The sign of a computed zero is not fixed: a sum starts from +0 in
    // the evaluator, while the simplifier turns a dot or reduce over one
    // element into a multiply or a copy that keeps -0 (as XLA's does).
    // Comparison treats the two alike, but a quotient would turn them into
    // -inf and +inf, so a float divisor is never computed.
    const Value b = op == "divide" && IsFloat(t) ? FreshLeaf(t, dims)
                                                 : Gen(t, dims, depth + 1);
    Magnitude m;
    const Magnitude& x = a.magnitude;
    const Magnitude& y = b.magnitude;
    // A finite result of a NaN or an infinity is the other operand's
    // (maximum(-inf, y) is y), so the bounds hold for the finite elements.
    const bool finite = x.finite && y.finite;
    if (x.exact && y.exact) {
      if (op == "add" || op == "subtract") {
        m = {true, x.bound + y.bound, std::max(x.grid, y.grid), finite};
      } else if (op == "multiply") {
        m = {true, x.bound * y.bound, x.grid + y.grid, finite};
      } else if (op == "maximum" || op == "minimum") {
        m = {true, std::max(x.bound, y.bound), std::max(x.grid, y.grid),
             finite};
      }
    }
    if (IsFloat(t) && !FitsExactly(m, t)) m.exact = false;
    return Emit(t, dims, absl::StrCat(op, "(", a.name, ", ", b.name, ")"), m);
  }

  Value Unary(Type t, const Dims& dims, int depth) {
    const Value a = Gen(t, dims, depth + 1);
    std::string op;
    if (t == Type::kPred) {
      op = "not";
    } else if (t == Type::kS32) {
      static const char* kOps[] = {"negate", "abs", "not"};
      op = kOps[src_.Below(3)];
    } else {
      op = src_.OneIn(2) ? "negate" : "abs";
    }
    return Emit(t, dims, absl::StrCat(op, "(", a.name, ")"), a.magnitude);
  }

  Value Compare(const Dims& dims, int depth) {
    const Type u = RandomType();
    const Value a = Gen(u, dims, depth + 1);
    const Value b = Gen(u, dims, depth + 1);
    static const char* kDirections[] = {"EQ", "NE", "LT", "LE", "GT", "GE"};
    return Emit(Type::kPred, dims,
                absl::StrCat("compare(", a.name, ", ", b.name,
                             "), direction=", kDirections[src_.Below(6)]),
                Magnitude{true, 1, 0});
  }

  Value Convert(Type t, const Dims& dims, int depth) {
    Type u = RandomType();
    if (u == t) u = Type::kPred;
    const Value a = Gen(u, dims, depth + 1);
    Magnitude m;
    if (u == Type::kPred) {
      m = {true, 1, 0};
    } else if (IsFloat(u) && FitsExactly(a.magnitude, t)) {
      m = a.magnitude;
    }
    return Emit(t, dims, absl::StrCat("convert(", a.name, ")"), m);
  }

  Value Select(Type t, const Dims& dims, int depth) {
    const Value p = Gen(Type::kPred, dims, depth + 1);
    const Value a = Gen(t, dims, depth + 1);
    const Value b = Gen(t, dims, depth + 1);
    Magnitude m;
    if (a.magnitude.exact && b.magnitude.exact) {
      m = {true, std::max(a.magnitude.bound, b.magnitude.bound),
           std::max(a.magnitude.grid, b.magnitude.grid),
           a.magnitude.finite && b.magnitude.finite};
    }
    return Emit(t, dims,
                absl::StrCat("select(", p.name, ", ", a.name, ", ", b.name, ")"),
                m);
  }

  Value Broadcast(Type t, const Dims& dims, int depth) {
    std::vector<int64_t> kept;
    Dims operand_dims;
    for (size_t i = 0; i < dims.size(); ++i) {
      if (src_.OneIn(2)) {
        kept.push_back(i);
        operand_dims.push_back(dims[i]);
      }
    }
    const Value a = Gen(t, operand_dims, depth + 1);
    return Emit(t, dims,
                absl::StrCat("broadcast(", a.name, "), dimensions={",
                             absl::StrJoin(kept, ","), "}"),
                a.magnitude);
  }

  Value Reshape(Type t, const Dims& dims, int depth) {
    const int64_t n = Product(dims);
    Dims operand_dims;
    if (dims.size() == 1 && n > 1) {
      // Split into two factors (n itself when prime: [n, 1]).
      int64_t f = 1;
      for (int64_t d = 2; d <= n; ++d) {
        if (n % d == 0 && src_.OneIn(2)) {
          f = d;
          break;
        }
      }
      operand_dims = {n / f, f};
    } else if (dims.size() != 1) {
      operand_dims = {n};
    } else {
      operand_dims = {1, n};
    }
    const Value a = Gen(t, operand_dims, depth + 1);
    return Emit(t, dims, absl::StrCat("reshape(", a.name, ")"), a.magnitude);
  }

  Value Slice(Type t, const Dims& dims, int depth) {
    Dims operand_dims;
    std::vector<std::string> ranges;
    for (int64_t d : dims) {
      const int64_t stride = 1 + src_.Below(2);
      const int64_t start = src_.Below(3);
      const int64_t limit = d == 0 ? start : start + (d - 1) * stride + 1;
      operand_dims.push_back(limit + src_.Below(3));
      ranges.push_back(absl::StrCat("[", start, ":", limit,
                                    stride > 1 ? absl::StrCat(":", stride) : "",
                                    "]"));
    }
    const Value a = Gen(t, operand_dims, depth + 1);
    return Emit(t, dims,
                absl::StrCat("slice(", a.name, "), slice={",
                             absl::StrJoin(ranges, ", "), "}"),
                a.magnitude);
  }

  Value Concatenate(Type t, const Dims& dims, int depth) {
    if (dims.empty()) return Leaf(t, dims);
    const int axis = src_.Below(dims.size());
    const int64_t first = src_.Below(dims[axis] + 1);
    Dims a_dims = dims, b_dims = dims;
    a_dims[axis] = first;
    b_dims[axis] = dims[axis] - first;
    const Value a = Gen(t, a_dims, depth + 1);
    const Value b = Gen(t, b_dims, depth + 1);
    Magnitude m;
    if (a.magnitude.exact && b.magnitude.exact) {
      m = {true, std::max(a.magnitude.bound, b.magnitude.bound),
           std::max(a.magnitude.grid, b.magnitude.grid),
           a.magnitude.finite && b.magnitude.finite};
    }
    return Emit(t, dims,
                absl::StrCat("concatenate(", a.name, ", ", b.name,
                             "), dimensions={", axis, "}"),
                m);
  }

  Value Transpose(Type t, const Dims& dims, int depth) {
    std::vector<int64_t> perm(dims.size());
    std::iota(perm.begin(), perm.end(), 0);
    for (size_t i = perm.size(); i > 1; --i) {
      std::swap(perm[i - 1], perm[src_.Below(i)]);
    }
    Dims operand_dims(dims.size());
    for (size_t i = 0; i < dims.size(); ++i) operand_dims[perm[i]] = dims[i];
    const Value a = Gen(t, operand_dims, depth + 1);
    return Emit(t, dims,
                absl::StrCat("transpose(", a.name, "), dimensions={",
                             absl::StrJoin(perm, ","), "}"),
                a.magnitude);
  }

  // The scalar computation a reduce applies, declared once per kind.
  std::string ReduceComputation(Type t, const std::string& op) {
    const std::string name = absl::StrCat(op, "_", TypeName(t));
    if (declared_.insert(name).second) {
      const std::string s = TypeName(t);
      computations_.push_back(absl::StrCat(
          name, " {\n  a = ", s, "[] parameter(0)\n  b = ", s,
          "[] parameter(1)\n  ROOT r = ", s, "[] ", op, "(a, b)\n}\n"));
    }
    return name;
  }

  Value Reduce(Type t, const Dims& dims, int depth) {
    if (dims.size() >= 3) return Leaf(t, dims);
    // Insert one or two reduced dimensions among the kept ones.
    Dims operand_dims = dims;
    std::vector<int64_t> reduced;
    const int count = 1 + src_.Below(2);
    for (int i = 0; i < count; ++i) {
      const int at = src_.Below(operand_dims.size() + 1);
      operand_dims.insert(operand_dims.begin() + at, RandomDim());
      for (int64_t& r : reduced) {
        if (r >= at) ++r;
      }
      reduced.push_back(at);
    }
    std::sort(reduced.begin(), reduced.end());
    double terms = 1;
    for (int64_t r : reduced) terms *= std::max<int64_t>(operand_dims[r], 1);

    std::string op, init;
    if (t == Type::kPred) {
      op = src_.OneIn(2) ? "and" : "or";
      init = op == "and" ? "true" : "false";
    } else {
      static const char* kOps[] = {"add", "maximum", "minimum"};
      op = kOps[src_.Below(3)];
      if (op == "add") {
        init = "0";
      } else if (IsFloat(t)) {
        init = op == "maximum" ? "-inf" : "inf";
      } else {
        init = op == "maximum" ? "-2147483648" : "2147483647";
      }
    }
    Value a;
    Magnitude m;
    if (IsFloat(t) && op == "add") {
      // A float sum is compared exactly, so every partial sum must be.
      a = ExactOperand(t, operand_dims, depth, terms, 1, 0, /*finite=*/false);
      m = a.magnitude;
      m.bound *= terms;
      if (!FitsExactly(m, t)) return Leaf(t, dims);
    } else {
      a = Gen(t, operand_dims, depth + 1);
      m = a.magnitude;
      // A maximum or minimum over no elements is its init, an infinity.
      bool empty = false;
      for (int64_t r : reduced) empty |= operand_dims[r] == 0;
      if (empty && IsFloat(t)) m.finite = false;
    }
    const Value zero = Emit(t, {}, absl::StrCat("constant(", init, ")"),
                            Magnitude{true, 0, 0});
    return Emit(t, dims,
                absl::StrCat("reduce(", a.name, ", ", zero.name,
                             "), dimensions={", absl::StrJoin(reduced, ","),
                             "}, to_apply=", ReduceComputation(t, op)),
                m);
  }

  Value Dot(Type t, const Dims& dims, int depth) {
    if (t == Type::kPred || dims.size() > 3) return Leaf(t, dims);
    if ((dims.size() == 2 || dims.size() == 3) && src_.OneIn(3)) {
      return RaggedDot(t, dims, depth);
    }
    const int64_t k = RandomDim();
    Dims lhs, rhs;
    std::string attrs;
    switch (dims.size()) {
      case 0:
        lhs = {k};
        rhs = {k};
        attrs = "lhs_contracting_dims={0}, rhs_contracting_dims={0}";
        break;
      case 1:
        lhs = {k};
        rhs = {k, dims[0]};
        attrs = "lhs_contracting_dims={0}, rhs_contracting_dims={0}";
        break;
      case 2:
        lhs = {dims[0], k};
        rhs = {k, dims[1]};
        attrs = "lhs_contracting_dims={1}, rhs_contracting_dims={0}";
        break;
      default:
        lhs = {dims[0], dims[1], k};
        rhs = {dims[0], k, dims[2]};
        attrs =
            "lhs_batch_dims={0}, lhs_contracting_dims={2}, "
            "rhs_batch_dims={0}, rhs_contracting_dims={1}";
    }
    // As for sums: every product and partial sum must be exact in t.
    const std::optional<Factors> f =
        ContractionOperands(t, lhs, rhs, depth, std::max<int64_t>(k, 1));
    if (!f) return Leaf(t, dims);
    return Emit(t, dims,
                absl::StrCat("dot(", f->a.name, ", ", f->b.name, "), ", attrs),
                f->product);
  }

  // The operands of a contraction of `terms` products per result: for a
  // float type, values whose products and their sums are exact in t (the
  // result's magnitude in `product`), nullopt where no such pair fits.
  struct Factors {
    Value a, b;
    Magnitude product;
  };
  std::optional<Factors> ContractionOperands(Type t, const Dims& lhs,
                                             const Dims& rhs, int depth,
                                             double terms) {
    Factors f;
    if (!IsFloat(t)) {
      f.a = Gen(t, lhs, depth + 1);
      f.b = Gen(t, rhs, depth + 1);
      return f;
    }
    f.a = ExactOperand(t, lhs, depth, terms, 4, 2, /*finite=*/true);
    f.b = ExactOperand(t, rhs, depth, terms, f.a.magnitude.bound,
                       f.a.magnitude.grid, /*finite=*/true);
    f.product = {true, terms * f.a.magnitude.bound * f.b.magnitude.bound,
                 f.a.magnitude.grid + f.b.magnitude.grid};
    if (!FitsExactly(f.product, t)) return std::nullopt;
    return f;
  }

  // ragged-dot (hlo/ragged_dot.h): [m, n] from lhs [m, k] whose rows fall
  // in groups, each row times its group's [k, n] of rhs [g, k, n]; or
  // [g, m, n], the contraction over k split among the g groups. The sizes
  // are a constant, some zero or negative (empty or overlapping groups),
  // their sum short of, at or past the ragged dimension: the cpu backend
  // computes the expansion (passes/ragged_dot_expander.h), the evaluator
  // the groups directly.
  Value RaggedDot(Type t, const Dims& dims, int depth) {
    const bool rows = dims.size() == 2;
    const int64_t groups = rows ? 1 + src_.Below(4) : dims[0];
    if (groups == 0) return Leaf(t, dims);
    const int64_t m = dims[rows ? 0 : 1], n = dims[rows ? 1 : 2];
    const int64_t k = RandomDim();
    const int64_t extent = rows ? m : k;
    std::vector<int64_t> sizes;
    for (int64_t i = 0; i < groups; ++i) {
      sizes.push_back(static_cast<int64_t>(src_.Below(extent + 3)) - 1);
    }
    const Dims lhs = {m, k};
    const Dims rhs = rows ? Dims{groups, k, n} : Dims{k, n};
    const std::string attrs =
        rows ? "lhs_contracting_dims={1}, rhs_contracting_dims={1}, "
               "lhs_ragged_dims={0}, rhs_group_dims={0}"
             : "lhs_contracting_dims={1}, rhs_contracting_dims={0}, "
               "lhs_ragged_dims={1}";
    // Overlapping groups sum up to every group's k terms.
    const std::optional<Factors> f = ContractionOperands(
        t, lhs, rhs, depth, std::max<int64_t>(k * groups, 1));
    if (!f) return Leaf(t, dims);
    const Value s =
        Emit(Type::kS32, {groups},
             absl::StrCat("constant({", absl::StrJoin(sizes, ", "), "})"), {});
    return Emit(t, dims,
                absl::StrCat("ragged-dot(", f->a.name, ", ", f->b.name, ", ",
                             s.name, "), ", attrs),
                f->product);
  }

  ByteSource& src_;
  std::vector<std::string> lines_;
  std::vector<std::string> computations_;
  std::set<std::string> declared_;
  std::vector<Value> pool_;
  int next_id_ = 0;
  int num_parameters_ = 0;
};

}  // namespace

std::string GenerateModule(ByteSource& source) {
  return Generator(source).Run();
}

}  // namespace fuzz
}  // namespace hloc
