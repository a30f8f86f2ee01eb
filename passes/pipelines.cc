#include "passes/pipelines.h"

#include <functional>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "passes/async_collectives_to_sync.h"
#include "passes/cholesky_expander.h"
#include "passes/collective_layout.h"
#include "passes/concatenate_splitter.h"
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
#include "passes/simplification.h"
#include "passes/simplify_fp_conversions.h"
#include "passes/sort_splitter.h"
#include "passes/sub_byte_normalization.h"
#include "passes/topk_splitter.h"
#include "passes/transpose_bitcasts.h"
#include "passes/tree_reduction.h"
#include "passes/triangular_solve_expander.h"
#include "passes/tridiagonal_solve_expander.h"
#include "passes/tuple_layout.h"
#include "passes/while_trip_count_annotator.h"

namespace hloc {
namespace {

// Whether `platform`'s own grouped-matmul kernel (the GPUs' tiled dot
// kernel, backends/gpu/tiled_dot_emitter.cc) computes a ragged-dot of the
// form it takes, instead of the expansion's masked copies and one dot of g
// times the arithmetic. On rocm dots are tiled kernels anyway: always. On
// cuda the expansion's dot is a cuBLAS gemm, which runs faster per flop
// than the kernel (mma.sync with asynchronous staging for f16/bf16, an FMA
// loop for f32 and f64), so the kernel wins from a few groups on. Measured
// on an H100 (lhs [4096, 1024], rhs [g, 1024, 2048] and the weight
// gradient, tools/gpu_bench/RESULTS.md): bf16 kernel 123-161 us for g =
// 2-32 (session 33), expansion 61 us at g = 2 growing ~22 us per group:
// level at g = 3 (the weight gradient: 129-295 against 85 at g = 2, level
// at 3 too); f32 kernel 944-1806 us for g = 4-64, expansion ~42 us per
// group: level at g = 32 (session 32). f64 (cuBLAS's DGEMM against the FMA
// loop) is not measured: the f16/bf16 kernel's old rule, from 16 groups.
// And whatever the groups, once the expansion's g copies of the lhs would
// pass 256 MiB.
bool GpuGroupedMatmul(absl::string_view platform, const HloInstruction& instr,
                      const RaggedDotGeometry& g) {
  if (!IsGroupedMatmul(instr.operand(0)->shape(), instr.operand(2)->shape(),
                       g)) {
    return false;
  }
  for (const Shape* s : {&instr.shape(), &instr.operand(0)->shape(),
                         &instr.operand(1)->shape()}) {
    if (s->element_type() == PRED || IsComplexType(s->element_type())) {
      return false;
    }
  }
  if (platform == "rocm") return true;
  const Shape& lhs = instr.operand(0)->shape();
  const int64_t copies_bytes =
      g.num_groups * lhs.ElementCount() * ByteWidth(lhs.element_type());
  if (copies_bytes > (int64_t{256} << 20)) return true;
  switch (lhs.element_type()) {
    case F16:
    case BF16:
      return g.num_groups >= 4;
    case F64:
      return g.num_groups >= 16;
    case F32:
      return g.num_groups >= 32;
    default:  // integer dots are tiled kernels on cuda too
      return true;
  }
}

// Whether the cuda pipeline leaves a triangular-solve for cuBLAS's trsm
// (the runtime's cublas.trsm step, as XLA:GPU calls it) instead of
// expanding it. The expansion's inverse by recursive doubling is a few
// fused kernels in the run's graph and no library call, and beats trsm
// calls for small triangles; past a hundred rows its log2(m) levels of
// kernels cost more. On an H100 (tools/gpu_bench/RESULTS.md), the same
// modules both ways: 33 solves of 64 to 96 rows 679 us by trsm against
// 439 inverted (session 37), 31 of 128 to 160 rows 1082 against 569
// (session 38); six 192 x 192 solves (big_linalg) 1252 against 1308 and
// 1248 against 1304, eight of 256 and 320 rows 1241 against 1268 and 1245
// against 1266 (sessions 37 and 38). So trsm from 192 rows, the smallest
// size where it won in a program that solves with a fresh factorization.
// Not everywhere: trsm_forms' 31 solves of 192 to 208 rows, most with one
// of a few shared triangles (whose inverses CSE computes once, all in one
// graph), ran 1612 us as trsm calls against 808 inverted (session 38).
// cuBLAS has no bf16 or f16 trsm: those expand, computing in f32.
constexpr int64_t kCublasTrsmMinOrder = 192;

bool CudaCallsTrsm(const HloInstruction& solve) {
  const Shape& a = solve.operand(0)->shape();
  switch (a.element_type()) {
    case F32:
    case F64:
    case C64:
    case C128:
      break;
    default:
      return false;
  }
  return a.IsArray() && a.rank() >= 2 &&
         a.dimensions(a.rank() - 1) >= kCublasTrsmMinOrder;
}

}  // namespace

std::vector<std::string> ListPlatforms() { return {"cpu", "cuda", "rocm"}; }

absl::StatusOr<FusionOptions> FusionOptionsForPlatform(
    absl::string_view platform) {
  // Every backend emits every fusion shape but three; what a dot's prologue
  // may hold differs too.
  FusionOptions options;
  // Reduction epilogues only where the reduction kernels compute them (the
  // GPUs' row and column reduction kernels and row fusions); the CPU's
  // reduction loops write reduce results only, so there an epilogue fusion
  // would only run as a slow loop that reduces per output element.
  options.reduction_epilogue_fusion = platform == "cuda" || platform == "rocm";
  // Scan fusions likewise (fusion_kinds.h): the GPUs' scan kernels read
  // their operands through the fused computation, so the broadcast init of
  // every cumsum and a convert of its input are no kernels of their own
  // there; the CPU's scan loop reads buffers.
  options.scan_fusion = platform == "cuda" || platform == "rocm";
  // And scatter fusions: the scatter's copy of operand 0 computes it (the
  // zeros of jnp.zeros(n).at[i].add(u) are written once, not written,
  // read and written again) and its update kernel the updates.
  options.scatter_fusion = platform == "cuda" || platform == "rocm";
  if (platform == "cuda") {
    // Prologues only into dots the tensor-core tiled kernel computes, and
    // only up to 256^3: on the H100 (tools/gpu_bench/MODELS.md, session
    // 10), f32 values rounded to bf16 into an n^3 dot took, as one tiled
    // kernel against two convert kernels and a cuBLASLt call, 3.6 against
    // 7.8 us at n = 128 and 5.4 against 16.2 at 256, but 10.8 against 8.2
    // at 512 and 35.1 against 12.6 at 1024, where cuBLASLt's arithmetic
    // outweighs the two extra kernels.
    options.dot_prologue_max_flops = int64_t{2} * 256 * 256 * 256;
    options.dot_prologue_matrix_types_only = true;
    return options;
  }
  if (platform == "cpu") {
    // The packing GEMM reads views and converts of its operands at any
    // size (dot_emitter.cc).
    options.dot_prologue_max_flops = std::numeric_limits<int64_t>::max();
    options.dot_prologue_views_only = true;
    return options;
  }
  if (platform == "rocm") {
    // Every rocm dot is the tiled kernel already: a prologue only saves
    // the operands' round trip through memory, at any size.
    options.dot_prologue_max_flops = std::numeric_limits<int64_t>::max();
    return options;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown platform '", platform,
                   "' (known: ", absl::StrJoin(ListPlatforms(), ", "), ")"));
}

