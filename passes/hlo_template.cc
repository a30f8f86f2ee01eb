#include "passes/hlo_template.h"

#include <functional>
#include <memory>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hlo/computation.h"
#include "hlo/module.h"
#include "hlo/primitive_type.h"
#include "hlo/status_macros.h"
#include "hlo/text/parser.h"
#include "passes/call_inliner.h"

namespace hloc {

absl::StatusOr<HloInstruction*> ReplaceWithTemplate(
    HloInstruction* instr, absl::string_view module_text) {
  const std::string what = absl::StrCat("the expansion of ", instr->name());
  absl::StatusOr<std::unique_ptr<HloModule>> parsed =
      ParseHloModule(module_text, what);
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": ", parsed.status().message()));
  }
  const HloComputation* entry = (*parsed)->entry_computation();
  bool fits = entry != nullptr &&
              entry->num_parameters() == instr->operand_count() &&
              entry->root_instruction()->shape().Compatible(instr->shape());
  for (int64_t i = 0; fits && i < instr->operand_count(); ++i) {
    fits = entry->parameter_instruction(i)->shape().Compatible(
        instr->operand(i)->shape());
  }
  if (!fits) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": its signature does not match the instruction"));
  }
  HloComputation* computation = instr->parent();
  HloModule* module = computation->parent();
  // Callees first, so that each clone calls clones.
  absl::flat_hash_map<const HloComputation*, HloComputation*> remap;
  std::function<void(const HloComputation*)> add =
      [&](const HloComputation* c) {
        if (remap.contains(c)) return;
        for (const HloInstruction* i : c->instructions()) {
          for (const HloComputation* callee : i->called_computations()) {
            add(callee);
          }
        }
        remap[c] = module->AddEmbeddedComputation(c->Clone("", &remap));
      };
  add(entry);
  std::vector<HloInstruction*> operands(instr->operands().begin(),
                                        instr->operands().end());
  std::unique_ptr<HloInstruction> call =
      HloInstruction::Create(HloOpcode::kCall, instr->shape(), operands);
  call->set_called_computations({remap.at(entry)});
  HloInstruction* added = computation->AddInstruction(std::move(call));
  HLOC_RETURN_IF_ERROR(computation->ReplaceInstruction(instr, added));
  HLOC_ASSIGN_OR_RETURN(HloInstruction * result, InlineCall(added));
  // The inlined copy of the entry has no caller left.
  HLOC_RETURN_IF_ERROR(module->RemoveComputation(remap.at(entry)));
  return result;
}

std::string ShapeText(PrimitiveType type, const std::vector<int64_t>& dims) {
  return absl::StrCat(PrimitiveTypeName(type), "[", absl::StrJoin(dims, ","),
                      "]");
}

std::string ConstantText(PrimitiveType type, int value) {
  if (type == PRED) return value != 0 ? "true" : "false";
  if (IsComplexType(type)) return absl::StrCat("(", value, ", 0)");
  return absl::StrCat(value);
}

std::string TemplateBody::Add(const std::string& name, const std::string& shape,
                              const std::string& rest) {
  absl::StrAppend(&text_, "  ", name, " = ", shape, " ", rest, "\n");
  return name;
}

}  // namespace hloc
