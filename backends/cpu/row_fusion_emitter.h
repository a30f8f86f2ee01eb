// Row-reduction fusions (fusion_kinds.h, kRowReduction) on the CPU: softmax,
// layer norm, logsumexp and x / sum(x) as one kernel.
//
// A work item is one row; rows are split over the OpenMP threads. Per row,
// each reduction of the fusion (in pass order, AnalyzeRowReduction) is one
// loop over the row's elements that accumulates its input -- computed on
// the fly from the fused producers, with the combiner's reassoc flag so the
// loop vectorizer keeps vector partial results -- into a scalar. That
// scalar is then bound as the reduction's value for the rest of the row
// (every per-row value of row r is row r's), so later reductions and the
// outputs compute with it like any operand. A last loop over the row
// writes the full outputs; per-row outputs are written once.
//
// The row is read once per pass, from L1/L2 after the first (a row is at
// most kMaxRowBytes), so the kernel moves each input and output through
// memory once, where three or five unfused kernels would move the
// intermediates as well.
//
// Row cache: a reduction input that depends on an earlier reduction and
// that a later pass uses again (softmax's exp(x - max), read by the sum
// and by the division) is stored into a per-thread row buffer while it is
// reduced, and later passes read it back instead of recomputing it. Only
// such values are cached: they are only ever read at their own row, while
// an invariant value may be read at another row (through a reverse).
#ifndef BACKENDS_CPU_ROW_FUSION_EMITTER_H_
#define BACKENDS_CPU_ROW_FUSION_EMITTER_H_

#include <string>

#include "absl/status/status.h"
#include "backends/cpu/kernel_util.h"
#include "hlo/instruction.h"

namespace hloc {

// True for a kRowReduction fusion.
bool IsRowFusionKernel(const HloInstruction& hlo);

absl::Status EmitRowFusionKernel(const HloInstruction& hlo,
                                 const std::string& symbol,
                                 const OpEmitterContext& ctx);

}  // namespace hloc

#endif  // BACKENDS_CPU_ROW_FUSION_EMITTER_H_
