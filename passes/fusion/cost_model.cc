#include "passes/fusion/cost_model.h"

#include <algorithm>
#include <memory>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "hlo/computation.h"
#include "passes/fusion/fusion_kinds.h"

namespace hloc {
namespace {

OpCost OpcodeCost(const HloInstruction& instr) {
  switch (instr.opcode()) {
    case HloOpcode::kParameter:
    case HloOpcode::kConstant:
    case HloOpcode::kBitcast:
    case HloOpcode::kGetTupleElement:
    case HloOpcode::kTuple:
      return OpCost::kFree;
    case HloOpcode::kExp:
    case HloOpcode::kExpm1:
    case HloOpcode::kLog:
    case HloOpcode::kLog1p:
    case HloOpcode::kTanh:
    case HloOpcode::kLogistic:
    case HloOpcode::kErf:
    case HloOpcode::kDivide:
    case HloOpcode::kRemainder:
    case HloOpcode::kPower:
    case HloOpcode::kSqrt:
    case HloOpcode::kRsqrt:
    case HloOpcode::kCbrt:
    case HloOpcode::kSin:
    case HloOpcode::kCos:
    case HloOpcode::kTan:
    case HloOpcode::kAtan2:
    case HloOpcode::kAcos:
    case HloOpcode::kAcosh:
    case HloOpcode::kAsin:
    case HloOpcode::kAsinh:
    case HloOpcode::kAtan:
    case HloOpcode::kAtanh:
    case HloOpcode::kSinh:
    case HloOpcode::kCosh:
    case HloOpcode::kReduceWindow:
    case HloOpcode::kDot:
    case HloOpcode::kConvolution:
    case HloOpcode::kSort:
    case HloOpcode::kFft:
    case HloOpcode::kScatter:
    case HloOpcode::kCustomCall:
      return OpCost::kExpensive;
    case HloOpcode::kReduce:
      return IsTrivialReduce(instr) ? OpCost::kCheap : OpCost::kExpensive;
    case HloOpcode::kGather:
      return instr.shape().ElementCount() > kCheapGatherElements
                 ? OpCost::kExpensive
                 : OpCost::kCheap;
    default:
      return OpCost::kCheap;
  }
}

// Parameters of `fusion`'s computation that stand for `operand`.
std::vector<const HloInstruction*> ParamsFor(const HloInstruction& fusion,
                                             const HloInstruction& operand) {
  std::vector<const HloInstruction*> params;
  for (int64_t i : fusion.OperandIndices(&operand)) {
    params.push_back(fusion.fused_parameter(i));
  }
  return params;
}

// The passes of a row-reduction fusion that read `param`: one per reduction
// whose input depends on it without going through another reduction (a
// reduction's result is kept per row, not recomputed), plus the output pass
// if an output does.
int64_t RowPassesReading(const HloInstruction* param) {
  const HloInstruction* root = param->parent()->root_instruction();
  int64_t passes = 0;
  bool output_pass = false;
  std::vector<const HloInstruction*> stack = {param};
  absl::flat_hash_set<const HloInstruction*> seen;
  while (!stack.empty()) {
    const HloInstruction* instr = stack.back();
    stack.pop_back();
    if (!seen.insert(instr).second) continue;
    if (instr == root) output_pass = true;
    if (instr != param && instr->opcode() == HloOpcode::kReduce &&
        !IsTrivialReduce(*instr)) {
      ++passes;
      continue;
    }
    for (const HloInstruction* user : instr->users()) stack.push_back(user);
  }
  return passes + (output_pass ? 1 : 0);
}

// Reads of one element of `instr`'s value per element of the fused root,
// following the uses inside a fused computation (memoized).
int64_t FusedReuse(const HloInstruction* instr,
                   absl::flat_hash_map<const HloInstruction*, int64_t>* memo) {
  auto it = memo->find(instr);
  if (it != memo->end()) return it->second;
  int64_t reuse = 1;
  for (const HloInstruction* user : instr->users()) {
    if (user->opcode() == HloOpcode::kTuple) continue;
    // A reduction reads each input element once; its result is kept, so
    // re-reads of the result do not recompute the input.
    const int64_t after =
        user->opcode() == HloOpcode::kReduce && !IsTrivialReduce(*user)
            ? 1
            : FusedReuse(user, memo);
    reuse = std::max(reuse, ReuseFactor(*user, *instr) * after);
  }
  (*memo)[instr] = reuse;
  return reuse;
}

// Adds a to b, saturating: emission counts of long chains can overflow.
int64_t SaturatingAdd(int64_t a, int64_t b) {
  constexpr int64_t kMax = int64_t{1} << 40;
  return std::min(kMax, a + b);
}

}  // namespace

// Counts how many times one kernel emits the code of each of its
// instructions. Each instruction's indexings are the set of "index sources"
// reaching it: an output it writes, or an (index-changing user, operand
// slot) pair counting as often as that user is emitted; elementwise users
// pass their own sources on. Instructions are added users first.
class EmissionCounter {
 public:
  // Adds `instr`, which writes `outputs` outputs of the kernel and is read
  // by those of its users for which `in_kernel` holds (added before it).
  template <typename InKernel>
  void Add(const HloInstruction* instr, int64_t outputs,
           const InKernel& in_kernel) {
    absl::flat_hash_set<int64_t>& mine = sources_[instr];
    for (const HloInstruction* user : instr->users()) {
      if (!in_kernel(user)) continue;
      if (user->IsElementwise()) {
        const absl::flat_hash_set<int64_t>& theirs = sources_[user];
        mine.insert(theirs.begin(), theirs.end());
        continue;
      }
      // One source per operand slot: concatenate(x, x) reads x at two
      // indices. A reduction inside a kernel (a row-reduction fusion's
      // passes) is computed once and its result kept, however often the
      // result is read: it emits its input once.
      const int64_t count =
          user->opcode() == HloOpcode::kReduce && !IsTrivialReduce(*user)
              ? 1
              : Emissions(user);
      for (size_t k = 0; k < user->OperandIndices(instr).size(); ++k) {
        mine.insert(NewSource(count));
      }
    }
    // Each output is written once.
    for (int64_t k = 0; k < outputs; ++k) mine.insert(NewSource(1));
  }

