// Fuzz target: parse + verify + the cpu platform's HLO pipeline (what
// `hlo-opt --platform=cpu --stage=hlo` runs: simplification, fusion, dce),
// with the verifier after every pass. Code generation is left out: LLVM's
// O3 on every input would make each run slower by orders of magnitude, and
// the differential fuzzer (fuzz/differential) covers it on valid modules.
//
// A module the verifier accepts must come out of every pass valid; an
// internal error (which is how the pipeline reports a pass that broke the
// module) is a bug. Other errors (say, an op a pass does not handle) are
// allowed as long as they are errors, not crashes.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "hlo/text/parser.h"
#include "hlo/verifier.h"
#include "passes/pipelines.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view text(reinterpret_cast<const char*>(data), size);
  auto module = hloc::ParseHloModule(text, "fuzz");
  if (!module.ok()) return 0;
  if (!hloc::VerifyModule(**module).ok()) return 0;
  hloc::PipelineOptions options;
  options.verify = true;
  auto pipeline = hloc::MakePipeline("cpu", options);
  if (!pipeline.ok()) std::abort();
  absl::StatusOr<bool> changed = pipeline->Run(module->get());
  if (!changed.ok() && absl::IsInternal(changed.status())) {
    std::fprintf(stderr, "cpu pipeline: %s\n",
                 std::string(changed.status().message()).c_str());
    std::abort();
  }
  return 0;
}
