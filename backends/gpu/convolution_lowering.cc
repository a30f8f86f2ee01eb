#include "backends/gpu/convolution_lowering.h"

#include <limits>

#include "absl/strings/str_cat.h"
#include "backends/gpu/gemm_config.h"
#include "passes/convolution_layout.h"

namespace hloc {
namespace {

absl::Status Unfit(const std::string& why) {
  return absl::UnimplementedError(absl::StrCat("no cuDNN call: ", why));
}

}  // namespace

absl::StatusOr<ConvConfig> LowerToConvCall(const HloInstruction& conv) {
  if (conv.opcode() != HloOpcode::kConvolution || conv.operand_count() != 2) {
    return Unfit("not a convolution");
  }
  const HloAttributes& a = conv.attrs();
  if (!a.window || !a.convolution_dimension_numbers) {
    return Unfit("no window or dimension numbers");
  }
  const Shape& x = conv.operand(0)->shape();
  const Shape& w = conv.operand(1)->shape();
  const Shape& y = conv.shape();
  if (!x.IsArray() || !w.IsArray() || !y.IsArray() ||
      x.element_type() != w.element_type() ||
      x.element_type() != y.element_type() ||
      !IsConvLibraryType(x.element_type())) {
    return Unfit("operands and result of one type (f32, f64, f16, bf16)");
  }
  if (!x.HasDescendingLayout() || !w.HasDescendingLayout() ||
      !y.HasDescendingLayout()) {
    return Unfit("a tensor is not row-major");
  }
  const ConvLayout layout = GetConvLayout(conv);
  if (layout == ConvLayout::kOther) {
    return Unfit(
        "dimension numbers neither channels-last nor channels-first "
        "(convolution-layout puts them so)");
  }
  const bool filter_gradient = IsFilterGradientLayout(layout);
  if (a.batch_group_count != 1 && !filter_gradient) {
    return Unfit("batch groups outside the filter-gradient order");
  }
  const size_t spatial = a.window->dimensions.size();
  if (spatial < 1 || spatial > 3) {
    return Unfit(absl::StrCat(spatial, " spatial dimensions (1 to 3)"));
  }
  const bool last = !IsChannelsFirstLayout(layout);
  const int64_t first_spatial = last ? 1 : 2;
  const int64_t channels = last ? spatial + 1 : 1;
  ConvConfig c;
  c.type = x.element_type();
  c.channels_last = last;
  c.backward_filter = filter_gradient;
  // cuDNN 9 has no channels-last backward-filter algorithm for f64 (on an
  // H100 in session 40 it found none for a 2x7x6x4 input and a 6x3x3x4
  // filter): a direct kernel computes those, in either order.
  if (filter_gradient && c.type == F64) {
    return Unfit("an f64 filter gradient (cuDNN has no algorithm for it)");
  }
  if (filter_gradient) {
    // The forward convolution whose filter gradient this is: its batch is
    // x's dimension 0, its input features x's channel dimension (the
    // batch groups split them), its output features the output
    // gradient's (w's).
    c.batch = x.dimensions(0);
    c.input_features = x.dimensions(channels);
    c.output_features = w.dimensions(channels);
    c.feature_group_count = a.batch_group_count;
    if (w.dimensions(0) != c.batch || y.dimensions(0) != c.output_features ||
        y.dimensions(channels) * a.batch_group_count != c.input_features ||
        a.feature_group_count != 1) {
      return Unfit("a filter gradient whose sizes do not match");
    }
  } else {
    c.batch = x.dimensions(0);
    c.input_features = x.dimensions(channels);
    c.output_features = y.dimensions(channels);
    c.feature_group_count = a.feature_group_count;
  }
  for (size_t d = 0; d < spatial; ++d) {
    const WindowDimension& wd = a.window->dimensions[d];
    if (wd.base_dilation != 1 || wd.window_reversal) {
      return Unfit("base dilation or window reversal");
    }
    if (wd.padding_low != wd.padding_high || wd.padding_low < 0) {
      return Unfit("padding not the same on both sides");
    }
    c.input_spatial.push_back(x.dimensions(first_spatial + d));
    c.padding.push_back(wd.padding_low);
    if (filter_gradient) {
      // The window is the output gradient, moved by the forward
      // convolution's dilation and dilated by its stride; the result is
      // the forward filter.
      c.kernel_spatial.push_back(y.dimensions(first_spatial + d));
      c.output_spatial.push_back(w.dimensions(first_spatial + d));
      c.strides.push_back(wd.window_dilation);
      c.dilation.push_back(wd.stride);
      // cuDNN takes the forward output's size from the input, window and
      // padding; where the gradient's window is not that size (padding
      // beyond what the forward convolution read) it has no such call.
      const int64_t span = (c.kernel_spatial[d] - 1) * c.dilation[d] + 1;
      const int64_t padded = c.input_spatial[d] + 2 * c.padding[d];
      if (padded < span ||
          (padded - span) / c.strides[d] + 1 != c.output_spatial[d]) {
        return Unfit(
            "a filter gradient whose window is not the forward "
            "output's size");
      }
    } else {
      c.kernel_spatial.push_back(w.dimensions(first_spatial + d));
      c.output_spatial.push_back(y.dimensions(first_spatial + d));
      c.strides.push_back(wd.stride);
      c.dilation.push_back(wd.window_dilation);
    }
  }
  // cuDNN indexes in 32 bits and has no use for empty tensors (the direct
  // kernel writes an empty or all-zero result).
  for (const Shape* s : {&x, &w, &y}) {
    if (s->ElementCount() == 0) return Unfit("an empty tensor");
    if (s->ElementCount() > std::numeric_limits<int32_t>::max()) {
      return Unfit("a tensor of 2^31 elements or more");
    }
  }
  c.allow_tf32 = AllowsTf32(c.type, a.precision_config);
  return c;
}

absl::StatusOr<ExecutableStep> MakeConvolutionStep(
    const HloInstruction& conv, const std::vector<int64_t>& slots) {
  absl::StatusOr<ConvConfig> config = LowerToConvCall(conv);
  if (!config.ok()) return config.status();
  if (slots.size() != 3) {
    return absl::InternalError(absl::StrCat(
        conv.name(), ": a convolution step needs 3 slots, got ", slots.size()));
  }
  ExecutableStep step;
  step.kind = ExecutableStep::Kind::kLibraryCall;
  step.library = "cudnn.conv";
  step.instruction = conv.name();
  step.buffers = slots;
  step.conv = *std::move(config);
  return step;
}

}  // namespace hloc
