#include "backends/gpu/gemm_lowering.h"

#include "absl/strings/str_cat.h"
#include "backends/gpu/gemm_config.h"
#include "hlo/computation.h"
#include "hlo/literal.h"
#include "hlo/status_macros.h"

namespace hloc {
namespace {

const HloInstruction* SkipBitcasts(const HloInstruction* instr) {
  while (instr->opcode() == HloOpcode::kBitcast) instr = instr->operand(0);
  return instr;
}

// The fusion parameter `instr` reads (through bitcasts), or -1.
int64_t ParameterOf(const HloInstruction* instr) {
  instr = SkipBitcasts(instr);
  return instr->opcode() == HloOpcode::kParameter ? instr->parameter_number()
                                                  : -1;
}

bool IsBroadcastOfZero(const HloInstruction* instr) {
  if (instr->opcode() == HloOpcode::kBroadcast) instr = instr->operand(0);
  if (instr->opcode() != HloOpcode::kConstant || instr->shape().rank() != 0) {
    return false;
  }
  return instr->literal().GetAsDouble(0) == 0.0;
}

// One of `instr`'s two operands satisfies `match`: it, and the other one.
template <typename Match>
bool SplitOperands(const HloInstruction* instr, Match match,
                   const HloInstruction** matched,
                   const HloInstruction** other) {
  for (int i = 0; i < 2; ++i) {
    if (match(instr->operand(i))) {
      *matched = instr->operand(i);
      *other = instr->operand(1 - i);
      return true;
    }
  }
  return false;
}

absl::Status Unimplemented(const std::string& why) {
  return absl::UnimplementedError(why);
}

}  // namespace

bool HasDot(const HloInstruction& hlo) {
  if (hlo.opcode() == HloOpcode::kDot) return true;
  if (hlo.opcode() != HloOpcode::kFusion) return false;
  for (const HloInstruction* instr :
       hlo.fused_computation()->MakeInstructionPostOrder()) {
    if (instr->opcode() == HloOpcode::kDot) return true;
  }
  return false;
}

const HloInstruction* FusedDot(const HloInstruction& fusion) {
  const HloInstruction* dot = nullptr;
  for (const HloInstruction* instr :
       fusion.fused_computation()->MakeInstructionPostOrder()) {
    if (instr->opcode() != HloOpcode::kDot) continue;
    if (dot != nullptr) return nullptr;
    dot = instr;
  }
  return dot;
}

absl::StatusOr<GemmCall> LowerToGemmCall(const HloInstruction& hlo) {
  const HloInstruction* dot = &hlo;
  GemmCall call;
  std::string epilogue;
  if (hlo.opcode() == HloOpcode::kFusion) {
    dot = FusedDot(hlo);
    if (dot == nullptr) {
      return Unimplemented("a fusion with several dots is no single gemm");
    }
    // Peel the epilogue from the root down to the dot.
    const HloInstruction* value = SkipBitcasts(hlo.fused_expression_root());
    const HloInstruction *zero, *bias, *x;
    bool relu = false;
    if (value->opcode() == HloOpcode::kMaximum &&
        SplitOperands(value, IsBroadcastOfZero, &zero, &x)) {
      relu = true;
      value = x;
    }
    bool has_bias = false;
    auto is_dot = [&](const HloInstruction* i) { return i == dot; };
    if (value->opcode() == HloOpcode::kAdd &&
        SplitOperands(value, is_dot, &x, &bias)) {
      // cuBLASLt adds bias[i] to row i of the column-major C: after the
      // swap (row-major output) that is the output's last dimension.
      const Shape& out = dot->shape();
      const bool along_n =
          out.rank() == 2 && bias->opcode() == HloOpcode::kBroadcast &&
          bias->dimensions() == std::vector<int64_t>{1} &&
          bias->operand(0)->shape().rank() == 1 &&
          bias->operand(0)->shape().element_type() == out.element_type() &&
          ParameterOf(bias->operand(0)) >= 0 &&
          dot->attrs().dot_dimension_numbers->lhs_batch_dimensions.empty();
      if (!along_n) {
        return Unimplemented(
            "the dot's epilogue adds something other than a bias along the "
            "output's last dimension");
      }
      has_bias = true;
      call.bias_operand = ParameterOf(bias->operand(0));
      value = dot;
    }
    if (value != dot) {
      return Unimplemented(absl::StrCat(
          "the dot's epilogue (", value->name(),
          ") is no cuBLASLt epilogue (bias, relu, bias then relu)"));
    }
    epilogue = has_bias ? (relu ? "bias_relu" : "bias") : (relu ? "relu" : "");
    if (!epilogue.empty() && IsComplexType(dot->shape().element_type())) {
      return Unimplemented("cuBLASLt has no epilogue for complex gemms");
    }
    call.a_operand = ParameterOf(dot->operand(0));
    call.b_operand = ParameterOf(dot->operand(1));
    if (call.a_operand < 0 || call.b_operand < 0) {
      return Unimplemented(
          "the dot's operands are computed inside the fusion (a prologue)");
    }
  }
  const HloAttributes& attrs = dot->attrs();
  if (!attrs.dot_dimension_numbers) {
    return absl::InvalidArgumentError(
        absl::StrCat(dot->name(), " has no dot dimension numbers"));
  }
  const Shape& out = dot->shape();
  if (out.ElementCount() == 0) {
    call.empty = true;
    return call;
  }
  absl::StatusOr<GemmMapping> mapping =
      MapDotToGemm(dot->operand(0)->shape(), dot->operand(1)->shape(), out,
                   *attrs.dot_dimension_numbers, attrs.precision_config);
  if (!mapping.ok()) return mapping.status();
  if (mapping->config.k == 0) {
    return Unimplemented("a dot with empty contracting dimensions");
  }
  if (call.bias_operand >= 0 && !mapping->swap_operands) {
    return Unimplemented("the bias runs along the output's major dimension");
  }
  call.config = mapping->config;
  call.config.epilogue = epilogue;
  if (mapping->swap_operands) std::swap(call.a_operand, call.b_operand);
  return call;
}

absl::StatusOr<std::optional<ExecutableStep>> MakeGemmStep(
    const HloInstruction& hlo, const std::vector<int64_t>& slots) {
  if (static_cast<int64_t>(slots.size()) != hlo.operand_count() + 1) {
    return Unimplemented("a gemm reads array operands and writes one array");
  }
  HLOC_ASSIGN_OR_RETURN(GemmCall call, LowerToGemmCall(hlo));
  if (call.empty) return std::nullopt;
  ExecutableStep step;
  step.kind = ExecutableStep::Kind::kLibraryCall;
  step.instruction = hlo.name();
  step.library = "cublas.gemm";
  step.gemm = call.config;
  step.buffers = {slots[call.a_operand], slots[call.b_operand]};
  if (call.bias_operand >= 0) step.buffers.push_back(slots[call.bias_operand]);
  step.buffers.push_back(slots.back());
  return step;
}

}  // namespace hloc
