#include "backends/gpu/ptxas.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace hloc {
namespace {

bool IsExecutable(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
         access(path.c_str(), X_OK) == 0;
}

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

std::string FindPtxas(const std::string& cuda_path) {
  std::string candidate = cuda_path + "/bin/ptxas";
  if (IsExecutable(candidate)) return candidate;
  const char* path = std::getenv("PATH");
  if (path == nullptr) return "";
  for (absl::string_view dir : absl::StrSplit(path, ':')) {
    if (dir.empty()) continue;
    std::string p = absl::StrCat(dir, "/ptxas");
    if (IsExecutable(p)) return p;
  }
  return "";
}

absl::StatusOr<std::string> RunPtxas(const std::string& ptxas,
                                     const std::string& ptx,
                                     const std::string& arch) {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = absl::StrCat(
      tmp != nullptr && *tmp != '\0' ? tmp : "/tmp", "/hloc-ptxas-XXXXXX");
  std::string dir_buffer = pattern;
  if (mkdtemp(dir_buffer.data()) == nullptr) {
    return absl::InternalError("ptxas: cannot create a temporary directory");
  }
  const std::string dir = dir_buffer;
  const std::string in = dir + "/kernels.ptx";
  const std::string out = dir + "/kernels.cubin";
  const std::string err = dir + "/ptxas.log";
  {
    std::ofstream f(in, std::ios::binary);
    f << ptx;
  }
  std::string command =
      absl::StrCat(Quote(ptxas), " -arch=", Quote(arch), " -o ", Quote(out),
                   " ", Quote(in), " > ", Quote(err), " 2>&1");
  int rc = std::system(command.c_str());
  std::string log = ReadAll(err);
  std::string cubin = rc == 0 ? ReadAll(out) : "";
  std::remove(in.c_str());
  std::remove(out.c_str());
  std::remove(err.c_str());
  rmdir(dir.c_str());
  if (rc != 0) {
    return absl::InternalError(
        absl::StrCat("ptxas -arch=", arch, " rejected the PTX: ", log));
  }
  return cubin;
}

}  // namespace hloc
