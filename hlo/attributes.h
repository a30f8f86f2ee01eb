// Typed attributes of HLO instructions: the dimension-number messages,
// windows, padding, comparison and fusion kinds, metadata. Plain structs with
// XLA's field names, so the text parser, the proto importer and every pass
// read and write the same thing.
#ifndef HLO_ATTRIBUTES_H_
#define HLO_ATTRIBUTES_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hlo/shape.h"

namespace hloc {

enum class ComparisonDirection { kEq, kNe, kGe, kGt, kLe, kLt };
// How compare orders its operands. kDefault: derived from the element type
// (what XLA does when no type= is printed). kTotalOrder: -NaN < -inf < ... <
// -0 < +0 < ... < inf < NaN, as XLA's TOTALORDER.
enum class ComparisonType { kDefault, kFloat, kTotalOrder, kSigned, kUnsigned };
// Newer XLA spells the float total order as compare's order=TOTAL (proto
// field comparison_order); kDefault means the attribute was absent.
enum class ComparisonOrder { kDefault, kPartial, kTotal };
enum class FusionKind { kLoop, kInput, kOutput, kCustom };
// Values match xla_data.proto.
enum class RandomDistribution { kInvalid = 0, kUniform = 1, kNormal = 2 };
enum class RandomAlgorithm { kDefault = 0, kThreeFry = 1, kPhilox = 2 };
enum class FftType { kFft = 0, kIfft = 1, kRfft = 2, kIrfft = 3 };
enum class Precision { kDefault = 0, kHigh = 1, kHighest = 2, kPackedNibble = 3 };
enum class CustomCallApiVersion {
  kUnspecified = 0,
  kOriginal = 1,
  kStatusReturning = 2,
  kStatusReturningUnified = 3,
  kTypedFfi = 4,
};
enum class CustomCallSchedule { kNone = 0, kLatest = 1, kEarliest = 2 };

// Text names as XLA prints them ("EQ", "TOTALORDER", "kLoop", "rng_uniform",
// "DEFAULT", "API_VERSION_STATUS_RETURNING", "SCHEDULE_LATEST"), and parsers
// that name the bad spelling in their error.
absl::string_view ComparisonDirectionString(ComparisonDirection d);
absl::StatusOr<ComparisonDirection> ParseComparisonDirection(absl::string_view s);
absl::string_view ComparisonTypeString(ComparisonType t);
absl::StatusOr<ComparisonType> ParseComparisonType(absl::string_view s);
absl::string_view ComparisonOrderString(ComparisonOrder o);
absl::StatusOr<ComparisonOrder> ParseComparisonOrder(absl::string_view s);
absl::string_view FusionKindString(FusionKind k);
absl::StatusOr<FusionKind> ParseFusionKind(absl::string_view s);
absl::string_view RandomDistributionString(RandomDistribution d);
absl::StatusOr<RandomDistribution> ParseRandomDistribution(absl::string_view s);
absl::string_view RandomAlgorithmString(RandomAlgorithm a);
absl::StatusOr<RandomAlgorithm> ParseRandomAlgorithm(absl::string_view s);
absl::string_view FftTypeString(FftType t);
absl::StatusOr<FftType> ParseFftType(absl::string_view s);
absl::string_view PrecisionString(Precision p);
absl::StatusOr<Precision> ParsePrecision(absl::string_view s);
absl::string_view CustomCallApiVersionString(CustomCallApiVersion v);
absl::StatusOr<CustomCallApiVersion> ParseCustomCallApiVersion(
    absl::string_view s);
absl::string_view CustomCallScheduleString(CustomCallSchedule s);
absl::StatusOr<CustomCallSchedule> ParseCustomCallSchedule(absl::string_view s);
// The direction with operands swapped (LT <-> GT, ...).
ComparisonDirection SwappedDirection(ComparisonDirection d);

struct WindowDimension {
  int64_t size = 0;
  int64_t stride = 1;
  int64_t padding_low = 0;
  int64_t padding_high = 0;
  int64_t window_dilation = 1;
  int64_t base_dilation = 1;
  bool window_reversal = false;
  bool operator==(const WindowDimension& o) const;
};

struct Window {
  std::vector<WindowDimension> dimensions;
  bool operator==(const Window& o) const { return dimensions == o.dimensions; }
};

struct PaddingDimension {
  int64_t edge_padding_low = 0;
  int64_t edge_padding_high = 0;
  int64_t interior_padding = 0;
  bool operator==(const PaddingDimension& o) const {
    return edge_padding_low == o.edge_padding_low &&
           edge_padding_high == o.edge_padding_high &&
           interior_padding == o.interior_padding;
  }
};

struct PaddingConfig {
  std::vector<PaddingDimension> dimensions;
  bool operator==(const PaddingConfig& o) const {
    return dimensions == o.dimensions;
  }
};

struct DotDimensionNumbers {
  std::vector<int64_t> lhs_contracting_dimensions;
  std::vector<int64_t> rhs_contracting_dimensions;
  std::vector<int64_t> lhs_batch_dimensions;
  std::vector<int64_t> rhs_batch_dimensions;
  bool operator==(const DotDimensionNumbers& o) const;
};

struct RaggedDotDimensionNumbers {
  DotDimensionNumbers dot_dimension_numbers;
  std::vector<int64_t> lhs_ragged_dimensions;
  std::vector<int64_t> rhs_group_dimensions;
  bool operator==(const RaggedDotDimensionNumbers& o) const;
};

struct ConvolutionDimensionNumbers {
  int64_t input_batch_dimension = 0;
  int64_t input_feature_dimension = 0;
  std::vector<int64_t> input_spatial_dimensions;
  int64_t kernel_input_feature_dimension = 0;
  int64_t kernel_output_feature_dimension = 0;
  std::vector<int64_t> kernel_spatial_dimensions;
  int64_t output_batch_dimension = 0;
  int64_t output_feature_dimension = 0;
  std::vector<int64_t> output_spatial_dimensions;
  bool operator==(const ConvolutionDimensionNumbers& o) const;
};

struct GatherDimensionNumbers {
  std::vector<int64_t> offset_dims;
  std::vector<int64_t> collapsed_slice_dims;
  std::vector<int64_t> start_index_map;
  int64_t index_vector_dim = 0;
  std::vector<int64_t> operand_batching_dims;
  std::vector<int64_t> start_indices_batching_dims;
  bool operator==(const GatherDimensionNumbers& o) const;
};

struct ScatterDimensionNumbers {
  std::vector<int64_t> update_window_dims;
  std::vector<int64_t> inserted_window_dims;
  std::vector<int64_t> scatter_dims_to_operand_dims;
  int64_t index_vector_dim = 0;
  std::vector<int64_t> input_batching_dims;
  std::vector<int64_t> scatter_indices_batching_dims;
  bool operator==(const ScatterDimensionNumbers& o) const;
};

struct PrecisionConfig {
  std::vector<Precision> operand_precision;
  // xla.PrecisionConfig.Algorithm; 0 is ALG_UNSET (the values the
  // compiler acts on are named below; hlo/text/names.cc has them all).
  int algorithm = 0;
  static constexpr int kDotF16F16F32 = 4;    // ALG_DOT_F16_F16_F32
  static constexpr int kDotBf16Bf16F32 = 6;  // ALG_DOT_BF16_BF16_F32
  static constexpr int kDotTf32Tf32F32 = 9;  // ALG_DOT_TF32_TF32_F32
  bool operator==(const PrecisionConfig& o) const {
    return operand_precision == o.operand_precision &&
           algorithm == o.algorithm;
  }
};

// The dimensions of a rank-`rank` dot operand that are neither batch nor
// contracting, ascending (the order the dot's output lists them in).
std::vector<int64_t> DotFreeDimensions(int64_t rank,
                                       const std::vector<int64_t>& batch,
                                       const std::vector<int64_t>& contracting);

// Whether an f32 contraction (dot or convolution) with this precision may
// use TF32, as XLA:GPU's default precision does on NVIDIA GPUs, and the
// TF32_TF32_F32 algorithm asks (HIGH, HIGHEST and other algorithms do
// not).
bool AllowsTf32(PrimitiveType operand_type,
                const std::optional<PrecisionConfig>& precision);

// The accuracy asked of a transcendental unary op's result: XLA's
// ResultAccuracy, which JAX emits for lax.exp(x, accuracy=...) and prints
// as result_accuracy={mode=highest} or
// result_accuracy={tolerance={atol=0,rtol=0.001,ulps=0}}. A tolerance
// lets a code generator pick any implementation whose error is within
// atol + rtol * |result|, or within `ulps` units in the last place of the
// result's type; float-normalization also sets one on the f32 arithmetic it
// makes of bf16/f16/8-bit transcendentals (their own rounding's error).
struct ResultAccuracy {
  enum class Mode { kDefault = 0, kHighest = 1 };
  Mode mode = Mode::kDefault;
  bool has_tolerance = false;  // tolerance={...}: mode is then unused
  double atol = 0;
  double rtol = 0;
  int64_t ulps = 0;
  // mode=default: asks for nothing, kept as no attribute (XLA prints
  // none for it).
  bool IsDefault() const { return !has_tolerance && mode == Mode::kDefault; }
  bool operator==(const ResultAccuracy& o) const {
    return mode == o.mode && has_tolerance == o.has_tolerance &&
           atol == o.atol && rtol == o.rtol && ulps == o.ulps;
  }
};

// Source information for an instruction; printed as metadata={...}.
struct OpMetadata {
  std::string op_type;
  std::string op_name;
  std::string source_file;
  int64_t source_line = 0;
  int64_t source_end_line = 0;
  int64_t source_column = 0;
  int64_t source_end_column = 0;
  std::string deduplicated_name;
  bool preserve_layout = false;
  int64_t stack_frame_id = 0;
  std::string scheduling_name;
  bool empty() const;
  bool operator==(const OpMetadata& o) const;
};

struct TriangularSolveOptions {
  bool left_side = false;
  bool lower = false;
  bool unit_diagonal = false;
  // xla.TriangularSolveOptions.Transpose: 1 NO_TRANSPOSE, 2 TRANSPOSE, 3 ADJOINT.
  int transpose_a = 1;
  bool operator==(const TriangularSolveOptions& o) const {
    return left_side == o.left_side && lower == o.lower &&
           unit_diagonal == o.unit_diagonal && transpose_a == o.transpose_a;
  }
};

// custom-call's output_to_operand_aliasing: output {shape index} aliases
// operand `operand_index` at {operand_shape_index}.
struct OutputOperandAlias {
  std::vector<int64_t> output_shape_index;
  int64_t operand_index = 0;
  std::vector<int64_t> operand_shape_index;
  bool operator==(const OutputOperandAlias& o) const {
    return output_shape_index == o.output_shape_index &&
           operand_index == o.operand_index &&
           operand_shape_index == o.operand_shape_index;
  }
};

// An attribute this compiler keeps only to print back (name=value text), for
// the long tail XLA prints that no stage here interprets.
struct RawAttribute {
  std::string name;
  std::string value;
  bool operator==(const RawAttribute& o) const {
    return name == o.name && value == o.value;
  }
};

}  // namespace hloc

#endif  // HLO_ATTRIBUTES_H_
