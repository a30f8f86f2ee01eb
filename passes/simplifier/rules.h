// The algebraic simplifier's rules, one function each (see rewriter.h for
// the contract), grouped by the file that defines them. The table that puts
// them in order is in rules.cc.
#ifndef PASSES_SIMPLIFIER_RULES_H_
#define PASSES_SIMPLIFIER_RULES_H_

#include "absl/types/span.h"
#include "passes/simplifier/rewriter.h"

namespace hloc {

// Every rule, in the order the simplifier tries them on an instruction.
absl::Span<const SimplifierRule> AllSimplifierRules();

// simplify_arithmetic.cc
HloInstruction* AddZero(HloInstruction* add, Rewriter& rw);
HloInstruction* SubtractZero(HloInstruction* sub, Rewriter& rw);
HloInstruction* MultiplyOne(HloInstruction* mul, Rewriter& rw);
HloInstruction* MultiplyZeroInteger(HloInstruction* mul, Rewriter& rw);
HloInstruction* DivideOne(HloInstruction* div, Rewriter& rw);
HloInstruction* DivideByPowerOfTwo(HloInstruction* div, Rewriter& rw);
HloInstruction* DivideBySqrt(HloInstruction* div, Rewriter& rw);
HloInstruction* DoubleNegation(HloInstruction* neg, Rewriter& rw);
HloInstruction* AddNegation(HloInstruction* add, Rewriter& rw);
HloInstruction* SubtractNegation(HloInstruction* sub, Rewriter& rw);
HloInstruction* SubtractSelfInteger(HloInstruction* sub, Rewriter& rw);
HloInstruction* IdempotentSelf(HloInstruction* op, Rewriter& rw);
HloInstruction* MaxMinIdentity(HloInstruction* op, Rewriter& rw);
HloInstruction* AndOrIdentity(HloInstruction* op, Rewriter& rw);
HloInstruction* AndOrAbsorb(HloInstruction* op, Rewriter& rw);
HloInstruction* DoubleNot(HloInstruction* op, Rewriter& rw);
HloInstruction* AbsIdempotent(HloInstruction* abs, Rewriter& rw);
HloInstruction* PowerOne(HloInstruction* pow, Rewriter& rw);
HloInstruction* PowerZero(HloInstruction* pow, Rewriter& rw);
HloInstruction* PowerTwo(HloInstruction* pow, Rewriter& rw);

// simplify_compare_select.cc
HloInstruction* CompareSameIntegerOperands(HloInstruction* compare,
                                           Rewriter& rw);
HloInstruction* SelectConstantPredicate(HloInstruction* select, Rewriter& rw);
HloInstruction* SelectSameBranches(HloInstruction* select, Rewriter& rw);
HloInstruction* SelectOfNot(HloInstruction* select, Rewriter& rw);

// simplify_shape.cc
HloInstruction* ReshapeNoop(HloInstruction* reshape, Rewriter& rw);
HloInstruction* ReshapeOfReshape(HloInstruction* reshape, Rewriter& rw);
HloInstruction* ReshapeIsBitcast(HloInstruction* reshape, Rewriter& rw);
HloInstruction* TransposeNoop(HloInstruction* transpose, Rewriter& rw);
HloInstruction* TransposeOfTranspose(HloInstruction* transpose, Rewriter& rw);
HloInstruction* TransposeIsReshape(HloInstruction* transpose, Rewriter& rw);
HloInstruction* TransposeIsBitcast(HloInstruction* transpose, Rewriter& rw);
HloInstruction* BroadcastNoop(HloInstruction* broadcast, Rewriter& rw);
HloInstruction* BroadcastOfBroadcast(HloInstruction* broadcast, Rewriter& rw);
HloInstruction* BroadcastOfDegenerateReshape(HloInstruction* broadcast,
                                             Rewriter& rw);
HloInstruction* ReshapeOfDegenerateBroadcast(HloInstruction* reshape,
                                             Rewriter& rw);
HloInstruction* ScalarBroadcastThroughShapeOp(HloInstruction* op, Rewriter& rw);
HloInstruction* ElementwiseOfScalarBroadcasts(HloInstruction* op, Rewriter& rw);
HloInstruction* GetDimensionSizeStatic(HloInstruction* get_size, Rewriter& rw);

// simplify_data_movement.cc
HloInstruction* SliceNoop(HloInstruction* slice, Rewriter& rw);
HloInstruction* SliceOfSlice(HloInstruction* slice, Rewriter& rw);
HloInstruction* ConcatenateSingleOperand(HloInstruction* concat, Rewriter& rw);
HloInstruction* ConcatenateDropEmpty(HloInstruction* concat, Rewriter& rw);
HloInstruction* PadNoPadding(HloInstruction* pad, Rewriter& rw);
HloInstruction* ReverseNoop(HloInstruction* reverse, Rewriter& rw);
HloInstruction* ReverseOfReverse(HloInstruction* reverse, Rewriter& rw);
HloInstruction* CopyNoop(HloInstruction* copy, Rewriter& rw);

// simplify_convert.cc
HloInstruction* ConvertSameType(HloInstruction* convert, Rewriter& rw);
HloInstruction* ConvertRoundTrip(HloInstruction* convert, Rewriter& rw);
HloInstruction* BitcastConvertSameType(HloInstruction* convert, Rewriter& rw);

// simplify_dot_reduce.cc
HloInstruction* DotWithUnitContraction(HloInstruction* dot, Rewriter& rw);
HloInstruction* ReduceOfUnitDimensions(HloInstruction* reduce, Rewriter& rw);

}  // namespace hloc

#endif  // PASSES_SIMPLIFIER_RULES_H_
