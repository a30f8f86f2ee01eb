// sort (any number of operands, comparator computation) and topk. Both sort
// a permutation of each row with std::stable_sort, so equal elements keep
// their order whatever is_stable says; a comparator that is not a strict weak
// order cannot make the merge sort read out of bounds.
//
// A comparator of the form compare(f(lhs_j), f(rhs_j)) -- the same function
// of operand j's two elements, as JAX's NaN- and zero-canonicalizing float
// comparators are -- is evaluated as keys: f runs once per element,
// lane-batched, and the sort compares keys with typed code. The result is
// the same as calling the comparator per comparison.
#include <algorithm>
#include <cstring>
#include <numeric>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "hlo/evaluator/evaluator_internal.h"
#include "hlo/evaluator/kernel_util.h"
#include "hlo/evaluator/strided_copy.h"

namespace hloc {
namespace eval {

namespace {

void CollectParameters(const HloInstruction* instr,
                       absl::flat_hash_set<int64_t>* params,
                       absl::flat_hash_set<const HloInstruction*>* seen) {
  if (!seen->insert(instr).second) return;
  if (instr->opcode() == HloOpcode::kParameter) {
    params->insert(instr->parameter_number());
  }
  for (const HloInstruction* operand : instr->operands()) {
    CollectParameters(operand, params, seen);
  }
}

// True if `b` is `a` with parameter pa replaced by parameter pb.
bool Mirrors(const HloInstruction* a, const HloInstruction* b, int64_t pa,
             int64_t pb) {
  if (a->opcode() == HloOpcode::kParameter) {
    return b->opcode() == HloOpcode::kParameter &&
           a->parameter_number() == pa && b->parameter_number() == pb;
  }
  if (a->operand_count() != b->operand_count() ||
      !a->IdenticalSlowPath(
          *b, [](const HloComputation* x, const HloComputation* y) {
            return x == y;
          })) {
    return false;
  }
  for (int64_t i = 0; i < a->operand_count(); ++i) {
    if (!Mirrors(a->operand(i), b->operand(i), pa, pb)) return false;
  }
  return true;
}

struct KeyComparator {
  int64_t operand = 0;
  const HloInstruction* key = nullptr;  // f(lhs_operand)
  ComparisonDirection direction = ComparisonDirection::kLt;
  bool total_order = false;
};

std::optional<KeyComparator> MatchKeyComparator(const HloComputation& cmp) {
  const HloInstruction* root = cmp.root_instruction();
  if (root == nullptr || root->opcode() != HloOpcode::kCompare) {
    return std::nullopt;
  }
  const HloInstruction* a = root->operand(0);
  const HloInstruction* b = root->operand(1);
  if (!a->shape().IsScalar() || IsComplexType(a->shape().element_type())) {
    return std::nullopt;
  }
  absl::flat_hash_set<int64_t> pa, pb;
  absl::flat_hash_set<const HloInstruction*> seen_a, seen_b;
  CollectParameters(a, &pa, &seen_a);
  CollectParameters(b, &pb, &seen_b);
  if (pa.size() != 1 || pb.size() != 1) return std::nullopt;
  const int64_t lhs = *pa.begin(), rhs = *pb.begin();
  if (lhs % 2 != 0 || rhs != lhs + 1 || !Mirrors(a, b, lhs, rhs)) {
    return std::nullopt;
  }
  KeyComparator match;
  match.operand = lhs / 2;
  match.key = a;
  match.direction = root->comparison_direction();
  match.total_order = UsesTotalOrder(*root);
  return match;
}

template <typename Key, typename K>
void SortByKeys(const K* keys, int64_t* perm, int64_t n,
                ComparisonDirection direction, Key key) {
  auto less = [&](int64_t a, int64_t b) {
    const auto x = key(keys[a]);
    const auto y = key(keys[b]);
    switch (direction) {
      case ComparisonDirection::kEq:
        return x == y;
      case ComparisonDirection::kNe:
        return x != y;
      case ComparisonDirection::kGe:
        return x >= y;
      case ComparisonDirection::kGt:
        return x > y;
      case ComparisonDirection::kLe:
        return x <= y;
      case ComparisonDirection::kLt:
        return x < y;
    }
    return false;
  };
  std::stable_sort(perm, perm + n, less);
}

// Sorts perm[0, n) by keys of element type `type`.
void SortPermutation(const void* keys, PrimitiveType type, int64_t* perm,
                     int64_t n, ComparisonDirection direction, bool total) {
  (void)TypeSwitch(type, [&](auto tag) {
    using K = NativeType<decltype(tag)::value>;
    const K* k = static_cast<const K*>(keys);
    if constexpr (kIsFloat<K>) {
      if (total) {
        SortByKeys(k, perm, n, direction, [](K v) { return TotalOrderKey(v); });
      } else {
        SortByKeys(k, perm, n, direction, [](K v) { return Load(v); });
      }
    } else if constexpr (!kIsComplex<K>) {
      SortByKeys(k, perm, n, direction, [](K v) { return v; });
    }
  });
}

}  // namespace

absl::StatusOr<Literal> EvaluateSort(const HloInstruction& instr,
                                     OperandValues& operands,
                                     Evaluator& evaluator) {
  const int64_t n = instr.operand_count();
  if (n == 0 || instr.to_apply() == nullptr) {
    return InstructionError(instr, "sort needs operands and a comparator");
  }
  const Shape& shape = instr.operand(0)->shape();
  const int64_t dim =
      instr.dimensions().empty() ? shape.rank() - 1 : instr.dimensions(0);
  if (dim < 0 || dim >= shape.rank()) {
    return InstructionError(instr, "sort dimension out of range");
  }
  ScalarFn& cmp = evaluator.ScalarFnFor(*instr.to_apply());
  if (cmp.num_params() != 2 * n || cmp.num_results() != 1 ||
      cmp.result_type(0) != PRED) {
    return InstructionError(instr, "sort comparator does not match operands");
  }
  std::vector<const uint8_t*> data(n);
  std::vector<int64_t> widths(n);
  for (int64_t i = 0; i < n; ++i) {
    if (instr.operand(i)->shape().dimensions() != shape.dimensions() ||
        cmp.param_type(2 * i) != instr.operand(i)->shape().element_type()) {
      return InstructionError(instr, "sort operands do not match");
    }
    data[i] = operands.Get(i).untyped_data();
    widths[i] = ByteWidth(instr.operand(i)->shape().element_type());
  }
  if ((n > 1) != instr.shape().IsTuple()) {
    return InstructionError(instr, "sort result arity does not match");
  }
  std::vector<Literal> outs;
  for (int64_t i = 0; i < n; ++i) outs.emplace_back(instr.operand(i)->shape());
  const int64_t length = shape.dimensions(dim);
  int64_t inner = 1, outer = 1;
  for (int64_t d = dim + 1; d < shape.rank(); ++d) inner *= shape.dimensions(d);
  for (int64_t d = 0; d < dim; ++d) outer *= shape.dimensions(d);

  std::vector<int64_t> perm(length);
  std::vector<const void*> args(2 * n);

  std::optional<KeyComparator> key = MatchKeyComparator(*instr.to_apply());
  std::unique_ptr<ScalarFn> key_fn;
  if (key.has_value()) {
    key_fn = std::make_unique<ScalarFn>(*instr.to_apply(), key->key);
    if (!key_fn->compiled()) key_fn.reset();
  }
  std::vector<uint8_t> row, keys;
  if (key_fn != nullptr) {
    const int64_t j = key->operand;
    keys.resize(length * ByteWidth(key_fn->result_type(0)));
    if (inner != 1) row.resize(length * widths[j]);
  }

  // Sorts perm by operand j's keys f(x), computed for the whole row at once.
  auto sort_by_keys = [&](int64_t base) {
    const int64_t j = key->operand;
    const void* elements = data[j] + base * widths[j];
    if (inner != 1) {
      CopyStrided({length}, data[j], base, {inner}, row.data(), 0, {1},
                  widths[j]);
      elements = row.data();
    }
    // Only parameter 2j is read; every argument may point at the row.
    std::fill(args.begin(), args.end(), elements);
    void* result = keys.data();
    absl::Status status = key_fn->Call(args, {&result, 1}, length);
    if (!status.ok()) return status;
    SortPermutation(keys.data(), key_fn->result_type(0), perm.data(), length,
                    key->direction, key->total_order);
    return absl::OkStatus();
  };
  // Sorts perm calling the comparator for every comparison.
  auto sort_by_comparator = [&](int64_t base) {
    absl::Status error;
    std::stable_sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) {
      if (!error.ok()) return false;
      for (int64_t i = 0; i < n; ++i) {
        args[2 * i] = data[i] + (base + a * inner) * widths[i];
        args[2 * i + 1] = data[i] + (base + b * inner) * widths[i];
      }
      bool less = false;
      void* result = &less;
      absl::Status status = cmp.Call(args, {&result, 1}, 1);
      if (!status.ok()) error = status;
      return less;
    });
    return error;
  };
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t in = 0; in < inner; ++in) {
      const int64_t base = o * length * inner + in;
      std::iota(perm.begin(), perm.end(), 0);
      absl::Status status =
          key_fn != nullptr ? sort_by_keys(base) : sort_by_comparator(base);
      if (!status.ok()) return status;
      for (int64_t i = 0; i < n; ++i) {
        uint8_t* dst = outs[i].untyped_data();
        for (int64_t j = 0; j < length; ++j) {
          std::memcpy(dst + (base + j * inner) * widths[i],
                      data[i] + (base + perm[j] * inner) * widths[i],
                      widths[i]);
        }
      }
    }
  }
  if (n == 1) return std::move(outs[0]);
  return Literal::MakeTuple(std::move(outs));
}

