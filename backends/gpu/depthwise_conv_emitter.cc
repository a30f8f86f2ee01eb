// Depthwise convolutions (depthwise_conv.h) as one kernel of their own.
//
// Thread (group g, lane l) of block (x, chunk) computes channels
// c0 .. c0 + vector - 1, c0 = (chunk * channel_vectors + l) * vector, at
// `width` consecutive output positions along W (the last spatial
// dimension) of output position x * positions + g (DepthwiseConvTiling,
// launch_dims.h). First the block stages its chunk's filter taps in shared
// memory, tap-major ([tap][channel in chunk]), so that a thread's filter
// vector for one tap is one aligned shared load whatever the filter's
// layout. Then for each tap of the outer spatial dimensions (a loop; the
// row skipped where it falls into padding) the thread loads each input
// vector of its row segment once: with a 7-wide window and 4 outputs, 10
// vector loads feed 28 taps. Inputs in padding read as zero (the
// coordinate clamped, so the load stays inside the buffer, and its value
// replaced). A copy of the row without those checks for the threads whose
// inputs all lie inside it was slower (0.092 ms against 0.069 for a 7x7
// bf16 convolution on 32x56x56x96, H100, session 46): a warp holds
// neighbouring output tiles, so the warps at a row's ends ran both copies.
// Sums in f32, as cuDNN and XLA's elemental convolution add 16-bit
// products; one rounding to the output type at the end. Stores are one
// vector per output position, guarded only on a partial last tile.
#include <map>
#include <vector>

#include "backends/common/loop_emitter.h"
#include "backends/gpu/depthwise_conv.h"
#include "backends/gpu/kernel_builder.h"
#include "backends/gpu/kernel_emitters.h"
#include "backends/gpu/launch_dims.h"
#include "backends/gpu/reduction_util.h"
#include "hlo/math_util.h"
#include "hlo/status_macros.h"
#include "llvm/IR/Intrinsics.h"

