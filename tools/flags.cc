#include "tools/flags.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace hloc {

absl::StatusOr<ParsedFlags> ParseFlags(int argc, char** argv,
                                       const std::vector<FlagSpec>& specs) {
  auto find = [&](const std::string& name) -> const FlagSpec* {
    for (const FlagSpec& spec : specs) {
      if (spec.name == name) return &spec;
    }
    return nullptr;
  };
  ParsedFlags parsed;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "-" || arg.empty() || arg[0] != '-') {
      parsed.positional.push_back(arg);
      continue;
    }
    std::string body = arg.substr(arg.rfind("--", 0) == 0 ? 2 : 1);
    std::string name = body;
    std::string value;
    bool has_value = false;
    size_t eq = body.find('=');
    if (eq != std::string::npos) {
      name = body.substr(0, eq);
      value = body.substr(eq + 1);
      has_value = true;
    }
    const FlagSpec* spec = find(name);
    if (spec == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown flag '", arg, "' (see --help)"));
    }
    if (spec->takes_value && !has_value) {
      if (i + 1 >= argc) {
        return absl::InvalidArgumentError(
            absl::StrCat("flag --", name, " needs a value"));
      }
      value = argv[++i];
    } else if (!spec->takes_value) {
      if (has_value && value != "true" && value != "false") {
        return absl::InvalidArgumentError(absl::StrCat(
            "flag --", name, " is a switch; it takes no value '", value, "'"));
      }
      if (has_value && value == "false") continue;
      value = "true";
    }
    parsed.values[name] = value;
  }
  return parsed;
}

std::string FlagHelp(const std::string& usage,
                     const std::vector<FlagSpec>& specs) {
  std::string out = absl::StrCat("usage: ", usage, "\n");
  for (const FlagSpec& spec : specs) {
    std::string left = absl::StrCat("  --", spec.name,
                                    spec.takes_value ? "=VALUE" : "");
    left.resize(std::max<size_t>(left.size() + 2, 24), ' ');
    absl::StrAppend(&out, left, spec.help, "\n");
  }
  return out;
}

absl::StatusOr<std::optional<bool>> SwitchPair(const ParsedFlags& flags,
                                               const std::string& yes,
                                               const std::string& no) {
  if (flags.Has(yes) && flags.Has(no)) {
    return absl::InvalidArgumentError(
        absl::StrCat("give --", yes, " or --", no, ", not both"));
  }
  if (flags.Has(yes)) return true;
  if (flags.Has(no)) return false;
  return std::nullopt;
}

absl::Status PositiveIntFlag(const ParsedFlags& flags, const std::string& name,
                             int64_t* target, int64_t max) {
  if (!flags.Has(name)) return absl::OkStatus();
  int64_t value;
  if (!absl::SimpleAtoi(flags.Get(name), &value) || value < 1 || value > max) {
    const std::string range =
        max == std::numeric_limits<int64_t>::max()
            ? "a positive integer"
            : absl::StrCat("an integer in [1, ", max, "]");
    return absl::InvalidArgumentError(absl::StrCat(
        "flag --", name, ": '", flags.Get(name), "' is not ", range));
  }
  *target = value;
  return absl::OkStatus();
}

}  // namespace hloc
