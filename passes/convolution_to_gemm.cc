#include "passes/convolution_to_gemm.h"

#include <algorithm>
#include <memory>
#include <vector>

#include "hlo/computation.h"
#include "passes/convolution_layout.h"
#include "passes/permutation.h"

namespace hloc {
namespace {

// Under 2^24 flops (16.8 MFLOP) a conv stays a direct kernel. The direct
// kernel of the conv_bn_relu ran at about 4 TFLOP/s (7.4 GFLOP in
// 1.8 ms on an H100), so such a conv costs it about 4 us; the rewrite
// adds an im2col kernel whose buffer is written and read back, a gemm
// launch and often transposes, some microseconds each, so below this size
// it cannot win and above it the gemm's speed (tens of TFLOP/s) pays. An
// estimate from that one measurement: small convs are not timed yet.
constexpr int64_t kMinFlops = int64_t{1} << 24;
// The im2col matrix is K times the input (9x for a 3x3 kernel). Past
// 2 GiB its write and read back cost about 1.4 ms of an H100's 3 TB/s and
// a fortieth of its memory; such a conv needs an implicit gemm (cuDNN's),
// not a materialised one.
constexpr int64_t kMaxIm2colBytes = int64_t{2} << 30;

bool IsGemmFloat(PrimitiveType type) {
  return type == F32 || type == BF16 || type == F16;
}

// `operand` reshaped to `dims`. The gemm's operands are bitcasts: every
// shape here has the row-major layout, so the reshape moves no data, and
// a reshape feeding the gemm call cannot fuse into it and would cost a
// copy kernel (the weights, or the whole input of a 1x1 conv), where a
// bitcast aliases its operand's buffer. The gemm's result is a reshape,
// which fuses into the conv's users; as the module's result a bitcast of
// a gemm's buffer is refused by the executable builder ("the result leaf
// 0 is ... but slot N holds ..."), so there the reshape costs a copy.
HloInstruction* Reshaped(HloComputation* computation, HloInstruction* operand,
                         std::vector<int64_t> dims, bool bitcast) {
  if (operand->shape().dimensions() == dims) return operand;
  const Shape shape =
      Shape::Array(operand->shape().element_type(), std::move(dims));
  return computation->AddInstruction(
      bitcast ? HloInstruction::Create(HloOpcode::kBitcast, shape, {operand})
              : HloInstruction::CreateReshape(shape, operand));
}

// The facts of a convolution the rewrite needs, in the canonical order
// (lhs [N, spatial..., C_in], rhs [spatial..., C_in, C_out]).
struct ConvGeometry {
  int64_t batch = 0;
  int64_t in_features = 0;
  int64_t out_features = 0;
  std::vector<int64_t> kernel;       // spatial sizes of the kernel
  std::vector<int64_t> out_spatial;  // spatial sizes of the output
  int64_t kernel_positions = 1;      // product of `kernel`
  int64_t output_positions = 1;      // product of `out_spatial`
  int64_t rows = 0;                  // N * output_positions
  // The im2col matrix is gathered by output position (a slice of the input
  // window per output position, rows ordered (position, n)) where that
  // takes fewer slices than one per kernel position (rows ordered (n,
  // position)): a weight gradient's "convolution" has a window as large as
  // the input and an output as small as the kernel, 9 positions of a
  // 32x32 window instead of 1024 slices.
  bool by_output_position = false;
};

// Why a convolution stays one (the statistics counter --stats prints), or
// nullptr when the rewrite applies; fills `g` then.
constexpr char kUnsupported[] = "convolutions-kept-unsupported";
constexpr char kTooSmall[] = "convolutions-kept-too-small";
constexpr char kTooLarge[] = "convolutions-kept-im2col-too-large";
constexpr char kManyOutputs[] = "convolutions-kept-many-output-positions";
constexpr char kForCudnn[] = "convolutions-kept-for-cudnn-filter-gradient";

const char* WhyKept(const HloInstruction* conv,
                    const ConvolutionToGemmOptions& opts, ConvGeometry* g) {
  const HloAttributes& a = conv->attrs();
  if (conv->operand_count() != 2 || !a.convolution_dimension_numbers ||
      !a.window || a.feature_group_count != 1 || a.batch_group_count != 1) {
    return kUnsupported;
  }
  const Shape& x = conv->operand(0)->shape();
  const Shape& w = conv->operand(1)->shape();
  const Shape& y = conv->shape();
  if (!x.IsArray() || !w.IsArray() || !y.IsArray() ||
      !x.HasDescendingLayout() || !w.HasDescendingLayout() ||
      !y.HasDescendingLayout() || x.element_type() != w.element_type() ||
      !IsGemmFloat(x.element_type()) || !IsGemmFloat(y.element_type())) {
    return kUnsupported;
  }
  const ConvolutionDimensionNumbers& dn = *a.convolution_dimension_numbers;
  const int64_t ns = static_cast<int64_t>(dn.input_spatial_dimensions.size());
  if (static_cast<int64_t>(a.window->dimensions.size()) != ns ||
      x.rank() != ns + 2 || w.rank() != ns + 2 || y.rank() != ns + 2) {
    return kUnsupported;
  }
  g->batch = x.dimensions(dn.input_batch_dimension);
  g->in_features = x.dimensions(dn.input_feature_dimension);
  g->out_features = w.dimensions(dn.kernel_output_feature_dimension);
  g->rows = g->batch;
  for (int64_t d = 0; d < ns; ++d) {
    const WindowDimension& wd = a.window->dimensions[d];
    if (wd.base_dilation < 1 || wd.window_reversal) return kUnsupported;
    g->kernel.push_back(w.dimensions(dn.kernel_spatial_dimensions[d]));
    g->out_spatial.push_back(y.dimensions(dn.output_spatial_dimensions[d]));
    g->kernel_positions *= g->kernel.back();
    g->output_positions *= g->out_spatial.back();
  }
  g->rows *= g->output_positions;
  g->by_output_position = g->output_positions < g->kernel_positions;
  if (opts.max_output_positions >= 0 &&
      (g->output_positions > opts.max_output_positions ||
       !g->by_output_position)) {
    return kManyOutputs;
  }
  const int64_t depth = g->kernel_positions * g->in_features;
  // An empty conv is no work for either form.
  if (g->rows == 0 || depth == 0 || g->out_features == 0) return kTooSmall;
  const double flops = 2.0 * static_cast<double>(g->rows) * depth *
                       static_cast<double>(g->out_features);
  const double im2col_bytes = static_cast<double>(g->rows) * depth *
                              static_cast<double>(ByteWidth(x.element_type()));
  if (flops < static_cast<double>(opts.min_flops)) return kTooSmall;
  if (im2col_bytes > static_cast<double>(opts.max_im2col_bytes)) {
    return kTooLarge;
  }
  if (opts.cudnn_filter_gradients_above_im2col_bytes >= 0 &&
      im2col_bytes >
          static_cast<double>(opts.cudnn_filter_gradients_above_im2col_bytes) &&
      IsDenseFilterGradient(*conv)) {
    return kForCudnn;
  }
  return nullptr;
}

// The canonical input `x` ([N, spatial..., C_in]) as the window reads it:
// base (lhs) dilation as interior zeros, then the positive padding (zeros).
// Negative padding cuts the input, which the im2col slices do by starting
// further in. (A transposed convolution's weight gradient, as JAX writes
// it, is such a convolution: the activation dilated, a window the size of
// the output gradient.)
HloInstruction* PaddedInput(HloComputation* computation, HloInstruction* x,
                            const Window& window, const ConvGeometry& g) {
  const int64_t ns = static_cast<int64_t>(g.kernel.size());
  const PrimitiveType type = x->shape().element_type();
  PaddingConfig padding;
  padding.dimensions.resize(ns + 2);
  bool padded = false;
  for (int64_t d = 0; d < ns; ++d) {
    const WindowDimension& wd = window.dimensions[d];
    padding.dimensions[1 + d].edge_padding_low =
        std::max<int64_t>(0, wd.padding_low);
    padding.dimensions[1 + d].edge_padding_high =
        std::max<int64_t>(0, wd.padding_high);
    padding.dimensions[1 + d].interior_padding = wd.base_dilation - 1;
    padded |= wd.padding_low > 0 || wd.padding_high > 0 || wd.base_dilation > 1;
  }
  HloInstruction* input = x;
  if (padded) {
    std::vector<int64_t> dims = x->shape().dimensions();
    for (int64_t d = 0; d < ns + 2; ++d) {
      const PaddingDimension& p = padding.dimensions[d];
      dims[d] += p.edge_padding_low + p.edge_padding_high +
                 std::max<int64_t>(0, dims[d] - 1) * p.interior_padding;
    }
    HloInstruction* zero = computation->AddInstruction(
        HloInstruction::CreateConstant(Literal(Shape::Scalar(type))));
    auto pad = HloInstruction::Create(HloOpcode::kPad, Shape::Array(type, dims),
                                      {x, zero});
    pad->mutable_attrs().padding_config = padding;
    input = computation->AddInstruction(std::move(pad));
  }
  return input;
}

// The im2col matrix of the canonical input `x` ([N, spatial..., C_in]), in
// one of two orders (ConvGeometry::by_output_position):
//   by kernel position: [N, out..., K * C_in], a slice [N, out..., C_in]
//     per kernel position (starting at the position times the window
//     dilation, strided by the window strides), concatenated along C_in;
//   by output position: [P * N, kernel..., C_in], rows ordered (position,
//     n), a slice [N, kernel..., C_in] per output position, the window it
//     reads (starting at the position times the stride, strided by the
//     window dilation), concatenated along N.
// Either way the slices walk one grid of positions row-major and cover the
// other grid's extent.
HloInstruction* Im2col(HloComputation* computation, HloInstruction* x,
                       const Window& window, const ConvGeometry& g) {
  const int64_t ns = static_cast<int64_t>(g.kernel.size());
  const PrimitiveType type = x->shape().element_type();
  const bool by_output = g.by_output_position;
  const std::vector<int64_t>& walked = by_output ? g.out_spatial : g.kernel;
  const std::vector<int64_t>& covered = by_output ? g.kernel : g.out_spatial;
  const int64_t count = by_output ? g.output_positions : g.kernel_positions;
  const int64_t joined = by_output ? 0 : ns + 1;  // the concatenated dim
  HloInstruction* input = PaddedInput(computation, x, window, g);
  std::vector<int64_t> slice_dims = {g.batch};
  slice_dims.insert(slice_dims.end(), covered.begin(), covered.end());
  slice_dims.push_back(g.in_features);
  std::vector<HloInstruction*> slices;
  std::vector<int64_t> position(ns, 0);  // row-major over `walked`
  for (int64_t k = 0; k < count; ++k) {
    std::vector<int64_t> starts(ns + 2, 0), strides(ns + 2, 1),
        limits = slice_dims;
    for (int64_t d = 0; d < ns; ++d) {
      const WindowDimension& wd = window.dimensions[d];
      const int64_t step = by_output ? wd.stride : wd.window_dilation;
      const int64_t within = by_output ? wd.window_dilation : wd.stride;
      starts[1 + d] =
          position[d] * step + std::max<int64_t>(0, -wd.padding_low);
      strides[1 + d] = within;
      limits[1 + d] = starts[1 + d] + (covered[d] - 1) * within + 1;
    }
    if (slice_dims == input->shape().dimensions() &&
        std::all_of(starts.begin(), starts.end(),
                    [](int64_t s) { return s == 0; })) {
      // The whole input: a 1x1 stride-1 conv, or one output position
      // whose window is the input.
      slices.push_back(input);
    } else {
      auto slice = HloInstruction::Create(
          HloOpcode::kSlice, Shape::Array(type, slice_dims), {input});
      slice->mutable_attrs().slice_starts = starts;
      slice->mutable_attrs().slice_limits = limits;
      slice->mutable_attrs().slice_strides = strides;
      slices.push_back(computation->AddInstruction(std::move(slice)));
    }
    for (int64_t d = ns - 1; d >= 0; --d) {
      if (++position[d] < walked[d]) break;
      position[d] = 0;
    }
  }
  if (slices.size() == 1) return slices.front();
  std::vector<int64_t> dims = slice_dims;
  dims[joined] *= count;
  auto concat = HloInstruction::Create(HloOpcode::kConcatenate,
                                       Shape::Array(type, dims), slices);
  concat->mutable_attrs().dimensions = {joined};
  return computation->AddInstruction(std::move(concat));
}

// Rewrites `conv`, or sets `*kept` to why it stays.
absl::StatusOr<bool> Rewrite(HloComputation* computation, HloInstruction* conv,
                             const ConvolutionToGemmOptions& opts,
                             const char** kept) {
  ConvGeometry g;
  *kept = WhyKept(conv, opts, &g);
  if (*kept != nullptr) return false;
  const ConvolutionDimensionNumbers& dn =
      *conv->attrs().convolution_dimension_numbers;
  const Window& window = *conv->attrs().window;
  const int64_t ns = static_cast<int64_t>(g.kernel.size());

  std::vector<int64_t> x_order = {dn.input_batch_dimension};
  x_order.insert(x_order.end(), dn.input_spatial_dimensions.begin(),
                 dn.input_spatial_dimensions.end());
  x_order.push_back(dn.input_feature_dimension);
  std::vector<int64_t> w_order = dn.kernel_spatial_dimensions;
  w_order.push_back(dn.kernel_input_feature_dimension);
  w_order.push_back(dn.kernel_output_feature_dimension);

  HloInstruction* x = AddTranspose(computation, conv->operand(0), x_order);
  HloInstruction* w = AddTranspose(computation, conv->operand(1), w_order);
  const int64_t depth = g.kernel_positions * g.in_features;
  HloInstruction* lhs = Reshaped(computation, Im2col(computation, x, window, g),
                                 {g.rows, depth}, /*bitcast=*/true);
  HloInstruction* rhs =
      Reshaped(computation, w, {depth, g.out_features}, /*bitcast=*/true);

  const PrimitiveType type = conv->shape().element_type();
  auto dot = HloInstruction::Create(
      HloOpcode::kDot, Shape::Array(type, {g.rows, g.out_features}),
      {lhs, rhs});
  DotDimensionNumbers dot_dn;
  dot_dn.lhs_contracting_dimensions = {1};
  dot_dn.rhs_contracting_dimensions = {0};
  dot->mutable_attrs().dot_dimension_numbers = dot_dn;
  dot->mutable_attrs().precision_config = conv->attrs().precision_config;
  *dot->mutable_metadata() = conv->metadata();
  HloInstruction* product = computation->AddInstruction(std::move(dot));

  // [N, out..., C_out] (by output position: [out..., N, C_out]), then the
  // conv's output order: dimension j of the result is the product's
  // dimension that holds what the conv's numbers put at j.
  const int64_t batch_at = g.by_output_position ? ns : 0;
  const int64_t spatial_at = g.by_output_position ? 0 : 1;
  std::vector<int64_t> y_dims(ns + 2);
  y_dims[batch_at] = g.batch;
  for (int64_t d = 0; d < ns; ++d) y_dims[spatial_at + d] = g.out_spatial[d];
  y_dims[ns + 1] = g.out_features;
  std::vector<int64_t> y_order(ns + 2);
  y_order[dn.output_batch_dimension] = batch_at;
  for (int64_t d = 0; d < ns; ++d)
    y_order[dn.output_spatial_dimensions[d]] = spatial_at + d;
  y_order[dn.output_feature_dimension] = ns + 1;
  HloInstruction* result = AddTranspose(
      computation, Reshaped(computation, product, y_dims, /*bitcast=*/false),
      y_order);
  if (absl::Status s = computation->ReplaceInstruction(conv, result); !s.ok()) {
    return s;
  }
  return true;
}

}  // namespace

ConvolutionToGemmOptions DefaultConvolutionToGemmOptions() {
  return {kMinFlops, kMaxIm2colBytes, /*max_output_positions=*/-1};
}

ConvolutionToGemmOptions CudaConvolutionToGemmOptions() {
  // cuDNN's forward kernels give each thread block output elements and
  // walk the reduction (window x C_in) in it: a weight gradient as JAX
  // writes it (a "convolution" whose window is the activation and whose
  // output is the kernel's 3x3) has few outputs and long reductions.
  // convnet_batchnorm_step's two took 0.81 and 0.20 ms of its 1.40 ms on
  // an H200 (session 30; 432 outputs of 16384-term sums, 4608 of 4096); as
  // im2col and cuBLAS gemms, 0.016 ms each on an H100, the program 4.8x
  // faster. Every size goes (min_flops 0): the alternative is the slow
  // cuDNN call, not a direct kernel. 64 positions cover the gradients of
  // kernels up to 8x8. Large ones cuDNN's backward-filter convolution
  // computes stay for it (IsDenseFilterGradient): the im2col matrix is a
  // window-sized copy of the activation for each of the filter's
  // positions, which backward filter reads in place. On an H100 (session
  // 43) the f32 gradient of a 3x3 convolution 64->64 on 32x56x56x64 took
  // 0.733 ms with im2col (a 231 MB matrix) and 0.202 as backward filter
  // (XLA:GPU 0.216); its bf16 NCHW twin 0.412 against 0.122. Small ones
  // stay gemms: convnet_batchnorm_step's (2.4 MB and less) took 0.183 ms
  // that way and 0.233 as backward filter. 16 MiB, about 11 us of
  // traffic written and read back, sits between the two.
  return {/*min_flops=*/0, kMaxIm2colBytes, /*max_output_positions=*/64,
          /*cudnn_filter_gradients_above_im2col_bytes=*/int64_t{16} << 20};
}

absl::StatusOr<bool> ConvolutionToGemm::Run(HloModule* module) {
  return RewriteEach(module, HloOpcode::kConvolution, "convolutions-rewritten",
                     [&](HloComputation* computation,
                         HloInstruction* instr) -> absl::StatusOr<bool> {
                       const char* kept = nullptr;
                       absl::StatusOr<bool> rewritten =
                           Rewrite(computation, instr, options_, &kept);
                       if (kept != nullptr) Count(kept);
                       return rewritten;
                     });
}

}  // namespace hloc
