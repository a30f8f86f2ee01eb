// Unit tests of shape inference: for every family of operations, results
// that follow XLA's rules and errors with their exact text.
#include "hlo/shape_inference.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace hloc {
namespace {

Shape A(PrimitiveType type, std::vector<int64_t> dims) {
  return Shape::Array(type, std::move(dims));
}

// The inferred shape without layout, or "error: <message>".
std::string Infer(const absl::StatusOr<Shape>& result) {
  if (!result.ok()) return "error: " + std::string(result.status().message());
  return result->ToString(false);
}

ProgramShape Signature(std::vector<Shape> params, Shape result) {
  ProgramShape p;
  p.parameters = std::move(params);
  p.result = std::move(result);
  return p;
}

ProgramShape ScalarReducer(PrimitiveType t) {
  return Signature({A(t, {}), A(t, {})}, A(t, {}));
}

TEST(ShapeInferenceTest, ValidateShape) {
  EXPECT_TRUE(ValidateShape(A(F8E4M3FN, {2, 3})).ok());
  EXPECT_TRUE(ValidateShape(Shape::Tuple({A(S4, {8}), Shape::Token()})).ok());
  Shape negative = A(F32, {2});
  negative.mutable_dimensions()->at(0) = -1;
  EXPECT_EQ(ValidateShape(negative).message(),
            "shape f32[-1] has a negative dimension size");
  Shape ragged = A(F32, {2});
  ragged.mutable_dimensions()->push_back(3);
  EXPECT_EQ(ValidateShape(ragged).message(),
            "shape has 2 dimensions but 1 dynamic-dimension flags");
  EXPECT_EQ(
      ValidateShape(Shape::ArrayWithLayout(F32, {2, 3}, {0, 0})).message(),
      "layout {0,0} is not a permutation of the 2 dimensions of "
      "f32[2,3]");
  EXPECT_EQ(ValidateShape(A(PRIMITIVE_TYPE_INVALID, {})).message(),
            "shape has invalid element type 0");
  EXPECT_EQ(ValidateShape(A(F32, {1LL << 40, 1LL << 40})).message(),
            "shape f32[1099511627776,1099511627776] has more elements than "
            "fit in 64 bits");
}

TEST(ShapeInferenceTest, Unary) {
  EXPECT_EQ(Infer(InferUnaryOpShape(HloOpcode::kExp, A(F32, {4}))), "f32[4]");
  EXPECT_EQ(Infer(InferUnaryOpShape(HloOpcode::kAbs, A(C64, {4}))), "f32[4]");
  EXPECT_EQ(Infer(InferUnaryOpShape(HloOpcode::kReal, A(C128, {}))), "f64[]");
  EXPECT_EQ(Infer(InferUnaryOpShape(HloOpcode::kIsFinite, A(BF16, {2}))),
            "pred[2]");
  EXPECT_EQ(Infer(InferUnaryOpShape(HloOpcode::kNot, A(PRED, {2}))), "pred[2]");
  EXPECT_EQ(Infer(InferUnaryOpShape(HloOpcode::kClz, A(U8, {2}))), "u8[2]");
  EXPECT_EQ(Infer(InferUnaryOpShape(HloOpcode::kClz, A(F32, {2}))),
            "error: count-leading-zeros expects an integral operand, got "
            "f32[2]");
  EXPECT_EQ(Infer(InferUnaryOpShape(HloOpcode::kPopulationCount, A(PRED, {}))),
            "error: popcnt expects an integral operand, got pred[]");
  EXPECT_EQ(Infer(InferUnaryOpShape(HloOpcode::kAbs, A(U32, {}))),
            "error: abs expects a signed or complex operand, got u32[]");
  EXPECT_EQ(Infer(InferUnaryOpShape(HloOpcode::kSqrt, A(S32, {}))),
            "error: sqrt expects a floating-point or complex operand, got "
            "s32[]");
  EXPECT_EQ(Infer(InferUnaryOpShape(HloOpcode::kFloor, A(C64, {}))),
            "error: floor expects a floating-point operand, got c64[]");
  EXPECT_EQ(
      Infer(InferUnaryOpShape(HloOpcode::kNegate, Shape::Tuple({A(F32, {})}))),
      "error: operand of negate must be an array, got (f32[])");
  EXPECT_EQ(Infer(InferUnaryOpShape(HloOpcode::kAdd, A(F32, {}))),
            "error: add is not a unary elementwise operation");
}

TEST(ShapeInferenceTest, Binary) {
  EXPECT_EQ(Infer(InferBinaryOpShape(HloOpcode::kAdd, A(F32, {2, 3}),
                                     A(F32, {2, 3}))),
            "f32[2,3]");
  EXPECT_EQ(
      Infer(InferBinaryOpShape(HloOpcode::kAdd, A(F32, {3}), A(F32, {4}))),
      "error: operand 1 has shape f32[4] but f32[3] was expected");
  EXPECT_EQ(Infer(InferBinaryOpShape(HloOpcode::kMultiply, A(F32, {3}),
                                     A(BF16, {3}))),
            "error: operand 1 has shape bf16[3] but f32[3] was expected");
  EXPECT_EQ(
      Infer(InferBinaryOpShape(HloOpcode::kAnd, A(F32, {3}), A(F32, {3}))),
      "error: and expects pred or integral operands, got f32[3]");
  EXPECT_EQ(
      Infer(InferBinaryOpShape(HloOpcode::kSubtract, A(PRED, {}), A(PRED, {}))),
      "error: subtract expects arithmetic (not pred) operands, got "
      "pred[]");
  EXPECT_EQ(
      Infer(InferBinaryOpShape(HloOpcode::kShiftLeft, A(F32, {}), A(F32, {}))),
      "error: shift-left expects integral operands, got f32[]");
  EXPECT_EQ(
      Infer(InferBinaryOpShape(HloOpcode::kComplex, A(F32, {2}), A(F32, {2}))),
      "c64[2]");
  EXPECT_EQ(
      Infer(InferBinaryOpShape(HloOpcode::kComplex, A(F16, {2}), A(F16, {2}))),
      "error: complex expects f32 or f64 operands, got f16[2]");
  EXPECT_EQ(Infer(InferCompareShape(A(S32, {5}), A(S32, {5}))), "pred[5]");
  EXPECT_EQ(Infer(InferCompareShape(A(S32, {5}), A(U32, {5}))),
            "error: operand 1 has shape u32[5] but s32[5] was expected");
  // Dynamic dimensions propagate.
  Shape dynamic = A(F32, {8});
  dynamic.set_dynamic_dimension(0, true);
  EXPECT_EQ(Infer(InferBinaryOpShape(HloOpcode::kAdd, A(F32, {8}), dynamic)),
            "f32[<=8]");
}

TEST(ShapeInferenceTest, SelectAndClamp) {
  EXPECT_EQ(Infer(InferSelectShape(A(PRED, {3}), A(F32, {3}), A(F32, {3}))),
            "f32[3]");
  EXPECT_EQ(Infer(InferSelectShape(A(PRED, {}), A(F32, {3}), A(F32, {3}))),
            "error: operand 0 has shape pred[] but pred[3] was expected");
  EXPECT_EQ(Infer(InferSelectShape(A(S32, {3}), A(F32, {3}), A(F32, {3}))),
            "error: operand 0 has shape s32[3] but pred[3] was expected");
  EXPECT_EQ(Infer(InferSelectShape(A(PRED, {3}), A(F32, {3}), A(S32, {3}))),
            "error: operand 2 has shape s32[3] but f32[3] was expected");
  EXPECT_EQ(Infer(InferClampShape(A(F32, {3}), A(F32, {3}), A(F32, {3}))),
            "f32[3]");
  EXPECT_EQ(Infer(InferClampShape(A(F32, {}), A(F32, {3}), A(F32, {3}))),
            "error: operand 0 has shape f32[] but f32[3] was expected");
  EXPECT_EQ(Infer(InferTernaryOpShape(HloOpcode::kAdd, A(F32, {}), A(F32, {}),
                                      A(F32, {}))),
            "error: add is not a ternary elementwise operation");
}

TEST(ShapeInferenceTest, Conversions) {
  EXPECT_EQ(Infer(InferConvertShape(A(F32, {2}), S8)), "s8[2]");
  EXPECT_EQ(Infer(InferConvertShape(A(C64, {2}), PRED)),
            "error: convert from complex c64 to real pred is not defined; "
            "take real() (or imag(), abs()) first");
  EXPECT_EQ(Infer(InferConvertShape(A(C128, {2}), F32)),
            "error: convert from complex c128 to real f32 is not defined; "
            "take real() (or imag(), abs()) first");
  EXPECT_EQ(Infer(InferConvertShape(A(F32, {2}), C64)), "c64[2]");
  EXPECT_EQ(Infer(InferConvertShape(A(C64, {2}), C128)), "c128[2]");
  EXPECT_EQ(Infer(InferConvertShape(A(F32, {2}), TUPLE)),
            "error: convert cannot produce element type tuple");
  EXPECT_EQ(Infer(InferBitcastConvertShape(A(F32, {4}), S32)), "s32[4]");
  EXPECT_EQ(Infer(InferBitcastConvertShape(A(F32, {4}), S8)), "s8[4,4]");
  EXPECT_EQ(Infer(InferBitcastConvertShape(A(U16, {3, 2}), F32)), "f32[3]");
  EXPECT_EQ(Infer(InferBitcastConvertShape(A(U16, {3}), F32)),
            "error: bitcast-convert from u16[3] to f32 needs a last "
            "dimension of size 2");
  EXPECT_EQ(Infer(InferBitcastConvertShape(A(C64, {3}), F64)),
            "error: bitcast-convert between complex and real types: c64[3] "
            "to f64");
  EXPECT_EQ(Infer(InferBitcastConvertShape(A(S4, {3, 2}), F8E5M2)),
            "f8e5m2[3]");
  EXPECT_EQ(Infer(InferReducePrecisionShape(A(F32, {2}), 5, 10)), "f32[2]");
  EXPECT_EQ(Infer(InferReducePrecisionShape(A(F32, {2}), 0, 10)),
            "error: reduce-precision needs exponent_bits >= 1, got 0");
  EXPECT_EQ(Infer(InferStochasticConvertShape(A(F32, {2}), A(U32, {2}), BF16)),
            "bf16[2]");
  EXPECT_EQ(Infer(InferStochasticConvertShape(A(F32, {2}), A(U16, {2}), BF16)),
            "error: operand 1 has shape u16[2] but unsigned integers of the "
            "operand's width and dimensions were expected");
}

TEST(ShapeInferenceTest, BroadcastReshapeBitcast) {
  EXPECT_EQ(Infer(InferBroadcastShape(A(F32, {3}), A(F32, {2, 3}), {1})),
            "f32[2,3]");
  // HLO broadcast dimensions need not be increasing.
  EXPECT_EQ(Infer(InferBroadcastShape(A(F32, {3, 2}), A(F32, {2, 3}), {1, 0})),
            "f32[2,3]");
  EXPECT_EQ(Infer(InferBroadcastShape(A(F32, {3}), A(F32, {2, 3}), {0})),
            "error: operand dimension 0 has size 3 but result dimension 0 "
            "has size 2");
  EXPECT_EQ(Infer(InferBroadcastShape(A(F32, {3}), A(F32, {2, 3}), {7})),
            "error: broadcast dimensions {7} has dimension 7 out of range "
            "for rank 2");
  EXPECT_EQ(Infer(InferBroadcastShape(A(F32, {3}), A(F32, {2, 3}), {})),
            "error: broadcast dimensions {} has 0 entries but the operand "
            "f32[3] has rank 1");
  EXPECT_EQ(Infer(InferBroadcastShape(A(F32, {}), A(S32, {2}), {})),
            "error: broadcast changes the element type from f32 to s32");
  EXPECT_EQ(Infer(InferReshapeShape(A(F32, {2, 6}), A(F32, {3, 4}))),
            "f32[3,4]");
  EXPECT_EQ(Infer(InferReshapeShape(A(F32, {2, 6}), A(F32, {10}))),
            "error: reshape changes the element count from 12 (f32[2,6]) to "
            "10 (f32[10])");
  EXPECT_EQ(Infer(InferBitcastShape(A(F32, {2, 6}), A(S32, {12}))), "s32[12]");
  EXPECT_EQ(Infer(InferBitcastShape(A(F32, {2}), A(F16, {2}))),
            "error: bitcast changes the data size from f32[2] to f16[2]");
}

TEST(ShapeInferenceTest, TransposeReverseSlice) {
  EXPECT_EQ(Infer(InferTransposeShape(A(F32, {2, 3, 4}), {2, 0, 1})),
            "f32[4,2,3]");
  EXPECT_EQ(Infer(InferTransposeShape(A(F32, {2, 3}), {0, 0})),
            "error: transpose dimensions {0,0} are not a permutation of the "
            "operand dimensions (operand shape is f32[2,3])");
  EXPECT_EQ(Infer(InferReverseShape(A(F32, {2, 3}), {1})), "f32[2,3]");
  EXPECT_EQ(Infer(InferReverseShape(A(F32, {2, 3}), {1, 1})),
            "error: reverse dimensions {1,1} repeats dimension 1");
  EXPECT_EQ(Infer(InferSliceShape(A(F32, {10, 8}), {1, 0}, {10, 8}, {3, 1})),
            "f32[3,8]");
  EXPECT_EQ(Infer(InferSliceShape(A(F32, {10}), {2}, {2}, {1})), "f32[0]");
  EXPECT_EQ(Infer(InferSliceShape(A(F32, {10}), {0}, {11}, {1})),
            "error: slice dimension 0 [0:11) is not within [0, 10] of f32[10]");
  EXPECT_EQ(Infer(InferSliceShape(A(F32, {10}), {0}, {5}, {0})),
            "error: slice stride 0 in dimension 0 must be positive");
  EXPECT_EQ(Infer(InferSliceShape(A(F32, {10}), {0}, {5}, {})),
            "error: slice of rank-1 operand f32[10] needs 1 starts, limits "
            "and strides, got 1, 1 and 0");
}

TEST(ShapeInferenceTest, DynamicSlices) {
  std::vector<Shape> scalars = {A(S32, {}), A(S32, {})};
  EXPECT_EQ(Infer(InferDynamicSliceShape(A(F32, {8, 6}), scalars, {2, 6})),
            "f32[2,6]");
  EXPECT_EQ(
      Infer(InferDynamicSliceShape(A(F32, {8, 6}), {A(S64, {2})}, {2, 6})),
      "f32[2,6]");
  EXPECT_EQ(Infer(InferDynamicSliceShape(A(F32, {8, 6}), scalars, {2, 7})),
            "error: dynamic-slice size 7 in dimension 1 is not within [0, 6]");
  EXPECT_EQ(Infer(InferDynamicSliceShape(A(F32, {8, 6}), {A(S32, {})}, {2, 6})),
            "error: dynamic-slice of rank-2 operand f32[8,6] needs 2 start "
            "indices, got 1");
  EXPECT_EQ(Infer(InferDynamicSliceShape(A(F32, {8, 6}),
                                         {A(S32, {}), A(F32, {})}, {2, 6})),
            "error: dynamic-slice start index 1 must be an integral scalar, "
            "got f32[]");
  EXPECT_EQ(Infer(InferDynamicUpdateSliceShape(A(F32, {8, 6}), A(F32, {2, 6}),
                                               scalars)),
            "f32[8,6]");
  EXPECT_EQ(Infer(InferDynamicUpdateSliceShape(A(F32, {8, 6}), A(F32, {9, 6}),
                                               scalars)),
            "error: update f32[9,6] is larger than the operand f32[8,6] in "
            "dimension 0");
  EXPECT_EQ(Infer(InferDynamicUpdateSliceShape(A(F32, {8, 6}), A(S32, {2, 6}),
                                               scalars)),
            "error: update s32[2,6] must have the rank and element type of "
            "the operand f32[8,6]");
}

TEST(ShapeInferenceTest, ConcatenatePadIota) {
  EXPECT_EQ(Infer(InferConcatenateShape({A(F32, {2, 3}), A(F32, {2, 5})}, 1)),
            "f32[2,8]");
  EXPECT_EQ(Infer(InferConcatenateShape({A(F32, {2, 3}), A(F32, {3, 5})}, 1)),
            "error: operand 1 has shape f32[3,5] which differs from operand 0 "
            "f32[2,3] in element type, rank or a dimension other than 1");
  EXPECT_EQ(Infer(InferConcatenateShape({A(F32, {2, 3})}, 2)),
            "error: concatenate dimension 2 is out of range for f32[2,3]");
  PaddingConfig config;
  config.dimensions = {{1, 2, 1}, {-1, 0, 0}};
  EXPECT_EQ(Infer(InferPadShape(A(F32, {3, 4}), A(F32, {}), config)),
            "f32[8,3]");
  config.dimensions[1].edge_padding_low = -5;
  EXPECT_EQ(Infer(InferPadShape(A(F32, {3, 4}), A(F32, {}), config)),
            "error: padding gives dimension 1 a negative size -1");
  EXPECT_EQ(Infer(InferPadShape(A(F32, {3, 4}), A(S32, {}), config)),
            "error: operand 1 has shape s32[] but f32[] was expected");
  config.dimensions.pop_back();
  EXPECT_EQ(Infer(InferPadShape(A(F32, {3, 4}), A(F32, {}), config)),
            "error: padding config has 1 dimensions but the operand f32[3,4] "
            "has rank 2");
  EXPECT_EQ(Infer(InferIotaShape(A(S32, {4, 5}), 1)), "s32[4,5]");
  EXPECT_EQ(Infer(InferIotaShape(A(S32, {4, 5}), 2)),
            "error: iota dimension 2 is out of range for s32[4,5]");
  EXPECT_EQ(Infer(InferIotaShape(A(PRED, {4}), 0)),
            "error: iota needs an integral, floating-point or complex type, "
            "got pred[4]");
}

TEST(ShapeInferenceTest, TuplesAndDimensionSizes) {
  Shape tuple = Shape::Tuple({A(F32, {2}), A(S32, {})});
  EXPECT_EQ(Infer(InferGetTupleElementShape(tuple, 1)), "s32[]");
  EXPECT_EQ(Infer(InferGetTupleElementShape(tuple, 2)),
            "error: tuple index 2 is out of range for (f32[2], s32[])");
  EXPECT_EQ(Infer(InferGetTupleElementShape(A(F32, {}), 0)),
            "error: get-tuple-element operand must be a tuple, got f32[]");
  EXPECT_EQ(Infer(InferTupleShape({A(F32, {2}), Shape::Token()})),
            "(f32[2], token[])");
  EXPECT_EQ(Infer(InferGetDimensionSizeShape(A(F32, {2, 3}), 1)), "s32[]");
  EXPECT_EQ(Infer(InferSetDimensionSizeShape(A(F32, {2, 3}), A(S32, {}), 1)),
            "f32[2,<=3]");
  EXPECT_EQ(Infer(InferSetDimensionSizeShape(A(F32, {2, 3}), A(S64, {}), 1)),
            "error: operand 1 has shape s64[] but s32[] was expected");
}

TEST(ShapeInferenceTest, Reduce) {
  EXPECT_EQ(Infer(InferReduceShape({A(F32, {2, 3, 4}), A(F32, {})}, {0, 2},
                                   ScalarReducer(F32))),
            "f32[3]");
  // Variadic argmax-style reduce: (f32, s32) pairs.
  ProgramShape argmax =
      Signature({A(F32, {}), A(S32, {}), A(F32, {}), A(S32, {})},
                Shape::Tuple({A(F32, {}), A(S32, {})}));
  EXPECT_EQ(Infer(InferReduceShape(
                {A(F32, {5, 7}), A(S32, {5, 7}), A(F32, {}), A(S32, {})}, {1},
                argmax)),
            "(f32[5], s32[5])");
  EXPECT_EQ(Infer(InferReduceShape({A(F32, {2, 3}), A(F32, {})}, {2},
                                   ScalarReducer(F32))),
            "error: reduce dimensions {2} has dimension 2 out of range for "
            "rank 2");
  EXPECT_EQ(Infer(InferReduceShape({A(F32, {2, 3}), A(S32, {})}, {0},
                                   ScalarReducer(F32))),
            "error: init value 0 has shape s32[] but reduce computation "
            "result 0 has shape f32[]");
  EXPECT_EQ(Infer(InferReduceShape({A(F32, {2, 3}), A(F32, {})}, {0},
                                   Signature({A(F32, {})}, A(F32, {})))),
            "error: reduce computation must take 2 parameters, but takes 1");
  EXPECT_EQ(Infer(InferReduceShape({A(S32, {2, 3}), A(F32, {})}, {0},
                                   ScalarReducer(F32))),
            "error: reduce computation parameter 1 has shape f32[] but input "
            "0 has element type s32");
  EXPECT_EQ(Infer(InferReduceShape(
                {A(F32, {5, 7}), A(S32, {5, 7}), A(F32, {}), A(S32, {})}, {1},
                ScalarReducer(F32))),
            "error: reduce computation must take 4 parameters, but takes 2");
  EXPECT_EQ(
      Infer(InferReduceShape(
          {A(F32, {2, 3}), A(F32, {2}), A(F32, {}), A(F32, {})}, {0}, argmax)),
      "error: input 1 has shape f32[2] but the dimensions of input 0 "
      "f32[2,3] were expected");
  EXPECT_EQ(Infer(InferReduceShape({A(F32, {2, 3})}, {0}, ScalarReducer(F32))),
            "error: reduce takes inputs then as many init values: an even, "
            "non-zero number of operands, got 1");
}

Window MakeWindow(std::vector<WindowDimension> dims) {
  Window w;
  w.dimensions = std::move(dims);
  return w;
}

WindowDimension Dim(int64_t size, int64_t stride = 1, int64_t low = 0,
                    int64_t high = 0, int64_t base_dilation = 1,
                    int64_t window_dilation = 1) {
  WindowDimension d;
  d.size = size;
  d.stride = stride;
  d.padding_low = low;
  d.padding_high = high;
  d.base_dilation = base_dilation;
  d.window_dilation = window_dilation;
  return d;
}

TEST(ShapeInferenceTest, ReduceWindow) {
  // Max-pool 2x2 stride 2 over NHWC, as the corpus's maxpool does.
  Window pool = MakeWindow({Dim(1), Dim(2, 2), Dim(2, 2), Dim(1)});
  EXPECT_EQ(Infer(InferReduceWindowShape({A(F32, {2, 16, 16, 8}), A(F32, {})},
                                         pool, ScalarReducer(F32))),
            "f32[2,8,8,8]");
  // Padding, base dilation (10 -> 19 + 1 + 2 = 22) and window dilation
  // (3 -> 5): (22 - 5) / 3 + 1 = 6.
  EXPECT_EQ(Infer(InferWindowOutputShape(
                A(F32, {10}), MakeWindow({Dim(3, 3, 1, 2, 2, 2)}), F32)),
            "f32[6]");
  // A window larger than the padded base gives size 0.
  EXPECT_EQ(
      Infer(InferWindowOutputShape(A(F32, {2}), MakeWindow({Dim(3)}), F32)),
      "f32[0]");
  EXPECT_EQ(
      Infer(InferReduceWindowShape({A(F32, {4, 4}), A(F32, {})},
                                   MakeWindow({Dim(2)}), ScalarReducer(F32))),
      "error: window has 1 dimensions but the operand f32[4,4] has "
      "rank 2");
  EXPECT_EQ(Infer(InferReduceWindowShape({A(F32, {4}), A(F32, {})},
                                         MakeWindow({Dim(2, 0)}),
                                         ScalarReducer(F32))),
            "error: window dimension 0 needs a positive size, stride and "
            "dilations, got size=2 stride=0 lhs_dilate=1 rhs_dilate=1");
  EXPECT_EQ(
      Infer(InferSelectAndScatterShape(
          A(F32, {4, 4}), Signature({A(F32, {}), A(F32, {})}, A(PRED, {})),
          MakeWindow({Dim(2, 2), Dim(2, 2)}), A(F32, {2, 2}), A(F32, {}),
          ScalarReducer(F32))),
      "f32[4,4]");
  EXPECT_EQ(
      Infer(InferSelectAndScatterShape(
          A(F32, {4, 4}), Signature({A(F32, {}), A(F32, {})}, A(PRED, {})),
          MakeWindow({Dim(2, 2), Dim(2, 2)}), A(F32, {3, 2}), A(F32, {}),
          ScalarReducer(F32))),
      "error: source has shape f32[3,2] but the window over the operand "
      "gives f32[2,2]");
  EXPECT_EQ(Infer(InferSelectAndScatterShape(
                A(F32, {4, 4}), Signature({A(F32, {}), A(F32, {})}, A(F32, {})),
                MakeWindow({Dim(2, 2), Dim(2, 2)}), A(F32, {2, 2}), A(F32, {}),
                ScalarReducer(F32))),
            "error: select computation must return pred[], returns f32[]");
}

TEST(ShapeInferenceTest, Scan) {
  // Cumulative sum over dimension 1 with one carry: (x, acc) -> (y, acc').
  ProgramShape body = Signature({A(F32, {4}), A(F32, {4})},
                                Shape::Tuple({A(F32, {4}), A(F32, {4})}));
  EXPECT_EQ(Infer(InferScanShape({A(F32, {4, 10}), A(F32, {4})}, 1, 1, body)),
            "(f32[4,10], f32[4])");
  EXPECT_EQ(Infer(InferScanShape({A(F32, {4, 10}), A(F32, {4})}, 1, 0, body)),
            "error: scan computation parameter 0 has shape f32[4] but f32[10] "
            "was expected");
  EXPECT_EQ(Infer(InferScanShape({A(F32, {4, 10})}, 1, 1, body)),
            "error: scan with 1 operands cannot have 1 carries (it needs an "
            "input)");
}

TEST(ShapeInferenceTest, Dot) {
  DotDimensionNumbers matmul;
  matmul.lhs_contracting_dimensions = {1};
  matmul.rhs_contracting_dimensions = {0};
  EXPECT_EQ(Infer(InferDotShape(A(F32, {16, 64}), A(F32, {64, 8}), matmul,
                                std::nullopt)),
            "f32[16,8]");
  // Batch dimensions come first (the corpus's batched_matmul).
  DotDimensionNumbers batched;
  batched.lhs_batch_dimensions = {1};
  batched.rhs_batch_dimensions = {0};
  batched.lhs_contracting_dimensions = {2};
  batched.rhs_contracting_dimensions = {1};
  EXPECT_EQ(Infer(InferDotShape(A(F32, {128, 8, 32}), A(F32, {8, 32, 64}),
                                batched, F32)),
            "f32[8,128,64]");
  // Mixed operand types; the result type is the instruction's.
  EXPECT_EQ(Infer(InferDotShape(A(BF16, {2, 3}), A(F32, {3, 4}), matmul, F32)),
            "f32[2,4]");
  EXPECT_EQ(Infer(InferDotShape(A(S8, {2, 3}), A(S8, {3, 4}), matmul, S32)),
            "s32[2,4]");
  EXPECT_EQ(Infer(InferDotShape(A(F32, {2, 3}), A(F32, {3, 4}), matmul, BF16)),
            "bf16[2,4]");
  EXPECT_EQ(Infer(InferDotShape(A(S32, {2, 3}), A(S32, {3, 4}), matmul, S8)),
            "error: result element type s8 is narrower than the operand type "
            "s32");
  EXPECT_EQ(Infer(InferDotShape(A(F32, {2, 3}), A(F32, {4, 4}), matmul,
                                std::nullopt)),
            "error: dot contracting dimension sizes differ: lhs f32[2,3] "
            "dimension 1 vs rhs f32[4,4] dimension 0");
  DotDimensionNumbers bad = matmul;
  bad.lhs_contracting_dimensions = {5};
  EXPECT_EQ(
      Infer(InferDotShape(A(F32, {2, 3}), A(F32, {3, 4}), bad, std::nullopt)),
      "error: dot lhs contracting and batch dimensions {5} has dimension "
      "5 out of range for rank 2");
  // Outer product: no contracting dimensions.
  EXPECT_EQ(Infer(InferDotShape(A(F32, {2}), A(F32, {3}), DotDimensionNumbers{},
                                std::nullopt)),
            "f32[2,3]");
}

ConvolutionDimensionNumbers Nchw2d() {
  // dim_labels=bf01_oi01->bf01
  ConvolutionDimensionNumbers d;
  d.input_batch_dimension = 0;
  d.input_feature_dimension = 1;
  d.input_spatial_dimensions = {2, 3};
  d.kernel_output_feature_dimension = 0;
  d.kernel_input_feature_dimension = 1;
  d.kernel_spatial_dimensions = {2, 3};
  d.output_batch_dimension = 0;
  d.output_feature_dimension = 1;
  d.output_spatial_dimensions = {2, 3};
  return d;
}

TEST(ShapeInferenceTest, Convolution) {
  // The corpus's conv_stride2: window={size=3x3 stride=2x2 pad=0_1x0_1}.
  Window w = MakeWindow({Dim(3, 2, 0, 1), Dim(3, 2, 0, 1)});
  EXPECT_EQ(
      Infer(InferConvolutionShape(A(F32, {2, 4, 16, 16}), A(F32, {8, 4, 3, 3}),
                                  1, 1, w, Nchw2d(), F32)),
      "f32[2,8,8,8]");
  // lhs dilation (transposed conv) and rhs dilation (atrous).
  Window dilated = MakeWindow({Dim(3, 1, 1, 1, 2, 1), Dim(3, 1, 0, 0, 1, 2)});
  EXPECT_EQ(
      Infer(InferConvolutionShape(A(F32, {1, 4, 5, 9}), A(F32, {6, 4, 3, 3}), 1,
                                  1, dilated, Nchw2d(), std::nullopt)),
      "f32[1,6,9,5]");
  // Depthwise: feature_group_count = input features.
  EXPECT_EQ(Infer(InferConvolutionShape(
                A(F32, {1, 4, 5, 5}), A(F32, {8, 1, 3, 3}), 4, 1,
                MakeWindow({Dim(3), Dim(3)}), Nchw2d(), F32)),
            "f32[1,8,3,3]");
  // batch_group_count divides the batch.
  EXPECT_EQ(Infer(InferConvolutionShape(
                A(F32, {4, 2, 5, 5}), A(F32, {8, 2, 3, 3}), 1, 2,
                MakeWindow({Dim(3), Dim(3)}), Nchw2d(), F32)),
            "f32[2,8,3,3]");
  EXPECT_EQ(
      Infer(InferConvolutionShape(A(F32, {2, 4, 16, 16}), A(F32, {8, 3, 3, 3}),
                                  1, 1, w, Nchw2d(), F32)),
      "error: input features 4 / feature_group_count 1 must equal the "
      "kernel input features 3 (lhs f32[2,4,16,16], rhs f32[8,3,3,3])");
  EXPECT_EQ(
      Infer(InferConvolutionShape(A(F32, {2, 4, 16, 16}), A(F32, {8, 4, 2, 3}),
                                  1, 1, w, Nchw2d(), F32)),
      "error: window size 3 in spatial dimension 0 differs from the "
      "kernel size 2 (rhs f32[8,4,2,3])");
  ConvolutionDimensionNumbers bad = Nchw2d();
  bad.output_spatial_dimensions = {2, 2};
  EXPECT_EQ(
      Infer(InferConvolutionShape(A(F32, {2, 4, 16, 16}), A(F32, {8, 4, 3, 3}),
                                  1, 1, w, bad, F32)),
      "error: convolution output dimension numbers {0,1,2,2} repeats "
      "dimension 2");
}

TEST(ShapeInferenceTest, Gather) {
  // take_along_axis from the corpus (xla_gpu_opt form).
  GatherDimensionNumbers g;
  g.offset_dims = {1, 2};
  g.start_index_map = {0, 1};
  g.index_vector_dim = 1;
  EXPECT_EQ(
      Infer(InferGatherShape(A(F32, {32, 10}), A(S32, {32, 2}), g, {1, 1})),
      "f32[32,1,1]");
  // With batching dimensions (the corpus's module.hlo form).
  GatherDimensionNumbers b;
  b.collapsed_slice_dims = {1};
  b.start_index_map = {1};
  b.operand_batching_dims = {0};
  b.start_indices_batching_dims = {0};
  b.index_vector_dim = 2;
  EXPECT_EQ(
      Infer(InferGatherShape(A(F32, {32, 10}), A(S32, {32, 1, 1}), b, {1, 1})),
      "f32[32,1]");
  // Embedding lookup: rows of a table; index_vector_dim == rank.
  GatherDimensionNumbers rows;
  rows.offset_dims = {1};
  rows.collapsed_slice_dims = {0};
  rows.start_index_map = {0};
  rows.index_vector_dim = 1;
  EXPECT_EQ(
      Infer(InferGatherShape(A(F32, {100, 16}), A(S32, {7}), rows, {1, 16})),
      "f32[7,16]");
  EXPECT_EQ(
      Infer(InferGatherShape(A(F32, {100, 16}), A(S32, {7}), rows, {2, 16})),
      "error: gather slice size 2 of collapsed or batching dimension 0 "
      "must be 0 or 1");
  EXPECT_EQ(
      Infer(InferGatherShape(A(F32, {100, 16}), A(F32, {7}), rows, {1, 16})),
      "error: gather start indices must be integral, got f32[7]");
  GatherDimensionNumbers bad = rows;
  bad.start_index_map = {9};
  EXPECT_EQ(
      Infer(InferGatherShape(A(F32, {100, 16}), A(S32, {7}), bad, {1, 16})),
      "error: gather start_index_map and operand_batching_dims {9} has "
      "dimension 9 out of range for rank 2");
  bad = rows;
  bad.index_vector_dim = 3;
  EXPECT_EQ(
      Infer(InferGatherShape(A(F32, {100, 16}), A(S32, {7}), bad, {1, 16})),
      "error: gather index_vector_dim 3 is out of range [0, 1] for start "
      "indices s32[7]");
  bad = b;
  bad.start_indices_batching_dims = {1};
  EXPECT_EQ(Infer(InferGatherShape(A(F32, {32, 10}), A(S32, {32, 1, 1}), bad,
                                   {1, 1})),
            "error: gather batching dimension sizes differ: operand dimension "
            "0 of f32[32,10] vs start-index dimension 1 of s32[32,1,1]");
}

TEST(ShapeInferenceTest, Scatter) {
  // The corpus's scatter_add: update rows of a [100,8] table.
  ScatterDimensionNumbers s;
  s.update_window_dims = {1};
  s.inserted_window_dims = {0};
  s.scatter_dims_to_operand_dims = {0};
  s.index_vector_dim = 1;
  EXPECT_EQ(
      Infer(InferScatterShape({A(F32, {100, 8}), A(S32, {50}), A(F32, {50, 8})},
                              s, ScalarReducer(F32))),
      "f32[100,8]");
  // Variadic scatter returns a tuple.
  ProgramShape pair =
      Signature({A(F32, {}), A(S32, {}), A(F32, {}), A(S32, {})},
                Shape::Tuple({A(F32, {}), A(S32, {})}));
  EXPECT_EQ(
      Infer(InferScatterShape({A(F32, {100, 8}), A(S32, {100, 8}), A(S32, {50}),
                               A(F32, {50, 8}), A(S32, {50, 8})},
                              s, pair)),
      "(f32[100,8], s32[100,8])");
  EXPECT_EQ(
      Infer(InferScatterShape({A(F32, {100, 8}), A(S32, {50}), A(F32, {49, 8})},
                              s, ScalarReducer(F32))),
      "error: scatter update dimension 0 of f32[49,8] has size 49 but "
      "the indices give 50");
  EXPECT_EQ(
      Infer(InferScatterShape({A(F32, {100, 8}), A(S32, {50}), A(F32, {50, 9})},
                              s, ScalarReducer(F32))),
      "error: scatter update dimension 1 of f32[50,9] exceeds the "
      "operand bound 8");
  EXPECT_EQ(
      Infer(InferScatterShape({A(F32, {100, 8}), A(S32, {50}), A(F32, {50, 8})},
                              s, ScalarReducer(S32))),
      "error: init value 0 has shape f32[] but scatter computation "
      "result 0 has shape s32[]");
  EXPECT_EQ(Infer(InferScatterShape({A(F32, {100, 8}), A(S32, {50})}, s,
                                    ScalarReducer(F32))),
            "error: scatter takes N operands, the indices and N updates (2N+1 "
            "operands), got 2");
}

TEST(ShapeInferenceTest, SortTopKMap) {
  ProgramShape less = Signature({A(F32, {}), A(F32, {})}, A(PRED, {}));
  EXPECT_EQ(Infer(InferSortShape({A(F32, {16, 100})}, 1, less)), "f32[16,100]");
  ProgramShape kv =
      Signature({A(F32, {}), A(F32, {}), A(S32, {}), A(S32, {})}, A(PRED, {}));
  EXPECT_EQ(
      Infer(InferSortShape({A(F32, {16, 100}), A(S32, {16, 100})}, 1, kv)),
      "(f32[16,100], s32[16,100])");
  EXPECT_EQ(Infer(InferSortShape({A(F32, {16, 100})}, 2, less)),
            "error: sort dimension 2 is out of range for f32[16,100]");
  EXPECT_EQ(
      Infer(InferSortShape({A(F32, {16, 100}), A(S32, {16, 100})}, 1, less)),
      "error: sort comparator must take 4 parameters, takes 2");
  EXPECT_EQ(Infer(InferSortShape({A(S32, {16})}, 0, less)),
            "error: sort comparator parameter 0 has shape f32[] but s32[] was "
            "expected");
  EXPECT_EQ(Infer(InferTopKShape(A(F32, {4, 10}), 3)), "(f32[4,3], s32[4,3])");
  EXPECT_EQ(Infer(InferTopKShape(A(F32, {4, 10}), 11)),
            "error: topk k=11 is not within [0, 10] for f32[4,10]");
  ProgramShape add = ScalarReducer(F32);
  EXPECT_EQ(Infer(InferMapShape({A(F32, {3}), A(F32, {3})}, add)), "f32[3]");
  EXPECT_EQ(Infer(InferMapShape({A(F32, {3}), A(F32, {4})}, add)),
            "error: operand 1 has shape f32[4] but the dimensions of operand "
            "0 f32[3] were expected");
  EXPECT_EQ(Infer(InferMapShape({A(F32, {3})}, add)),
            "error: map computation must take 1 parameters, takes 2");
}

TEST(ShapeInferenceTest, ControlFlow) {
  Shape state = Shape::Tuple({A(S32, {}), A(F32, {4})});
  ProgramShape cond = Signature({state}, A(PRED, {}));
  ProgramShape body = Signature({state}, state);
  EXPECT_EQ(Infer(InferWhileShape(cond, body, state)), "(s32[], f32[4])");
  EXPECT_EQ(Infer(InferWhileShape(Signature({state}, A(S32, {})), body, state)),
            "error: while condition must return pred[], returns s32[]");
  EXPECT_EQ(
      Infer(InferWhileShape(cond, Signature({state}, A(F32, {4})), state)),
      "error: while body returns f32[4] but the init is (s32[], f32[4])");
  ProgramShape b0 = Signature({A(F32, {2})}, A(F32, {2}));
  ProgramShape b1 = Signature({A(S32, {})}, A(F32, {2}));
  EXPECT_EQ(Infer(InferConditionalShape(A(PRED, {}), {b0, b1},
                                        {A(F32, {2}), A(S32, {})})),
            "f32[2]");
  EXPECT_EQ(
      Infer(InferConditionalShape(A(S32, {}), {b0, b1, b0},
                                  {A(F32, {2}), A(S32, {}), A(F32, {2})})),
      "f32[2]");
  EXPECT_EQ(Infer(InferConditionalShape(A(PRED, {}), {b0}, {A(F32, {2})})),
            "error: conditional on pred[] needs 2 branches, has 1");
  EXPECT_EQ(Infer(InferConditionalShape(A(S64, {}), {b0}, {A(F32, {2})})),
            "error: conditional branch index must be pred[] or s32[], got "
            "s64[]");
  EXPECT_EQ(Infer(InferConditionalShape(A(PRED, {}), {b0, b1},
                                        {A(F32, {2}), A(F32, {})})),
            "error: operand 2 has shape f32[] but branch 1 takes s32[]");
  EXPECT_EQ(Infer(InferConditionalShape(
                A(PRED, {}), {b0, Signature({A(S32, {})}, A(F32, {3}))},
                {A(F32, {2}), A(S32, {})})),
            "error: branch 1 returns f32[3] but branch 0 returns f32[2]");
  EXPECT_EQ(Infer(InferCallShape({A(F32, {2})}, b0)), "f32[2]");
  EXPECT_EQ(Infer(InferCallShape({A(F32, {3})}, b0)),
            "error: operand 0 has shape f32[3] but the called computation's "
            "parameter 0 has shape f32[2]");
  EXPECT_EQ(Infer(InferCallShape({}, b0)),
            "error: called computation takes 1 parameters but 0 operands are "
            "given");
}

TEST(ShapeInferenceTest, LinearAlgebraAndNormalization) {
  EXPECT_EQ(Infer(InferFftShape(A(F32, {4, 16}), FftType::kRfft, {16})),
            "c64[4,9]");
  EXPECT_EQ(Infer(InferFftShape(A(C64, {4, 9}), FftType::kIrfft, {16})),
            "f32[4,16]");
  EXPECT_EQ(Infer(InferFftShape(A(F32, {4, 16}), FftType::kFft, {16})),
            "error: FFT and IFFT need a complex operand, got f32[4,16]");
  TriangularSolveOptions left;
  left.left_side = true;
  EXPECT_EQ(
      Infer(InferTriangularSolveShape(A(F32, {3, 3}), A(F32, {3, 5}), left)),
      "f32[3,5]");
  EXPECT_EQ(
      Infer(InferTriangularSolveShape(A(F32, {3, 3}), A(F32, {5, 3}), left)),
      "error: triangular-solve shared dimension of f32[3,3] and f32[5,3] "
      "differs");
  EXPECT_EQ(Infer(InferCholeskyShape(A(F64, {2, 4, 4}))), "f64[2,4,4]");
  EXPECT_EQ(Infer(InferCholeskyShape(A(F64, {4, 3}))),
            "error: cholesky needs a rank >= 2 operand, square in its two "
            "minor dimensions, got f64[4,3]");
  EXPECT_EQ(Infer(InferBatchNormTrainingShape(A(F32, {2, 3, 8}), A(F32, {8}),
                                              A(F32, {8}), 2)),
            "(f32[2,3,8], f32[8], f32[8])");
  EXPECT_EQ(Infer(InferBatchNormTrainingShape(A(F32, {2, 3, 8}), A(F32, {3}),
                                              A(F32, {8}), 2)),
            "error: batch-norm-training scale has shape f32[3] but f32[8] was "
            "expected");
  EXPECT_EQ(Infer(InferBatchNormInferenceShape(A(F32, {2, 8}), A(F32, {8}),
                                               A(F32, {8}), A(F32, {8}),
                                               A(F32, {8}), 3)),
            "error: batch-norm-inference feature_index 3 is out of range for "
            "f32[2,8]");
}

TEST(ShapeInferenceTest, Collectives) {
  EXPECT_EQ(Infer(InferAllReduceShape({A(F32, {4}), A(S32, {})})),
            "(f32[4], s32[])");
  EXPECT_EQ(Infer(InferAllGatherShape({A(F32, {4, 3})}, 0, 8)), "f32[32,3]");
  EXPECT_EQ(Infer(InferReduceScatterShape({A(F32, {32, 3})}, 0, 8)),
            "f32[4,3]");
  EXPECT_EQ(Infer(InferReduceScatterShape({A(F32, {30, 3})}, 0, 8)),
            "error: reduce-scatter dimension 0 of f32[30,3] is not divisible "
            "by the shard count 8");
  EXPECT_EQ(Infer(InferAllToAllShape({A(F32, {8, 3})}, 0, 4)), "f32[8,3]");
  EXPECT_EQ(
      Infer(InferAllToAllShape({A(F32, {8}), A(F32, {8})}, std::nullopt, 2)),
      "(f32[8], f32[8])");
  EXPECT_EQ(
      Infer(InferAllToAllShape({A(F32, {8}), A(F32, {9})}, std::nullopt, 2)),
      "error: operand 1 has shape f32[9] but f32[8] was expected");
}

}  // namespace
}  // namespace hloc