  int64_t Emissions(const HloInstruction* instr) const {
    auto it = sources_.find(instr);
    if (it == sources_.end()) return 0;
    int64_t total = 0;
    for (int64_t s : it->second) total = SaturatingAdd(total, count_[s]);
    return total;
  }

 private:
  int64_t NewSource(int64_t count) {
    count_.push_back(count);
    return static_cast<int64_t>(count_.size()) - 1;
  }

  std::vector<int64_t> count_;  // Per source: how often it is emitted.
  absl::flat_hash_map<const HloInstruction*, absl::flat_hash_set<int64_t>>
      sources_;
};

namespace {

// The emissions of every instruction of fused computation `comp`.
EmissionCounter CountFused(const HloComputation& comp) {
  const HloInstruction* root = comp.root_instruction();
  const bool tuple_root = root->opcode() == HloOpcode::kTuple;
  EmissionCounter counter;
  std::vector<HloInstruction*> order = comp.MakeInstructionPostOrder();
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const HloInstruction* instr = *it;
    // The root, or an output of a multi-output fusion.
    const bool output =
        tuple_root ? instr != root && root->IsUserOf(instr) : instr == root;
    counter.Add(instr, output ? 1 : 0, [](const HloInstruction* user) {
      return user->opcode() != HloOpcode::kTuple;
    });
  }
  return counter;
}

// ProducerEmissions inside a fused computation: the emissions of the
// parameters in `params`, summed.
int64_t FusedEmissions(const EmissionCounter& counter,
                       const std::vector<const HloInstruction*>& params) {
  int64_t total = 0;
  for (const HloInstruction* param : params) {
    total = SaturatingAdd(total, counter.Emissions(param));
  }
  return total;
}

// True if, inside fused computation `comp`, every instruction depending on
// one of `sources` is elementwise with dimensions `dims`, and the root is one
// of them (not a tuple).
bool IsElementwiseEpilogueOf(const HloComputation& comp,
                             const std::vector<const HloInstruction*>& sources,
                             const Shape& dims) {
  absl::flat_hash_set<const HloInstruction*> dependent(sources.begin(),
                                                       sources.end());
  for (const HloInstruction* instr : comp.MakeInstructionPostOrder()) {
    if (dependent.contains(instr)) continue;
    bool depends = false;
    for (const HloInstruction* operand : instr->operands()) {
      depends |= dependent.contains(operand);
    }
    if (!depends) continue;
    if (!HloOpcodeIsElementwise(instr->opcode()) ||
        !instr->shape().SameDimensions(dims)) {
      return false;
    }
    dependent.insert(instr);
  }
  const HloInstruction* root = comp.root_instruction();
  return root->opcode() != HloOpcode::kTuple && dependent.contains(root) &&
         std::find(sources.begin(), sources.end(), root) == sources.end();
}

// True if a dot of `param`'s fused computation reads it, directly or
// through a dot prologue.
bool FeedsDot(const HloInstruction* param) {
  std::vector<const HloInstruction*> work = {param};
  absl::flat_hash_set<const HloInstruction*> seen;
  while (!work.empty()) {
    const HloInstruction* v = work.back();
    work.pop_back();
    if (!seen.insert(v).second) continue;
    for (const HloInstruction* user : v->users()) {
      if (user->opcode() == HloOpcode::kDot) return true;
      work.push_back(user);
    }
  }
  return false;
}

// A convert, broadcast, transpose, or a copy/bitcast/reshape that keeps
// the dimensions: what a packing GEMM reads as strides and conversions.
bool IsViewOrConvert(const HloInstruction& instr) {
  switch (instr.opcode()) {
    case HloOpcode::kConvert:
    case HloOpcode::kBroadcast:
    case HloOpcode::kTranspose:
      return true;
    case HloOpcode::kCopy:
      return instr.operand(0)->shape().SameDimensions(instr.shape());
    case HloOpcode::kBitcast:
    case HloOpcode::kReshape:
      return instr.operand(0)->shape().SameDimensions(instr.shape()) &&
             instr.operand(0)->shape().layout() == instr.shape().layout();
    default:
      return false;
  }
}

// True if `consumer` can be the elementwise epilogue of `dot` (a dot or a
// dot-epilogue fusion), which is one of its operands.
// True if `consumer` (an elementwise op, or a loop fusion of elementwise
// ops over its operand) only reads `producer` (a dot or a reduce) at the
// consumer's own output position: an epilogue its kernel can compute where
// it holds the producer's element.
bool IsElementwiseEpilogue(const HloInstruction& consumer,
                           const HloInstruction& producer) {
  if (consumer.opcode() == HloOpcode::kFusion) {
    if (consumer.fusion_kind() != FusionKind::kLoop) return false;
    return IsElementwiseEpilogueOf(*consumer.fused_computation(),
                                   ParamsFor(consumer, producer),
                                   producer.shape());
  }
  return HloOpcodeIsElementwise(consumer.opcode()) &&
         !consumer.HasSideEffect() &&
         consumer.shape().SameDimensions(producer.shape());
}

// A kernel whose single output is a reduction's result (possibly with an
// epilogue already): a single-result reduce, or a reduction fusion with one
// root.
bool IsSingleReductionKernel(const HloInstruction& instr) {
  if (instr.opcode() == HloOpcode::kReduce) {
    return !IsTrivialReduce(instr) && instr.shape().IsArray();
  }
  return instr.opcode() == HloOpcode::kFusion &&
         GetFusionShape(instr) == FusionShape::kReduction &&
         instr.fused_expression_root()->opcode() != HloOpcode::kTuple;
}

// The limits every producer/consumer fusion keeps to (operands of the
// fused kernel, instructions in it): the refusal, or nullopt within them.
std::optional<FusionDecision> SizeLimitRefusal(const HloInstruction& producer,
                                               const HloInstruction& consumer,
                                               const FusionOptions& options) {
  const int64_t operands = MergedOperandCount(producer, consumer);
  if (operands > options.max_operands) {
    return FusionDecision::No(absl::StrCat("fusion would have ", operands,
                                           " operands (limit ",
                                           options.max_operands, ")"));
  }
  const int64_t size =
      FusedInstructionCount(producer) + FusedInstructionCount(consumer);
  if (size > options.max_fused_instructions) {
    return FusionDecision::No(absl::StrCat(
        "fusion would have ", size, " instructions (code growth limit ",
        options.max_fused_instructions, ")"));
  }
  return std::nullopt;
}

// The reduction-epilogue decision (FusionOptions::reduction_epilogue_fusion)
// for a reduction `producer` and an elementwise `consumer`; nullopt when the
// consumer is not elementwise at all (the reduction barrier's rule says
// why).
std::optional<FusionDecision> ReductionEpilogueDecision(
    const HloInstruction& producer, const HloInstruction& consumer,
    const FusionOptions& options) {
  const bool elementwise_consumer =
      consumer.opcode() == HloOpcode::kFusion
          ? consumer.fusion_kind() == FusionKind::kLoop
          : HloOpcodeIsElementwise(consumer.opcode());
  if (!elementwise_consumer) return std::nullopt;
  const std::string op(HloOpcodeString(producer.opcode()));
  if (producer.user_count() > 1) {
    // Its other users need the result in memory. Keeping it as a second
    // output beside the epilogue (multi-output) would still save the
    // epilogue's launch, but only multi-output-fusion keeps a producer's
    // value as an extra output, and it takes loop producers only.
    return FusionDecision::No(
        absl::StrCat("producer ", op, " has ", producer.user_count(),
                     " consumers; a reduction epilogue must be its only one"));
  }
  if (!IsElementwiseEpilogue(consumer, producer)) {
    return FusionDecision::No(
        "consumer is not an elementwise epilogue over the reduction's result");
  }
  if (std::optional<FusionDecision> refused =
          SizeLimitRefusal(producer, consumer, options)) {
    return *refused;
  }
  FusionDecision d;
  d.fuse = true;
  d.kind = FusionKind::kInput;
  d.bytes_saved = 2 * BytesOf(producer.shape());
  d.rule =
      "fused: elementwise epilogue computed by the reduction kernel as it "
      "writes each result (one kernel fewer)";
  return d;
}

// The dynamic-update-slice `consumer` (or the root of a loop fusion) updates
// in place, and the outer instruction holding its buffer (operand 0).
const HloInstruction* InPlaceBuffer(const HloInstruction& consumer) {
  if (consumer.opcode() == HloOpcode::kDynamicUpdateSlice) {
    return consumer.operand(0);
  }
  if (consumer.opcode() == HloOpcode::kFusion &&
      consumer.fused_expression_root()->opcode() ==
          HloOpcode::kDynamicUpdateSlice) {
    const HloInstruction* buffer = consumer.fused_expression_root()->operand(0);
    if (buffer->opcode() == HloOpcode::kParameter) {
      return consumer.operand(buffer->parameter_number());
    }
  }
  return nullptr;
}

std::string ProducerWhat(const HloInstruction& producer) {
  if (producer.opcode() == HloOpcode::kFusion) return "loop fusion";
  if (HloOpcodeIsElementwise(producer.opcode())) {
    return CostOf(producer) == OpCost::kExpensive
               ? absl::StrCat("expensive elementwise (",
                              HloOpcodeString(producer.opcode()), ")")
               : "elementwise";
  }
  if (producer.opcode() == HloOpcode::kReduce) return "trivial reduce";
  return std::string(HloOpcodeString(producer.opcode()));
}

std::string ConsumerWhat(FusionKind kind, const HloInstruction& consumer) {
  if (consumer.opcode() == HloOpcode::kFusion) {
    return absl::StrCat(FusionShapeName(GetFusionShape(consumer)),
                        " fusion consumer");
  }
  if (consumer.opcode() == HloOpcode::kScan) return "scan consumer";
  if (consumer.opcode() == HloOpcode::kScatter) return "scatter consumer";
  switch (kind) {
    case FusionKind::kInput:
      return "reduction consumer";
    default:
      return absl::StrCat("loop consumer (", HloOpcodeString(consumer.opcode()),
                          ")");
  }
}

// The fusions rooted at an op with kernels of its own (fusion_kinds.h:
// kScan, kScatter): the op, its fusion's shape and backend_config, and the
// option that allows them.
struct OpRootFusion {
  HloOpcode opcode;
  FusionShape shape;
  absl::string_view backend_config;
  bool FusionOptions::*enabled;
};

constexpr OpRootFusion kOpRootFusions[] = {
    {HloOpcode::kScan, FusionShape::kScan, kScanBackendConfig,
     &FusionOptions::scan_fusion},
    {HloOpcode::kScatter, FusionShape::kScatter, kScatterBackendConfig,
     &FusionOptions::scatter_fusion},
};

// The op-rooted fusion `consumer` starts (the op) or is, or null.
const OpRootFusion* OpRootFusionOf(const HloInstruction& consumer) {
  for (const OpRootFusion& f : kOpRootFusions) {
    if (consumer.opcode() == f.opcode ||
        (consumer.opcode() == HloOpcode::kFusion &&
         GetFusionShape(consumer) == f.shape)) {
      return &f;
    }
  }
  return nullptr;
}

}  // namespace

