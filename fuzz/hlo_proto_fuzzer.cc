// Fuzz target: the proto importer (hlo/proto), fed serialized
// HloModuleProto (or HloProto) bytes as JAX would hand them over. Any input
// must give a module or an error. An imported module is verified, printed,
// and exported again; the export must import again.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/strings/string_view.h"
#include "google/protobuf/stubs/logging.h"
#include "hlo/proto/proto_export.h"
#include "hlo/proto/proto_import.h"
#include "hlo/text/printer.h"
#include "hlo/verifier.h"

// Mutated bytes make protobuf log every malformed string field; the
// fuzzer's own output is what matters.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  google::protobuf::SetLogHandler(nullptr);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto module = hloc::ParseHloModuleProtoBytes(bytes, "fuzz");
  if (!module.ok()) return 0;
  (void)hloc::VerifyModule(**module);
  (void)hloc::PrintModule(**module);
  auto exported = hloc::SerializeHloModule(**module);
  if (!exported.ok()) return 0;
  auto again = hloc::ParseHloModuleProtoBytes(*exported, "exported");
  if (!again.ok()) {
    std::fprintf(stderr, "exported module does not import: %s\n",
                 std::string(again.status().message()).c_str());
    std::abort();
  }
  return 0;
}
