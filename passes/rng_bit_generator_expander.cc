#include "passes/rng_bit_generator_expander.h"

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "hlo/computation.h"
#include "hlo/math_util.h"
#include "hlo/module.h"

namespace hloc {
namespace {

// ThreeFry2x32 (Salmon et al., SC 2011) and Philox4x32 constants, as XLA's
// (and the evaluator's).
constexpr uint32_t kThreeFryParity = 0x1BD11BDAu;
constexpr int kThreeFryRotations[8] = {13, 15, 26, 6, 17, 29, 16, 24};
constexpr uint64_t kPhiloxMulA = 0xD2511F53u;
constexpr uint64_t kPhiloxMulB = 0xCD9E8D57u;
constexpr uint32_t kPhiloxWeylA = 0x9E3779B9u;
constexpr uint32_t kPhiloxWeylB = 0xBB67AE85u;

// Builds u32 and u64 arithmetic on scalars and rank-1 arrays.
class Bits {
 public:
  explicit Bits(HloComputation* computation) : c_(computation) {}

  HloInstruction* Add(std::unique_ptr<HloInstruction> instruction) {
    return c_->AddInstruction(std::move(instruction));
  }

  // The constant `value` of x's element type, broadcast to x's shape.
  HloInstruction* Like(HloInstruction* x, uint64_t value) {
    const PrimitiveType type = x->shape().element_type();
    HloInstruction* scalar =
        type == U32 ? Add(HloInstruction::CreateConstant(
                          Literal::CreateR0(U32, static_cast<uint32_t>(value))))
                    : Add(HloInstruction::CreateConstant(
                          Literal::CreateR0(U64, value)));
    return Splat(scalar, x->shape());
  }

  HloInstruction* Splat(HloInstruction* scalar, const Shape& shape) {
    if (shape.rank() == 0) return scalar;
    return Add(HloInstruction::CreateBroadcast(
        Shape::Array(scalar->shape().element_type(), shape.dimensions()),
        scalar, {}));
  }

  HloInstruction* Binary(HloOpcode opcode, HloInstruction* a,
                         HloInstruction* b) {
    return Add(HloInstruction::CreateBinary(a->shape(), opcode, a, b));
  }
  HloInstruction* Sum(HloInstruction* a, HloInstruction* b) {
    return Binary(HloOpcode::kAdd, a, b);
  }
  HloInstruction* Xor(HloInstruction* a, HloInstruction* b) {
    return Binary(HloOpcode::kXor, a, b);
  }
  HloInstruction* ShiftLeft(HloInstruction* x, int bits) {
    return Binary(HloOpcode::kShiftLeft, x, Like(x, bits));
  }
  HloInstruction* ShiftRight(HloInstruction* x, int bits) {
    return Binary(HloOpcode::kShiftRightLogical, x, Like(x, bits));
  }
  HloInstruction* RotateLeft(HloInstruction* x, int bits) {
    return Binary(HloOpcode::kOr, ShiftLeft(x, bits), ShiftRight(x, 32 - bits));
  }

  HloInstruction* Convert(HloInstruction* x, PrimitiveType type) {
    if (x->shape().element_type() == type) return x;
    return Add(HloInstruction::CreateUnary(
        Shape::Array(type, x->shape().dimensions()), HloOpcode::kConvert, x));
  }
  HloInstruction* Reshape(HloInstruction* x, std::vector<int64_t> dims) {
    if (x->shape().dimensions() == dims) return x;
    return Add(HloInstruction::CreateReshape(
        Shape::Array(x->shape().element_type(), std::move(dims)), x));
  }
  HloInstruction* Slice(HloInstruction* x, std::vector<int64_t> starts,
                        std::vector<int64_t> limits) {
    std::vector<int64_t> dims(starts.size());
    for (size_t d = 0; d < dims.size(); ++d) dims[d] = limits[d] - starts[d];
    if (dims == x->shape().dimensions()) return x;
    HloInstruction* slice = Add(HloInstruction::Create(
        HloOpcode::kSlice, Shape::Array(x->shape().element_type(), dims), {x}));
    slice->mutable_attrs().slice_starts = std::move(starts);
    slice->mutable_attrs().slice_limits = std::move(limits);
    slice->mutable_attrs().slice_strides.assign(dims.size(), 1);
    return slice;
  }
  HloInstruction* Concatenate(absl::Span<HloInstruction* const> parts,
                              int64_t dim) {
    std::vector<int64_t> dims = parts[0]->shape().dimensions();
    dims[dim] = 0;
    for (HloInstruction* p : parts) dims[dim] += p->shape().dimensions(dim);
    HloInstruction* concat = Add(HloInstruction::Create(
        HloOpcode::kConcatenate,
        Shape::Array(parts[0]->shape().element_type(), dims), parts));
    concat->mutable_attrs().dimensions = {dim};
    return concat;
  }
  HloInstruction* Iota64(int64_t n) {
    HloInstruction* iota = Add(
        HloInstruction::Create(HloOpcode::kIota, Shape::Array(U64, {n}), {}));
    iota->mutable_attrs().iota_dimension = 0;
    return iota;
  }

