#include "hlo/while_trip_count.h"

#include <cstddef>
#include <limits>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "hlo/backend_config.h"
#include "hlo/computation.h"

namespace hloc {
namespace {

// Wide enough for every value of every integer type and their differences
// and products with a trip count, so no step of the count can overflow.
using Wide = __int128;

struct IntegerRange {
  Wide lo = 0, hi = 0;
  bool is_signed = false;
};

// The values of the integer types a counter can have (sub-byte types are
// computed in 8 bits and never count a loop).
std::optional<IntegerRange> RangeOf(PrimitiveType type) {
  int bits = 0;
  bool is_signed = true;
  switch (type) {
    case S8:
      bits = 8;
      break;
    case S16:
      bits = 16;
      break;
    case S32:
      bits = 32;
      break;
    case S64:
      bits = 64;
      break;
    case U8:
      bits = 8;
      is_signed = false;
      break;
    case U16:
      bits = 16;
      is_signed = false;
      break;
    case U32:
      bits = 32;
      is_signed = false;
      break;
    case U64:
      bits = 64;
      is_signed = false;
      break;
    default:
      return std::nullopt;
  }
  IntegerRange range;
  range.is_signed = is_signed;
  if (is_signed) {
    range.lo = -(Wide{1} << (bits - 1));
    range.hi = (Wide{1} << (bits - 1)) - 1;
  } else {
    range.hi = (Wide{1} << bits) - 1;
  }
  return range;
}

// The value of a scalar integer constant.
std::optional<Wide> IntegerConstant(const HloInstruction* h) {
  if (h->opcode() != HloOpcode::kConstant || !h->shape().IsArray() ||
      h->shape().rank() != 0) {
    return std::nullopt;
  }
  const PrimitiveType type = h->shape().element_type();
  if (!RangeOf(type).has_value()) return std::nullopt;
  const int64_t raw = h->literal().GetAsInt64(0);
  // GetAsInt64 casts a u64 above 2^63 to a negative int64.
  if (type == U64) return Wide{static_cast<uint64_t>(raw)};
  return Wide{raw};
}

// Element `k` of a loop state value: the value itself for a state that is
// no tuple (k == -1), else operand k of the tuple that builds it.
const HloInstruction* Element(const HloInstruction* state, int64_t k) {
  if (k < 0) return state;
  if (state->opcode() != HloOpcode::kTuple || k >= state->operand_count()) {
    return nullptr;
  }
  const HloInstruction* element = state->operand(k);
  // An element of another tuple, renamed (control-flow-layout rebuilds a
  // loop's init tuple from the elements of the one it had).
  while (element->opcode() == HloOpcode::kGetTupleElement &&
         element->operand(0)->opcode() == HloOpcode::kTuple &&
         element->tuple_index() < element->operand(0)->operand_count()) {
    element = element->operand(0)->operand(element->tuple_index());
  }
  return element;
}

// Which element of the computation's state parameter `h` reads: its tuple
// index, -1 for the whole non-tuple state, nullopt for anything else.
std::optional<int64_t> StateIndex(const HloInstruction* h,
                                  const HloInstruction* parameter) {
  if (h == parameter && !parameter->shape().IsTuple()) return -1;
  if (h->opcode() == HloOpcode::kGetTupleElement &&
      h->operand(0) == parameter) {
    return h->tuple_index();
  }
  return std::nullopt;
}

ComparisonDirection Swapped(ComparisonDirection d) {
  switch (d) {
    case ComparisonDirection::kLt:
      return ComparisonDirection::kGt;
    case ComparisonDirection::kLe:
      return ComparisonDirection::kGe;
    case ComparisonDirection::kGt:
      return ComparisonDirection::kLt;
    case ComparisonDirection::kGe:
      return ComparisonDirection::kLe;
    default:
      return d;
  }
}

bool Holds(ComparisonDirection d, Wide i, Wide n) {
  switch (d) {
    case ComparisonDirection::kEq:
      return i == n;
    case ComparisonDirection::kNe:
      return i != n;
    case ComparisonDirection::kLt:
      return i < n;
    case ComparisonDirection::kLe:
      return i <= n;
    case ComparisonDirection::kGt:
      return i > n;
    case ComparisonDirection::kGe:
      return i >= n;
  }
  return false;
}

Wide CeilDiv(Wide a, Wide b) { return (a + b - 1) / b; }  // a >= 0, b > 0

// Body runs of `for (i = a; i dir n; i += s)` in `range`; nullopt where
// the counter would leave the range before the condition fails, or never
// fails it.
std::optional<Wide> Count(ComparisonDirection d, Wide a, Wide n, Wide s,
                          const IntegerRange& range) {
  if (!Holds(d, a, n)) return 0;
  if (s == 0) return std::nullopt;
  std::optional<Wide> trips;
  switch (d) {
    case ComparisonDirection::kLt:
      if (s > 0) trips = CeilDiv(n - a, s);
      break;
    case ComparisonDirection::kLe:
      if (s > 0) trips = (n - a) / s + 1;
      break;
    case ComparisonDirection::kGt:
      if (s < 0) trips = CeilDiv(a - n, -s);
      break;
    case ComparisonDirection::kGe:
      if (s < 0) trips = (a - n) / -s + 1;
      break;
    case ComparisonDirection::kNe:
      if ((n - a) % s == 0 && (n - a) / s > 0) trips = (n - a) / s;
      break;
    case ComparisonDirection::kEq:
      trips = 1;
      break;
  }
  if (!trips.has_value()) return std::nullopt;
  // The counter after the last run must not have wrapped: a wrapped value
  // could meet the condition again.
  const Wide last = a + *trips * s;
  if (last < range.lo || last > range.hi) return std::nullopt;
  return trips;
}

}  // namespace

std::optional<int64_t> ComputeWhileTripCount(const HloInstruction& loop) {
  if (loop.opcode() != HloOpcode::kWhile) return std::nullopt;
  const HloComputation* condition = loop.while_condition();
  const HloComputation* body = loop.while_body();
  if (condition->parameter_instructions().size() != 1 ||
      body->parameter_instructions().size() != 1) {
    return std::nullopt;
  }
  const HloInstruction* cond_param = condition->parameter_instruction(0);
  const HloInstruction* body_param = body->parameter_instruction(0);
  const HloInstruction* compare = condition->root_instruction();
  if (compare->opcode() != HloOpcode::kCompare) return std::nullopt;

  // Which operand is the counter; the other is the bound.
  ComparisonDirection direction = compare->comparison_direction();
  const HloInstruction* bound = compare->operand(1);
  std::optional<int64_t> k = StateIndex(compare->operand(0), cond_param);
  if (!k.has_value()) {
    k = StateIndex(compare->operand(1), cond_param);
    bound = compare->operand(0);
    direction = Swapped(direction);
  }
  if (!k.has_value()) return std::nullopt;

  const PrimitiveType type = compare->operand(0)->shape().element_type();
  const std::optional<IntegerRange> range = RangeOf(type);
  // (The verifier holds an integer compare's type= to its operands'
  // signedness.)
  if (!range.has_value()) return std::nullopt;

  // The bound: a constant, or a state element the body never changes
  // whose init is a constant.
  std::optional<Wide> n = IntegerConstant(bound);
  if (!n.has_value()) {
    const std::optional<int64_t> j = StateIndex(bound, cond_param);
    if (!j.has_value() || *j == *k) return std::nullopt;
    const HloInstruction* next = Element(body->root_instruction(), *j);
    if (next == nullptr || StateIndex(next, body_param) != j) {
      return std::nullopt;
    }
    const HloInstruction* init = Element(loop.operand(0), *j);
    if (init == nullptr) return std::nullopt;
    n = IntegerConstant(init);
    if (!n.has_value()) return std::nullopt;
  }

  const HloInstruction* init = Element(loop.operand(0), *k);
  if (init == nullptr) return std::nullopt;
  const std::optional<Wide> a = IntegerConstant(init);
  if (!a.has_value()) return std::nullopt;

  // The step: the body adds a constant to the counter (or subtracts one).
  const HloInstruction* next = Element(body->root_instruction(), *k);
  if (next == nullptr || (next->opcode() != HloOpcode::kAdd &&
                          next->opcode() != HloOpcode::kSubtract)) {
    return std::nullopt;
  }
  std::optional<Wide> s;
  if (StateIndex(next->operand(0), body_param) == k) {
    s = IntegerConstant(next->operand(1));
  } else if (next->opcode() == HloOpcode::kAdd &&
             StateIndex(next->operand(1), body_param) == k) {
    s = IntegerConstant(next->operand(0));
  }
  if (!s.has_value()) return std::nullopt;
  if (next->opcode() == HloOpcode::kSubtract) s = -*s;
  // An unsigned step the type wraps is a negative one: u32 x + 0xffffffff
  // is x - 1.
  if (!range->is_signed && *s > range->hi / 2) s = *s - (range->hi + 1);

  const std::optional<Wide> trips = Count(direction, *a, *n, *s, *range);
  if (!trips.has_value() || *trips > std::numeric_limits<int64_t>::max()) {
    return std::nullopt;
  }
  return static_cast<int64_t>(*trips);
}

std::optional<int64_t> KnownTripCount(const HloInstruction& loop) {
  // XLA writes the count as a JSON string ("10"); a number is read too.
  const std::string n =
      BackendConfigValue(loop.backend_config(), {"known_trip_count", "n"});
  int64_t value = 0;
  if (!absl::SimpleAtoi(n, &value) || value < 0) return std::nullopt;
  return value;
}

std::string KnownTripCountConfig(int64_t n) {
  return absl::StrCat("{\"known_trip_count\":{\"n\":\"", n, "\"}}");
}

}  // namespace hloc
