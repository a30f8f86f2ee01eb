// Shape inference with XLA's rules. Every attribute value is range-checked
// before it indexes anything, and sizes are computed with overflow checks, so
// malformed input gives an error, never a crash.
//
// Opcodes without inference (HasShapeInference is false), which the verifier
// accepts after its generic checks: async-start, async-update, async-done,
// custom-call, all-gather-start, all-gather-done, collective-broadcast,
// collective-permute-start, collective-permute-done, collective-reduce,
// ragged-all-to-all, scaled-dot, shuffle.
#include "hlo/shape_inference.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hlo/computation.h"
#include "hlo/ragged_dot.h"
#include "hlo/status_macros.h"

namespace hloc {
namespace {

template <typename... Args>
absl::Status InvalidArgument(const Args&... args) {
  return absl::InvalidArgumentError(absl::StrCat(args...));
}

// Shapes and index lists as they appear in messages: no layouts.
std::string Str(const Shape& shape) { return shape.ToString(false); }
std::string Str(absl::Span<const int64_t> values) {
  return absl::StrCat("{", absl::StrJoin(values, ","), "}");
}

Shape WithElementType(Shape shape, PrimitiveType type) {
  shape.set_element_type(type);
  return shape;
}

Shape ScalarShape(PrimitiveType type) { return Shape::Scalar(type); }

bool IsFloat(PrimitiveType t) { return IsFloatingPointType(t); }
bool IsSigned(PrimitiveType t) {
  return IsSignedIntegralType(t) || IsFloatingPointType(t);
}

bool CheckedAdd(int64_t a, int64_t b, int64_t* out) {
  return !__builtin_add_overflow(a, b, out);
}
bool CheckedMul(int64_t a, int64_t b, int64_t* out) {
  return !__builtin_mul_overflow(a, b, out);
}

// XLA's primitive_util::HigherPrecisionType: complex over real, then the
// wider exponent, the wider mantissa, the wider type, signed over unsigned.
PrimitiveType HigherPrecisionType(PrimitiveType a, PrimitiveType b) {
  auto key = [](PrimitiveType t) {
    PrimitiveType c = IsComplexType(t) ? ComplexComponentType(t) : t;
    FloatFormat f = FloatFormatOf(c);
    bool fp = IsFloatingPointType(c);
    return std::make_tuple(IsComplexType(t), fp ? f.exponent_bits : -1,
                           fp ? f.mantissa_bits : -1, BitWidth(c),
                           IsSignedIntegralType(c));
  };
  return key(a) >= key(b) ? a : b;
}

absl::Status ExpectArray(const Shape& shape, absl::string_view what) {
  if (!shape.IsArray()) {
    return InvalidArgument(what, " must be an array, got ", Str(shape));
  }
  return absl::OkStatus();
}

// Each value lies in [0, rank) and appears once.
absl::Status CheckDimensionList(absl::Span<const int64_t> dims, int64_t rank,
                                absl::string_view what) {
  // The verifier checks every layout of every shape after every pass: short
  // lists (all real ones) are searched rather than hashed.
  constexpr size_t kShortList = 16;
  absl::flat_hash_set<int64_t> seen;
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t d = dims[i];
    if (d < 0 || d >= rank) {
      return InvalidArgument(what, " ", Str(dims), " has dimension ", d,
                             " out of range for rank ", rank);
    }
    const bool repeated =
        dims.size() <= kShortList
            ? std::find(dims.begin(), dims.begin() + i, d) != dims.begin() + i
            : !seen.insert(d).second;
    if (repeated) {
      return InvalidArgument(what, " ", Str(dims), " repeats dimension ", d);
    }
  }
  return absl::OkStatus();
}

absl::Status CheckSorted(absl::Span<const int64_t> dims,
                         absl::string_view what) {
  if (!std::is_sorted(dims.begin(), dims.end())) {
    return InvalidArgument(what, " ", Str(dims), " must be sorted");
  }
  return absl::OkStatus();
}

bool Contains(absl::Span<const int64_t> values, int64_t v) {
  return std::find(values.begin(), values.end(), v) != values.end();
}

// How a gather or a scatter names its batching dimensions in errors.
struct BatchingNames {
  absl::string_view op;            // "gather"
  absl::string_view indices_list;  // "gather start_indices_batching_dims"
  absl::string_view operand_side;  // "operand"
  absl::string_view index_side;    // "start-index"
};

// The indices' batching dimensions are a valid list without
// index_vector_dim, and pair up with the operand's batching dimensions,
// same count and same sizes.
absl::Status CheckBatchingDims(const Shape& operand,
                               absl::Span<const int64_t> operand_batching,
                               const Shape& indices,
                               absl::Span<const int64_t> indices_batching,
                               int64_t index_vector_dim,
                               const BatchingNames& names) {
  HLOC_RETURN_IF_ERROR(CheckDimensionList(indices_batching, indices.rank(),
                                          names.indices_list));
  if (Contains(indices_batching, index_vector_dim)) {
    return InvalidArgument(names.indices_list, " ", Str(indices_batching),
                           " contains index_vector_dim ", index_vector_dim);
  }
  if (operand_batching.size() != indices_batching.size()) {
    return InvalidArgument(names.op, " has ", operand_batching.size(), " ",
                           names.operand_side, " batching dimensions but ",
                           indices_batching.size(), " ", names.index_side,
                           " batching dimensions");
  }
  for (size_t i = 0; i < operand_batching.size(); ++i) {
    if (operand.dimensions(operand_batching[i]) !=
        indices.dimensions(indices_batching[i])) {
      return InvalidArgument(
          names.op, " batching dimension sizes differ: operand dimension ",
          operand_batching[i], " of ", Str(operand), " vs ", names.index_side,
          " dimension ", indices_batching[i], " of ", Str(indices));
    }
  }
  return absl::OkStatus();
}

// Same element type and dimensions; dynamic flags may differ.
bool SameTypeAndDimensions(const Shape& a, const Shape& b) {
  return a.element_type() == b.element_type() && a.SameDimensions(b);
}

// `shape` with the dynamic flags of `other` (same rank) OR'ed in.
Shape MergeDynamic(Shape shape, const Shape& other) {
  for (int64_t i = 0; i < shape.rank() && i < other.rank(); ++i) {
    if (other.is_dynamic_dimension(i)) shape.set_dynamic_dimension(i, true);
  }
  return shape;
}

Shape MakeArray(PrimitiveType type, std::vector<int64_t> dims,
                const std::vector<bool>& dynamic) {
  Shape shape = Shape::Array(type, std::move(dims));
  for (int64_t i = 0;
       i < shape.rank() && i < static_cast<int64_t>(dynamic.size()); ++i) {
    shape.set_dynamic_dimension(i, dynamic[i]);
  }
  return shape;
}

Shape TupleOrSingle(std::vector<Shape> shapes) {
  if (shapes.size() == 1) return shapes[0];
  return Shape::Tuple(std::move(shapes));
}

// Bound of a dimension after dilation: (bound - 1) * dilation + 1.
bool DilatedBound(int64_t bound, int64_t dilation, int64_t* out) {
  if (bound == 0) {
    *out = 0;
    return true;
  }
  int64_t t;
  return CheckedMul(bound - 1, dilation, &t) && CheckedAdd(t, 1, out);
}

// Positions a window of `window_size` fits in `bound` with `stride`.
int64_t StridedBound(int64_t bound, int64_t window_size, int64_t stride) {
  if (window_size > bound) return 0;
  return (bound - window_size) / stride + 1;
}

// A reducer (accumulators..., elements...) -> accumulator(s) over N inputs.
absl::Status VerifyReducer(const ProgramShape& reducer,
                           absl::Span<const Shape> init_values,
                           absl::Span<const PrimitiveType> input_types,
                           absl::string_view what) {
  const int64_t n = static_cast<int64_t>(input_types.size());
  const int64_t num_params = static_cast<int64_t>(reducer.parameters.size());
  if (num_params != 2 * n) {
    return InvalidArgument(what, " must take ", 2 * n,
                           " parameters, but takes ", num_params);
  }
  std::vector<Shape> accumulators;
  const Shape& result = reducer.result;
  if (result.IsArray()) {
    if (n != 1) {
      return InvalidArgument(what, " must return a tuple of ", n,
                             " scalars, but returns ", Str(result));
    }
    accumulators.push_back(result);
  } else if (result.IsTuple()) {
    if (result.tuple_shapes_size() != n) {
      return InvalidArgument(what, " must return ", n, " scalars, but returns ",
                             Str(result));
    }
    accumulators = result.tuple_shapes();
  } else {
    return InvalidArgument(what, " must return scalars, but returns ",
                           Str(result));
  }
  for (const Shape& acc : accumulators) {
    if (!acc.IsScalar()) {
      return InvalidArgument(what, " must return scalars, but returns ",
                             Str(result));
    }
  }
  for (int64_t i = 0; i < n; ++i) {
    if (!reducer.parameters[i].Compatible(accumulators[i])) {
      return InvalidArgument(what, " parameter ", i, " has shape ",
                             Str(reducer.parameters[i]), " but its result ", i,
                             " has shape ", Str(accumulators[i]));
    }
    if (!init_values[i].Compatible(accumulators[i])) {
      return InvalidArgument("init value ", i, " has shape ",
                             Str(init_values[i]), " but ", what, " result ", i,
                             " has shape ", Str(accumulators[i]));
    }
    Shape element = ScalarShape(input_types[i]);
    if (!reducer.parameters[n + i].Compatible(element)) {
      return InvalidArgument(what, " parameter ", n + i, " has shape ",
                             Str(reducer.parameters[n + i]), " but input ", i,
                             " has element type ",
                             PrimitiveTypeName(input_types[i]));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<PrimitiveType> MaybeUpcast(PrimitiveType from,
                                          std::optional<PrimitiveType> to) {
  if (!to.has_value() || *to == from) return from;
  if (!IsArrayType(*to)) {
    return InvalidArgument("result element type ", PrimitiveTypeName(*to),
                           " is not an array type");
  }
  if (!IsFloat(from) && BitWidth(*to) < BitWidth(from)) {
    return InvalidArgument("result element type ", PrimitiveTypeName(*to),
                           " is narrower than the operand type ",
                           PrimitiveTypeName(from));
  }
  return *to;
}

}  // namespace

absl::Status ValidateShape(const Shape& shape) {
  const PrimitiveType type = shape.element_type();
  if (shape.IsTuple()) {
    for (int64_t i = 0; i < shape.tuple_shapes_size(); ++i) {
      absl::Status status = ValidateShape(shape.tuple_shapes(i));
      if (!status.ok()) {
        return InvalidArgument("tuple element ", i, ": ", status.message());
      }
    }
    return absl::OkStatus();
  }
  if (type == TOKEN || type == OPAQUE_TYPE) return absl::OkStatus();
  if (!IsArrayType(type) || PrimitiveTypeName(type) == "invalid") {
    return InvalidArgument("shape has invalid element type ",
                           static_cast<int>(type));
  }
  if (static_cast<int64_t>(shape.dynamic_dimensions().size()) != shape.rank()) {
    return InvalidArgument("shape has ", shape.rank(), " dimensions but ",
                           shape.dynamic_dimensions().size(),
                           " dynamic-dimension flags");
  }
  int64_t elements = 1;
  for (int64_t d : shape.dimensions()) {
    if (d < 0) {
      return InvalidArgument("shape ", Str(shape),
                             " has a negative dimension size");
    }
    if (!CheckedMul(elements, d, &elements)) {
      return InvalidArgument("shape ", Str(shape),
                             " has more elements than fit in 64 bits");
    }
  }
  if (shape.has_layout()) {
    const std::vector<int64_t>& m2m = shape.layout().minor_to_major;
    if (static_cast<int64_t>(m2m.size()) != shape.rank() ||
        !CheckDimensionList(m2m, shape.rank(), "minor_to_major").ok()) {
      return InvalidArgument("layout {", absl::StrJoin(m2m, ","),
                             "} is not a permutation of the ", shape.rank(),
                             " dimensions of ", Str(shape));
    }
  }
  return absl::OkStatus();
}

// ----------------------------------------------------------------------------
// Elementwise
// ----------------------------------------------------------------------------

absl::StatusOr<Shape> InferUnaryOpShape(HloOpcode opcode,
                                        const Shape& operand) {
  const absl::string_view name = HloOpcodeString(opcode);
  if (opcode == HloOpcode::kCopy || opcode == HloOpcode::kDomain ||
      opcode == HloOpcode::kOptimizationBarrier) {
    return operand;
  }
  HLOC_RETURN_IF_ERROR(ExpectArray(operand, absl::StrCat("operand of ", name)));
  const PrimitiveType t = operand.element_type();
  auto expect = [&](bool ok, absl::string_view kinds) -> absl::Status {
    if (ok) return absl::OkStatus();
    return InvalidArgument(name, " expects ", kinds, " operand, got ",
                           Str(operand));
  };
  switch (opcode) {
    case HloOpcode::kFloor:
    case HloOpcode::kCeil:
    case HloOpcode::kRoundNearestAfz:
    case HloOpcode::kRoundNearestEven:
    case HloOpcode::kErf:
      HLOC_RETURN_IF_ERROR(expect(IsFloat(t), "a floating-point"));
      return operand;
    case HloOpcode::kAcos:
    case HloOpcode::kAcosh:
    case HloOpcode::kAsin:
    case HloOpcode::kAsinh:
    case HloOpcode::kAtan:
    case HloOpcode::kAtanh:
    case HloOpcode::kCbrt:
    case HloOpcode::kCos:
    case HloOpcode::kCosh:
    case HloOpcode::kExp:
    case HloOpcode::kExpm1:
    case HloOpcode::kLog:
    case HloOpcode::kLog1p:
    case HloOpcode::kLogistic:
    case HloOpcode::kRsqrt:
    case HloOpcode::kSin:
    case HloOpcode::kSinh:
    case HloOpcode::kSqrt:
    case HloOpcode::kTan:
    case HloOpcode::kTanh:
      HLOC_RETURN_IF_ERROR(expect(IsFloat(t) || IsComplexType(t),
                                  "a floating-point or complex"));
      return operand;
    case HloOpcode::kReal:
    case HloOpcode::kImag:
      HLOC_RETURN_IF_ERROR(expect(IsFloat(t) || IsComplexType(t),
                                  "a floating-point or complex"));
      return WithElementType(operand, ComplexComponentType(t));
    case HloOpcode::kAbs:
      HLOC_RETURN_IF_ERROR(
          expect(IsSigned(t) || IsComplexType(t), "a signed or complex"));
      return WithElementType(operand, ComplexComponentType(t));
    case HloOpcode::kClz:
    case HloOpcode::kPopulationCount:
      HLOC_RETURN_IF_ERROR(expect(IsIntegralType(t), "an integral"));
      return operand;
    case HloOpcode::kNegate:
      HLOC_RETURN_IF_ERROR(
          expect(IsIntegralType(t) || IsFloat(t) || IsComplexType(t),
                 "an integral, floating-point or complex"));
      return operand;
    case HloOpcode::kSign:
      HLOC_RETURN_IF_ERROR(
          expect(IsSigned(t) || IsComplexType(t), "a signed or complex"));
      return operand;
    case HloOpcode::kNot:
      HLOC_RETURN_IF_ERROR(
          expect(t == PRED || IsIntegralType(t), "a pred or integral"));
      return operand;
    case HloOpcode::kIsFinite:
      HLOC_RETURN_IF_ERROR(expect(IsFloat(t), "a floating-point"));
      return WithElementType(operand, PRED);
    default:
      return InvalidArgument(name, " is not a unary elementwise operation");
  }
}

absl::StatusOr<Shape> InferBinaryOpShape(HloOpcode opcode, const Shape& lhs,
                                         const Shape& rhs) {
  const absl::string_view name = HloOpcodeString(opcode);
  HLOC_RETURN_IF_ERROR(ExpectArray(lhs, absl::StrCat("operand 0 of ", name)));
  HLOC_RETURN_IF_ERROR(ExpectArray(rhs, absl::StrCat("operand 1 of ", name)));
  const PrimitiveType t = lhs.element_type();
  auto expect = [&](bool ok, absl::string_view kinds) -> absl::Status {
    if (ok) return absl::OkStatus();
    return InvalidArgument(name, " expects ", kinds, " operands, got ",
                           Str(lhs));
  };
  PrimitiveType result_type = t;
  switch (opcode) {
    case HloOpcode::kAdd:
    case HloOpcode::kMultiply:
    case HloOpcode::kMaximum:
    case HloOpcode::kMinimum:
      break;
    case HloOpcode::kSubtract:
    case HloOpcode::kDivide:
    case HloOpcode::kRemainder:
    case HloOpcode::kPower:
      HLOC_RETURN_IF_ERROR(expect(t != PRED, "arithmetic (not pred)"));
      break;
    case HloOpcode::kAtan2:
      HLOC_RETURN_IF_ERROR(
          expect(IsFloat(t) || IsComplexType(t), "floating-point or complex"));
      break;
    case HloOpcode::kShiftLeft:
    case HloOpcode::kShiftRightArithmetic:
    case HloOpcode::kShiftRightLogical:
    case HloOpcode::kMulhi:
      HLOC_RETURN_IF_ERROR(expect(IsIntegralType(t), "integral"));
      break;
    case HloOpcode::kAnd:
    case HloOpcode::kOr:
    case HloOpcode::kXor:
      HLOC_RETURN_IF_ERROR(
          expect(t == PRED || IsIntegralType(t), "pred or integral"));
      break;
    case HloOpcode::kComplex:
      HLOC_RETURN_IF_ERROR(expect(t == F32 || t == F64, "f32 or f64"));
      result_type = t == F32 ? C64 : C128;
      break;
    case HloOpcode::kCompare:
      result_type = PRED;
      break;
    default:
      return InvalidArgument(name, " is not a binary elementwise operation");
  }
  // HLO has no implicit broadcasting: both operands have the same type and
  // dimensions.
  if (!SameTypeAndDimensions(lhs, rhs)) {
    return InvalidArgument("operand 1 has shape ", Str(rhs), " but ", Str(lhs),
                           " was expected");
  }
  return WithElementType(MergeDynamic(lhs, rhs), result_type);
}

absl::StatusOr<Shape> InferCompareShape(const Shape& lhs, const Shape& rhs) {
  return InferBinaryOpShape(HloOpcode::kCompare, lhs, rhs);
}

absl::StatusOr<Shape> InferClampShape(const Shape& min, const Shape& operand,
                                      const Shape& max) {
  HLOC_RETURN_IF_ERROR(ExpectArray(min, "operand 0 (min) of clamp"));
  HLOC_RETURN_IF_ERROR(ExpectArray(operand, "operand 1 of clamp"));
  HLOC_RETURN_IF_ERROR(ExpectArray(max, "operand 2 (max) of clamp"));
  if (!SameTypeAndDimensions(min, operand)) {
    return InvalidArgument("operand 0 has shape ", Str(min), " but ",
                           Str(operand), " was expected");
  }
  if (!SameTypeAndDimensions(max, operand)) {
    return InvalidArgument("operand 2 has shape ", Str(max), " but ",
                           Str(operand), " was expected");
  }
  return operand;
}

absl::StatusOr<Shape> InferSelectShape(const Shape& pred, const Shape& on_true,
                                       const Shape& on_false) {
  HLOC_RETURN_IF_ERROR(ExpectArray(pred, "operand 0 (predicate) of select"));
  HLOC_RETURN_IF_ERROR(ExpectArray(on_true, "operand 1 of select"));
  HLOC_RETURN_IF_ERROR(ExpectArray(on_false, "operand 2 of select"));
  if (!SameTypeAndDimensions(on_false, on_true)) {
    return InvalidArgument("operand 2 has shape ", Str(on_false), " but ",
                           Str(on_true), " was expected");
  }
  if (pred.element_type() != PRED || !pred.SameDimensions(on_true)) {
    return InvalidArgument("operand 0 has shape ", Str(pred), " but ",
                           Str(WithElementType(on_true, PRED)),
                           " was expected");
  }
  return MergeDynamic(on_true, on_false);
}

absl::StatusOr<Shape> InferTernaryOpShape(HloOpcode opcode, const Shape& a,
                                          const Shape& b, const Shape& c) {
  switch (opcode) {
    case HloOpcode::kClamp:
      return InferClampShape(a, b, c);
    case HloOpcode::kSelect:
      return InferSelectShape(a, b, c);
    default:
      return InvalidArgument(HloOpcodeString(opcode),
                             " is not a ternary elementwise operation");
  }
}

absl::StatusOr<Shape> InferConvertShape(const Shape& operand,
                                        PrimitiveType new_element_type) {
  HLOC_RETURN_IF_ERROR(ExpectArray(operand, "operand of convert"));
  if (!IsArrayType(new_element_type)) {
    return InvalidArgument("convert cannot produce element type ",
                           PrimitiveTypeName(new_element_type));
  }
  // As XLA's shape inference: dropping the imaginary part is real()'s job,
  // and a convert that did it silently would hide a bug in the program.
  if (IsComplexType(operand.element_type()) &&
      !IsComplexType(new_element_type)) {
    return InvalidArgument(
        "convert from complex ", PrimitiveTypeName(operand.element_type()),
        " to real ", PrimitiveTypeName(new_element_type),
        " is not defined; take real() (or imag(), abs()) first");
  }
  return WithElementType(operand, new_element_type);
}

absl::StatusOr<Shape> InferBitcastConvertShape(const Shape& operand,
                                               PrimitiveType new_element_type) {
  HLOC_RETURN_IF_ERROR(ExpectArray(operand, "operand of bitcast-convert"));
  const PrimitiveType old_type = operand.element_type();
  if (!IsArrayType(new_element_type)) {
    return InvalidArgument("bitcast-convert cannot produce element type ",
                           PrimitiveTypeName(new_element_type));
  }
  if (IsComplexType(old_type) != IsComplexType(new_element_type)) {
    return InvalidArgument(
        "bitcast-convert between complex and real types: ", Str(operand),
        " to ", PrimitiveTypeName(new_element_type));
  }
  const int in_bits = BitWidth(old_type);
  const int out_bits = BitWidth(new_element_type);
  if (in_bits == 0 || out_bits == 0 ||
      std::max(in_bits, out_bits) % std::min(in_bits, out_bits) != 0) {
    return InvalidArgument("bitcast-convert between bit widths ", in_bits,
                           " and ", out_bits,
                           " that do not divide: ", Str(operand), " to ",
                           PrimitiveTypeName(new_element_type));
  }
  if (in_bits > out_bits) {
    std::vector<int64_t> dims = operand.dimensions();
    std::vector<bool> dynamic = operand.dynamic_dimensions();
    dims.push_back(in_bits / out_bits);
    dynamic.push_back(false);
    return MakeArray(new_element_type, std::move(dims), dynamic);
  }
  if (in_bits < out_bits) {
    const int64_t ratio = out_bits / in_bits;
    if (operand.rank() < 1 || operand.dimensions().back() != ratio) {
      return InvalidArgument("bitcast-convert from ", Str(operand), " to ",
                             PrimitiveTypeName(new_element_type),
                             " needs a last dimension of size ", ratio);
    }
    std::vector<int64_t> dims = operand.dimensions();
    std::vector<bool> dynamic = operand.dynamic_dimensions();
    dims.pop_back();
    dynamic.pop_back();
    return MakeArray(new_element_type, std::move(dims), dynamic);
  }
  return WithElementType(operand, new_element_type);
}

absl::StatusOr<Shape> InferStochasticConvertShape(
    const Shape& operand, const Shape& random, PrimitiveType new_element_type) {
  HLOC_RETURN_IF_ERROR(ExpectArray(operand, "operand 0 of stochastic-convert"));
  HLOC_RETURN_IF_ERROR(ExpectArray(random, "operand 1 of stochastic-convert"));
  if (!IsFloat(operand.element_type())) {
    return InvalidArgument(
        "stochastic-convert expects a floating-point operand, got ",
        Str(operand));
  }
  if (!IsUnsignedIntegralType(random.element_type()) ||
      BitWidth(random.element_type()) != BitWidth(operand.element_type()) ||
      !random.SameDimensions(operand)) {
    return InvalidArgument(
        "operand 1 has shape ", Str(random),
        " but unsigned integers of the operand's width and dimensions were "
        "expected");
  }
  if (!IsArrayType(new_element_type)) {
    return InvalidArgument("stochastic-convert cannot produce element type ",
                           PrimitiveTypeName(new_element_type));
  }
  return WithElementType(operand, new_element_type);
}

absl::StatusOr<Shape> InferReducePrecisionShape(const Shape& operand,
                                                int64_t exponent_bits,
                                                int64_t mantissa_bits) {
  HLOC_RETURN_IF_ERROR(ExpectArray(operand, "operand of reduce-precision"));
  if (!IsFloat(operand.element_type())) {
    return InvalidArgument(
        "reduce-precision expects a floating-point operand, got ",
        Str(operand));
  }
  if (exponent_bits < 1) {
    return InvalidArgument("reduce-precision needs exponent_bits >= 1, got ",
                           exponent_bits);
  }
  if (mantissa_bits < 0) {
    return InvalidArgument("reduce-precision needs mantissa_bits >= 0, got ",
                           mantissa_bits);
  }
  return operand;
}

// ----------------------------------------------------------------------------
// Data movement
// ----------------------------------------------------------------------------

absl::StatusOr<Shape> InferBroadcastShape(
    const Shape& operand, const Shape& output,
    absl::Span<const int64_t> dimensions) {
  HLOC_RETURN_IF_ERROR(ExpectArray(operand, "operand of broadcast"));
  HLOC_RETURN_IF_ERROR(ExpectArray(output, "result of broadcast"));
  if (operand.element_type() != output.element_type()) {
    return InvalidArgument("broadcast changes the element type from ",
                           PrimitiveTypeName(operand.element_type()), " to ",
                           PrimitiveTypeName(output.element_type()));
  }
  if (static_cast<int64_t>(dimensions.size()) != operand.rank()) {
    return InvalidArgument("broadcast dimensions ", Str(dimensions), " has ",
                           dimensions.size(), " entries but the operand ",
                           Str(operand), " has rank ", operand.rank());
  }
  HLOC_RETURN_IF_ERROR(
      CheckDimensionList(dimensions, output.rank(), "broadcast dimensions"));
  for (int64_t i = 0; i < operand.rank(); ++i) {
    if (operand.dimensions(i) != output.dimensions(dimensions[i])) {
      return InvalidArgument("operand dimension ", i, " has size ",
                             operand.dimensions(i), " but result dimension ",
                             dimensions[i], " has size ",
                             output.dimensions(dimensions[i]));
    }
  }
  return output;
}

absl::StatusOr<Shape> InferReshapeShape(const Shape& operand,
                                        const Shape& output) {
  HLOC_RETURN_IF_ERROR(ExpectArray(operand, "operand of reshape"));
  HLOC_RETURN_IF_ERROR(ExpectArray(output, "result of reshape"));
  if (operand.element_type() != output.element_type()) {
    return InvalidArgument("reshape changes the element type from ",
                           PrimitiveTypeName(operand.element_type()), " to ",
                           PrimitiveTypeName(output.element_type()));
  }
  if (operand.ElementCount() != output.ElementCount()) {
    return InvalidArgument("reshape changes the element count from ",
                           operand.ElementCount(), " (", Str(operand), ") to ",
                           output.ElementCount(), " (", Str(output), ")");
  }
  return output;
}

absl::StatusOr<Shape> InferBitcastShape(const Shape& operand,
                                        const Shape& output) {
  if (operand.IsArray() != output.IsArray()) {
    return InvalidArgument("bitcast between ", Str(operand), " and ",
                           Str(output), ": only arrays bitcast to arrays");
  }
  if (operand.IsArray()) {
    int64_t in_bits = 0, out_bits = 0;
    if (!CheckedMul(operand.ElementCount(), BitWidth(operand.element_type()),
                    &in_bits) ||
        !CheckedMul(output.ElementCount(), BitWidth(output.element_type()),
                    &out_bits) ||
        in_bits != out_bits) {
      return InvalidArgument("bitcast changes the data size from ",
                             Str(operand), " to ", Str(output));
    }
  }
  return output;
}

absl::StatusOr<Shape> InferTransposeShape(
    const Shape& operand, absl::Span<const int64_t> permutation) {
  HLOC_RETURN_IF_ERROR(ExpectArray(operand, "operand of transpose"));
  if (static_cast<int64_t>(permutation.size()) != operand.rank() ||
      !CheckDimensionList(permutation, operand.rank(), "").ok()) {
    return InvalidArgument("transpose dimensions ", Str(permutation),
                           " are not a permutation of the operand dimensions "
                           "(operand shape is ",
                           Str(operand), ")");
  }
  std::vector<int64_t> dims;
  std::vector<bool> dynamic;
  for (int64_t p : permutation) {
    dims.push_back(operand.dimensions(p));
    dynamic.push_back(operand.is_dynamic_dimension(p));
  }
  return MakeArray(operand.element_type(), std::move(dims), dynamic);
}

absl::StatusOr<Shape> InferReverseShape(const Shape& operand,
                                        absl::Span<const int64_t> dimensions) {
  HLOC_RETURN_IF_ERROR(ExpectArray(operand, "operand of reverse"));
  HLOC_RETURN_IF_ERROR(
      CheckDimensionList(dimensions, operand.rank(), "reverse dimensions"));
  return operand;
}

absl::StatusOr<Shape> InferSliceShape(const Shape& operand,
                                      absl::Span<const int64_t> starts,
                                      absl::Span<const int64_t> limits,
                                      absl::Span<const int64_t> strides) {
  HLOC_RETURN_IF_ERROR(ExpectArray(operand, "operand of slice"));
  const int64_t rank = operand.rank();
  if (static_cast<int64_t>(starts.size()) != rank ||
      static_cast<int64_t>(limits.size()) != rank ||
      static_cast<int64_t>(strides.size()) != rank) {
    return InvalidArgument("slice of rank-", rank, " operand ", Str(operand),
                           " needs ", rank, " starts, limits and strides, got ",
                           starts.size(), ", ", limits.size(), " and ",
                           strides.size());
  }
  std::vector<int64_t> dims;
  std::vector<bool> dynamic;
  for (int64_t i = 0; i < rank; ++i) {
    if (starts[i] < 0 || starts[i] > limits[i] ||
        limits[i] > operand.dimensions(i)) {
      return InvalidArgument("slice dimension ", i, " [", starts[i], ":",
                             limits[i], ") is not within [0, ",
                             operand.dimensions(i), "] of ", Str(operand));
    }
    if (strides[i] <= 0) {
      return InvalidArgument("slice stride ", strides[i], " in dimension ", i,
                             " must be positive");
    }
    const int64_t size = (limits[i] - starts[i] - 1) / strides[i] + 1;
    dims.push_back(limits[i] == starts[i] ? 0 : size);
    dynamic.push_back(dims.back() != 1 && operand.is_dynamic_dimension(i));
  }
  return MakeArray(operand.element_type(), std::move(dims), dynamic);
}

namespace {

// The start-index operands of dynamic-slice and dynamic-update-slice.
absl::Status CheckStartIndices(const Shape& operand,
                               absl::Span<const Shape> indices,
                               absl::string_view op) {
  const int64_t count = static_cast<int64_t>(indices.size());
  if (count >= 1 && indices[0].IsArray() && indices[0].rank() == 1) {
    if (count != 1) {
      return InvalidArgument(op,
                             " with a start-index vector takes exactly one "
                             "index operand, got ",
                             count);
    }
    const Shape& vec = indices[0];
    if (!IsIntegralType(vec.element_type())) {
      return InvalidArgument(op, " start indices must be integral, got ",
                             Str(vec));
    }
    if (vec.dimensions(0) != operand.rank()) {
      return InvalidArgument(op, " start-index vector ", Str(vec), " has ",
                             vec.dimensions(0), " entries but the operand ",
                             Str(operand), " has rank ", operand.rank());
    }
    return absl::OkStatus();
  }
  if (count != operand.rank()) {
    return InvalidArgument(op, " of rank-", operand.rank(), " operand ",
                           Str(operand), " needs ", operand.rank(),
                           " start indices, got ", count);
  }
  for (int64_t i = 0; i < count; ++i) {
    if (!indices[i].IsScalar() || !IsIntegralType(indices[i].element_type())) {
      return InvalidArgument(op, " start index ", i,
                             " must be an integral scalar, got ",
                             Str(indices[i]));
    }
    if (indices[i].element_type() != indices[0].element_type()) {
      return InvalidArgument(op, " start index ", i, " has shape ",
                             Str(indices[i]), " but ", Str(indices[0]),
                             " was expected (all start indices share a type)");
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Shape> InferDynamicSliceShape(
    const Shape& operand, absl::Span<const Shape> start_indices,
    absl::Span<const int64_t> slice_sizes) {
  HLOC_RETURN_IF_ERROR(ExpectArray(operand, "operand of dynamic-slice"));
  HLOC_RETURN_IF_ERROR(
      CheckStartIndices(operand, start_indices, "dynamic-slice"));
  if (static_cast<int64_t>(slice_sizes.size()) != operand.rank()) {
    return InvalidArgument("dynamic-slice sizes ", Str(slice_sizes), " has ",
                           slice_sizes.size(), " entries but the operand ",
                           Str(operand), " has rank ", operand.rank());
  }
  for (int64_t i = 0; i < operand.rank(); ++i) {
    if (slice_sizes[i] < 0 || slice_sizes[i] > operand.dimensions(i)) {
      return InvalidArgument("dynamic-slice size ", slice_sizes[i],
                             " in dimension ", i, " is not within [0, ",
                             operand.dimensions(i), "]");
    }
  }
  return Shape::Array(
      operand.element_type(),
      std::vector<int64_t>(slice_sizes.begin(), slice_sizes.end()));
}

absl::StatusOr<Shape> InferDynamicUpdateSliceShape(
    const Shape& operand, const Shape& update,
    absl::Span<const Shape> start_indices) {
  HLOC_RETURN_IF_ERROR(
      ExpectArray(operand, "operand 0 of dynamic-update-slice"));
  HLOC_RETURN_IF_ERROR(ExpectArray(update, "update of dynamic-update-slice"));
  HLOC_RETURN_IF_ERROR(
      CheckStartIndices(operand, start_indices, "dynamic-update-slice"));
  if (update.rank() != operand.rank() ||
      update.element_type() != operand.element_type()) {
    return InvalidArgument("update ", Str(update),
                           " must have the rank and "
                           "element type of the operand ",
                           Str(operand));
  }
  Shape result = operand;
  for (int64_t i = 0; i < operand.rank(); ++i) {
    if (update.dimensions(i) > operand.dimensions(i)) {
      return InvalidArgument("update ", Str(update),
                             " is larger than the "
                             "operand ",
                             Str(operand), " in dimension ", i);
    }
    if (update.is_dynamic_dimension(i) &&
        update.dimensions(i) == operand.dimensions(i)) {
      result.set_dynamic_dimension(i, true);
    }
  }
  return result;
}

absl::StatusOr<Shape> InferConcatenateShape(absl::Span<const Shape> operands,
                                            int64_t dimension) {
  if (operands.empty()) {
    return InvalidArgument("concatenate needs at least one operand");
  }
  for (size_t i = 0; i < operands.size(); ++i) {
    HLOC_RETURN_IF_ERROR(ExpectArray(
        operands[i], absl::StrCat("operand ", i, " of concatenate")));
  }
  const Shape& first = operands[0];
  if (dimension < 0 || dimension >= first.rank()) {
    return InvalidArgument("concatenate dimension ", dimension,
                           " is out of range for ", Str(first));
  }
  Shape result = first;
  std::vector<int64_t> dims = first.dimensions();
  for (size_t i = 1; i < operands.size(); ++i) {
    const Shape& s = operands[i];
    bool ok =
        s.element_type() == first.element_type() && s.rank() == first.rank();
    for (int64_t d = 0; ok && d < first.rank(); ++d) {
      if (d != dimension && s.dimensions(d) != first.dimensions(d)) ok = false;
    }
    if (!ok) {
      return InvalidArgument(
          "operand ", i, " has shape ", Str(s),
          " which differs from operand 0 ", Str(first),
          " in element type, rank or a dimension other than ", dimension);
    }
    if (!CheckedAdd(dims[dimension], s.dimensions(dimension),
                    &dims[dimension])) {
      return InvalidArgument("concatenate result is too large");
    }
  }
  std::vector<bool> dynamic = first.dynamic_dimensions();
  for (const Shape& s : operands) {
    for (int64_t d = 0; d < s.rank(); ++d) {
      if (s.is_dynamic_dimension(d)) dynamic[d] = true;
    }
  }
  return MakeArray(first.element_type(), std::move(dims), dynamic);
}

absl::StatusOr<Shape> InferPadShape(const Shape& operand,
                                    const Shape& padding_value,
                                    const PaddingConfig& padding_config) {
  HLOC_RETURN_IF_ERROR(ExpectArray(operand, "operand of pad"));
  if (!padding_value.IsScalar()) {
    return InvalidArgument("padding value must be a scalar, got ",
                           Str(padding_value));
  }
  if (padding_value.element_type() != operand.element_type()) {
    return InvalidArgument("operand 1 has shape ", Str(padding_value), " but ",
                           Str(ScalarShape(operand.element_type())),
                           " was expected");
  }
  if (static_cast<int64_t>(padding_config.dimensions.size()) !=
      operand.rank()) {
    return InvalidArgument("padding config has ",
                           padding_config.dimensions.size(),
                           " dimensions but the operand ", Str(operand),
                           " has rank ", operand.rank());
  }
  std::vector<int64_t> dims;
  for (int64_t i = 0; i < operand.rank(); ++i) {
    const PaddingDimension& p = padding_config.dimensions[i];
    if (p.interior_padding < 0) {
      return InvalidArgument("interior padding ", p.interior_padding,
                             " in dimension ", i, " is negative");
    }
    const int64_t d = operand.dimensions(i);
    int64_t interior = 0, size = 0;
    if (!CheckedMul(std::max<int64_t>(d - 1, 0), p.interior_padding,
                    &interior) ||
        !CheckedAdd(d, interior, &size) ||
        !CheckedAdd(size, p.edge_padding_low, &size) ||
        !CheckedAdd(size, p.edge_padding_high, &size)) {
      return InvalidArgument("padding of dimension ", i, " overflows");
    }
    if (size < 0) {
      return InvalidArgument("padding gives dimension ", i, " a negative size ",
                             size);
    }
    dims.push_back(size);
  }
  return MakeArray(operand.element_type(), std::move(dims),
                   operand.dynamic_dimensions());
}

absl::StatusOr<Shape> InferIotaShape(const Shape& shape,
                                     int64_t iota_dimension) {
  HLOC_RETURN_IF_ERROR(ExpectArray(shape, "result of iota"));
  if (shape.rank() == 0) {
    return InvalidArgument("iota result must have rank >= 1, got ", Str(shape));
  }
  if (iota_dimension < 0 || iota_dimension >= shape.rank()) {
    return InvalidArgument("iota dimension ", iota_dimension,
                           " is out of range for ", Str(shape));
  }
  const PrimitiveType t = shape.element_type();
  if (!IsIntegralType(t) && !IsFloat(t) && !IsComplexType(t)) {
    return InvalidArgument(
        "iota needs an integral, floating-point or complex type, got ",
        Str(shape));
  }
  return shape;
}

absl::StatusOr<Shape> InferGetTupleElementShape(const Shape& tuple,
                                                int64_t index) {
  if (!tuple.IsTuple()) {
    return InvalidArgument("get-tuple-element operand must be a tuple, got ",
                           Str(tuple));
  }
  if (index < 0 || index >= tuple.tuple_shapes_size()) {
    return InvalidArgument("tuple index ", index, " is out of range for ",
                           Str(tuple));
  }
  return tuple.tuple_shapes(index);
}

absl::StatusOr<Shape> InferTupleShape(absl::Span<const Shape> elements) {
  return Shape::Tuple(std::vector<Shape>(elements.begin(), elements.end()));
}

absl::StatusOr<Shape> InferGetDimensionSizeShape(const Shape& operand,
                                                 int64_t dimension) {
  HLOC_RETURN_IF_ERROR(ExpectArray(operand, "operand of get-dimension-size"));
  if (dimension < 0 || dimension >= operand.rank()) {
    return InvalidArgument("dimension ", dimension, " is out of range for ",
                           Str(operand));
  }
  if (operand.dimensions(dimension) > std::numeric_limits<int32_t>::max()) {
    return InvalidArgument("dimension ", dimension, " of ", Str(operand),
                           " exceeds the s32 range");
  }
  return ScalarShape(S32);
}

absl::StatusOr<Shape> InferSetDimensionSizeShape(const Shape& operand,
                                                 const Shape& size,
                                                 int64_t dimension) {
  HLOC_RETURN_IF_ERROR(ExpectArray(operand, "operand of set-dimension-size"));
  if (dimension < 0 || dimension >= operand.rank()) {
    return InvalidArgument("dimension ", dimension, " is out of range for ",
                           Str(operand));
  }
  if (!size.IsScalar() || size.element_type() != S32) {
    return InvalidArgument("operand 1 has shape ", Str(size),
                           " but s32[] was expected");
  }
  if (operand.dimensions(dimension) > std::numeric_limits<int32_t>::max()) {
    return InvalidArgument("dimension ", dimension, " of ", Str(operand),
                           " exceeds the s32 range");
  }
  Shape result = operand;
  result.set_dynamic_dimension(dimension, true);
  return result;
}

// ----------------------------------------------------------------------------
// Reductions and windows
// ----------------------------------------------------------------------------

namespace {

// Splits N inputs + N inits; inputs are arrays with equal dimensions.
absl::Status CheckInputsAndInits(absl::Span<const Shape> shapes,
                                 absl::string_view op) {
  if (shapes.empty() || shapes.size() % 2 != 0) {
    return InvalidArgument(op,
                           " takes inputs then as many init values: an even, "
                           "non-zero number of operands, got ",
                           shapes.size());
  }
  const size_t n = shapes.size() / 2;
  for (size_t i = 0; i < n; ++i) {
    HLOC_RETURN_IF_ERROR(
        ExpectArray(shapes[i], absl::StrCat("input ", i, " of ", op)));
    if (!shapes[i].SameDimensions(shapes[0])) {
      return InvalidArgument("input ", i, " has shape ", Str(shapes[i]),
                             " but the dimensions of input 0 ", Str(shapes[0]),
                             " were expected");
    }
  }
  return absl::OkStatus();
}

std::vector<PrimitiveType> ElementTypes(absl::Span<const Shape> shapes) {
  std::vector<PrimitiveType> types;
  for (const Shape& s : shapes) types.push_back(s.element_type());
  return types;
}

}  // namespace

absl::StatusOr<Shape> InferReduceShape(absl::Span<const Shape> inputs_and_inits,
                                       absl::Span<const int64_t> dimensions,
                                       const ProgramShape& to_apply) {
  HLOC_RETURN_IF_ERROR(CheckInputsAndInits(inputs_and_inits, "reduce"));
  const size_t n = inputs_and_inits.size() / 2;
  absl::Span<const Shape> inputs = inputs_and_inits.subspan(0, n);
  absl::Span<const Shape> inits = inputs_and_inits.subspan(n);
  const Shape& arg = inputs[0];
  HLOC_RETURN_IF_ERROR(
      CheckDimensionList(dimensions, arg.rank(), "reduce dimensions"));
  HLOC_RETURN_IF_ERROR(VerifyReducer(to_apply, inits, ElementTypes(inputs),
                                     "reduce computation"));
  std::vector<int64_t> dims;
  std::vector<bool> dynamic;
  for (int64_t i = 0; i < arg.rank(); ++i) {
    if (Contains(dimensions, i)) continue;
    dims.push_back(arg.dimensions(i));
    dynamic.push_back(arg.is_dynamic_dimension(i));
  }
  if (to_apply.result.IsArray()) {
    return MakeArray(to_apply.result.element_type(), dims, dynamic);
  }
  std::vector<Shape> results;
  for (const Shape& s : to_apply.result.tuple_shapes()) {
    results.push_back(MakeArray(s.element_type(), dims, dynamic));
  }
  return Shape::Tuple(std::move(results));
}

absl::StatusOr<Shape> InferWindowOutputShape(const Shape& base,
                                             const Window& window,
                                             PrimitiveType element_type) {
  if (static_cast<int64_t>(window.dimensions.size()) != base.rank()) {
    return InvalidArgument("window has ", window.dimensions.size(),
                           " dimensions but the operand ", Str(base),
                           " has rank ", base.rank());
  }
  std::vector<int64_t> dims;
  for (int64_t i = 0; i < base.rank(); ++i) {
    const WindowDimension& w = window.dimensions[i];
    if (w.size <= 0 || w.stride <= 0 || w.base_dilation < 1 ||
        w.window_dilation < 1) {
      return InvalidArgument("window dimension ", i,
                             " needs a positive size, stride and "
                             "dilations, got size=",
                             w.size, " stride=", w.stride,
                             " lhs_dilate=", w.base_dilation,
                             " rhs_dilate=", w.window_dilation);
    }
    int64_t dilated_base = 0, padded = 0, dilated_window = 0;
    if (!DilatedBound(base.dimensions(i), w.base_dilation, &dilated_base) ||
        !CheckedAdd(dilated_base, w.padding_low, &padded) ||
        !CheckedAdd(padded, w.padding_high, &padded) ||
        !DilatedBound(w.size, w.window_dilation, &dilated_window)) {
      return InvalidArgument("window dimension ", i, " overflows");
    }
    dims.push_back(StridedBound(padded, dilated_window, w.stride));
  }
  return MakeArray(element_type, std::move(dims), base.dynamic_dimensions());
}

absl::StatusOr<Shape> InferReduceWindowShape(
    absl::Span<const Shape> inputs_and_inits, const Window& window,
    const ProgramShape& to_apply) {
  HLOC_RETURN_IF_ERROR(CheckInputsAndInits(inputs_and_inits, "reduce-window"));
  const size_t n = inputs_and_inits.size() / 2;
  absl::Span<const Shape> inputs = inputs_and_inits.subspan(0, n);
  absl::Span<const Shape> inits = inputs_and_inits.subspan(n);
  HLOC_RETURN_IF_ERROR(VerifyReducer(to_apply, inits, ElementTypes(inputs),
                                     "reduce-window computation"));
  std::vector<Shape> results;
  for (size_t i = 0; i < n; ++i) {
    HLOC_ASSIGN_OR_RETURN(
        Shape result,
        InferWindowOutputShape(inputs[i], window, inits[i].element_type()));
    results.push_back(std::move(result));
  }
  if (to_apply.result.IsArray()) return results[0];
  return Shape::Tuple(std::move(results));
}

absl::StatusOr<Shape> InferSelectAndScatterShape(
    const Shape& operand, const ProgramShape& select, const Window& window,
    const Shape& source, const Shape& init_value, const ProgramShape& scatter) {
  HLOC_RETURN_IF_ERROR(ExpectArray(operand, "operand of select-and-scatter"));
  HLOC_RETURN_IF_ERROR(ExpectArray(source, "source of select-and-scatter"));
  if (select.parameters.size() != 2) {
    return InvalidArgument("select computation must take 2 parameters, takes ",
                           select.parameters.size());
  }
  if (!select.result.Compatible(ScalarShape(PRED))) {
    return InvalidArgument("select computation must return pred[], returns ",
                           Str(select.result));
  }
  const Shape element = ScalarShape(operand.element_type());
  for (int i = 0; i < 2; ++i) {
    if (!select.parameters[i].Compatible(element)) {
      return InvalidArgument("select computation parameter ", i, " has shape ",
                             Str(select.parameters[i]), " but ", Str(element),
                             " was expected");
    }
  }
  HLOC_RETURN_IF_ERROR(VerifyReducer(
      scatter, {init_value}, {source.element_type()}, "scatter computation"));
  HLOC_ASSIGN_OR_RETURN(
      Shape windowed,
      InferWindowOutputShape(operand, window, operand.element_type()));
  if (!source.SameDimensions(windowed)) {
    return InvalidArgument("source has shape ", Str(source),
                           " but the window over the operand gives ",
                           Str(windowed));
  }
  return operand;
}

absl::StatusOr<Shape> InferScanShape(absl::Span<const Shape> inputs_and_inits,
                                     int64_t num_carries, int64_t dimension,
                                     const ProgramShape& to_apply) {
  const int64_t total = static_cast<int64_t>(inputs_and_inits.size());
  if (num_carries < 0 || num_carries >= total) {
    return InvalidArgument("scan with ", total, " operands cannot have ",
                           num_carries, " carries (it needs an input)");
  }
  const int64_t num_inputs = total - num_carries;
  absl::Span<const Shape> inputs = inputs_and_inits.subspan(0, num_inputs);
  absl::Span<const Shape> inits = inputs_and_inits.subspan(num_inputs);
  for (int64_t i = 0; i < num_inputs; ++i) {
    HLOC_RETURN_IF_ERROR(
        ExpectArray(inputs[i], absl::StrCat("input ", i, " of scan")));
  }
  if (dimension < 0 || dimension >= inputs[0].rank()) {
    return InvalidArgument("scan dimension ", dimension,
                           " is out of range for ", Str(inputs[0]));
  }
  const int64_t length = inputs[0].dimensions(dimension);
  if (static_cast<int64_t>(to_apply.parameters.size()) != total) {
    return InvalidArgument("scan computation must take ", total,
                           " parameters, takes ", to_apply.parameters.size());
  }
  for (int64_t i = 0; i < num_inputs; ++i) {
    if (inputs[i].rank() <= dimension ||
        inputs[i].dimensions(dimension) != length) {
      return InvalidArgument("input ", i, " has shape ", Str(inputs[i]),
                             " but dimension ", dimension, " of size ", length,
                             " was expected");
    }
    std::vector<int64_t> dims = inputs[i].dimensions();
    dims.erase(dims.begin() + dimension);
    Shape slice = Shape::Array(inputs[i].element_type(), std::move(dims));
    if (!to_apply.parameters[i].Compatible(slice)) {
      return InvalidArgument("scan computation parameter ", i, " has shape ",
                             Str(to_apply.parameters[i]), " but ", Str(slice),
                             " was expected");
    }
  }
  for (int64_t j = 0; j < num_carries; ++j) {
    if (!to_apply.parameters[num_inputs + j].Compatible(inits[j])) {
      return InvalidArgument("scan computation parameter ", num_inputs + j,
                             " has shape ",
                             Str(to_apply.parameters[num_inputs + j]),
                             " but init ", j, " has shape ", Str(inits[j]));
    }
  }
  std::vector<Shape> results = to_apply.result.IsTuple()
                                   ? to_apply.result.tuple_shapes()
                                   : std::vector<Shape>{to_apply.result};
  const int64_t num_outputs =
      static_cast<int64_t>(results.size()) - num_carries;
  if (num_outputs < 0) {
    return InvalidArgument("scan computation returns ", Str(to_apply.result),
                           " but must return at least the ", num_carries,
                           " carries");
  }
  std::vector<Shape> shapes;
  for (int64_t i = 0; i < num_outputs; ++i) {
    const Shape& r = results[i];
    if (!r.IsArray() || r.rank() < dimension) {
      return InvalidArgument("scan computation output ", i, " ", Str(r),
                             " cannot take the scan dimension ", dimension);
    }
    std::vector<int64_t> dims = r.dimensions();
    dims.insert(dims.begin() + dimension, length);
    shapes.push_back(Shape::Array(r.element_type(), std::move(dims)));
  }
  for (int64_t j = 0; j < num_carries; ++j) {
    const Shape& r = results[num_outputs + j];
    if (!r.Compatible(inits[j])) {
      return InvalidArgument("scan computation carry result ", j, " has shape ",
                             Str(r), " but init ", j, " has shape ",
                             Str(inits[j]));
    }
    shapes.push_back(r);
  }
  if (!to_apply.result.IsTuple()) return shapes[0];
  return Shape::Tuple(std::move(shapes));
}

// ----------------------------------------------------------------------------
// Dot, convolution, gather, scatter
// ----------------------------------------------------------------------------

absl::StatusOr<Shape> InferDotShape(
    const Shape& lhs, const Shape& rhs, const DotDimensionNumbers& dnums,
    std::optional<PrimitiveType> preferred_element_type) {
  HLOC_RETURN_IF_ERROR(ExpectArray(lhs, "lhs of dot"));
  HLOC_RETURN_IF_ERROR(ExpectArray(rhs, "rhs of dot"));
  const auto& lc = dnums.lhs_contracting_dimensions;
  const auto& rc = dnums.rhs_contracting_dimensions;
  const auto& lb = dnums.lhs_batch_dimensions;
  const auto& rb = dnums.rhs_batch_dimensions;
  std::vector<int64_t> lhs_all(lc), rhs_all(rc);
  lhs_all.insert(lhs_all.end(), lb.begin(), lb.end());
  rhs_all.insert(rhs_all.end(), rb.begin(), rb.end());
  HLOC_RETURN_IF_ERROR(CheckDimensionList(
      lhs_all, lhs.rank(), "dot lhs contracting and batch dimensions"));
  HLOC_RETURN_IF_ERROR(CheckDimensionList(
      rhs_all, rhs.rank(), "dot rhs contracting and batch dimensions"));
  if (lc.size() != rc.size()) {
    return InvalidArgument("dot has ", lc.size(),
                           " lhs contracting dimensions but ", rc.size(),
                           " rhs contracting dimensions");
  }
  for (size_t i = 0; i < lc.size(); ++i) {
    if (lhs.dimensions(lc[i]) != rhs.dimensions(rc[i])) {
      return InvalidArgument("dot contracting dimension sizes differ: lhs ",
                             Str(lhs), " dimension ", lc[i], " vs rhs ",
                             Str(rhs), " dimension ", rc[i]);
    }
  }
  if (lb.size() != rb.size()) {
    return InvalidArgument("dot has ", lb.size(), " lhs batch dimensions but ",
                           rb.size(), " rhs batch dimensions");
  }
  for (size_t i = 0; i < lb.size(); ++i) {
    if (lhs.dimensions(lb[i]) != rhs.dimensions(rb[i])) {
      return InvalidArgument("dot batch dimension sizes differ: lhs ", Str(lhs),
                             " dimension ", lb[i], " vs rhs ", Str(rhs),
                             " dimension ", rb[i]);
    }
  }
  std::vector<int64_t> dims;
  std::vector<bool> dynamic;
  for (int64_t d : lb) {
    dims.push_back(lhs.dimensions(d));
    dynamic.push_back(lhs.is_dynamic_dimension(d));
  }
  for (int64_t i = 0; i < lhs.rank(); ++i) {
    if (Contains(lc, i) || Contains(lb, i)) continue;
    dims.push_back(lhs.dimensions(i));
    dynamic.push_back(lhs.is_dynamic_dimension(i));
  }
  for (int64_t i = 0; i < rhs.rank(); ++i) {
    if (Contains(rc, i) || Contains(rb, i)) continue;
    dims.push_back(rhs.dimensions(i));
    dynamic.push_back(rhs.is_dynamic_dimension(i));
  }
  HLOC_ASSIGN_OR_RETURN(
      PrimitiveType type,
      MaybeUpcast(HigherPrecisionType(lhs.element_type(), rhs.element_type()),
                  preferred_element_type));
  return MakeArray(type, std::move(dims), dynamic);
}

absl::StatusOr<Shape> InferConvolutionShape(
    const Shape& lhs, const Shape& rhs, int64_t feature_group_count,
    int64_t batch_group_count, const Window& window,
    const ConvolutionDimensionNumbers& dnums,
    std::optional<PrimitiveType> preferred_element_type) {
  HLOC_RETURN_IF_ERROR(ExpectArray(lhs, "lhs of convolution"));
  HLOC_RETURN_IF_ERROR(ExpectArray(rhs, "rhs of convolution"));
  if (feature_group_count <= 0 || batch_group_count <= 0) {
    return InvalidArgument(
        "convolution group counts must be positive, got feature_group_count=",
        feature_group_count, " batch_group_count=", batch_group_count);
  }
  if (feature_group_count > 1 && batch_group_count > 1) {
    return InvalidArgument(
        "convolution cannot have both feature_group_count and "
        "batch_group_count above 1");
  }
  const int64_t num_spatial =
      static_cast<int64_t>(dnums.input_spatial_dimensions.size());
  if (static_cast<int64_t>(dnums.kernel_spatial_dimensions.size()) !=
          num_spatial ||
      static_cast<int64_t>(dnums.output_spatial_dimensions.size()) !=
          num_spatial) {
    return InvalidArgument(
        "convolution input, kernel and output have different numbers of "
        "spatial dimensions: ",
        num_spatial, ", ", dnums.kernel_spatial_dimensions.size(), ", ",
        dnums.output_spatial_dimensions.size());
  }
  if (static_cast<int64_t>(window.dimensions.size()) != num_spatial) {
    return InvalidArgument("convolution window has ", window.dimensions.size(),
                           " dimensions but there are ", num_spatial,
                           " spatial dimensions");
  }
  const int64_t num_dims = num_spatial + 2;
  if (lhs.rank() != num_dims || rhs.rank() != num_dims) {
    return InvalidArgument("convolution operands must have rank ", num_dims,
                           ", got lhs ", Str(lhs), " and rhs ", Str(rhs));
  }
  auto labels = [](int64_t a, int64_t b, const std::vector<int64_t>& spatial) {
    std::vector<int64_t> all = {a, b};
    all.insert(all.end(), spatial.begin(), spatial.end());
    return all;
  };
  HLOC_RETURN_IF_ERROR(CheckDimensionList(
      labels(dnums.input_batch_dimension, dnums.input_feature_dimension,
             dnums.input_spatial_dimensions),
      num_dims, "convolution input dimension numbers"));
  HLOC_RETURN_IF_ERROR(
      CheckDimensionList(labels(dnums.kernel_input_feature_dimension,
                                dnums.kernel_output_feature_dimension,
                                dnums.kernel_spatial_dimensions),
                         num_dims, "convolution kernel dimension numbers"));
  HLOC_RETURN_IF_ERROR(CheckDimensionList(
      labels(dnums.output_batch_dimension, dnums.output_feature_dimension,
             dnums.output_spatial_dimensions),
      num_dims, "convolution output dimension numbers"));

  const int64_t input_batch = lhs.dimensions(dnums.input_batch_dimension);
  const int64_t input_features = lhs.dimensions(dnums.input_feature_dimension);
  const int64_t kernel_input_features =
      rhs.dimensions(dnums.kernel_input_feature_dimension);
  const int64_t kernel_output_features =
      rhs.dimensions(dnums.kernel_output_feature_dimension);
  if (kernel_output_features % batch_group_count != 0) {
    return InvalidArgument("kernel output features ", kernel_output_features,
                           " are not a multiple of batch_group_count ",
                           batch_group_count);
  }
  if (input_features % feature_group_count != 0 ||
      input_features / feature_group_count != kernel_input_features) {
    return InvalidArgument(
        "input features ", input_features, " / feature_group_count ",
        feature_group_count, " must equal the kernel input features ",
        kernel_input_features, " (lhs ", Str(lhs), ", rhs ", Str(rhs), ")");
  }
  if (kernel_output_features % feature_group_count != 0) {
    return InvalidArgument("kernel output features ", kernel_output_features,
                           " are not a multiple of feature_group_count ",
                           feature_group_count);
  }
  if (input_batch % batch_group_count != 0) {
    return InvalidArgument("input batch ", input_batch,
                           " is not a multiple of batch_group_count ",
                           batch_group_count);
  }
  std::vector<int64_t> base_dims;
  std::vector<bool> base_dynamic;
  for (int64_t i = 0; i < num_spatial; ++i) {
    const int64_t kernel_size =
        rhs.dimensions(dnums.kernel_spatial_dimensions[i]);
    if (window.dimensions[i].size != kernel_size) {
      return InvalidArgument("window size ", window.dimensions[i].size,
                             " in spatial dimension ", i,
                             " differs from the kernel size ", kernel_size,
                             " (rhs ", Str(rhs), ")");
    }
    base_dims.push_back(lhs.dimensions(dnums.input_spatial_dimensions[i]));
    base_dynamic.push_back(
        lhs.is_dynamic_dimension(dnums.input_spatial_dimensions[i]) ||
        rhs.is_dynamic_dimension(dnums.kernel_spatial_dimensions[i]));
  }
  HLOC_ASSIGN_OR_RETURN(
      Shape spatial, InferWindowOutputShape(
                         MakeArray(lhs.element_type(), base_dims, base_dynamic),
                         window, lhs.element_type()));
  std::vector<int64_t> dims(num_dims);
  std::vector<bool> dynamic(num_dims, false);
  dims[dnums.output_batch_dimension] = input_batch / batch_group_count;
  dynamic[dnums.output_batch_dimension] =
      lhs.is_dynamic_dimension(dnums.input_batch_dimension);
  dims[dnums.output_feature_dimension] = kernel_output_features;
  for (int64_t i = 0; i < num_spatial; ++i) {
    dims[dnums.output_spatial_dimensions[i]] = spatial.dimensions(i);
    dynamic[dnums.output_spatial_dimensions[i]] =
        spatial.is_dynamic_dimension(i);
  }
  HLOC_ASSIGN_OR_RETURN(
      PrimitiveType type,
      MaybeUpcast(HigherPrecisionType(lhs.element_type(), rhs.element_type()),
                  preferred_element_type));
  return MakeArray(type, std::move(dims), dynamic);
}

absl::StatusOr<Shape> InferGatherShape(const Shape& operand,
                                       const Shape& start_indices,
                                       const GatherDimensionNumbers& dnums,
                                       absl::Span<const int64_t> slice_sizes) {
  HLOC_RETURN_IF_ERROR(ExpectArray(operand, "operand of gather"));
  HLOC_RETURN_IF_ERROR(ExpectArray(start_indices, "start indices of gather"));
  if (!IsIntegralType(start_indices.element_type())) {
    return InvalidArgument("gather start indices must be integral, got ",
                           Str(start_indices));
  }
  const int64_t index_vector_dim = dnums.index_vector_dim;
  if (index_vector_dim < 0 || index_vector_dim > start_indices.rank()) {
    return InvalidArgument("gather index_vector_dim ", index_vector_dim,
                           " is out of range [0, ", start_indices.rank(),
                           "] for start indices ", Str(start_indices));
  }
  // Start indices with index_vector_dim == rank have an implicit trailing 1.
  std::vector<int64_t> indices_dims = start_indices.dimensions();
  std::vector<bool> indices_dynamic = start_indices.dynamic_dimensions();
  if (index_vector_dim == start_indices.rank()) {
    indices_dims.push_back(1);
    indices_dynamic.push_back(false);
  }
  const int64_t operand_rank = operand.rank();
  const auto& offset_dims = dnums.offset_dims;
  const auto& collapsed = dnums.collapsed_slice_dims;
  const auto& start_index_map = dnums.start_index_map;
  const auto& operand_batching = dnums.operand_batching_dims;
  const auto& indices_batching = dnums.start_indices_batching_dims;
  const int64_t output_rank =
      static_cast<int64_t>(offset_dims.size() + indices_dims.size()) - 1;

  HLOC_RETURN_IF_ERROR(CheckSorted(offset_dims, "gather offset_dims"));
  HLOC_RETURN_IF_ERROR(
      CheckDimensionList(offset_dims, output_rank, "gather offset_dims"));
  HLOC_RETURN_IF_ERROR(CheckSorted(collapsed, "gather collapsed_slice_dims"));
  HLOC_RETURN_IF_ERROR(
      CheckSorted(operand_batching, "gather operand_batching_dims"));
  std::vector<int64_t> collapsed_and_batching(collapsed);
  collapsed_and_batching.insert(collapsed_and_batching.end(),
                                operand_batching.begin(),
                                operand_batching.end());
  HLOC_RETURN_IF_ERROR(CheckDimensionList(
      collapsed_and_batching, operand_rank,
      "gather collapsed_slice_dims and operand_batching_dims"));
  std::vector<int64_t> map_and_batching(start_index_map);
  map_and_batching.insert(map_and_batching.end(), operand_batching.begin(),
                          operand_batching.end());
  HLOC_RETURN_IF_ERROR(
      CheckDimensionList(map_and_batching, operand_rank,
                         "gather start_index_map and operand_batching_dims"));
  if (static_cast<int64_t>(start_index_map.size()) !=
      indices_dims[index_vector_dim]) {
    return InvalidArgument("gather start_index_map ", Str(start_index_map),
                           " has ", start_index_map.size(),
                           " entries but index_vector_dim ", index_vector_dim,
                           " of the start indices has size ",
                           indices_dims[index_vector_dim]);
  }
  HLOC_RETURN_IF_ERROR(CheckBatchingDims(
      operand, operand_batching, start_indices, indices_batching,
      index_vector_dim,
      {"gather", "gather start_indices_batching_dims", "operand",
       "start-index"}));
  if (static_cast<int64_t>(slice_sizes.size()) != operand_rank) {
    return InvalidArgument("gather slice_sizes ", Str(slice_sizes), " has ",
                           slice_sizes.size(), " entries but the operand ",
                           Str(operand), " has rank ", operand_rank);
  }
  if (static_cast<int64_t>(offset_dims.size() + collapsed.size() +
                           operand_batching.size()) != operand_rank) {
    return InvalidArgument(
        "gather offset_dims, collapsed_slice_dims and operand_batching_dims "
        "must together have one entry per operand dimension (",
        operand_rank, "), got ", offset_dims.size(), " + ", collapsed.size(),
        " + ", operand_batching.size());
  }
  for (int64_t i = 0; i < operand_rank; ++i) {
    if (slice_sizes[i] < 0 || slice_sizes[i] > operand.dimensions(i)) {
      return InvalidArgument("gather slice size ", slice_sizes[i],
                             " in dimension ", i, " is not within [0, ",
                             operand.dimensions(i), "]");
    }
  }
  for (int64_t d : collapsed_and_batching) {
    if (slice_sizes[d] > 1) {
      return InvalidArgument("gather slice size ", slice_sizes[d],
                             " of collapsed or batching dimension ", d,
                             " must be 0 or 1");
    }
  }
  std::vector<int64_t> dims;
  std::vector<bool> dynamic;
  int64_t operand_dim = 0;
  int64_t indices_dim = 0;
  for (int64_t i = 0; i < output_rank; ++i) {
    if (Contains(offset_dims, i)) {
      while (Contains(collapsed_and_batching, operand_dim)) ++operand_dim;
      dims.push_back(slice_sizes[operand_dim]);
      dynamic.push_back(slice_sizes[operand_dim] ==
                            operand.dimensions(operand_dim) &&
                        operand.is_dynamic_dimension(operand_dim));
      ++operand_dim;
    } else {
      if (indices_dim == index_vector_dim) ++indices_dim;
      dims.push_back(indices_dims[indices_dim]);
      dynamic.push_back(indices_dynamic[indices_dim]);
      ++indices_dim;
    }
  }
  return MakeArray(operand.element_type(), std::move(dims), dynamic);
}

absl::StatusOr<Shape> InferScatterShape(absl::Span<const Shape> shapes,
                                        const ScatterDimensionNumbers& dnums,
                                        const ProgramShape& to_apply) {
  const int64_t n = static_cast<int64_t>(shapes.size()) / 2;
  if (shapes.size() < 3 || static_cast<int64_t>(shapes.size()) != 2 * n + 1) {
    return InvalidArgument(
        "scatter takes N operands, the indices and N updates (2N+1 operands), "
        "got ",
        shapes.size());
  }
  absl::Span<const Shape> operands = shapes.subspan(0, n);
  const Shape& indices = shapes[n];
  absl::Span<const Shape> updates = shapes.subspan(n + 1);
  HLOC_RETURN_IF_ERROR(ExpectArray(indices, "scatter indices"));
  if (!IsIntegralType(indices.element_type())) {
    return InvalidArgument("scatter indices must be integral, got ",
                           Str(indices));
  }
  const int64_t index_vector_dim = dnums.index_vector_dim;
  if (index_vector_dim < 0 || index_vector_dim > indices.rank()) {
    return InvalidArgument("scatter index_vector_dim ", index_vector_dim,
                           " is out of range [0, ", indices.rank(),
                           "] for indices ", Str(indices));
  }
  std::vector<int64_t> indices_dims = indices.dimensions();
  if (index_vector_dim == indices.rank()) indices_dims.push_back(1);
  for (int64_t i = 0; i < n; ++i) {
    HLOC_RETURN_IF_ERROR(
        ExpectArray(operands[i], absl::StrCat("scatter operand ", i)));
    HLOC_RETURN_IF_ERROR(
        ExpectArray(updates[i], absl::StrCat("scatter update ", i)));
    if (!operands[i].SameDimensions(operands[0])) {
      return InvalidArgument("scatter operand ", i, " has shape ",
                             Str(operands[i]),
                             " but the dimensions of "
                             "operand 0 ",
                             Str(operands[0]), " were expected");
    }
    if (!updates[i].SameDimensions(updates[0])) {
      return InvalidArgument("scatter update ", i, " has shape ",
                             Str(updates[i]),
                             " but the dimensions of update 0 ",
                             Str(updates[0]), " were expected");
    }
  }
  const Shape& operand = operands[0];
  const Shape& update = updates[0];
  const int64_t operand_rank = operand.rank();
  const auto& window_dims = dnums.update_window_dims;
  const auto& inserted = dnums.inserted_window_dims;
  const auto& to_operand = dnums.scatter_dims_to_operand_dims;
  const auto& input_batching = dnums.input_batching_dims;
  const auto& indices_batching = dnums.scatter_indices_batching_dims;

  const int64_t expected_update_rank =
      static_cast<int64_t>(indices_dims.size()) - 1 +
      static_cast<int64_t>(window_dims.size());
  if (update.rank() != expected_update_rank) {
    return InvalidArgument("scatter updates must have rank ",
                           expected_update_rank, ", got ", Str(update));
  }
  HLOC_RETURN_IF_ERROR(CheckSorted(window_dims, "scatter update_window_dims"));
  HLOC_RETURN_IF_ERROR(CheckDimensionList(window_dims, update.rank(),
                                          "scatter update_window_dims"));
  HLOC_RETURN_IF_ERROR(CheckSorted(inserted, "scatter inserted_window_dims"));
  HLOC_RETURN_IF_ERROR(
      CheckSorted(input_batching, "scatter input_batching_dims"));
  std::vector<int64_t> inserted_and_batching(inserted);
  inserted_and_batching.insert(inserted_and_batching.end(),
                               input_batching.begin(), input_batching.end());
  HLOC_RETURN_IF_ERROR(CheckDimensionList(
      inserted_and_batching, operand_rank,
      "scatter inserted_window_dims and input_batching_dims"));
  if (static_cast<int64_t>(window_dims.size() + inserted.size() +
                           input_batching.size()) != operand_rank) {
    return InvalidArgument(
        "scatter update_window_dims, inserted_window_dims and "
        "input_batching_dims must together have one entry per operand "
        "dimension (",
        operand_rank, "), got ", window_dims.size(), " + ", inserted.size(),
        " + ", input_batching.size());
  }
  if (static_cast<int64_t>(to_operand.size()) !=
      indices_dims[index_vector_dim]) {
    return InvalidArgument(
        "scatter_dims_to_operand_dims ", Str(to_operand), " has ",
        to_operand.size(), " entries but index_vector_dim ", index_vector_dim,
        " of the indices has size ", indices_dims[index_vector_dim]);
  }
  std::vector<int64_t> to_operand_and_batching(to_operand);
  to_operand_and_batching.insert(to_operand_and_batching.end(),
                                 input_batching.begin(), input_batching.end());
  HLOC_RETURN_IF_ERROR(CheckDimensionList(
      to_operand_and_batching, operand_rank,
      "scatter_dims_to_operand_dims and input_batching_dims"));
  HLOC_RETURN_IF_ERROR(CheckBatchingDims(
      operand, input_batching, indices, indices_batching, index_vector_dim,
      {"scatter", "scatter_indices_batching_dims", "input", "index"}));
  // Window dimensions of the update are bounded by the operand dimensions
  // that are neither inserted nor batching, in order.
  std::vector<int64_t> window_bounds;
  for (int64_t i = 0; i < operand_rank; ++i) {
    if (!Contains(inserted_and_batching, i)) {
      window_bounds.push_back(operand.dimensions(i));
    }
  }
  for (size_t i = 0; i < window_dims.size(); ++i) {
    if (update.dimensions(window_dims[i]) > window_bounds[i]) {
      return InvalidArgument("scatter update dimension ", window_dims[i],
                             " of ", Str(update), " exceeds the operand bound ",
                             window_bounds[i]);
    }
  }
  int64_t indices_dim = 0;
  for (int64_t i = 0; i < update.rank(); ++i) {
    if (Contains(window_dims, i)) continue;
    if (indices_dim == index_vector_dim) ++indices_dim;
    if (update.dimensions(i) != indices_dims[indices_dim]) {
      return InvalidArgument("scatter update dimension ", i, " of ",
                             Str(update), " has size ", update.dimensions(i),
                             " but the indices give ",
                             indices_dims[indices_dim]);
    }
    ++indices_dim;
  }
  std::vector<Shape> inits;
  for (const Shape& o : operands)
    inits.push_back(ScalarShape(o.element_type()));
  HLOC_RETURN_IF_ERROR(VerifyReducer(to_apply, inits, ElementTypes(updates),
                                     "scatter computation"));
  return TupleOrSingle(std::vector<Shape>(operands.begin(), operands.end()));
}

// ----------------------------------------------------------------------------
// Sort, top-k, map
// ----------------------------------------------------------------------------

absl::StatusOr<Shape> InferSortShape(absl::Span<const Shape> operands,
                                     int64_t dimension,
                                     const ProgramShape& comparator) {
  if (operands.empty()) {
    return InvalidArgument("sort needs at least one operand");
  }
  for (size_t i = 0; i < operands.size(); ++i) {
    HLOC_RETURN_IF_ERROR(
        ExpectArray(operands[i], absl::StrCat("operand ", i, " of sort")));
    if (!operands[i].SameDimensions(operands[0])) {
      return InvalidArgument("operand ", i, " has shape ", Str(operands[i]),
                             " but the dimensions of operand 0 ",
                             Str(operands[0]), " were expected");
    }
  }
  if (dimension < 0 || dimension >= operands[0].rank()) {
    return InvalidArgument("sort dimension ", dimension,
                           " is out of range for ", Str(operands[0]));
  }
  if (comparator.parameters.size() != 2 * operands.size()) {
    return InvalidArgument("sort comparator must take ", 2 * operands.size(),
                           " parameters, takes ", comparator.parameters.size());
  }
  for (size_t p = 0; p < comparator.parameters.size(); ++p) {
    Shape expected = ScalarShape(operands[p / 2].element_type());
    if (!comparator.parameters[p].Compatible(expected)) {
      return InvalidArgument("sort comparator parameter ", p, " has shape ",
                             Str(comparator.parameters[p]), " but ",
                             Str(expected), " was expected");
    }
  }
  if (!comparator.result.Compatible(ScalarShape(PRED))) {
    return InvalidArgument("sort comparator must return pred[], returns ",
                           Str(comparator.result));
  }
  return TupleOrSingle(std::vector<Shape>(operands.begin(), operands.end()));
}

absl::StatusOr<Shape> InferTopKShape(const Shape& operand, int64_t k) {
  HLOC_RETURN_IF_ERROR(ExpectArray(operand, "operand of topk"));
  if (operand.rank() < 1) {
    return InvalidArgument("topk operand must have rank >= 1, got ",
                           Str(operand));
  }
  const int64_t last = operand.rank() - 1;
  if (k < 0 || k > operand.dimensions(last)) {
    return InvalidArgument("topk k=", k, " is not within [0, ",
                           operand.dimensions(last), "] for ", Str(operand));
  }
  std::vector<int64_t> dims = operand.dimensions();
  dims[last] = k;
  const std::vector<bool>& dynamic = operand.dynamic_dimensions();
  return Shape::Tuple({MakeArray(operand.element_type(), dims, dynamic),
                       MakeArray(S32, dims, dynamic)});
}

absl::StatusOr<Shape> InferMapShape(absl::Span<const Shape> operands,
                                    const ProgramShape& to_apply) {
  if (operands.empty()) {
    return InvalidArgument("map needs at least one operand");
  }
  for (size_t i = 0; i < operands.size(); ++i) {
    HLOC_RETURN_IF_ERROR(
        ExpectArray(operands[i], absl::StrCat("operand ", i, " of map")));
    if (!operands[i].SameDimensions(operands[0])) {
      return InvalidArgument("operand ", i, " has shape ", Str(operands[i]),
                             " but the dimensions of operand 0 ",
                             Str(operands[0]), " were expected");
    }
  }
  if (to_apply.parameters.size() != operands.size()) {
    return InvalidArgument("map computation must take ", operands.size(),
                           " parameters, takes ", to_apply.parameters.size());
  }
  for (size_t i = 0; i < operands.size(); ++i) {
    Shape expected = ScalarShape(operands[i].element_type());
    if (!to_apply.parameters[i].Compatible(expected)) {
      return InvalidArgument("map computation parameter ", i, " has shape ",
                             Str(to_apply.parameters[i]), " but ",
                             Str(expected), " was expected");
    }
  }
  if (!to_apply.result.IsScalar()) {
    return InvalidArgument("map computation must return a scalar, returns ",
                           Str(to_apply.result));
  }
  return MakeArray(to_apply.result.element_type(), operands[0].dimensions(),
                   operands[0].dynamic_dimensions());
}

// ----------------------------------------------------------------------------
// Control flow
// ----------------------------------------------------------------------------

absl::StatusOr<Shape> InferWhileShape(const ProgramShape& condition,
                                      const ProgramShape& body,
                                      const Shape& init) {
  if (condition.parameters.size() != 1) {
    return InvalidArgument("while condition must take 1 parameter, takes ",
                           condition.parameters.size());
  }
  if (body.parameters.size() != 1) {
    return InvalidArgument("while body must take 1 parameter, takes ",
                           body.parameters.size());
  }
  if (!condition.result.Compatible(ScalarShape(PRED))) {
    return InvalidArgument("while condition must return pred[], returns ",
                           Str(condition.result));
  }
  if (!condition.parameters[0].Compatible(init)) {
    return InvalidArgument("while condition parameter has shape ",
                           Str(condition.parameters[0]), " but the init is ",
                           Str(init));
  }
  if (!body.parameters[0].Compatible(init)) {
    return InvalidArgument("while body parameter has shape ",
                           Str(body.parameters[0]), " but the init is ",
                           Str(init));
  }
  if (!body.result.Compatible(init)) {
    return InvalidArgument("while body returns ", Str(body.result),
                           " but the init is ", Str(init));
  }
  return init;
}

absl::StatusOr<Shape> InferConditionalShape(
    const Shape& branch_index, absl::Span<const ProgramShape> branches,
    absl::Span<const Shape> branch_operands) {
  if (branch_index.Compatible(ScalarShape(PRED))) {
    if (branches.size() != 2) {
      return InvalidArgument("conditional on pred[] needs 2 branches, has ",
                             branches.size());
    }
  } else if (branch_index.Compatible(ScalarShape(S32))) {
    if (branches.empty()) {
      return InvalidArgument("conditional needs at least one branch");
    }
  } else {
    return InvalidArgument(
        "conditional branch index must be pred[] or s32[], "
        "got ",
        Str(branch_index));
  }
  if (branch_operands.size() != branches.size()) {
    return InvalidArgument("conditional has ", branches.size(),
                           " branches but ", branch_operands.size(),
                           " branch operands");
  }
  for (size_t j = 0; j < branches.size(); ++j) {
    if (branches[j].parameters.size() != 1) {
      return InvalidArgument("branch computation ", j,
                             " must take 1 parameter, takes ",
                             branches[j].parameters.size());
    }
    if (!branches[j].parameters[0].Compatible(branch_operands[j])) {
      return InvalidArgument("operand ", j + 1, " has shape ",
                             Str(branch_operands[j]), " but branch ", j,
                             " takes ", Str(branches[j].parameters[0]));
    }
    if (!branches[j].result.Compatible(branches[0].result)) {
      return InvalidArgument("branch ", j, " returns ", Str(branches[j].result),
                             " but branch 0 returns ", Str(branches[0].result));
    }
  }
  return branches[0].result;
}

absl::StatusOr<Shape> InferCallShape(absl::Span<const Shape> operands,
                                     const ProgramShape& to_apply) {
  if (operands.size() != to_apply.parameters.size()) {
    return InvalidArgument("called computation takes ",
                           to_apply.parameters.size(), " parameters but ",
                           operands.size(), " operands are given");
  }
  for (size_t i = 0; i < operands.size(); ++i) {
    if (!operands[i].Compatible(to_apply.parameters[i])) {
      return InvalidArgument("operand ", i, " has shape ", Str(operands[i]),
                             " but the called computation's parameter ", i,
                             " has shape ", Str(to_apply.parameters[i]));
    }
  }
  return to_apply.result;
}

// ----------------------------------------------------------------------------
// Linear algebra and normalization
// ----------------------------------------------------------------------------

absl::StatusOr<Shape> InferFftShape(const Shape& operand, FftType fft_type,
                                    absl::Span<const int64_t> fft_length) {
  HLOC_RETURN_IF_ERROR(ExpectArray(operand, "operand of fft"));
  const int64_t fft_rank = static_cast<int64_t>(fft_length.size());
  if (fft_rank < 1 || fft_rank > 3) {
    return InvalidArgument("fft_length must have 1 to 3 entries, has ",
                           fft_rank);
  }
  if (operand.rank() < fft_rank) {
    return InvalidArgument("fft of rank ", fft_rank,
                           " needs an operand of at "
                           "least that rank, got ",
                           Str(operand));
  }
  const PrimitiveType t = operand.element_type();
  const int64_t first = operand.rank() - fft_rank;
  switch (fft_type) {
    case FftType::kFft:
    case FftType::kIfft:
      if (!IsComplexType(t)) {
        return InvalidArgument("FFT and IFFT need a complex operand, got ",
                               Str(operand));
      }
      return operand;
    case FftType::kRfft: {
      if (t != F32 && t != F64) {
        return InvalidArgument("RFFT needs an f32 or f64 operand, got ",
                               Str(operand));
      }
      for (int64_t i = 0; i < fft_rank; ++i) {
        if (operand.dimensions(first + i) != fft_length[i]) {
          return InvalidArgument("RFFT operand dimension ", first + i, " is ",
                                 operand.dimensions(first + i),
                                 " but fft_length gives ", fft_length[i]);
        }
      }
      Shape result = WithElementType(operand, t == F32 ? C64 : C128);
      if (fft_length[fft_rank - 1] != 0) {
        std::vector<int64_t> dims = result.dimensions();
        dims.back() = fft_length[fft_rank - 1] / 2 + 1;
        return MakeArray(result.element_type(), dims,
                         result.dynamic_dimensions());
      }
      return result;
    }
    case FftType::kIrfft: {
      if (!IsComplexType(t)) {
        return InvalidArgument("IRFFT needs a complex operand, got ",
                               Str(operand));
      }
      for (int64_t i = 0; i + 1 < fft_rank; ++i) {
        if (operand.dimensions(first + i) != fft_length[i]) {
          return InvalidArgument("IRFFT operand dimension ", first + i, " is ",
                                 operand.dimensions(first + i),
                                 " but fft_length gives ", fft_length[i]);
        }
      }
      const int64_t last = operand.dimensions(operand.rank() - 1);
      const int64_t n = fft_length[fft_rank - 1];
      if ((last != 0 || n != 0) && last != n / 2 + 1) {
        return InvalidArgument("IRFFT operand's last dimension is ", last,
                               " but fft_length/2+1 is ", n / 2 + 1);
      }
      std::vector<int64_t> dims = operand.dimensions();
      dims.back() = n;
      return MakeArray(ComplexComponentType(t), dims,
                       operand.dynamic_dimensions());
    }
  }
  return InvalidArgument("unknown fft_type");
}

absl::StatusOr<Shape> InferTriangularSolveShape(
    const Shape& a, const Shape& b, const TriangularSolveOptions& options) {
  HLOC_RETURN_IF_ERROR(ExpectArray(a, "operand 0 (a) of triangular-solve"));
  HLOC_RETURN_IF_ERROR(ExpectArray(b, "operand 1 (b) of triangular-solve"));
  const PrimitiveType t = a.element_type();
  if ((!IsFloat(t) && !IsComplexType(t)) || t != b.element_type()) {
    return InvalidArgument(
        "triangular-solve needs identical floating-point or complex types, "
        "got ",
        Str(a), " and ", Str(b));
  }
  if (a.rank() < 2 || b.rank() != a.rank()) {
    return InvalidArgument(
        "triangular-solve needs operands of equal rank >= 2, got ", Str(a),
        " and ", Str(b));
  }
  const int64_t r = a.rank();
  if (a.dimensions(r - 2) != a.dimensions(r - 1)) {
    return InvalidArgument(
        "triangular-solve 'a' must be square in its two "
        "minor dimensions, got ",
        Str(a));
  }
  if (a.dimensions(r - 1) != b.dimensions(options.left_side ? r - 2 : r - 1)) {
    return InvalidArgument("triangular-solve shared dimension of ", Str(a),
                           " and ", Str(b), " differs");
  }
  for (int64_t i = 0; i + 2 < r; ++i) {
    if (a.dimensions(i) != b.dimensions(i)) {
      return InvalidArgument("triangular-solve batch dimensions differ: ",
                             Str(a), " and ", Str(b));
    }
  }
  if (options.transpose_a < 1 || options.transpose_a > 3) {
    return InvalidArgument("triangular-solve transpose_a ", options.transpose_a,
                           " is invalid");
  }
  return b;
}

absl::StatusOr<Shape> InferCholeskyShape(const Shape& a) {
  HLOC_RETURN_IF_ERROR(ExpectArray(a, "operand of cholesky"));
  if (!IsFloat(a.element_type()) && !IsComplexType(a.element_type())) {
    return InvalidArgument(
        "cholesky needs a floating-point or complex operand, got ", Str(a));
  }
  if (a.rank() < 2 ||
      a.dimensions(a.rank() - 2) != a.dimensions(a.rank() - 1)) {
    return InvalidArgument(
        "cholesky needs a rank >= 2 operand, square in its two minor "
        "dimensions, got ",
        Str(a));
  }
  return a;
}

namespace {

// Shared checks of the batch-norm operations: a floating-point operand with
// a feature dimension, and rank-1 per-feature operands of the same type.
absl::Status CheckBatchNorm(const Shape& operand,
                            absl::Span<const Shape* const> features,
                            absl::Span<const char* const> names,
                            int64_t feature_index, absl::string_view op) {
  HLOC_RETURN_IF_ERROR(ExpectArray(operand, absl::StrCat("operand of ", op)));
  if (!IsFloat(operand.element_type())) {
    return InvalidArgument(op, " needs a floating-point operand, got ",
                           Str(operand));
  }
  if (operand.rank() < 1 || feature_index < 0 ||
      feature_index >= operand.rank()) {
    return InvalidArgument(op, " feature_index ", feature_index,
                           " is out of range for ", Str(operand));
  }
  const Shape expected =
      Shape::Array(operand.element_type(), {operand.dimensions(feature_index)});
  for (size_t i = 0; i < features.size(); ++i) {
    if (!features[i]->IsArray() ||
        !SameTypeAndDimensions(*features[i], expected)) {
      return InvalidArgument(op, " ", names[i], " has shape ",
                             Str(*features[i]), " but ", Str(expected),
                             " was expected");
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Shape> InferBatchNormTrainingShape(const Shape& operand,
                                                  const Shape& scale,
                                                  const Shape& offset,
                                                  int64_t feature_index) {
  HLOC_RETURN_IF_ERROR(CheckBatchNorm(operand, {&scale, &offset},
                                      {"scale", "offset"}, feature_index,
                                      "batch-norm-training"));
  Shape feature =
      Shape::Array(operand.element_type(), {operand.dimensions(feature_index)});
  return Shape::Tuple({operand, feature, feature});
}

absl::StatusOr<Shape> InferBatchNormInferenceShape(
    const Shape& operand, const Shape& scale, const Shape& offset,
    const Shape& mean, const Shape& variance, int64_t feature_index) {
  HLOC_RETURN_IF_ERROR(CheckBatchNorm(operand,
                                      {&scale, &offset, &mean, &variance},
                                      {"scale", "offset", "mean", "variance"},
                                      feature_index, "batch-norm-inference"));
  return operand;
}

absl::StatusOr<Shape> InferBatchNormGradShape(
    const Shape& operand, const Shape& scale, const Shape& mean,
    const Shape& variance, const Shape& output_grad, int64_t feature_index) {
  HLOC_RETURN_IF_ERROR(CheckBatchNorm(operand, {&scale, &mean, &variance},
                                      {"scale", "mean", "variance"},
                                      feature_index, "batch-norm-grad"));
  if (!output_grad.IsArray() || !SameTypeAndDimensions(output_grad, operand)) {
    return InvalidArgument("batch-norm-grad output gradient has shape ",
                           Str(output_grad), " but ", Str(operand),
                           " was expected");
  }
  Shape feature =
      Shape::Array(operand.element_type(), {operand.dimensions(feature_index)});
  return Shape::Tuple({operand, feature, feature});
}

// ----------------------------------------------------------------------------
// Collectives
// ----------------------------------------------------------------------------

absl::StatusOr<Shape> InferAllReduceShape(absl::Span<const Shape> operands) {
  if (operands.empty()) {
    return InvalidArgument("all-reduce needs at least one operand");
  }
  for (size_t i = 0; i < operands.size(); ++i) {
    HLOC_RETURN_IF_ERROR(ExpectArray(
        operands[i], absl::StrCat("operand ", i, " of all-reduce")));
  }
  return TupleOrSingle(std::vector<Shape>(operands.begin(), operands.end()));
}

namespace {

// all-gather multiplies, reduce-scatter divides one dimension by the number
// of participants.
absl::StatusOr<Shape> InferShardedCollective(absl::Span<const Shape> operands,
                                             int64_t dimension,
                                             int64_t shard_count, bool gather) {
  const absl::string_view op = gather ? "all-gather" : "reduce-scatter";
  if (operands.empty()) {
    return InvalidArgument(op, " needs at least one operand");
  }
  if (shard_count <= 0) {
    return InvalidArgument(op, " shard count ", shard_count,
                           " must be positive");
  }
  std::vector<Shape> results;
  for (size_t i = 0; i < operands.size(); ++i) {
    const Shape& s = operands[i];
    HLOC_RETURN_IF_ERROR(
        ExpectArray(s, absl::StrCat("operand ", i, " of ", op)));
    if (dimension < 0 || dimension >= s.rank()) {
      return InvalidArgument(op, " dimension ", dimension,
                             " is out of range for ", Str(s));
    }
    std::vector<int64_t> dims = s.dimensions();
    if (gather) {
      if (!CheckedMul(dims[dimension], shard_count, &dims[dimension])) {
        return InvalidArgument(op, " result is too large");
      }
    } else {
      if (dims[dimension] % shard_count != 0) {
        return InvalidArgument(op, " dimension ", dimension, " of ", Str(s),
                               " is not divisible by the shard count ",
                               shard_count);
      }
      dims[dimension] /= shard_count;
    }
    results.push_back(
        MakeArray(s.element_type(), dims, s.dynamic_dimensions()));
  }
  return TupleOrSingle(std::move(results));
}

}  // namespace

absl::StatusOr<Shape> InferAllGatherShape(absl::Span<const Shape> operands,
                                          int64_t dimension,
                                          int64_t shard_count) {
  return InferShardedCollective(operands, dimension, shard_count, true);
}

absl::StatusOr<Shape> InferReduceScatterShape(absl::Span<const Shape> operands,
                                              int64_t dimension,
                                              int64_t shard_count) {
  return InferShardedCollective(operands, dimension, shard_count, false);
}

absl::StatusOr<Shape> InferAllToAllShape(absl::Span<const Shape> operands,
                                         std::optional<int64_t> split_dimension,
                                         int64_t split_count) {
  if (operands.empty()) {
    return InvalidArgument("all-to-all needs at least one operand");
  }
  if (split_dimension.has_value()) {
    if (operands.size() != 1) {
      return InvalidArgument(
          "all-to-all with a split dimension takes one "
          "operand, got ",
          operands.size());
    }
    const Shape& s = operands[0];
    HLOC_RETURN_IF_ERROR(ExpectArray(s, "operand of all-to-all"));
    if (*split_dimension < 0 || *split_dimension >= s.rank()) {
      return InvalidArgument("all-to-all split dimension ", *split_dimension,
                             " is out of range for ", Str(s));
    }
    if (split_count <= 0 || s.dimensions(*split_dimension) % split_count != 0) {
      return InvalidArgument(
          "all-to-all split dimension ", *split_dimension, " of ", Str(s),
          " is not divisible by the split count ", split_count);
    }
    return s;
  }
  for (size_t i = 0; i < operands.size(); ++i) {
    if (!operands[i].Compatible(operands[0])) {
      return InvalidArgument("operand ", i, " has shape ", Str(operands[i]),
                             " but ", Str(operands[0]), " was expected");
    }
  }
  return Shape::Tuple(std::vector<Shape>(operands.begin(), operands.end()));
}

// ----------------------------------------------------------------------------
// Per instruction
// ----------------------------------------------------------------------------

bool HasShapeInference(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kAsyncStart:
    case HloOpcode::kAsyncUpdate:
    case HloOpcode::kAsyncDone:
    case HloOpcode::kCustomCall:
    case HloOpcode::kAllGatherStart:
    case HloOpcode::kAllGatherDone:
    case HloOpcode::kCollectiveBroadcast:
    case HloOpcode::kCollectivePermuteStart:
    case HloOpcode::kCollectivePermuteDone:
    case HloOpcode::kCollectiveReduce:
    case HloOpcode::kRaggedAllToAll:
    case HloOpcode::kScaledDot:
    case HloOpcode::kShuffle:
      return false;
    default:
      return true;
  }
}

namespace {

absl::Status ExpectOperandCount(const HloInstruction& instr, size_t n,
                                size_t expected) {
  if (n != expected) {
    return InvalidArgument(HloOpcodeString(instr.opcode()), " takes ", expected,
                           " operands, got ", n);
  }
  return absl::OkStatus();
}

absl::Status ExpectMinOperandCount(const HloInstruction& instr, size_t n,
                                   size_t minimum) {
  if (n < minimum) {
    return InvalidArgument(HloOpcodeString(instr.opcode()), " takes at least ",
                           minimum, " operands, got ", n);
  }
  return absl::OkStatus();
}

absl::Status ExpectCalledCount(const HloInstruction& instr, size_t expected) {
  const size_t n = instr.called_computations().size();
  if (n != expected) {
    return InvalidArgument(HloOpcodeString(instr.opcode()), " calls ", expected,
                           " computation", expected == 1 ? "" : "s", ", has ",
                           n);
  }
  return absl::OkStatus();
}

// The signature of called computation `index`, refusing computations whose
// root or parameters are missing.
absl::StatusOr<ProgramShape> CalledProgramShape(const HloInstruction& instr,
                                                size_t index,
                                                absl::string_view role) {
  const std::vector<HloComputation*>& called = instr.called_computations();
  if (index >= called.size() || called[index] == nullptr) {
    return InvalidArgument(HloOpcodeString(instr.opcode()), " has no ", role,
                           " computation");
  }
  const HloComputation* c = called[index];
  if (c->root_instruction() == nullptr) {
    return InvalidArgument(role, " computation ", c->name(), " has no root");
  }
  for (int64_t i = 0; i < c->num_parameters(); ++i) {
    const HloInstruction* param = c->parameter_instruction(i);
    if (param == nullptr) {
      return InvalidArgument(role, " computation ", c->name(),
                             " has no parameter ", i);
    }
    if (!ValidateShape(param->shape()).ok()) {
      return InvalidArgument(role, " computation ", c->name(), " parameter ", i,
                             " has an invalid shape");
    }
  }
  if (!ValidateShape(c->root_instruction()->shape()).ok()) {
    return InvalidArgument(role, " computation ", c->name(),
                           " has a root of invalid shape");
  }
  return c->ComputeProgramShape();
}

absl::StatusOr<int64_t> SingleDimension(const HloInstruction& instr) {
  const std::vector<int64_t>& dims = instr.dimensions();
  if (dims.size() != 1) {
    return InvalidArgument(
        HloOpcodeString(instr.opcode()),
        " needs exactly one dimension, got dimensions=", Str(dims));
  }
  return dims[0];
}

absl::Status ExpectToken(absl::Span<const Shape> shapes, size_t i) {
  if (!shapes[i].IsToken()) {
    return InvalidArgument("operand ", i, " has shape ", Str(shapes[i]),
                           " but token[] was expected");
  }
  return absl::OkStatus();
}

// Output shape of operand 0 of a collective producing one array per operand.
absl::StatusOr<Shape> FirstResult(const Shape& declared, size_t num_operands) {
  if (num_operands == 1 && declared.IsArray()) return declared;
  if (declared.IsTuple() && declared.tuple_shapes_size() > 0 &&
      declared.tuple_shapes(0).IsArray()) {
    return declared.tuple_shapes(0);
  }
  return InvalidArgument("result ", Str(declared),
                         " does not hold one array per operand");
}

// ceil(a / b), and 1 where b is a zero-sized dimension: a malformed
// collective's shape never divides by zero.
int64_t CeilOfRatioOrOne(int64_t a, int64_t b) {
  return b == 0 ? 1 : (a + b - 1) / b;
}

}  // namespace

absl::StatusOr<Shape> InferInstructionShape(const HloInstruction& instr) {
  const HloOpcode opcode = instr.opcode();
  const absl::string_view name = HloOpcodeString(opcode);
  if (!HasShapeInference(opcode)) {
    return absl::UnimplementedError(
        absl::StrCat("no shape inference for ", name));
  }
  std::vector<Shape> shapes;
  for (int64_t i = 0; i < instr.operand_count(); ++i) {
    const HloInstruction* operand = instr.operand(i);
    if (operand == nullptr) return InvalidArgument("operand ", i, " is null");
    absl::Status status = ValidateShape(operand->shape());
    if (!status.ok()) {
      return InvalidArgument("operand ", i, " (", operand->name(),
                             ") has an invalid shape: ", status.message());
    }
    shapes.push_back(operand->shape());
  }
  const Shape& declared = instr.shape();
  HLOC_RETURN_IF_ERROR(ValidateShape(declared));
  const size_t n = shapes.size();
  if (std::optional<int> arity = HloOpcodeArity(opcode)) {
    HLOC_RETURN_IF_ERROR(ExpectOperandCount(instr, n, *arity));
  }
  const absl::Span<const Shape> all(shapes);
  const HloAttributes& attrs = instr.attrs();

  switch (opcode) {
    case HloOpcode::kAbs:
    case HloOpcode::kAcos:
    case HloOpcode::kAcosh:
    case HloOpcode::kAsin:
    case HloOpcode::kAsinh:
    case HloOpcode::kAtan:
    case HloOpcode::kAtanh:
    case HloOpcode::kCbrt:
    case HloOpcode::kCeil:
    case HloOpcode::kClz:
    case HloOpcode::kCos:
    case HloOpcode::kCosh:
    case HloOpcode::kErf:
    case HloOpcode::kExp:
    case HloOpcode::kExpm1:
    case HloOpcode::kFloor:
    case HloOpcode::kImag:
    case HloOpcode::kIsFinite:
    case HloOpcode::kLog:
    case HloOpcode::kLog1p:
    case HloOpcode::kLogistic:
    case HloOpcode::kNegate:
    case HloOpcode::kNot:
    case HloOpcode::kPopulationCount:
    case HloOpcode::kReal:
    case HloOpcode::kRoundNearestAfz:
    case HloOpcode::kRoundNearestEven:
    case HloOpcode::kRsqrt:
    case HloOpcode::kSign:
    case HloOpcode::kSin:
    case HloOpcode::kSinh:
    case HloOpcode::kSqrt:
    case HloOpcode::kTan:
    case HloOpcode::kTanh:
    case HloOpcode::kCopy:
    case HloOpcode::kDomain:
    case HloOpcode::kOptimizationBarrier:
      return InferUnaryOpShape(opcode, shapes[0]);

    case HloOpcode::kAdd:
    case HloOpcode::kAnd:
    case HloOpcode::kAtan2:
    case HloOpcode::kCompare:
    case HloOpcode::kComplex:
    case HloOpcode::kDivide:
    case HloOpcode::kMaximum:
    case HloOpcode::kMinimum:
    case HloOpcode::kMulhi:
    case HloOpcode::kMultiply:
    case HloOpcode::kOr:
    case HloOpcode::kPower:
    case HloOpcode::kRemainder:
    case HloOpcode::kShiftLeft:
    case HloOpcode::kShiftRightArithmetic:
    case HloOpcode::kShiftRightLogical:
    case HloOpcode::kSubtract:
    case HloOpcode::kXor:
      return InferBinaryOpShape(opcode, shapes[0], shapes[1]);

    case HloOpcode::kSelect:
    case HloOpcode::kClamp:
      return InferTernaryOpShape(opcode, shapes[0], shapes[1], shapes[2]);

    case HloOpcode::kConvert:
      return InferConvertShape(shapes[0], declared.element_type());
    case HloOpcode::kBitcastConvert:
      return InferBitcastConvertShape(shapes[0], declared.element_type());
    case HloOpcode::kStochasticConvert:
      return InferStochasticConvertShape(shapes[0], shapes[1],
                                         declared.element_type());
    case HloOpcode::kReducePrecision:
      return InferReducePrecisionShape(shapes[0], attrs.exponent_bits,
                                       attrs.mantissa_bits);

    case HloOpcode::kBroadcast:
      return InferBroadcastShape(shapes[0], declared, attrs.dimensions);
    case HloOpcode::kReshape:
      return InferReshapeShape(shapes[0], declared);
    case HloOpcode::kBitcast:
      return InferBitcastShape(shapes[0], declared);
    case HloOpcode::kDynamicReshape: {
      HLOC_RETURN_IF_ERROR(ExpectMinOperandCount(instr, n, 1));
      HLOC_RETURN_IF_ERROR(ExpectArray(declared, "result of dynamic-reshape"));
      if (static_cast<int64_t>(n) != declared.rank() + 1) {
        return InvalidArgument("dynamic-reshape to ", Str(declared), " takes ",
                               declared.rank() + 1, " operands, got ", n);
      }
      for (size_t i = 1; i < n; ++i) {
        if (!shapes[i].Compatible(ScalarShape(S32))) {
          return InvalidArgument("operand ", i, " has shape ", Str(shapes[i]),
                                 " but s32[] was expected");
        }
      }
      return InferReshapeShape(shapes[0], declared);
    }
    case HloOpcode::kTranspose:
      return InferTransposeShape(shapes[0], attrs.dimensions);
    case HloOpcode::kReverse:
      return InferReverseShape(shapes[0], attrs.dimensions);
    case HloOpcode::kSlice:
      return InferSliceShape(shapes[0], attrs.slice_starts, attrs.slice_limits,
                             attrs.slice_strides);
    case HloOpcode::kDynamicSlice:
      HLOC_RETURN_IF_ERROR(ExpectMinOperandCount(instr, n, 2));
      return InferDynamicSliceShape(shapes[0], all.subspan(1),
                                    attrs.dynamic_slice_sizes);
    case HloOpcode::kDynamicUpdateSlice:
      HLOC_RETURN_IF_ERROR(ExpectMinOperandCount(instr, n, 3));
      return InferDynamicUpdateSliceShape(shapes[0], shapes[1], all.subspan(2));
    case HloOpcode::kConcatenate: {
      HLOC_RETURN_IF_ERROR(ExpectMinOperandCount(instr, n, 1));
      HLOC_ASSIGN_OR_RETURN(int64_t dimension, SingleDimension(instr));
      return InferConcatenateShape(all, dimension);
    }
    case HloOpcode::kPad:
      if (!attrs.padding_config.has_value()) {
        return InvalidArgument("pad has no padding configuration");
      }
      return InferPadShape(shapes[0], shapes[1], *attrs.padding_config);
    case HloOpcode::kIota:
      return InferIotaShape(declared, attrs.iota_dimension);
    case HloOpcode::kConstant: {
      if (!attrs.literal.has_value()) {
        return InvalidArgument("constant has no literal");
      }
      const Shape& literal_shape = attrs.literal->shape();
      absl::Status status = ValidateShape(literal_shape);
      if (!status.ok()) {
        return InvalidArgument("constant literal has an invalid shape: ",
                               status.message());
      }
      return literal_shape;
    }
    case HloOpcode::kParameter:
      return declared;
    case HloOpcode::kGetTupleElement:
      return InferGetTupleElementShape(shapes[0], attrs.tuple_index);
    case HloOpcode::kTuple:
      return InferTupleShape(all);
    case HloOpcode::kGetDimensionSize: {
      HLOC_ASSIGN_OR_RETURN(int64_t dimension, SingleDimension(instr));
      return InferGetDimensionSizeShape(shapes[0], dimension);
    }
    case HloOpcode::kSetDimensionSize: {
      HLOC_ASSIGN_OR_RETURN(int64_t dimension, SingleDimension(instr));
      return InferSetDimensionSizeShape(shapes[0], shapes[1], dimension);
    }

    case HloOpcode::kReduce: {
      HLOC_RETURN_IF_ERROR(ExpectCalledCount(instr, 1));
      HLOC_ASSIGN_OR_RETURN(ProgramShape to_apply,
                            CalledProgramShape(instr, 0, "to_apply"));
      return InferReduceShape(all, attrs.dimensions, to_apply);
    }
    case HloOpcode::kReduceWindow: {
      HLOC_RETURN_IF_ERROR(ExpectCalledCount(instr, 1));
      HLOC_ASSIGN_OR_RETURN(ProgramShape to_apply,
                            CalledProgramShape(instr, 0, "to_apply"));
      return InferReduceWindowShape(all, attrs.window.value_or(Window{}),
                                    to_apply);
    }
    case HloOpcode::kSelectAndScatter: {
      HLOC_RETURN_IF_ERROR(ExpectCalledCount(instr, 2));
      HLOC_ASSIGN_OR_RETURN(ProgramShape select,
                            CalledProgramShape(instr, 0, "select"));
      HLOC_ASSIGN_OR_RETURN(ProgramShape scatter,
                            CalledProgramShape(instr, 1, "scatter"));
      return InferSelectAndScatterShape(shapes[0], select,
                                        attrs.window.value_or(Window{}),
                                        shapes[1], shapes[2], scatter);
    }
    case HloOpcode::kScan: {
      HLOC_RETURN_IF_ERROR(ExpectMinOperandCount(instr, n, 1));
      HLOC_RETURN_IF_ERROR(ExpectCalledCount(instr, 1));
      HLOC_ASSIGN_OR_RETURN(int64_t dimension, SingleDimension(instr));
      HLOC_ASSIGN_OR_RETURN(ProgramShape to_apply,
                            CalledProgramShape(instr, 0, "to_apply"));
      return InferScanShape(all, attrs.num_carries, dimension, to_apply);
    }

    case HloOpcode::kDot:
      return InferDotShape(
          shapes[0], shapes[1],
          attrs.dot_dimension_numbers.value_or(DotDimensionNumbers{}),
          declared.element_type());
    case HloOpcode::kRaggedDot:
      HLOC_RETURN_IF_ERROR(ExpectOperandCount(instr, n, 3));
      if (!attrs.ragged_dot_dimension_numbers.has_value()) {
        return InvalidArgument("ragged-dot has no dimension numbers");
      }
      return InferRaggedDotShape(shapes[0], shapes[1], shapes[2],
                                 *attrs.ragged_dot_dimension_numbers,
                                 declared.element_type());
    case HloOpcode::kConvolution:
      HLOC_RETURN_IF_ERROR(ExpectOperandCount(instr, n, 2));
      if (!attrs.convolution_dimension_numbers.has_value()) {
        return InvalidArgument("convolution has no dimension numbers");
      }
      return InferConvolutionShape(
          shapes[0], shapes[1], attrs.feature_group_count,
          attrs.batch_group_count, attrs.window.value_or(Window{}),
          *attrs.convolution_dimension_numbers, declared.element_type());
    case HloOpcode::kGather:
      if (!attrs.gather_dimension_numbers.has_value()) {
        return InvalidArgument("gather has no dimension numbers");
      }
      return InferGatherShape(shapes[0], shapes[1],
                              *attrs.gather_dimension_numbers,
                              attrs.gather_slice_sizes);
    case HloOpcode::kScatter: {
      HLOC_RETURN_IF_ERROR(ExpectCalledCount(instr, 1));
      if (!attrs.scatter_dimension_numbers.has_value()) {
        return InvalidArgument("scatter has no dimension numbers");
      }
      HLOC_ASSIGN_OR_RETURN(ProgramShape to_apply,
                            CalledProgramShape(instr, 0, "to_apply"));
      return InferScatterShape(all, *attrs.scatter_dimension_numbers, to_apply);
    }
    case HloOpcode::kSort: {
      HLOC_RETURN_IF_ERROR(ExpectMinOperandCount(instr, n, 1));
      HLOC_RETURN_IF_ERROR(ExpectCalledCount(instr, 1));
      HLOC_ASSIGN_OR_RETURN(int64_t dimension, SingleDimension(instr));
      HLOC_ASSIGN_OR_RETURN(ProgramShape comparator,
                            CalledProgramShape(instr, 0, "comparator"));
      return InferSortShape(all, dimension, comparator);
    }
    case HloOpcode::kTopK:
      return InferTopKShape(shapes[0], attrs.k);
    case HloOpcode::kMap: {
      HLOC_RETURN_IF_ERROR(ExpectMinOperandCount(instr, n, 1));
      HLOC_RETURN_IF_ERROR(ExpectCalledCount(instr, 1));
      HLOC_ASSIGN_OR_RETURN(ProgramShape to_apply,
                            CalledProgramShape(instr, 0, "to_apply"));
      // Only maps over all dimensions exist; dimensions= may be omitted.
      for (size_t i = 0; i < attrs.dimensions.size(); ++i) {
        if (attrs.dimensions[i] != static_cast<int64_t>(i) ||
            static_cast<int64_t>(attrs.dimensions.size()) != shapes[0].rank()) {
          return InvalidArgument("map dimensions ", Str(attrs.dimensions),
                                 " must list every operand dimension in "
                                 "order");
        }
      }
      return InferMapShape(all, to_apply);
    }

    case HloOpcode::kWhile: {
      HLOC_RETURN_IF_ERROR(ExpectCalledCount(instr, 2));
      HLOC_ASSIGN_OR_RETURN(ProgramShape condition,
                            CalledProgramShape(instr, 0, "condition"));
      HLOC_ASSIGN_OR_RETURN(ProgramShape body,
                            CalledProgramShape(instr, 1, "body"));
      return InferWhileShape(condition, body, shapes[0]);
    }
    case HloOpcode::kConditional: {
      HLOC_RETURN_IF_ERROR(ExpectMinOperandCount(instr, n, 2));
      HLOC_RETURN_IF_ERROR(ExpectCalledCount(instr, n - 1));
      std::vector<ProgramShape> branches;
      for (size_t j = 0; j + 1 < n; ++j) {
        HLOC_ASSIGN_OR_RETURN(
            ProgramShape branch,
            CalledProgramShape(instr, j, absl::StrCat("branch ", j)));
        branches.push_back(std::move(branch));
      }
      return InferConditionalShape(shapes[0], branches, all.subspan(1));
    }
    case HloOpcode::kCall: {
      HLOC_RETURN_IF_ERROR(ExpectCalledCount(instr, 1));
      HLOC_ASSIGN_OR_RETURN(ProgramShape to_apply,
                            CalledProgramShape(instr, 0, "to_apply"));
      return InferCallShape(all, to_apply);
    }
    case HloOpcode::kFusion: {
      HLOC_RETURN_IF_ERROR(ExpectCalledCount(instr, 1));
      HLOC_ASSIGN_OR_RETURN(ProgramShape fused,
                            CalledProgramShape(instr, 0, "fused"));
      return InferCallShape(all, fused);
    }

    case HloOpcode::kFft:
      return InferFftShape(shapes[0], attrs.fft_type, attrs.fft_length);
    case HloOpcode::kTriangularSolve:
      return InferTriangularSolveShape(
          shapes[0], shapes[1],
          attrs.triangular_solve_options.value_or(TriangularSolveOptions{}));
    case HloOpcode::kCholesky:
      return InferCholeskyShape(shapes[0]);
    case HloOpcode::kBatchNormTraining:
      return InferBatchNormTrainingShape(shapes[0], shapes[1], shapes[2],
                                         attrs.feature_index);
    case HloOpcode::kBatchNormInference:
      return InferBatchNormInferenceShape(shapes[0], shapes[1], shapes[2],
                                          shapes[3], shapes[4],
                                          attrs.feature_index);
    case HloOpcode::kBatchNormGrad:
      return InferBatchNormGradShape(shapes[0], shapes[1], shapes[2], shapes[3],
                                     shapes[4], attrs.feature_index);

    case HloOpcode::kAllReduce:
    case HloOpcode::kAllReduceStart:
      return InferAllReduceShape(all);
    case HloOpcode::kAllReduceDone:
      return shapes[0];
    case HloOpcode::kAllGather:
    case HloOpcode::kReduceScatter: {
      HLOC_RETURN_IF_ERROR(ExpectMinOperandCount(instr, n, 1));
      HLOC_ASSIGN_OR_RETURN(int64_t dimension, SingleDimension(instr));
      HLOC_ASSIGN_OR_RETURN(Shape first, FirstResult(declared, n));
      if (!shapes[0].IsArray() || dimension < 0 ||
          dimension >= shapes[0].rank() || dimension >= first.rank()) {
        return InvalidArgument(name, " dimension ", dimension,
                               " is out of range for ", Str(shapes[0]), " -> ",
                               Str(first));
      }
      if (opcode == HloOpcode::kAllGather) {
        return InferAllGatherShape(
            all, dimension,
            CeilOfRatioOrOne(first.dimensions(dimension),
                             shapes[0].dimensions(dimension)));
      }
      return InferReduceScatterShape(
          all, dimension,
          CeilOfRatioOrOne(shapes[0].dimensions(dimension),
                           first.dimensions(dimension)));
    }
    case HloOpcode::kAllToAll: {
      std::optional<int64_t> split_dimension;
      if (!attrs.dimensions.empty()) {
        HLOC_ASSIGN_OR_RETURN(int64_t dimension, SingleDimension(instr));
        split_dimension = dimension;
      }
      const int64_t split_count =
          attrs.replica_groups.empty()
              ? 1
              : static_cast<int64_t>(attrs.replica_groups[0].size());
      return InferAllToAllShape(all, split_dimension, split_count);
    }
    case HloOpcode::kCollectivePermute:
      if (n == 1) {
        HLOC_RETURN_IF_ERROR(
            ExpectArray(shapes[0], "operand of collective-permute"));
        return shapes[0];
      }
      if (n == 4) return shapes[1];
      return InvalidArgument("collective-permute takes 1 or 4 operands, got ",
                             n);
    case HloOpcode::kPartitionId:
    case HloOpcode::kReplicaId:
      return ScalarShape(U32);

    case HloOpcode::kAddDependency:
      HLOC_RETURN_IF_ERROR(ExpectToken(all, 1));
      return shapes[0];
    case HloOpcode::kAfterAll:
      for (size_t i = 0; i < n; ++i) HLOC_RETURN_IF_ERROR(ExpectToken(all, i));
      return Shape::Token();
    case HloOpcode::kInfeed:
      HLOC_RETURN_IF_ERROR(ExpectToken(all, 0));
      if (!declared.IsTuple() || declared.tuple_shapes_size() != 2 ||
          !declared.tuple_shapes(1).IsToken()) {
        return InvalidArgument("infeed must produce (data, token[]), got ",
                               Str(declared));
      }
      return declared;
    case HloOpcode::kOutfeed:
      HLOC_RETURN_IF_ERROR(ExpectToken(all, 1));
      if (attrs.outfeed_shape.has_value()) {
        HLOC_RETURN_IF_ERROR(ValidateShape(*attrs.outfeed_shape));
        if (!attrs.outfeed_shape->Compatible(shapes[0])) {
          return InvalidArgument("outfeed shape ", Str(*attrs.outfeed_shape),
                                 " differs from operand 0 ", Str(shapes[0]));
        }
      }
      return Shape::Token();
    case HloOpcode::kSend:
      HLOC_RETURN_IF_ERROR(ExpectToken(all, 1));
      return Shape::Tuple({shapes[0], ScalarShape(U32), Shape::Token()});
    case HloOpcode::kSendDone:
      return Shape::Token();
    case HloOpcode::kRecv:
      HLOC_RETURN_IF_ERROR(ExpectToken(all, 0));
      if (!declared.IsTuple() || declared.tuple_shapes_size() != 3) {
        return InvalidArgument("recv must produce (data, u32[], token[]), got ",
                               Str(declared));
      }
      return Shape::Tuple(
          {declared.tuple_shapes(0), ScalarShape(U32), Shape::Token()});
    case HloOpcode::kRecvDone:
      if (!shapes[0].IsTuple() || shapes[0].tuple_shapes_size() < 1) {
        return InvalidArgument("recv-done operand must be a recv tuple, got ",
                               Str(shapes[0]));
      }
      return Shape::Tuple({shapes[0].tuple_shapes(0), Shape::Token()});
    case HloOpcode::kCopyStart:
      return Shape::Tuple({shapes[0], shapes[0], ScalarShape(U32)});
    case HloOpcode::kCopyDone:
      if (!shapes[0].IsTuple() || shapes[0].tuple_shapes_size() < 2 ||
          !shapes[0].tuple_shapes(0).Compatible(shapes[0].tuple_shapes(1))) {
        return InvalidArgument(
            "copy-done operand must be a copy-start tuple, got ",
            Str(shapes[0]));
      }
      return shapes[0].tuple_shapes(0);

    case HloOpcode::kRng: {
      HLOC_RETURN_IF_ERROR(ExpectOperandCount(instr, n, 2));
      HLOC_RETURN_IF_ERROR(ExpectArray(declared, "result of rng"));
      const Shape scalar = ScalarShape(declared.element_type());
      for (size_t i = 0; i < 2; ++i) {
        if (!shapes[i].Compatible(scalar)) {
          return InvalidArgument("operand ", i, " has shape ", Str(shapes[i]),
                                 " but ", Str(scalar), " was expected");
        }
      }
      const PrimitiveType t = declared.element_type();
      if (attrs.distribution == RandomDistribution::kUniform) {
        if (!IsFloat(t) && !IsIntegralType(t) && t != PRED) {
          return InvalidArgument("rng_uniform cannot produce ", Str(declared));
        }
      } else if (attrs.distribution == RandomDistribution::kNormal) {
        if (!IsFloat(t)) {
          return InvalidArgument("rng_normal cannot produce ", Str(declared));
        }
      } else {
        return InvalidArgument("rng has no valid distribution");
      }
      return declared;
    }
    case HloOpcode::kRngBitGenerator:
      if (declared.IsTuple() &&
          (declared.tuple_shapes_size() != 2 ||
           !declared.tuple_shapes(0).Compatible(shapes[0]))) {
        return InvalidArgument("rng-bit-generator must produce (",
                               Str(shapes[0]), ", bits), got ", Str(declared));
      }
      return declared;
    case HloOpcode::kRngGetAndUpdateState:
      return Shape::Array(U64, {2});

    default:
      return absl::UnimplementedError(
          absl::StrCat("no shape inference for ", name));
  }
}

}  // namespace hloc
