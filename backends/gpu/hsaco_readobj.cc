#include "backends/gpu/hsaco_readobj.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "backends/common/find_on_path.h"

namespace hloc {
namespace {

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// "Key: value" -> value (after the first ": "), trimmed.
std::string ValueOf(absl::string_view line) {
  size_t colon = line.find(':');
  if (colon == absl::string_view::npos) return "";
  return std::string(absl::StripAsciiWhitespace(line.substr(colon + 1)));
}

// "Name: loop_fusion.kd (13)" -> "loop_fusion.kd"; "Section: .text (0x7)"
// -> ".text".
std::string StripParenthesized(const std::string& value) {
  if (!value.empty() && value[0] == '(') return "";  // "Name:  (0)"
  size_t paren = value.rfind(" (");
  return paren == std::string::npos ? value : value.substr(0, paren);
}

size_t Indent(absl::string_view line) {
  size_t n = 0;
  while (n < line.size() && line[n] == ' ') ++n;
  return n;
}

}  // namespace

std::string FindLlvmReadobj() {
  const char* variable = std::getenv("HLOC_LLVM_READOBJ");
  if (variable != nullptr && *variable != '\0') return variable;
  for (const char* name : {"llvm-readobj-19", "llvm-readobj"}) {
    std::string path = FindOnPath(name);
    if (!path.empty()) return path;
  }
  return "";
}

HsacoInfo ParseReadobjOutput(const std::string& text) {
  HsacoInfo info;
  enum class Where { kNone, kSymbols, kDynamicSymbols, kMetadata };
  Where where = Where::kNone;
  // Indentation of the metadata's "amdhsa.kernels:" list items ("  - ").
  size_t kernel_indent = 0;
  bool in_kernels = false;
  HsacoSymbol* symbol = nullptr;
  for (absl::string_view raw : absl::StrSplit(text, '\n')) {
    absl::string_view line = absl::StripTrailingAsciiWhitespace(raw);
    absl::string_view stripped = absl::StripLeadingAsciiWhitespace(line);
    if (absl::StartsWith(line, "Format:")) info.format = ValueOf(line);
    if (where != Where::kMetadata && absl::StartsWith(stripped, "Type: ") &&
        info.elf_type.empty() && where == Where::kNone) {
      info.elf_type = StripParenthesized(ValueOf(stripped));
    }
    if (line == "Symbols [") {
      where = Where::kSymbols;
      continue;
    }
    if (line == "DynamicSymbols [") {
      where = Where::kDynamicSymbols;
      continue;
    }
    if (absl::StrContains(stripped, "AMDGPU Metadata: ---")) {
      info.has_metadata_note = true;
      where = Where::kMetadata;
      continue;
    }
    if (where == Where::kMetadata) {
      if (stripped == "...") {
        where = Where::kNone;
        continue;
      }
      if (absl::StartsWith(line, "amdhsa.target:")) {
        info.target = ValueOf(line);
        std::string& t = info.target;
        t.erase(std::remove(t.begin(), t.end(), '\''), t.end());
      }
      if (absl::StartsWith(line, "amdhsa.kernels:")) {
        in_kernels = true;
        continue;
      }
      if (!line.empty() && Indent(line) == 0) in_kernels = false;
      if (!in_kernels) continue;
      if (absl::StartsWith(stripped, "- ") && !info.kernels.empty() &&
          Indent(line) > kernel_indent) {
        continue;  // an item of a kernel's list (.args)
      }
      if (absl::StartsWith(stripped, "- ")) {
        kernel_indent = Indent(line);
        info.kernels.emplace_back();
        stripped.remove_prefix(2);
      } else if (info.kernels.empty() || Indent(line) != kernel_indent + 2) {
        continue;  // nested deeper (.args fields, .language_version items)
      }
      std::string key(stripped.substr(0, stripped.find(':')));
      std::string value = ValueOf(stripped);
      HsacoKernel& kernel = info.kernels.back();
      if (key == ".name") {
        kernel.name = value;
      } else if (key == ".symbol") {
        kernel.symbol = value;
      } else {
        int64_t number;
        if (absl::SimpleAtoi(value, &number)) kernel.fields[key] = number;
      }
      continue;
    }
    if (where == Where::kSymbols || where == Where::kDynamicSymbols) {
      std::vector<HsacoSymbol>& list =
          where == Where::kSymbols ? info.symbols : info.dynamic_symbols;
      if (line == "]") {
        where = Where::kNone;
        symbol = nullptr;
        continue;
      }
      if (stripped == "Symbol {") {
        list.emplace_back();
        symbol = &list.back();
        continue;
      }
      if (symbol == nullptr) continue;
      if (absl::StartsWith(stripped, "Name:")) {
        symbol->name = StripParenthesized(ValueOf(stripped));
      } else if (absl::StartsWith(stripped, "Type:")) {
        symbol->type = StripParenthesized(ValueOf(stripped));
      } else if (absl::StartsWith(stripped, "Section:")) {
        symbol->section = StripParenthesized(ValueOf(stripped));
      } else if (absl::StartsWith(stripped, "Size:")) {
        absl::SimpleAtoi(ValueOf(stripped), &symbol->size);
      }
    }
  }
  return info;
}

absl::StatusOr<HsacoInfo> ReadHsaco(const std::string& readobj,
                                    const std::string& code_object) {
  const char* tmp = std::getenv("TMPDIR");
  std::string dir = absl::StrCat(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp",
                                 "/hloc-readobj-XXXXXX");
  if (mkdtemp(dir.data()) == nullptr) {
    return absl::InternalError("cannot create a temporary directory");
  }
  const std::string in = dir + "/kernels.hsaco";
  const std::string out = dir + "/readobj.txt";
  {
    std::ofstream f(in, std::ios::binary);
    f << code_object;
  }
  std::string command =
      absl::StrCat("'", readobj, "' --file-headers --notes --symbols ",
                   "--dyn-syms '", in, "' > '", out, "' 2>&1");
  int rc = std::system(command.c_str());
  std::string text = ReadAll(out);
  std::remove(in.c_str());
  std::remove(out.c_str());
  rmdir(dir.c_str());
  if (rc != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(readobj, " rejects the code object: ", text));
  }
  return ParseReadobjOutput(text);
}

}  // namespace hloc
