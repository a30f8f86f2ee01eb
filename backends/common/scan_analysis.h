// What every backend's scan emitter needs to know about a scan before it
// inlines the body per element: how many operands are carries, and
// whether the body may run on one element of the slice at a time.
#ifndef BACKENDS_COMMON_SCAN_ANALYSIS_H_
#define BACKENDS_COMMON_SCAN_ANALYSIS_H_

#include <cstdint>

#include "hlo/computation.h"
#include "hlo/instruction.h"

namespace hloc {

// Whether every instruction of `body` computes element i of its result from
// element i of its operands (or a scalar constant or broadcast scalar), so
// a kernel may inline it per element of the slice.
bool IsElementwiseScanBody(const HloComputation* body);

// The carries: num_carries, or (when 0) the trailing operands the body
// takes whole, as the evaluator infers them.
int64_t NumScanCarries(const HloInstruction& scan);

}  // namespace hloc

#endif  // BACKENDS_COMMON_SCAN_ANALYSIS_H_
