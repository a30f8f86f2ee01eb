#include "passes/host_callbacks.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "hlo/computation.h"
#include "hlo/host_callbacks.h"
#include "hlo/status_macros.h"

namespace hloc {
namespace {

// A value of `shape` (tokens and tuples of them) that stands for what
// `callback` returned: its token operand, or an after-all of its token
// operands (none: a fresh token).
HloInstruction* TokenValue(HloComputation* computation,
                           const HloInstruction& callback, const Shape& shape) {
  if (shape.IsTuple()) {
    std::vector<HloInstruction*> elements;
    for (const Shape& element : shape.tuple_shapes()) {
      elements.push_back(TokenValue(computation, callback, element));
    }
    return computation->AddInstruction(HloInstruction::CreateTuple(elements));
  }
  std::vector<HloInstruction*> tokens;
  for (HloInstruction* operand : callback.operands()) {
    if (operand->shape().IsToken()) tokens.push_back(operand);
  }
  if (tokens.size() == 1) return tokens[0];
  return computation->AddInstruction(
      HloInstruction::Create(HloOpcode::kAfterAll, Shape::Token(), tokens));
}

bool HasArrayLeaf(const Shape& shape) {
  if (!shape.IsTuple()) return shape.IsArray();
  for (const Shape& element : shape.tuple_shapes()) {
    if (HasArrayLeaf(element)) return true;
  }
  return false;
}

// Removes `callback`, whose results are unused but for tokens
// (PythonCallbackResultsUsed is false).
absl::Status Drop(HloComputation* computation, HloInstruction* callback) {
  if (!HasArrayLeaf(callback->shape())) {
    if (!callback->users().empty() ||
        computation->root_instruction() == callback) {
      HLOC_RETURN_IF_ERROR(callback->ReplaceAllUsesWith(
          TokenValue(computation, *callback, callback->shape())));
    }
  } else {
    // Only token elements are read, each by a get-tuple-element.
    const std::vector<HloInstruction*> users = callback->users();
    for (HloInstruction* user : users) {
      HLOC_RETURN_IF_ERROR(user->ReplaceAllUsesWith(
          TokenValue(computation, *callback, user->shape())));
      HLOC_RETURN_IF_ERROR(computation->RemoveInstruction(user));
    }
  }
  return computation->RemoveInstruction(callback);
}

}  // namespace

absl::StatusOr<bool> HostCallbacks::Run(HloModule* module) {
  std::vector<HloInstruction*> callbacks;
  for (HloComputation* computation : module->computations()) {
    for (HloInstruction* instruction : computation->instructions()) {
      if (IsPythonCallback(*instruction)) callbacks.push_back(instruction);
    }
  }
  if (callbacks.empty()) return false;
  if (!drop_) {
    return PythonCallbackError(
        *module,
        std::vector<const HloInstruction*>(callbacks.begin(), callbacks.end()),
        /*dropping=*/false);
  }
  std::vector<const HloInstruction*> used;
  for (const HloInstruction* callback : callbacks) {
    if (PythonCallbackResultsUsed(*callback)) used.push_back(callback);
  }
  if (!used.empty()) return PythonCallbackError(*module, used, true);
  std::vector<HloComputation*> changed;
  for (HloInstruction* callback : callbacks) {
    if (notices_ != nullptr) {
      *notices_ << "hloc: dropped Python host callback "
                << DescribePythonCallback(*module, *callback)
                << "; it will not run (" << kDropDebugCallbacksFlag << ")\n";
    }
    HloComputation* computation = callback->parent();
    HLOC_RETURN_IF_ERROR(Drop(computation, callback));
    Count("callbacks-dropped");
    if (changed.empty() || changed.back() != computation) {
      changed.push_back(computation);
    }
  }
  // New tuples and after-alls are stored last; keep def-before-use order.
  for (HloComputation* computation : changed) {
    computation->SortInstructionsInPostOrder();
  }
  return true;
}

}  // namespace hloc
