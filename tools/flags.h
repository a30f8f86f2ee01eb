// A small command-line parser shared by the tools. Flags are declared up
// front; `--name=value`, `--name value` and boolean `--name` are accepted, and
// anything undeclared is an error naming the flag (tools exit 2 on it) rather
// than an abort, as absl's flags would.
#ifndef TOOLS_FLAGS_H_
#define TOOLS_FLAGS_H_

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace hloc {

struct FlagSpec {
  std::string name;   // Without dashes: "passes".
  bool takes_value;   // false for switches such as --list-passes.
  std::string help;   // One line, printed by --help.
};

struct ParsedFlags {
  std::map<std::string, std::string> values;  // Switches map to "true".
  std::vector<std::string> positional;
  bool Has(const std::string& name) const { return values.count(name) > 0; }
  std::string Get(const std::string& name,
                  const std::string& fallback = "") const {
    auto it = values.find(name);
    return it == values.end() ? fallback : it->second;
  }
};

// Parses argv[1..]. A lone "-" is positional (standard input). "-o FILE" is
// accepted as a synonym for "--o" only when an "o" flag is declared.
absl::StatusOr<ParsedFlags> ParseFlags(int argc, char** argv,
                                       const std::vector<FlagSpec>& specs);

// A yes/no choice spelt as two switches (--fallback / --no-fallback):
// nullopt when neither is given (the caller's default), true for `yes`,
// false for `no`, and an error naming both when both are given.
absl::StatusOr<std::optional<bool>> SwitchPair(const ParsedFlags& flags,
                                               const std::string& yes,
                                               const std::string& no);

// An integer flag from 1 to `max`, into `target` when given (left as it
// is when not); otherwise an error naming the flag and its value: "is not
// an integer in [1, max]", or "is not a positive integer" without a bound.
absl::Status PositiveIntFlag(const ParsedFlags& flags, const std::string& name,
                             int64_t* target,
                             int64_t max = std::numeric_limits<int64_t>::max());

// "usage: <usage>\n  --name=VALUE  help\n..." for --help.
std::string FlagHelp(const std::string& usage,
                     const std::vector<FlagSpec>& specs);

}  // namespace hloc

#endif  // TOOLS_FLAGS_H_