OpCost CostOf(const HloInstruction& instr) {
  if (instr.opcode() != HloOpcode::kFusion) return OpcodeCost(instr);
  OpCost cost = OpCost::kFree;
  for (const HloInstruction* fused :
       instr.fused_computation()->instructions()) {
    cost = std::max(cost, CostOf(*fused));
  }
  return cost;
}

std::string Describe(const HloInstruction& instr) {
  return absl::StrCat(instr.name(), " (", HloOpcodeString(instr.opcode()), ")");
}

int64_t BytesOf(const Shape& shape) {
  if (shape.IsTuple()) {
    int64_t total = 0;
    for (const Shape& element : shape.tuple_shapes()) total += BytesOf(element);
    return total;
  }
  return shape.IsArray()
             ? shape.ElementCount() * ByteWidth(shape.element_type())
             : 0;
}

std::optional<std::string> WhyNotFusibleProducer(
    const HloInstruction& producer) {
  const std::string op(HloOpcodeString(producer.opcode()));
  if (producer.HasSideEffect()) {
    return absl::StrCat("producer ", op, " has side effects");
  }
  switch (producer.opcode()) {
    case HloOpcode::kParameter:
      return std::string("producer is a parameter");
    case HloOpcode::kFusion:
      switch (GetFusionShape(producer)) {
        case FusionShape::kLoop: {
          const HloInstruction* root = producer.fused_expression_root();
          if (root->opcode() == HloOpcode::kDynamicUpdateSlice) {
            return std::string(
                "producer is an in-place dynamic-update-slice fusion");
          }
          if (root->opcode() == HloOpcode::kReduceWindow) {
            return std::string(
                "producer is a reduce-window fusion (overlapping windows: a "
                "barrier)");
          }
          return std::nullopt;
        }
        case FusionShape::kDotEpilogue:
          return std::nullopt;
        case FusionShape::kReduction:
          return std::string(
              "producer is a reduction fusion: its consumers need the "
              "complete result (reduction barrier)");
        case FusionShape::kRowReduction:
          return std::string(
              "producer is a row-reduction fusion: consumers that fit its "
              "rows are already inside");
        case FusionShape::kScan:
          return std::string(
              "producer is a scan fusion: its consumers need the whole scan "
              "(a barrier)");
        case FusionShape::kScatter:
          return std::string(
              "producer is a scatter fusion: its consumers need every update "
              "applied (a barrier)");
        case FusionShape::kUnknown:
          return std::string("producer is a fusion of unknown kind");
      }
      return std::string("producer is a fusion of unknown kind");
    case HloOpcode::kReduce:
      if (IsTrivialReduce(producer) && !producer.shape().IsTuple()) {
        return std::nullopt;
      }
      return std::string(
          "producer reduce is a reduction: its consumers need the complete "
          "result (reduction barrier)");
    case HloOpcode::kReduceWindow:
      return std::string(
          "producer reduce-window reads overlapping windows (a barrier)");
    case HloOpcode::kDot:
    case HloOpcode::kRaggedDot:
    case HloOpcode::kScaledDot:
    case HloOpcode::kConvolution:
    case HloOpcode::kFft:
    case HloOpcode::kTriangularSolve:
    case HloOpcode::kCholesky:
    case HloOpcode::kCustomCall:
      return absl::StrCat("producer ", op, " is a library call");
    case HloOpcode::kSort:
    case HloOpcode::kTopK:
      return absl::StrCat("producer ", op, " is a kernel of its own");
    case HloOpcode::kWhile:
    case HloOpcode::kConditional:
    case HloOpcode::kCall:
    case HloOpcode::kAsyncStart:
    case HloOpcode::kAsyncUpdate:
    case HloOpcode::kAsyncDone:
      return absl::StrCat("producer ", op, " is control flow");
    case HloOpcode::kDynamicUpdateSlice:
    case HloOpcode::kScatter:
    case HloOpcode::kSelectAndScatter:
      return absl::StrCat("producer ", op, " is an in-place update");
    case HloOpcode::kRngBitGenerator:
    case HloOpcode::kRng:
      return absl::StrCat("producer ", op,
                          " generates random numbers (never moved or copied)");
    case HloOpcode::kTuple:
    case HloOpcode::kGetTupleElement:
      return absl::StrCat("producer ", op, " is not a kernel");
    default:
      break;
  }
  if (IsLoopFusibleOp(producer)) return std::nullopt;
  return absl::StrCat("producer ", op, " is not loop-fusible");
}

