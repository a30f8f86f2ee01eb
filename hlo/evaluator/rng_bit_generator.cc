// rng-bit-generator as XLA computes it. XLA has no kernel for the op: its
// RngBitGeneratorExpander rewrites it into HLO built from the bit
// generators of its PRNG library, and XLA:CPU and XLA:GPU expand the
// default algorithm as Philox. The bits below are those programs' bits.
//
// The state operand is u64[n]; state[0] is the key, the rest the counter.
// - ThreeFry (n = 2): 2x32 ThreeFry with 20 rounds over the 64-bit counter
//   state[1] + i. 64-bit outputs take element i's two words (low first);
//   32-bit and narrower outputs split the shape in halves along its first
//   even dimension (else its largest), so element i of a half gives the
//   pair of elements (2h, 2h + 1) along that dimension; narrower types keep
//   the low bits of a 32-bit word. The new counter is state[1] plus the
//   counters used.
// - Philox (n = 2 or 3): 4x32 Philox with 10 rounds over a 128-bit counter,
//   whose low word is state[1] and high word state[2], or state[0] when n
//   is 2 (XLA reverses the two-word state). Block b gives four 32-bit
//   words, elements 4b..4b+3 (two 64-bit elements, low word first); the
//   new state keeps the key and the low (n = 2) or both counter words,
//   plus the blocks used.
#include <array>
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "hlo/evaluator/evaluator_internal.h"

