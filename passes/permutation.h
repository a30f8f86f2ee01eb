// Dimension permutations, as passes that insert transposes use them.
#ifndef PASSES_PERMUTATION_H_
#define PASSES_PERMUTATION_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "hlo/attributes.h"
#include "hlo/computation.h"
#include "hlo/instruction.h"

namespace hloc {

// dims[i] == i for all i.
bool IsIdentityPermutation(const std::vector<int64_t>& dims);

// `operand` transposed (row-major result) so that dimension i of the
// result is operand dimension `order[i]`, added to `computation`; the
// operand itself when `order` is the identity.
HloInstruction* AddTranspose(HloComputation* computation,
                             HloInstruction* operand,
                             const std::vector<int64_t>& order);

// Whether a transpose only renames its operand's bytes: its result's
// layout lists, minor to major, the operand dimensions the operand's
// layout lists (e.g. f32[n,m]{0,1} transpose(f32[m,n]{1,0}), dims={1,0}).
bool TransposeKeepsBytes(const HloInstruction& transpose);

// A dot's batch and contracting dimensions of an operand, renumbered for
// that operand transposed by `order` (dimension d moves to where `order`
// holds it).
void RenumberForTranspose(const std::vector<int64_t>& order,
                          std::vector<int64_t>* batch,
                          std::vector<int64_t>* contracting);

// Replaces `dot` with a dot of `lhs` and `rhs` (its operands transposed)
// under `dnums`, everything else as before.
absl::Status ReplaceDotOperands(HloComputation* computation,
                                HloInstruction* dot, HloInstruction* lhs,
                                HloInstruction* rhs,
                                const DotDimensionNumbers& dnums);

// The permutation that undoes `order`: result[order[i]] = i.
std::vector<int64_t> InversePermutation(const std::vector<int64_t>& order);

}  // namespace hloc

#endif  // PASSES_PERMUTATION_H_
