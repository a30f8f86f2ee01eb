// The target-independent simplification pipeline: every simplification pass
// of this directory, run in sequence to a fixed point. The per-target
// pipelines (pipelines.cc) start with it; `hlo-opt --passes=simplify` runs
// it alone.
#ifndef PASSES_SIMPLIFICATION_H_
#define PASSES_SIMPLIFICATION_H_

#include <memory>

#include "passes/pipeline.h"

namespace hloc {

// call-inliner, sharding-remover, then to a fixed point: algebraic-simplifier,
// tuple-simplifier, constant-folding, cse, dce.
std::unique_ptr<HloPassPipeline> MakeSimplificationPipeline();

}  // namespace hloc

#endif  // PASSES_SIMPLIFICATION_H_
