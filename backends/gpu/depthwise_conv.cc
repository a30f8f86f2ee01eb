#include "backends/gpu/depthwise_conv.h"

namespace hloc {

std::optional<DepthwiseConv> MatchDepthwiseConvolution(
    const HloInstruction& conv) {
  if (conv.opcode() != HloOpcode::kConvolution || conv.operand_count() != 2) {
    return std::nullopt;
  }
  const HloAttributes& a = conv.attrs();
  if (!a.window || !a.convolution_dimension_numbers) return std::nullopt;
  const ConvolutionDimensionNumbers& d = *a.convolution_dimension_numbers;
  const Shape& x = conv.operand(0)->shape();
  const Shape& w = conv.operand(1)->shape();
  const Shape& y = conv.shape();
  if (!x.IsArray() || !w.IsArray() || !y.IsArray()) return std::nullopt;
  const PrimitiveType type = y.element_type();
  if ((type != F32 && type != F16 && type != BF16) ||
      x.element_type() != type || w.element_type() != type) {
    return std::nullopt;
  }
  const size_t spatial = a.window->dimensions.size();
  if (spatial < 1 || spatial > 3 ||
      d.input_spatial_dimensions.size() != spatial ||
      d.kernel_spatial_dimensions.size() != spatial ||
      d.output_spatial_dimensions.size() != spatial ||
      x.rank() != static_cast<int64_t>(spatial) + 2 || w.rank() != x.rank() ||
      y.rank() != x.rank()) {
    return std::nullopt;
  }
  const int64_t channels = x.dimensions(d.input_feature_dimension);
  if (a.batch_group_count != 1 || a.feature_group_count != channels ||
      y.dimensions(d.output_feature_dimension) != channels ||
      w.dimensions(d.kernel_output_feature_dimension) != channels ||
      w.dimensions(d.kernel_input_feature_dimension) != 1 ||
      x.dimensions(d.input_batch_dimension) !=
          y.dimensions(d.output_batch_dimension)) {
    return std::nullopt;
  }
  DepthwiseConv match;
  match.channels = channels;
  match.taps = 1;
  for (size_t i = 0; i < spatial; ++i) {
    const WindowDimension& wd = a.window->dimensions[i];
    if (wd.base_dilation != 1 || wd.window_reversal || wd.stride < 1 ||
        wd.window_dilation < 1 || wd.size < 1 ||
        wd.size != w.dimensions(d.kernel_spatial_dimensions[i])) {
      return std::nullopt;
    }
    match.taps *= wd.size;
  }
  // A thread's vector of channels is contiguous in memory only where the
  // channels are the minor dimension.
  if (x.MinorToMajor()[0] != d.input_feature_dimension ||
      y.MinorToMajor()[0] != d.output_feature_dimension) {
    return std::nullopt;
  }
  if (x.ElementCount() == 0 || w.ElementCount() == 0 || y.ElementCount() == 0) {
    return std::nullopt;
  }
  match.output_width = y.dimensions(d.output_spatial_dimensions[spatial - 1]);
  match.outer_positions = y.ElementCount() / channels / match.output_width;
  std::optional<DepthwiseConvTiling> tiling =
      ComputeDepthwiseConvTiling(channels, ByteWidth(type), match.taps,
                                 match.outer_positions, match.output_width);
  if (!tiling.has_value()) return std::nullopt;
  match.tiling = *tiling;
  return match;
}

}  // namespace hloc
