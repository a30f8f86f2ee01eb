#include "passes/fusion/multi_output_fusion.h"

#include <algorithm>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "passes/fusion/fusion_kinds.h"
#include "passes/fusion/fusion_utils.h"

namespace hloc {
namespace {

// The iteration space a kernel runs over, which decides what it can be merged
// with.
struct IterationSpace {
  FusionShape shape;             // kLoop, kReduction or kRowReduction.
  Shape dims;                    // Loop: output; reduction: reduce input.
  std::vector<int64_t> reduced;  // Reduction: reduced dimensions.
  RowShape rows;                 // Row reduction.
  // Loop: an output is a reduce-window, which only a loop kernel computes
  // (a reduce-window is a fusion's root, never a reduction's input:
  // fusion_kinds.h), so the space cannot join a reduction's.
  bool window_output = false;
};

bool IsFreeOp(const HloInstruction& instr) {
  switch (instr.opcode()) {
    case HloOpcode::kParameter:
    case HloOpcode::kConstant:
    case HloOpcode::kBitcast:
    case HloOpcode::kGetTupleElement:
    case HloOpcode::kTuple:
      return true;
    default:
      return false;
  }
}

std::optional<IterationSpace> SpaceOf(const HloInstruction& instr) {
  IterationSpace space;
  if (instr.opcode() == HloOpcode::kFusion) {
    const HloComputation& fused = *instr.fused_computation();
    const HloInstruction* root = fused.root_instruction();
    std::vector<const HloInstruction*> roots = {root};
    if (root->opcode() == HloOpcode::kTuple) {
      roots.assign(root->operands().begin(), root->operands().end());
    }
    space.shape = GetFusionShape(instr);
    switch (space.shape) {
      case FusionShape::kLoop:
        for (const HloInstruction* r : roots) {
          if (r->opcode() == HloOpcode::kDynamicUpdateSlice)
            return std::nullopt;
          space.window_output |= r->opcode() == HloOpcode::kReduceWindow;
        }
        space.dims = roots[0]->shape();
        return space;
      case FusionShape::kReduction:
        // Any reduce: an output, or read by an epilogue output (all reduce
        // the same input shape over the same dimensions).
        for (const HloInstruction* r : fused.instructions()) {
          if (r->opcode() == HloOpcode::kReduce && !IsTrivialReduce(*r)) {
            space.dims = r->operand(0)->shape();
            space.reduced = r->dimensions();
            return space;
          }
        }
        return std::nullopt;
      case FusionShape::kRowReduction: {
        absl::StatusOr<RowReductionInfo> info = AnalyzeRowReduction(fused);
        if (!info.ok()) return std::nullopt;
        space.rows = info->rows;
        return space;
      }
      default:
        return std::nullopt;
    }
  }
  if (instr.opcode() == HloOpcode::kReduce && !IsTrivialReduce(instr) &&
      instr.shape().IsArray()) {
    space.shape = FusionShape::kReduction;
    space.dims = instr.operand(0)->shape();
    space.reduced = instr.dimensions();
    return space;
  }
  if (instr.shape().IsArray() && !IsFreeOp(instr) &&
      (IsLoopFusibleOp(instr) || instr.opcode() == HloOpcode::kReduceWindow)) {
    space.shape = FusionShape::kLoop;
    space.dims = instr.shape();
    space.window_output = instr.opcode() == HloOpcode::kReduceWindow;
    return space;
  }
  return std::nullopt;
}

// Whether a value of `shape` can be an extra output of a kernel over `space`.
bool FitsAsOutput(const Shape& shape, const IterationSpace& space) {
  if (!shape.IsArray()) return false;
  if (space.shape == FusionShape::kRowReduction) {
    return IsRowOutputShape(shape, space.rows);
  }
  return shape.SameDimensions(space.dims);
}

// The space of a and b merged, if they can be.
std::optional<IterationSpace> Merge(const IterationSpace& a,
                                    const IterationSpace& b) {
  if (a.shape == FusionShape::kLoop && b.shape == FusionShape::kLoop) {
    if (!a.dims.SameDimensions(b.dims)) return std::nullopt;
    IterationSpace merged = a;
    merged.window_output |= b.window_output;
    return merged;
  }
  if (a.shape == FusionShape::kLoop) return Merge(b, a);
  // a is a reduction or row reduction from here on.
  if (b.shape == FusionShape::kLoop) {
    if (!b.window_output && FitsAsOutput(b.dims, a)) return a;
    return std::nullopt;
  }
  if (a.shape != b.shape) return std::nullopt;
  if (a.shape == FusionShape::kReduction) {
    if (a.dims.SameDimensions(b.dims) && a.reduced == b.reduced) return a;
    return std::nullopt;
  }
  if (a.rows == b.rows) return a;
  return std::nullopt;
}

FusionKind KindOf(const IterationSpace& space) {
  switch (space.shape) {
    case FusionShape::kReduction:
      return FusionKind::kInput;
    case FusionShape::kRowReduction:
      return FusionKind::kCustom;
    default:
      return FusionKind::kLoop;
  }
}

std::string BackendConfigOf(const IterationSpace& space) {
  return space.shape == FusionShape::kRowReduction
             ? std::string(kRowReductionBackendConfig)
             : std::string();
}

int64_t UnionOperandCount(const HloInstruction& a, const HloInstruction& b) {
  absl::flat_hash_set<const HloInstruction*> operands(a.operands().begin(),
                                                      a.operands().end());
  for (const HloInstruction* operand : b.operands()) {
    if (operand != &a) operands.insert(operand);
  }
  operands.erase(&b);
  return static_cast<int64_t>(operands.size());
}

}  // namespace

// What the merge checks work out about a fusion, kept by its unique id for
// the whole pass: merges make new fusions and leave existing ones
// unchanged, and the scan starts over after each merge, asking again about
// every fusion it passes.
struct MultiOutputFusion::Analyses {
  std::optional<IterationSpace> Space(const HloInstruction& instr) {
    if (instr.opcode() != HloOpcode::kFusion) return SpaceOf(instr);
    auto [it, inserted] = spaces.try_emplace(instr.unique_id());
    if (inserted) it->second = SpaceOf(instr);
    return it->second;
  }

