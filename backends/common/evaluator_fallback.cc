#include "backends/common/evaluator_fallback.h"

#include <cstdio>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace hloc {
namespace {

// Warnings and error lists are read one instruction per line.
std::string OneLine(absl::string_view text) {
  std::vector<absl::string_view> lines =
      absl::StrSplit(text, '\n', absl::SkipWhitespace());
  for (absl::string_view& line : lines) {
    while (!line.empty() && line.front() == ' ') line.remove_prefix(1);
  }
  return absl::StrJoin(lines, "; ");
}

}  // namespace

FallbackReport::FallbackReport(std::string backend, std::string consequence,
                               FallbackPolicy policy)
    : backend_(std::move(backend)),
      consequence_(std::move(consequence)),
      policy_(policy) {}

void FallbackReport::Add(const HloInstruction& instruction,
                         absl::string_view reason) {
  const std::string what =
      absl::StrCat(instruction.name(), " (",
                   HloOpcodeString(instruction.opcode()), ")");
  const std::string why = OneLine(reason);
  entries_.push_back(absl::StrCat(what, ": ", why));
  if (policy_.allow && policy_.warn) {
    std::fprintf(stderr, "hloc %s: %s %s: %s\n", backend_.c_str(),
                 what.c_str(), consequence_.c_str(), why.c_str());
  }
}

absl::Status FallbackReport::Check() const {
  if (policy_.allow || entries_.empty()) return absl::OkStatus();
  const size_t n = entries_.size();
  return absl::UnimplementedError(absl::StrCat(
      backend_, " strict mode (--no-fallback): ", n,
      n == 1 ? " instruction would" : " instructions would",
      " need the reference evaluator:\n  ", absl::StrJoin(entries_, "\n  ")));
}

}  // namespace hloc