std::optional<std::string> WhyNotFusibleConsumer(
    const HloInstruction& consumer) {
  const std::string op(HloOpcodeString(consumer.opcode()));
  if (consumer.HasSideEffect()) {
    return absl::StrCat("consumer ", op, " has side effects");
  }
  switch (consumer.opcode()) {
    case HloOpcode::kFusion:
      if (GetFusionShape(consumer) == FusionShape::kUnknown) {
        return std::string("consumer is a fusion of unknown kind");
      }
      return std::nullopt;
    case HloOpcode::kReduce:
    case HloOpcode::kReduceWindow:
    case HloOpcode::kDynamicUpdateSlice:
    case HloOpcode::kScan:
    case HloOpcode::kScatter:
      return std::nullopt;
    case HloOpcode::kDot:
    case HloOpcode::kRaggedDot:
    case HloOpcode::kScaledDot:
    case HloOpcode::kConvolution:
    case HloOpcode::kFft:
    case HloOpcode::kTriangularSolve:
    case HloOpcode::kCholesky:
    case HloOpcode::kCustomCall:
      return absl::StrCat("consumer ", op,
                          " is a library call (operands are not fused)");
    case HloOpcode::kSort:
    case HloOpcode::kTopK:
      return absl::StrCat("consumer ", op, " is a kernel of its own");
    case HloOpcode::kWhile:
    case HloOpcode::kConditional:
    case HloOpcode::kCall:
      return absl::StrCat("consumer ", op, " is control flow");
    case HloOpcode::kTuple:
    case HloOpcode::kGetTupleElement:
      return absl::StrCat("consumer ", op, " is not a kernel");
    case HloOpcode::kParameter:
    case HloOpcode::kConstant:
      return absl::StrCat("consumer ", op, " has no operands");
    default:
      break;
  }
  if (IsLoopFusibleOp(consumer)) return std::nullopt;
  return absl::StrCat("consumer ", op, " is not fusible");
}

