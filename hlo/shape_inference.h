// Shape inference: the result shape of an HLO operation from its operand
// shapes and attributes, following XLA's rules (xla/service/shape_inference.cc
// and the HLO-level checks of xla/service/hlo_verifier.cc). Each function
// returns the inferred shape or an InvalidArgument error whose message names
// the reason ("operand 1 has shape f32[4] but f32[3] was expected"). The
// verifier compares every instruction's declared shape with
// InferInstructionShape; passes use the per-operation functions to build new
// instructions.
//
// HLO has no implicit broadcasting: elementwise operands have identical
// dimensions. Element types must match exactly where XLA's verifier (without
// allow_mixed_precision) requires it. Shapes given to these functions must be
// valid (ValidateShape); InferInstructionShape checks that itself.
//
// Where the result carries information that no operand or attribute holds
// (the result type of convert, dot and convolution, the result of broadcast,
// reshape, iota, rng, infeed, ...), the function takes the declared shape or
// element type and checks it instead of inventing one.
#ifndef HLO_SHAPE_INFERENCE_H_
#define HLO_SHAPE_INFERENCE_H_

#include <cstdint>
#include <optional>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hlo/attributes.h"
#include "hlo/instruction.h"
#include "hlo/opcode.h"
#include "hlo/shape.h"

