// Fuzz target: the saved-executable loader (runtime/executable:
// DeserializeExecutable, which also validates the buffer plan and steps).
// Any input must give an executable or an error. A loaded executable must
// describe itself and serialize again to bytes that load.
//
// The file format guards its payload with a checksum, so almost every
// mutation of a whole file stops at that check. Inputs whose first byte is
// odd are therefore taken as the payload alone (the ExecutableProto) and
// framed here with a correct header, which lets the fuzzer reach the proto
// decoding and the validation behind it; even ones are whole files, to
// cover the header checks themselves.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/strings/string_view.h"
#include "google/protobuf/stubs/logging.h"
#include "runtime/executable.h"

namespace {

// The header of runtime/executable.cc's format: magic, version,
// zero, payload size, FNV-1a 64 of the payload; all little-endian.
void PutLe(uint64_t value, int bytes, std::string* out) {
  for (int i = 0; i < bytes; ++i) {
    out->push_back(static_cast<char>((value >> (8 * i)) & 0xff));
  }
}

std::string Frame(absl::string_view payload) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (unsigned char c : payload) {
    hash ^= c;
    hash *= 0x100000001b3ull;
  }
  std::string out("hlocexe", 8);
  PutLe(hloc::kExecutableFormatVersion, 4, &out);
  PutLe(0, 4, &out);
  PutLe(payload.size(), 8, &out);
  PutLe(hash, 8, &out);
  out.append(payload.data(), payload.size());
  return out;
}

}  // namespace

// Mutated bytes make protobuf log every malformed string field; the
// fuzzer's own output is what matters.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  google::protobuf::SetLogHandler(nullptr);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const absl::string_view rest(reinterpret_cast<const char*>(data + 1),
                               size - 1);
  const std::string bytes = (data[0] & 1) ? Frame(rest) : std::string(rest);
  auto executable = hloc::DeserializeExecutable(bytes, "fuzz");
  if (!executable.ok()) return 0;
  (void)hloc::DescribeExecutable(*executable);
  auto serialized = hloc::SerializeExecutable(*executable);
  if (!serialized.ok()) return 0;
  auto again = hloc::DeserializeExecutable(*serialized, "serialized");
  if (!again.ok()) {
    std::fprintf(stderr, "serialized executable does not load: %s\n",
                 std::string(again.status().message()).c_str());
    std::abort();
  }
  return 0;
}
