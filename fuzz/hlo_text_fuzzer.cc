// Fuzz target: the HLO text parser (hlo/text). Any input must give a module
// or an error, never a crash. A module that parses must also survive the
// verifier, and its printed text must parse again to a module that prints
// the same (the printer and parser agree on everything they accept).
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <string>

#include "absl/strings/string_view.h"
#include "hlo/text/parser.h"
#include "hlo/text/printer.h"
#include "hlo/verifier.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view text(reinterpret_cast<const char*>(data), size);
  auto module = hloc::ParseHloModule(text, "fuzz");
  if (!module.ok()) return 0;
  (void)hloc::VerifyModule(**module);
  const std::string printed = hloc::PrintModule(**module);
  auto again = hloc::ParseHloModule(printed, "printed");
  if (!again.ok()) {
    std::fprintf(stderr, "printed module does not parse: %s\n%s\n",
                 std::string(again.status().message()).c_str(),
                 printed.c_str());
    std::abort();
  }
  const std::string reprinted = hloc::PrintModule(**again);
  if (reprinted != printed) {
    std::fprintf(stderr, "print(parse(print(m))) != print(m):\n%s\n---\n%s\n",
                 printed.c_str(), reprinted.c_str());
    std::abort();
  }
  return 0;
}
