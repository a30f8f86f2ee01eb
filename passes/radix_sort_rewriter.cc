#include "passes/radix_sort_rewriter.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "hlo/computation.h"
#include "hlo/module.h"
#include "hlo/status_macros.h"
#include "passes/computation_builder.h"
#include "passes/radix_sort_plan.h"

namespace hloc {
namespace {

// What a qualifying comparator says: operand `key` ordered by `f` (the
// compare's operand that reads parameter `parameter`), descending or not.
struct KeyOrder {
  int64_t key = 0;
  const HloInstruction* f = nullptr;
  int64_t parameter = 0;
  bool descending = false;
  bool signed_order = false;  // integers: as signed or unsigned
};

// The one parameter `x` reads, or -1 if it reads none or several (or
// anything but scalar elementwise arithmetic and constants).
int64_t OnlyParameter(const HloInstruction* x) {
  std::set<int64_t> parameters;
  std::vector<const HloInstruction*> stack = {x};
  std::set<const HloInstruction*> seen;
  while (!stack.empty()) {
    const HloInstruction* i = stack.back();
    stack.pop_back();
    if (!seen.insert(i).second) continue;
    switch (i->opcode()) {
      case HloOpcode::kParameter:
        parameters.insert(i->parameter_number());
        continue;
      case HloOpcode::kConstant:
      case HloOpcode::kBitcastConvert:
        break;
      default:
        if (!i->IsElementwise() || !i->called_computations().empty()) {
          return -1;
        }
    }
    for (const HloInstruction* operand : i->operands()) {
      stack.push_back(operand);
    }
  }
  return parameters.size() == 1 ? *parameters.begin() : -1;
}

// Whether `a`, of parameter `pa` only, and `b`, of parameter `pb` only,
// are the same expression of their parameters.
bool Mirrored(
    const HloInstruction* a, const HloInstruction* b, int64_t pa, int64_t pb,
    std::set<std::pair<const HloInstruction*, const HloInstruction*>>* proven) {
  if (a->opcode() == HloOpcode::kParameter ||
      b->opcode() == HloOpcode::kParameter) {
    return a->opcode() == b->opcode() && a->parameter_number() == pa &&
           b->parameter_number() == pb;
  }
  if (proven->count({a, b})) return true;
  if (a->operand_count() != b->operand_count() ||
      !a->IdenticalSlowPath(
          *b, [](const HloComputation* x, const HloComputation* y) {
            return x == y;
          })) {
    return false;
  }
  for (int64_t i = 0; i < a->operand_count(); ++i) {
    if (!Mirrored(a->operand(i), b->operand(i), pa, pb, proven)) return false;
  }
  proven->insert({a, b});
  return true;
}

bool TotalOrder(const HloInstruction& compare) {
  return compare.attrs().comparison_type == ComparisonType::kTotalOrder ||
         compare.attrs().comparison_order == ComparisonOrder::kTotal;
}

// The key order `cmp` is, if it is one (the header's conditions).
std::optional<KeyOrder> AnalyzeComparator(const HloComputation& cmp) {
  const HloInstruction* root = cmp.root_instruction();
  if (root->opcode() != HloOpcode::kCompare) return std::nullopt;
  const ComparisonDirection direction = root->comparison_direction();
  if (direction != ComparisonDirection::kLt &&
      direction != ComparisonDirection::kGt) {
    return std::nullopt;
  }
  const HloInstruction* lhs = root->operand(0);
  const HloInstruction* rhs = root->operand(1);
  const int64_t pa = OnlyParameter(lhs);
  const int64_t pb = OnlyParameter(rhs);
  if (pa < 0 || pb < 0 || pa / 2 != pb / 2 || pa == pb) return std::nullopt;
  std::set<std::pair<const HloInstruction*, const HloInstruction*>> proven;
  if (!Mirrored(lhs, rhs, pa, pb, &proven)) return std::nullopt;
  const PrimitiveType type = lhs->shape().element_type();
  KeyOrder order;
  const ComparisonType how = root->attrs().comparison_type;
  if (IsFloatingPointType(type)) {
    // F8 types' orders are not modelled here; a partial order leaves
    // NaNs unordered.
    if (BitWidth(type) < 16 || !TotalOrder(*root)) return std::nullopt;
  } else if (IsIntegralType(type)) {
    if (BitWidth(type) % 8 != 0) return std::nullopt;  // s4, u4
    order.signed_order =
        how == ComparisonType::kSigned ||
        (how != ComparisonType::kUnsigned && IsSignedIntegralType(type));
  } else if (type != PRED) {
    return std::nullopt;
  }
  order.key = pa / 2;
  order.f = lhs;
  order.parameter = pa;
  // less(x, y) is f(y) < f(x) when the left side reads y (parameter 2k+1).
  order.descending = (direction == ComparisonDirection::kGt) != (pa % 2 == 1);
  return order;
}

PrimitiveType UnsignedOfWidth(int bits) {
  switch (bits) {
    case 8:
      return U8;
    case 16:
      return U16;
    case 32:
      return U32;
    default:
      return U64;
  }
}

PrimitiveType SignedOfWidth(int bits) {
  switch (bits) {
    case 8:
      return S8;
    case 16:
      return S16;
    case 32:
      return S32;
    default:
      return S64;
  }
}

// The scalar integer constant `value` of `type` (8 to 64 bits wide).
Literal IntConstant(PrimitiveType type, uint64_t value) {
  switch (type) {
    case U8:
      return Literal::CreateR0<uint8_t>(type, static_cast<uint8_t>(value));
    case S8:
      return Literal::CreateR0<int8_t>(type, static_cast<int8_t>(value));
    case U16:
      return Literal::CreateR0<uint16_t>(type, static_cast<uint16_t>(value));
    case S16:
      return Literal::CreateR0<int16_t>(type, static_cast<int16_t>(value));
    case U32:
      return Literal::CreateR0<uint32_t>(type, static_cast<uint32_t>(value));
    case S32:
      return Literal::CreateR0<int32_t>(type, static_cast<int32_t>(value));
    case S64:
      return Literal::CreateR0<int64_t>(type, static_cast<int64_t>(value));
    default:
      return Literal::CreateR0<uint64_t>(U64, value);
  }
}

// The key computation: x -> u(x) of the header, `order.f` (and what it
// reads) cloned with x for its parameter.
std::unique_ptr<HloComputation> MakeKeyComputation(const HloComputation& cmp,
                                                   const KeyOrder& order,
                                                   PrimitiveType key_type) {
  auto key =
      std::make_unique<HloComputation>(absl::StrCat(cmp.name(), ".radix_key"));
  ComputationBuilder e(key.get());
  HloInstruction* x = key->AddParameter(
      HloInstruction::CreateParameter(0, Shape::Scalar(key_type), "x"));
  absl::flat_hash_map<const HloInstruction*, HloInstruction*> clones;
  std::function<HloInstruction*(const HloInstruction*)> clone =
      [&](const HloInstruction* instr) -> HloInstruction* {
    if (instr->opcode() == HloOpcode::kParameter) return x;
    if (auto it = clones.find(instr); it != clones.end()) return it->second;
    std::vector<HloInstruction*> operands;
    for (const HloInstruction* operand : instr->operands()) {
      operands.push_back(clone(operand));
    }
    return clones[instr] =
               e.Add(instr->CloneWithNewOperands(instr->shape(), operands));
  };
  HloInstruction* v = clone(order.f);
  const PrimitiveType type = v->shape().element_type();
  const int bits = type == PRED ? 8 : BitWidth(type);
  const Shape unsigned_shape = Shape::Scalar(UnsignedOfWidth(bits));
  auto as = [&](HloInstruction* y, const Shape& shape) {
    return e.Add(
        HloInstruction::Create(HloOpcode::kBitcastConvert, shape, {y}));
  };
  HloInstruction* u;
  if (type == PRED) {
    u = e.Add(HloInstruction::Create(HloOpcode::kConvert, unsigned_shape, {v}));
  } else if (IsFloatingPointType(type)) {
    // Negative: every bit flipped (larger magnitudes first); positive: the
    // sign bit set (after every negative).
    HloInstruction* s = as(v, Shape::Scalar(SignedOfWidth(bits)));
    HloInstruction* shift =
        e.Constant(IntConstant(SignedOfWidth(bits), bits - 1));
    HloInstruction* negative = as(
        e.Binary(HloOpcode::kShiftRightArithmetic, s, shift), unsigned_shape);
    HloInstruction* flip =
        e.Binary(HloOpcode::kOr, negative,
                 e.Constant(IntConstant(unsigned_shape.element_type(),
                                        uint64_t{1} << (bits - 1))));
    u = e.Binary(HloOpcode::kXor, as(v, unsigned_shape), flip);
  } else {
    u = type == unsigned_shape.element_type() ? v : as(v, unsigned_shape);
    if (order.signed_order) {
      u = e.Binary(HloOpcode::kXor, u,
                   e.Constant(IntConstant(unsigned_shape.element_type(),
                                          uint64_t{1} << (bits - 1))));
    }
  }
  if (order.descending) u = e.Not(u);
  key->set_root_instruction(u);
  return key;
}

// Whether `x` holds each element's position along `dim` (an integer iota
// along it, or a broadcast of one), which the radix sort writes from the
// positions it keeps instead of reading an operand.
bool IsPositions(const HloInstruction* x, int64_t dim) {
  if (!IsIntegralType(x->shape().element_type())) return false;
  if (x->opcode() == HloOpcode::kIota) {
    return x->attrs().iota_dimension == dim;
  }
  if (x->opcode() == HloOpcode::kBroadcast &&
      x->operand(0)->opcode() == HloOpcode::kIota &&
      x->operand(0)->shape().element_type() == x->shape().element_type()) {
    const int64_t iota_dim = x->operand(0)->attrs().iota_dimension;
    return x->dimensions()[iota_dim] == dim;
  }
  return false;
}

absl::StatusOr<bool> Rewrite(HloComputation* computation, HloInstruction* sort,
                             int64_t min_row_length) {
  if (sort->dimensions().size() != 1 || sort->to_apply() == nullptr) {
    return false;
  }
  for (const HloInstruction* operand : sort->operands()) {
    if (!operand->shape().IsArray() || !operand->shape().is_static()) {
      return false;
    }
  }
  const Shape& shape = sort->operand(0)->shape();
  const int64_t dim = sort->dimensions(0);
  const int64_t length = shape.dimensions(dim);
  const int64_t elements = shape.ElementCount();
  if (length < min_row_length || elements >= (int64_t{1} << 31)) return false;
  std::optional<KeyOrder> order = AnalyzeComparator(*sort->to_apply());
  if (!order.has_value()) return false;

  const int64_t n = sort->operand_count();
  // Operand k first, the others after it in order.
  std::vector<int64_t> from = {order->key};
  for (int64_t i = 0; i < n; ++i) {
    if (i != order->key) from.push_back(i);
  }
  auto result_shape = [&](int64_t i) {
    return sort->shape().IsTuple() ? sort->shape().tuple_shapes(i)
                                   : sort->shape();
  };
  const PrimitiveType key_type =
      sort->operand(order->key)->shape().element_type();
  HloModule* module = computation->parent();
  HloComputation* key = module->AddEmbeddedComputation(
      MakeKeyComputation(*sort->to_apply(), *order, key_type), computation);
  const PrimitiveType u = key->root_instruction()->shape().element_type();
  const RadixSortPlan plan =
      PlanRadixSort(elements / length, length, BitWidth(u),
                    key_type == PRED ? 1 : ByteWidth(key_type), n > 1);

  // Payloads of positions (an argsort's iota) are not operands: the
  // results say which (kRadixSortPositionsAttribute), and the kernels
  // write the positions they keep (the positions fit: length < 2^31).
  std::vector<HloInstruction*> operands;
  std::vector<Shape> shapes;
  int64_t positions = 0;
  for (int64_t j = 0; j < n; ++j) {
    HloInstruction* operand = sort->operand(from[j]);
    shapes.push_back(result_shape(from[j]));
    if (j > 0 && IsPositions(operand, dim) && j < 63) {
      positions |= int64_t{1} << j;
    } else {
      operands.push_back(operand);
    }
  }
  shapes.push_back(Shape::Array(U8, {plan.scratch_bytes}));
  ComputationBuilder e(computation);
  HloInstruction* call = e.Add(HloInstruction::Create(
      HloOpcode::kCustomCall, Shape::Tuple(shapes), operands));
  call->mutable_attrs().custom_call_target = std::string(kRadixSortTarget);
  call->set_called_computations({key});
  call->set_backend_config(positions == 0
                               ? absl::StrCat("{dimension = ", dim, " : i64}")
                               : absl::StrCat("{dimension = ", dim, " : i64, ",
                                              kRadixSortPositionsAttribute,
                                              " = ", positions, " : i64}"));
  *call->mutable_metadata() = sort->metadata();

  std::vector<HloInstruction*> results(n);
  for (int64_t j = 0; j < n; ++j) results[from[j]] = e.Element(call, j);
  HloInstruction* replacement =
      sort->shape().IsTuple() ? e.Add(HloInstruction::CreateTuple(results))
                              : results[0];
  HLOC_RETURN_IF_ERROR(computation->ReplaceInstruction(sort, replacement));
  return true;
}

}  // namespace

absl::StatusOr<bool> RadixSortRewriter::Run(HloModule* module) {
  return RewriteEach(module, HloOpcode::kSort, "sorts-radix",
                     [&](HloComputation* computation, HloInstruction* sort) {
                       return Rewrite(computation, sort, min_row_length_);
                     });
}

}  // namespace hloc
