#include "passes/convolution_layout.h"

#include <algorithm>
#include <vector>

#include "hlo/computation.h"
#include "passes/permutation.h"

namespace hloc {
namespace {

// Dimension numbers of `layout` for `spatial` spatial dimensions.
ConvolutionDimensionNumbers NumbersFor(ConvLayout layout, int64_t spatial) {
  ConvolutionDimensionNumbers dn;
  const int64_t first_spatial = IsChannelsFirstLayout(layout) ? 2 : 1;
  if (IsFilterGradientLayout(layout)) {
    // N (the outermost dimension of the input and the output gradient) is
    // the convolution's feature; C, K and C/groups sit where the forward
    // convolution has its channels.
    const int64_t channels = first_spatial == 2 ? 1 : spatial + 1;
    dn.input_feature_dimension = dn.kernel_input_feature_dimension = 0;
    dn.output_feature_dimension = 0;
    dn.input_batch_dimension = dn.output_batch_dimension = channels;
    dn.kernel_output_feature_dimension = channels;
    for (int64_t d = 0; d < spatial; ++d) {
      dn.input_spatial_dimensions.push_back(first_spatial + d);
      dn.kernel_spatial_dimensions.push_back(first_spatial + d);
      dn.output_spatial_dimensions.push_back(first_spatial + d);
    }
    return dn;
  }
  const int64_t channels = first_spatial == 2 ? 1 : spatial + 1;
  dn.input_batch_dimension = dn.output_batch_dimension = 0;
  dn.kernel_output_feature_dimension = 0;
  dn.input_feature_dimension = dn.output_feature_dimension = channels;
  dn.kernel_input_feature_dimension = channels;
  for (int64_t d = 0; d < spatial; ++d) {
    dn.input_spatial_dimensions.push_back(first_spatial + d);
    dn.kernel_spatial_dimensions.push_back(first_spatial + d);
    dn.output_spatial_dimensions.push_back(first_spatial + d);
  }
  return dn;
}

// The permutation taking a tensor from `dn`'s order to `layout`'s:
// dimension i of the result is dimension order[i] of the original.
// `batch`, `feature` and `spatial` name the tensor's dimensions in `dn`.
std::vector<int64_t> OrderFor(ConvLayout layout, int64_t batch,
                              int64_t feature,
                              const std::vector<int64_t>& spatial) {
  std::vector<int64_t> order = {batch};
  if (layout == ConvLayout::kChannelsFirst) order.push_back(feature);
  order.insert(order.end(), spatial.begin(), spatial.end());
  if (layout == ConvLayout::kChannelsLast) order.push_back(feature);
  return order;
}

// Why `conv` cannot be a library call in any layout (a --stats counter),
// or nullptr.
const char* WhyUnsupported(const HloInstruction& conv) {
  const HloAttributes& a = conv.attrs();
  if (conv.operand_count() != 2 || !a.convolution_dimension_numbers ||
      !a.window) {
    return "convolutions-kept-malformed";
  }
  const Shape& x = conv.operand(0)->shape();
  const Shape& w = conv.operand(1)->shape();
  const Shape& y = conv.shape();
  if (!x.IsArray() || !w.IsArray() || !y.IsArray() ||
      x.element_type() != w.element_type() ||
      x.element_type() != y.element_type() ||
      !IsConvLibraryType(x.element_type())) {
    return "convolutions-kept-element-type";
  }
  if (!x.HasDescendingLayout() || !w.HasDescendingLayout() ||
      !y.HasDescendingLayout()) {
    return "convolutions-kept-layout";
  }
  const size_t spatial =
      a.convolution_dimension_numbers->input_spatial_dimensions.size();
  if (spatial < 1 || spatial > 3 || a.window->dimensions.size() != spatial) {
    return "convolutions-kept-spatial-rank";
  }
  for (const WindowDimension& wd : a.window->dimensions) {
    if (wd.base_dilation != 1) return "convolutions-kept-base-dilation";
    if (wd.window_reversal) return "convolutions-kept-window-reversal";
  }
  for (const Shape* s : {&x, &w, &y}) {
    if (s->ElementCount() == 0) return "convolutions-kept-empty";
  }
  return nullptr;
}

bool SymmetricPadding(const Window& window) {
  for (const WindowDimension& wd : window.dimensions) {
    if (wd.padding_low != wd.padding_high || wd.padding_low < 0) return false;
  }
  return true;
}

// `x` (in `layout`'s order) padded by the part of each spatial dimension's
// padding that is not the same on both sides or is negative; `window`
// keeps the symmetric rest.
HloInstruction* PadAsymmetry(HloComputation* computation, HloInstruction* x,
                             ConvLayout layout, Window* window) {
  const int64_t first_spatial = IsChannelsFirstLayout(layout) ? 2 : 1;
  PaddingConfig padding;
  padding.dimensions.resize(x->shape().rank());
  std::vector<int64_t> dims = x->shape().dimensions();
  bool padded = false;
  for (size_t d = 0; d < window->dimensions.size(); ++d) {
    WindowDimension& wd = window->dimensions[d];
    const int64_t both =
        std::max<int64_t>(0, std::min(wd.padding_low, wd.padding_high));
    PaddingDimension& pd = padding.dimensions[first_spatial + d];
    pd.edge_padding_low = wd.padding_low - both;
    pd.edge_padding_high = wd.padding_high - both;
    dims[first_spatial + d] += pd.edge_padding_low + pd.edge_padding_high;
    padded |= pd.edge_padding_low != 0 || pd.edge_padding_high != 0;
    wd.padding_low = wd.padding_high = both;
  }
  if (!padded) return x;
  const PrimitiveType type = x->shape().element_type();
  HloInstruction* zero = computation->AddInstruction(
      HloInstruction::CreateConstant(Literal(Shape::Scalar(type))));
  auto pad = HloInstruction::Create(HloOpcode::kPad, Shape::Array(type, dims),
                                    {x, zero});
  pad->mutable_attrs().padding_config = padding;
  return computation->AddInstruction(std::move(pad));
}

// Whether `conv` (no batch groups) convolves each input channel alone
// (feature groups of one channel), and into how many output channels a
// group: 0 if it does not.
int64_t DepthwiseMultiplier(const HloInstruction& conv) {
  const ConvolutionDimensionNumbers& dn =
      *conv.attrs().convolution_dimension_numbers;
  const int64_t groups = conv.attrs().feature_group_count;
  if (conv.attrs().batch_group_count != 1 || groups == 1 ||
      conv.operand(0)->shape().dimensions(dn.input_feature_dimension) !=
          groups) {
    return 0;
  }
  return conv.shape().dimensions(dn.output_feature_dimension) / groups;
}

// The filter gradients of depthwise f32 convolutions, and depthwise f32
// convolutions with several output channels a group, run channels first.
// cuDNN's channels-last kernels for them are slow: on an H100 (session
// 41) a ConvNeXt 7x7 depthwise convolution on 32x56x56x96 took 2.10
// (forward), 2.00 (data gradient) and 5.00 ms (filter gradient) channels
// last, 0.33, 0.33 and 1.09 ms channels first. Groups of several
// channels do better channels last: the gradient of a ResNeXt 3x3
// convolution of 32 groups of 4 on 32x56x56x128 took 0.70 ms channels
// last and 0.88 ms channels first (its three calls 0.65 ms either way,
// plus the transposes). Dense f32 convolutions keep channels last too,
// the order TF32 tensor cores read.
bool PrefersChannelsFirst(const HloInstruction& conv) {
  if (conv.shape().element_type() != F32) return false;
  const ConvolutionDimensionNumbers& dn =
      *conv.attrs().convolution_dimension_numbers;
  if (conv.attrs().batch_group_count != 1) {
    // A filter gradient: the forward convolution's channels per group are
    // the result's batch dimension.
    return conv.shape().dimensions(dn.output_batch_dimension) == 1;
  }
  return DepthwiseMultiplier(conv) > 1;
}

// 16-bit convolutions run channels last whatever order the program's
// tensors are in, as XLA:GPU lays out its 16-bit cuDNN calls: the order
// tensor cores read. On an H100 (session 43) the bf16 gradient of a 7x7
// depthwise convolution on 32x96x56x56 NCHW activations took 0.449 ms as
// three channels-first cuDNN calls (0.113, 0.107 and 0.191 ms); the same
// calls channels last take 0.088, 0.083 and 0.080 ms, and the transposes
// into and out of that order about 0.013 ms each. Depthwise convolutions
// of one output channel a group, f32 ones too, run channels last: the
// order the GPU backend's own depthwise kernel reads (backends/gpu/
// depthwise_conv.h), which replaced their cuDNN calls.
bool PrefersChannelsLast(const HloInstruction& conv) {
  const PrimitiveType type = conv.operand(0)->shape().element_type();
  return type == BF16 || type == F16 || DepthwiseMultiplier(conv) == 1;
}

// The order `conv` is put in: a filter-gradient order for batch groups
// and dense filter gradients, channels first where preferred or where the
// input already is so (unless channels last is preferred), otherwise
// channels last.
ConvLayout ChooseLayout(const HloInstruction& conv) {
  const ConvolutionDimensionNumbers& dn =
      *conv.attrs().convolution_dimension_numbers;
  const bool filter_gradient =
      conv.attrs().batch_group_count != 1 || IsDenseFilterGradient(conv);
  // The input's outermost and channel dimensions: a filter gradient's
  // outermost is its feature (the forward batch), its channels its batch.
  const int64_t outer =
      filter_gradient ? dn.input_feature_dimension : dn.input_batch_dimension;
  const int64_t channels =
      filter_gradient ? dn.input_batch_dimension : dn.input_feature_dimension;
  const bool first =
      PrefersChannelsFirst(conv) ||
      (!PrefersChannelsLast(conv) && outer == 0 && channels == 1 &&
       IsIdentityPermutation(OrderFor(ConvLayout::kChannelsFirst, 0, 1,
                                      dn.input_spatial_dimensions)));
  if (filter_gradient) {
    return first ? ConvLayout::kFilterGradientChannelsFirst
                 : ConvLayout::kFilterGradient;
  }
  return first ? ConvLayout::kChannelsFirst : ConvLayout::kChannelsLast;
}

absl::StatusOr<bool> Rewrite(HloComputation* computation, HloInstruction* conv,
                             const char** kept) {
  *kept = WhyUnsupported(*conv);
  if (*kept != nullptr) return false;
  const ConvLayout current = GetConvLayout(*conv);
  const ConvLayout layout = ChooseLayout(*conv);
  Window window = *conv->attrs().window;
  if (current == layout && SymmetricPadding(window)) {
    *kept = "convolutions-already-in-library-form";
    return false;
  }
  const ConvolutionDimensionNumbers& dn =
      *conv->attrs().convolution_dimension_numbers;
  const int64_t spatial = static_cast<int64_t>(window.dimensions.size());
  // Each tensor's outermost, then innermost (channels last) or second
  // (channels first) dimension.
  std::vector<int64_t> x_order, w_order, y_order;
  if (IsFilterGradientLayout(layout)) {
    // [N, C, K and C/groups as the forward convolution orders its
    // channels, with the spatial dimensions].
    const ConvLayout order = IsChannelsFirstLayout(layout)
                                 ? ConvLayout::kChannelsFirst
                                 : ConvLayout::kChannelsLast;
    x_order = OrderFor(order, dn.input_feature_dimension,
                       dn.input_batch_dimension, dn.input_spatial_dimensions);
    w_order = OrderFor(order, dn.kernel_input_feature_dimension,
                       dn.kernel_output_feature_dimension,
                       dn.kernel_spatial_dimensions);
    y_order = OrderFor(order, dn.output_feature_dimension,
                       dn.output_batch_dimension, dn.output_spatial_dimensions);
  } else {
    x_order = OrderFor(layout, dn.input_batch_dimension,
                       dn.input_feature_dimension, dn.input_spatial_dimensions);
    w_order = OrderFor(layout, dn.kernel_output_feature_dimension,
                       dn.kernel_input_feature_dimension,
                       dn.kernel_spatial_dimensions);
    y_order =
        OrderFor(layout, dn.output_batch_dimension, dn.output_feature_dimension,
                 dn.output_spatial_dimensions);
  }
  HloInstruction* x = AddTranspose(computation, conv->operand(0), x_order);
  x = PadAsymmetry(computation, x, layout, &window);
  HloInstruction* w = AddTranspose(computation, conv->operand(1), w_order);
  std::vector<int64_t> y_dims;
  for (int64_t d : y_order) y_dims.push_back(conv->shape().dimensions(d));
  std::unique_ptr<HloInstruction> rewritten = conv->CloneWithNewOperands(
      Shape::Array(conv->shape().element_type(), y_dims), {x, w});
  rewritten->mutable_attrs().convolution_dimension_numbers =
      NumbersFor(layout, spatial);
  rewritten->mutable_attrs().window = window;
  HloInstruction* y = computation->AddInstruction(std::move(rewritten));
  // Back to the original order: result dimension j is y dimension i where
  // y_order[i] = j.
  HloInstruction* result =
      AddTranspose(computation, y, InversePermutation(y_order));
  if (absl::Status s = computation->ReplaceInstruction(conv, result); !s.ok()) {
    return s;
  }
  return true;
}

}  // namespace

ConvLayout GetConvLayout(const HloInstruction& conv) {
  const auto& numbers = conv.attrs().convolution_dimension_numbers;
  if (!numbers) return ConvLayout::kOther;
  const int64_t spatial =
      static_cast<int64_t>(numbers->input_spatial_dimensions.size());
  for (ConvLayout layout :
       {ConvLayout::kChannelsLast, ConvLayout::kChannelsFirst,
        ConvLayout::kFilterGradient,
        ConvLayout::kFilterGradientChannelsFirst}) {
    if (*numbers == NumbersFor(layout, spatial)) return layout;
  }
  return ConvLayout::kOther;
}

bool IsDenseFilterGradient(const HloInstruction& conv) {
  if (conv.opcode() != HloOpcode::kConvolution ||
      WhyUnsupported(conv) != nullptr || conv.shape().element_type() == F64 ||
      conv.attrs().batch_group_count != 1 ||
      conv.attrs().feature_group_count != 1) {
    return false;
  }
  const ConvolutionDimensionNumbers& dn =
      *conv.attrs().convolution_dimension_numbers;
  const Shape& x = conv.operand(0)->shape();
  const Shape& w = conv.operand(1)->shape();
  const Shape& y = conv.shape();
  for (size_t d = 0; d < dn.input_spatial_dimensions.size(); ++d) {
    const WindowDimension& wd = conv.attrs().window->dimensions[d];
    // The result is the forward filter, the window the forward output
    // (its gradient): a filter smaller than that output, as every
    // gradient of a convolution with a small kernel has.
    const int64_t filter = y.dimensions(dn.output_spatial_dimensions[d]);
    const int64_t forward_out = w.dimensions(dn.kernel_spatial_dimensions[d]);
    if (filter >= forward_out) return false;
    // cuDNN derives the forward output's size from the input, filter,
    // padding, stride (the window's dilation here) and dilation (the
    // window's stride); the window must be that size (the lowering's
    // check, after this pass has made the padding symmetric).
    const int64_t padded = x.dimensions(dn.input_spatial_dimensions[d]) +
                           wd.padding_low + wd.padding_high;
    const int64_t span = (filter - 1) * wd.stride + 1;
    if (padded < span ||
        (padded - span) / wd.window_dilation + 1 != forward_out) {
      return false;
    }
  }
  return true;
}

bool IsConvLibraryType(PrimitiveType type) {
  return type == F32 || type == F64 || type == F16 || type == BF16;
}

bool IsFilterGradientLayout(ConvLayout layout) {
  return layout == ConvLayout::kFilterGradient ||
         layout == ConvLayout::kFilterGradientChannelsFirst;
}

bool IsChannelsFirstLayout(ConvLayout layout) {
  return layout == ConvLayout::kChannelsFirst ||
         layout == ConvLayout::kFilterGradientChannelsFirst;
}

absl::StatusOr<bool> ConvolutionLayout::Run(HloModule* module) {
  return RewriteEach(module, HloOpcode::kConvolution, "convolutions-rewritten",
                     [&](HloComputation* computation,
                         HloInstruction* instr) -> absl::StatusOr<bool> {
                       const char* kept = nullptr;
                       absl::StatusOr<bool> rewritten =
                           Rewrite(computation, instr, &kept);
                       if (kept != nullptr) Count(kept);
                       return rewritten;
                     });
}

}  // namespace hloc
