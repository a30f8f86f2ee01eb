// Loading an HLO module from a file, for the command-line tools: reads the
// file, parses it as HLO text or as a serialized HloModuleProto, and runs the
// verifier, so that every tool starts from a well-formed module.
#ifndef TOOLS_MODULE_LOADER_H_
#define TOOLS_MODULE_LOADER_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hlo/module.h"

namespace hloc {

// `format` is "hlo" (HLO text), "pb" (binary HloModuleProto) or "" to pick
// by the file name: .hlo and .txt are text, .pb is a proto. Errors start with
// the path (parse errors carry path:line:col) and say which step failed.
absl::StatusOr<std::unique_ptr<HloModule>> LoadModule(
    const std::string& path, absl::string_view format = "");

// The same for a module already in memory: `contents` is HLO text ("hlo")
// or a serialized HloModuleProto ("pb"); `name` labels errors as the path
// does above.
absl::StatusOr<std::unique_ptr<HloModule>> ParseModule(
    absl::string_view contents, absl::string_view format,
    absl::string_view name);

}  // namespace hloc

#endif  // TOOLS_MODULE_LOADER_H_
