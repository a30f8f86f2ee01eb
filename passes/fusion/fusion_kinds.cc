#include "passes/fusion/fusion_kinds.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace hloc {
namespace {

bool IsRowMajor(const Shape& shape) {
  return shape.IsArray() &&
         (!shape.has_layout() || shape.HasDescendingLayout());
}

std::vector<int64_t> NonDegenerateDims(const Shape& shape) {
  std::vector<int64_t> dims;
  for (int64_t i = 0; i < shape.rank(); ++i) {
    if (shape.dimensions(i) != 1) dims.push_back(i);
  }
  return dims;
}

// The smallest split point s with prod(dims[0:s]) == rows and
// prod(dims[s:]) == inner, if any.
std::optional<int64_t> RowSplit(const Shape& shape, int64_t rows,
                                int64_t inner) {
  if (shape.ElementCount() != rows * inner) return std::nullopt;
  int64_t prefix = 1;
  for (int64_t s = 0; s <= shape.rank(); ++s) {
    if (prefix == rows) return s;
    if (s < shape.rank()) prefix *= shape.dimensions(s);
  }
  return std::nullopt;
}

// The smallest split point s with prod(dims[0:s]) == rows, if the shape
// holds `rows` runs of equal length: the row split of a full value of any
// row length (a slice or pad of a row changes the length, not the rows).
std::optional<int64_t> RowPrefix(const Shape& shape, int64_t rows) {
  if (rows <= 0 || shape.ElementCount() % rows != 0) return std::nullopt;
  return RowSplit(shape, rows, shape.ElementCount() / rows);
}

// True if `instr`, a data-movement op of a full value, leaves dimensions
// [0, s) of every operand as they are (s: its result's row prefix), so each
// element it gives comes from its own row: it may slice, pad, reverse,
// concatenate or transpose within a row, never across rows.
bool KeepsRows(const HloInstruction& instr, int64_t s) {
  const HloAttributes& a = instr.attrs();
  switch (instr.opcode()) {
    case HloOpcode::kSlice:
      for (int64_t d = 0; d < s; ++d) {
        if (a.slice_starts[d] != 0 || a.slice_strides[d] != 1 ||
            a.slice_limits[d] != instr.operand(0)->shape().dimensions(d)) {
          return false;
        }
      }
      return true;
    case HloOpcode::kPad:
      for (int64_t d = 0; d < s; ++d) {
        const PaddingDimension& p = a.padding_config->dimensions[d];
        if (p.edge_padding_low != 0 || p.edge_padding_high != 0 ||
            p.interior_padding != 0) {
          return false;
        }
      }
      return true;
    case HloOpcode::kConcatenate:
    case HloOpcode::kReverse:
      for (int64_t d : instr.dimensions()) {
        if (d < s) return false;
      }
      return true;
    case HloOpcode::kTranspose:
      for (int64_t d = 0; d < s; ++d) {
        if (instr.dimensions(d) != d) return false;
      }
      return true;
    default:
      return false;
  }
}

std::string RowsString(const RowShape& rows) {
  return absl::StrCat(rows.num_rows, " rows of ", rows.row_length);
}

absl::string_view ClassName(RowClass c) {
  switch (c) {
    case RowClass::kInvariant:
      return "invariant";
    case RowClass::kPerRow:
      return "per-row";
    case RowClass::kFull:
      return "full";
  }
  return "?";
}

// Fused instructions in post order, parameters included.
std::vector<const HloInstruction*> PostOrder(const HloComputation& comp) {
  std::vector<const HloInstruction*> out;
  for (HloInstruction* instr : comp.MakeInstructionPostOrder()) {
    out.push_back(instr);
  }
  return out;
}

std::vector<const HloInstruction*> Roots(const HloComputation& comp) {
  const HloInstruction* root = comp.root_instruction();
  if (root->opcode() != HloOpcode::kTuple) return {root};
  return std::vector<const HloInstruction*>(root->operands().begin(),
                                            root->operands().end());
}

absl::Status FusedError(const HloInstruction& instr, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(
      instr.name(), " (", HloOpcodeString(instr.opcode()), "): ", what));
}

