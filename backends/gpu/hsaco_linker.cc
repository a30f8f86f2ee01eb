#include "backends/gpu/hsaco_linker.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "backends/common/find_on_path.h"

namespace hloc {
namespace {

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Single-quoted for /bin/sh.
std::string Quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

}  // namespace

absl::StatusOr<std::string> FindLdLld() {
  const char* variable = std::getenv("HLOC_LD_LLD");
  if (variable != nullptr && *variable != '\0') {
    if (access(variable, X_OK) == 0) return std::string(variable);
    return absl::FailedPreconditionError(
        absl::StrCat("$HLOC_LD_LLD (", variable, ") is not an executable"));
  }
  // The versioned name first: lld must understand the objects of the
  // LLVM the compiler is built with (19).
  for (const char* name : {"ld.lld-19", "ld.lld"}) {
    std::string path = FindOnPath(name);
    if (!path.empty()) return path;
  }
  return absl::FailedPreconditionError(
      "linking an AMDGPU code object needs ld.lld-19 on PATH (Debian: "
      "apt-get install lld-19) or $HLOC_LD_LLD");
}

absl::StatusOr<std::string> LinkHsaco(const std::string& object) {
  absl::StatusOr<std::string> lld = FindLdLld();
  if (!lld.ok()) return lld.status();
  const char* tmp = std::getenv("TMPDIR");
  std::string dir = absl::StrCat(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp",
                                 "/hloc-hsaco-XXXXXX");
  if (mkdtemp(dir.data()) == nullptr) {
    return absl::InternalError("ld.lld: cannot create a temporary directory");
  }
  const std::string in = dir + "/kernels.o";
  const std::string out = dir + "/kernels.hsaco";
  const std::string err = dir + "/lld.log";
  {
    std::ofstream f(in, std::ios::binary);
    f << object;
  }
  std::string command =
      absl::StrCat(Quote(*lld), " -shared -o ", Quote(out), " ", Quote(in),
                   " > ", Quote(err), " 2>&1");
  int rc = std::system(command.c_str());
  std::string log = ReadAll(err);
  std::string hsaco = rc == 0 ? ReadAll(out) : "";
  std::remove(in.c_str());
  std::remove(out.c_str());
  std::remove(err.c_str());
  rmdir(dir.c_str());
  if (rc != 0 || hsaco.empty()) {
    return absl::InternalError(
        absl::StrCat(*lld, " -shared could not link the AMDGPU object: ", log));
  }
  return hsaco;
}

}  // namespace hloc
