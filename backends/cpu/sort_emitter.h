// sort on the CPU: any number of operands (a tuple result for several), any
// sort dimension and layouts, the comparator computation emitted inline
// (ElementalEmitter::EmitScalarComputation, so JAX's NaN-canonicalizing
// total-order comparators and multi-key comparators work unchanged).
//
// Each row (all indices but the sort dimension) is a work item; rows are
// split over the OpenMP threads. A row is sorted as a permutation: indices
// 0..L-1 in per-thread scratch, insertion-sorted in runs of 16 and then
// merged bottom-up (ping-ponging with a second index array), comparing
// comparator(op0[a], op0[b], op1[a], op1[b], ...) read straight from the
// operands; then every output row is gathered through the permutation.
// The merge takes from the right run only when its element compares less,
// so the sort is stable whatever is_stable says (as the evaluator's
// std::stable_sort), and no comparator, however inconsistent, makes it
// read out of bounds.
#ifndef BACKENDS_CPU_SORT_EMITTER_H_
#define BACKENDS_CPU_SORT_EMITTER_H_

#include <string>

#include "absl/status/status.h"
#include "backends/cpu/kernel_util.h"
#include "hlo/instruction.h"

namespace hloc {

absl::Status EmitSortKernel(const HloInstruction& hlo,
                            const std::string& symbol,
                            const OpEmitterContext& ctx);

}  // namespace hloc

#endif  // BACKENDS_CPU_SORT_EMITTER_H_