int64_t ReuseFactor(const HloInstruction& consumer,
                    const HloInstruction& operand, FusionAnalysisCache* cache) {
  if (consumer.opcode() == HloOpcode::kFusion) {
    absl::flat_hash_map<const HloInstruction*, int64_t> own_memo;
    absl::flat_hash_map<const HloInstruction*, int64_t>& memo =
        cache != nullptr ? cache->reuse_[consumer.unique_id()] : own_memo;
    const bool row = GetFusionShape(consumer) == FusionShape::kRowReduction;
    int64_t reuse = 1;
    for (const HloInstruction* param : ParamsFor(consumer, operand)) {
      int64_t r = FusedReuse(param, &memo);
      if (row) r *= std::max<int64_t>(1, RowPassesReading(param));
      reuse = std::max(reuse, r);
    }
    return reuse;
  }
  const int64_t in = std::max<int64_t>(
      1, operand.shape().IsArray() ? operand.shape().ElementCount() : 1);
  switch (consumer.opcode()) {
    case HloOpcode::kBroadcast:
      return std::max<int64_t>(1, consumer.shape().ElementCount() / in);
    case HloOpcode::kGather:
      if (consumer.operand(0) != &operand) return 1;
      return std::max<int64_t>(1, consumer.shape().ElementCount() / in);
    case HloOpcode::kScatter: {
      // Every update element reads its scatter position's index vector.
      const int64_t n = (consumer.operand_count() - 1) / 2;
      if (consumer.operand(n) != &operand) return 1;
      const Shape& updates = consumer.operand(n + 1)->shape();
      return std::max<int64_t>(
          1, (updates.IsArray() ? updates.ElementCount() : 1) / in);
    }
    case HloOpcode::kReduceWindow: {
      if (consumer.operand(0) != &operand || !consumer.attrs().window) {
        return 1;
      }
      int64_t size = 1;
      int64_t stride = 1;
      for (const WindowDimension& d : consumer.attrs().window->dimensions) {
        size *= d.size;
        stride *= std::max<int64_t>(1, d.stride);
      }
      return std::max<int64_t>(1, (size + stride - 1) / stride);
    }
    default:
      return 1;
  }
}

