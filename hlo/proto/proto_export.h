// Writes the IR as XLA's serialized HLO (xla.HloModuleProto), the inverse of
// proto_import.h: importing the result gives a structurally identical module
// with the same names. Ids are the IR's unique ids where they are distinct,
// fresh ones otherwise. Serialization is deterministic.
#ifndef HLO_PROTO_PROTO_EXPORT_H_
#define HLO_PROTO_PROTO_EXPORT_H_

#include <string>

#include "absl/status/statusor.h"
#include "hlo/module.h"
#include "hlo/proto/hlo.pb.h"

namespace hloc {

absl::StatusOr<xla::HloModuleProto> ExportHloModuleProto(
    const HloModule& module);

absl::StatusOr<std::string> SerializeHloModule(const HloModule& module);

}  // namespace hloc

#endif  // HLO_PROTO_PROTO_EXPORT_H_