  FusionAnalysisCache costs;
  absl::flat_hash_map<int64_t, std::optional<IterationSpace>> spaces;
};

absl::StatusOr<bool> MultiOutputFusion::Run(HloModule* module) {
  FusionReport* report = ResolveFusionReport(report_);
  bool changed = false;
  for (HloComputation* computation : KernelComputations(*module)) {
    Analyses analyses;
    while (true) {
      absl::StatusOr<bool> merged =
          FuseOneProducerConsumer(computation, report, &analyses);
      if (!merged.ok()) return merged.status();
      if (!*merged) {
        merged = FuseOneSiblingPair(computation, report, &analyses);
        if (!merged.ok()) return merged.status();
      }
      if (!*merged) break;
      changed = true;
    }
  }
  return changed;
}

absl::StatusOr<bool> MultiOutputFusion::FuseOneProducerConsumer(
    HloComputation* computation, FusionReport* report, Analyses* analyses) {
  for (HloInstruction* producer : computation->MakeInstructionPostOrder()) {
    if (producer->user_count() < 2 || IsFreeOp(*producer)) continue;
    std::optional<IterationSpace> producer_space = analyses->Space(*producer);
    if (!producer_space || producer_space->shape != FusionShape::kLoop ||
        producer_space->window_output || WhyNotFusibleProducer(*producer)) {
      continue;
    }
    for (HloInstruction* consumer : producer->users()) {
      std::optional<IterationSpace> space = analyses->Space(*consumer);
      if (!space) continue;
      FusionDecisionRecord record;
      record.pass = std::string(name());
      record.computation = computation->name();
      record.producer = Describe(*producer);
      record.consumer = Describe(*consumer);
      auto reject = [&](std::string rule) {
        record.rule = absl::StrCat("not fused: ", rule);
        if (report) report->Record(record);
      };
      if (!FitsAsOutput(producer->shape(), *space)) {
        reject(
            absl::StrCat("producer shape ", producer->shape().ToString(false),
                         " is not an output the consumer's ",
                         FusionShapeName(space->shape), " kernel can write"));
        continue;
      }
      if (CostOf(*producer) == OpCost::kExpensive &&
          ReuseFactor(*consumer, *producer, &analyses->costs) >
              kMaxExpensiveRecompute) {
        reject(
            "producer is expensive and the consumer reads each element "
            "several times");
        continue;
      }
      // instruction-fusion's code duplication limit, which this merge
      // would otherwise bypass: the merged kernel emits the producer's code
      // once per index the consumer reads it at and once for its own
      // output, and so every instruction the producer's kernel fused as
      // many times more.
      const int64_t emissions =
          ProducerEmissions(*consumer, *producer, &analyses->costs) + 1;
      const int64_t most =
          emissions * MaxFusedEmissions(*producer, &analyses->costs);
      if (most > kMaxProducerEmissions) {
        reject(absl::StrCat("the merged kernel would emit the producer's code ",
                            emissions, " times, one of its instructions ",
                            most, " times (code duplication limit ",
                            kMaxProducerEmissions, ")"));
        continue;
      }
      if (ReachesIndirectly(producer, consumer)) {
        reject(
            "would create a cycle (the consumer also depends on the "
            "producer through another kernel)");
        continue;
      }
      const int64_t operands = MergedOperandCount(*producer, *consumer);
      if (operands > options_.max_operands) {
        reject(absl::StrCat("fusion would have ", operands, " operands (limit ",
                            options_.max_operands, ")"));
        continue;
      }
      const bool grow = consumer->opcode() == HloOpcode::kFusion;
      const Shape producer_shape = producer->shape();
      const FusionKind kind = KindOf(*space);
      const std::string backend_config = BackendConfigOf(*space);
      absl::StatusOr<HloInstruction*> fusion = FuseInstructions(
          computation, {producer, consumer}, kind,
          grow ? consumer->name() : FusionNameFor(kind, backend_config),
          /*keep_name=*/grow, backend_config);
      if (!fusion.ok()) return fusion.status();
      Count("producer-consumer");
      record.fused = true;
      record.bytes_saved = BytesOf(producer_shape);
      record.rule =
          "fused: producer computed in its consumer's kernel and kept as an "
          "extra output for its other users (multi-output: one kernel fewer)";
      record.result = (*fusion)->name();
      if (report) report->Record(record);
      return true;
    }
  }
  return false;
}

absl::StatusOr<bool> MultiOutputFusion::FuseOneSiblingPair(
    HloComputation* computation, FusionReport* report, Analyses* analyses) {
  for (HloInstruction* shared : computation->MakeInstructionPostOrder()) {
    if (!shared->shape().IsArray() || shared->shape().IsScalar() ||
        shared->user_count() < 2) {
      continue;
    }
    std::vector<HloInstruction*> users;
    std::vector<IterationSpace> spaces;
    for (HloInstruction* user : shared->users()) {
      if (std::optional<IterationSpace> space = analyses->Space(*user)) {
        users.push_back(user);
        spaces.push_back(*space);
      }
    }
    for (size_t i = 0; i < users.size(); ++i) {
      for (size_t j = i + 1; j < users.size(); ++j) {
        HloInstruction* a = users[i];
        HloInstruction* b = users[j];
        FusionDecisionRecord record;
        record.pass = std::string(name());
        record.computation = computation->name();
        record.producer = Describe(*a);
        record.consumer = Describe(*b);
        auto reject = [&](std::string rule) {
          record.rule = absl::StrCat("not fused: siblings reading ",
                                     shared->name(), ": ", rule);
          if (report) report->Record(record);
        };
        std::optional<IterationSpace> merged = Merge(spaces[i], spaces[j]);
        if (!merged) {
          reject("different iteration spaces");
          continue;
        }
        if (Reaches(a, b) || Reaches(b, a)) {
          reject("one depends on the other (would create a cycle)");
          continue;
        }
        const int64_t operands = UnionOperandCount(*a, *b);
        if (operands > options_.max_operands) {
          reject(absl::StrCat("fusion would have ", operands,
                              " operands (limit ", options_.max_operands, ")"));
          continue;
        }
        if (FusedInstructionCount(*a) + FusedInstructionCount(*b) >
            options_.max_fused_instructions) {
          reject("code growth limit");
          continue;
        }
        const FusionKind kind = KindOf(*merged);
        const std::string backend_config = BackendConfigOf(*merged);
        HloInstruction* named = a->opcode() == HloOpcode::kFusion   ? a
                                : b->opcode() == HloOpcode::kFusion ? b
                                                                    : nullptr;
        const bool keep_name = named != nullptr && named->fusion_kind() == kind;
        absl::StatusOr<HloInstruction*> fusion = FuseInstructions(
            computation, {a, b}, kind,
            keep_name ? named->name() : FusionNameFor(kind, backend_config),
            keep_name, backend_config);
        if (!fusion.ok()) return fusion.status();
        Count("siblings");
        record.fused = true;
        record.bytes_saved = BytesOf(shared->shape());
        record.rule = absl::StrCat("fused: siblings share operand ",
                                   shared->name(), " (read once, not twice)");
        record.result = (*fusion)->name();
        if (report) report->Record(record);
        return true;
      }
    }
  }
  return false;
}

}  // namespace hloc
