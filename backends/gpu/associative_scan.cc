#include "backends/gpu/associative_scan.h"

#include "hlo/computation.h"
#include "hlo/opcode.h"
#include "hlo/status_macros.h"

namespace hloc {
namespace {

bool IsSingleAssociativeOpBody(const HloComputation* body) {
  if (body == nullptr || body->num_parameters() != 2) return false;
  const HloInstruction* root = body->root_instruction();
  if (root->opcode() != HloOpcode::kTuple || root->operand_count() != 2 ||
      root->operand(0) != root->operand(1)) {
    return false;
  }
  const HloInstruction* s = root->operand(0);
  if (!HloOpcodeIsAssociativeBinary(s->opcode()) || s->operand_count() != 2) {
    return false;
  }
  const HloInstruction* x = body->parameter_instruction(0);
  const HloInstruction* c = body->parameter_instruction(1);
  return (s->operand(0) == x && s->operand(1) == c) ||
         (s->operand(0) == c && s->operand(1) == x);
}

}  // namespace

bool IsSingleOpAssociativeScan(const HloInstruction& scan,
                               const KernelInfo& info) {
  if (!scan.attrs().is_associative || scan.operand_count() != 2 ||
      scan.dimensions().size() != 1 || info.output_shapes.size() != 2 ||
      !IsSingleAssociativeOpBody(scan.to_apply())) {
    return false;
  }
  const Shape& in = scan.operand(0)->shape();
  const int64_t dim = scan.dimensions(0);
  if (!in.IsArray() || dim < 0 || dim >= in.rank() || in.dimensions(dim) < 1) {
    return false;
  }
  const Shape& out = info.output_shapes[0];
  const Shape& carry = scan.operand(1)->shape();
  return out.IsArray() && out.dimensions() == in.dimensions() &&
         out.MinorToMajor() == in.MinorToMajor() &&
         out.element_type() == in.element_type() && carry.IsArray() &&
         carry.element_type() == in.element_type() &&
         carry.rank() == in.rank() - 1;
}

absl::StatusOr<llvm::Value*> CombinePrefixes(KernelBuilder& kernel,
                                             const HloInstruction& scan,
                                             llvm::Value* earlier,
                                             llvm::Value* later) {
  HLOC_ASSIGN_OR_RETURN(llvm::Value * r,
                        kernel.elemental()->EmitScalarComputation(
                            scan.to_apply(), {later, earlier}));
  return kernel.b()->CreateExtractValue(r, {0});
}

}  // namespace hloc