namespace hloc {

// A shape is valid when its element type is known, array dimensions are
// non-negative with a dynamic flag each and a product that fits in int64, a
// layout (if any) is a permutation of the dimensions, and tuple elements are
// valid. Sub-byte and F8 element types are valid.
absl::Status ValidateShape(const Shape& shape);

// Elementwise operations.
absl::StatusOr<Shape> InferUnaryOpShape(HloOpcode opcode, const Shape& operand);
absl::StatusOr<Shape> InferBinaryOpShape(HloOpcode opcode, const Shape& lhs,
                                         const Shape& rhs);
// select and clamp.
absl::StatusOr<Shape> InferTernaryOpShape(HloOpcode opcode, const Shape& a,
                                          const Shape& b, const Shape& c);
// pred[...] with the operands' dimensions.
absl::StatusOr<Shape> InferCompareShape(const Shape& lhs, const Shape& rhs);
absl::StatusOr<Shape> InferClampShape(const Shape& min, const Shape& operand,
                                      const Shape& max);
absl::StatusOr<Shape> InferSelectShape(const Shape& pred, const Shape& on_true,
                                       const Shape& on_false);
// Any array type to any array type.
absl::StatusOr<Shape> InferConvertShape(const Shape& operand,
                                        PrimitiveType new_element_type);
// Equal bit widths keep the dimensions; converting to a narrower type appends
// a minor dimension of size (wide bits / narrow bits), to a wider type removes
// a minor dimension that must have that size.
absl::StatusOr<Shape> InferBitcastConvertShape(const Shape& operand,
                                               PrimitiveType new_element_type);
absl::StatusOr<Shape> InferStochasticConvertShape(
    const Shape& operand, const Shape& random, PrimitiveType new_element_type);
absl::StatusOr<Shape> InferReducePrecisionShape(const Shape& operand,
                                                int64_t exponent_bits,
                                                int64_t mantissa_bits);

// Data movement. Broadcast, reshape and bitcast check `output` against the
// operand and return it.
absl::StatusOr<Shape> InferBroadcastShape(const Shape& operand,
                                          const Shape& output,
                                          absl::Span<const int64_t> dimensions);
absl::StatusOr<Shape> InferReshapeShape(const Shape& operand,
                                        const Shape& output);
absl::StatusOr<Shape> InferBitcastShape(const Shape& operand,
                                        const Shape& output);
// result dimension i is operand dimension permutation[i].
absl::StatusOr<Shape> InferTransposeShape(
    const Shape& operand, absl::Span<const int64_t> permutation);
absl::StatusOr<Shape> InferReverseShape(const Shape& operand,
                                        absl::Span<const int64_t> dimensions);
absl::StatusOr<Shape> InferSliceShape(const Shape& operand,
                                      absl::Span<const int64_t> starts,
                                      absl::Span<const int64_t> limits,
                                      absl::Span<const int64_t> strides);
// Start indices: one integral scalar per operand dimension, or (XLA's legacy
// form) a single rank-1 vector.
absl::StatusOr<Shape> InferDynamicSliceShape(
    const Shape& operand, absl::Span<const Shape> start_indices,
    absl::Span<const int64_t> slice_sizes);
absl::StatusOr<Shape> InferDynamicUpdateSliceShape(
    const Shape& operand, const Shape& update,
    absl::Span<const Shape> start_indices);
absl::StatusOr<Shape> InferConcatenateShape(absl::Span<const Shape> operands,
                                            int64_t dimension);
absl::StatusOr<Shape> InferPadShape(const Shape& operand,
                                    const Shape& padding_value,
                                    const PaddingConfig& padding_config);
// Checks an iota's declared shape and dimension; returns the shape.
absl::StatusOr<Shape> InferIotaShape(const Shape& shape,
                                     int64_t iota_dimension);
absl::StatusOr<Shape> InferGetTupleElementShape(const Shape& tuple,
                                                int64_t index);
absl::StatusOr<Shape> InferTupleShape(absl::Span<const Shape> elements);
absl::StatusOr<Shape> InferGetDimensionSizeShape(const Shape& operand,
                                                 int64_t dimension);
absl::StatusOr<Shape> InferSetDimensionSizeShape(const Shape& operand,
                                                 const Shape& size,
                                                 int64_t dimension);

// Reductions and windows. Variadic forms take the N inputs followed by the N
// init values. A reducer takes (accumulators..., elements...) as 2N scalars
// and returns a scalar (N = 1) or an N-tuple of scalars.
absl::StatusOr<Shape> InferReduceShape(absl::Span<const Shape> inputs_and_inits,
                                       absl::Span<const int64_t> dimensions,
                                       const ProgramShape& to_apply);
// Per dimension: floor((padded dilated base - dilated window) / stride) + 1,
// or 0 when the window does not fit.
absl::StatusOr<Shape> InferWindowOutputShape(const Shape& base,
                                             const Window& window,
                                             PrimitiveType element_type);
absl::StatusOr<Shape> InferReduceWindowShape(
    absl::Span<const Shape> inputs_and_inits, const Window& window,
    const ProgramShape& to_apply);
// select: (T, T) -> pred[]; scatter: a reducer over T.
absl::StatusOr<Shape> InferSelectAndScatterShape(
    const Shape& operand, const ProgramShape& select, const Window& window,
    const Shape& source, const Shape& init_value, const ProgramShape& scatter);
// inputs..., inits... (the last num_carries operands). to_apply takes the
// input slices (scan dimension removed) then the carries and returns the
// per-step outputs then the new carries; the result holds the outputs with
// the scan dimension re-inserted, then the final carries.
absl::StatusOr<Shape> InferScanShape(absl::Span<const Shape> inputs_and_inits,
                                     int64_t num_carries, int64_t dimension,
                                     const ProgramShape& to_apply);

// Dot: batch dimensions, then lhs free, then rhs free dimensions. The operand
// types may differ; the result has `preferred_element_type` when given (it
// may not narrow an integer type), else the higher-precision operand type.
absl::StatusOr<Shape> InferDotShape(
    const Shape& lhs, const Shape& rhs, const DotDimensionNumbers& dnums,
    std::optional<PrimitiveType> preferred_element_type);
absl::StatusOr<Shape> InferConvolutionShape(
    const Shape& lhs, const Shape& rhs, int64_t feature_group_count,
    int64_t batch_group_count, const Window& window,
    const ConvolutionDimensionNumbers& dnums,
    std::optional<PrimitiveType> preferred_element_type);
absl::StatusOr<Shape> InferGatherShape(const Shape& operand,
                                       const Shape& start_indices,
                                       const GatherDimensionNumbers& dnums,
                                       absl::Span<const int64_t> slice_sizes);
// operands..., scatter_indices, updates... (2N + 1 shapes).
absl::StatusOr<Shape> InferScatterShape(absl::Span<const Shape> shapes,
                                        const ScatterDimensionNumbers& dnums,
                                        const ProgramShape& to_apply);
// The comparator takes 2 scalars per operand and returns pred[].
absl::StatusOr<Shape> InferSortShape(absl::Span<const Shape> operands,
                                     int64_t dimension,
                                     const ProgramShape& comparator);
// (values with the last dimension k, s32 indices of the same dimensions).
absl::StatusOr<Shape> InferTopKShape(const Shape& operand, int64_t k);
// to_apply maps one scalar per operand to a scalar.
absl::StatusOr<Shape> InferMapShape(absl::Span<const Shape> operands,
                                    const ProgramShape& to_apply);

// Control flow.
absl::StatusOr<Shape> InferWhileShape(const ProgramShape& condition,
                                      const ProgramShape& body,
                                      const Shape& init);
// branch_index: pred[] (exactly 2 branches) or s32[] (1 or more).
absl::StatusOr<Shape> InferConditionalShape(
    const Shape& branch_index, absl::Span<const ProgramShape> branches,
    absl::Span<const Shape> branch_operands);
absl::StatusOr<Shape> InferCallShape(absl::Span<const Shape> operands,
                                     const ProgramShape& to_apply);

// Linear algebra and normalization.
absl::StatusOr<Shape> InferFftShape(const Shape& operand, FftType fft_type,
                                    absl::Span<const int64_t> fft_length);
absl::StatusOr<Shape> InferTriangularSolveShape(
    const Shape& a, const Shape& b, const TriangularSolveOptions& options);
absl::StatusOr<Shape> InferCholeskyShape(const Shape& a);
absl::StatusOr<Shape> InferBatchNormTrainingShape(const Shape& operand,
                                                  const Shape& scale,
                                                  const Shape& offset,
                                                  int64_t feature_index);
absl::StatusOr<Shape> InferBatchNormInferenceShape(
    const Shape& operand, const Shape& scale, const Shape& offset,
    const Shape& mean, const Shape& variance, int64_t feature_index);
absl::StatusOr<Shape> InferBatchNormGradShape(
    const Shape& operand, const Shape& scale, const Shape& mean,
    const Shape& variance, const Shape& output_grad, int64_t feature_index);

// Collectives. One operand gives its shape, several a tuple.
absl::StatusOr<Shape> InferAllReduceShape(absl::Span<const Shape> operands);
absl::StatusOr<Shape> InferAllGatherShape(absl::Span<const Shape> operands,
                                          int64_t dimension,
                                          int64_t shard_count);
absl::StatusOr<Shape> InferReduceScatterShape(absl::Span<const Shape> operands,
                                              int64_t dimension,
                                              int64_t shard_count);
// With a split dimension: the operand's shape (split and concatenated along
// the same dimension). Without: a tuple of the equally shaped operands.
absl::StatusOr<Shape> InferAllToAllShape(absl::Span<const Shape> operands,
                                         std::optional<int64_t> split_dimension,
                                         int64_t split_count);

// True for the opcodes InferInstructionShape infers. The others (listed in
// shape_inference.cc) get only the verifier's generic checks.
bool HasShapeInference(HloOpcode opcode);

// The shape `instruction` should have, from its operands, attributes and
// called computations (and, where listed above, its declared element type or
// shape). Checks operand counts and called computations first, so a
// malformed instruction gets an error rather than a crash. For opcodes
// without inference, returns an Unimplemented error.
absl::StatusOr<Shape> InferInstructionShape(const HloInstruction& instruction);

}  // namespace hloc

#endif  // HLO_SHAPE_INFERENCE_H_
