#include "runtime/dlopen_symbols.h"

#include <cstdlib>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace hloc {

std::string LibraryNames(const char* env, absl::string_view defaults) {
  const char* value = std::getenv(env);
  return value != nullptr && *value != '\0' ? std::string(value)
                                            : std::string(defaults);
}

absl::StatusOr<OpenedLibrary> OpenFirstLibrary(absl::string_view names,
                                               absl::string_view what,
                                               absl::string_view hint) {
  std::vector<std::string> errors;
  for (absl::string_view name : absl::StrSplit(names, ',', absl::SkipEmpty())) {
    OpenedLibrary library;
    library.name = std::string(name);
    library.handle = dlopen(library.name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (library.handle != nullptr) return library;
    const char* why = dlerror();
    errors.push_back(why != nullptr ? why : library.name);
  }
  return absl::UnavailableError(
      absl::StrCat("no ", what, ": cannot load ", names, " (",
                   absl::StrJoin(errors, "; "), ")", hint.empty() ? "" : "; ",
                   hint));
}

absl::Status LibraryCallError(absl::string_view library,
                              absl::string_view function, int code,
                              const char* status_name, absl::string_view what) {
  return absl::InternalError(absl::StrCat(
      library, " ", function, " failed: ",
      status_name != nullptr ? absl::StrCat(status_name, " (", code, ")")
                             : absl::StrCat("status ", code),
      " in ", what));
}

absl::Status SymbolBinder::Check(absl::string_view library,
                                 absl::string_view requirement) const {
  if (missing_.empty()) return absl::OkStatus();
  return absl::UnavailableError(
      absl::StrCat(library, " lacks ", missing_, " (", requirement, ")"));
}

}  // namespace hloc
