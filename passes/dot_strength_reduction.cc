#include "passes/dot_strength_reduction.h"

#include <algorithm>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "hlo/computation.h"
#include "hlo/literal.h"
#include "hlo/module.h"
#include "hlo/primitive_type.h"

namespace hloc {
namespace {

bool Contains(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

int64_t Product(const Shape& shape, const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= shape.dimensions(d);
  return n;
}

// The type the products are multiplied and summed in.
PrimitiveType AccumulatorType(PrimitiveType out) {
  return out == BF16 || out == F16 ? F32 : out;
}

// Types whose multiply and add every backend computes: 16-, 32- and 64-bit
// floats, complex and integers of 8 bits or more.
bool ReducibleType(PrimitiveType type) {
  if (IsComplexType(type)) return true;
  if (IsIntegralType(type)) return !IsSubByteIntegralType(type);
  return type == BF16 || type == F16 || type == F32 || type == F64;
}

// One dot operand's dimensions by role.
struct OperandDims {
  std::vector<int64_t> batch;
  std::vector<int64_t> contracting;
  std::vector<int64_t> free;  // ascending, as the dot's output lists them
};

OperandDims DimsOf(const Shape& shape, const std::vector<int64_t>& batch,
                   const std::vector<int64_t>& contracting) {
  return {batch, contracting,
          DotFreeDimensions(shape.rank(), batch, contracting)};
}

HloInstruction* Add(HloComputation* computation,
                    std::unique_ptr<HloInstruction> instr) {
  return computation->AddInstruction(std::move(instr));
}

HloInstruction* ConvertTo(HloComputation* computation, HloInstruction* x,
                          PrimitiveType type) {
  if (x->shape().element_type() == type) return x;
  return Add(computation, HloInstruction::CreateUnary(
                              Shape::Array(type, x->shape().dimensions()),
                              HloOpcode::kConvert, x));
}

// Output dimension i of the result is x's dimension perm[i]; x itself for
// the identity.
HloInstruction* TransposeTo(HloComputation* computation, HloInstruction* x,
                            const std::vector<int64_t>& perm) {
  std::vector<int64_t> identity(perm.size());
  std::iota(identity.begin(), identity.end(), 0);
  if (perm == identity) return x;
  std::vector<int64_t> dims;
  for (int64_t p : perm) dims.push_back(x->shape().dimensions(p));
  return Add(computation,
             HloInstruction::CreateTranspose(
                 Shape::Array(x->shape().element_type(), dims), x, perm));
}

// x broadcast into `shape`, its dimension d landing on positions[d]: the
// operand is first transposed so that the positions ascend.
HloInstruction* BroadcastTo(HloComputation* computation, HloInstruction* x,
                            const std::vector<int64_t>& positions,
                            const Shape& shape) {
  std::vector<int64_t> perm(positions.size());
  std::iota(perm.begin(), perm.end(), 0);
  std::sort(perm.begin(), perm.end(),
            [&](int64_t a, int64_t b) { return positions[a] < positions[b]; });
  std::vector<int64_t> sorted;
  for (int64_t p : perm) sorted.push_back(positions[p]);
  return Add(computation,
             HloInstruction::CreateBroadcast(
                 shape, TransposeTo(computation, x, perm), sorted));
}

// scalar add of `type`, for the reduce.
HloComputation* AddComputation(HloModule* module, PrimitiveType type,
                               const HloComputation* caller) {
  auto add = std::make_unique<HloComputation>(
      absl::StrCat("dot_sum_", PrimitiveTypeName(type)));
  const Shape scalar = Shape::Scalar(type);
  HloInstruction* x =
      add->AddParameter(HloInstruction::CreateParameter(0, scalar, "x"));
  HloInstruction* y =
      add->AddParameter(HloInstruction::CreateParameter(1, scalar, "y"));
  add->set_root_instruction(add->AddInstruction(
      HloInstruction::CreateBinary(scalar, HloOpcode::kAdd, x, y)));
  return module->AddEmbeddedComputation(std::move(add), caller);
}

absl::StatusOr<bool> Reduce(HloComputation* computation, HloInstruction* dot) {
  if (!ShouldStrengthReduceDot(*dot)) return false;
  if (IsDefaultPrecisionF32Contraction(*dot)) {
    // This sum is full f32; a GPU might have run the dot with TF32.
    computation->parent()
        ->mutable_config()
        .frontend_attributes[kRewroteDefaultPrecisionF32Contractions] = "true";
  }
  const DotDimensionNumbers& dn = *dot->attrs().dot_dimension_numbers;
  const PrimitiveType out = dot->shape().element_type();
  const PrimitiveType acc = AccumulatorType(out);
  HloInstruction* lhs = ConvertTo(computation, dot->operand(0), acc);
  HloInstruction* rhs = ConvertTo(computation, dot->operand(1), acc);
  const OperandDims lhs_dims = DimsOf(lhs->shape(), dn.lhs_batch_dimensions,
                                      dn.lhs_contracting_dimensions);
  const OperandDims rhs_dims = DimsOf(rhs->shape(), dn.rhs_batch_dimensions,
                                      dn.rhs_contracting_dimensions);
  const bool big_is_lhs =
      lhs->shape().ElementCount() >= rhs->shape().ElementCount();
  HloInstruction* big = big_is_lhs ? lhs : rhs;
  HloInstruction* small = big_is_lhs ? rhs : lhs;
  const OperandDims& bd = big_is_lhs ? lhs_dims : rhs_dims;
  const OperandDims& sd = big_is_lhs ? rhs_dims : lhs_dims;
  // The product's dimensions: the dot's output dimensions in its order
  // (batch, lhs free, rhs free), so that the sum needs no transpose, and
  // the larger operand's contracted ones each just after the dimension
  // before it in that operand's physical order (outermost for its
  // outermost), so that the reduction reads it in its order: a matrix
  // times a vector sums its rows, a vector times a matrix its columns.
  struct Source {
    bool big;
    int64_t dim;
    bool operator==(const Source& o) const {
      return big == o.big && dim == o.dim;
    }
  };
  std::vector<Source> product;
  for (int64_t d : bd.batch) product.push_back({true, d});
  for (int64_t d : lhs_dims.free) product.push_back({big_is_lhs, d});
  for (int64_t d : rhs_dims.free) product.push_back({!big_is_lhs, d});
  const std::vector<int64_t> m2m =
      dot->operand(big_is_lhs ? 0 : 1)->shape().MinorToMajor();
  const std::vector<int64_t> big_order(m2m.rbegin(), m2m.rend());
  for (size_t t = 0; t < big_order.size(); ++t) {
    if (!Contains(bd.contracting, big_order[t])) continue;
    auto at = product.begin();
    if (t > 0) {
      at = std::find(product.begin(), product.end(),
                     Source{true, big_order[t - 1]}) +
           1;
    }
    product.insert(at, Source{true, big_order[t]});
  }
  auto position = [&](bool from_big, int64_t d) {
    return static_cast<int64_t>(
        std::find(product.begin(), product.end(), Source{from_big, d}) -
        product.begin());
  };
  std::vector<int64_t> big_position(big->shape().rank());
  for (int64_t d = 0; d < big->shape().rank(); ++d) {
    big_position[d] = position(true, d);
  }
  std::vector<int64_t> small_position(small->shape().rank());
  for (int64_t d : sd.free) small_position[d] = position(false, d);
  for (size_t i = 0; i < sd.batch.size(); ++i) {
    small_position[sd.batch[i]] = big_position[bd.batch[i]];
  }
  for (size_t i = 0; i < sd.contracting.size(); ++i) {
    small_position[sd.contracting[i]] = big_position[bd.contracting[i]];
  }
  std::vector<int64_t> product_dims;
  for (const Source& source : product) {
    product_dims.push_back(
        (source.big ? big : small)->shape().dimensions(source.dim));
  }
  const Shape product_shape = Shape::Array(acc, product_dims);
  HloInstruction* big_terms =
      BroadcastTo(computation, big, big_position, product_shape);
  HloInstruction* small_terms =
      BroadcastTo(computation, small, small_position, product_shape);
  HloInstruction* terms =
      Add(computation,
          HloInstruction::CreateBinary(product_shape, HloOpcode::kMultiply,
                                       big_is_lhs ? big_terms : small_terms,
                                       big_is_lhs ? small_terms : big_terms));
  // Sum over the contracted positions; the others are the output's.
  std::vector<int64_t> reduced, kept_dims;
  for (int64_t p = 0; p < static_cast<int64_t>(product.size()); ++p) {
    if (product[p].big && Contains(bd.contracting, product[p].dim)) {
      reduced.push_back(p);
    } else {
      kept_dims.push_back(product_dims[p]);
    }
  }
  Literal zero = Literal::CreateUninitialized(Shape::Scalar(acc));
  zero.SetFromDouble(0, 0.0);
  HloInstruction* init =
      Add(computation, HloInstruction::CreateConstant(std::move(zero)));
  HloInstruction* sum =
      Add(computation,
          HloInstruction::CreateReduce(
              Shape::Array(acc, kept_dims), {terms, init}, reduced,
              AddComputation(computation->parent(), acc, computation)));
  // The dot's type.
  HloInstruction* result = ConvertTo(computation, sum, out);
  if (!result->shape().Equal(dot->shape(), /*compare_layouts=*/true)) {
    // The dot's own layout.
    result = Add(computation, HloInstruction::Create(HloOpcode::kCopy,
                                                     dot->shape(), {result}));
  }
  if (absl::Status s = computation->ReplaceInstruction(dot, result); !s.ok()) {
    return s;
  }
  return true;
}

}  // namespace

bool ShouldStrengthReduceDot(const HloInstruction& dot) {
  if (dot.opcode() != HloOpcode::kDot || !dot.shape().IsArray() ||
      !dot.attrs().dot_dimension_numbers.has_value()) {
    return false;
  }
  const std::optional<PrecisionConfig>& precision =
      dot.attrs().precision_config;
  if (precision.has_value() && precision->algorithm != 0) return false;
  const Shape& lhs = dot.operand(0)->shape();
  const Shape& rhs = dot.operand(1)->shape();
  const PrimitiveType out = dot.shape().element_type();
  if (!lhs.IsArray() || !rhs.IsArray() || !ReducibleType(out) ||
      !ReducibleType(lhs.element_type()) ||
      !ReducibleType(rhs.element_type())) {
    return false;
  }
  // A complex operand cannot become a real product.
  if (!IsComplexType(out) && (IsComplexType(lhs.element_type()) ||
                              IsComplexType(rhs.element_type()))) {
    return false;
  }
  const DotDimensionNumbers& dn = *dot.attrs().dot_dimension_numbers;
  const int64_t b = Product(lhs, dn.lhs_batch_dimensions);
  const int64_t k = Product(lhs, dn.lhs_contracting_dimensions);
  const int64_t m =
      Product(lhs, DotFreeDimensions(lhs.rank(), dn.lhs_batch_dimensions,
                                     dn.lhs_contracting_dimensions));
  const int64_t n =
      Product(rhs, DotFreeDimensions(rhs.rank(), dn.rhs_batch_dimensions,
                                     dn.rhs_contracting_dimensions));
  if (b * m * n == 0 || k == 0) return false;  // nothing to sum: simplifier's
  if (m == 1 && n == 1) return true;
  if (m == 1 || n == 1) {
    return b * (m + n) * k < DotStrengthReduction::kMaxVectorOperandElements;
  }
  // Overflow-free: each factor is at most the operands' element counts.
  const double terms = static_cast<double>(b) * m * n * k;
  return terms <=
         static_cast<double>(DotStrengthReduction::kMaxReducedProducts);
}

absl::StatusOr<bool> DotStrengthReduction::Run(HloModule* module) {
  return RewriteEach(module, HloOpcode::kDot, "dots-strength-reduced",
                     [&](HloComputation* computation, HloInstruction* instr) {
                       return Reduce(computation, instr);
                     });
}

}  // namespace hloc
