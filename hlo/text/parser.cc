#include "hlo/text/parser.h"

#include <algorithm>
#include <bitset>
#include <cmath>
#include <cstdlib>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "hlo/mesh_replica_groups.h"
#include "hlo/text/lexer.h"
#include "hlo/text/mlir_hint.h"
#include "hlo/text/names.h"

namespace hloc {
namespace {

#define PARSER_TRY(expr)                             \
  do {                                               \
    absl::Status _parser_status = (expr);            \
    if (!_parser_status.ok()) return _parser_status; \
  } while (0)

// Deeper nesting (tuple shapes, literal braces, attribute values) is
// rejected rather than risking the stack on hostile input; real modules nest
// a handful of levels.
constexpr int kMaxNesting = 200;

using K = HloTokenKind;

// ---------------------------------------------------------------------------
// Numbers.

// [-]digits or [-]0x hexdigits. False on bad syntax or if the magnitude does
// not fit in 64 bits (`*overflow` tells which).
bool ParseIntegerText(absl::string_view s, bool* negative, uint64_t* magnitude,
                      bool* overflow) {
  *overflow = false;
  *negative = !s.empty() && s[0] == '-';
  if (*negative) s.remove_prefix(1);
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s.remove_prefix(2);
  }
  if (s.empty()) return false;
  uint64_t value = 0;
  for (char c : s) {
    int digit;
    if (c >= '0' && c <= '9') {
      digit = c - '0';
    } else if (base == 16 && c >= 'a' && c <= 'f') {
      digit = c - 'a' + 10;
    } else if (base == 16 && c >= 'A' && c <= 'F') {
      digit = c - 'A' + 10;
    } else {
      return false;
    }
    if (value > (std::numeric_limits<uint64_t>::max() - digit) / base) {
      *overflow = true;
      return false;
    }
    value = value * base + digit;
  }
  *magnitude = value;
  return true;
}

// [-](inf|nan|digits[.digits][e[+-]digits]) -- what XLA prints for floats.
bool IsFloatText(absl::string_view s) {
  if (!s.empty() && s[0] == '-') s.remove_prefix(1);
  if (s == "inf" || s == "nan") return true;
  size_t i = 0;
  size_t digits = 0;
  while (i < s.size() && absl::ascii_isdigit(s[i])) ++i, ++digits;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && absl::ascii_isdigit(s[i])) ++i, ++digits;
  }
  if (digits == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    size_t exp_digits = 0;
    while (i < s.size() && absl::ascii_isdigit(s[i])) ++i, ++exp_digits;
    if (exp_digits == 0) return false;
  }
  return i == s.size();
}

// Value of text accepted by IsFloatText, rounded once to `type` (f32 is
// parsed as f32, not via double, to avoid double rounding).
double FloatTextValue(absl::string_view s, PrimitiveType type) {
  const bool negative = !s.empty() && s[0] == '-';
  absl::string_view body = negative ? s.substr(1) : s;
  if (body == "nan") {
    return std::copysign(std::numeric_limits<double>::quiet_NaN(),
                         negative ? -1.0 : 1.0);
  }
  if (body == "inf") {
    return negative ? -std::numeric_limits<double>::infinity()
                    : std::numeric_limits<double>::infinity();
  }
  std::string text(s);
  if (type == F32 || type == C64) return std::strtof(text.c_str(), nullptr);
  return std::strtod(text.c_str(), nullptr);
}

// ---------------------------------------------------------------------------
// Attributes: every name this parser interprets, and which opcodes take it.

enum class Attr {
  kDimensions,
  kToApply,
  kCalls,
  kCondition,
  kBody,
  kTrueComputation,
  kFalseComputation,
  kBranchComputations,
  kSelect,
  kScatter,
  kCalledComputations,
  kSlice,
  kDynamicSliceSizes,
  kPadding,
  kWindow,
  kDimLabels,
  kFeatureGroupCount,
  kBatchGroupCount,
  kOperandPrecision,
  kResultAccuracy,
  kAlgorithm,
  kLhsContractingDims,
  kRhsContractingDims,
  kLhsBatchDims,
  kRhsBatchDims,
  kLhsRaggedDims,
  kRhsGroupDims,
  kOffsetDims,
  kCollapsedSliceDims,
  kStartIndexMap,
  kIndexVectorDim,
  kOperandBatchingDims,
  kStartIndicesBatchingDims,
  kSliceSizes,
  kIndicesAreSorted,
  kUpdateWindowDims,
  kInsertedWindowDims,
  kScatterDimsToOperandDims,
  kInputBatchingDims,
  kScatterIndicesBatchingDims,
  kUniqueIndices,
  kDirection,
  kType,
  kOrder,
  kKind,
  kIndex,
  kIotaDimension,
  kExponentBits,
  kMantissaBits,
  kIsStable,
  kK,
  kLargest,
  kNumCarries,
  kIsReverse,
  kIsAssociative,
  kEpsilon,
  kFeatureIndex,
  kDistribution,
  kFftType,
  kFftLength,
  kLeftSide,
  kLower,
  kUnitDiagonal,
  kTransposeA,
  kCustomCallTarget,
  kApiVersion,
  kCustomCallHasSideEffect,
  kOperandLayoutConstraints,
  kOutputToOperandAliasing,
  kSchedule,
  kChannelId,
  kReplicaGroups,
  kUseGlobalDeviceIds,
  kConstrainLayout,
  kSourceTargetPairs,
  kInfeedConfig,
  kOutfeedConfig,
  kOutfeedShape,
  kIsHostTransfer,
  kParameterReplication,
  kAsyncExecutionThread,
  kMetadata,
  kBackendConfig,
  kSharding,
  kFrontendAttributes,
  kControlPredecessors,
  kCount,
};

constexpr int kAttrCount = static_cast<int>(Attr::kCount);

const absl::flat_hash_map<absl::string_view, Attr>& AttrsByName() {
  static const auto* table = new absl::flat_hash_map<absl::string_view, Attr>{
      {"dimensions", Attr::kDimensions},
      {"to_apply", Attr::kToApply},
      {"calls", Attr::kCalls},
      {"condition", Attr::kCondition},
      {"body", Attr::kBody},
      {"true_computation", Attr::kTrueComputation},
      {"false_computation", Attr::kFalseComputation},
      {"branch_computations", Attr::kBranchComputations},
      {"select", Attr::kSelect},
      {"scatter", Attr::kScatter},
      {"called_computations", Attr::kCalledComputations},
      {"slice", Attr::kSlice},
      {"dynamic_slice_sizes", Attr::kDynamicSliceSizes},
      {"padding", Attr::kPadding},
      {"window", Attr::kWindow},
      {"dim_labels", Attr::kDimLabels},
      {"feature_group_count", Attr::kFeatureGroupCount},
      {"batch_group_count", Attr::kBatchGroupCount},
      {"operand_precision", Attr::kOperandPrecision},
      {"result_accuracy", Attr::kResultAccuracy},
      {"algorithm", Attr::kAlgorithm},
      {"lhs_contracting_dims", Attr::kLhsContractingDims},
      {"rhs_contracting_dims", Attr::kRhsContractingDims},
      {"lhs_batch_dims", Attr::kLhsBatchDims},
      {"rhs_batch_dims", Attr::kRhsBatchDims},
      {"lhs_ragged_dims", Attr::kLhsRaggedDims},
      {"rhs_group_dims", Attr::kRhsGroupDims},
      {"offset_dims", Attr::kOffsetDims},
      {"collapsed_slice_dims", Attr::kCollapsedSliceDims},
      {"start_index_map", Attr::kStartIndexMap},
      {"index_vector_dim", Attr::kIndexVectorDim},
      {"operand_batching_dims", Attr::kOperandBatchingDims},
      {"start_indices_batching_dims", Attr::kStartIndicesBatchingDims},
      {"slice_sizes", Attr::kSliceSizes},
      {"indices_are_sorted", Attr::kIndicesAreSorted},
      {"update_window_dims", Attr::kUpdateWindowDims},
      {"inserted_window_dims", Attr::kInsertedWindowDims},
      {"scatter_dims_to_operand_dims", Attr::kScatterDimsToOperandDims},
      {"input_batching_dims", Attr::kInputBatchingDims},
      {"scatter_indices_batching_dims", Attr::kScatterIndicesBatchingDims},
      {"unique_indices", Attr::kUniqueIndices},
      {"direction", Attr::kDirection},
      {"type", Attr::kType},
      {"order", Attr::kOrder},
      {"kind", Attr::kKind},
      {"index", Attr::kIndex},
      {"iota_dimension", Attr::kIotaDimension},
      {"exponent_bits", Attr::kExponentBits},
      {"mantissa_bits", Attr::kMantissaBits},
      {"is_stable", Attr::kIsStable},
      {"k", Attr::kK},
      {"largest", Attr::kLargest},
      {"num_carries", Attr::kNumCarries},
      {"is_reverse", Attr::kIsReverse},
      {"is_associative", Attr::kIsAssociative},
      {"epsilon", Attr::kEpsilon},
      {"feature_index", Attr::kFeatureIndex},
      {"distribution", Attr::kDistribution},
      {"fft_type", Attr::kFftType},
      {"fft_length", Attr::kFftLength},
      {"left_side", Attr::kLeftSide},
      {"lower", Attr::kLower},
      {"unit_diagonal", Attr::kUnitDiagonal},
      {"transpose_a", Attr::kTransposeA},
      {"custom_call_target", Attr::kCustomCallTarget},
      {"api_version", Attr::kApiVersion},
      {"custom_call_has_side_effect", Attr::kCustomCallHasSideEffect},
      {"operand_layout_constraints", Attr::kOperandLayoutConstraints},
      {"output_to_operand_aliasing", Attr::kOutputToOperandAliasing},
      {"schedule", Attr::kSchedule},
      {"channel_id", Attr::kChannelId},
      {"replica_groups", Attr::kReplicaGroups},
      {"use_global_device_ids", Attr::kUseGlobalDeviceIds},
      {"constrain_layout", Attr::kConstrainLayout},
      {"source_target_pairs", Attr::kSourceTargetPairs},
      {"infeed_config", Attr::kInfeedConfig},
      {"outfeed_config", Attr::kOutfeedConfig},
      {"outfeed_shape", Attr::kOutfeedShape},
      {"is_host_transfer", Attr::kIsHostTransfer},
      {"parameter_replication", Attr::kParameterReplication},
      {"async_execution_thread", Attr::kAsyncExecutionThread},
      {"metadata", Attr::kMetadata},
      {"backend_config", Attr::kBackendConfig},
      {"sharding", Attr::kSharding},
      {"frontend_attributes", Attr::kFrontendAttributes},
      {"control-predecessors", Attr::kControlPredecessors},
  };
  return *table;
}

bool OneOf(HloOpcode op, std::initializer_list<HloOpcode> ops) {
  for (HloOpcode o : ops) {
    if (o == op) return true;
  }
  return false;
}

bool IsSendRecv(HloOpcode op) {
  return OneOf(op, {HloOpcode::kSend, HloOpcode::kRecv, HloOpcode::kSendDone,
                    HloOpcode::kRecvDone});
}

bool IsDotLike(HloOpcode op) {
  return OneOf(op,
               {HloOpcode::kDot, HloOpcode::kRaggedDot, HloOpcode::kScaledDot});
}

bool IsBatchNorm(HloOpcode op) {
  return OneOf(op, {HloOpcode::kBatchNormGrad, HloOpcode::kBatchNormInference,
                    HloOpcode::kBatchNormTraining});
}

bool IsAsync(HloOpcode op) {
  return OneOf(op, {HloOpcode::kAsyncStart, HloOpcode::kAsyncUpdate,
                    HloOpcode::kAsyncDone});
}

