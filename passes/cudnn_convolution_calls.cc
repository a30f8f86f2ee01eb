#include "passes/cudnn_convolution_calls.h"

#include <cstdlib>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "hlo/backend_config.h"
#include "hlo/computation.h"
#include "hlo/shape_inference.h"

namespace hloc {
namespace {

constexpr char kForward[] = "__cudnn$convForward";

// Whether `call` is a plain forward convolution: two operands, the result
// and a u8 workspace, no activation, a result scale of 1.
bool IsPlainForward(const HloInstruction& call) {
  const HloAttributes& a = call.attrs();
  if (a.custom_call_target != kForward || call.operand_count() != 2 ||
      !a.window || !a.convolution_dimension_numbers) {
    return false;
  }
  const Shape& shape = call.shape();
  if (!shape.IsTuple() || shape.tuple_shapes().size() != 2 ||
      !shape.tuple_shapes(0).IsArray() ||
      shape.tuple_shapes(1).element_type() != U8 ||
      shape.tuple_shapes(1).rank() != 1) {
    return false;
  }
  const std::string& config = call.backend_config();
  const std::string activation =
      BackendConfigValue(config, {"activation_mode"});
  const std::string scale = BackendConfigValue(config, {"conv_result_scale"});
  return (activation.empty() || activation == "kNone") &&
         (scale.empty() || std::strtod(scale.c_str(), nullptr) == 1.0);
}

absl::StatusOr<bool> Rewrite(HloComputation* computation,
                             HloInstruction* call) {
  if (!IsPlainForward(*call)) return false;
  const Shape& shape = call->shape();
  auto conv = HloInstruction::Create(HloOpcode::kConvolution,
                                     shape.tuple_shapes(0),
                                     {call->operand(0), call->operand(1)});
  HloAttributes& a = conv->mutable_attrs();
  const HloAttributes& from = call->attrs();
  a.window = from.window;
  a.convolution_dimension_numbers = from.convolution_dimension_numbers;
  a.feature_group_count = from.feature_group_count;
  a.batch_group_count = from.batch_group_count;
  a.precision_config = from.precision_config;
  // A call whose attributes do not make a valid convolution of its
  // operands into its result (a window that is not the kernel's size, say)
  // is bad input, said here with the call's name: rewritten, it would be an
  // invalid module after this pass.
  absl::StatusOr<Shape> inferred = InferInstructionShape(*conv);
  if (!inferred.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("custom-call ", call->name(), " (", kForward,
                     "): ", inferred.status().message()));
  }
  if (!inferred->Compatible(shape.tuple_shapes(0))) {
    return absl::InvalidArgumentError(absl::StrCat(
        "custom-call ", call->name(), " (", kForward, "): its result ",
        shape.tuple_shapes(0).ToString(), " is not the convolution's ",
        inferred->ToString()));
  }
  *conv->mutable_metadata() = call->metadata();
  HloInstruction* result = computation->AddInstruction(std::move(conv));
  // The workspace: zeros (nothing reads it).
  const Shape& scratch = shape.tuple_shapes(1);
  HloInstruction* zero = computation->AddInstruction(
      HloInstruction::CreateConstant(Literal(Shape::Scalar(U8))));
  HloInstruction* workspace = computation->AddInstruction(
      HloInstruction::CreateBroadcast(scratch, zero, {}));
  HloInstruction* tuple = computation->AddInstruction(
      HloInstruction::CreateTuple({result, workspace}));
  if (absl::Status s = computation->ReplaceInstruction(call, tuple); !s.ok()) {
    return s;
  }
  return true;
}

}  // namespace

absl::StatusOr<bool> CudnnConvolutionCalls::Run(HloModule* module) {
  return RewriteEach(module, HloOpcode::kCustomCall, "convolutions-restored",
                     Rewrite);
}

}  // namespace hloc
