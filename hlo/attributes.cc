#include "hlo/attributes.h"

#include "absl/algorithm/container.h"
#include "absl/strings/str_cat.h"

namespace hloc {
namespace {

// Maps an enum to its text and back over one table, so each enum's spelling
// lives in one place.
template <typename E, size_t N>
absl::string_view ToText(const std::pair<E, const char*> (&table)[N], E value) {
  for (const auto& [e, text] : table) {
    if (e == value) return text;
  }
  return "?";
}

template <typename E, size_t N>
absl::StatusOr<E> FromText(const std::pair<E, const char*> (&table)[N],
                           absl::string_view text, absl::string_view what) {
  for (const auto& [e, name] : table) {
    if (text == name) return e;
  }
  std::string expected;
  for (const auto& entry : table) {
    absl::StrAppend(&expected, expected.empty() ? "" : ", ", entry.second);
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown ", what, " '", text,
                                                 "', expected one of ",
                                                 expected));
}

const std::pair<ComparisonDirection, const char*> kDirections[] = {
    {ComparisonDirection::kEq, "EQ"}, {ComparisonDirection::kNe, "NE"},
    {ComparisonDirection::kGe, "GE"}, {ComparisonDirection::kGt, "GT"},
    {ComparisonDirection::kLe, "LE"}, {ComparisonDirection::kLt, "LT"},
};
const std::pair<ComparisonType, const char*> kComparisonTypes[] = {
    {ComparisonType::kFloat, "FLOAT"},
    {ComparisonType::kTotalOrder, "TOTALORDER"},
    {ComparisonType::kSigned, "SIGNED"},
    {ComparisonType::kUnsigned, "UNSIGNED"},
};
const std::pair<ComparisonOrder, const char*> kComparisonOrders[] = {
    {ComparisonOrder::kPartial, "PARTIAL"},
    {ComparisonOrder::kTotal, "TOTAL"},
};
const std::pair<FusionKind, const char*> kFusionKinds[] = {
    {FusionKind::kLoop, "kLoop"},
    {FusionKind::kInput, "kInput"},
    {FusionKind::kOutput, "kOutput"},
    {FusionKind::kCustom, "kCustom"},
};
const std::pair<RandomDistribution, const char*> kDistributions[] = {
    {RandomDistribution::kUniform, "rng_uniform"},
    {RandomDistribution::kNormal, "rng_normal"},
};
const std::pair<RandomAlgorithm, const char*> kRngAlgorithms[] = {
    {RandomAlgorithm::kDefault, "rng_default"},
    {RandomAlgorithm::kThreeFry, "rng_three_fry"},
    {RandomAlgorithm::kPhilox, "rng_philox"},
};
const std::pair<FftType, const char*> kFftTypes[] = {
    {FftType::kFft, "FFT"},
    {FftType::kIfft, "IFFT"},
    {FftType::kRfft, "RFFT"},
    {FftType::kIrfft, "IRFFT"},
};
const std::pair<Precision, const char*> kPrecisions[] = {
    {Precision::kDefault, "DEFAULT"},
    {Precision::kHigh, "HIGH"},
    {Precision::kHighest, "HIGHEST"},
    {Precision::kPackedNibble, "PACKED_NIBBLE"},
};
const std::pair<CustomCallApiVersion, const char*> kApiVersions[] = {
    {CustomCallApiVersion::kUnspecified, "API_VERSION_UNSPECIFIED"},
    {CustomCallApiVersion::kOriginal, "API_VERSION_ORIGINAL"},
    {CustomCallApiVersion::kStatusReturning, "API_VERSION_STATUS_RETURNING"},
    {CustomCallApiVersion::kStatusReturningUnified,
     "API_VERSION_STATUS_RETURNING_UNIFIED"},
    {CustomCallApiVersion::kTypedFfi, "API_VERSION_TYPED_FFI"},
};
const std::pair<CustomCallSchedule, const char*> kSchedules[] = {
    {CustomCallSchedule::kNone, "SCHEDULE_NONE"},
    {CustomCallSchedule::kLatest, "SCHEDULE_LATEST"},
    {CustomCallSchedule::kEarliest, "SCHEDULE_EARLIEST"},
};

}  // namespace

absl::string_view ComparisonDirectionString(ComparisonDirection d) {
  return ToText(kDirections, d);
}
absl::StatusOr<ComparisonDirection> ParseComparisonDirection(
    absl::string_view s) {
  return FromText(kDirections, s, "comparison direction");
}
absl::string_view ComparisonTypeString(ComparisonType t) {
  return ToText(kComparisonTypes, t);
}
absl::StatusOr<ComparisonType> ParseComparisonType(absl::string_view s) {
  return FromText(kComparisonTypes, s, "comparison type");
}
absl::string_view ComparisonOrderString(ComparisonOrder o) {
  return ToText(kComparisonOrders, o);
}
absl::StatusOr<ComparisonOrder> ParseComparisonOrder(absl::string_view s) {
  return FromText(kComparisonOrders, s, "comparison order");
}
absl::string_view FusionKindString(FusionKind k) {
  return ToText(kFusionKinds, k);
}
absl::StatusOr<FusionKind> ParseFusionKind(absl::string_view s) {
  return FromText(kFusionKinds, s, "fusion kind");
}
absl::string_view RandomDistributionString(RandomDistribution d) {
  return ToText(kDistributions, d);
}
absl::StatusOr<RandomDistribution> ParseRandomDistribution(
    absl::string_view s) {
  return FromText(kDistributions, s, "random distribution");
}
absl::string_view RandomAlgorithmString(RandomAlgorithm a) {
  return ToText(kRngAlgorithms, a);
}
absl::StatusOr<RandomAlgorithm> ParseRandomAlgorithm(absl::string_view s) {
  return FromText(kRngAlgorithms, s, "rng algorithm");
}
absl::string_view FftTypeString(FftType t) { return ToText(kFftTypes, t); }
absl::StatusOr<FftType> ParseFftType(absl::string_view s) {
  return FromText(kFftTypes, s, "fft type");
}
absl::string_view PrecisionString(Precision p) {
  return ToText(kPrecisions, p);
}
absl::StatusOr<Precision> ParsePrecision(absl::string_view s) {
  return FromText(kPrecisions, s, "precision");
}
absl::string_view CustomCallApiVersionString(CustomCallApiVersion v) {
  return ToText(kApiVersions, v);
}
absl::StatusOr<CustomCallApiVersion> ParseCustomCallApiVersion(
    absl::string_view s) {
  return FromText(kApiVersions, s, "custom-call api version");
}
absl::string_view CustomCallScheduleString(CustomCallSchedule s) {
  return ToText(kSchedules, s);
}
absl::StatusOr<CustomCallSchedule> ParseCustomCallSchedule(
    absl::string_view s) {
  return FromText(kSchedules, s, "custom-call schedule");
}

