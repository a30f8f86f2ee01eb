// The fusion cost model: the one place that says which ops may fuse, which
// may be duplicated, what fusing saves, and the limits. Every decision comes
// with the sentence that explains it ("fused: ...", "not fused: ..."), which
// the passes put into the FusionReport.
//
// The rules, in the order ShouldFuse applies them:
//  1. Never fused: side effects (collectives, infeed/outfeed, rng, send/recv,
//     side-effecting custom calls), library calls (dot, convolution, fft,
//     triangular-solve, cholesky, custom-call), sort, control flow (while,
//     conditional, call), in-place updates as producers
//     (dynamic-update-slice, scatter), and reductions as producers (their
//     consumers need the complete result: a barrier), except reductions over
//     size-1 dimensions, which are reshapes in disguise.
//  2. Consumers: loop-fusible ops, reduce (a reduction fusion),
//     reduce-window, dynamic-update-slice (only into its update and index
//     operands: operand 0 is updated in place), and existing fusions of the
//     four kinds of fusion_kinds.h. Not scatter (for now), not sort, not
//     dot (its operands are fused only by dot-prologue-fusion, below), not
//     tuples.
//  3. Dot epilogues (option): a dot whose only user is an elementwise loop
//     consumer of the dot's shape becomes a kOutput fusion.
//     Reduction epilogues (option: the GPUs): a reduce, or a reduction
//     fusion with one output, whose only user is an elementwise consumer
//     (an op or a loop fusion) over the reduce's result joins it in the
//     kInput fusion (fusion_kinds.h, kReduction): the convert back to bf16
//     of JAX's f32 sums, a mean's divide. The thread that writes an output
//     element computes the epilogue first; a kernel launch and a round trip
//     of the result through memory are saved. A reduction with other users
//     stays a barrier (its result is needed in memory anyway).
//     Dot prologues (option: ROCm, and views and converts on the CPU): the
//     cheap producers of a dot's operands fuse into the dot
//     (ShouldFuseIntoDotPrologue), computed by the dot's kernel as it
//     loads its operands instead of by kernels of their own.
//  4. Duplication: a producer with consumers outside this one is fused by
//     copying it. Cheap ops (elementwise arithmetic, compare/select, convert,
//     broadcast, reshape/bitcast, transpose, slice, concatenate, pad,
//     reverse, iota, constants, small gathers) may be copied; expensive ones
//     (exp, log, tanh, logistic, erf, divide, remainder, power, sqrt/rsqrt,
//     cbrt, trigonometry, large gathers) are not: each copy recomputes them.
//     A copy must not read more than kMaxDuplicationReadFactor times the
//     bytes it replaces.
//  5. Re-reads: every read of a fused producer's element recomputes it, so
//     an expensive producer is not fused into a consumer that reads each
//     element more than kMaxExpensiveRecompute times (a broadcast that
//     expands, a reduce-window with overlapping windows, gathers with
//     repeated indices). A row-reduction fusion reads an input once per
//     pass that needs it (a reduction's pass, the output pass): softmax's
//     exp fused into it is computed twice per element, which is still far
//     cheaper on a GPU than writing and reading it back.
//  6. Limits: at most max_operands fusion parameters and
//     max_fused_instructions instructions per fusion (code growth), and a
//     producer's code emitted at most kMaxProducerEmissions times by its
//     consumer's kernel (ProducerEmissions).
#ifndef PASSES_FUSION_COST_MODEL_H_
#define PASSES_FUSION_COST_MODEL_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "hlo/instruction.h"

