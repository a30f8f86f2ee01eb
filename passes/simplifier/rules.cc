// The rule table: every rule of the algebraic simplifier, in the order they
// are tried. For each instruction the first rule that applies wins; the
// replacement is simplified again in the next round. Cheaper and more
// specific rules come first (no-ops before compositions). To add a rule:
// write the function next to its relatives (simplify_*.cc), declare it in
// rules.h, add one line here and one lit test in
// tests/lit/passes/algebraic_simplifier/.
#include "passes/simplifier/rules.h"

namespace hloc {
namespace {

using Op = HloOpcode;
constexpr std::nullopt_t kAnyOpcode = std::nullopt;

const SimplifierRule kRules[] = {
    // Arithmetic.
    {"add-zero", Op::kAdd, AddZero},
    {"add-negation", Op::kAdd, AddNegation},
    {"subtract-zero", Op::kSubtract, SubtractZero},
    {"subtract-self-integer", Op::kSubtract, SubtractSelfInteger},
    {"subtract-negation", Op::kSubtract, SubtractNegation},
    {"multiply-one", Op::kMultiply, MultiplyOne},
    {"multiply-zero-integer", Op::kMultiply, MultiplyZeroInteger},
    {"divide-one", Op::kDivide, DivideOne},
    {"divide-by-power-of-two", Op::kDivide, DivideByPowerOfTwo},
    {"divide-by-sqrt", Op::kDivide, DivideBySqrt},
    {"double-negation", Op::kNegate, DoubleNegation},
    {"idempotent-self", Op::kAnd, IdempotentSelf},
    {"idempotent-self", Op::kOr, IdempotentSelf},
    {"idempotent-self", Op::kMaximum, IdempotentSelf},
    {"idempotent-self", Op::kMinimum, IdempotentSelf},
    {"max-min-identity", Op::kMaximum, MaxMinIdentity},
    {"max-min-identity", Op::kMinimum, MaxMinIdentity},
    {"and-or-identity", Op::kAnd, AndOrIdentity},
    {"and-or-identity", Op::kOr, AndOrIdentity},
    {"and-or-absorb", Op::kAnd, AndOrAbsorb},
    {"and-or-absorb", Op::kOr, AndOrAbsorb},
    {"double-not", Op::kNot, DoubleNot},
    {"abs-idempotent", Op::kAbs, AbsIdempotent},
    {"power-one", Op::kPower, PowerOne},
    {"power-zero", Op::kPower, PowerZero},
    {"power-two", Op::kPower, PowerTwo},

    // Comparisons and selects.
    {"compare-same-integer-operands", Op::kCompare, CompareSameIntegerOperands},
    {"select-constant-predicate", Op::kSelect, SelectConstantPredicate},
    {"select-same-branches", Op::kSelect, SelectSameBranches},
    {"select-of-not", Op::kSelect, SelectOfNot},

    // Conversions.
    {"convert-same-type", Op::kConvert, ConvertSameType},
    {"convert-round-trip", Op::kConvert, ConvertRoundTrip},
    {"bitcast-convert-same-type", Op::kBitcastConvert, BitcastConvertSameType},

    // Reshape, transpose, broadcast.
    {"reshape-noop", Op::kReshape, ReshapeNoop},
    {"reshape-of-reshape", Op::kReshape, ReshapeOfReshape},
    {"scalar-broadcast-through-shape-op", Op::kReshape,
     ScalarBroadcastThroughShapeOp},
    {"reshape-of-degenerate-broadcast", Op::kReshape,
     ReshapeOfDegenerateBroadcast},
    {"reshape-is-bitcast", Op::kReshape, ReshapeIsBitcast},
    {"transpose-noop", Op::kTranspose, TransposeNoop},
    {"transpose-of-transpose", Op::kTranspose, TransposeOfTranspose},
    {"scalar-broadcast-through-shape-op", Op::kTranspose,
     ScalarBroadcastThroughShapeOp},
    {"transpose-is-bitcast", Op::kTranspose, TransposeIsBitcast},
    {"transpose-is-reshape", Op::kTranspose, TransposeIsReshape},
    {"broadcast-noop", Op::kBroadcast, BroadcastNoop},
    {"broadcast-of-broadcast", Op::kBroadcast, BroadcastOfBroadcast},
    {"broadcast-of-degenerate-reshape", Op::kBroadcast,
     BroadcastOfDegenerateReshape},
    {"elementwise-of-scalar-broadcasts", kAnyOpcode,
     ElementwiseOfScalarBroadcasts},
    {"get-dimension-size-static", Op::kGetDimensionSize,
     GetDimensionSizeStatic},

    // Data movement.
    {"slice-noop", Op::kSlice, SliceNoop},
    {"slice-of-slice", Op::kSlice, SliceOfSlice},
    {"scalar-broadcast-through-shape-op", Op::kSlice,
     ScalarBroadcastThroughShapeOp},
    {"concatenate-single-operand", Op::kConcatenate, ConcatenateSingleOperand},
    {"concatenate-drop-empty", Op::kConcatenate, ConcatenateDropEmpty},
    {"pad-no-padding", Op::kPad, PadNoPadding},
    {"reverse-noop", Op::kReverse, ReverseNoop},
    {"reverse-of-reverse", Op::kReverse, ReverseOfReverse},
    {"scalar-broadcast-through-shape-op", Op::kReverse,
     ScalarBroadcastThroughShapeOp},
    {"copy-noop", Op::kCopy, CopyNoop},

    // Contractions.
    {"dot-with-unit-contraction", Op::kDot, DotWithUnitContraction},
    {"reduce-of-unit-dimensions", Op::kReduce, ReduceOfUnitDimensions},
};

}  // namespace

absl::Span<const SimplifierRule> AllSimplifierRules() { return kRules; }

}  // namespace hloc
