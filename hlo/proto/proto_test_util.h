// Shared checks of the proto bridge's tests.
#ifndef HLO_PROTO_PROTO_TEST_UTIL_H_
#define HLO_PROTO_PROTO_TEST_UTIL_H_

#include <string>

#include "hlo/module.h"
#include "hlo/proto/hlo.pb.h"

namespace hloc {

// An HloModuleProto from protobuf text format; fails the test on bad text.
xla::HloModuleProto TextProto(const std::string& text);

// Protobuf text of a module using (nearly) every attribute, with callees
// listed after callers and an operand defined after its user.
std::string KitchenSink();

// Exports `module`, re-imports it and expects the copy to be the same module
// with the same names, metadata and config, and exporting the copy to give
// the same bytes (a fixed point).
void ExpectRoundTrips(const HloModule& module);

}  // namespace hloc

#endif  // HLO_PROTO_PROTO_TEST_UTIL_H_
