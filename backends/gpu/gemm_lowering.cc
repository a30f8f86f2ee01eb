#include "backends/gpu/gemm_lowering.h"

#include <cmath>

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

const HloInstruction* SkipConvert(const HloInstruction* instr) {
  return instr->opcode() == HloOpcode::kConvert ? instr->operand(0) : instr;
}

// The scalar constant `instr` is, broadcast or not, maybe behind converts
// (an excess-precision epilogue widens bf16 constants), or nullptr.
const HloInstruction* ScalarConstantBehind(const HloInstruction* instr) {
  instr = SkipConvert(instr);
  if (instr->opcode() == HloOpcode::kBroadcast) instr = instr->operand(0);
  instr = SkipConvert(instr);
  if (instr->opcode() != HloOpcode::kConstant || instr->shape().rank() != 0) {
    return nullptr;
  }
  return instr;
}

bool IsBroadcastOfZero(const HloInstruction* instr) {
  const HloInstruction* constant = ScalarConstantBehind(instr);
  return constant != nullptr && constant->literal().GetAsDouble(0) == 0.0;
}

// A scalar constant (ScalarConstantBehind) that is `want` rounded to its
// own type: within half a unit in the last place of `want` in that type
// (bf16 writes 0.044715 as 0.04468 and sqrt(2/pi) as 0.7969; its
// neighbours 0.04492 and 0.8008 are other constants).
bool IsScalarNear(const HloInstruction* instr, double want) {
  const HloInstruction* constant = ScalarConstantBehind(instr);
  if (constant == nullptr) return false;
  const PrimitiveType type = constant->shape().element_type();
  // Significand bits, the implicit one included.
  const int bits = type == BF16 ? 8 : type == F16 ? 11 : type == F32 ? 24 : 53;
  int exponent = 0;
  std::frexp(want, &exponent);  // want = m * 2^exponent, 0.5 <= |m| < 1
  const double half_ulp = std::ldexp(1.0, exponent - bits - 1);
  return std::abs(constant->literal().GetAsDouble(0) - want) <= half_ulp;
}

// `op` of two operands, either of which matches `first`: the other in
// *rest.
template <typename Match>
bool IsOpWith(const HloInstruction* instr, HloOpcode op, Match first,
              const HloInstruction** rest) {
  if (instr->opcode() != op || instr->operand_count() != 2) return false;
  for (int i = 0; i < 2; ++i) {
    if (first(instr->operand(i))) {
      *rest = instr->operand(1 - i);
      return true;
    }
  }
  return false;
}

// x * x * x, either way round.
bool IsCubeOf(const HloInstruction* instr, const HloInstruction* x) {
  const HloInstruction* square;
  auto is_x = [x](const HloInstruction* i) { return i == x; };
  return IsOpWith(instr, HloOpcode::kMultiply, is_x, &square) &&
         square->opcode() == HloOpcode::kMultiply && square->operand(0) == x &&
         square->operand(1) == x;
}

