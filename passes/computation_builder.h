// Adding instructions to a computation from a pass that rewrites one op
// into several (topk-splitter, sort-splitter): each call adds one
// instruction, array results in the default layout, and returns it.
#ifndef PASSES_COMPUTATION_BUILDER_H_
#define PASSES_COMPUTATION_BUILDER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "hlo/computation.h"
#include "hlo/instruction.h"
#include "hlo/literal.h"

namespace hloc {

class ComputationBuilder {
 public:
  explicit ComputationBuilder(HloComputation* computation)
      : computation_(computation) {}

  HloInstruction* Add(std::unique_ptr<HloInstruction> instr);

  // x itself where it already has `dims`.
  HloInstruction* Reshape(HloInstruction* x, std::vector<int64_t> dims);
  // Row-major `x` as row-major `dims`, without a copy: a kBitcast, which
  // the buffer plans alias (a reshape would be a kernel of its own where
  // nothing fuses it). `x` must be row-major.
  HloInstruction* Bitcast(HloInstruction* x, std::vector<int64_t> dims);
  // Output dimension i is x's dimension perm[i]; x itself for the identity.
  HloInstruction* Transpose(HloInstruction* x,
                            const std::vector<int64_t>& perm);
  // Unit strides.
  HloInstruction* Slice(HloInstruction* x, std::vector<int64_t> starts,
                        std::vector<int64_t> limits);
  HloInstruction* Concatenate(HloInstruction* a, HloInstruction* b,
                              int64_t dim);
  HloInstruction* Reverse(HloInstruction* x, int64_t dim);
  // x [R, m] padded at the end of its rows to [R, length] with the scalar
  // `value()` (made only where there is padding); x itself if m == length.
  HloInstruction* PadRows(HloInstruction* x, int64_t length,
                          const std::function<HloInstruction*()>& value);
  HloInstruction* Iota(PrimitiveType type, std::vector<int64_t> dims,
                       int64_t dim);
  HloInstruction* Constant(Literal value);
  // The scalar `value` at every element of `dims` (a scalar for none).
  HloInstruction* Splat(Literal value, const std::vector<int64_t>& dims);
  HloInstruction* Compare(HloInstruction* a, HloInstruction* b,
                          ComparisonDirection direction);
  // a and b of one shape, the result's.
  HloInstruction* Binary(HloOpcode opcode, HloInstruction* a,
                         HloInstruction* b);
  HloInstruction* Not(HloInstruction* a);
  HloInstruction* Select(HloInstruction* pred, HloInstruction* on_true,
                         HloInstruction* on_false);
  HloInstruction* Element(HloInstruction* tuple, int64_t i);

 private:
  HloComputation* computation_;
};

}  // namespace hloc

#endif  // PASSES_COMPUTATION_BUILDER_H_