namespace hloc {
namespace eval {
namespace {

uint32_t RotateLeft(uint32_t v, int distance) {
  return (v << distance) | (v >> (32 - distance));
}

// ThreeFry2x32 (Salmon et al., SC 2011) with 20 rounds, as XLA's.
std::array<uint32_t, 2> ThreeFry2x32(std::array<uint32_t, 2> x,
                                     std::array<uint32_t, 2> key) {
  static constexpr int kRotations[8] = {13, 15, 26, 6, 17, 29, 16, 24};
  const uint32_t ks[3] = {key[0], key[1], 0x1BD11BDAu ^ key[0] ^ key[1]};
  x[0] += ks[0];
  x[1] += ks[1];
  for (int group = 0; group < 5; ++group) {
    for (int r = 0; r < 4; ++r) {
      x[0] += x[1];
      x[1] = RotateLeft(x[1], kRotations[(group % 2) * 4 + r]);
      x[1] ^= x[0];
    }
    // Key injection after every four rounds, with the group number.
    x[0] += ks[(group + 1) % 3];
    x[1] += ks[(group + 2) % 3] + static_cast<uint32_t>(group + 1);
  }
  return x;
}

// Philox4x32 with 10 rounds, as XLA's.
std::array<uint32_t, 4> Philox4x32(std::array<uint32_t, 4> x,
                                   std::array<uint32_t, 2> key) {
  constexpr uint64_t kMulA = 0xD2511F53u;
  constexpr uint64_t kMulB = 0xCD9E8D57u;
  constexpr uint32_t kWeylA = 0x9E3779B9u;
  constexpr uint32_t kWeylB = 0xBB67AE85u;
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = x[0] * kMulA;
    const uint64_t p1 = x[2] * kMulB;
    x = {static_cast<uint32_t>(p1 >> 32) ^ x[1] ^ key[0],
         static_cast<uint32_t>(p1),
         static_cast<uint32_t>(p0 >> 32) ^ x[3] ^ key[1],
         static_cast<uint32_t>(p0)};
    key[0] += kWeylA;
    key[1] += kWeylB;
  }
  return x;
}

std::array<uint32_t, 2> Words(uint64_t v) {
  return {static_cast<uint32_t>(v), static_cast<uint32_t>(v >> 32)};
}

uint64_t Join(uint32_t low, uint32_t high) {
  return static_cast<uint64_t>(low) | (static_cast<uint64_t>(high) << 32);
}

// Row-major multi-index of linear position `linear` in `dims`.
std::vector<int64_t> MultiIndex(int64_t linear,
                                const std::vector<int64_t>& dims) {
  std::vector<int64_t> index(dims.size());
  for (int64_t d = static_cast<int64_t>(dims.size()) - 1; d >= 0; --d) {
    index[d] = linear % dims[d];
    linear /= dims[d];
  }
  return index;
}

// Stores the low `bits` bits of `value` as element `index` of `out`.
void Store(Literal& out, const std::vector<int64_t>& index, uint64_t value,
           int bits) {
  const int64_t linear = out.LinearIndex(index);
  uint8_t* p = out.untyped_data() + linear * (bits / 8);
  for (int byte = 0; byte < bits / 8; ++byte) {
    p[byte] = static_cast<uint8_t>(value >> (8 * byte));
  }
}

// The dimension ThreeFry's 32-bit path halves: the first even one, else
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

// Fills `out` with ThreeFry bits; returns the counters used.
int64_t ThreeFryBits(uint64_t key, uint64_t counter, int bits, Literal& out) {
  const std::array<uint32_t, 2> k = Words(key);
  const std::vector<int64_t> dims = out.shape().dimensions();
  const int64_t n = out.element_count();
  if (bits == 64) {
    for (int64_t i = 0; i < n; ++i) {
      std::array<uint32_t, 2> x = ThreeFry2x32(Words(counter + i), k);
      Store(out, MultiIndex(i, dims), Join(x[0], x[1]), 64);
    }
    return n;
  }
  // A scalar is the first of a pair of one half-element.
  std::vector<int64_t> half = dims;
  const int64_t split = dims.empty() ? -1 : SplitDimension(dims);
  if (split >= 0) half[split] = (dims[split] + 1) / 2;
  int64_t half_count = 1;
  for (int64_t d : half) half_count *= d;
  for (int64_t h = 0; h < half_count; ++h) {
    std::array<uint32_t, 2> x = ThreeFry2x32(Words(counter + h), k);
    std::vector<int64_t> index = MultiIndex(h, half);
    for (int c = 0; c < 2; ++c) {
      if (split < 0) {
        if (c == 0) Store(out, index, x[0], bits);
        continue;
      }
      std::vector<int64_t> at = index;
      at[split] = 2 * index[split] + c;
      if (at[split] < dims[split]) Store(out, at, x[c], bits);
    }
  }
  return half_count;
}

// Fills `out` with Philox bits from the 128-bit counter (low, high) and
// returns the blocks used.
int64_t PhiloxBits(uint64_t key, uint64_t low, uint64_t high, int bits,
                   Literal& out) {
  const std::array<uint32_t, 2> k = Words(key);
  const std::vector<int64_t> dims = out.shape().dimensions();
  const int64_t n = out.element_count();
  const int per_block = bits == 64 ? 2 : 4;
  const int64_t blocks = (n + per_block - 1) / per_block;
  for (int64_t b = 0; b < blocks; ++b) {
    const uint64_t lo = low + static_cast<uint64_t>(b);
    const uint64_t hi = high + (lo < low ? 1 : 0);
    const std::array<uint32_t, 2> l = Words(lo);
    const std::array<uint32_t, 2> h = Words(hi);
    std::array<uint32_t, 4> x = Philox4x32({l[0], l[1], h[0], h[1]}, k);
    for (int j = 0; j < per_block; ++j) {
      const int64_t e = b * per_block + j;
      if (e >= n) break;
      const uint64_t v =
          bits == 64 ? Join(x[2 * j], x[2 * j + 1]) : uint64_t{x[j]};
      Store(out, MultiIndex(e, dims), v, bits);
    }
  }
  return blocks;
}

}  // namespace

absl::StatusOr<Literal> EvaluateRngBitGenerator(const HloInstruction& instr,
                                                OperandValues& operands) {
  const Literal& state = operands.Get(0);
  const Shape& shape = instr.shape();
  if (!shape.IsTuple() || shape.tuple_shapes_size() != 2 ||
      state.element_type() != U64 || state.shape().rank() != 1) {
    return InstructionError(
        instr, "rng-bit-generator needs a u64[n] state and a (state, bits) "
               "result");
  }
  const Shape& bits_shape = shape.tuple_shapes(1);
  const PrimitiveType type = bits_shape.element_type();
  const int bits = BitWidth(type);
  if (!bits_shape.IsArray() || type == PRED || IsComplexType(type) ||
      (bits != 8 && bits != 16 && bits != 32 && bits != 64)) {
    return InstructionError(
        instr, absl::StrCat("rng-bit-generator cannot produce ",
                            std::string(PrimitiveTypeName(type))));
  }
  absl::Span<const uint64_t> s = state.data<uint64_t>();
  Literal out_state = state;
  Literal out_bits(bits_shape);
  RandomAlgorithm algorithm = instr.attrs().rng_algorithm;
  // XLA:CPU and XLA:GPU expand the default algorithm as Philox.
  if (algorithm == RandomAlgorithm::kDefault) {
    algorithm = RandomAlgorithm::kPhilox;
  }
  if (algorithm == RandomAlgorithm::kThreeFry) {
    if (s.size() != 2) {
      return InstructionError(
          instr, absl::StrCat("rng_three_fry needs a u64[2] state, got u64[",
                              s.size(), "]"));
    }
    int64_t used = ThreeFryBits(s[0], s[1], bits, out_bits);
    out_state.data<uint64_t>()[1] = s[1] + static_cast<uint64_t>(used);
  } else {
    if (s.size() != 2 && s.size() != 3) {
      return InstructionError(
          instr, absl::StrCat("rng_philox needs a u64[2] or u64[3] state, "
                              "got u64[",
                              s.size(), "]"));
    }
    const uint64_t low = s[1];
    const uint64_t high = s.size() == 3 ? s[2] : s[0];
    int64_t used = PhiloxBits(s[0], low, high, bits, out_bits);
    const uint64_t new_low = low + static_cast<uint64_t>(used);
    absl::Span<uint64_t> o = out_state.data<uint64_t>();
    o[1] = new_low;
    if (s.size() == 3) o[2] = high + (new_low < low ? 1 : 0);
  }
  std::vector<Literal> elements;
  elements.push_back(std::move(out_state));
  elements.push_back(std::move(out_bits));
  return Literal::MakeTuple(std::move(elements));
}

}  // namespace eval
}  // namespace hloc