// gelu's tanh approximation of x as jax.nn.gelu (approximate=True, the
// default) writes it: x * (0.5 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 *
// x^3)))), each product and sum either way round; cuBLASLt's GELU
// epilogue is this function. Other spellings (and the erf form) are not
// matched: they stay a kernel after the gemm.
bool IsTanhGelu(const HloInstruction* root, const HloInstruction** x) {
  if (root->opcode() != HloOpcode::kMultiply) return false;
  for (int i = 0; i < 2; ++i) {
    const HloInstruction* v = root->operand(i);
    const HloInstruction *one_plus, *tanh, *inner, *cubic, *cube;
    auto is_v = [v](const HloInstruction* c) { return c == v; };
    auto near = [](double want) {
      return [want](const HloInstruction* c) { return IsScalarNear(c, want); };
    };
    if (IsOpWith(root->operand(1 - i), HloOpcode::kMultiply, near(0.5),
                 &one_plus) &&
        IsOpWith(one_plus, HloOpcode::kAdd, near(1.0), &tanh) &&
        tanh->opcode() == HloOpcode::kTanh &&
        IsOpWith(tanh->operand(0), HloOpcode::kMultiply,
                 near(0.7978845608028654), &inner) &&
        IsOpWith(inner, HloOpcode::kAdd, is_v, &cubic) &&
        IsOpWith(cubic, HloOpcode::kMultiply, near(0.044715), &cube) &&
        IsCubeOf(cube, v)) {
      *x = v;
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
  // The type the gemm writes where it is narrower than the dot's (below).
  PrimitiveType narrow = PRIMITIVE_TYPE_INVALID;
  if (hlo.opcode() == HloOpcode::kFusion) {
    dot = FusedDot(hlo);
    if (dot == nullptr) {
      return Unimplemented("a fusion with several dots is no single gemm");
    }
    // Peel the epilogue from the root down to the dot.
    const HloInstruction* value = SkipBitcasts(hlo.fused_expression_root());
    // Excess precision (allow-excess-precision, XLA's default): a bf16 or
    // f16 dot gives f32, its epilogue computes in f32 (the bias and zero
    // widened) and the root rounds once to the dot's operand type. That is
    // exactly what cuBLASLt does with D in that type: the epilogue in its
    // f32 compute type, one rounding when D is written. So D takes the
    // root's type, and the gemm writes the fusion's output directly,
    // instead of an f32 result read back by a kernel.
    const PrimitiveType lhs_type = dot->operand(0)->shape().element_type();
    if (value->opcode() == HloOpcode::kConvert &&
        dot->shape().element_type() == F32 &&
        (lhs_type == BF16 || lhs_type == F16) &&
        dot->operand(1)->shape().element_type() == lhs_type &&
        value->shape().element_type() == lhs_type) {
      narrow = lhs_type;
      value = SkipBitcasts(value->operand(0));
    }
    // A value of the gemm's output type widened to f32 by the epilogue.
    auto narrowed = [&](const HloInstruction* i) -> const HloInstruction* {
      if (narrow != PRIMITIVE_TYPE_INVALID &&
          i->opcode() == HloOpcode::kConvert &&
          i->operand(0)->shape().element_type() == narrow) {
        return i->operand(0);
      }
      return i;
    };
    const PrimitiveType d_type =
        narrow != PRIMITIVE_TYPE_INVALID ? narrow : dot->shape().element_type();
    const HloInstruction *bias, *x;
    bool relu = false;
    bool gelu = false;
    if (IsOpWith(value, HloOpcode::kMaximum, IsBroadcastOfZero, &x)) {
      relu = true;
      value = x;
    } else if (IsTanhGelu(value, &x)) {
      gelu = true;
      value = x;
    }
    bool has_bias = false;
    auto is_dot = [&](const HloInstruction* i) { return i == dot; };
    if (IsOpWith(value, HloOpcode::kAdd, is_dot, &bias)) {
      // cuBLASLt adds bias[i] to row i of the column-major C: after the
      // swap (row-major output) that is the output's last dimension. It
      // reads the bias in D's type.
      const Shape& out = dot->shape();
      bias = narrowed(bias);
      const HloInstruction* vector = bias->opcode() == HloOpcode::kBroadcast
                                         ? narrowed(bias->operand(0))
                                         : nullptr;
      const bool along_n =
          out.rank() == 2 && vector != nullptr &&
          bias->dimensions() == std::vector<int64_t>{1} &&
          vector->shape().rank() == 1 &&
          vector->shape().element_type() == d_type &&
          ParameterOf(vector) >= 0 &&
          dot->attrs().dot_dimension_numbers->lhs_batch_dimensions.empty();
      if (!along_n) {
        return Unimplemented(
            "the dot's epilogue adds something other than a bias along the "
            "output's last dimension");
      }
      has_bias = true;
      call.bias_operand = ParameterOf(vector);
      value = dot;
    }
    if (value != dot) {
      return Unimplemented(absl::StrCat(
          "the dot's epilogue (", value->name(),
          ") is no cuBLASLt epilogue (bias, then optionally relu or gelu)"));
    }
    const std::string activation = relu ? "relu" : gelu ? "gelu" : "";
    epilogue = has_bias ? (activation.empty() ? "bias" : "bias_" + activation)
                        : activation;
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
  if (narrow != PRIMITIVE_TYPE_INVALID) call.config.out_type = narrow;
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