// Whether `op` takes attribute `attr` (the table in hlo/instruction.h, plus
// XLA's printer for the opcodes this IR keeps fewer fields for).
bool AttrAllowed(Attr attr, HloOpcode op) {
  using O = HloOpcode;
  switch (attr) {
    case Attr::kMetadata:
    case Attr::kBackendConfig:
    case Attr::kSharding:
    case Attr::kFrontendAttributes:
    case Attr::kControlPredecessors:
      return true;
    case Attr::kDimensions:
      return OneOf(
          op, {O::kBroadcast, O::kReduce, O::kTranspose, O::kReverse,
               O::kConcatenate, O::kSort, O::kAllGather, O::kAllGatherStart,
               O::kAllToAll, O::kScan, O::kReduceScatter, O::kMap,
               O::kGetDimensionSize, O::kSetDimensionSize});
    case Attr::kToApply:
      return OneOf(
          op, {O::kReduce, O::kMap, O::kSort, O::kScatter, O::kReduceWindow,
               O::kAllReduce, O::kAllReduceStart, O::kReduceScatter, O::kCall,
               O::kScan, O::kTopK, O::kCollectiveReduce, O::kCustomCall});
    case Attr::kCalls:
      return op == O::kFusion || IsAsync(op);
    case Attr::kCondition:
    case Attr::kBody:
      return op == O::kWhile;
    case Attr::kTrueComputation:
    case Attr::kFalseComputation:
    case Attr::kBranchComputations:
      return op == O::kConditional;
    case Attr::kSelect:
    case Attr::kScatter:
      return op == O::kSelectAndScatter;
    case Attr::kCalledComputations:
      return op == O::kCustomCall;
    case Attr::kSlice:
      return op == O::kSlice;
    case Attr::kDynamicSliceSizes:
      return op == O::kDynamicSlice;
    case Attr::kPadding:
      return op == O::kPad;
    case Attr::kWindow:
      return OneOf(op, {O::kConvolution, O::kReduceWindow, O::kSelectAndScatter,
                        O::kCustomCall});
    case Attr::kDimLabels:
    case Attr::kFeatureGroupCount:
    case Attr::kBatchGroupCount:
      return op == O::kConvolution || op == O::kCustomCall;
    case Attr::kOperandPrecision:
      return IsDotLike(op) || op == O::kConvolution || op == O::kCustomCall;
    case Attr::kResultAccuracy:
      return HloOpcodeTakesResultAccuracy(op);
    case Attr::kAlgorithm:
      return IsDotLike(op) || op == O::kConvolution || op == O::kCustomCall ||
             op == O::kRngBitGenerator;
    case Attr::kLhsContractingDims:
    case Attr::kRhsContractingDims:
    case Attr::kLhsBatchDims:
    case Attr::kRhsBatchDims:
      return IsDotLike(op);
    case Attr::kLhsRaggedDims:
    case Attr::kRhsGroupDims:
      return op == O::kRaggedDot;
    case Attr::kOffsetDims:
    case Attr::kCollapsedSliceDims:
    case Attr::kStartIndexMap:
    case Attr::kOperandBatchingDims:
    case Attr::kStartIndicesBatchingDims:
    case Attr::kSliceSizes:
      return op == O::kGather;
    case Attr::kIndexVectorDim:
    case Attr::kIndicesAreSorted:
      return op == O::kGather || op == O::kScatter;
    case Attr::kUpdateWindowDims:
    case Attr::kInsertedWindowDims:
    case Attr::kScatterDimsToOperandDims:
    case Attr::kInputBatchingDims:
    case Attr::kScatterIndicesBatchingDims:
    case Attr::kUniqueIndices:
      return op == O::kScatter;
    case Attr::kDirection:
    case Attr::kType:
    case Attr::kOrder:
      return op == O::kCompare;
    case Attr::kKind:
      return op == O::kFusion;
    case Attr::kIndex:
      return op == O::kGetTupleElement;
    case Attr::kIotaDimension:
      return op == O::kIota;
    case Attr::kExponentBits:
    case Attr::kMantissaBits:
      return op == O::kReducePrecision;
    case Attr::kIsStable:
      // Current JAX/XLA print it on topk too (ties: the lower index first).
      return op == O::kSort || op == O::kTopK;
    case Attr::kK:
    case Attr::kLargest:
      return op == O::kTopK;
    case Attr::kNumCarries:
    case Attr::kIsReverse:
    case Attr::kIsAssociative:
      return op == O::kScan;
    case Attr::kEpsilon:
    case Attr::kFeatureIndex:
      return IsBatchNorm(op);
    case Attr::kDistribution:
      return op == O::kRng;
    case Attr::kFftType:
    case Attr::kFftLength:
      return op == O::kFft;
    case Attr::kLeftSide:
    case Attr::kUnitDiagonal:
    case Attr::kTransposeA:
      return op == O::kTriangularSolve;
    case Attr::kLower:
      return op == O::kTriangularSolve || op == O::kCholesky;
    case Attr::kCustomCallTarget:
    case Attr::kApiVersion:
    case Attr::kCustomCallHasSideEffect:
    case Attr::kOperandLayoutConstraints:
    case Attr::kOutputToOperandAliasing:
    case Attr::kSchedule:
      return op == O::kCustomCall;
    case Attr::kChannelId:
      return HloOpcodeIsCollective(op) || IsSendRecv(op);
    case Attr::kReplicaGroups:
    case Attr::kUseGlobalDeviceIds:
    case Attr::kConstrainLayout:
      return HloOpcodeIsCollective(op);
    case Attr::kSourceTargetPairs:
      return op == O::kCollectivePermute || op == O::kCollectivePermuteStart;
    case Attr::kInfeedConfig:
      return op == O::kInfeed;
    case Attr::kOutfeedConfig:
    case Attr::kOutfeedShape:
      return op == O::kOutfeed;
    case Attr::kIsHostTransfer:
      return IsSendRecv(op);
    case Attr::kParameterReplication:
      return op == O::kParameter;
    case Attr::kAsyncExecutionThread:
      return IsAsync(op);
    case Attr::kCount:
      break;
  }
  return false;
}

// Attributes XLA requires for `op` (conditional's branches are checked
// separately: either form will do).
std::vector<Attr> RequiredAttrs(HloOpcode op) {
  using O = HloOpcode;
  switch (op) {
    case O::kBroadcast:
    case O::kTranspose:
    case O::kReverse:
    case O::kConcatenate:
    case O::kGetDimensionSize:
    case O::kSetDimensionSize:
    case O::kAllGather:
    case O::kAllGatherStart:
      return {Attr::kDimensions};
    case O::kReduce:
    case O::kSort:
    case O::kReduceScatter:
      return {Attr::kDimensions, Attr::kToApply};
    case O::kMap:
    case O::kReduceWindow:
    case O::kAllReduce:
    case O::kAllReduceStart:
    case O::kCall:
    case O::kScan:
      return {Attr::kToApply};
    case O::kScatter:
      return {Attr::kUpdateWindowDims, Attr::kInsertedWindowDims,
              Attr::kScatterDimsToOperandDims, Attr::kIndexVectorDim,
              Attr::kToApply};
    case O::kGather:
      return {Attr::kOffsetDims, Attr::kCollapsedSliceDims,
              Attr::kStartIndexMap, Attr::kIndexVectorDim, Attr::kSliceSizes};
    case O::kFusion:
      return {Attr::kKind, Attr::kCalls};
    case O::kAsyncStart:
      return {Attr::kCalls};
    case O::kWhile:
      return {Attr::kCondition, Attr::kBody};
    case O::kSelectAndScatter:
      return {Attr::kSelect, Attr::kScatter};
    case O::kSlice:
      return {Attr::kSlice};
    case O::kDynamicSlice:
      return {Attr::kDynamicSliceSizes};
    case O::kPad:
      return {Attr::kPadding};
    case O::kConvolution:
      return {Attr::kDimLabels};
    case O::kCompare:
      return {Attr::kDirection};
    case O::kGetTupleElement:
      return {Attr::kIndex};
    case O::kIota:
      return {Attr::kIotaDimension};
    case O::kReducePrecision:
      return {Attr::kExponentBits, Attr::kMantissaBits};
    case O::kTopK:
      return {Attr::kK};
    case O::kBatchNormGrad:
    case O::kBatchNormInference:
    case O::kBatchNormTraining:
      return {Attr::kEpsilon, Attr::kFeatureIndex};
    case O::kRng:
      return {Attr::kDistribution};
    case O::kRngBitGenerator:
      return {Attr::kAlgorithm};
    case O::kFft:
      return {Attr::kFftType, Attr::kFftLength};
    case O::kCustomCall:
      return {Attr::kCustomCallTarget};
    case O::kCollectivePermute:
    case O::kCollectivePermuteStart:
      return {Attr::kSourceTargetPairs};
    default:
      return {};
  }
}

absl::string_view AttrName(Attr attr) {
  for (const auto& [name, a] : AttrsByName()) {
    if (a == attr) return name;
  }
  return "?";
}

// ---------------------------------------------------------------------------
// What the first pass collects; the build pass turns it into IR.

struct NameRef {
  absl::string_view name;
  int64_t offset = 0;
};

struct OperandRef {
  NameRef ref;
  std::optional<Shape> shape;  // typed operand ("f32[2]{0} %x")
};

struct PendingInstruction {
  std::unique_ptr<HloInstruction> instr;
  NameRef name;
  int64_t opcode_offset = 0;
  bool is_root = false;
  std::vector<OperandRef> operands;
  std::vector<NameRef> called;  // in called_computations() order
  std::vector<NameRef> control_predecessors;
  std::vector<int> operand_indices;  // resolved operands
  HloInstruction* built = nullptr;
};

struct PendingComputation {
  NameRef name;
  bool is_entry = false;
  std::optional<ProgramShape> signature;
  int64_t signature_offset = 0;
  std::vector<PendingInstruction> instructions;
  absl::flat_hash_map<absl::string_view, int> by_name;
  std::vector<int> callees;  // resolved, deduplicated
  std::unique_ptr<HloComputation> computation;
  HloComputation* raw = nullptr;
  std::vector<HloInstruction*> order;  // build (= schedule) order
};

// Per-instruction attribute bookkeeping while parsing.
struct AttrState {
  std::bitset<kAttrCount> seen;
  std::optional<NameRef> to_apply, calls, condition, body, true_computation,
      false_computation, select, scatter;
  std::vector<NameRef> branches, called_list;
};

class Parser {
 public:
  Parser(absl::string_view text, absl::string_view filename)
      : lexer_(text), filename_(filename) {}

  absl::StatusOr<std::unique_ptr<HloModule>> ParseModule();
  absl::StatusOr<Shape> ParseStandaloneShape();

 private:
  // --- Tokens and errors.
  // Up to kLookahead tokens are buffered in a ring; the grammar looks at
  // most one token past the next.
  const HloToken& Peek(int n = 0) {
    while (buffered_ <= n) {
      lookahead_[(head_ + buffered_) % kLookahead] = lexer_.Next();
      ++buffered_;
    }
    return lookahead_[(head_ + n) % kLookahead];
  }
  HloToken Take() {
    HloToken t = Peek();
    head_ = (head_ + 1) % kLookahead;
    --buffered_;
    return t;
  }
  bool PeekIs(K kind) { return Peek().kind == kind; }
  bool PeekWord(absl::string_view text) {
    return Peek().kind == K::kWord && Peek().text == text;
  }
  // "file:line:col: message", plus the instruction being parsed, if any.
  absl::Status ErrorAt(int64_t offset, absl::string_view message) {
    auto [line, column] = lexer_.LineColumn(offset);
    std::string text =
        absl::StrCat(filename_, ":", line, ":", column, ": ", message);
    if (!instruction_context_.empty()) {
      absl::StrAppend(&text, " (in instruction '", instruction_context_, "')");
    }
    return absl::InvalidArgumentError(text);
  }
  static std::string Describe(const HloToken& t) {
    if (t.kind == K::kEnd) return "end of input";
    std::string text(t.text.substr(0, 40));
    if (t.text.size() > 40) text += "...";
    if (t.kind == K::kError) return absl::StrCat(t.error, " '", text, "'");
    return absl::StrCat("'", text, "'");
  }
  // "expected <what> but found <token>" at the next token.
  absl::Status Expected(absl::string_view what) {
    const HloToken& t = Peek();
    return ErrorAt(t.offset,
                   absl::StrCat("expected ", what, " but found ", Describe(t)));
  }
  absl::Status Expect(K kind, absl::string_view what) {
    if (Peek().kind != kind) return Expected(what);
    Take();
    return absl::OkStatus();
  }
  absl::Status Expect(K kind) { return Expect(kind, HloTokenKindName(kind)); }

  // "{}" or "{e, e, ...}": calls parse_element once per element. A missing
  // opening brace is reported as `expected_open`.
  template <typename ParseElement>
  absl::Status ParseBracedList(ParseElement parse_element,
                               absl::string_view expected_open = "'{'") {
    PARSER_TRY(Expect(K::kLBrace, expected_open));
    if (PeekIs(K::kRBrace)) {
      Take();
      return absl::OkStatus();
    }
    while (true) {
      PARSER_TRY(parse_element());
      if (!PeekIs(K::kComma)) break;
      Take();
    }
    return Expect(K::kRBrace, "',' or '}'");
  }

  // Nesting guard: Enter() fails past kMaxNesting; every successful Enter()
  // is paired with Leave().
  absl::Status Enter() {
    if (++depth_ > kMaxNesting) {
      --depth_;
      return ErrorAt(Peek().offset, absl::StrCat("nesting deeper than ",
                                                 kMaxNesting, " levels"));
    }
    return absl::OkStatus();
  }
  void Leave() { --depth_; }

  // --- Scalars.
  absl::Status ParseInt64(int64_t* out, absl::string_view what = "an integer");
  absl::Status ParseNonNegative(int64_t* out, absl::string_view what);
  absl::Status ParseBool(bool* out);
  absl::Status ParseString(std::string* out);
  absl::Status ParseWord(HloToken* out, absl::string_view what);
  absl::Status ParseName(NameRef* out, absl::string_view what);
  // A float literal's value as `type` reads it (F32 or F64).
  absl::Status ParseFloatValue(PrimitiveType type, double* out);
  absl::Status ParseFloat(float* out);

  // --- Lists and values.
  absl::Status ParseIntList(std::vector<int64_t>* out);
  absl::Status ParseBoolList(std::vector<bool>* out);
  absl::Status ParseNameList(std::vector<NameRef>* out);
  absl::Status ParseShapeList(std::vector<Shape>* out);
  absl::Status ParseShapeIndex(std::vector<int64_t>* out);
  absl::Status ParseIntPairs(std::vector<std::pair<int64_t, int64_t>>* out);
  absl::Status ParseWindow(Window* out);
  absl::Status ParsePadding(PaddingConfig* out);
  absl::Status ParseDimLabels(ConvolutionDimensionNumbers* out);
  absl::Status ParseResultAccuracy(ResultAccuracy* out);
  absl::Status ParseSliceRanges(HloAttributes* attrs);
  absl::Status ParseReplicaGroups(HloAttributes* attrs);
  absl::Status ParsePrecisionList(std::vector<Precision>* out);
  absl::Status ParseOutputOperandAliasing(std::vector<OutputOperandAlias>* out);
  absl::Status ParseMetadata(OpMetadata* out);
  absl::Status ParseStringMap(std::map<std::string, std::string>* out);
  absl::Status ParseBackendConfig(std::string* out);
  // A balanced {...}/(...)/[...] group, returned as its exact text.
  absl::Status ParseBalanced(std::string* out);
  // An attribute value this parser does not interpret: adjacent tokens and
  // balanced groups up to the next separating whitespace or comma.
  absl::Status ParseRawValue(std::string* out);
  absl::Status SkipBalanced(int64_t* end);

  // --- Shapes and literals.
  // At an array shape ("f32[...") or, if allowed, a tuple shape ("(").
  bool AtShape(bool allow_tuple = true);
  absl::Status ParseShape(Shape* out);
  absl::Status ParseLayout(Shape* shape);
  absl::Status ParseProgramShape(ProgramShape* out);
  absl::Status ParseLiteral(const Shape& shape, Literal* out);
  absl::Status ParseLiteralLevel(const Shape& shape, int64_t dim,
                                 std::vector<HloToken>* elements);
  absl::Status ParseLiteralElement(PrimitiveType type,
                                   std::vector<HloToken>* elements);
  absl::Status SetLiteralElement(Literal* literal, int64_t index,
                                 const HloToken* tokens);
  absl::StatusOr<double> FloatElement(const HloToken& t, PrimitiveType type);

  // --- Module structure.
  absl::Status ParseHeader(HloModule* module, HloModuleConfig* config);
  absl::Status ParseStackFrameTables(StackFrameIndex* index);
  absl::Status ParseComputation();
  absl::Status ParseInstruction(PendingComputation* computation);
  absl::Status ParseAttribute(PendingInstruction* pending, AttrState* state);
  absl::Status FinishAttributes(PendingInstruction* pending, AttrState* state);

