// Early-return helpers for absl::Status / absl::StatusOr in the backends
// (prefixed: other packages define their own unprefixed ones).
#ifndef BACKENDS_COMMON_STATUS_MACROS_H_
#define BACKENDS_COMMON_STATUS_MACROS_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define HLOC_RETURN_IF_ERROR(expr)               \
  do {                                           \
    ::absl::Status hloc_status_ = (expr);        \
    if (!hloc_status_.ok()) return hloc_status_; \
  } while (0)

#define HLOC_CONCAT_INNER(a, b) a##b
#define HLOC_CONCAT(a, b) HLOC_CONCAT_INNER(a, b)
#define HLOC_ASSIGN_OR_RETURN(lhs, expr) \
  HLOC_ASSIGN_OR_RETURN_IMPL(HLOC_CONCAT(hloc_statusor_, __LINE__), lhs, expr)
#define HLOC_ASSIGN_OR_RETURN_IMPL(statusor, lhs, expr) \
  auto statusor = (expr);                               \
  if (!statusor.ok()) return statusor.status();         \
  lhs = std::move(*statusor)

#endif  // BACKENDS_COMMON_STATUS_MACROS_H_
