// Translations between the IR's enums and the schema's (hlo.proto). The IR's
// PrimitiveType mostly shares XLA's numbers, but not for every type, so the
// element types are mapped by name, never by casting.
#ifndef HLO_PROTO_ENUM_MAP_H_
#define HLO_PROTO_ENUM_MAP_H_

#include "absl/status/statusor.h"
#include "hlo/primitive_type.h"
#include "hlo/proto/hlo.pb.h"

namespace hloc {

// Errors name the proto enum value for types the IR does not have (F6*,
// BUFFER).
absl::StatusOr<PrimitiveType> PrimitiveTypeFromProto(int proto_type);
xla::PrimitiveType PrimitiveTypeToProto(PrimitiveType type);

}  // namespace hloc

#endif  // HLO_PROTO_ENUM_MAP_H_