std::pair<int64_t, const HloInstruction*> MaxGroupEmissions(
    const std::vector<const HloInstruction*>& members) {
  // FusedEmissions' count on the unfused group: index sources flow from the
  // group's outputs back through its members.
  const absl::flat_hash_set<const HloInstruction*> in_group(members.begin(),
                                                            members.end());
  auto in_kernel = [&](const HloInstruction* user) {
    return in_group.contains(user);
  };
  EmissionCounter counter;
  std::pair<int64_t, const HloInstruction*> most = {0, nullptr};
  for (auto it = members.rbegin(); it != members.rend(); ++it) {
    const HloInstruction* instr = *it;
    bool output =
        instr->users().empty() || instr == instr->parent()->root_instruction();
    for (const HloInstruction* user : instr->users()) {
      output |= !in_kernel(user);
    }
    counter.Add(instr, output ? 1 : 0, in_kernel);
    const int64_t e = counter.Emissions(instr);
    if (e > most.first) most = {e, instr};
  }
  return most;
}

FusionAnalysisCache::FusionAnalysisCache() = default;
FusionAnalysisCache::~FusionAnalysisCache() = default;

const EmissionCounter& FusionAnalysisCache::EmissionsOf(
    const HloInstruction& fusion) {
  std::unique_ptr<EmissionCounter>& counter = counters_[fusion.unique_id()];
  if (counter == nullptr) {
    counter = std::make_unique<EmissionCounter>(
        CountFused(*fusion.fused_computation()));
  }
  return *counter;
}

int64_t MaxFusedEmissions(const HloInstruction& fusion,
                          FusionAnalysisCache* cache) {
  if (fusion.opcode() != HloOpcode::kFusion) return 1;
  if (cache != nullptr) {
    auto it = cache->max_emissions_.find(fusion.unique_id());
    if (it != cache->max_emissions_.end()) return it->second;
  }
  std::optional<EmissionCounter> own;
  if (cache == nullptr) own = CountFused(*fusion.fused_computation());
  const EmissionCounter& counter =
      cache != nullptr ? cache->EmissionsOf(fusion) : *own;
  int64_t most = 1;
  for (const HloInstruction* instr : fusion.fused_computation()->instructions()) {
    // Loads, and what instruction-fusion lets any kernel emit freely.
    switch (instr->opcode()) {
      case HloOpcode::kParameter:
      case HloOpcode::kBroadcast:
      case HloOpcode::kConstant:
      case HloOpcode::kIota:
      case HloOpcode::kTuple:
        continue;
      default:
        most = std::max(most, counter.Emissions(instr));
    }
  }
  if (cache != nullptr) cache->max_emissions_[fusion.unique_id()] = most;
  return most;
}

int64_t ProducerEmissions(const HloInstruction& consumer,
                          const HloInstruction& producer,
                          FusionAnalysisCache* cache) {
  if (consumer.opcode() == HloOpcode::kFusion) {
    if (cache != nullptr) {
      return FusedEmissions(cache->EmissionsOf(consumer),
                            ParamsFor(consumer, producer));
    }
    return FusedEmissions(CountFused(*consumer.fused_computation()),
                          ParamsFor(consumer, producer));
  }
  if (consumer.IsElementwise()) return 1;
  return static_cast<int64_t>(consumer.OperandIndices(&producer).size());
}

FusionKind KindForConsumer(const HloInstruction& consumer) {
  if (consumer.opcode() == HloOpcode::kFusion) return consumer.fusion_kind();
  if (consumer.opcode() == HloOpcode::kReduce && !IsTrivialReduce(consumer)) {
    return FusionKind::kInput;
  }
  if (consumer.opcode() == HloOpcode::kScan ||
      consumer.opcode() == HloOpcode::kScatter) {
    return FusionKind::kCustom;
  }
  return FusionKind::kLoop;
}

int64_t FusedInstructionCount(const HloInstruction& instr) {
  if (instr.opcode() != HloOpcode::kFusion) return 1;
  int64_t n = 0;
  const HloComputation& fused = *instr.fused_computation();
  for (const HloInstruction* f : fused.instructions()) {
    if (f->opcode() == HloOpcode::kParameter) continue;
    if (f == fused.root_instruction() && f->opcode() == HloOpcode::kTuple) {
      continue;
    }
    ++n;
  }
  return n;
}