absl::StatusOr<HloPassPipeline> MakePipeline(absl::string_view platform,
                                             const PipelineOptions& options,
                                             FusionReport* report) {
  absl::StatusOr<FusionOptions> fusion = FusionOptionsForPlatform(platform);
  if (!fusion.ok()) return fusion.status();

  HloPassPipeline pipeline(absl::StrCat(platform, "-hlo"));
  pipeline.set_options(options);
  // hloc runs no Python: JAX's host callbacks are refused, or dropped on
  // request where their results are unused, before any work is done.
  pipeline.AddPass<HostCallbacks>(options.drop_debug_callbacks);
  pipeline.AddPass<ScheduleRemover>();
  // XLA:GPU's start/done pairs: every runtime issues a collective as one
  // step.
  pipeline.AddPass<AsyncCollectivesToSync>();
  // XLA:GPU's cuDNN forward calls (in modules it optimised) are
  // convolutions again, for every backend to compile its own way.
  pipeline.AddPass<CudnnConvolutionCalls>();
  // No backend has an rng-bit-generator kernel: its HLO form (the
  // generator's rounds mapped over iota counters) compiles like any
  // elementwise code.
  pipeline.AddPass<RngBitGeneratorExpander>();
  // ragged-dot (JAX's lowering of lax.ragged_dot for GPUs) is masks and
  // one dot, as XLA expands it, where no grouped-matmul kernel takes it:
  // the CPU has none, the GPUs' tiled dot kernel does where it pays.
  if (platform == "cuda" || platform == "rocm") {
    const std::string name(platform);
    pipeline.AddPass<RaggedDotExpander>(
        [name](const HloInstruction& instr, const RaggedDotGeometry& g) {
          return GpuGroupedMatmul(name, instr, g);
        });
  } else {
    pipeline.AddPass<RaggedDotExpander>();
  }
  // Nor a tridiagonal solver: JAX's GPU calls to cuSPARSE's
  // (cusparse_gtsv2_ffi) are cyclic reduction in HLO on every backend.
  pipeline.AddPass<TridiagonalSolveExpander>();
  // Nor jaxlib's CPU sparse-dense product (cpu_csr_sparse_dense_ffi, a
  // BCSR matrix times a dense one): a gather, a scale and a scatter-add.
  pipeline.AddPass<CsrSparseDenseExpander>();
  // The HLO cholesky op becomes a loop of GPU kernels (the CPU calls
  // LAPACK; JAX's own Cholesky is a cuSOLVER custom call). On cuda the
  // larger triangular-solves are cuBLAS's trsm (CudaCallsTrsm); the rest,
  // and all of rocm's, the inverse of the triangle by recursive doubling
  // and a dot, with no loop: a loop iteration costs the host some
  // microseconds whatever it does, and a solve by substitution takes m of
  // them (session 24's H200 survey: big_linalg's six 192 x 192 solves,
  // 1160 iterations, ran 30x slower than XLA:GPU's trsm calls). Up to m =
  // 4096 the inverse's O(m^3) arithmetic (about 45 GFLOP at 4096, under a
  // millisecond at the H100's f32 rate) still beats m iterations of a few
  // microseconds.
  // cuSOLVER has no batched orgqr: a batch of small ones is one loop over
  // the reflectors for all matrices at once (orgqr_expander.h); before
  // dot strength reduction, which fuses its vector products.
  if (platform == "cuda") pipeline.AddPass<OrgqrExpander>();
  if (platform == "cuda" || platform == "rocm") {
    pipeline.AddPass<CholeskyExpander>();
    pipeline.AddPass<TriangularSolveExpander>(
        /*max_inverse_size=*/4096,
        platform == "cuda" ? CudaCallsTrsm
                           : std::function<bool(const HloInstruction&)>());
    // A vector or tiny dot costs a GPU a library call (or a tiled kernel)
    // of a few microseconds for little arithmetic, and on cuda splits the
    // CUDA graph around it; as a multiply and a reduce it fuses with its
    // neighbours (a recurrent cell's products inside its scan's body).
    // Before simplification, which tidies the transposes and converts.
    pipeline.AddPass<DotStrengthReduction>();
  }
  // jnp.linalg.svd past 1024 rows or columns is JAX's gesvd call, which
  // the cuda runtime does not implement: its Jacobi call, which it does,
  // and transposes (before simplification, which tidies them).
  if (platform == "cuda") pipeline.AddPass<GesvdToGesvdj>();
  // BF16_BF16_F32 and F16_F16_F32 dots of f32 arrays are narrow gemms on
  // the GPUs, as XLA:GPU runs them; XLA:CPU computes them in f32, and so
  // does the cpu backend.
  if (platform == "cuda" || platform == "rocm") {
    pipeline.AddPass<DotAlgorithmOperands>();
  }
  pipeline.AddPass(MakeSimplificationPipeline());
  // The code generators only move and convert 8-bit floats and sub-byte
  // integers.
  pipeline.AddPass<Float8Normalization>();
  pipeline.AddPass<SubByteNormalization>();
  if (options.allow_excess_precision) {
    pipeline.AddPass<FloatNormalization>();
    // XLA:CPU keeps the roundings a program writes (x.astype(f16) saturates
    // to inf even when widened again); only its own widening's go.
    pipeline.AddPass<SimplifyFpConversions>(
        platform == "cpu" ? SimplifyFpConversions::Scope::kCompilerRoundings
                          : SimplifyFpConversions::Scope::kAllChains,
        platform == "cuda"
            ? SimplifyFpConversions::Contractions::kDots
            : SimplifyFpConversions::Contractions::kDotsAndConvolutions);
  }
  // A dot reads exactly widened operands itself (mixed-precision JAX code
  // writes x.astype(f32) @ w.astype(f32)): the converts' kernels and their
  // wide copies go, as XLA fuses them into its gemms. Exact, so it does not
  // depend on excess precision; which types each target's dot reads is
  // DotOperandReads's business.
  pipeline.AddPass<DotConvertFolding>(
      platform == "cpu"    ? DotOperandReads::kEachOperandAnyType
      : platform == "cuda" ? DotOperandReads::kCublasLtTypes
                           : DotOperandReads::kBothOperandsOneType);
  // A tuple holds its operands' buffers: an element in another layout
  // than its operand's needs a copy (before fusion, which may fuse it).
  pipeline.AddPass<TupleLayout>();
  // So does a while's loop state, a conditional's operands and results and
  // a get-tuple-element's element: one layout across each boundary.
  pipeline.AddPass<ControlFlowLayout>();
  // cuSOLVER's calls read column-major matrices (their
  // operand_layout_constraints); the CPU's LAPACK calls read any layout.
  if (platform == "cuda") pipeline.AddPass<CustomCallLayout>();
  // cuFFT reads and writes row-major arrays, cuBLAS's trsm column-major
  // matrices (library_layout.h).
  if (platform == "cuda") pipeline.AddPass<LibraryLayout>();
  // Every runtime gathers, scatters and exchanges flat chunks.
  pipeline.AddPass<CollectiveLayout>();
  // On CUDA, convolutions are cuDNN calls, in the tensor orders cuDNN
  // reads in place, except weight gradients, which cuDNN's forward
  // convolution runs slowly and a gemm does not (convolution_to_gemm.h);
  // a grouped convolution's (batch groups) is a backward-filter call;
  // ROCm has no convolution library here (no MIOpen in Debian) and the
  // CPU has its own convolution emitter.
  if (platform == "cuda") {
    pipeline.AddPass<ConvolutionToGemm>(CudaConvolutionToGemmOptions());
    pipeline.AddPass<ConvolutionLayout>();
  }
  // ROCm has no convolution library, but its dots are tiled GEMM kernels
  // (backends/gpu/tiled_dot_emitter.cc, MFMA on CDNA): a convolution large
  // enough to pay for its im2col copy runs as one of them, the rest stay
  // direct loop kernels (the pass's thresholds).
  if (platform == "rocm") pipeline.AddPass<ConvolutionToGemm>();
  // GPU reduction kernels need a block per SM and more, and GPU dots are
  // library gemms; the CPU splits a reduction over its rows in its own
  // way, and its dot emitter reads any dimension order. The GPU topk
  // kernel sorts rows of up to 8192 in shared memory: longer ones are split
  // into chunks, and long sorts become merge sorts of such rows.
  // Cumulative ops (prefix reduce-windows, O(n^2) as windows) become scans
  // on every target: the GPU runs them as parallel prefix scans, the CPU
  // as one sequential pass per row, rows in parallel.
  pipeline.AddPass<ReduceWindowToScan>(options.allow_excess_precision);
  if (platform == "cuda" || platform == "rocm") {
    pipeline.AddPass<TopKSplitter>();
    // Sorts of rows of 1024 or more by a key order are radix sorts; other
    // sorts of rows over 8192 merge.
    pipeline.AddPass<RadixSortRewriter>();
    pipeline.AddPass<SortSplitter>();
    // A kernel's operands are its parameters, at most 4352 bytes of them.
    pipeline.AddPass<ConcatenateSplitter>();
    // Assignment scatters whose indices may repeat keep their serial
    // result without a serial walk.
    pipeline.AddPass<ScatterWinners>();
    // The reduction kernels take reduced dimensions that are one run; the
    // others become one reduce per run, which tree-reduction then sizes.
    pipeline.AddPass<ReductionSplitter>();
    pipeline.AddPass<TreeReduction>();
    pipeline.AddPass<DotOperandOrder>();
    // Hopper's TF32 tensor cores read K-major tiles only.
    if (platform == "cuda") pipeline.AddPass<DotTf32OperandLayout>();
  }
  // The layout passes above give each use its own transpose or copy: a
  // value two convolutions read channels last (a depthwise convolution's
  // input and its filter gradient's) got two identical transposes, whose
  // identical fusions then each took the value's whole elementwise
  // producer chain and, merged as siblings, wrote the same array twice.
  // One more CSE makes them one, as XLA's runs after its layout
  // assignment.
  pipeline.AddPass<CommonSubexpressionElimination>();
  // The CPU runs topk as a library call (runtime/cpu_topk.h); its AArch64
  // AOT compiler, which has none, applies topk-expander itself.
  // Counted loops (scans, fori_loops, the linalg expanders' row loops) get
  // their trip counts while their counters are still plain compares and
  // adds, before fusion hides them: host-driven loops then run without
  // reading the condition back (a GPU round trip per iteration).
  pipeline.AddPass<WhileTripCountAnnotator>();
  if (fusion->row_reduction_fusion) {
    pipeline.AddPass<RowReductionFusion>(*fusion, report);
  }
  if (fusion->dot_prologue_max_flops > 0) {
    pipeline.AddPass<DotPrologueFusion>(*fusion, report);
  }
  pipeline.AddPass<InstructionFusion>(*fusion, report);
  pipeline.AddPass<MultiOutputFusion>(*fusion, report);
  pipeline.AddPass<DeadCodeElimination>();
  // A GPU kernel for a transpose that keeps the bytes in order would copy
  // the whole array.
  if (platform == "cuda" || platform == "rocm") {
    pipeline.AddPass<TransposeBitcasts>();
  }
  return pipeline;
}

}  // namespace hloc