namespace hloc {

// Defaults are the GPU's; FusionOptionsForPlatform (passes/pipelines.h) turns
// the GPU-only shapes off for the CPU.
struct FusionOptions {
  int64_t max_operands = 64;
  int64_t max_fused_instructions = 500;
  // Largest producer (in fused instructions) that may be duplicated.
  int64_t max_duplicated_instructions = 32;
  // kOutput fusions of a dot and its elementwise epilogue (GPU).
  bool dot_epilogue_fusion = true;
  // kCustom row-reduction fusions (GPU); see fusion_kinds.h.
  bool row_reduction_fusion = true;
  // Elementwise consumers of a reduction fused into its kInput fusion as an
  // epilogue (rule 3). Off unless a pipeline turns it on: only the GPU's
  // reduction emitters compute an epilogue (FusionOptionsForPlatform).
  bool reduction_epilogue_fusion = false;
  // kScan fusions (fusion_kinds.h): a scan's operand producers computed by
  // its kernel. Off unless a pipeline turns it on: the GPUs' scan kernels
  // read their operands through the fused computation, the CPU's scan loop
  // reads buffers (FusionOptionsForPlatform).
  bool scan_fusion = false;
  // kScatter fusions (fusion_kinds.h), likewise GPU only: the CPU's
  // scatter loop reads buffers too.
  bool scatter_fusion = false;
  // Dot prologues (dot-prologue-fusion): cheap producers of a dot's
  // operands computed by the dot's kernel as it loads its operands, for
  // dots of at most this many flops (2*m*n*k*batch); 0: never. ROCm's dots
  // are all the tiled kernel and the CPU's its packing GEMM: no limit
  // there. CUDA's dots are cuBLASLt calls, and a prologue moves a dot to
  // the tiled kernel, which pays only where launches and the operands'
  // round trip through memory outweigh cuBLASLt's faster arithmetic: small
  // dots (the limit and its measurement are in pipelines.cc).
  int64_t dot_prologue_max_flops = 0;
  // Only dots the tiled kernel computes with a matrix instruction take a
  // prologue: f16 or bf16 operands of one type, an f32 or same-type
  // result (CUDA: its CUDA-core tiles lost to cuBLASLt at every size
  // measured, an f32 128^3 dot with bf16 roundings 14.8 us against 12.3).
  bool dot_prologue_matrix_types_only = false;
  // Only views and converts of a buffer join a prologue (the CPU: its GEMM
  // packs operands through strides, converting each element, so a
  // broadcast, a transpose, a layout copy or a convert costs nothing there;
  // arithmetic would be recomputed for every panel).
  bool dot_prologue_views_only = false;
};

// An expensive producer's element may be computed at most this many times
// by its consumer.
inline constexpr int64_t kMaxExpensiveRecompute = 3;
// A fused producer's code may be emitted at most this many times by its
// consumer's kernel: XLA's limit on code duplication (its
// FusionNodeIndexingEvaluation allows 15). Without it a chain of
// butterflies (each stage's two halves read through slices of the last
// stage's concatenation: the bitonic merges of sort-splitter, an FFT
// written in jnp) fused into one kernel whose code grew 4-fold with every
// stage: 144 MB of LLVM IR and 7 minutes of compilation for one
// f32[100000] sort.
inline constexpr int64_t kMaxProducerEmissions = 15;
// A copy may read at most this many times the bytes of the value it replaces.
inline constexpr int64_t kMaxDuplicationReadFactor = 4;
// Gathers producing more elements than this are expensive to duplicate.
inline constexpr int64_t kCheapGatherElements = 1024;

enum class OpCost { kFree, kCheap, kExpensive };

// Per-element cost of an op; a fusion costs what its costliest fused op
// costs.
OpCost CostOf(const HloInstruction& instr);

// "exp.1 (exponential)".
std::string Describe(const HloInstruction& instr);

// Dense bytes of a shape (tuples: the sum of their leaves).
int64_t BytesOf(const Shape& shape);

// Why `producer` can never be fused into a consumer, or nullopt if it can
// (it is loop-fusible, or a kLoop/kDotEpilogue fusion).
std::optional<std::string> WhyNotFusibleProducer(
    const HloInstruction& producer);
// Why nothing can be fused into `consumer`, or nullopt if producers can be.
std::optional<std::string> WhyNotFusibleConsumer(
    const HloInstruction& consumer);

class EmissionCounter;  // cost_model.cc

// What the emission counts below work out about a fusion's fused
// computation, whichever producer they are asked about, kept by the
// fusion's unique id: a pass asking about many producers of one fusion, or
// about one fusion many times, counts its computation once instead of once
// a question (instruction-fusion asked again about every operand of a
// fusion after each producer it grew by; multi-output-fusion about every
// pair after each merge). An entry is valid while the fusion with that id
// keeps its fused computation unchanged: a pass that changes one in place
// (FuseProducerIntoFusion) must use a fresh cache afterwards.
class FusionAnalysisCache {
 public:
  FusionAnalysisCache();
  ~FusionAnalysisCache();
  FusionAnalysisCache(const FusionAnalysisCache&) = delete;
  FusionAnalysisCache& operator=(const FusionAnalysisCache&) = delete;

 private:
  friend int64_t ProducerEmissions(const HloInstruction&, const HloInstruction&,
                                   FusionAnalysisCache*);
  friend int64_t MaxFusedEmissions(const HloInstruction&, FusionAnalysisCache*);
  friend int64_t ReuseFactor(const HloInstruction&, const HloInstruction&,
                             FusionAnalysisCache*);
  const EmissionCounter& EmissionsOf(const HloInstruction& fusion);

