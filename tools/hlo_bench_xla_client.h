// The client side of tools/hlo_bench_xla.py, hlo-bench's way to XLA:CPU:
// the helper runs as a co-process (python3 with JAX) and answers one flat
// JSON object per line for each task hlo-bench writes to it (the protocol
// is described at the top of hlo_bench_xla.py).
#ifndef TOOLS_HLO_BENCH_XLA_CLIENT_H_
#define TOOLS_HLO_BENCH_XLA_CLIENT_H_

#include <sys/types.h>

#include <cstdio>
#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace hloc {

// A flat JSON object's members, values as text: strings unescaped, numbers,
// true, false and null verbatim.
using JsonObject = std::map<std::string, std::string>;

// Parses one flat JSON object ({"a": 1, "b": "x"}; no nesting).
absl::StatusOr<JsonObject> ParseFlatJsonObject(absl::string_view text);

// `text` as a JSON string literal, quotes included.
std::string JsonQuote(absl::string_view text);

class XlaBenchClient {
 public:
  // Starts `python script --threads=N`, the helper's stderr going to
  // `stderr_path`; when XLA cannot be had (no python, no JAX), available()
  // is false and reason() says why.
  XlaBenchClient(const std::string& python, const std::string& script,
                 int threads, const std::string& stderr_path);
  // Closes the helper's input, which ends it, and waits for it.
  ~XlaBenchClient();
  XlaBenchClient(const XlaBenchClient&) = delete;
  XlaBenchClient& operator=(const XlaBenchClient&) = delete;

  bool available() const { return available_; }
  const std::string& reason() const { return reason_; }
  // "jax 0.10.2, jaxlib 0.10.2, 2 threads".
  const std::string& description() const { return description_; }

  // Sends one task (a JSON object on one line) and returns the answer. An
  // "error" answer is an error; so is a helper that died, which also makes
  // available() false.
  absl::StatusOr<JsonObject> Request(const std::string& task_json);

 private:
  absl::StatusOr<JsonObject> ReadAnswer();

  std::string stderr_path_;
  pid_t pid_ = -1;
  FILE* to_ = nullptr;
  FILE* from_ = nullptr;
  bool available_ = false;
  std::string reason_;
  std::string description_;
};

// The "seconds" of a "time" or "compile" answer.
absl::StatusOr<double> SecondsFromAnswer(const JsonObject& answer);

// Path of hlo_bench_xla.py: in this binary's runfiles (bazel run, bazel
// test, bazel-bin/tools/hlo-bench), else in a checkout above the working
// directory; "" if not found.
std::string FindXlaBenchHelper();

}  // namespace hloc

#endif  // TOOLS_HLO_BENCH_XLA_CLIENT_H_
