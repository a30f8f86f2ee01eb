// Reads XLA's serialized HLO (xla.HloModuleProto, as JAX and XLA write it)
// into the IR. Every field the IR can hold is imported; ids become the IR's
// unique ids and names are kept exactly. Bad input (dangling or duplicate
// ids, cycles, wrong operand counts, unknown opcodes, malformed shapes or
// literals) gives an error that names the computation, the instruction and
// the reason; it never crashes.
#ifndef HLO_PROTO_PROTO_IMPORT_H_
#define HLO_PROTO_PROTO_IMPORT_H_

#include <memory>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hlo/module.h"
#include "hlo/proto/hlo.pb.h"

namespace hloc {

absl::StatusOr<std::unique_ptr<HloModule>> ImportHloModuleProto(
    const xla::HloModuleProto& proto);

// Parses serialized bytes (an HloModuleProto, or the HloProto envelope of
// XLA's *.hlo.pb dumps) and imports them. Errors start with `filename`.
absl::StatusOr<std::unique_ptr<HloModule>> ParseHloModuleProtoBytes(
    absl::string_view bytes, absl::string_view filename = "<input>");

}  // namespace hloc

#endif  // HLO_PROTO_PROTO_IMPORT_H_
