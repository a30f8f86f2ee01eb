// Early returns for absl::Status and absl::StatusOr, used across the
// project (the HLOC_ prefix keeps them clear of other libraries' macros):
//
//   HLOC_RETURN_IF_ERROR(VerifyModule(module));
//   HLOC_ASSIGN_OR_RETURN(Shape shape, InferInstructionShape(instr));
#ifndef HLO_STATUS_MACROS_H_
#define HLO_STATUS_MACROS_H_

#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define HLOC_RETURN_IF_ERROR(expr)                \
  do {                                            \
    ::absl::Status hloc_status_ = (expr);         \
    if (!hloc_status_.ok()) return hloc_status_;  \
  } while (false)

#define HLOC_STATUS_CONCAT_INNER(a, b) a##b
#define HLOC_STATUS_CONCAT(a, b) HLOC_STATUS_CONCAT_INNER(a, b)
#define HLOC_ASSIGN_OR_RETURN(lhs, expr)                                     \
  HLOC_ASSIGN_OR_RETURN_IMPL(HLOC_STATUS_CONCAT(hloc_statusor_, __LINE__), \
                             lhs, expr)
#define HLOC_ASSIGN_OR_RETURN_IMPL(statusor, lhs, expr) \
  auto statusor = (expr);                               \
  if (!statusor.ok()) return statusor.status();         \
  lhs = std::move(*statusor)

#endif  // HLO_STATUS_MACROS_H_