absl::Status VerifyLoop(const HloComputation& fused) {
  std::vector<const HloInstruction*> roots = Roots(fused);
  for (const HloInstruction* root : roots) {
    if (!root->shape().IsArray() ||
        !root->shape().SameDimensions(roots[0]->shape())) {
      return FusedError(*root, "loop fusion outputs must share one loop shape");
    }
  }
  for (const HloInstruction* instr : PostOrder(fused)) {
    if (instr->opcode() == HloOpcode::kParameter) continue;
    if (instr == fused.root_instruction() &&
        instr->opcode() == HloOpcode::kTuple) {
      continue;
    }
    bool is_root = std::find(roots.begin(), roots.end(), instr) != roots.end();
    if (is_root && instr->opcode() == HloOpcode::kReduceWindow) continue;
    if (is_root && instr->opcode() == HloOpcode::kDynamicUpdateSlice) {
      if (roots.size() != 1) {
        return FusedError(*instr, "an in-place update must be the only output");
      }
      const HloInstruction* buffer = instr->operand(0);
      if (buffer->opcode() != HloOpcode::kParameter ||
          buffer->user_count() != 1 ||
          instr->OperandIndices(buffer).size() != 1) {
        return FusedError(*instr,
                          "operand 0 of an in-place update must be a "
                          "parameter nothing else in the fusion reads");
      }
      continue;
    }
    if (!IsLoopFusibleOp(*instr)) {
      return FusedError(*instr, "not loop-fusible");
    }
  }
  return absl::OkStatus();
}

// A fusion whose root is an op with kernels of its own (a scan, a
// scatter) and every other instruction a loop-fusible producer of its
// operands.
absl::Status VerifyOpRoot(const HloComputation& fused, HloOpcode opcode) {
  const HloInstruction* root = fused.root_instruction();
  if (root->opcode() != opcode) {
    const std::string op(HloOpcodeString(opcode));
    return FusedError(
        *root, absl::StrCat("the root of a ", op, " fusion must be a ", op));
  }
  for (const HloInstruction* instr : PostOrder(fused)) {
    if (instr == root || instr->opcode() == HloOpcode::kParameter) continue;
    if (!IsLoopFusibleOp(*instr)) {
      return FusedError(*instr, "not loop-fusible");
    }
  }
  return absl::OkStatus();
}

bool IsNonTrivialReduce(const HloInstruction& instr) {
  return instr.opcode() == HloOpcode::kReduce && !IsTrivialReduce(instr);
}

// The shape of one result of `reduce` (all results of a variadic reduce
// have the same dimensions).
const Shape& ReduceResultShape(const HloInstruction& reduce) {
  return reduce.shape().IsTuple() ? reduce.shape().tuple_shapes(0)
                                  : reduce.shape();
}

