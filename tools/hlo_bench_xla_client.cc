#include "tools/hlo_bench_xla_client.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/strip.h"
#include "tools/checkout_files.h"

extern char** environ;

namespace hloc {
namespace {

void AppendUtf8(uint32_t code, std::string* out) {
  if (code < 0x80) {
    out->push_back(static_cast<char>(code));
  } else if (code < 0x800) {
    out->push_back(static_cast<char>(0xc0 | (code >> 6)));
    out->push_back(static_cast<char>(0x80 | (code & 0x3f)));
  } else {
    out->push_back(static_cast<char>(0xe0 | (code >> 12)));
    out->push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3f)));
    out->push_back(static_cast<char>(0x80 | (code & 0x3f)));
  }
}

class FlatJsonParser {
 public:
  explicit FlatJsonParser(absl::string_view text) : text_(text) {}

  absl::StatusOr<JsonObject> Parse() {
    JsonObject object;
    if (!Consume('{')) return Error("expected '{'");
    if (!Consume('}')) {
      do {
        std::string key;
        if (!String(&key)) return Error("expected a string key");
        if (!Consume(':')) return Error("expected ':'");
        std::string value;
        SkipSpace();
        if (Peek() == '"') {
          if (!String(&value)) return Error("bad string");
        } else if (!Scalar(&value)) {
          return Error("expected a string, number, true, false or null");
        }
        object[key] = value;
      } while (Consume(','));
      if (!Consume('}')) return Error("expected ',' or '}'");
    }
    SkipSpace();
    if (pos_ != text_.size()) return Error("text after the object");
    return object;
  }

 private:
  absl::Status Error(absl::string_view what) const {
    return absl::InvalidArgumentError(
        absl::StrCat("JSON at offset ", pos_, ": ", what));
  }
  void SkipSpace() {
    while (pos_ < text_.size() &&
           std::isspace(static_cast<unsigned char>(text_[pos_]))) {
      ++pos_;
    }
  }
  char Peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  bool Consume(char c) {
    SkipSpace();
    if (Peek() != c) return false;
    ++pos_;
    return true;
  }
  bool String(std::string* out) {
    if (!Consume('"')) return false;
    while (pos_ < text_.size()) {
      const char c = text_[pos_++];
      if (c == '"') return true;
      if (c != '\\') {
        out->push_back(c);
        continue;
      }
      if (pos_ >= text_.size()) return false;
      const char e = text_[pos_++];
      switch (e) {
        case '"':
        case '\\':
        case '/':
          out->push_back(e);
          break;
        case 'b':
          out->push_back('\b');
          break;
        case 'f':
          out->push_back('\f');
          break;
        case 'n':
          out->push_back('\n');
          break;
        case 'r':
          out->push_back('\r');
          break;
        case 't':
          out->push_back('\t');
          break;
        case 'u': {
          uint32_t code = 0;
          if (pos_ + 4 > text_.size()) return false;
          for (int i = 0; i < 4; ++i) {
            const char h = text_[pos_++];
            int digit = std::isdigit(static_cast<unsigned char>(h)) ? h - '0'
                        : (h >= 'a' && h <= 'f') ? h - 'a' + 10
                        : (h >= 'A' && h <= 'F') ? h - 'A' + 10
                                                 : -1;
            if (digit < 0) return false;
            code = code * 16 + digit;
          }
          AppendUtf8(code, out);
          break;
        }
        default:
          return false;
      }
    }
    return false;
  }
  bool Scalar(std::string* out) {
    const size_t start = pos_;
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) ||
            text_[pos_] == '-' || text_[pos_] == '+' || text_[pos_] == '.')) {
      ++pos_;
    }
    *out = std::string(text_.substr(start, pos_ - start));
    double unused;
    return *out == "true" || *out == "false" || *out == "null" ||
           absl::SimpleAtod(*out, &unused);
  }

  absl::string_view text_;
  size_t pos_ = 0;
};

std::string LastLineOf(const std::string& path) {
  std::ifstream file(path);
  std::string line, last;
  while (std::getline(file, line)) {
    if (!absl::StripAsciiWhitespace(line).empty()) last = line;
  }
  return last;
}

}  // namespace

std::string JsonQuote(absl::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else if (static_cast<unsigned char>(c) < 0x20) {
      absl::StrAppend(&out, absl::StrFormat("\\u%04x", c));
    } else {
      out.push_back(c);
    }
  }
  return out + "\"";
}

