// Finding a file or folder of this repository from a tool, whether it runs
// under `bazel test` or `bazel run` (the runfiles tree), straight from
// bazel-bin (the binary's .runfiles beside it) or from inside a checkout
// (the working directory or one of its ancestors).
#ifndef TOOLS_CHECKOUT_FILES_H_
#define TOOLS_CHECKOUT_FILES_H_

#include <string>

namespace hloc {

// The path of `relative` ("tools/hlo_bench_xla.py") in the first place
// above that holds it, or "" if none does.
std::string FindCheckoutPath(const std::string& relative);

}  // namespace hloc

#endif  // TOOLS_CHECKOUT_FILES_H_