int64_t MergedOperandCount(const HloInstruction& a, const HloInstruction& b) {
  absl::flat_hash_set<const HloInstruction*> operands;
  for (const HloInstruction* operand : b.operands()) {
    if (operand != &a) operands.insert(operand);
  }
  for (const HloInstruction* operand : a.operands()) operands.insert(operand);
  return static_cast<int64_t>(operands.size());
}

FusionDecision ShouldFuse(const HloInstruction& producer,
                          const HloInstruction& consumer,
                          const FusionOptions& options,
                          FusionAnalysisCache* cache) {
  if (std::optional<std::string> why = WhyNotFusibleConsumer(consumer)) {
    return FusionDecision::No(*why);
  }
  const OpRootFusion* op_root = OpRootFusionOf(consumer);
  if (op_root != nullptr && !(options.*(op_root->enabled))) {
    const std::string op(HloOpcodeString(op_root->opcode));
    return FusionDecision::No(absl::StrCat(
        "consumer ", op, " reads its operands from memory on this target (no ",
        op, " fusions)"));
  }
  const int64_t other_users = producer.user_count() - 1;

  // Dot epilogues: the dot (or its epilogue fusion) is the producer.
  const bool producer_is_epilogue =
      producer.opcode() == HloOpcode::kFusion &&
      GetFusionShape(producer) == FusionShape::kDotEpilogue;
  if (producer.opcode() == HloOpcode::kDot || producer_is_epilogue) {
    if (producer.opcode() == HloOpcode::kDot && !options.dot_epilogue_fusion) {
      return FusionDecision::No(
          "producer dot is a library call (no dot epilogues on this target)");
    }
    if (other_users > 0) {
      return FusionDecision::No(
          absl::StrCat("producer ", HloOpcodeString(producer.opcode()), " has ",
                       producer.user_count(),
                       " consumers; a dot epilogue must be its only one"));
    }
    if (!IsElementwiseEpilogue(consumer, producer)) {
      return FusionDecision::No(
          "consumer is not an elementwise epilogue over the dot's result");
    }
    FusionDecision d;
    d.fuse = true;
    d.kind = FusionKind::kOutput;
    d.bytes_saved = 2 * BytesOf(producer.shape());
    d.rule = "fused: elementwise epilogue computed in the dot's output tile";
    return d;
  }

  if (options.reduction_epilogue_fusion && IsSingleReductionKernel(producer)) {
    if (std::optional<FusionDecision> d =
            ReductionEpilogueDecision(producer, consumer, options)) {
      return *d;
    }
  }

  if (std::optional<std::string> why = WhyNotFusibleProducer(producer)) {
    return FusionDecision::No(*why);
  }

  // Consumer-specific legality.
  if (consumer.opcode() == HloOpcode::kFusion &&
      GetFusionShape(consumer) == FusionShape::kDotEpilogue) {
    for (const HloInstruction* param : ParamsFor(consumer, producer)) {
      if (FeedsDot(param)) {
        return FusionDecision::No(
            "dot operands are not fused here (the GEMM reads them from "
            "memory; dot-prologue-fusion chose the prologue, if any)");
      }
    }
  }
  if (const HloInstruction* buffer = InPlaceBuffer(consumer)) {
    if (buffer == &producer) {
      return FusionDecision::No(
          "would break the in-place update: operand 0 of dynamic-update-slice "
          "is updated in place");
    }
    if (producer.IsUserOf(buffer)) {
      return FusionDecision::No(
          "producer reads the buffer dynamic-update-slice updates in place");
    }
  }

  const OpCost cost = CostOf(producer);
  const int64_t reuse = ReuseFactor(consumer, producer, cache);
  if (cost == OpCost::kExpensive && reuse > kMaxExpensiveRecompute) {
    return FusionDecision::No(absl::StrCat(
        "producer ", HloOpcodeString(producer.opcode()),
        " is expensive and the consumer reads each element ", reuse, " times"));
  }

  // Broadcasts, constants and iotas emit next to no code wherever they go.
  if (producer.opcode() != HloOpcode::kBroadcast &&
      producer.opcode() != HloOpcode::kConstant &&
      producer.opcode() != HloOpcode::kIota) {
    const int64_t emissions = ProducerEmissions(consumer, producer, cache);
    if (emissions > kMaxProducerEmissions) {
      return FusionDecision::No(absl::StrCat(
          "the consumer's kernel would emit the producer's code ", emissions,
          " times, at that many different indices (code duplication limit ",
          kMaxProducerEmissions, ")"));
    }
  }

  const int64_t producer_bytes = BytesOf(producer.shape());
  int64_t bytes_saved = 2 * producer_bytes;
  if (other_users > 0) {
    if (cost == OpCost::kExpensive) {
      return FusionDecision::No(absl::StrCat(
          "producer ", HloOpcodeString(producer.opcode()),
          " is expensive and has ", producer.user_count(), " consumers"));
    }
    if (FusedInstructionCount(producer) > options.max_duplicated_instructions) {
      return FusionDecision::No(
          absl::StrCat("producer has ", producer.user_count(),
                       " consumers and is too "
                       "large to duplicate (",
                       FusedInstructionCount(producer), " instructions)"));
    }
    // The copy reads the producer's operands instead of its result.
    int64_t extra_reads = 0;
    absl::flat_hash_set<const HloInstruction*> seen;
    for (const HloInstruction* operand : producer.operands()) {
      if (!seen.insert(operand).second || consumer.IsUserOf(operand)) continue;
      if (operand->opcode() == HloOpcode::kConstant) continue;
      extra_reads += BytesOf(operand->shape());
    }
    if (extra_reads >
        kMaxDuplicationReadFactor * std::max<int64_t>(producer_bytes, 1)) {
      return FusionDecision::No(absl::StrCat(
          "duplicating producer ", HloOpcodeString(producer.opcode()),
          " would read ", extra_reads, " bytes to save ", producer_bytes));
    }
    bytes_saved = producer_bytes - extra_reads;
  }

  if (std::optional<FusionDecision> refused =
          SizeLimitRefusal(producer, consumer, options)) {
    return *refused;
  }

  FusionDecision d;
  d.fuse = true;
  d.duplicate = other_users > 0;
  d.kind = KindForConsumer(consumer);
  if (op_root != nullptr && consumer.opcode() == op_root->opcode) {
    d.backend_config = std::string(op_root->backend_config);
  }
  d.bytes_saved = bytes_saved;
  d.rule = absl::StrCat("fused: ", ProducerWhat(producer), " producer into ",
                        ConsumerWhat(d.kind, consumer));
  if (d.duplicate) {
    absl::StrAppend(
        &d.rule, ", duplicated (cheap; ", other_users,
        other_users == 1 ? " other consumer)" : " other consumers)");
  }
  return d;
}

