// The passes `hlo-opt --passes=...` knows, by name: an explicit list in
// registry.cc (no static registration), so every pass of the compiler can be
// read off one table.
//
// A pass list is comma-separated names; a parenthesized group runs to a
// fixed point:
//   "call-inliner,fixed-point(algebraic-simplifier,cse,dce)"
#ifndef PASSES_REGISTRY_H_
#define PASSES_REGISTRY_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "passes/pass.h"
#include "passes/pipeline.h"

namespace hloc {

// A fresh instance of the named pass; an unknown name gives an error that
// lists the known ones.
absl::StatusOr<std::unique_ptr<HloPass>> CreatePass(absl::string_view name);

// Names of every registered pass, in table order.
std::vector<std::string> ListPasses();
// One line per pass, "name  summary", for `hlo-opt --list-passes`.
std::string DescribePasses();

// Builds a pipeline from "a,b,fixed-point(c,d)". Errors name the offending
// pass or the position of a syntax error.
absl::StatusOr<HloPassPipeline> PipelineFromPassList(absl::string_view list);

}  // namespace hloc

#endif  // PASSES_REGISTRY_H_