absl::StatusOr<JsonObject> ParseFlatJsonObject(absl::string_view text) {
  return FlatJsonParser(text).Parse();
}

XlaBenchClient::XlaBenchClient(const std::string& python,
                               const std::string& script, int threads,
                               const std::string& stderr_path)
    : stderr_path_(stderr_path) {
  int to_child[2], from_child[2];
  if (pipe2(to_child, O_CLOEXEC) != 0) {
    reason_ = absl::StrCat("pipe: ", std::strerror(errno));
    return;
  }
  if (pipe2(from_child, O_CLOEXEC) != 0) {
    reason_ = absl::StrCat("pipe: ", std::strerror(errno));
    close(to_child[0]);
    close(to_child[1]);
    return;
  }
  // A helper that dies must not kill us when we write to it.
  std::signal(SIGPIPE, SIG_IGN);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, to_child[0], 0);
  posix_spawn_file_actions_adddup2(&actions, from_child[1], 1);
  posix_spawn_file_actions_addopen(&actions, 2, stderr_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  const std::string threads_flag = absl::StrCat("--threads=", threads);
  std::vector<char*> argv = {const_cast<char*>(python.c_str()),
                             const_cast<char*>(script.c_str()),
                             const_cast<char*>(threads_flag.c_str()), nullptr};
  const int spawn_error = posix_spawnp(&pid_, python.c_str(), &actions, nullptr,
                                       argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(to_child[0]);
  close(from_child[1]);
  to_ = fdopen(to_child[1], "w");
  from_ = fdopen(from_child[0], "r");
  if (spawn_error != 0) {
    pid_ = -1;
    reason_ =
        absl::StrCat("cannot start ", python, ": ", std::strerror(spawn_error));
    return;
  }
  absl::StatusOr<JsonObject> hello = ReadAnswer();
  if (!hello.ok()) {
    reason_ = std::string(hello.status().message());
  } else if ((*hello)["kind"] == "unavailable") {
    reason_ =
        absl::StrCat("JAX not usable from ", python, ": ", (*hello)["reason"]);
  } else if ((*hello)["kind"] == "info") {
    available_ = true;
    description_ =
        absl::StrCat("jax ", (*hello)["jax"], ", jaxlib ", (*hello)["jaxlib"],
                     ", ", (*hello)["threads"], " threads");
  } else {
    reason_ = "the helper's first line is not an info line";
  }
}

XlaBenchClient::~XlaBenchClient() {
  if (to_ != nullptr) std::fclose(to_);
  if (from_ != nullptr) std::fclose(from_);
  if (pid_ > 0) {
    int status;
    waitpid(pid_, &status, 0);
  }
}

absl::StatusOr<JsonObject> XlaBenchClient::Request(
    const std::string& task_json) {
  if (!available_) return absl::UnavailableError(reason_);
  if (std::fputs((task_json + "\n").c_str(), to_) == EOF ||
      std::fflush(to_) != 0) {
    available_ = false;
    reason_ =
        absl::StrCat("the helper stopped reading: ", LastLineOf(stderr_path_));
    return absl::UnavailableError(reason_);
  }
  absl::StatusOr<JsonObject> answer = ReadAnswer();
  if (!answer.ok()) {
    available_ = false;
    reason_ = std::string(answer.status().message());
    return answer.status();
  }
  if ((*answer)["kind"] == "error") {
    return absl::InternalError((*answer)["reason"]);
  }
  return answer;
}

absl::StatusOr<JsonObject> XlaBenchClient::ReadAnswer() {
  char* line = nullptr;
  size_t capacity = 0;
  const ssize_t n = from_ == nullptr ? -1 : getline(&line, &capacity, from_);
  std::string text = n > 0 ? std::string(line, n) : "";
  std::free(line);
  if (n <= 0) {
    std::string last = LastLineOf(stderr_path_);
    return absl::UnavailableError(absl::StrCat(
        "the XLA helper exited", last.empty() ? "" : absl::StrCat(": ", last)));
  }
  return FlatJsonParser(absl::StripTrailingAsciiWhitespace(text)).Parse();
}

absl::StatusOr<double> SecondsFromAnswer(const JsonObject& answer) {
  auto it = answer.find("seconds");
  double seconds;
  if (it == answer.end() || !absl::SimpleAtod(it->second, &seconds)) {
    return absl::InternalError("the XLA helper's answer has no seconds");
  }
  return seconds;
}

std::string FindXlaBenchHelper() {
  return FindCheckoutPath("tools/hlo_bench_xla.py");
}

}  // namespace hloc
