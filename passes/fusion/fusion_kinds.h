// The fusion shapes the fusion passes produce: the contract between fusion
// and the code generators. Every fusion instruction the passes create is one
// of the six kinds below, and each has a structural invariant that
// VerifyFusionShape checks, so an emitter can rely on it without re-deriving
// anything.
//
//   kLoop (kind=kLoop): one thread per element of the "loop shape". The root
//     is one instruction, or a tuple of instructions that all have the same
//     dimensions (multi-output: sin and cos of the same x). Inside: any
//     loop-fusible op (elementwise, broadcast, reshape/bitcast, transpose,
//     slice, concatenate, pad, reverse, iota, dynamic-slice, gather, trivial
//     reduces over size-1 dimensions, constants) and, only as the root,
//     reduce-window (each thread reduces its window) or dynamic-update-slice.
//     A dynamic-update-slice root updates its operand 0 in place: operand 0
//     is a fusion parameter read by nothing else in the fusion, so the
//     emitter only iterates over the update.
//
//   kReduction (kind=kInput): the classic reduction kernel. Its reduces all
//     reduce the same input shape over the same dimensions; producers of the
//     reduce inputs are fused (computed on the fly while reading). A
//     reduction's result is complete only once the thread that owns an
//     output element has combined every partial result, so no reduce reads
//     another's result (a barrier) and the only consumers of reduces inside
//     the fusion are an elementwise epilogue ("reduction epilogue fusion",
//     as XLA's): every instruction that depends on a reduce is elementwise
//     with the reduce output's dimensions (the convert back to bf16 after
//     an f32 sum, the divide of a mean), and reads only single-result
//     reduces. The epilogue's other operands are invariant (parameters,
//     constants and loop-fusible ops of them), read at the output index.
//     The writing thread computes the epilogue before its store. The root
//     is a reduce, an epilogue value, or a tuple of them, possibly with
//     extra outputs that have exactly the reduces' input shape and do not
//     depend on a reduce (a producer whose value is also needed outside).
//
//   kRowReduction (kind=kCustom, backend_config kRowReductionBackendConfig):
//     the answer to "softmax is one kernel in XLA (Triton) and three in a
//     classic reduction-fusion compiler". When every reduction of a group
//     reduces the same *rows* -- the trailing (minor-most, contiguous)
//     dimensions of a row-major array, at most kMaxRowElements elements per
//     row -- one thread block can own a whole row: it reduces, broadcasts the
//     per-row result to its own threads, and goes on to the next reduction or
//     the elementwise epilogue without leaving the kernel. So the fusion may
//     contain several reductions over the same rows and their consumers.
//     Every value in the fused computation is one of
//       invariant: depends on no reduction of the fusion (parameters and the
//         producers fused into them; any loop-fusible op);
//       per-row:   num_rows elements, element k belongs to row k (a
//         reduction's result, elementwise ops of per-row values, reshapes or
//         broadcasts that only add or drop size-1 dimensions);
//       full:      num_rows runs of equal length laid out row-major, row k
//         the k-th contiguous run (elementwise ops of full values, a per-row
//         value broadcast along the row, reshapes that keep the split
//         between rows and row elements, and slices, pads, concatenates,
//         reverses and transposes within the rows: a rotary embedding's
//         halves of each head; row-reduction-fusion takes a concatenate
//         only as the fusion's hero, FindRowConcatenateHero). A run is
//         usually row_length elements; a slice or pad makes it shorter or
//         longer, and only row_length runs may be outputs.
//     Reductions take an invariant or full input of that row shape and give a
//     per-row value. Roots (one, or a tuple) are per-row or full values, or
//     invariant values with a per-row or full shape. The emitter: a block per
//     row (or several rows per block when rows are short); in def order, each
//     reduction is one pass over the row's elements followed by a block
//     reduction whose per-row result every thread of the block keeps; then
//     one pass writes the outputs. An input is read again in each pass that
//     needs it (from L1/L2: the row fits, kMaxRowBytes), and producers fused
//     into it are recomputed there; the cost model counts those passes.
//     AnalyzeRowReduction gives num_rows, row_length and the reductions in
//     pass order.
//
//   kDotEpilogue (kind=kOutput): a dot, possibly with a prologue computing
//     its operands, whose result is only used by an elementwise epilogue
//     (bias add, activation) that is computed in the GEMM's register tile
//     before the store, as cuBLASLt epilogues or a hand-written GEMM do.
//     Exactly one dot; its operands are fusion parameters or loop-fusible
//     ops of them (a prologue: dot_prologue_fusion.h; the CPU's GEMM reads
//     only converts and views); every instruction that depends on
//     the dot is elementwise with the dot's dimensions; the root (never a
//     tuple) is one of them, or the dot itself when there is no epilogue.
//     Other values (a bias broadcast) are invariant and loop-fusible.
//     AnalyzeDotEpilogue gives the dot.
//
//   kScan (kind=kCustom, backend_config kScanBackendConfig, GPU only:
//     FusionOptions::scan_fusion): a scan (cumsum, cumprod, cummax as
//     reduce-window-to-scan makes them; a recurrence's scan) with the
//     producers of its operands computed as the scan's kernel reads them:
//     the broadcast init carry every reduce-window-to-scan makes, a convert
//     or scale of the input. The root is the scan (never a tuple); every
//     other instruction is loop-fusible. The scan reads each element of its
//     operands once, so a producer is never recomputed.
//
//   kScatter (kind=kCustom, backend_config kScatterBackendConfig, GPU only:
//     FusionOptions::scatter_fusion; XLA's input scatter fusion): a scatter
//     whose operands' producers its kernels compute: the copy of operand 0
//     into the output computes operand 0 (jnp.zeros(n).at[i].add(u)'s
//     broadcast writes the output directly), the update kernel the indices
//     and updates (a scale of the updates). The root is the scatter (never
//     a tuple); every other instruction is loop-fusible.
//
// Fusions read from a module made elsewhere (XLA's kCustom Triton fusions,
// kOutput fusions of another shape) are kUnknown: the passes leave them
// alone and the backends reject them with a clear error.
#ifndef PASSES_FUSION_FUSION_KINDS_H_
#define PASSES_FUSION_FUSION_KINDS_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hlo/computation.h"
#include "hlo/instruction.h"

