// Fuzz target: the .npy reader (runtime/npy), fed whole files. Any input
// must give a literal or an error; a literal read must serialize, and the
// serialized bytes must read back as the same literal.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/strings/string_view.h"
#include "runtime/npy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view bytes(reinterpret_cast<const char*>(data), size);
  // The first byte picks the type a caller expects, as hlo-run passes the
  // parameter's type (it decides how width-only descrs such as '<V2' read).
  hloc::NpyReadOptions options;
  if (size > 0 && (data[0] & 1)) options.expected_type = hloc::BF16;
  auto literal = hloc::ParseNpy(bytes, "fuzz", options);
  if (!literal.ok()) return 0;
  auto serialized = hloc::SerializeNpy(*literal);
  if (!serialized.ok()) return 0;
  auto again = hloc::ParseNpy(*serialized, "serialized", options);
  if (!again.ok() || !(*again == *literal)) {
    std::fprintf(stderr, "serialized .npy does not read back the same: %s\n",
                 again.ok() ? "different literal"
                            : std::string(again.status().message()).c_str());
    std::abort();
  }
  return 0;
}