namespace hloc {

absl::StatusOr<LaunchDims> EmitDepthwiseConvolutionKernel(
    const KernelRequest& request, const HloInstruction* conv) {
  const KernelInfo& info = *request.info;
  std::optional<DepthwiseConv> match = MatchDepthwiseConvolution(*conv);
  if (info.fused || !match.has_value()) {
    return CodegenUnimplemented(
        *conv, "not an unfused depthwise convolution the kernel takes");
  }
  const ConvolutionDimensionNumbers& dn =
      *conv->attrs().convolution_dimension_numbers;
  const Window& window = *conv->attrs().window;
  const Shape& x = conv->operand(0)->shape();
  const Shape& y = conv->shape();
  const PrimitiveType type = y.element_type();
  const int64_t spatial = static_cast<int64_t>(window.dimensions.size());
  const int64_t inner = spatial - 1;
  const int64_t channels = match->channels;
  const int64_t out_width = match->output_width;
  const int64_t outer_positions = match->outer_positions;
  const DepthwiseConvTiling& t = match->tiling;
  const int64_t vector = t.vector;
  const int64_t chunk_channels = t.channel_vectors * t.vector;
  const WindowDimension& wdim = window.dimensions[inner];
  const int64_t window_width = wdim.size;
  const int64_t outer_taps = match->taps / window_width;
  const int64_t tiles = CeilOfRatio(out_width, t.width);
  const int64_t threads = t.ThreadsPerBlock();
  // The sizes a linear output position and a linear outer tap split into.
  std::vector<int64_t> position_sizes = {
      y.dimensions(dn.output_batch_dimension)};
  std::vector<int64_t> outer_window;
  for (int64_t j = 0; j < inner; ++j) {
    position_sizes.push_back(y.dimensions(dn.output_spatial_dimensions[j]));
    outer_window.push_back(window.dimensions[j].size);
  }
  position_sizes.push_back(tiles);
  std::vector<int64_t> window_sizes = outer_window;
  window_sizes.push_back(window_width);

  LaunchDims dims;
  dims.block[0] = threads;
  dims.grid[0] = t.blocks;
  dims.grid[1] = t.chunks;
  const bool index64 = !Use32BitIndexing(
      MaxElementsTouched(info), dims.NumBlocks() * threads * vector * t.width);
  KernelBuilder kernel(*request.target, request.module, info, *request.buffers,
                       request.symbol, threads, index64);
  absl::Status status = [&]() -> absl::Status {
    llvm::IRBuilderBase* b = kernel.b();
    ElementalEmitter* elemental = kernel.elemental();
    HLOC_ASSIGN_OR_RETURN(llvm::Type * element,
                          RegisterType(type, b->getContext()));
    llvm::Type* f32 = b->getFloatTy();
    llvm::Type* index_type = kernel.index_type();
    const IrArray& input = kernel.generators().inputs()[0];
    const IrArray& filter = kernel.generators().inputs()[1];
    const IrArray& output = kernel.output(0);
    const uint64_t alignment = AlignmentOfRun(vector, type);
    auto split = [&](llvm::Value* linear, const std::vector<int64_t>& sizes) {
      return IrIndex::FromLinear(linear, Shape::Array(type, sizes), b);
    };

    // The chunk's filter taps, tap-major, zero past the last channel.
    llvm::GlobalVariable* shared =
        SharedArray(kernel, element, match->taps * chunk_channels, "filter");
    llvm::Value* tid = kernel.ThreadId(0);
    llvm::Value* chunk_first =
        b->CreateMul(kernel.BlockId(1), kernel.Index(chunk_channels));
    HLOC_RETURN_IF_ERROR(EmitForLoop(
        "stage", tid, kernel.Index(match->taps * chunk_channels),
        kernel.Index(threads),
        [&](llvm::Value* i) -> absl::Status {
          llvm::Value* tap = b->CreateUDiv(i, kernel.Index(chunk_channels));
          llvm::Value* c = b->CreateAdd(
              chunk_first, b->CreateURem(i, kernel.Index(chunk_channels)));
          llvm::Value* inside = b->CreateICmpULT(c, kernel.Index(channels));
          std::vector<llvm::Value*> k(filter.shape().rank(), kernel.Index(0));
          k[dn.kernel_output_feature_dimension] =
              b->CreateSelect(inside, c, kernel.Index(channels - 1));
          IrIndex tap_index = split(tap, window_sizes);
          for (int64_t j = 0; j < spatial; ++j) {
            k[dn.kernel_spatial_dimensions[j]] = tap_index[j];
          }
          HLOC_ASSIGN_OR_RETURN(llvm::Value * value,
                                filter.EmitRead(IrIndex(k, index_type), b));
          value = b->CreateSelect(inside, value,
                                  llvm::Constant::getNullValue(element));
          b->CreateStore(value, SharedElement(kernel, shared, i));
          return absl::OkStatus();
        },
        b));
    kernel.target().EmitBarrier(b);

    llvm::Value* lane = b->CreateURem(tid, kernel.Index(t.channel_vectors));
    llvm::Value* group = b->CreateUDiv(tid, kernel.Index(t.channel_vectors));
    llvm::Value* lane_channel = b->CreateMul(lane, kernel.Index(vector));
    llvm::Value* c0 = b->CreateAdd(chunk_first, lane_channel, "c0");

    // One row of taps (outer tap `outer_tap`, its input row at `in`, the
    // thread's first output along W at `w0`) added into `sums`.
    const int64_t in_width = x.dimensions(dn.input_spatial_dimensions[inner]);
    auto emit_row = [&](llvm::Value* outer_tap, std::vector<llvm::Value*> in,
                        llvm::Value* w0,
                        const std::vector<std::vector<llvm::Value*>>& sums)
        -> absl::Status {
      llvm::Value* first =
          b->CreateSub(b->CreateMul(w0, kernel.Index(wdim.stride)),
                       kernel.Index(wdim.padding_low));
      // The row's input vectors by offset from `first`, each loaded once,
      // when first needed, as f32.
      std::map<int64_t, std::vector<llvm::Value*>> loaded;
      auto input_at = [&](int64_t offset)
          -> absl::StatusOr<const std::vector<llvm::Value*>*> {
        auto it = loaded.find(offset);
        if (it != loaded.end()) return &it->second;
        llvm::Value* w = b->CreateAdd(first, kernel.Index(offset));
        llvm::Value* inside =
            b->CreateAnd(b->CreateICmpSGE(w, kernel.Index(0)),
                         b->CreateICmpSLT(w, kernel.Index(in_width)));
        in[dn.input_spatial_dimensions[inner]] =
            b->CreateSelect(inside, w, kernel.Index(0));
        IrIndex index(in, index_type);
        std::vector<llvm::Value*> values;
        if (vector == 1) {
          HLOC_ASSIGN_OR_RETURN(llvm::Value * value, input.EmitRead(index, b));
          values.push_back(value);
        } else {
          HLOC_ASSIGN_OR_RETURN(values,
                                input.EmitReadRun(index, vector, alignment, b));
        }
        for (llvm::Value*& value : values) {
          HLOC_ASSIGN_OR_RETURN(value,
                                elemental->EmitConvert(value, type, F32));
          value =
              b->CreateSelect(inside, value, llvm::ConstantFP::get(f32, 0.0));
        }
        return &loaded.emplace(offset, std::move(values)).first->second;
      };
      llvm::Type* taps_type = llvm::FixedVectorType::get(element, vector);
      for (int64_t kw = 0; kw < window_width; ++kw) {
        // The tap's filter vector: one shared load (aligned: the vector
        // starts at a multiple of `vector` elements).
        llvm::Value* tap =
            b->CreateAdd(b->CreateMul(outer_tap, kernel.Index(window_width)),
                         kernel.Index(kw));
        llvm::Value* slot = b->CreateAdd(
            b->CreateMul(tap, kernel.Index(chunk_channels)), lane_channel);
        llvm::LoadInst* load =
            b->CreateLoad(taps_type, SharedElement(kernel, shared, slot));
        load->setAlignment(llvm::Align(alignment));
        std::vector<llvm::Value*> weights;
        for (int64_t v = 0; v < vector; ++v) {
          HLOC_ASSIGN_OR_RETURN(
              llvm::Value * weight,
              elemental->EmitConvert(
                  b->CreateExtractElement(load, b->getInt32(v)), type, F32));
          weights.push_back(weight);
        }
        for (int64_t o = 0; o < t.width; ++o) {
          HLOC_ASSIGN_OR_RETURN(
              const std::vector<llvm::Value*>* values,
              input_at(o * wdim.stride + kw * wdim.window_dilation));
          for (int64_t v = 0; v < vector; ++v) {
            llvm::Value* sum = b->CreateLoad(f32, sums[o][v]);
            sum = b->CreateIntrinsic(llvm::Intrinsic::fmuladd, {f32},
                                     {(*values)[v], weights[v], sum});
            b->CreateStore(sum, sums[o][v]);
          }
        }
      }
      return absl::OkStatus();
    };

    llvm::Value* position = b->CreateAdd(
        b->CreateMul(kernel.BlockId(0), kernel.Index(t.positions)), group);
    llvm::Value* active = b->CreateAnd(
        b->CreateICmpULT(c0, kernel.Index(channels)),
        b->CreateICmpULT(position, kernel.Index(outer_positions * tiles)));
    return EmitIfThenElse(
        active,
        [&]() -> absl::Status {
          IrIndex at = split(position, position_sizes);
          llvm::Value* w0 = b->CreateMul(at[spatial], kernel.Index(t.width));
          std::vector<std::vector<llvm::Value*>> sums(t.width);
          for (auto& run : sums) {
            for (int64_t v = 0; v < vector; ++v) {
              llvm::Value* slot = EmitAllocaAtEntry(f32, "sum", b);
              b->CreateStore(llvm::ConstantFP::get(f32, 0.0), slot);
              run.push_back(slot);
            }
          }
          HLOC_RETURN_IF_ERROR(EmitForLoop(
              "taps", kernel.Index(0), kernel.Index(outer_taps),
              kernel.Index(1),
              [&](llvm::Value* outer_tap) -> absl::Status {
                std::vector<llvm::Value*> in(x.rank(), kernel.Index(0));
                in[dn.input_batch_dimension] = at[0];
                in[dn.input_feature_dimension] = c0;
                llvm::Value* row_inside = b->getTrue();
                IrIndex k = split(outer_tap, outer_window.empty()
                                                 ? std::vector<int64_t>{1}
                                                 : outer_window);
                for (int64_t j = 0; j < inner; ++j) {
                  const WindowDimension& wd = window.dimensions[j];
                  llvm::Value* coordinate = b->CreateAdd(
                      b->CreateSub(
                          b->CreateMul(at[1 + j], kernel.Index(wd.stride)),
                          kernel.Index(wd.padding_low)),
                      b->CreateMul(k[j], kernel.Index(wd.window_dilation)));
                  row_inside = b->CreateAnd(
                      row_inside,
                      b->CreateAnd(
                          b->CreateICmpSGE(coordinate, kernel.Index(0)),
                          b->CreateICmpSLT(
                              coordinate,
                              kernel.Index(x.dimensions(
                                  dn.input_spatial_dimensions[j])))));
                  in[dn.input_spatial_dimensions[j]] = coordinate;
                }
                return EmitIfThenElse(
                    row_inside,
                    [&]() -> absl::Status {
                      return emit_row(outer_tap, in, w0, sums);
                    },
                    nullptr, b);
              },
              b));
          // One vector store per output position; positions past the
          // output's width only in a partial last tile.
          for (int64_t o = 0; o < t.width; ++o) {
            llvm::Value* w = b->CreateAdd(w0, kernel.Index(o));
            auto store = [&]() -> absl::Status {
              std::vector<llvm::Value*> out(y.rank());
              out[dn.output_batch_dimension] = at[0];
              for (int64_t j = 0; j < inner; ++j) {
                out[dn.output_spatial_dimensions[j]] = at[1 + j];
              }
              out[dn.output_spatial_dimensions[inner]] = w;
              out[dn.output_feature_dimension] = c0;
              std::vector<llvm::Value*> values;
              for (int64_t v = 0; v < vector; ++v) {
                HLOC_ASSIGN_OR_RETURN(
                    llvm::Value * value,
                    elemental->EmitConvert(b->CreateLoad(f32, sums[o][v]), F32,
                                           type));
                values.push_back(value);
              }
              IrIndex index(out, index_type);
              if (vector == 1) return output.EmitWrite(index, values[0], b);
              return output.EmitWriteRun(index, values, alignment, b);
            };
            if (out_width % t.width == 0) {
              HLOC_RETURN_IF_ERROR(store());
            } else {
              HLOC_RETURN_IF_ERROR(
                  EmitIfThenElse(b->CreateICmpULT(w, kernel.Index(out_width)),
                                 store, nullptr, b));
            }
          }
          return absl::OkStatus();
        },
        nullptr, b);
  }();
  HLOC_RETURN_IF_ERROR(kernel.Finish(status));
  return dims;
}

}  // namespace hloc