namespace hloc {

enum class FusionShape {
  kLoop,
  kReduction,
  kRowReduction,
  kDotEpilogue,
  kScan,
  kScatter,
  kUnknown
};

absl::string_view FusionShapeName(
    FusionShape shape);  // "loop", "row-reduction"

// backend_config of a kRowReduction fusion (kind=kCustom), in the style of
// XLA's fusion_backend_config.
inline constexpr absl::string_view kRowReductionBackendConfig =
    R"({"fusion_backend_config":{"kind":"__hloc_row_reduction"}})";

// backend_configs of kScan and kScatter fusions (kind=kCustom).
inline constexpr absl::string_view kScanBackendConfig =
    R"({"fusion_backend_config":{"kind":"__hloc_scan"}})";
inline constexpr absl::string_view kScatterBackendConfig =
    R"({"fusion_backend_config":{"kind":"__hloc_scatter"}})";

// A row must fit one thread block's working set: on the GPU a block of
// 1024 threads keeps 32 elements each in registers (launch_dims.cc,
// kRowFusionElementsPerThread), so a 32768-element row is read from memory
// once however many passes use it. That covers a log-sum-exp over a 32k
// vocabulary: bf16 logits widened to f32 (128 KiB of f32 per row) were
// two reductions, each reading the logits (cross_entropy_bf16 of
// tools/gpu_bench/models.py at 44% of an H200's copy bandwidth).
inline constexpr int64_t kMaxRowElements = 32768;
inline constexpr int64_t kMaxRowBytes = 128 * 1024;

// Which of the kinds above `fusion` (a kFusion instruction) claims to be, by
// its kind and backend_config alone.
FusionShape GetFusionShape(const HloInstruction& fusion);

// Checks the invariant of the fusion's claimed shape; the error names the
// offending fused instruction. kUnknown fusions are an error.
absl::Status VerifyFusionShape(const HloInstruction& fusion);

// True if every dimension `reduce` reduces has size 1: it only drops
// dimensions, like a reshape, and is as cheap as one.
bool IsTrivialReduce(const HloInstruction& reduce);

// Ops a loop (or reduction-input, row or epilogue) fusion may compute per
// element anywhere inside: elementwise ops, broadcast, reshape/bitcast,
// transpose, slice, concatenate, pad, reverse, iota, dynamic-slice, gather,
// constants, copies and trivial reduces. Excludes side effects and rng.
bool IsLoopFusibleOp(const HloInstruction& instr);

// ---- Row reductions ---------------------------------------------------------

struct RowShape {
  int64_t num_rows = 0;
  int64_t row_length = 0;
  bool operator==(const RowShape& o) const {
    return num_rows == o.num_rows && row_length == o.row_length;
  }
};

enum class RowClass { kInvariant, kPerRow, kFull };

// If `reduce` is a single-input reduce over the trailing non-degenerate
// dimensions of a row-major array (a "row reduction"), its rows. Does not
// apply the size limits.
std::optional<RowShape> GetRowReductionShape(const HloInstruction& reduce);

// True if a row of `rows` fits the row limits for elements of `type`.
bool RowFitsInBlock(const RowShape& rows, PrimitiveType type);

// The class of `instr` in a row fusion with rows `rows`, given the classes
// of its operands; an error (the reason) if it cannot be part of one.
absl::StatusOr<RowClass> ClassifyRowInstruction(
    const HloInstruction& instr, const RowShape& rows,
    const std::function<RowClass(const HloInstruction*)>& operand_class);

// True if a value of `shape` can be written by a row fusion over `rows` as a
// per-row (num_rows elements) or full (row-major rows) value.
bool IsRowOutputShape(const Shape& shape, const RowShape& rows);

// A row fusion's concatenate "hero": its one concatenate, when the
// fusion's one output is computed from it at its own linear position
// (ReadAtOwnLinearPositionUpTo). The GPU emitter then writes the output
// operand by operand of the concatenate, every run of a thread from one
// operand, where asking for each element would branch per element to its
// operand and split a warp's lanes between the operands (a rotary
// embedding's concatenate of two half heads). At most
// kMaxRowConcatenateOperands operands: each is a loop of its own. Null
// when there is none.
inline constexpr int64_t kMaxRowConcatenateOperands = 16;
const HloInstruction* FindRowConcatenateHero(const HloComputation& fused);
// The hero's condition for `concat` and the one output `output`, following
// only the users `in_scope` accepts: row-reduction-fusion asks it of a
// group before it is fused. A hero has the rows' full shape
// (`row_elements`, rows times row length): a concatenate of one value per
// row is computed per row like any epilogue value.
bool IsRowConcatenateHero(
    const HloInstruction* concat, const HloInstruction* output,
    int64_t row_elements,
    const std::function<bool(const HloInstruction*)>& in_scope);

struct RowReductionInfo {
  RowShape rows;
  std::vector<const HloInstruction*> reductions;  // Pass order (def order).
};
absl::StatusOr<RowReductionInfo> AnalyzeRowReduction(
    const HloComputation& fused);

// ---- Dot epilogues
// ------------------------------------------------------------

// The dot of a kDotEpilogue fused computation, or why it is not one.
absl::StatusOr<const HloInstruction*> AnalyzeDotEpilogue(
    const HloComputation& fused);

}  // namespace hloc

#endif  // PASSES_FUSION_FUSION_KINDS_H_