  absl::flat_hash_map<int64_t, std::unique_ptr<EmissionCounter>> counters_;
  absl::flat_hash_map<int64_t, int64_t> max_emissions_;
  // Per fusion: FusedReuse of its fused instructions.
  absl::flat_hash_map<int64_t,
                      absl::flat_hash_map<const HloInstruction*, int64_t>>
      reuse_;
};

// How many times `consumer` reads (and so recomputes, if fused) each element
// of its operand `operand`: 1 for elementwise use; the expansion of a
// broadcast; the window overlap of a reduce-window; times the passes that
// read it in a row-reduction fusion.
int64_t ReuseFactor(const HloInstruction& consumer,
                    const HloInstruction& operand,
                    FusionAnalysisCache* cache = nullptr);

// How many times `consumer`'s kernel would emit the code computing an
// element of its operand `producer` if it were fused: the elemental emitter
// keeps one value per instruction, index and basic block, so users that
// read an operand at their own index (elementwise ops) share its code,
// while every op that reads it at an index of its own (slice, reverse,
// reshape, transpose, concatenate, pad, gather, ...) adds its own count.
int64_t ProducerEmissions(const HloInstruction& consumer,
                          const HloInstruction& producer,
                          FusionAnalysisCache* cache = nullptr);

// The most times `fusion`'s kernel emits the code of one of its fused
// instructions (parameters, broadcasts, constants and iotas aside, as
// instruction-fusion's limit leaves them); 1 for an unfused instruction.
int64_t MaxFusedEmissions(const HloInstruction& fusion,
                          FusionAnalysisCache* cache = nullptr);

// The most times one kernel computing the group `members` (unfused
// instructions in def order, each read outside the group written once, as
// a multi-output fusion's outputs) would emit the code of one member, as
// ProducerEmissions counts them, and that member. A group formed without
// instruction-fusion's producer checks (row-reduction-fusion's) must keep
// this within kMaxProducerEmissions too.
std::pair<int64_t, const HloInstruction*> MaxGroupEmissions(
    const std::vector<const HloInstruction*>& members);

// The fusion kind fusing a producer into `consumer` gives: the consumer's
// own kind if it is a fusion, kInput for a reduce, kLoop otherwise.
FusionKind KindForConsumer(const HloInstruction& consumer);

struct FusionDecision {
  bool fuse = false;
  bool duplicate = false;  // Copy the producer: it keeps other users.
  FusionKind kind = FusionKind::kLoop;  // Kind of the resulting fusion.
  // Of a new kCustom fusion (a growing fusion keeps its own).
  std::string backend_config;
  std::string rule;
  // Memory traffic the fusion avoids (negative: a copy reads more than the
  // value it replaces).
  int64_t bytes_saved = 0;
  static FusionDecision No(std::string rule) {
    FusionDecision d;
    d.rule = absl::StrCat("not fused: ", rule);
    return d;
  }
};

// Producer-consumer fusion of `producer` into `consumer` (one of its
// users): legality that does not need the graph (a producer fused this way,
// copied where it has other users, never creates a cycle) plus cost.
FusionDecision ShouldFuse(const HloInstruction& producer,
                          const HloInstruction& consumer,
                          const FusionOptions& options,
                          FusionAnalysisCache* cache = nullptr);

// The multiply-adds of a dot times two: 2 * batch * m * n * k.
int64_t DotFlops(const HloInstruction& dot);

// Whether `producer`, which feeds operands of `dot` (directly or through
// producers already chosen), joins the dot's prologue: it must be cheap and
// loop-fusible, with no users outside the prologue (`users_inside`: all its
// users are the dot or chosen producers), and the dot small enough
// (FusionOptions::dot_prologue_max_flops); with dot_prologue_views_only, a
// convert, broadcast, transpose or dimension-preserving copy/bitcast. The
// tiled kernel computes an operand element once per output tile that
// reads it (n / 64 times for the lhs): an expensive op would be recomputed
// that often.
FusionDecision ShouldFuseIntoDotPrologue(const HloInstruction& producer,
                                         const HloInstruction& dot,
                                         bool users_inside,
                                         const FusionOptions& options);

// Operands of the fusion `a` and `b` would become (shared operands counted
// once, `a` not counted as an operand of `b` when it would be fused).
int64_t MergedOperandCount(const HloInstruction& a, const HloInstruction& b);
// Instructions `instr` contributes to a fusion (its fused instructions, not
// counting parameters and a tuple root, if it is one; else 1).
int64_t FusedInstructionCount(const HloInstruction& instr);

}  // namespace hloc

#endif  // PASSES_FUSION_COST_MODEL_H_
