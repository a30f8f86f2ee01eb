#include "passes/registry.h"

#include <cctype>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "passes/async_collectives_to_sync.h"
#include "passes/call_inliner.h"
#include "passes/cholesky_expander.h"
#include "passes/collective_layout.h"
#include "passes/concatenate_splitter.h"
#include "passes/constant_folding.h"
#include "passes/control_flow_layout.h"
#include "passes/convolution_layout.h"
#include "passes/convolution_to_gemm.h"
#include "passes/cse.h"
#include "passes/csr_sparse_dense_expander.h"
#include "passes/cudnn_convolution_calls.h"
#include "passes/custom_call_layout.h"
#include "passes/dce.h"
#include "passes/dot_algorithm_operands.h"
#include "passes/dot_convert_folding.h"
#include "passes/dot_operand_order.h"
#include "passes/dot_strength_reduction.h"
#include "passes/dot_tf32_operand_layout.h"
#include "passes/float8_normalization.h"
#include "passes/float_normalization.h"
#include "passes/fusion/dot_prologue_fusion.h"
#include "passes/fusion/instruction_fusion.h"
#include "passes/fusion/multi_output_fusion.h"
#include "passes/fusion/row_reduction_fusion.h"
#include "passes/gesvd_to_gesvdj.h"
#include "passes/host_callbacks.h"
#include "passes/library_layout.h"
#include "passes/orgqr_expander.h"
#include "passes/radix_sort_rewriter.h"
#include "passes/ragged_dot_expander.h"
#include "passes/reduce_window_to_scan.h"
#include "passes/reduction_splitter.h"
#include "passes/rng_bit_generator_expander.h"
#include "passes/scatter_winners.h"
#include "passes/schedule_remover.h"
#include "passes/sharding_remover.h"
#include "passes/simplification.h"
#include "passes/simplifier/algebraic_simplifier.h"
#include "passes/simplify_fp_conversions.h"
#include "passes/single_device_collectives.h"
#include "passes/sort_splitter.h"
#include "passes/sub_byte_normalization.h"
#include "passes/topk_expander.h"
#include "passes/topk_splitter.h"
#include "passes/transpose_bitcasts.h"
#include "passes/tree_reduction.h"
#include "passes/triangular_solve_expander.h"
#include "passes/tridiagonal_solve_expander.h"
#include "passes/tuple_layout.h"
#include "passes/tuple_simplifier.h"
#include "passes/while_trip_count_annotator.h"