namespace {

template <typename T>
auto OrderKey(T v) {
  if constexpr (kIsFloat<T>) {
    return TotalOrderKey(v);
  } else {
    return v;
  }
}

template <typename T>
void TopKRows(const Literal& input, int64_t rows, int64_t length, int64_t k,
              bool largest, Literal* values, Literal* indices) {
  const T* in = input.data<T>().data();
  T* out = values->data<T>().data();
  int32_t* idx = indices->data<int32_t>().data();
  std::vector<int64_t> perm(length);
  for (int64_t r = 0; r < rows; ++r) {
    const T* row = in + r * length;
    std::iota(perm.begin(), perm.end(), 0);
    std::stable_sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) {
      return largest ? OrderKey(row[b]) < OrderKey(row[a])
                     : OrderKey(row[a]) < OrderKey(row[b]);
    });
    for (int64_t j = 0; j < k; ++j) {
      out[r * k + j] = row[perm[j]];
      idx[r * k + j] = static_cast<int32_t>(perm[j]);
    }
  }
}

}  // namespace

absl::StatusOr<Literal> EvaluateTopK(const HloInstruction& instr,
                                     OperandValues& operands) {
  const Shape& shape = instr.operand(0)->shape();
  const int64_t k = instr.attrs().k;
  if (shape.rank() == 0 || k < 0 || k > shape.dimensions(shape.rank() - 1) ||
      !instr.shape().IsTuple() || instr.shape().tuple_shapes_size() != 2 ||
      instr.shape().tuple_shapes(1).element_type() != S32) {
    return InstructionError(instr,
                            "topk needs (values, s32 indices) of k <= n");
  }
  const int64_t length = shape.dimensions(shape.rank() - 1);
  const int64_t rows = length == 0 ? 0 : shape.ElementCount() / length;
  for (int64_t i = 0; i < 2; ++i) {
    std::vector<int64_t> dims = shape.dimensions();
    dims.back() = k;
    if (instr.shape().tuple_shapes(i).dimensions() != dims) {
      return InstructionError(instr, "topk result has the wrong shape");
    }
  }
  if (instr.shape().tuple_shapes(0).element_type() != shape.element_type()) {
    return InstructionError(instr, "topk values change type");
  }
  Literal values(instr.shape().tuple_shapes(0));
  Literal indices(instr.shape().tuple_shapes(1));
  const bool largest = instr.attrs().largest;
  const Literal& input = operands.Get(0);
  bool supported = false;
  (void)TypeSwitch(shape.element_type(), [&](auto tag) {
    using T = NativeType<decltype(tag)::value>;
    if constexpr (!kIsComplex<T>) {
      TopKRows<T>(input, rows, length, k, largest, &values, &indices);
      supported = true;
    }
  });
  if (!supported) return InstructionError(instr, "topk of an unsupported type");
  std::vector<Literal> parts;
  parts.push_back(std::move(values));
  parts.push_back(std::move(indices));
  return Literal::MakeTuple(std::move(parts));
}

}  // namespace eval
}  // namespace hloc