  // --- Building.
  absl::StatusOr<std::unique_ptr<HloModule>> Build(
      std::unique_ptr<HloModule> module, HloModuleConfig config,
      StackFrameIndex stack_frames);
  absl::Status OrderComputations(std::vector<int>* order);
  absl::Status BuildComputation(PendingComputation* pc, bool scheduled);

  HloLexer lexer_;
  std::string filename_;
  static constexpr int kLookahead = 4;
  HloToken lookahead_[kLookahead];
  int head_ = 0;
  int buffered_ = 0;
  int depth_ = 0;
  // Name of the instruction being parsed, for error messages.
  absl::string_view instruction_context_;

  std::vector<PendingComputation> computations_;
  absl::flat_hash_map<absl::string_view, int> computation_index_;
  int64_t entry_layout_offset_ = -1;
};

// ---------------------------------------------------------------------------
// Scalars and lists.

absl::Status Parser::ParseInt64(int64_t* out, absl::string_view what) {
  const HloToken& t = Peek();
  if (t.kind != K::kWord) return Expected(what);
  bool negative, overflow;
  uint64_t magnitude;
  if (!ParseIntegerText(t.text, &negative, &magnitude, &overflow)) {
    if (overflow) {
      return ErrorAt(t.offset,
                     absl::StrCat("integer '", t.text, "' is out of range"));
    }
    return Expected(what);
  }
  const uint64_t limit =
      negative ? uint64_t{1} << 63
               : static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  if (magnitude > limit) {
    return ErrorAt(t.offset,
                   absl::StrCat("integer '", t.text, "' is out of range"));
  }
  *out = negative ? static_cast<int64_t>(0 - magnitude)
                  : static_cast<int64_t>(magnitude);
  Take();
  return absl::OkStatus();
}

absl::Status Parser::ParseNonNegative(int64_t* out, absl::string_view what) {
  const int64_t offset = Peek().offset;
  PARSER_TRY(ParseInt64(out, what));
  if (*out < 0) {
    return ErrorAt(offset,
                   absl::StrCat("expected ", what, " but found '", *out, "'"));
  }
  return absl::OkStatus();
}

absl::Status Parser::ParseBool(bool* out) {
  if (PeekWord("true")) {
    *out = true;
  } else if (PeekWord("false")) {
    *out = false;
  } else {
    return Expected("'true' or 'false'");
  }
  Take();
  return absl::OkStatus();
}

absl::Status Parser::ParseString(std::string* out) {
  const HloToken& t = Peek();
  if (t.kind != K::kString) return Expected("a string");
  absl::StatusOr<std::string> value = UnescapeStringToken(t);
  if (!value.ok()) return ErrorAt(t.offset, value.status().message());
  *out = std::move(*value);
  Take();
  return absl::OkStatus();
}

absl::Status Parser::ParseWord(HloToken* out, absl::string_view what) {
  if (Peek().kind != K::kWord) return Expected(what);
  *out = Take();
  return absl::OkStatus();
}

absl::Status Parser::ParseName(NameRef* out, absl::string_view what) {
  const HloToken& t = Peek();
  if (t.kind != K::kWord && t.kind != K::kName) return Expected(what);
  out->name = t.name();
  out->offset = t.offset;
  Take();
  return absl::OkStatus();
}

absl::Status Parser::ParseFloatValue(PrimitiveType type, double* out) {
  const HloToken& t = Peek();
  if (t.kind != K::kWord || !IsFloatText(t.text)) {
    return Expected("a floating-point number");
  }
  *out = FloatTextValue(t.text, type);
  Take();
  return absl::OkStatus();
}

absl::Status Parser::ParseFloat(float* out) {
  double value;
  PARSER_TRY(ParseFloatValue(F32, &value));
  *out = static_cast<float>(value);
  return absl::OkStatus();
}

absl::Status Parser::ParseIntList(std::vector<int64_t>* out) {
  out->clear();
  return ParseBracedList([&]() -> absl::Status {
    int64_t value;
    PARSER_TRY(ParseInt64(&value));
    out->push_back(value);
    return absl::OkStatus();
  });
}

absl::Status Parser::ParseBoolList(std::vector<bool>* out) {
  out->clear();
  return ParseBracedList([&]() -> absl::Status {
    bool value;
    PARSER_TRY(ParseBool(&value));
    out->push_back(value);
    return absl::OkStatus();
  });
}

absl::Status Parser::ParseNameList(std::vector<NameRef>* out) {
  out->clear();
  return ParseBracedList([&]() -> absl::Status {
    NameRef ref;
    PARSER_TRY(ParseName(&ref, "a name"));
    out->push_back(ref);
    return absl::OkStatus();
  });
}

absl::Status Parser::ParseShapeList(std::vector<Shape>* out) {
  out->clear();
  return ParseBracedList([&]() -> absl::Status {
    Shape shape;
    PARSER_TRY(ParseShape(&shape));
    out->push_back(std::move(shape));
    return absl::OkStatus();
  });
}

absl::Status Parser::ParseShapeIndex(std::vector<int64_t>* out) {
  PARSER_TRY(ParseIntList(out));
  for (int64_t i : *out) {
    if (i < 0) return ErrorAt(Peek().offset, "negative shape index");
  }
  return absl::OkStatus();
}

// {{a,b},{c,d}}
absl::Status Parser::ParseIntPairs(
    std::vector<std::pair<int64_t, int64_t>>* out) {
  out->clear();
  return ParseBracedList([&]() -> absl::Status {
    std::pair<int64_t, int64_t> pair;
    PARSER_TRY(Expect(K::kLBrace, "'{'"));
    PARSER_TRY(ParseInt64(&pair.first));
    PARSER_TRY(Expect(K::kComma, "','"));
    PARSER_TRY(ParseInt64(&pair.second));
    PARSER_TRY(Expect(K::kRBrace, "'}'"));
    out->push_back(pair);
    return absl::OkStatus();
  });
}

// Splits "a<sep>b<sep>c" and parses each piece as an integer.
bool SplitInts(absl::string_view text, char sep, std::vector<int64_t>* out) {
  out->clear();
  size_t start = 0;
  while (true) {
    size_t end = text.find(sep, start);
    absl::string_view piece = text.substr(start, end == absl::string_view::npos
                                                     ? absl::string_view::npos
                                                     : end - start);
    bool negative, overflow;
    uint64_t magnitude;
    if (!ParseIntegerText(piece, &negative, &magnitude, &overflow) ||
        magnitude >
            static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return false;
    }
    out->push_back(negative ? -static_cast<int64_t>(magnitude)
                            : static_cast<int64_t>(magnitude));
    if (end == absl::string_view::npos) return true;
    start = end + 1;
  }
}

// {size=3x3 stride=2x2 pad=0_1x0_1 lhs_dilate=1x1 rhs_dilate=1x1
//  rhs_reversal=0x1}
absl::Status Parser::ParseWindow(Window* out) {
  out->dimensions.clear();
  PARSER_TRY(Expect(K::kLBrace, "'{'"));
  absl::flat_hash_set<absl::string_view> seen;
  bool has_size = false;
  while (!PeekIs(K::kRBrace)) {
    HloToken key;
    PARSER_TRY(ParseWord(&key, "a window field or '}'"));
    if (!seen.insert(key.text).second) {
      return ErrorAt(key.offset,
                     absl::StrCat("duplicate window field '", key.text, "'"));
    }
    PARSER_TRY(Expect(K::kEqual, "'='"));
    HloToken value;
    PARSER_TRY(ParseWord(&value, "a window value"));
    const bool is_size = key.text == "size";
    if (!is_size && !has_size) {
      return ErrorAt(key.offset, "window 'size' must come first");
    }
    std::vector<absl::string_view> items = absl::StrSplit(value.text, 'x');
    if (is_size) {
      has_size = true;
      out->dimensions.resize(items.size());
    } else if (items.size() != out->dimensions.size()) {
      return ErrorAt(
          value.offset,
          absl::StrCat("window field '", key.text, "' has ", items.size(),
                       " dimensions but size has ", out->dimensions.size()));
    }
    for (size_t i = 0; i < items.size(); ++i) {
      WindowDimension& dim = out->dimensions[i];
      std::vector<int64_t> nums;
      const bool is_pad = key.text == "pad";
      if (!SplitInts(items[i], is_pad ? '_' : '\0', &nums) ||
          (is_pad && nums.size() != 2)) {
        return ErrorAt(value.offset,
                       absl::StrCat("malformed window field '", key.text, "=",
                                    value.text, "'"));
      }
      if (is_size) {
        dim.size = nums[0];
      } else if (key.text == "stride") {
        dim.stride = nums[0];
      } else if (is_pad) {
        dim.padding_low = nums[0];
        dim.padding_high = nums[1];
      } else if (key.text == "lhs_dilate") {
        dim.base_dilation = nums[0];
      } else if (key.text == "rhs_dilate") {
        dim.window_dilation = nums[0];
      } else if (key.text == "rhs_reversal") {
        if (nums[0] != 0 && nums[0] != 1) {
          return ErrorAt(value.offset, "rhs_reversal values must be 0 or 1");
        }
        dim.window_reversal = nums[0] == 1;
      } else {
        return ErrorAt(key.offset,
                       absl::StrCat("unknown window field '", key.text,
                                    "', expected size, stride, pad, "
                                    "lhs_dilate, rhs_dilate or rhs_reversal"));
      }
    }
  }
  Take();
  return absl::OkStatus();
}

// 0_0x1_2_1 (low_high[_interior] per dimension); {} for rank 0.
absl::Status Parser::ParsePadding(PaddingConfig* out) {
  out->dimensions.clear();
  if (PeekIs(K::kLBrace) && Peek(1).kind == K::kRBrace) {
    Take();
    Take();
    return absl::OkStatus();
  }
  HloToken value;
  PARSER_TRY(ParseWord(&value, "a padding spec like 0_0x1_1"));
  for (absl::string_view item : absl::StrSplit(value.text, 'x')) {
    std::vector<int64_t> nums;
    if (!SplitInts(item, '_', &nums) || nums.size() < 2 || nums.size() > 3) {
      return ErrorAt(value.offset,
                     absl::StrCat("malformed padding '", value.text,
                                  "', expected low_high[_interior] per "
                                  "dimension, joined by 'x'"));
    }
    PaddingDimension dim;
    dim.edge_padding_low = nums[0];
    dim.edge_padding_high = nums[1];
    if (nums.size() == 3) dim.interior_padding = nums[2];
    out->dimensions.push_back(dim);
  }
  return absl::OkStatus();
}

// b01f_01io->b01f
absl::Status Parser::ParseDimLabels(ConvolutionDimensionNumbers* out) {
  HloToken lhs, rhs, result;
  PARSER_TRY(ParseWord(&lhs, "dim labels like b01f_01io->b01f"));
  PARSER_TRY(Expect(K::kArrow, "'->'"));
  PARSER_TRY(ParseWord(&result, "output dim labels"));
  const size_t underscore = lhs.text.find('_');
  if (underscore == absl::string_view::npos) {
    return ErrorAt(lhs.offset, absl::StrCat("malformed dim labels '", lhs.text,
                                            "', expected <input>_<kernel>"));
  }
  absl::string_view input = lhs.text.substr(0, underscore);
  absl::string_view kernel = lhs.text.substr(underscore + 1);
  const int64_t spatial = static_cast<int64_t>(input.size()) - 2;
  // Assigns one label string: `a` and `b` are the two non-spatial letters.
  auto assign = [&](absl::string_view labels, char a, char b, int64_t* dim_a,
                    int64_t* dim_b, std::vector<int64_t>* spatial_dims,
                    int64_t offset) -> absl::Status {
    auto bad = [&] {
      return ErrorAt(
          offset,
          absl::StrCat("malformed dim labels '", labels, "': expected '",
                       std::string(1, a), "', '", std::string(1, b),
                       "' and spatial digits 0..", spatial - 1, " once each"));
    };
    if (spatial < 0 || static_cast<int64_t>(labels.size()) != spatial + 2 ||
        spatial > 10) {
      return bad();
    }
    *dim_a = *dim_b = -1;
    spatial_dims->assign(spatial, -1);
    for (int64_t i = 0; i < static_cast<int64_t>(labels.size()); ++i) {
      const char c = labels[i];
      int64_t* slot = nullptr;
      if (c == a) {
        slot = dim_a;
      } else if (c == b) {
        slot = dim_b;
      } else if (c >= '0' && c - '0' < spatial) {
        slot = &(*spatial_dims)[c - '0'];
      } else {
        return bad();
      }
      if (*slot != -1) return bad();
      *slot = i;
    }
    return absl::OkStatus();
  };
  PARSER_TRY(assign(input, 'b', 'f', &out->input_batch_dimension,
                    &out->input_feature_dimension,
                    &out->input_spatial_dimensions, lhs.offset));
  PARSER_TRY(assign(kernel, 'i', 'o', &out->kernel_input_feature_dimension,
                    &out->kernel_output_feature_dimension,
                    &out->kernel_spatial_dimensions, lhs.offset));
  PARSER_TRY(assign(result.text, 'b', 'f', &out->output_batch_dimension,
                    &out->output_feature_dimension,
                    &out->output_spatial_dimensions, result.offset));
  return absl::OkStatus();
}

// {[0:2], [1:5:2]}
absl::Status Parser::ParseSliceRanges(HloAttributes* attrs) {
  attrs->slice_starts.clear();
  attrs->slice_limits.clear();
  attrs->slice_strides.clear();
  return ParseBracedList([&]() -> absl::Status {
    int64_t start, limit, stride = 1;
    PARSER_TRY(Expect(K::kLSquare, "'['"));
    PARSER_TRY(ParseInt64(&start));
    PARSER_TRY(Expect(K::kColon, "':'"));
    PARSER_TRY(ParseInt64(&limit));
    if (PeekIs(K::kColon)) {
      Take();
      PARSER_TRY(ParseInt64(&stride));
    }
    PARSER_TRY(Expect(K::kRSquare, "']'"));
    attrs->slice_starts.push_back(start);
    attrs->slice_limits.push_back(limit);
    attrs->slice_strides.push_back(stride);
    return absl::OkStatus();
  });
}