namespace hloc {
namespace {

template <typename T>
std::unique_ptr<HloPass> Make() {
  return std::make_unique<T>();
}

std::unique_ptr<HloPass> MakeBitcastingSimplifier() {
  AlgebraicSimplifierOptions options;
  options.enable_bitcasts = true;
  return std::make_unique<AlgebraicSimplifier>(options);
}

std::unique_ptr<HloPass> MakeDropHostCallbacks() {
  return std::make_unique<HostCallbacks>(/*drop=*/true);
}

std::unique_ptr<HloPass> MakeSimplify() { return MakeSimplificationPipeline(); }

// The rocm form (any size, any cheap producer): the default options are
// cuda's, which form no prologues.
std::unique_ptr<HloPass> MakeDotPrologueFusion() {
  FusionOptions options;
  options.dot_prologue_max_flops = std::numeric_limits<int64_t>::max();
  return std::make_unique<DotPrologueFusion>(options);
}

struct PassEntry {
  const char* name;
  const char* summary;
  std::unique_ptr<HloPass> (*create)();
};

// Every pass hlo-opt can run. One line per pass; keep the names equal to
// each pass's name().
const PassEntry kPasses[] = {
    {"algebraic-simplifier", "rewrite rules: identities, no-op shape ops, ...",
     Make<AlgebraicSimplifier>},
    {"algebraic-simplifier-bitcasts",
     "algebraic-simplifier, also turning layout-preserving reshapes and "
     "transposes into bitcasts",
     MakeBitcastingSimplifier},
    {"call-inliner", "inline every call", Make<CallInliner>},
    {"constant-folding", "evaluate instructions whose operands are constants",
     Make<ConstantFolding>},
    {"async-collectives-to-sync",
     "all-reduce-start/done and the other asynchronous collective pairs "
     "as one synchronous collective",
     Make<AsyncCollectivesToSync>},
    {"cholesky-expander",
     "cholesky as a while loop of column updates (GPUs, AArch64)",
     Make<CholeskyExpander>},
    {"collective-layout",
     "all-gathers, reduce-scatters and all-to-alls transposed so that they "
     "move along their most major dimension (flat chunks)",
     Make<CollectiveLayout>},
    {"convolution-layout",
     "convolutions transposed and padded into the channels-last or "
     "channels-first forms cuDNN reads in place (CUDA)",
     Make<ConvolutionLayout>},
    {"convolution-to-gemm",
     "convolutions as im2col (pad, strided slices, concatenate) and one dot, "
     "so that the dot is a gemm call (CUDA)",
     Make<ConvolutionToGemm>},
    {"cse", "merge identical instructions",
     Make<CommonSubexpressionElimination>},
    {"cudnn-convolution-calls",
     "XLA:GPU's __cudnn$convForward custom calls back as convolutions",
     Make<CudnnConvolutionCalls>},
    {"dce", "remove unused instructions and computations",
     Make<DeadCodeElimination>},
    {"dot-convert-folding",
     "a dot reads exactly widened operands (bf16 -> f32, s8 -> s32) itself "
     "instead of their converts (as the CPU's dot does; the GPU pipelines "
     "fold only what their gemms read)",
     Make<DotConvertFolding>},
    {"dot-operand-order",
     "dot operands transposed to [batch, free, contracting] where they are "
     "no strided batch of matrices, so the dot can be a gemm call (GPU)",
     Make<DotOperandOrder>},
    {"dot-tf32-operand-layout",
     "the smaller operand of a large TF32 dot whose operands both keep the "
     "contracting dimension major transposed to K-major (cuda)",
     Make<DotTf32OperandLayout>},
    {"float8-normalization",
     "8-bit float arithmetic computed in f32 and rounded back after each "
     "op (the code generators only move and convert 8-bit floats)",
     Make<Float8Normalization>},
    {"sub-byte-normalization",
     "s4/u4/s2/u2 arithmetic computed in 8 bits and wrapped back after each "
     "op (the code generators only move and convert sub-byte integers)",
     Make<SubByteNormalization>},
    {"float-normalization",
     "excess precision: bf16 elementwise arithmetic computed in f32 and "
     "rounded after each op (simplify-fp-conversions then drops the "
     "roundings between ops)",
     Make<FloatNormalization>},
    {"dot-prologue-fusion",
     "cheap producers of a dot's operands fused into a kOutput fusion with "
     "the dot, computed as its kernel loads them (rocm's form; the cpu "
     "pipeline takes only views and converts, cuda none)",
     MakeDotPrologueFusion},
    {"host-callbacks",
     "refuse JAX's Python host callbacks (jax.debug.print, pure_callback, "
     "...), naming each: hloc runs no Python (the platform pipelines start "
     "with it)",
     Make<HostCallbacks>},
    {"drop-host-callbacks",
     "drop JAX's Python host callbacks whose results are unused "
     "(jax.debug.print, jax.debug.callback, io_callback without results), "
     "one notice line each on stderr; refuse the others "
     "(--drop-debug-callbacks)",
     MakeDropHostCallbacks},
    {"instruction-fusion",
     "producer-consumer fusion into kLoop and kInput (reduction) fusions",
     Make<InstructionFusion>},
    {"gesvd-to-gesvdj",
     "JAX's cusolver_gesvd_ffi call as its cusolver_gesvdj_ffi call and "
     "transposes (cuda)",
     Make<GesvdToGesvdj>},
    {"multi-output-fusion", "sibling and producer-consumer multi-output fusion",
     Make<MultiOutputFusion>},
    {"radix-sort-rewriter",
     "sorts of rows of 1024 or more by a key order (jnp.sort, argsort) as "
     "the GPU radix sort custom call",
     Make<RadixSortRewriter>},
    {"ragged-dot-expander",
     "ragged-dot as masked copies of its operands and one dot",
     Make<RaggedDotExpander>},
    {"reduce-window-to-scan",
     "prefix reduce-windows (cumsum, cumprod, cummax, ...) as associative "
     "scans (GPU)",
     Make<ReduceWindowToScan>},
    {"rng-bit-generator-expander",
     "rng-bit-generator (threefry, philox) as iota, u32/u64 adds, xors, "
     "shifts and multiplies, compiled like any elementwise code",
     Make<RngBitGeneratorExpander>},
    {"row-reduction-fusion",
     "row reductions with their prologue and epilogue as one kernel (GPU)",
     Make<RowReductionFusion>},
    {"schedule-remover",
     "drop the module's schedule (the platform pipelines start with it)",
     Make<ScheduleRemover>},
    {"sharding-remover",
     "drop Sharding / SPMD shape custom calls (identities on one device)",
     Make<ShardingRemover>},
    {"simplify",
     "call-inliner, sharding-remover, then all simplification passes to a "
     "fixed point",
     MakeSimplify},
    {"simplify-fp-conversions",
     "excess precision: widened bf16/f16 dots computed in f32, float convert "
     "chains collapsed (XLA's xla_allow_excess_precision)",
     Make<SimplifyFpConversions>},
    {"concatenate-splitter",
     "concatenates of over 128 operands as a tree of concatenates of at most "
     "128 (GPU: a kernel's parameters hold 544 pointers)",
     Make<ConcatenateSplitter>},
    {"sort-splitter",
     "sort rows longer than the GPU sort kernel's 8192 as a bitonic merge "
     "sort: sorts of 8192-chunks and elementwise merge steps",
     Make<SortSplitter>},
    {"scatter-winners",
     "assignment scatters whose indices repeat as a parallel max of each "
     "element's last scatter position and a scatter of those alone (GPU: "
     "the serial order without a serial walk)",
     Make<ScatterWinners>},
    {"topk-expander",
     "topk as a stable sort of (values, iota) and a slice (CPU: sort code, "
     "no topk kernel)",
     Make<TopKExpander>},
    {"topk-splitter",
     "topk rows longer than the GPU sort kernel's 8192 as a topk per chunk "
     "and a sort of the candidates (XLA's TopkSplitter)",
     Make<TopKSplitter>},
    {"dot-algorithm-operands",
     "f32 dots whose algorithm reads bf16 or f16 operands "
     "(dot_bf16_bf16_f32, dot_f16_f16_f32) given the rounded operands "
     "(GPU, as XLA:GPU runs them)",
     Make<DotAlgorithmOperands>},
    {"dot-strength-reduction",
     "vector and small dots as a multiply of broadcasts and a reduce, which "
     "fuse with their neighbours instead of a library call each (GPU; "
     "XLA's DotStrengthReduction)",
     Make<DotStrengthReduction>},
    {"reduction-splitter",
     "reductions over several runs of dimensions as one reduce per run, "
     "the largest first, so each is a row or column reduction (GPU; "
     "XLA's ReductionSplitter)",
     Make<ReductionSplitter>},
    {"tree-reduction",
     "long reductions into few outputs split in two reduces, so that a GPU "
     "kernel has blocks for every SM (XLA's TreeReductionRewriter)",
     Make<TreeReduction>},
    {"triangular-solve-expander",
     "triangular-solve as a while loop of row substitutions (GPUs, AArch64)",
     Make<TriangularSolveExpander>},
    {"orgqr-expander",
     "JAX's GPU orgqr (cusolver_orgqr_ffi) of batches of small matrices as "
     "a loop of Householder reflections over the whole batch",
     Make<OrgqrExpander>},
    {"tridiagonal-solve-expander",
     "JAX's GPU tridiagonal solves (cusparse_gtsv2_ffi, hipsparse_gtsv2_ffi) "
     "as parallel cyclic reduction",
     Make<TridiagonalSolveExpander>},
    {"csr-sparse-dense-expander",
     "jaxlib's CPU sparse-dense product (cpu_csr_sparse_dense_ffi) as a "
     "gather, a scale and a scatter-add by row",
     Make<CsrSparseDenseExpander>},
    {"single-device-collectives",
     "SPMD collectives (with a channel id) in which every device takes part "
     "alone (shard_map over a mesh axis of size 1) as their operands; "
     "partition-id of one partition as 0",
     Make<SingleDeviceCollectives>},
    {"while-trip-count-annotator",
     "counted while loops' trip counts in their backend_config "
     "(known_trip_count), so a runtime runs the body that many times "
     "without reading the condition back",
     Make<WhileTripCountAnnotator>},
    {"transpose-bitcasts",
     "transposes whose result layout keeps the operand's bytes in order as "
     "bitcasts, outside fusions (GPU, after fusion)",
     Make<TransposeBitcasts>},
    {"tuple-simplifier", "gte(tuple) and tuple(gte...) round trips",
     Make<TupleSimplifier>},
    {"tuple-layout",
     "a copy where a tuple element's layout differs from its operand's",
     Make<TupleLayout>},
    {"control-flow-layout",
     "copies where a while's loop state, a conditional's operands or "
     "results, or a get-tuple-element's element change layout",
     Make<ControlFlowLayout>},
    {"custom-call-layout",
     "a copy where a custom call's operand_layout_constraints ask for "
     "another layout than its operand's (cuda)",
     Make<CustomCallLayout>},
    {"library-layout",
     "an fft's or triangular-solve's operands and result copied to and "
     "from row-major layouts (cuFFT and cuBLAS's trsm read and write them "
     "row-major; cuda)",
     Make<LibraryLayout>},
};

constexpr absl::string_view kFixedPoint = "fixed-point";

// A recursive-descent reader of pass lists:
//   list  := item (',' item)*
//   item  := name | "fixed-point" '(' list ')'
class PassListParser {
 public:
  explicit PassListParser(absl::string_view text) : text_(text) {}