ComparisonDirection SwappedDirection(ComparisonDirection d) {
  switch (d) {
    case ComparisonDirection::kGe:
      return ComparisonDirection::kLe;
    case ComparisonDirection::kGt:
      return ComparisonDirection::kLt;
    case ComparisonDirection::kLe:
      return ComparisonDirection::kGe;
    case ComparisonDirection::kLt:
      return ComparisonDirection::kGt;
    default:
      return d;
  }
}

bool WindowDimension::operator==(const WindowDimension& o) const {
  return size == o.size && stride == o.stride &&
         padding_low == o.padding_low && padding_high == o.padding_high &&
         window_dilation == o.window_dilation &&
         base_dilation == o.base_dilation &&
         window_reversal == o.window_reversal;
}

bool DotDimensionNumbers::operator==(const DotDimensionNumbers& o) const {
  return lhs_contracting_dimensions == o.lhs_contracting_dimensions &&
         rhs_contracting_dimensions == o.rhs_contracting_dimensions &&
         lhs_batch_dimensions == o.lhs_batch_dimensions &&
         rhs_batch_dimensions == o.rhs_batch_dimensions;
}

bool RaggedDotDimensionNumbers::operator==(
    const RaggedDotDimensionNumbers& o) const {
  return dot_dimension_numbers == o.dot_dimension_numbers &&
         lhs_ragged_dimensions == o.lhs_ragged_dimensions &&
         rhs_group_dimensions == o.rhs_group_dimensions;
}

bool ConvolutionDimensionNumbers::operator==(
    const ConvolutionDimensionNumbers& o) const {
  return input_batch_dimension == o.input_batch_dimension &&
         input_feature_dimension == o.input_feature_dimension &&
         input_spatial_dimensions == o.input_spatial_dimensions &&
         kernel_input_feature_dimension == o.kernel_input_feature_dimension &&
         kernel_output_feature_dimension ==
             o.kernel_output_feature_dimension &&
         kernel_spatial_dimensions == o.kernel_spatial_dimensions &&
         output_batch_dimension == o.output_batch_dimension &&
         output_feature_dimension == o.output_feature_dimension &&
         output_spatial_dimensions == o.output_spatial_dimensions;
}

bool GatherDimensionNumbers::operator==(const GatherDimensionNumbers& o) const {
  return offset_dims == o.offset_dims &&
         collapsed_slice_dims == o.collapsed_slice_dims &&
         start_index_map == o.start_index_map &&
         index_vector_dim == o.index_vector_dim &&
         operand_batching_dims == o.operand_batching_dims &&
         start_indices_batching_dims == o.start_indices_batching_dims;
}

bool ScatterDimensionNumbers::operator==(
    const ScatterDimensionNumbers& o) const {
  return update_window_dims == o.update_window_dims &&
         inserted_window_dims == o.inserted_window_dims &&
         scatter_dims_to_operand_dims == o.scatter_dims_to_operand_dims &&
         index_vector_dim == o.index_vector_dim &&
         input_batching_dims == o.input_batching_dims &&
         scatter_indices_batching_dims == o.scatter_indices_batching_dims;
}

bool OpMetadata::empty() const { return *this == OpMetadata(); }

bool OpMetadata::operator==(const OpMetadata& o) const {
  return op_type == o.op_type && op_name == o.op_name &&
         source_file == o.source_file && source_line == o.source_line &&
         source_end_line == o.source_end_line &&
         source_column == o.source_column &&
         source_end_column == o.source_end_column &&
         deduplicated_name == o.deduplicated_name &&
         preserve_layout == o.preserve_layout &&
         stack_frame_id == o.stack_frame_id &&
         scheduling_name == o.scheduling_name;
}

std::vector<int64_t> DotFreeDimensions(
    int64_t rank, const std::vector<int64_t>& batch,
    const std::vector<int64_t>& contracting) {
  std::vector<int64_t> free;
  for (int64_t d = 0; d < rank; ++d) {
    if (!absl::c_linear_search(batch, d) &&
        !absl::c_linear_search(contracting, d)) {
      free.push_back(d);
    }
  }
  return free;
}

bool AllowsTf32(PrimitiveType operand_type,
                const std::optional<PrecisionConfig>& precision) {
  if (operand_type != F32) return false;
  if (!precision) return true;
  if (precision->algorithm == PrecisionConfig::kDotTf32Tf32F32) return true;
  for (Precision p : precision->operand_precision) {
    if (p != Precision::kDefault) return false;
  }
  return precision->algorithm == 0;
}

}  // namespace hloc