absl::Status VerifyReduction(const HloComputation& fused) {
  std::vector<const HloInstruction*> roots = Roots(fused);
  // Values that depend on a reduce: the reduces themselves and their
  // epilogue. The epilogue is computed at the output position once the
  // reduces' results are complete, so it may only be elementwise over them.
  absl::flat_hash_set<const HloInstruction*> dependent;
  const HloInstruction* first_reduce = nullptr;
  for (const HloInstruction* instr : PostOrder(fused)) {
    if (instr->opcode() == HloOpcode::kParameter ||
        (instr == fused.root_instruction() &&
         instr->opcode() == HloOpcode::kTuple)) {
      continue;
    }
    bool depends = false;
    for (const HloInstruction* operand : instr->operands()) {
      depends |= dependent.contains(operand);
    }
    if (IsNonTrivialReduce(*instr)) {
      if (depends) {
        return FusedError(*instr,
                          "a reduction reads another reduction's result "
                          "(its consumers are a barrier)");
      }
      if (first_reduce == nullptr) first_reduce = instr;
      dependent.insert(instr);
      continue;
    }
    if (depends) {
      if (!HloOpcodeIsElementwise(instr->opcode()) || instr->HasSideEffect() ||
          !instr->shape().IsArray() ||
          !instr->shape().SameDimensions(ReduceResultShape(*first_reduce))) {
        return FusedError(*instr,
                          "an epilogue op must be elementwise over the "
                          "reductions' result");
      }
      for (const HloInstruction* operand : instr->operands()) {
        if (IsNonTrivialReduce(*operand) && !operand->shape().IsArray()) {
          return FusedError(*instr,
                            "an epilogue reads a variadic reduce (only "
                            "single-result reduces have an epilogue)");
        }
      }
      dependent.insert(instr);
      continue;
    }
    if (!IsLoopFusibleOp(*instr)) {
      return FusedError(*instr, "not fusible into a reduction's input");
    }
  }
  if (first_reduce == nullptr) {
    return FusedError(*fused.root_instruction(),
                      "a reduction fusion needs a reduce");
  }
  // Every reduce is computed by the kernel: it must be an output or feed
  // one through the epilogue (else nothing would read it).
  for (const HloInstruction* instr : fused.instructions()) {
    if (!IsNonTrivialReduce(*instr)) continue;
    if (instr->user_count() == 0 && instr != fused.root_instruction()) {
      return FusedError(*instr, "a reduction nothing reads");
    }
  }
  const Shape& input = first_reduce->operand(0)->shape();
  for (const HloInstruction* instr : fused.instructions()) {
    if (IsNonTrivialReduce(*instr) &&
        (!instr->operand(0)->shape().SameDimensions(input) ||
         instr->dimensions() != first_reduce->dimensions())) {
      return FusedError(*instr,
                        "reductions of one fusion must reduce the same "
                        "input shape over the same dimensions");
    }
  }
  for (const HloInstruction* root : roots) {
    // Reduces and epilogue values (checked above) are written where the
    // reductions' results are complete; anything else along the way.
    if (dependent.contains(root)) continue;
    if (!root->shape().IsArray() || !root->shape().SameDimensions(input)) {
      return FusedError(*root,
                        "extra outputs of a reduction fusion must have the "
                        "reduction's input shape or be an epilogue of its "
                        "result");
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::string_view FusionShapeName(FusionShape shape) {
  switch (shape) {
    case FusionShape::kLoop:
      return "loop";
    case FusionShape::kReduction:
      return "reduction";
    case FusionShape::kRowReduction:
      return "row-reduction";
    case FusionShape::kDotEpilogue:
      return "dot-epilogue";
    case FusionShape::kScan:
      return "scan";
    case FusionShape::kScatter:
      return "scatter";
    case FusionShape::kUnknown:
      return "unknown";
  }
  return "unknown";
}

FusionShape GetFusionShape(const HloInstruction& fusion) {
  if (fusion.opcode() != HloOpcode::kFusion) return FusionShape::kUnknown;
  switch (fusion.fusion_kind()) {
    case FusionKind::kLoop:
      return FusionShape::kLoop;
    case FusionKind::kInput:
      return FusionShape::kReduction;
    case FusionKind::kOutput:
      return FusionShape::kDotEpilogue;
    case FusionKind::kCustom:
      if (fusion.backend_config() == kRowReductionBackendConfig) {
        return FusionShape::kRowReduction;
      }
      if (fusion.backend_config() == kScanBackendConfig) {
        return FusionShape::kScan;
      }
      return fusion.backend_config() == kScatterBackendConfig
                 ? FusionShape::kScatter
                 : FusionShape::kUnknown;
  }
  return FusionShape::kUnknown;
}

bool IsTrivialReduce(const HloInstruction& reduce) {
  if (reduce.opcode() != HloOpcode::kReduce) return false;
  const Shape& input = reduce.operand(0)->shape();
  for (int64_t d : reduce.dimensions()) {
    if (d < 0 || d >= input.rank() || input.dimensions(d) != 1) return false;
  }
  return true;
}

bool IsLoopFusibleOp(const HloInstruction& instr) {
  if (instr.HasSideEffect()) return false;
  if (instr.opcode() != HloOpcode::kFusion &&
      HloOpcodeIsElementwise(instr.opcode())) {
    return true;
  }
  switch (instr.opcode()) {
    case HloOpcode::kBroadcast:
    case HloOpcode::kReshape:
    case HloOpcode::kBitcast:
    case HloOpcode::kTranspose:
    case HloOpcode::kSlice:
    case HloOpcode::kConcatenate:
    case HloOpcode::kPad:
    case HloOpcode::kReverse:
    case HloOpcode::kIota:
    case HloOpcode::kDynamicSlice:
    case HloOpcode::kGather:
    case HloOpcode::kConstant:
    case HloOpcode::kCopy:
    case HloOpcode::kParameter:
      return true;
    case HloOpcode::kBitcastConvert:
      return instr.shape().SameDimensions(instr.operand(0)->shape());
    case HloOpcode::kReduce:
      return IsTrivialReduce(instr) && !instr.shape().IsTuple();
    default:
      return false;
  }
}

std::optional<RowShape> GetRowReductionShape(const HloInstruction& reduce) {
  if (reduce.opcode() != HloOpcode::kReduce || reduce.operand_count() != 2 ||
      !reduce.shape().IsArray()) {
    return std::nullopt;
  }
  const Shape& input = reduce.operand(0)->shape();
  if (!IsRowMajor(input) || !IsRowMajor(reduce.shape())) return std::nullopt;
  absl::flat_hash_set<int64_t> reduced(reduce.dimensions().begin(),
                                       reduce.dimensions().end());
  int64_t num_rows = 1;
  int64_t row_length = 1;
  bool seen_reduced = false;
  bool any_reduced = false;
  for (int64_t d : NonDegenerateDims(input)) {
    if (reduced.contains(d)) {
      seen_reduced = true;
      any_reduced = true;
      row_length *= input.dimensions(d);
    } else {
      if (seen_reduced) return std::nullopt;  // A kept dim after a reduced one.
      num_rows *= input.dimensions(d);
    }
  }
  if (!any_reduced) return std::nullopt;  // Trivial.
  return RowShape{num_rows, row_length};
}

bool RowFitsInBlock(const RowShape& rows, PrimitiveType type) {
  return rows.row_length <= kMaxRowElements &&
         rows.row_length * ByteWidth(type) <= kMaxRowBytes;
}

bool IsRowOutputShape(const Shape& shape, const RowShape& rows) {
  if (!IsRowMajor(shape)) return false;
  return shape.ElementCount() == rows.num_rows ||
         RowSplit(shape, rows.num_rows, rows.row_length).has_value();
}

absl::StatusOr<RowClass> ClassifyRowInstruction(
    const HloInstruction& instr, const RowShape& rows,
    const std::function<RowClass(const HloInstruction*)>& operand_class) {
  if (IsNonTrivialReduce(instr)) {
    std::optional<RowShape> reduce_rows = GetRowReductionShape(instr);
    if (!reduce_rows) {
      return absl::InvalidArgumentError(
          "reduce is not a row reduction (one input, reducing the trailing "
          "dimensions of a row-major array)");
    }
    if (!(*reduce_rows == rows)) {
      return absl::InvalidArgumentError(
          absl::StrCat("reduce has ", RowsString(*reduce_rows),
                       ", the fusion has ", RowsString(rows)));
    }
    if (operand_class(instr.operand(0)) == RowClass::kPerRow ||
        operand_class(instr.operand(1)) != RowClass::kInvariant) {
      return absl::InvalidArgumentError(
          "reduce input must be a full row value and its init invariant");
    }
    return RowClass::kPerRow;
  }

  std::optional<RowClass> dep;
  for (const HloInstruction* operand : instr.operands()) {
    RowClass c = operand_class(operand);
    if (c == RowClass::kInvariant) continue;
    if (dep && *dep != c) {
      return absl::InvalidArgumentError("mixes per-row and full values");
    }
    dep = c;
  }
  if (!dep) return RowClass::kInvariant;
  if (!IsRowMajor(instr.shape())) {
    return absl::InvalidArgumentError("result is not a row-major array");
  }

  const Shape& shape = instr.shape();
  auto keep_class = [&]() -> absl::StatusOr<RowClass> {
    if (*dep == RowClass::kPerRow && shape.ElementCount() == rows.num_rows) {
      return RowClass::kPerRow;
    }
    if (*dep == RowClass::kFull && RowPrefix(shape, rows.num_rows)) {
      return RowClass::kFull;
    }
    return absl::InvalidArgumentError(
        absl::StrCat("does not keep the split into ", RowsString(rows)));
  };

  if (HloOpcodeIsElementwise(instr.opcode()) && !instr.HasSideEffect()) {
    return *dep;
  }
  switch (instr.opcode()) {
    case HloOpcode::kReshape:
    case HloOpcode::kBitcast:
    case HloOpcode::kCopy:
    case HloOpcode::kReduce:  // Trivial: drops size-1 dimensions.
      return keep_class();
    case HloOpcode::kBroadcast: {
      const Shape& in = instr.operand(0)->shape();
      std::vector<int64_t> mapped;
      for (int64_t d : NonDegenerateDims(in)) {
        mapped.push_back(instr.dimensions(d));
      }
      if (!std::is_sorted(mapped.begin(), mapped.end())) {
        return absl::InvalidArgumentError("broadcast reorders dimensions");
      }
      if (shape.ElementCount() == in.ElementCount()) return keep_class();
      if (*dep != RowClass::kPerRow) {
        return absl::InvalidArgumentError(
            "broadcast of a full row value moves elements across rows");
      }
      std::optional<int64_t> split = RowPrefix(shape, rows.num_rows);
      if (!split) {
        return absl::InvalidArgumentError(
            absl::StrCat("broadcast result is not ", RowsString(rows)));
      }
      std::vector<int64_t> row_dims;
      for (int64_t d : NonDegenerateDims(shape)) {
        if (d < *split) row_dims.push_back(d);
      }
      if (mapped != row_dims) {
        return absl::InvalidArgumentError(
            "broadcast does not spread a per-row value along its row");
      }
      return RowClass::kFull;
    }
    case HloOpcode::kSlice:
    case HloOpcode::kPad:
    case HloOpcode::kConcatenate:
    case HloOpcode::kReverse:
    case HloOpcode::kTranspose: {
      // Within a row only: the emitter computes a full value at any
      // position of the row being written, and the values it depends on
      // (a reduction's result) are the same anywhere in that row.
      std::optional<int64_t> split = RowPrefix(shape, rows.num_rows);
      if (*dep != RowClass::kFull || !split || !KeepsRows(instr, *split)) {
        return absl::InvalidArgumentError(absl::StrCat(
            HloOpcodeString(instr.opcode()), " of a ", ClassName(*dep),
            " value would move elements across rows"));
      }
      return RowClass::kFull;
    }
    default:
      return absl::InvalidArgumentError(absl::StrCat(
          HloOpcodeString(instr.opcode()), " of a ", ClassName(*dep),
          " value would move elements across rows"));
  }
}

bool IsRowConcatenateHero(
    const HloInstruction* concat, const HloInstruction* output,
    int64_t row_elements,
    const std::function<bool(const HloInstruction*)>& in_scope) {
  // The walk also makes the output the concatenate's element count.
  return concat->opcode() == HloOpcode::kConcatenate &&
         concat->operand_count() <= kMaxRowConcatenateOperands &&
         concat->shape().ElementCount() == row_elements &&
         ReadAtOwnLinearPositionUpTo(concat, output, in_scope);
}

const HloInstruction* FindRowConcatenateHero(const HloComputation& fused) {
  const HloInstruction* root = fused.root_instruction();
  if (root->opcode() == HloOpcode::kTuple) return nullptr;
  const HloInstruction* concat = nullptr;
  for (const HloInstruction* instr : fused.instructions()) {
    if (instr->opcode() != HloOpcode::kConcatenate) continue;
    if (concat != nullptr) return nullptr;  // One hero only.
    concat = instr;
  }
  if (concat == nullptr) return nullptr;
  // The rows' full shape is the row reduction's input (a concatenate of one
  // value per row, fused into the epilogue by instruction fusion, was
  // walked as pieces of the rows and wrote zeros: the differential
  // fuzzer's diff-255 on the H100, session 32).
  int64_t row_elements = -1;
  for (const HloInstruction* instr : fused.instructions()) {
    if (IsNonTrivialReduce(*instr)) {
      row_elements = instr->operand(0)->shape().ElementCount();
      break;
    }
  }
  return IsRowConcatenateHero(concat, root, row_elements,
                              [](const HloInstruction*) { return true; })
             ? concat
             : nullptr;
}

absl::StatusOr<RowReductionInfo> AnalyzeRowReduction(
    const HloComputation& fused) {
  std::vector<const HloInstruction*> order = PostOrder(fused);
  RowReductionInfo info;
  for (const HloInstruction* instr : order) {
    if (IsNonTrivialReduce(*instr)) {
      std::optional<RowShape> rows = GetRowReductionShape(*instr);
      if (!rows) {
        return FusedError(*instr, "not a row reduction");
      }
      info.rows = *rows;
      break;
    }
  }
  if (info.rows.num_rows == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(fused.name(), ": a row-reduction fusion needs a reduce"));
  }
  absl::flat_hash_map<const HloInstruction*, RowClass> classes;
  auto lookup = [&](const HloInstruction* operand) {
    auto it = classes.find(operand);
    return it == classes.end() ? RowClass::kInvariant : it->second;
  };
  for (const HloInstruction* instr : order) {
    if (instr->opcode() == HloOpcode::kParameter) continue;
    if (instr == fused.root_instruction() &&
        instr->opcode() == HloOpcode::kTuple) {
      continue;
    }
    if (!IsLoopFusibleOp(*instr) && instr->opcode() != HloOpcode::kReduce) {
      return FusedError(*instr, "not fusible into a row-reduction fusion");
    }
    absl::StatusOr<RowClass> c =
        ClassifyRowInstruction(*instr, info.rows, lookup);
    if (!c.ok()) return FusedError(*instr, c.status().message());
    classes[instr] = *c;
    if (IsNonTrivialReduce(*instr)) {
      info.reductions.push_back(instr);
    }
  }
  for (const HloInstruction* root : Roots(fused)) {
    if (!IsRowOutputShape(root->shape(), info.rows)) {
      return FusedError(*root, absl::StrCat("output is neither per-row nor ",
                                            RowsString(info.rows)));
    }
  }
  return info;
}

absl::StatusOr<const HloInstruction*> AnalyzeDotEpilogue(
    const HloComputation& fused) {
  const HloInstruction* dot = nullptr;
  for (const HloInstruction* instr : PostOrder(fused)) {
    if (instr->opcode() != HloOpcode::kDot) continue;
    if (dot != nullptr) return FusedError(*instr, "a second dot");
    dot = instr;
  }
  if (dot == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(fused.name(), ": a dot-epilogue fusion needs a dot"));
  }
  // The dot's operands are parameters, or a prologue computed from them
  // (checked below with everything else that does not depend on the dot:
  // loop-fusible ops).
  const HloInstruction* root = fused.root_instruction();
  if (root->opcode() == HloOpcode::kTuple) {
    return FusedError(*root, "a dot fusion has one root");
  }
  absl::flat_hash_set<const HloInstruction*> dependent = {dot};
  for (const HloInstruction* instr : PostOrder(fused)) {
    if (instr == dot) continue;
    bool depends = false;
    for (const HloInstruction* operand : instr->operands()) {
      depends |= dependent.contains(operand);
    }
    if (!depends) {
      if (instr->opcode() != HloOpcode::kParameter &&
          !IsLoopFusibleOp(*instr)) {
        return FusedError(*instr, "not fusible into a dot fusion");
      }
      continue;
    }
    if (!HloOpcodeIsElementwise(instr->opcode()) ||
        !instr->shape().SameDimensions(dot->shape())) {
      return FusedError(*instr,
                        "an epilogue op must be elementwise over the dot's "
                        "result");
    }
    dependent.insert(instr);
  }
  if (!dependent.contains(root)) {
    return FusedError(*root, "the root does not use the dot");
  }
  return dot;
}

absl::Status VerifyFusionShape(const HloInstruction& fusion) {
  if (fusion.opcode() != HloOpcode::kFusion) {
    return FusedError(fusion, "not a fusion");
  }
  const HloComputation& fused = *fusion.fused_computation();
  absl::Status status;
  switch (GetFusionShape(fusion)) {
    case FusionShape::kLoop:
      status = VerifyLoop(fused);
      break;
    case FusionShape::kReduction:
      status = VerifyReduction(fused);
      break;
    case FusionShape::kRowReduction:
      status = AnalyzeRowReduction(fused).status();
      break;
    case FusionShape::kDotEpilogue:
      status = AnalyzeDotEpilogue(fused).status();
      break;
    case FusionShape::kScan:
      status = VerifyOpRoot(fused, HloOpcode::kScan);
      break;
    case FusionShape::kScatter:
      status = VerifyOpRoot(fused, HloOpcode::kScatter);
      break;
    case FusionShape::kUnknown:
      status = absl::InvalidArgumentError(
          "not a fusion shape this compiler produces");
      break;
  }
  if (status.ok()) return status;
  return absl::InvalidArgumentError(absl::StrCat(
      "fusion ", fusion.name(), " (", FusionShapeName(GetFusionShape(fusion)),
      "): ", status.message()));
}

}  // namespace hloc
