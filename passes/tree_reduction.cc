#include "passes/tree_reduction.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "hlo/computation.h"
#include "hlo/math_util.h"
#include "passes/reduce_in_two.h"

namespace hloc {
namespace {

// Blocks a reduction should launch to keep a large GPU busy: 4 per SM of
// a 132-SM H100 (a 108-SM A100 gets 5). Below this the pass splits.
constexpr int64_t kTargetBlocks = 512;
// Elements each partial result must still reduce: a block streams at
// least this many per output (for a column tile of 128 columns, 256 rows
// = 128 KiB of f32), so the first kernel keeps long runs of loads and the
// second pass stays small (its input is 1/256 of the first's or less).
constexpr int64_t kMinPartialExtent = 256;
// Column tiles: the column reduction kernel's block covers 32 lanes of 4
// columns (16-byte loads of f32).
constexpr int64_t kColumnsPerBlock = 128;
// Rows are split only from this length on: shorter rows (a softmax's or
// layernorm's, up to 16384 elements) are what the row-fusion kernels read
// once, whole, in one block; splitting their reductions would cut such a
// fusion into several kernels. A block streams a row of 64 Ki f32 (256
// KiB) at full speed once enough blocks run.
constexpr int64_t kMinSplitRowLength = 65536;
// Inputs under 4 Mi elements (16 MiB of f32, about 6 us of an H100's
// bandwidth) are not split when their blocks share the work: the second
// kernel's launch and the partials' round trip would cost what the idle
// SMs do.
constexpr int64_t kMinSplitElements = int64_t{4} << 20;
// Unless a block of the unsplit kernel would stream this many elements on
// its own (1 MiB of f32): one SM reads at a small fraction of the device's
// bandwidth, so a sum of a million values to a scalar in one block costs
// tens of microseconds where two kernels take a few (the eighth zoo hunt's
// full_reductions_large, 18 such reductions, took 0.67 ms a call against
// XLA:GPU's 0.17 on the H200, session 24).
constexpr int64_t kMinElementsPerBlock = int64_t{256} << 10;

int64_t Product(const std::vector<int64_t>& dims, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end; ++i) p *= dims[i];
  return p;
}

// Partial results in the reduce's own type change nothing for integers
// and pred (their sums wrap the same in any order; and, or, min and max
// are exact) and round no more than the whole reduce does for f32 and
// wider; a bf16, f16 or 8-bit float partial would round once more than
// the kernel's f32 accumulator.
bool SplitsExactly(PrimitiveType type) {
  if (type == PRED || IsIntegralType(type)) return true;
  return IsFloatingPointType(type) && BitWidth(type) >= 32;
}

// A maximum or minimum picks one of its operands: partial results of any
// type are exact.
bool PicksAnOperand(const HloInstruction* reduce) {
  const std::optional<HloOpcode> op = MatchSimpleReducer(*reduce->to_apply());
  return op == HloOpcode::kMaximum || op == HloOpcode::kMinimum;
}

// The reduced dimensions as [first, last), or nullopt when they are not
// one contiguous run of the operand's dimensions.
std::optional<std::pair<int64_t, int64_t>> ReducedRun(
    const HloInstruction* reduce) {
  std::vector<int64_t> dims = reduce->dimensions();
  std::sort(dims.begin(), dims.end());
  for (size_t i = 1; i < dims.size(); ++i) {
    if (dims[i] != dims[i - 1] + 1) return std::nullopt;
  }
  if (dims.empty()) return std::nullopt;
  return std::make_pair(dims.front(), dims.back() + 1);
}

absl::StatusOr<bool> SplitReduce(HloComputation* computation,
                                 HloInstruction* reduce) {
  // n inputs of one shape and their n inits (an argmax reduces values and
  // indices together).
  const int64_t n = reduce->operand_count() / 2;
  std::vector<HloInstruction*> inputs, inits;
  for (int64_t k = 0; k < n; ++k) {
    inputs.push_back(reduce->operands()[k]);
    inits.push_back(reduce->operands()[n + k]);
  }
  const Shape& in = inputs[0]->shape();
  if (!in.IsArray()) return false;
  const bool picks = n == 1 && PicksAnOperand(reduce);
  for (int64_t k = 0; k < n; ++k) {
    const Shape& input = inputs[k]->shape();
    if (!input.IsArray() || !input.HasDescendingLayout() ||
        !(picks || (SplitsExactly(input.element_type()) &&
                    SplitsExactly(inits[k]->shape().element_type())))) {
      return false;
    }
  }
  const std::vector<Shape> outputs = n == 1
                                         ? std::vector<Shape>{reduce->shape()}
                                         : reduce->shape().tuple_shapes();
  for (const Shape& output : outputs) {
    if (!output.IsArray() || !output.HasDescendingLayout()) return false;
  }
  const std::optional<std::pair<int64_t, int64_t>> run = ReducedRun(reduce);
  if (!run) return false;
  const std::vector<int64_t>& dims = in.dimensions();
  const int64_t rank = static_cast<int64_t>(dims.size());
  // A column reduction may keep dimensions before the reduced ones too
  // (a batch of column sums: one block per outer index and column tile).
  const bool column = run->second < rank;
  const bool row = !column;
  const int64_t reduced = Product(dims, run->first, run->second);
  if (row && reduced < kMinSplitRowLength) return false;
  const int64_t kept_before = Product(dims, 0, run->first);
  const int64_t kept_after = Product(dims, run->second, rank);
  // Blocks the unsplit kernel launches: one per outer index and column
  // tile, or one per row (short rows share blocks, but short rows are not
  // split anyway).
  const int64_t blocks =
      column ? kept_before * CeilOfRatio(kept_after, kColumnsPerBlock)
             : kept_before;
  if (in.ElementCount() < kMinSplitElements &&
      in.ElementCount() / std::max<int64_t>(1, blocks) <
          kMinElementsPerBlock) {
    return false;
  }
  const int64_t g = TreeReductionSplit(blocks, reduced);
  if (g <= 1) return false;

  // x'[kept_before..., g, padded/g, kept_after...]: the reduced run as one
  // dimension, padded with the init (the reducer's identity) to a multiple
  // of g when g does not divide it (an odd extent such as 1000003).
  const int64_t padded = CeilOfRatio(reduced, g) * g;
  const int64_t g_dim = run->first;
  std::vector<int64_t> split_dims(dims.begin(), dims.begin() + g_dim);
  split_dims.push_back(g);
  split_dims.push_back(padded / g);
  split_dims.insert(split_dims.end(), dims.begin() + run->second, dims.end());
  std::vector<HloInstruction*> reshaped;
  for (int64_t k = 0; k < n; ++k) {
    const PrimitiveType type = inputs[k]->shape().element_type();
    HloInstruction* source = inputs[k];
    if (padded != reduced) {
      std::vector<int64_t> merged_dims(dims.begin(), dims.begin() + g_dim);
      merged_dims.push_back(reduced);
      merged_dims.insert(merged_dims.end(), dims.begin() + run->second,
                         dims.end());
      if (merged_dims != dims) {
        source = computation->AddInstruction(HloInstruction::CreateReshape(
            Shape::Array(type, merged_dims), source));
      }
      PaddingConfig padding;
      padding.dimensions.resize(merged_dims.size());
      padding.dimensions[g_dim].edge_padding_high = padded - reduced;
      merged_dims[g_dim] = padded;
      auto pad = HloInstruction::Create(
          HloOpcode::kPad, Shape::Array(type, merged_dims), {source, inits[k]});
      pad->mutable_attrs().padding_config = padding;
      source = computation->AddInstruction(std::move(pad));
    }
    reshaped.push_back(computation->AddInstruction(
        HloInstruction::CreateReshape(Shape::Array(type, split_dims), source)));
  }
  HloInstruction* combined =
      ReduceInTwo(computation, *reduce, reshaped, {g_dim + 1}, {g_dim});
  if (absl::Status s = computation->ReplaceInstruction(reduce, combined);
      !s.ok()) {
    return s;
  }
  return true;
}

}  // namespace

int64_t TreeReductionSplit(int64_t blocks, int64_t reduced) {
  if (blocks <= 0 || blocks >= kTargetBlocks) return 1;
  int64_t g = 1;
  // Powers of two while the blocks stay under the target and each partial
  // keeps its share (SplitReduce pads an extent g does not divide).
  while (blocks * g * 2 <= kTargetBlocks &&
         reduced / (g * 2) >= kMinPartialExtent) {
    g *= 2;
  }
  return g;
}

absl::StatusOr<bool> TreeReduction::Run(HloModule* module) {
  return RewriteEach(module, HloOpcode::kReduce, "reductions-split",
                     [&](HloComputation* computation, HloInstruction* instr) {
                       return SplitReduce(computation, instr);
                     });
}

}  // namespace hloc