// {{0,1},{2,3}} or the iota form [2,2]<=[4] / [2,2]<=[2,2]T(1,0), or
// XLA's mesh-axes form, mesh['a'=2,'b'=2] {'b'} (sub-axes 'a':(1)2),
// expanded into explicit groups.
absl::Status Parser::ParseReplicaGroups(HloAttributes* attrs) {
  attrs->replica_groups.clear();
  attrs->iota_replica_groups.clear();
  if (PeekWord("mesh") && Peek(1).kind == K::kLSquare) {
    const int64_t offset = Take().offset;
    Take();
    DeviceMesh mesh;
    std::vector<std::string> names;
    auto name = [&](std::string* out) -> absl::Status {
      if (!PeekIs(K::kString)) return Expected("a quoted axis name");
      absl::StatusOr<std::string> text = UnescapeStringToken(Take());
      if (!text.ok()) return Expected("a quoted axis name");
      *out = *std::move(text);
      return absl::OkStatus();
    };
    while (true) {
      std::string axis;
      int64_t size;
      PARSER_TRY(name(&axis));
      PARSER_TRY(Expect(K::kEqual, "'='"));
      PARSER_TRY(ParseNonNegative(&size, "an axis size"));
      names.push_back(std::move(axis));
      mesh.axis_sizes.push_back(size);
      if (!PeekIs(K::kComma)) break;
      Take();
    }
    PARSER_TRY(Expect(K::kRSquare, "',' or ']'"));
    std::vector<MeshAxisRef> axes;
    PARSER_TRY(ParseBracedList(
        [&]() -> absl::Status {
          const int64_t at = Peek().offset;
          std::string axis;
          PARSER_TRY(name(&axis));
          MeshAxisRef ref;
          auto it = std::find(names.begin(), names.end(), axis);
          if (it == names.end()) {
            return ErrorAt(at, absl::StrCat("no mesh axis '", axis, "'"));
          }
          ref.axis = it - names.begin();
          if (PeekIs(K::kColon)) {
            Take();
            PARSER_TRY(Expect(K::kLParen, "'('"));
            PARSER_TRY(ParseNonNegative(&ref.pre_size, "a sub-axis pre-size"));
            PARSER_TRY(Expect(K::kRParen, "')'"));
            PARSER_TRY(ParseNonNegative(&ref.size, "a sub-axis size"));
          }
          axes.push_back(ref);
          return absl::OkStatus();
        },
        "'{'"));
    absl::StatusOr<std::vector<std::vector<int64_t>>> groups =
        ExpandMeshAxesReplicaGroups(mesh, axes);
    if (!groups.ok()) return ErrorAt(offset, groups.status().message());
    attrs->replica_groups = *std::move(groups);
    return absl::OkStatus();
  }
  if (PeekIs(K::kLSquare)) {
    auto dims = [&](std::string* text) -> absl::Status {
      std::vector<int64_t> values;
      PARSER_TRY(Expect(K::kLSquare, "'['"));
      while (true) {
        int64_t v;
        PARSER_TRY(ParseNonNegative(&v, "a dimension"));
        values.push_back(v);
        if (!PeekIs(K::kComma)) break;
        Take();
      }
      PARSER_TRY(Expect(K::kRSquare, "',' or ']'"));
      absl::StrAppend(text, "[", absl::StrJoin(values, ","), "]");
      return absl::OkStatus();
    };
    std::string text;
    PARSER_TRY(dims(&text));
    PARSER_TRY(Expect(K::kLeq, "'<='"));
    text += "<=";
    PARSER_TRY(dims(&text));
    if (PeekWord("T") && Peek(1).kind == K::kLParen) {
      Take();
      Take();
      std::vector<int64_t> perm;
      while (true) {
        int64_t v;
        PARSER_TRY(ParseNonNegative(&v, "a dimension"));
        perm.push_back(v);
        if (!PeekIs(K::kComma)) break;
        Take();
      }
      PARSER_TRY(Expect(K::kRParen, "',' or ')'"));
      absl::StrAppend(&text, "T(", absl::StrJoin(perm, ","), ")");
    }
    attrs->iota_replica_groups = std::move(text);
    return absl::OkStatus();
  }
  return ParseBracedList(
      [&]() -> absl::Status {
        std::vector<int64_t> group;
        PARSER_TRY(ParseIntList(&group));
        attrs->replica_groups.push_back(std::move(group));
        return absl::OkStatus();
      },
      "'{' or '['");
}

absl::Status Parser::ParsePrecisionList(std::vector<Precision>* out) {
  out->clear();
  return ParseBracedList([&]() -> absl::Status {
    HloToken word;
    PARSER_TRY(ParseWord(&word, "a precision (default, high, highest)"));
    absl::StatusOr<Precision> p =
        ParsePrecision(absl::AsciiStrToUpper(word.text));
    if (!p.ok()) return ErrorAt(word.offset, p.status().message());
    out->push_back(*p);
    return absl::OkStatus();
  });
}

// {{0}: (1, {}), {1}: (0, {2})}
absl::Status Parser::ParseOutputOperandAliasing(
    std::vector<OutputOperandAlias>* out) {
  out->clear();
  return ParseBracedList([&]() -> absl::Status {
    OutputOperandAlias alias;
    PARSER_TRY(ParseShapeIndex(&alias.output_shape_index));
    PARSER_TRY(Expect(K::kColon, "':'"));
    PARSER_TRY(Expect(K::kLParen, "'('"));
    PARSER_TRY(ParseNonNegative(&alias.operand_index, "an operand index"));
    PARSER_TRY(Expect(K::kComma, "','"));
    PARSER_TRY(ParseShapeIndex(&alias.operand_shape_index));
    PARSER_TRY(Expect(K::kRParen, "')'"));
    out->push_back(std::move(alias));
    return absl::OkStatus();
  });
}

// {op_type="..." op_name="..." source_file="..." source_line=12 ...}
absl::Status Parser::ParseMetadata(OpMetadata* out) {
  PARSER_TRY(Expect(K::kLBrace, "'{'"));
  while (!PeekIs(K::kRBrace)) {
    HloToken key;
    PARSER_TRY(ParseWord(&key, "a metadata field or '}'"));
    PARSER_TRY(Expect(K::kEqual, "'='"));
    const absl::string_view k = key.text;
    if (k == "op_type") {
      PARSER_TRY(ParseString(&out->op_type));
    } else if (k == "op_name") {
      PARSER_TRY(ParseString(&out->op_name));
    } else if (k == "source_file") {
      PARSER_TRY(ParseString(&out->source_file));
    } else if (k == "deduplicated_name") {
      PARSER_TRY(ParseString(&out->deduplicated_name));
    } else if (k == "scheduling_name") {
      PARSER_TRY(ParseString(&out->scheduling_name));
    } else if (k == "source_line") {
      PARSER_TRY(ParseInt64(&out->source_line));
    } else if (k == "source_end_line") {
      PARSER_TRY(ParseInt64(&out->source_end_line));
    } else if (k == "source_column") {
      PARSER_TRY(ParseInt64(&out->source_column));
    } else if (k == "source_end_column") {
      PARSER_TRY(ParseInt64(&out->source_end_column));
    } else if (k == "stack_frame_id") {
      PARSER_TRY(ParseInt64(&out->stack_frame_id));
    } else if (k == "preserve_layout") {
      PARSER_TRY(ParseBool(&out->preserve_layout));
    } else if (k == "profile_type") {
      // Profiling hints only; OpMetadata has no field for them.
      int64_t end;
      PARSER_TRY(SkipBalanced(&end));
    } else {
      return ErrorAt(key.offset,
                     absl::StrCat("unknown metadata field '", k, "'"));
    }
    if (PeekIs(K::kComma)) Take();
  }
  Take();
  return absl::OkStatus();
}

// {mode=default|highest} or {tolerance={atol=A,rtol=R,ulps=N}} (any of
// the three, in any order): result_accuracy.
absl::Status Parser::ParseResultAccuracy(ResultAccuracy* out) {
  *out = ResultAccuracy();
  PARSER_TRY(Expect(K::kLBrace, "'{'"));
  HloToken key;
  PARSER_TRY(ParseWord(&key, "'mode' or 'tolerance'"));
  PARSER_TRY(Expect(K::kEqual, "'='"));
  if (key.text == "mode") {
    HloToken mode;
    PARSER_TRY(ParseWord(&mode, "'default' or 'highest'"));
    if (mode.text == "default") {
      out->mode = ResultAccuracy::Mode::kDefault;
    } else if (mode.text == "highest") {
      out->mode = ResultAccuracy::Mode::kHighest;
    } else {
      return ErrorAt(mode.offset, absl::StrCat("unknown accuracy mode '",
                                               mode.text,
                                               "' (default or highest)"));
    }
  } else if (key.text == "tolerance") {
    out->has_tolerance = true;
    PARSER_TRY(Expect(K::kLBrace, "'{'"));
    while (!PeekIs(K::kRBrace)) {
      HloToken field;
      PARSER_TRY(ParseWord(&field, "'atol', 'rtol', 'ulps' or '}'"));
      PARSER_TRY(Expect(K::kEqual, "'='"));
      double* bound = field.text == "atol"   ? &out->atol
                      : field.text == "rtol" ? &out->rtol
                                             : nullptr;
      if (bound != nullptr) {
        const int64_t offset = Peek().offset;
        PARSER_TRY(ParseFloatValue(F64, bound));
        if (!(*bound >= 0)) {
          return ErrorAt(offset, absl::StrCat(field.text,
                                              " must be a non-negative number"));
        }
      } else if (field.text == "ulps") {
        PARSER_TRY(ParseNonNegative(&out->ulps, "a number of ulps"));
      } else {
        return ErrorAt(field.offset,
                       absl::StrCat("unknown tolerance field '", field.text,
                                    "' (atol, rtol or ulps)"));
      }
      if (!PeekIs(K::kComma)) break;
      Take();
    }
    PARSER_TRY(Expect(K::kRBrace, "',' or '}'"));
  } else {
    return ErrorAt(key.offset, absl::StrCat("unknown result_accuracy key '",
                                            key.text,
                                            "' (mode or tolerance)"));
  }
  return Expect(K::kRBrace, "'}'");
}

// {key="value", key2={json}}: frontend_attributes.
absl::Status Parser::ParseStringMap(std::map<std::string, std::string>* out) {
  out->clear();
  PARSER_TRY(Expect(K::kLBrace, "'{'"));
  while (!PeekIs(K::kRBrace)) {
    std::string key;
    if (PeekIs(K::kString)) {
      PARSER_TRY(ParseString(&key));
    } else {
      HloToken word;
      PARSER_TRY(ParseWord(&word, "an attribute key or '}'"));
      key = std::string(word.text);
    }
    PARSER_TRY(Expect(K::kEqual, "'='"));
    std::string value;
    if (PeekIs(K::kString)) {
      PARSER_TRY(ParseString(&value));
    } else if (PeekIs(K::kLBrace)) {
      PARSER_TRY(ParseBalanced(&value));
    } else {
      HloToken word;
      PARSER_TRY(ParseWord(&word, "a string value"));
      value = std::string(word.text);
    }
    (*out)[key] = std::move(value);
    if (!PeekIs(K::kComma)) break;
    Take();
  }
  return Expect(K::kRBrace, "',' or '}'");
}

absl::Status Parser::ParseBackendConfig(std::string* out) {
  if (PeekIs(K::kString)) return ParseString(out);
  if (PeekIs(K::kLBrace)) return ParseBalanced(out);
  return Expected("a string or a JSON object");
}

absl::Status Parser::SkipBalanced(int64_t* end) {
  std::vector<K> closers;
  do {
    HloToken t = Peek();
    switch (t.kind) {
      case K::kLBrace:
        closers.push_back(K::kRBrace);
        break;
      case K::kLParen:
        closers.push_back(K::kRParen);
        break;
      case K::kLSquare:
        closers.push_back(K::kRSquare);
        break;
      case K::kRBrace:
      case K::kRParen:
      case K::kRSquare:
        if (closers.empty() || closers.back() != t.kind) {
          return Expected(closers.empty() ? absl::string_view("'{'")
                                          : HloTokenKindName(closers.back()));
        }
        closers.pop_back();
        break;
      case K::kEnd:
      case K::kError:
        return Expected(closers.empty() ? absl::string_view("'{'")
                                        : HloTokenKindName(closers.back()));
      default:
        if (closers.empty()) return Expected("'{'");
        break;
    }
    Take();
    *end = t.end();
  } while (!closers.empty());
  return absl::OkStatus();
}

absl::Status Parser::ParseBalanced(std::string* out) {
  const int64_t start = Peek().offset;
  int64_t end = start;
  PARSER_TRY(SkipBalanced(&end));
  *out = std::string(lexer_.source().substr(start, end - start));
  return absl::OkStatus();
}

