// Early-return helpers for absl::Status / absl::StatusOr, private to the
// proto bridge.
#ifndef HLO_PROTO_STATUS_MACROS_H_
#define HLO_PROTO_STATUS_MACROS_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define HLOC_PROTO_CONCAT_INNER(a, b) a##b
#define HLOC_PROTO_CONCAT(a, b) HLOC_PROTO_CONCAT_INNER(a, b)

#define RETURN_IF_ERROR(expr)                    \
  do {                                           \
    absl::Status hloc_status_ = (expr);          \
    if (!hloc_status_.ok()) return hloc_status_; \
  } while (0)

#define ASSIGN_OR_RETURN(lhs, expr) \
  ASSIGN_OR_RETURN_IMPL(HLOC_PROTO_CONCAT(hloc_statusor_, __LINE__), lhs, expr)
#define ASSIGN_OR_RETURN_IMPL(statusor, lhs, expr) \
  auto statusor = (expr);                          \
  if (!statusor.ok()) return statusor.status();    \
  lhs = std::move(*statusor)

#endif  // HLO_PROTO_STATUS_MACROS_H_