  // The low and high 32-bit words of u64 values.
  std::array<HloInstruction*, 2> Words(HloInstruction* x) {
    return {Convert(x, U32), Convert(ShiftRight(x, 32), U32)};
  }
  HloInstruction* Join(HloInstruction* low, HloInstruction* high) {
    return Binary(HloOpcode::kOr, Convert(low, U64),
                  ShiftLeft(Convert(high, U64), 32));
  }
  // Element i of the u64[n] state, as a scalar.
  HloInstruction* StateWord(HloInstruction* state, int64_t i) {
    return Reshape(Slice(state, {i}, {i + 1}), {});
  }

 private:
  HloComputation* c_;
};

// ThreeFry2x32 with 20 rounds of the u32 arrays x under the scalar key k.
std::array<HloInstruction*, 2> ThreeFry(Bits& b,
                                        std::array<HloInstruction*, 2> x,
                                        std::array<HloInstruction*, 2> k) {
  const Shape& shape = x[0]->shape();
  HloInstruction* ks[3] = {
      k[0], k[1], b.Xor(b.Xor(k[0], k[1]), b.Like(k[0], kThreeFryParity))};
  x[0] = b.Sum(x[0], b.Splat(ks[0], shape));
  x[1] = b.Sum(x[1], b.Splat(ks[1], shape));
  for (int group = 0; group < 5; ++group) {
    for (int r = 0; r < 4; ++r) {
      x[0] = b.Sum(x[0], x[1]);
      x[1] = b.RotateLeft(x[1], kThreeFryRotations[(group % 2) * 4 + r]);
      x[1] = b.Xor(x[1], x[0]);
    }
    // Key injection after every four rounds, with the group number.
    x[0] = b.Sum(x[0], b.Splat(ks[(group + 1) % 3], shape));
    HloInstruction* k1 = ks[(group + 2) % 3];
    x[1] = b.Sum(x[1], b.Splat(b.Sum(k1, b.Like(k1, group + 1)), shape));
  }
  return x;
}

// Philox4x32 with 10 rounds of the u32 arrays x under the scalar key k.
std::array<HloInstruction*, 4> Philox(Bits& b, std::array<HloInstruction*, 4> x,
                                      std::array<HloInstruction*, 2> k) {
  const Shape& shape = x[0]->shape();
  for (uint32_t round = 0; round < 10; ++round) {
    HloInstruction* ka = b.Splat(
        round == 0 ? k[0] : b.Sum(k[0], b.Like(k[0], round * kPhiloxWeylA)),
        shape);
    HloInstruction* kb = b.Splat(
        round == 0 ? k[1] : b.Sum(k[1], b.Like(k[1], round * kPhiloxWeylB)),
        shape);
    HloInstruction* x0 = b.Convert(x[0], U64);
    HloInstruction* x2 = b.Convert(x[2], U64);
    std::array<HloInstruction*, 2> p0 =
        b.Words(b.Binary(HloOpcode::kMultiply, x0, b.Like(x0, kPhiloxMulA)));
    std::array<HloInstruction*, 2> p1 =
        b.Words(b.Binary(HloOpcode::kMultiply, x2, b.Like(x2, kPhiloxMulB)));
    x = {b.Xor(b.Xor(p1[1], x[1]), ka), p1[0], b.Xor(b.Xor(p0[1], x[3]), kb),
         p0[0]};
  }
  return x;
}

// The dimension ThreeFry's narrow outputs halve: the first even one, else
// the largest (the first of equals).
int64_t SplitDimension(const std::vector<int64_t>& dims) {
  for (size_t d = 0; d < dims.size(); ++d) {
    if (dims[d] % 2 == 0) return static_cast<int64_t>(d);
  }
  int64_t best = 0;
  for (size_t d = 1; d < dims.size(); ++d) {
    if (dims[d] > dims[best]) best = static_cast<int64_t>(d);
  }
  return best;
}

// Words (u32, or u64 for 64-bit types) of `shape` as its element type: the
// low bits kept, then the bits reinterpreted.
HloInstruction* AsType(Bits& b, HloInstruction* words, PrimitiveType type) {
  PrimitiveType unsigned_type = U64;
  switch (BitWidth(type)) {
    case 8:
      unsigned_type = U8;
      break;
    case 16:
      unsigned_type = U16;
      break;
    case 32:
      unsigned_type = U32;
      break;
  }
  HloInstruction* bits = b.Convert(words, unsigned_type);
  if (type == unsigned_type) return bits;
  return b.Add(HloInstruction::CreateUnary(
      Shape::Array(type, bits->shape().dimensions()),
      HloOpcode::kBitcastConvert, bits));
}

struct Generated {
  HloInstruction* bits = nullptr;  // u32 or u64 words of the result shape
  HloInstruction* new_state = nullptr;
};

// A scalar computation of `params` u32 parameters returning u64, added to
// the module of `caller`; `body` builds the root from the parameters.
HloComputation* AddScalarComputation(
    HloComputation* caller, const std::string& name, int params,
    const std::function<HloInstruction*(Bits&, std::vector<HloInstruction*>)>&
        body) {
  auto computation = std::make_unique<HloComputation>(name);
  std::vector<HloInstruction*> args;
  for (int i = 0; i < params; ++i) {
    args.push_back(computation->AddParameter(HloInstruction::CreateParameter(
        i, Shape::Scalar(U32), absl::StrCat("p", i))));
  }
  Bits b(computation.get());
  computation->set_root_instruction(body(b, args));
  return caller->parent()->AddEmbeddedComputation(std::move(computation),
                                                  caller);
}

// map(operands) by `computation`, of u64 results shaped like operand 0.
HloInstruction* Map(Bits& b, HloComputation* computation,
                    absl::Span<HloInstruction* const> operands) {
  const Shape& shape = operands[0]->shape();
  HloInstruction* map = b.Add(HloInstruction::Create(
      HloOpcode::kMap, Shape::Array(U64, shape.dimensions()), operands));
  map->set_called_computations({computation});
  std::vector<int64_t> dims(shape.rank());
  for (int64_t d = 0; d < shape.rank(); ++d) dims[d] = d;
  map->mutable_attrs().dimensions = dims;
  return map;
}

// The rounds are one scalar computation mapped over the counters (the
// header says why).
Generated ThreeFryBits(Bits& b, HloComputation* computation,
                       HloInstruction* state, const Shape& shape, bool wide) {
  HloInstruction* counter = b.StateWord(state, 1);
  std::array<HloInstruction*, 2> key = b.Words(b.StateWord(state, 0));
  const std::vector<int64_t>& dims = shape.dimensions();
  std::vector<int64_t> half = dims;
  const int64_t split = dims.empty() || wide ? -1 : SplitDimension(dims);
  if (split >= 0) half[split] = CeilOfRatio(dims[split], 2);
  int64_t used = 1;
  for (int64_t d : half) used *= d;
  const Shape counters = Shape::Array(U64, {used});
  const Shape words = Shape::Array(U32, {used});
  std::array<HloInstruction*, 2> c =
      b.Words(b.Sum(b.Splat(counter, counters), b.Iota64(used)));
  HloComputation* three_fry =
      AddScalarComputation(computation, "threefry2x32", 4,
                           [](Bits& s, std::vector<HloInstruction*> p) {
                             std::array<HloInstruction*, 2> x =
                                 ThreeFry(s, {p[0], p[1]}, {p[2], p[3]});
                             return s.Join(x[0], x[1]);
                           });
  HloInstruction* joined =
      Map(b, three_fry,
          {c[0], c[1], b.Splat(key[0], words), b.Splat(key[1], words)});
  Generated out;
  if (wide) {
    out.bits = b.Reshape(joined, dims);
  } else if (split < 0) {  // A scalar: the first word.
    out.bits = b.Reshape(b.Words(joined)[0], {});
  } else {
    // Element (.., 2h + c, ..) along the split dimension is word c of
    // counter (.., h, ..): the two words side by side in a new dimension.
    std::array<HloInstruction*, 2> x = b.Words(joined);
    std::vector<int64_t> pair = half;
    pair.insert(pair.begin() + split + 1, 1);
    HloInstruction* both = b.Concatenate(
        {b.Reshape(x[0], pair), b.Reshape(x[1], pair)}, split + 1);
    std::vector<int64_t> even = half;
    even[split] *= 2;
    std::vector<int64_t> starts(dims.size(), 0);
    out.bits = b.Slice(b.Reshape(both, even), starts, dims);
  }
  out.new_state =
      b.Concatenate({b.Slice(state, {0}, {1}),
                     b.Reshape(b.Sum(counter, b.Like(counter, used)), {1})},
                    0);
  return out;
}

// Philox's four words of a block are two u64 halves; a mapped element
// computes its block and keeps one half (a map has one result: twice the
// rounds of a four-word result, in one loop).
Generated PhiloxBits(Bits& b, HloComputation* computation,
                     HloInstruction* state, const Shape& shape, bool wide) {
  const int64_t n = state->shape().dimensions(0);
  std::array<HloInstruction*, 2> key = b.Words(b.StateWord(state, 0));
  // XLA reverses a two-word state: the key doubles as the counter's high
  // word.
  HloInstruction* low = b.StateWord(state, 1);
  HloInstruction* high = b.StateWord(state, n == 3 ? 2 : 0);
  const int64_t count = shape.ElementCount();
  const int64_t blocks = CeilOfRatio(count, wide ? 2 : 4);
  const Shape counters = Shape::Array(U64, {blocks});
  HloInstruction* low_splat = b.Splat(low, counters);
  HloInstruction* lo = b.Sum(low_splat, b.Iota64(blocks));
  HloInstruction* carry = b.Add(HloInstruction::CreateCompare(
      Shape::Array(PRED, {blocks}), lo, low_splat, ComparisonDirection::kLt));
  HloInstruction* hi = b.Sum(b.Splat(high, counters), b.Convert(carry, U64));
  const Shape pairs = Shape::Array(U32, {blocks, 2});
  std::vector<HloInstruction*> operands;
  for (HloInstruction* word :
       {b.Words(lo)[0], b.Words(lo)[1], b.Words(hi)[0], b.Words(hi)[1]}) {
    operands.push_back(
        b.Add(HloInstruction::CreateBroadcast(pairs, word, {0})));
  }
  operands.push_back(b.Splat(key[0], pairs));
  operands.push_back(b.Splat(key[1], pairs));
  HloInstruction* which =
      b.Add(HloInstruction::Create(HloOpcode::kIota, pairs, {}));
  which->mutable_attrs().iota_dimension = 1;
  operands.push_back(which);
  HloComputation* philox = AddScalarComputation(
      computation, "philox4x32", 7,
      [](Bits& s, std::vector<HloInstruction*> p) {
        std::array<HloInstruction*, 4> x =
            Philox(s, {p[0], p[1], p[2], p[3]}, {p[4], p[5]});
        HloInstruction* first = s.Add(HloInstruction::CreateCompare(
            Shape::Scalar(PRED), p[6], s.Like(p[6], 0),
            ComparisonDirection::kEq));
        HloInstruction* low_half = s.Join(x[0], x[1]);
        return s.Add(
            HloInstruction::Create(HloOpcode::kSelect, Shape::Scalar(U64),
                                   {first, low_half, s.Join(x[2], x[3])}));
      });
  // u64 element 2b + h is block b's words 2h, 2h + 1.
  HloInstruction* halves = b.Reshape(Map(b, philox, operands), {2 * blocks});
  HloInstruction* flat = halves;
  if (!wide) {  // Element 2i + c is word c of u64 element i.
    std::array<HloInstruction*, 2> x = b.Words(halves);
    flat = b.Reshape(b.Concatenate({b.Reshape(x[0], {2 * blocks, 1}),
                                    b.Reshape(x[1], {2 * blocks, 1})},
                                   1),
                     {4 * blocks});
  }
  Generated out;
  out.bits = b.Reshape(b.Slice(flat, {0}, {count}), shape.dimensions());
  HloInstruction* new_low = b.Sum(low, b.Like(low, blocks));
  std::vector<HloInstruction*> words = {b.Slice(state, {0}, {1}),
                                        b.Reshape(new_low, {1})};
  if (n == 3) {
    HloInstruction* wrapped = b.Add(HloInstruction::CreateCompare(
        Shape::Scalar(PRED), new_low, low, ComparisonDirection::kLt));
    words.push_back(b.Reshape(b.Sum(high, b.Convert(wrapped, U64)), {1}));
  }
  out.new_state = b.Concatenate(words, 0);
  return out;
}

absl::Status RngError(const HloInstruction& rng, absl::string_view message) {
  return absl::InvalidArgumentError(
      absl::StrCat("rng-bit-generator ", rng.name(), ": ", message));
}

absl::StatusOr<bool> Expand(HloComputation* computation, HloInstruction* rng) {
  const Shape& shape = rng->shape();
  HloInstruction* state = rng->operand(0);
  if (!shape.IsTuple() || shape.tuple_shapes_size() != 2 ||
      !shape.tuple_shapes(1).IsArray() || !state->shape().IsArray() ||
      state->shape().element_type() != U64 || state->shape().rank() != 1) {
    return RngError(*rng, "needs a u64[n] state and a (state, bits) result");
  }
  const Shape& bits_shape = shape.tuple_shapes(1);
  const PrimitiveType type = bits_shape.element_type();
  const int width = BitWidth(type);
  if (type == PRED || IsComplexType(type) ||
      (width != 8 && width != 16 && width != 32 && width != 64)) {
    return RngError(*rng,
                    absl::StrCat("cannot produce ", PrimitiveTypeName(type)));
  }
  const int64_t n = state->shape().dimensions(0);
  const bool three_fry =
      rng->attrs().rng_algorithm == RandomAlgorithm::kThreeFry;
  if (three_fry && n != 2) {
    return RngError(*rng, absl::StrCat("rng_three_fry needs a u64[2] state, "
                                       "got u64[",
                                       n, "]"));
  }
  if (!three_fry && n != 2 && n != 3) {
    return RngError(*rng, absl::StrCat("rng_philox (and rng_default) needs "
                                       "a u64[2] or u64[3] state, got u64[",
                                       n, "]"));
  }
  Bits b(computation);
  Generated out;
  if (bits_shape.ElementCount() == 0) {  // No bits, no counters used.
    out.new_state = state;
    out.bits = b.Splat(
        b.Add(HloInstruction::CreateConstant(Literal(Shape::Scalar(type)))),
        bits_shape);
  } else {
    out = three_fry
              ? ThreeFryBits(b, computation, state, bits_shape, width == 64)
              : PhiloxBits(b, computation, state, bits_shape, width == 64);
    out.bits = AsType(b, out.bits, type);
  }
  HloInstruction* tuple =
      b.Add(HloInstruction::CreateTuple({out.new_state, out.bits}));
  if (absl::Status s = computation->ReplaceInstruction(rng, tuple); !s.ok()) {
    return s;
  }
  return true;
}

}  // namespace

absl::StatusOr<bool> RngBitGeneratorExpander::Run(HloModule* module) {
  return RewriteEach(module, HloOpcode::kRngBitGenerator,
                     "rng-bit-generators-expanded",
                     [&](HloComputation* computation, HloInstruction* instr) {
                       return Expand(computation, instr);
                     });
}

}  // namespace hloc