absl::Status Parser::ParseRawValue(std::string* out) {
  auto stops = [](K kind) {
    return kind == K::kEnd || kind == K::kError || kind == K::kComma ||
           kind == K::kRBrace || kind == K::kRParen || kind == K::kRSquare;
  };
  if (stops(Peek().kind)) return Expected("an attribute value");
  const int64_t start = Peek().offset;
  int64_t end = start;
  while (true) {
    const HloToken& t = Peek();
    if (t.kind == K::kLBrace || t.kind == K::kLParen || t.kind == K::kLSquare) {
      PARSER_TRY(SkipBalanced(&end));
    } else {
      end = t.end();
      Take();
    }
    const HloToken& next = Peek();
    if (next.offset != end || stops(next.kind)) break;
  }
  *out = std::string(lexer_.source().substr(start, end - start));
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------
// Shapes.

bool Parser::AtShape(bool allow_tuple) {
  const HloToken& t = Peek();
  if (t.kind == K::kLParen) return allow_tuple;
  if (t.kind != K::kWord || Peek(1).kind != K::kLSquare) return false;
  return ParsePrimitiveType(t.text).ok();
}

absl::Status Parser::ParseShape(Shape* out) {
  if (PeekIs(K::kLParen)) {
    PARSER_TRY(Enter());
    Take();
    std::vector<Shape> elements;
    absl::Status status = absl::OkStatus();
    if (PeekIs(K::kRParen)) {
      Take();
    } else {
      while (status.ok()) {
        Shape element;
        status = ParseShape(&element);
        if (!status.ok()) break;
        elements.push_back(std::move(element));
        if (!PeekIs(K::kComma)) {
          status = Expect(K::kRParen, "',' or ')'");
          break;
        }
        Take();
      }
    }
    Leave();
    PARSER_TRY(status);
    *out = Shape::Tuple(std::move(elements));
    return absl::OkStatus();
  }
  const HloToken type_token = Peek();
  if (type_token.kind != K::kWord) return Expected("a shape");
  absl::StatusOr<PrimitiveType> type = ParsePrimitiveType(type_token.text);
  if (!type.ok() || *type == TUPLE || *type == PRIMITIVE_TYPE_INVALID) {
    return Expected("a shape");
  }
  Take();
  PARSER_TRY(Expect(K::kLSquare, "'['"));
  std::vector<int64_t> dims;
  std::vector<bool> dynamic;
  if (!PeekIs(K::kRSquare)) {
    while (true) {
      bool is_dynamic = false;
      if (PeekIs(K::kLeq)) {
        Take();
        is_dynamic = true;
      } else if (PeekIs(K::kQuestion)) {
        return ErrorAt(Peek().offset,
                       "unbounded dynamic dimensions ('?') are not supported");
      }
      int64_t size;
      PARSER_TRY(ParseNonNegative(&size, "a dimension size"));
      dims.push_back(size);
      dynamic.push_back(is_dynamic);
      if (!PeekIs(K::kComma)) break;
      Take();
    }
  }
  const HloToken close = Peek();
  PARSER_TRY(Expect(K::kRSquare, "',' or ']'"));
  if (*type == TOKEN || *type == OPAQUE_TYPE) {
    if (!dims.empty()) {
      return ErrorAt(
          type_token.offset,
          absl::StrCat(type_token.text, " shapes have no dimensions"));
    }
    *out = *type == TOKEN ? Shape::Token() : Shape(OPAQUE_TYPE, {});
    return absl::OkStatus();
  }
  // The size must be representable: no later stage has to worry about
  // element counts or byte sizes overflowing.
  bool has_zero = false;
  for (int64_t d : dims) has_zero |= d == 0;
  if (!has_zero) {
    int64_t count = 1;
    const int64_t width = std::max<int64_t>(ByteWidth(*type), 1);
    for (int64_t d : dims) {
      if (count > std::numeric_limits<int64_t>::max() / d / width) {
        return ErrorAt(type_token.offset,
                       "shape has too many elements (its byte size overflows "
                       "64 bits)");
      }
      count *= d;
    }
  }
  Shape shape(*type, std::move(dims));
  for (size_t i = 0; i < dynamic.size(); ++i) {
    shape.set_dynamic_dimension(i, dynamic[i]);
  }
  // A layout must touch the ']' ("f32[2]{0}"); "f32[2] {" is a computation
  // body after a signature's result shape.
  if (PeekIs(K::kLBrace) && Peek().offset == close.end()) {
    PARSER_TRY(ParseLayout(&shape));
  }
  *out = std::move(shape);
  return absl::OkStatus();
}

// {1,0:T(8,128)(2,1)L(4)#(s32)*(s32)E(16)S(1)M(8)}
absl::Status Parser::ParseLayout(Shape* shape) {
  const int64_t start = Peek().offset;
  Take();
  Layout layout;
  if (Peek().kind == K::kWord) {
    while (true) {
      int64_t dim;
      PARSER_TRY(ParseInt64(&dim, "a dimension number"));
      layout.minor_to_major.push_back(dim);
      if (!PeekIs(K::kComma)) break;
      Take();
    }
  }
  if (PeekIs(K::kColon)) {
    Take();
    auto paren_int = [&](int64_t* value) -> absl::Status {
      PARSER_TRY(Expect(K::kLParen, "'('"));
      PARSER_TRY(ParseNonNegative(value, "a non-negative integer"));
      return Expect(K::kRParen, "')'");
    };
    auto paren_type = [&](PrimitiveType* type) -> absl::Status {
      PARSER_TRY(Expect(K::kLParen, "'('"));
      HloToken word;
      PARSER_TRY(ParseWord(&word, "an element type"));
      absl::StatusOr<PrimitiveType> t = ParsePrimitiveType(word.text);
      if (!t.ok()) return ErrorAt(word.offset, t.status().message());
      *type = *t;
      return Expect(K::kRParen, "')'");
    };
    while (!PeekIs(K::kRBrace)) {
      const HloToken t = Peek();
      if (t.kind == K::kHash) {
        Take();
        PARSER_TRY(paren_type(&layout.index_primitive_type));
      } else if (t.kind == K::kStar) {
        Take();
        PARSER_TRY(paren_type(&layout.pointer_primitive_type));
      } else if (t.kind == K::kWord && t.text == "T") {
        Take();
        if (!PeekIs(K::kLParen)) return Expected("'(' after T");
        while (PeekIs(K::kLParen)) {
          Take();
          Tile tile;
          while (!PeekIs(K::kRParen)) {
            if (PeekIs(K::kStar)) {
              Take();
              tile.dimensions.push_back(Tile::kCombineDimension);
            } else {
              int64_t d;
              PARSER_TRY(ParseNonNegative(&d, "a tile size"));
              tile.dimensions.push_back(d);
            }
            if (!PeekIs(K::kComma)) break;
            Take();
          }
          PARSER_TRY(Expect(K::kRParen, "',' or ')'"));
          layout.tiles.push_back(std::move(tile));
        }
      } else if (t.kind == K::kWord && t.text == "L") {
        Take();
        PARSER_TRY(paren_int(&layout.tail_padding_alignment_in_elements));
      } else if (t.kind == K::kWord && t.text == "E") {
        Take();
        PARSER_TRY(paren_int(&layout.element_size_in_bits));
      } else if (t.kind == K::kWord && t.text == "S") {
        Take();
        PARSER_TRY(paren_int(&layout.memory_space));
      } else if (t.kind == K::kWord && t.text == "M") {
        Take();
        PARSER_TRY(paren_int(&layout.dynamic_shape_metadata_prefix_bytes));
      } else {
        return Expected("a layout attribute (T, L, E, S, M, #, *) or '}'");
      }
    }
  }
  PARSER_TRY(Expect(K::kRBrace, "',', ':' or '}'"));
  const int64_t rank = shape->rank();
  std::vector<bool> used(rank, false);
  bool ok = static_cast<int64_t>(layout.minor_to_major.size()) == rank;
  for (int64_t d : layout.minor_to_major) {
    if (!ok || d < 0 || d >= rank || used[d]) {
      ok = false;
      break;
    }
    used[d] = true;
  }
  if (!ok) {
    return ErrorAt(
        start,
        absl::StrCat("layout {", absl::StrJoin(layout.minor_to_major, ","),
                     "} is not a permutation of the ", rank,
                     " dimensions of the shape"));
  }
  shape->set_layout(std::move(layout));
  return absl::OkStatus();
}

// (f32[2]{0}, s32[])->f32[]
absl::Status Parser::ParseProgramShape(ProgramShape* out) {
  PARSER_TRY(Expect(K::kLParen, "'('"));
  if (!PeekIs(K::kRParen)) {
    while (true) {
      Shape shape;
      PARSER_TRY(ParseShape(&shape));
      out->parameters.push_back(std::move(shape));
      if (!PeekIs(K::kComma)) break;
      Take();
    }
  }
  PARSER_TRY(Expect(K::kRParen, "',' or ')'"));
  PARSER_TRY(Expect(K::kArrow, "'->'"));
  return ParseShape(&out->result);
}

// ---------------------------------------------------------------------------
// Literals. Element tokens are collected first and checked against the
// shape; storage is allocated only once the text has supplied every element,
// so a tiny text cannot make the parser allocate a huge literal.

absl::Status Parser::ParseLiteral(const Shape& shape, Literal* out) {
  PARSER_TRY(Enter());
  struct LeaveOnExit {
    Parser* p;
    ~LeaveOnExit() { p->Leave(); }
  } leave{this};
  if (shape.IsTuple()) {
    PARSER_TRY(Expect(K::kLParen, "'(' starting a tuple constant"));
    std::vector<Literal> elements;
    for (int64_t i = 0; i < shape.tuple_shapes_size(); ++i) {
      if (i > 0) PARSER_TRY(Expect(K::kComma, "','"));
      const Shape& element_shape = shape.tuple_shapes(i);
      if (!element_shape.IsTuple() && AtShape(/*allow_tuple=*/false)) {
        const int64_t offset = Peek().offset;
        Shape written;
        PARSER_TRY(ParseShape(&written));
        if (!written.Compatible(element_shape)) {
          return ErrorAt(
              offset,
              absl::StrCat("tuple element shape ", written.ToString(),
                           " does not match ", element_shape.ToString()));
        }
      }
      Literal element;
      PARSER_TRY(ParseLiteral(element_shape, &element));
      elements.push_back(std::move(element));
    }
    PARSER_TRY(Expect(K::kRParen, "')' ending the tuple constant"));
    *out = Literal::MakeTuple(std::move(elements));
    *out->mutable_shape_do_not_use() = shape;
    return absl::OkStatus();
  }
  const PrimitiveType type = shape.element_type();
  if (!shape.IsArray() || !IsSupportedElementType(type)) {
    return ErrorAt(Peek().offset,
                   absl::StrCat("constants of type ", PrimitiveTypeName(type),
                                " are not supported"));
  }
  std::vector<HloToken> tokens;
  if (shape.rank() == 0) {
    PARSER_TRY(ParseLiteralElement(type, &tokens));
  } else {
    PARSER_TRY(ParseLiteralLevel(shape, 0, &tokens));
  }
  Literal literal(shape);
  const int per_element = IsComplexType(type) ? 2 : 1;
  for (int64_t i = 0; i < literal.element_count(); ++i) {
    PARSER_TRY(SetLiteralElement(&literal, i, &tokens[i * per_element]));
  }
  *out = std::move(literal);
  return absl::OkStatus();
}

absl::Status Parser::ParseLiteralLevel(const Shape& shape, int64_t dim,
                                       std::vector<HloToken>* elements) {
  PARSER_TRY(Enter());
  struct LeaveOnExit {
    Parser* p;
    ~LeaveOnExit() { p->Leave(); }
  } leave{this};
  if (PeekIs(K::kLBrace) && Peek(1).kind == K::kWord && Peek(1).text == "...") {
    return ErrorAt(Peek().offset,
                   "constant values were elided as '{...}' when this module "
                   "was printed; print it with large constants included");
  }
  PARSER_TRY(Expect(K::kLBrace, absl::StrCat("'{' starting dimension ", dim,
                                             " of a constant")));
  const int64_t size = shape.dimensions(dim);
  int64_t count = 0;
  if (!PeekIs(K::kRBrace)) {
    while (true) {
      if (count == size) {
        return ErrorAt(Peek().offset,
                       absl::StrCat("too many elements in dimension ", dim,
                                    " of the constant: its shape ",
                                    shape.ToString(false), " has ", size));
      }
      if (dim + 1 < shape.rank()) {
        PARSER_TRY(ParseLiteralLevel(shape, dim + 1, elements));
      } else {
        PARSER_TRY(ParseLiteralElement(shape.element_type(), elements));
      }
      ++count;
      if (!PeekIs(K::kComma)) break;
      Take();
    }
  }
  if (!PeekIs(K::kRBrace)) return Expected("',' or '}'");
  if (count != size) {
    return ErrorAt(Peek().offset,
                   absl::StrCat("dimension ", dim, " of the constant has ",
                                count, " elements but its shape ",
                                shape.ToString(false), " needs ", size));
  }
  Take();
  return absl::OkStatus();
}

absl::Status Parser::ParseLiteralElement(PrimitiveType type,
                                         std::vector<HloToken>* elements) {
  if (IsComplexType(type)) {
    PARSER_TRY(Expect(K::kLParen, "'(' starting a complex value"));
    if (!PeekIs(K::kWord)) return Expected("a number");
    elements->push_back(Take());
    PARSER_TRY(Expect(K::kComma, "','"));
    if (!PeekIs(K::kWord)) return Expected("a number");
    elements->push_back(Take());
    return Expect(K::kRParen, "')'");
  }
  if (!PeekIs(K::kWord)) {
    return Expected(type == PRED ? "'true' or 'false'" : "a number");
  }
  elements->push_back(Take());
  return absl::OkStatus();
}

absl::StatusOr<double> Parser::FloatElement(const HloToken& t,
                                            PrimitiveType type) {
  if (!IsFloatText(t.text)) {
    return ErrorAt(t.offset, absl::StrCat("expected a value of type ",
                                          PrimitiveTypeName(type),
                                          " but found '", t.text, "'"));
  }
  double value = FloatTextValue(t.text, type);
  // Round to the target type; a finite number must stay finite.
  double rounded = value;
  if (type == F16) rounded = static_cast<float>(Half(value));
  if (type == BF16) rounded = static_cast<float>(BFloat16(value));
  if (type == F32 || type == C64) rounded = static_cast<float>(value);
  const bool written_infinite =
      absl::StrContains(t.text, "inf") || absl::StrContains(t.text, "nan");
  if (!written_infinite && !std::isfinite(rounded)) {
    return ErrorAt(t.offset,
                   absl::StrCat("value '", t.text, "' is out of range for ",
                                PrimitiveTypeName(type)));
  }
  return value;
}

absl::Status Parser::SetLiteralElement(Literal* literal, int64_t index,
                                       const HloToken* tokens) {
  const PrimitiveType type = literal->element_type();
  const HloToken& t = tokens[0];
  if (type == PRED) {
    if (t.text == "true" || t.text == "1") {
      literal->SetFromInt64(index, 1);
    } else if (t.text == "false" || t.text == "0") {
      literal->SetFromInt64(index, 0);
    } else {
      return ErrorAt(t.offset, absl::StrCat("expected 'true' or 'false' but "
                                            "found '",
                                            t.text, "'"));
    }
    return absl::OkStatus();
  }
  if (IsIntegralType(type)) {
    bool negative, overflow;
    uint64_t magnitude;
    const int bits = BitWidth(type);
    const bool is_signed = IsSignedIntegralType(type);
    const uint64_t max_positive =
        is_signed ? (uint64_t{1} << (bits - 1)) - 1
                  : (bits == 64 ? std::numeric_limits<uint64_t>::max()
                                : (uint64_t{1} << bits) - 1);
    const uint64_t max_negative = is_signed ? uint64_t{1} << (bits - 1) : 0;
    const bool parsed =
        ParseIntegerText(t.text, &negative, &magnitude, &overflow);
    if (!parsed && !overflow) {
      return ErrorAt(t.offset, absl::StrCat("expected an integer but found '",
                                            t.text, "'"));
    }
    if (!parsed || magnitude > (negative ? max_negative : max_positive)) {
      return ErrorAt(t.offset,
                     absl::StrCat("value '", t.text, "' is out of range for ",
                                  PrimitiveTypeName(type)));
    }
    literal->SetFromInt64(index, negative ? static_cast<int64_t>(0 - magnitude)
                                          : static_cast<int64_t>(magnitude));
    return absl::OkStatus();
  }
  if (IsComplexType(type)) {
    const PrimitiveType part = ComplexComponentType(type);
    absl::StatusOr<double> re = FloatElement(tokens[0], part);
    if (!re.ok()) return re.status();
    absl::StatusOr<double> im = FloatElement(tokens[1], part);
    if (!im.ok()) return im.status();
    if (type == C64) {
      literal->data<complex64>()[index] =
          complex64(static_cast<float>(*re), static_cast<float>(*im));
    } else {
      literal->data<complex128>()[index] = complex128(*re, *im);
    }
    return absl::OkStatus();
  }
  absl::StatusOr<double> value = FloatElement(t, type);
  if (!value.ok()) return value.status();
  literal->SetFromDouble(index, *value);
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------
// Module header and debug tables.

absl::Status Parser::ParseHeader(HloModule* module, HloModuleConfig* config) {
  Take();  // HloModule
  NameRef name;
  PARSER_TRY(ParseName(&name, "a module name"));
  module->set_name(std::string(name.name));
  absl::flat_hash_set<absl::string_view> seen;
  while (PeekIs(K::kComma)) {
    Take();
    HloToken key;
    PARSER_TRY(ParseWord(&key, "a module attribute name"));
    if (!seen.insert(key.text).second) {
      return ErrorAt(key.offset, absl::StrCat("duplicate module attribute '",
                                              key.text, "'"));
    }
    PARSER_TRY(Expect(K::kEqual, "'='"));
    const absl::string_view k = key.text;
    if (k == "is_scheduled") {
      PARSER_TRY(ParseBool(&config->is_scheduled));
    } else if (k == "entry_computation_layout") {
      entry_layout_offset_ = key.offset;
      ProgramShape layout;
      PARSER_TRY(Expect(K::kLBrace, "'{'"));
      PARSER_TRY(ParseProgramShape(&layout));
      PARSER_TRY(Expect(K::kRBrace, "'}'"));
      config->entry_computation_layout = std::move(layout);
    } else if (k == "replica_count") {
      PARSER_TRY(ParseNonNegative(&config->replica_count, "a replica count"));
    } else if (k == "num_partitions") {
      PARSER_TRY(
          ParseNonNegative(&config->num_partitions, "a partition count"));
    } else if (k == "frontend_attributes") {
      PARSER_TRY(ParseStringMap(&config->frontend_attributes));
    } else if (k == "input_output_alias") {
      // { {0}: (0, {}, may-alias), {1}: (1, {}) }
      PARSER_TRY(Expect(K::kLBrace, "'{'"));
      while (!PeekIs(K::kRBrace)) {
        InputOutputAlias alias;
        PARSER_TRY(ParseShapeIndex(&alias.output_index));
        PARSER_TRY(Expect(K::kColon, "':'"));
        PARSER_TRY(Expect(K::kLParen, "'('"));
        PARSER_TRY(
            ParseNonNegative(&alias.parameter_number, "a parameter number"));
        PARSER_TRY(Expect(K::kComma, "','"));
        PARSER_TRY(ParseShapeIndex(&alias.parameter_index));
        if (PeekIs(K::kComma)) {
          Take();
          if (PeekWord("must-alias")) {
            alias.must_alias = true;
          } else if (!PeekWord("may-alias")) {
            return Expected("'may-alias' or 'must-alias'");
          }
          Take();
        }
        PARSER_TRY(Expect(K::kRParen, "')'"));
        config->input_output_alias.push_back(std::move(alias));
        if (!PeekIs(K::kComma)) break;
        Take();
      }
      PARSER_TRY(Expect(K::kRBrace, "',' or '}'"));
    } else if (k == "buffer_donor") {
      // { (0, {}), (1, {}) }
      PARSER_TRY(Expect(K::kLBrace, "'{'"));
      while (!PeekIs(K::kRBrace)) {
        BufferDonor donor;
        PARSER_TRY(Expect(K::kLParen, "'('"));
        PARSER_TRY(
            ParseNonNegative(&donor.parameter_number, "a parameter number"));
        PARSER_TRY(Expect(K::kComma, "','"));
        PARSER_TRY(ParseShapeIndex(&donor.parameter_index));
        PARSER_TRY(Expect(K::kRParen, "')'"));
        config->buffer_donor.push_back(std::move(donor));
        if (!PeekIs(K::kComma)) break;
        Take();
      }
      PARSER_TRY(Expect(K::kRBrace, "',' or '}'"));
    } else {
      RawAttribute raw;
      raw.name = std::string(k);
      PARSER_TRY(ParseRawValue(&raw.value));
      config->raw_attributes.push_back(std::move(raw));
    }
  }
  return absl::OkStatus();
}

bool IsTableName(absl::string_view s) {
  return s == "FileNames" || s == "FunctionNames" || s == "FileLocations" ||
         s == "StackFrames";
}

absl::Status Parser::ParseStackFrameTables(StackFrameIndex* index) {
  absl::flat_hash_set<absl::string_view> seen;
  // A table name followed by '{' or '(' would be a computation of that name.
  while (Peek().kind == K::kWord && IsTableName(Peek().text) &&
         Peek(1).kind != K::kLBrace && Peek(1).kind != K::kLParen) {
    const HloToken table = Take();
    if (!seen.insert(table.text).second) {
      return ErrorAt(table.offset,
                     absl::StrCat("duplicate table '", table.text, "'"));
    }
    int64_t expected_id = 1;
    // Rows: "<id> value", ids 1, 2, 3, ...
    while (Peek().kind == K::kWord && absl::ascii_isdigit(Peek().text[0])) {
      const HloToken id_token = Peek();
      int64_t id;
      PARSER_TRY(ParseInt64(&id, "a row number"));
      if (id != expected_id) {
        return ErrorAt(id_token.offset,
                       absl::StrCat("expected row ", expected_id, " of ",
                                    table.text, " but found row ", id));
      }
      ++expected_id;
      if (table.text == "FileNames" || table.text == "FunctionNames") {
        std::string value;
        PARSER_TRY(ParseString(&value));
        (table.text == "FileNames" ? index->file_names : index->function_names)
            .push_back(std::move(value));
        continue;
      }
      PARSER_TRY(Expect(K::kLBrace, "'{'"));
      StackFrameIndex::FileLocation location;
      StackFrameIndex::StackFrame frame;
      const bool is_location = table.text == "FileLocations";
      while (!PeekIs(K::kRBrace)) {
        HloToken key;
        PARSER_TRY(ParseWord(&key, "a field name or '}'"));
        PARSER_TRY(Expect(K::kEqual, "'='"));
        int64_t* field = nullptr;
        const absl::string_view k = key.text;
        if (is_location) {
          if (k == "file_name_id") field = &location.file_name_id;
          if (k == "function_name_id") field = &location.function_name_id;
          if (k == "line") field = &location.line;
          if (k == "end_line") field = &location.end_line;
          if (k == "column") field = &location.column;
          if (k == "end_column") field = &location.end_column;
        } else {
          if (k == "file_location_id") field = &frame.file_location_id;
          if (k == "parent_frame_id") field = &frame.parent_frame_id;
        }
        if (field == nullptr) {
          return ErrorAt(key.offset, absl::StrCat("unknown ", table.text,
                                                  " field '", k, "'"));
        }
        PARSER_TRY(ParseInt64(field));
        if (PeekIs(K::kComma)) Take();
      }
      Take();
      if (is_location) {
        index->file_locations.push_back(location);
      } else {
        // XLA prints a frame's parent one higher than it stores it (0, no
        // parent, prints as 1); the IR holds the stored (proto) value.
        if (frame.parent_frame_id < 1) {
          return ErrorAt(id_token.offset,
                         "parent_frame_id must be at least 1 in text");
        }
        frame.parent_frame_id -= 1;
        index->stack_frames.push_back(frame);
      }
    }
  }
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------
// Computations and instructions.

absl::Status Parser::ParseComputation() {
  PendingComputation pc;
  // "ENTRY" is the keyword unless it is itself the computation's name.
  if (PeekWord("ENTRY") &&
      (Peek(1).kind == K::kWord || Peek(1).kind == K::kName)) {
    Take();
    pc.is_entry = true;
  }
  PARSER_TRY(ParseName(&pc.name, "a computation name"));
  if (PeekIs(K::kLParen)) {
    // Signature: (p0: f32[], p1: s32[2]) -> f32[]
    pc.signature_offset = Peek().offset;
    ProgramShape signature;
    Take();
    if (!PeekIs(K::kRParen)) {
      while (true) {
        NameRef param;
        PARSER_TRY(ParseName(&param, "a parameter name"));
        PARSER_TRY(Expect(K::kColon, "':'"));
        Shape shape;
        PARSER_TRY(ParseShape(&shape));
        signature.parameters.push_back(std::move(shape));
        signature.parameter_names.push_back(std::string(param.name));
        if (!PeekIs(K::kComma)) break;
        Take();
      }
    }
    PARSER_TRY(Expect(K::kRParen, "',' or ')'"));
    PARSER_TRY(Expect(K::kArrow, "'->'"));
    PARSER_TRY(ParseShape(&signature.result));
    pc.signature = std::move(signature);
  }
  PARSER_TRY(Expect(K::kLBrace, "'{' starting the computation body"));
  while (!PeekIs(K::kRBrace)) {
    if (PeekIs(K::kEnd) || PeekIs(K::kError)) {
      return Expected("an instruction or '}'");
    }
    PARSER_TRY(ParseInstruction(&pc));
  }
  const int64_t close = Take().offset;
  if (pc.instructions.empty()) {
    return ErrorAt(close, absl::StrCat("computation '", pc.name.name,
                                       "' has no instructions"));
  }
  if (pc.is_entry) {
    for (const PendingComputation& other : computations_) {
      if (other.is_entry) {
        return ErrorAt(
            pc.name.offset,
            absl::StrCat("second ENTRY computation '", pc.name.name,
                         "' (the first is '", other.name.name, "')"));
      }
    }
  }
  const int index = static_cast<int>(computations_.size());
  if (!computation_index_.emplace(pc.name.name, index).second) {
    return ErrorAt(pc.name.offset, absl::StrCat("duplicate computation name '",
                                                pc.name.name, "'"));
  }
  computations_.push_back(std::move(pc));
  return absl::OkStatus();
}

absl::Status Parser::ParseInstruction(PendingComputation* pc) {
  struct ClearContext {
    absl::string_view* context;
    ~ClearContext() { *context = absl::string_view(); }
  } clear_context{&instruction_context_};
  PendingInstruction pi;
  if (PeekWord("ROOT") && Peek(1).kind != K::kEqual) {
    Take();
    pi.is_root = true;
  }
  PARSER_TRY(ParseName(&pi.name, "an instruction name"));
  instruction_context_ = pi.name.name;
  PARSER_TRY(Expect(K::kEqual, "'='"));
  Shape shape;
  PARSER_TRY(ParseShape(&shape));
  const HloToken op_token = Peek();
  if (op_token.kind != K::kWord) return Expected("an opcode");
  absl::StatusOr<HloOpcode> opcode = StringToHloOpcode(op_token.text);
  if (!opcode.ok()) {
    return ErrorAt(op_token.offset,
                   absl::StrCat("unknown opcode '", op_token.text, "'"));
  }
  Take();
  pi.opcode_offset = op_token.offset;
  pi.instr = HloInstruction::Create(*opcode, shape, {});
  HloAttributes& attrs = pi.instr->mutable_attrs();
  PARSER_TRY(Expect(K::kLParen, "'('"));
  if (*opcode == HloOpcode::kParameter) {
    PARSER_TRY(ParseNonNegative(&attrs.parameter_number, "a parameter number"));
  } else if (*opcode == HloOpcode::kConstant) {
    // Older XLA wrote the shape again inside: constant(f32[2] {1, 2}).
    if (AtShape(/*allow_tuple=*/false)) {
      const int64_t offset = Peek().offset;
      Shape written;
      PARSER_TRY(ParseShape(&written));
      if (!written.Compatible(shape)) {
        return ErrorAt(offset,
                       absl::StrCat("constant shape ", written.ToString(),
                                    " does not match ", shape.ToString()));
      }
    }
    Literal literal;
    PARSER_TRY(ParseLiteral(shape, &literal));
    attrs.literal = std::move(literal);
  } else if (!PeekIs(K::kRParen)) {
    while (true) {
      OperandRef operand;
      if (AtShape()) {
        Shape operand_shape;
        PARSER_TRY(ParseShape(&operand_shape));
        operand.shape = std::move(operand_shape);
      }
      PARSER_TRY(ParseName(&operand.ref, "an operand name"));
      pi.operands.push_back(std::move(operand));
      if (!PeekIs(K::kComma)) break;
      Take();
    }
  }
  PARSER_TRY(Expect(K::kRParen, "',' or ')'"));
  std::optional<int> arity = HloOpcodeArity(*opcode);
  if (arity && *opcode != HloOpcode::kParameter &&
      *opcode != HloOpcode::kConstant &&
      static_cast<int>(pi.operands.size()) != *arity) {
    return ErrorAt(op_token.offset,
                   absl::StrCat(op_token.text, " takes ", *arity, " operand",
                                *arity == 1 ? "" : "s", " but ",
                                pi.operands.size(), " were given"));
  }
  AttrState state;
  while (PeekIs(K::kComma)) {
    Take();
    PARSER_TRY(ParseAttribute(&pi, &state));
  }
  PARSER_TRY(FinishAttributes(&pi, &state));
  instruction_context_ = absl::string_view();  // the messages below name it
  if (pi.is_root) {
    for (const PendingInstruction& other : pc->instructions) {
      if (other.is_root) {
        return ErrorAt(
            pi.name.offset,
            absl::StrCat("second ROOT instruction '", pi.name.name,
                         "' (the first is '", other.name.name, "')"));
      }
    }
  }
  const int index = static_cast<int>(pc->instructions.size());
  if (!pc->by_name.emplace(pi.name.name, index).second) {
    return ErrorAt(pi.name.offset,
                   absl::StrCat("duplicate instruction name '", pi.name.name,
                                "' in computation '", pc->name.name, "'"));
  }
  pi.instr->SetName(std::string(pi.name.name));
  pc->instructions.push_back(std::move(pi));
  return absl::OkStatus();
}

absl::Status Parser::ParseAttribute(PendingInstruction* pi, AttrState* state) {
  const HloToken key = Peek();
  if (key.kind != K::kWord) return Expected("an attribute name");
  Take();
  PARSER_TRY(Expect(K::kEqual, "'='"));
  HloInstruction& instr = *pi->instr;
  const HloOpcode opcode = instr.opcode();
  auto it = AttrsByName().find(key.text);
  if (it == AttrsByName().end()) {
    RawAttribute raw;
    raw.name = std::string(key.text);
    PARSER_TRY(ParseRawValue(&raw.value));
    instr.mutable_raw_attributes()->push_back(std::move(raw));
    return absl::OkStatus();
  }
  const Attr attr = it->second;
  if (!AttrAllowed(attr, opcode)) {
    return ErrorAt(key.offset,
                   absl::StrCat("attribute '", key.text, "' is not valid for ",
                                HloOpcodeString(opcode)));
  }
  if (state->seen[static_cast<int>(attr)]) {
    return ErrorAt(key.offset,
                   absl::StrCat("duplicate attribute '", key.text, "'"));
  }
  state->seen.set(static_cast<int>(attr));
  HloAttributes& a = instr.mutable_attrs();

  // Parses an enum spelled as a word with one of attributes.h's parsers.
  auto parse_enum = [&](auto parse_fn, auto* out) -> absl::Status {
    HloToken word;
    PARSER_TRY(ParseWord(&word, absl::StrCat("a value for '", key.text, "'")));
    auto value = parse_fn(word.text);
    if (!value.ok()) return ErrorAt(word.offset, value.status().message());
    *out = *value;
    return absl::OkStatus();
  };
  auto comp_ref = [&](std::optional<NameRef>* out) -> absl::Status {
    NameRef ref;
    PARSER_TRY(ParseName(&ref, "a computation name"));
    *out = ref;
    return absl::OkStatus();
  };
  auto dot_dims = [&]() -> DotDimensionNumbers& {
    if (opcode == HloOpcode::kRaggedDot) {
      if (!a.ragged_dot_dimension_numbers)
        a.ragged_dot_dimension_numbers.emplace();
      return a.ragged_dot_dimension_numbers->dot_dimension_numbers;
    }
    if (!a.dot_dimension_numbers) a.dot_dimension_numbers.emplace();
    return *a.dot_dimension_numbers;
  };
  auto ragged_dims = [&]() -> RaggedDotDimensionNumbers& {
    if (!a.ragged_dot_dimension_numbers)
      a.ragged_dot_dimension_numbers.emplace();
    return *a.ragged_dot_dimension_numbers;
  };
  auto gather = [&]() -> GatherDimensionNumbers& {
    if (!a.gather_dimension_numbers) a.gather_dimension_numbers.emplace();
    return *a.gather_dimension_numbers;
  };
  auto scatter = [&]() -> ScatterDimensionNumbers& {
    if (!a.scatter_dimension_numbers) a.scatter_dimension_numbers.emplace();
    return *a.scatter_dimension_numbers;
  };
  auto precision = [&]() -> PrecisionConfig& {
    if (!a.precision_config) a.precision_config.emplace();
    return *a.precision_config;
  };
  auto triangular = [&]() -> TriangularSolveOptions& {
    if (!a.triangular_solve_options) a.triangular_solve_options.emplace();
    return *a.triangular_solve_options;
  };

  switch (attr) {
    case Attr::kDimensions:
      return ParseIntList(&a.dimensions);
    case Attr::kToApply:
      return comp_ref(&state->to_apply);
    case Attr::kCalls:
      return comp_ref(&state->calls);
    case Attr::kCondition:
      return comp_ref(&state->condition);
    case Attr::kBody:
      return comp_ref(&state->body);
    case Attr::kTrueComputation:
      return comp_ref(&state->true_computation);
    case Attr::kFalseComputation:
      return comp_ref(&state->false_computation);
    case Attr::kSelect:
      return comp_ref(&state->select);
    case Attr::kScatter:
      return comp_ref(&state->scatter);
    case Attr::kBranchComputations:
      return ParseNameList(&state->branches);
    case Attr::kCalledComputations:
      return ParseNameList(&state->called_list);
    case Attr::kSlice:
      return ParseSliceRanges(&a);
    case Attr::kDynamicSliceSizes:
      return ParseIntList(&a.dynamic_slice_sizes);
    case Attr::kPadding:
      a.padding_config.emplace();
      return ParsePadding(&*a.padding_config);
    case Attr::kWindow:
      a.window.emplace();
      return ParseWindow(&*a.window);
    case Attr::kDimLabels:
      a.convolution_dimension_numbers.emplace();
      return ParseDimLabels(&*a.convolution_dimension_numbers);
    case Attr::kFeatureGroupCount:
      return ParseNonNegative(&a.feature_group_count, "a group count");
    case Attr::kBatchGroupCount:
      return ParseNonNegative(&a.batch_group_count, "a group count");
    case Attr::kOperandPrecision:
      return ParsePrecisionList(&precision().operand_precision);
    case Attr::kResultAccuracy: {
      ResultAccuracy accuracy;
      PARSER_TRY(ParseResultAccuracy(&accuracy));
      if (!accuracy.IsDefault()) a.result_accuracy = accuracy;
      return absl::OkStatus();
    }
    case Attr::kAlgorithm: {
      HloToken word;
      PARSER_TRY(ParseWord(&word, "an algorithm name"));
      if (opcode == HloOpcode::kRngBitGenerator) {
        absl::StatusOr<RandomAlgorithm> alg = ParseRandomAlgorithm(word.text);
        if (!alg.ok()) return ErrorAt(word.offset, alg.status().message());
        a.rng_algorithm = *alg;
        return absl::OkStatus();
      }
      std::optional<int> alg = ParseDotAlgorithmName(word.text);
      if (!alg) {
        return ErrorAt(word.offset,
                       absl::StrCat("unknown dot algorithm '", word.text, "'"));
      }
      precision().algorithm = *alg;
      return absl::OkStatus();
    }
    case Attr::kLhsContractingDims:
      return ParseIntList(&dot_dims().lhs_contracting_dimensions);
    case Attr::kRhsContractingDims:
      return ParseIntList(&dot_dims().rhs_contracting_dimensions);
    case Attr::kLhsBatchDims:
      return ParseIntList(&dot_dims().lhs_batch_dimensions);
    case Attr::kRhsBatchDims:
      return ParseIntList(&dot_dims().rhs_batch_dimensions);
    case Attr::kLhsRaggedDims:
      return ParseIntList(&ragged_dims().lhs_ragged_dimensions);
    case Attr::kRhsGroupDims:
      return ParseIntList(&ragged_dims().rhs_group_dimensions);
    case Attr::kOffsetDims:
      return ParseIntList(&gather().offset_dims);
    case Attr::kCollapsedSliceDims:
      return ParseIntList(&gather().collapsed_slice_dims);
    case Attr::kStartIndexMap:
      return ParseIntList(&gather().start_index_map);
    case Attr::kOperandBatchingDims:
      return ParseIntList(&gather().operand_batching_dims);
    case Attr::kStartIndicesBatchingDims:
      return ParseIntList(&gather().start_indices_batching_dims);
    case Attr::kSliceSizes:
      return ParseIntList(&a.gather_slice_sizes);
    case Attr::kIndexVectorDim:
      return ParseInt64(opcode == HloOpcode::kGather
                            ? &gather().index_vector_dim
                            : &scatter().index_vector_dim);
    case Attr::kIndicesAreSorted:
      return ParseBool(&a.indices_are_sorted);
    case Attr::kUpdateWindowDims:
      return ParseIntList(&scatter().update_window_dims);
    case Attr::kInsertedWindowDims:
      return ParseIntList(&scatter().inserted_window_dims);
    case Attr::kScatterDimsToOperandDims:
      return ParseIntList(&scatter().scatter_dims_to_operand_dims);
    case Attr::kInputBatchingDims:
      return ParseIntList(&scatter().input_batching_dims);
    case Attr::kScatterIndicesBatchingDims:
      return ParseIntList(&scatter().scatter_indices_batching_dims);
    case Attr::kUniqueIndices:
      return ParseBool(&a.unique_indices);
    case Attr::kDirection:
      return parse_enum(ParseComparisonDirection, &a.comparison_direction);
    case Attr::kType:
      return parse_enum(ParseComparisonType, &a.comparison_type);
    case Attr::kOrder:
      return parse_enum(ParseComparisonOrder, &a.comparison_order);
    case Attr::kKind:
      return parse_enum(ParseFusionKind, &a.fusion_kind);
    case Attr::kIndex:
      return ParseNonNegative(&a.tuple_index, "a tuple index");
    case Attr::kIotaDimension:
      return ParseNonNegative(&a.iota_dimension, "a dimension number");
    case Attr::kExponentBits:
      return ParseNonNegative(&a.exponent_bits, "a bit count");
    case Attr::kMantissaBits:
      return ParseNonNegative(&a.mantissa_bits, "a bit count");
    case Attr::kIsStable:
      return ParseBool(&a.is_stable);
    case Attr::kK:
      return ParseNonNegative(&a.k, "a count");
    case Attr::kLargest:
      return ParseBool(&a.largest);
    case Attr::kNumCarries:
      return ParseNonNegative(&a.num_carries, "a count");
    case Attr::kIsReverse:
      return ParseBool(&a.is_reverse);
    case Attr::kIsAssociative:
      return ParseBool(&a.is_associative);
    case Attr::kEpsilon:
      return ParseFloat(&a.epsilon);
    case Attr::kFeatureIndex:
      return ParseNonNegative(&a.feature_index, "a dimension number");
    case Attr::kDistribution:
      return parse_enum(ParseRandomDistribution, &a.distribution);
    case Attr::kFftType:
      return parse_enum(ParseFftType, &a.fft_type);
    case Attr::kFftLength:
      return ParseIntList(&a.fft_length);
    case Attr::kLeftSide:
      return ParseBool(&triangular().left_side);
    case Attr::kLower:
      return ParseBool(opcode == HloOpcode::kCholesky ? &a.cholesky_lower
                                                      : &triangular().lower);
    case Attr::kUnitDiagonal:
      return ParseBool(&triangular().unit_diagonal);
    case Attr::kTransposeA: {
      HloToken word;
      PARSER_TRY(ParseWord(&word, "NO_TRANSPOSE, TRANSPOSE or ADJOINT"));
      std::optional<int> t = ParseTransposeName(word.text);
      if (!t) {
        return ErrorAt(word.offset,
                       absl::StrCat("unknown transpose_a '", word.text,
                                    "', expected NO_TRANSPOSE, TRANSPOSE or "
                                    "ADJOINT"));
      }
      triangular().transpose_a = *t;
      return absl::OkStatus();
    }
    case Attr::kCustomCallTarget:
      return ParseString(&a.custom_call_target);
    case Attr::kApiVersion:
      return parse_enum(ParseCustomCallApiVersion, &a.api_version);
    case Attr::kCustomCallHasSideEffect:
      return ParseBool(&a.custom_call_has_side_effect);
    case Attr::kOperandLayoutConstraints:
      a.operand_layout_constraints.emplace();
      return ParseShapeList(&*a.operand_layout_constraints);
    case Attr::kOutputToOperandAliasing:
      return ParseOutputOperandAliasing(&a.output_to_operand_aliasing);
    case Attr::kSchedule:
      return parse_enum(ParseCustomCallSchedule, &a.custom_call_schedule);
    case Attr::kChannelId: {
      int64_t id;
      PARSER_TRY(ParseInt64(&id, "a channel id"));
      a.channel_id = id;
      return absl::OkStatus();
    }
    case Attr::kReplicaGroups:
      return ParseReplicaGroups(&a);
    case Attr::kUseGlobalDeviceIds:
      return ParseBool(&a.use_global_device_ids);
    case Attr::kConstrainLayout:
      return ParseBool(&a.constrain_layout);
    case Attr::kSourceTargetPairs:
      return ParseIntPairs(&a.source_target_pairs);
    case Attr::kInfeedConfig:
      return ParseString(&a.infeed_config);
    case Attr::kOutfeedConfig:
      return ParseString(&a.outfeed_config);
    case Attr::kOutfeedShape: {
      Shape shape;
      PARSER_TRY(ParseShape(&shape));
      a.outfeed_shape = std::move(shape);
      return absl::OkStatus();
    }
    case Attr::kIsHostTransfer:
      return ParseBool(&a.is_host_transfer);
    case Attr::kParameterReplication:
      return ParseBoolList(&a.parameter_replication);
    case Attr::kAsyncExecutionThread:
      return ParseString(&a.async_execution_thread);
    case Attr::kMetadata:
      return ParseMetadata(instr.mutable_metadata());
    case Attr::kBackendConfig: {
      std::string config;
      PARSER_TRY(ParseBackendConfig(&config));
      instr.set_backend_config(std::move(config));
      return absl::OkStatus();
    }
    case Attr::kSharding: {
      std::string sharding;
      if (!PeekIs(K::kLBrace)) return Expected("'{' starting a sharding");
      PARSER_TRY(ParseBalanced(&sharding));
      instr.set_sharding(std::move(sharding));
      return absl::OkStatus();
    }
    case Attr::kFrontendAttributes:
      return ParseStringMap(instr.mutable_frontend_attributes());
    case Attr::kControlPredecessors:
      return ParseNameList(&pi->control_predecessors);
    case Attr::kCount:
      break;
  }
  return absl::OkStatus();
}

absl::Status Parser::FinishAttributes(PendingInstruction* pi,
                                      AttrState* state) {
  HloInstruction& instr = *pi->instr;
  const HloOpcode opcode = instr.opcode();
  for (Attr required : RequiredAttrs(opcode)) {
    if (!state->seen[static_cast<int>(required)]) {
      return ErrorAt(pi->opcode_offset,
                     absl::StrCat(HloOpcodeString(opcode),
                                  " is missing required attribute '",
                                  AttrName(required), "'"));
    }
  }
  HloAttributes& a = instr.mutable_attrs();
  // triangular-solve always has options (XLA prints all four fields).
  if (opcode == HloOpcode::kTriangularSolve && !a.triangular_solve_options) {
    a.triangular_solve_options.emplace();
  }
  // "operand_precision={}" alone says nothing; keep it absent so that the
  // printed form (which omits it) parses back the same.
  if (a.precision_config && a.precision_config->operand_precision.empty() &&
      a.precision_config->algorithm == 0) {
    a.precision_config.reset();
  }
  auto& called = pi->called;
  switch (opcode) {
    case HloOpcode::kWhile:
      called = {*state->condition, *state->body};
      break;
    case HloOpcode::kSelectAndScatter:
      called = {*state->select, *state->scatter};
      break;
    case HloOpcode::kConditional: {
      const bool pair = state->true_computation || state->false_computation;
      const bool list =
          state->seen[static_cast<int>(Attr::kBranchComputations)];
      if (pair && list) {
        return ErrorAt(pi->opcode_offset,
                       "conditional takes either branch_computations or "
                       "true_computation/false_computation, not both");
      }
      if (list) {
        if (state->branches.empty()) {
          return ErrorAt(pi->opcode_offset,
                         "conditional needs at least one branch computation");
        }
        called = state->branches;
      } else if (state->true_computation && state->false_computation) {
        called = {*state->true_computation, *state->false_computation};
      } else {
        return ErrorAt(
            pi->opcode_offset,
            absl::StrCat("conditional is missing required "
                         "attribute '",
                         pair ? (state->true_computation ? "false_computation"
                                                         : "true_computation")
                              : "branch_computations",
                         "'"));
      }
      break;
    }
    case HloOpcode::kCustomCall:
      if (state->to_apply && !state->called_list.empty()) {
        return ErrorAt(pi->opcode_offset,
                       "custom-call takes either to_apply or "
                       "called_computations, not both");
      }
      if (state->to_apply) {
        called = {*state->to_apply};
      } else {
        called = state->called_list;
      }
      break;
    default:
      if (state->to_apply) called = {*state->to_apply};
      if (state->calls) called = {*state->calls};
      break;
  }
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------
// Building the module.

// Computations callee-first: the text's order when it already is, else a
// post-order. A computation that calls itself, directly or not, is an error.
absl::Status Parser::OrderComputations(std::vector<int>* order) {
  const int n = static_cast<int>(computations_.size());
  bool text_order_ok = true;
  for (int i = 0; i < n && text_order_ok; ++i) {
    for (int callee : computations_[i].callees) {
      if (callee >= i) text_order_ok = false;
    }
  }
  order->clear();
  if (text_order_ok) {
    for (int i = 0; i < n; ++i) order->push_back(i);
    return absl::OkStatus();
  }
  std::vector<int> state(n, 0);  // 0 new, 1 on the stack, 2 done
  for (int root = 0; root < n; ++root) {
    if (state[root] != 0) continue;
    std::vector<std::pair<int, size_t>> stack = {{root, 0}};
    state[root] = 1;
    while (!stack.empty()) {
      auto& [c, next] = stack.back();
      if (next < computations_[c].callees.size()) {
        const int callee = computations_[c].callees[next++];
        if (state[callee] == 1) {
          return ErrorAt(
              computations_[callee].name.offset,
              absl::StrCat("computation '", computations_[callee].name.name,
                           "' calls itself (through '",
                           computations_[c].name.name, "')"));
        }
        if (state[callee] == 0) {
          state[callee] = 1;
          stack.push_back({callee, 0});
        }
        continue;
      }
      state[c] = 2;
      order->push_back(c);
      stack.pop_back();
    }
  }
  return absl::OkStatus();
}

absl::Status Parser::BuildComputation(PendingComputation* pc, bool scheduled) {
  auto& instrs = pc->instructions;
  const int n = static_cast<int>(instrs.size());
  // Resolve operand names.
  for (PendingInstruction& pi : instrs) {
    for (const OperandRef& operand : pi.operands) {
      auto it = pc->by_name.find(operand.ref.name);
      if (it == pc->by_name.end()) {
        return ErrorAt(
            operand.ref.offset,
            absl::StrCat("instruction '", pi.name.name,
                         "' uses undefined operand '", operand.ref.name,
                         "' (computation '", pc->name.name, "')"));
      }
      const PendingInstruction& def = instrs[it->second];
      if (operand.shape && !operand.shape->Compatible(def.instr->shape())) {
        return ErrorAt(
            operand.ref.offset,
            absl::StrCat("operand '", operand.ref.name, "' of '", pi.name.name,
                         "' is written as ", operand.shape->ToString(),
                         " but has shape ", def.instr->shape().ToString()));
      }
      pi.operand_indices.push_back(it->second);
    }
  }
  // Parameters must be numbered 0..k-1, each once.
  std::vector<int> params;
  for (int i = 0; i < n; ++i) {
    if (instrs[i].instr->opcode() == HloOpcode::kParameter) params.push_back(i);
  }
  std::vector<int> by_number(params.size(), -1);
  for (int i : params) {
    const int64_t number = instrs[i].instr->parameter_number();
    if (number >= static_cast<int64_t>(params.size())) {
      return ErrorAt(
          instrs[i].opcode_offset,
          absl::StrCat("parameter number ", number, " of '",
                       instrs[i].name.name, "' is out of range: '",
                       pc->name.name, "' has ", params.size(), " parameters"));
    }
    if (by_number[number] != -1) {
      return ErrorAt(instrs[i].opcode_offset,
                     absl::StrCat("parameter number ", number, " of '",
                                  instrs[i].name.name, "' is already used by '",
                                  instrs[by_number[number]].name.name, "'"));
    }
    by_number[number] = i;
  }
  // Dependency order, keeping the text's order where it is def-before-use.
  std::vector<int> order;
  order.reserve(n);
  std::vector<char> state(n, 0);
  for (int root = 0; root < n; ++root) {
    if (state[root] != 0) continue;
    std::vector<std::pair<int, size_t>> stack = {{root, 0}};
    state[root] = 1;
    while (!stack.empty()) {
      auto& [v, next] = stack.back();
      if (next < instrs[v].operand_indices.size()) {
        const int u = instrs[v].operand_indices[next++];
        if (state[u] == 1) {
          return ErrorAt(instrs[u].name.offset,
                         absl::StrCat("instruction '", instrs[u].name.name,
                                      "' depends on itself (through '",
                                      instrs[v].name.name, "')"));
        }
        if (state[u] == 0) {
          state[u] = 1;
          stack.push_back({u, 0});
        }
        continue;
      }
      state[v] = 2;
      order.push_back(v);
      stack.pop_back();
    }
  }
  HloComputation* comp = pc->computation.get();
  for (int i : order) {
    PendingInstruction& pi = instrs[i];
    for (int operand : pi.operand_indices) {
      pi.instr->AppendOperand(instrs[operand].built);
    }
    std::vector<HloComputation*> called;
    for (const NameRef& ref : pi.called) {
      called.push_back(
          computations_[computation_index_.at(ref.name)].computation.get());
    }
    pi.instr->set_called_computations(std::move(called));
    pi.built = pi.instr->opcode() == HloOpcode::kParameter
                   ? comp->AddParameter(std::move(pi.instr))
                   : comp->AddInstruction(std::move(pi.instr));
    if (scheduled) pc->order.push_back(pi.built);
  }
  for (PendingInstruction& pi : instrs) {
    for (const NameRef& ref : pi.control_predecessors) {
      auto it = pc->by_name.find(ref.name);
      if (it == pc->by_name.end()) {
        return ErrorAt(ref.offset,
                       absl::StrCat("control predecessor '", ref.name, "' of '",
                                    pi.name.name, "' is not defined in '",
                                    pc->name.name, "'"));
      }
      absl::Status status =
          instrs[it->second].built->AddControlDependencyTo(pi.built);
      if (!status.ok()) return ErrorAt(ref.offset, status.message());
    }
  }
  HloInstruction* root = instrs.back().built;
  for (PendingInstruction& pi : instrs) {
    if (pi.is_root) root = pi.built;
  }
  comp->set_root_instruction(root);
  if (pc->signature) {
    const ProgramShape& sig = *pc->signature;
    bool ok = sig.parameters.size() == params.size() &&
              sig.result.Compatible(root->shape());
    for (size_t i = 0; ok && i < params.size(); ++i) {
      ok =
          sig.parameters[i].Compatible(comp->parameter_instruction(i)->shape());
    }
    if (!ok) {
      return ErrorAt(pc->signature_offset,
                     absl::StrCat("signature ", sig.ToString(false),
                                  " of computation '", pc->name.name,
                                  "' does not match its parameters and root ",
                                  comp->ComputeProgramShape().ToString(false)));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<HloModule>> Parser::Build(
    std::unique_ptr<HloModule> module, HloModuleConfig config,
    StackFrameIndex stack_frames) {
  // Resolve called computations.
  for (PendingComputation& pc : computations_) {
    absl::flat_hash_set<int> callees;
    for (const PendingInstruction& pi : pc.instructions) {
      for (const NameRef& ref : pi.called) {
        auto it = computation_index_.find(ref.name);
        if (it == computation_index_.end()) {
          return ErrorAt(
              ref.offset,
              absl::StrCat("instruction '", pi.name.name,
                           "' calls undefined computation '", ref.name, "'"));
        }
        if (callees.insert(it->second).second) pc.callees.push_back(it->second);
      }
    }
  }
  std::vector<int> order;
  PARSER_TRY(OrderComputations(&order));

  // Instruction names are module-wide here; a name reused in another
  // computation gets the first free ".N" suffix (free in the whole text, so
  // no later name is disturbed).
  absl::flat_hash_set<absl::string_view> all_names;
  size_t instruction_count = 0;
  for (const PendingComputation& pc : computations_) {
    for (const PendingInstruction& pi : pc.instructions) {
      all_names.insert(pi.name.name);
      ++instruction_count;
    }
  }
  absl::flat_hash_set<std::string> claimed;
  for (int c : order) {
    if (all_names.size() == instruction_count) break;  // no name repeats
    for (PendingInstruction& pi : computations_[c].instructions) {
      std::string name(pi.name.name);
      for (int64_t suffix = 1; claimed.contains(name); ++suffix) {
        name = absl::StrCat(pi.name.name, ".", suffix);
        if (all_names.contains(name)) name = std::string(pi.name.name);
      }
      pi.instr->SetName(name);
      claimed.insert(std::move(name));
    }
  }

  for (PendingComputation& pc : computations_) {
    pc.computation =
        std::make_unique<HloComputation>(std::string(pc.name.name));
  }
  for (PendingComputation& pc : computations_) {
    PARSER_TRY(BuildComputation(&pc, config.is_scheduled));
  }
  int entry = static_cast<int>(computations_.size()) - 1;
  for (int i = 0; i < static_cast<int>(computations_.size()); ++i) {
    if (computations_[i].is_entry) entry = i;
  }
  if (config.entry_computation_layout) {
    const ProgramShape& layout = *config.entry_computation_layout;
    const ProgramShape actual =
        computations_[entry].computation->ComputeProgramShape();
    bool ok = layout.parameters.size() == actual.parameters.size() &&
              layout.result.Compatible(actual.result);
    for (size_t i = 0; ok && i < layout.parameters.size(); ++i) {
      ok = layout.parameters[i].Compatible(actual.parameters[i]);
    }
    if (!ok) {
      return ErrorAt(
          entry_layout_offset_,
          absl::StrCat("entry_computation_layout ", layout.ToString(),
                       " does not match entry "
                       "computation '",
                       computations_[entry].name.name, "' ",
                       actual.ToString()));
    }
  }
  for (int c : order) {
    PendingComputation& pc = computations_[c];
    pc.raw = module->AddEmbeddedComputation(std::move(pc.computation));
  }
  module->set_entry_computation(computations_[entry].raw);
  if (config.is_scheduled) {
    for (PendingComputation& pc : computations_) {
      module->mutable_schedule()[pc.raw] = std::move(pc.order);
    }
  }
  module->mutable_config() = std::move(config);
  module->mutable_stack_frames() = std::move(stack_frames);
  return module;
}

absl::StatusOr<std::unique_ptr<HloModule>> Parser::ParseModule() {
  auto module = std::make_unique<HloModule>("module");
  HloModuleConfig config;
  StackFrameIndex stack_frames;
  if (PeekWord("HloModule")) PARSER_TRY(ParseHeader(module.get(), &config));
  PARSER_TRY(ParseStackFrameTables(&stack_frames));
  if (PeekIs(K::kEnd)) return Expected("a computation");
  while (!PeekIs(K::kEnd)) PARSER_TRY(ParseComputation());
  return Build(std::move(module), std::move(config), std::move(stack_frames));
}

absl::StatusOr<Shape> Parser::ParseStandaloneShape() {
  Shape shape;
  PARSER_TRY(ParseShape(&shape));
  if (!PeekIs(K::kEnd)) return Expected("end of input after the shape");
  return shape;
}

}  // namespace

absl::StatusOr<std::unique_ptr<HloModule>> ParseHloModule(
    absl::string_view text, absl::string_view filename) {
  Parser parser(text, filename);
  absl::StatusOr<std::unique_ptr<HloModule>> module = parser.ParseModule();
  // Only a failed parse gets the hint, so HLO that merely mentions
  // "stablehlo." (in metadata, say) is never refused.
  if (!module.ok() && LooksLikeMlirText(text)) {
    return absl::InvalidArgumentError(
        absl::StrCat(filename, ": ", MlirTextHint()));
  }
  return module;
}

absl::StatusOr<Shape> ParseShape(absl::string_view text) {
  Parser parser(text, "<shape>");
  return parser.ParseStandaloneShape();
}

}  // namespace hloc

#undef PARSER_TRY