  absl::Status ParseInto(HloPassPipeline* pipeline) {
    absl::Status status = ParseList(pipeline);
    if (!status.ok()) return status;
    SkipSpaces();
    if (pos_ != text_.size()) return Error("expected ',' or the end");
    return absl::OkStatus();
  }

 private:
  absl::Status ParseList(HloPassPipeline* pipeline) {
    while (true) {
      absl::Status status = ParseItem(pipeline);
      if (!status.ok()) return status;
      SkipSpaces();
      if (pos_ < text_.size() && text_[pos_] == ',') {
        ++pos_;
        continue;
      }
      return absl::OkStatus();
    }
  }

  absl::Status ParseItem(HloPassPipeline* pipeline) {
    SkipSpaces();
    size_t start = pos_;
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) ||
            text_[pos_] == '-' || text_[pos_] == '_')) {
      ++pos_;
    }
    absl::string_view name = text_.substr(start, pos_ - start);
    if (name.empty()) return Error("expected a pass name");
    SkipSpaces();
    if (name == kFixedPoint) {
      if (pos_ >= text_.size() || text_[pos_] != '(') {
        return Error("expected '(' after fixed-point");
      }
      ++pos_;
      HloPassPipeline* group = pipeline->AddFixedPoint(std::string(name));
      absl::Status status = ParseList(group);
      if (!status.ok()) return status;
      SkipSpaces();
      if (pos_ >= text_.size() || text_[pos_] != ')') {
        return Error("expected ')' to close fixed-point(");
      }
      ++pos_;
      return absl::OkStatus();
    }
    absl::StatusOr<std::unique_ptr<HloPass>> pass = CreatePass(name);
    if (!pass.ok()) return pass.status();
    pipeline->AddPass(std::move(*pass));
    return absl::OkStatus();
  }

  void SkipSpaces() {
    while (pos_ < text_.size() &&
           std::isspace(static_cast<unsigned char>(text_[pos_]))) {
      ++pos_;
    }
  }

  absl::Status Error(absl::string_view what) const {
    return absl::InvalidArgumentError(absl::StrCat(
        "bad pass list '", text_, "' at column ", pos_ + 1, ": ", what));
  }

  absl::string_view text_;
  size_t pos_ = 0;
};

}  // namespace

absl::StatusOr<std::unique_ptr<HloPass>> CreatePass(absl::string_view name) {
  for (const PassEntry& entry : kPasses) {
    if (name == entry.name) return entry.create();
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown pass '", name,
      "'; known passes: ", absl::StrJoin(ListPasses(), ", "), ", and ",
      kFixedPoint, "(...) to run a list to a fixed point"));
}

std::vector<std::string> ListPasses() {
  std::vector<std::string> names;
  for (const PassEntry& entry : kPasses) names.push_back(entry.name);
  return names;
}

std::string DescribePasses() {
  std::string out;
  for (const PassEntry& entry : kPasses) {
    absl::StrAppendFormat(&out, "  %-32s %s\n", entry.name, entry.summary);
  }
  return out;
}

absl::StatusOr<HloPassPipeline> PipelineFromPassList(absl::string_view list) {
  HloPassPipeline pipeline("pass-list");
  absl::Status status = PassListParser(list).ParseInto(&pipeline);
  if (!status.ok()) return status;
  return pipeline;
}

}  // namespace hloc