int64_t DotFlops(const HloInstruction& dot) {
  const DotDimensionNumbers dn =
      dot.attrs().dot_dimension_numbers.value_or(DotDimensionNumbers{});
  // Every output element sums one product per contracting position.
  int64_t contracting = 1;
  for (int64_t d : dn.lhs_contracting_dimensions) {
    contracting *= dot.operand(0)->shape().dimensions(d);
  }
  return 2 * dot.shape().ElementCount() * contracting;
}

FusionDecision ShouldFuseIntoDotPrologue(const HloInstruction& producer,
                                         const HloInstruction& dot,
                                         bool users_inside,
                                         const FusionOptions& options) {
  if (options.dot_prologue_max_flops <= 0) {
    return FusionDecision::No(
        "consumer dot is a library call (no dot prologues on this target)");
  }
  const PrimitiveType type = dot.shape().element_type();
  if (IsComplexType(type) || type == PRED) {
    return FusionDecision::No(
        "consumer dot is complex or pred (no tiled kernel reads a prologue)");
  }
  if (options.dot_prologue_matrix_types_only) {
    const PrimitiveType lhs = dot.operand(0)->shape().element_type();
    const PrimitiveType rhs = dot.operand(1)->shape().element_type();
    if (lhs != rhs || (lhs != F16 && lhs != BF16) ||
        (type != F32 && type != lhs)) {
      return FusionDecision::No(
          "consumer dot has no matrix-instruction form (f16/bf16 operands of "
          "one type): the library gemm is faster than the tiled kernel");
    }
  }
  const int64_t flops = DotFlops(dot);
  if (flops > options.dot_prologue_max_flops) {
    return FusionDecision::No(absl::StrCat(
        "consumer dot is large (", flops, " flops, prologue limit ",
        options.dot_prologue_max_flops,
        "): the library gemm reads its operands from memory"));
  }
  if (producer.opcode() == HloOpcode::kParameter ||
      producer.opcode() == HloOpcode::kConstant ||
      producer.opcode() == HloOpcode::kGetTupleElement) {
    return FusionDecision::No("producer is a value the kernel reads");
  }
  if (std::optional<std::string> why = WhyNotFusibleProducer(producer)) {
    return FusionDecision::No(*why);
  }
  if (producer.opcode() == HloOpcode::kFusion &&
      producer.fusion_kind() != FusionKind::kLoop) {
    return FusionDecision::No("producer is not a loop fusion");
  }
  if (options.dot_prologue_views_only && !IsViewOrConvert(producer)) {
    return FusionDecision::No(absl::StrCat(
        "producer ", HloOpcodeString(producer.opcode()),
        " is no view or convert (the GEMM's packing reads only those)"));
  }
  if (CostOf(producer) == OpCost::kExpensive) {
    return FusionDecision::No(absl::StrCat(
        "producer ", HloOpcodeString(producer.opcode()),
        " is expensive and the tiled dot reads each operand element once per "
        "output tile"));
  }
  if (!users_inside) {
    return FusionDecision::No(absl::StrCat(
        "producer ", HloOpcodeString(producer.opcode()),
        " has users outside the dot's prologue"));
  }
  FusionDecision d;
  d.fuse = true;
  d.kind = FusionKind::kOutput;
  d.bytes_saved = 2 * BytesOf(producer.shape());
  d.rule = absl::StrCat(
      "fused: cheap producer of a small dot's operand (", flops,
      " flops), computed by the tiled dot kernel as it loads its tiles");
  return d;
}

}  // namespace hloc
