#include "hlo/backend_config.h"

#include <cctype>

#include "absl/strings/str_cat.h"

namespace hloc {
namespace {

bool IsSpace(char c) { return std::isspace(static_cast<unsigned char>(c)); }

}  // namespace

std::string BackendConfigValue(absl::string_view config,
                               const std::vector<std::string>& path) {
  size_t at = 0;
  for (const std::string& key : path) {
    const std::string quoted = absl::StrCat("\"", key, "\"");
    for (;;) {
      at = config.find(quoted, at);
      if (at == absl::string_view::npos) return "";
      at += quoted.size();
      while (at < config.size() && IsSpace(config[at])) ++at;
      // A key is followed by its colon; the same text as a value is not.
      if (at < config.size() && config[at] == ':') break;
    }
    ++at;
    while (at < config.size() && IsSpace(config[at])) ++at;
  }
  // A quoted value runs to its closing quote; a bare one to the next
  // separator.
  const bool quoted = at < config.size() && config[at] == '"';
  if (quoted) ++at;
  size_t end = at;
  while (end < config.size() && config[end] != '"' &&
         (quoted || (config[end] != ',' && config[end] != '}' &&
                     !IsSpace(config[end])))) {
    ++end;
  }
  return std::string(config.substr(at, end - at));
}

}  // namespace hloc
