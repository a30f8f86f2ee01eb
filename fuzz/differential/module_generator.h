// Random small HLO modules that are valid and type-correct by construction,
// for the differential fuzzer (differential_check.h): elementwise
// arithmetic, compares, selects, converts, broadcasts, reshapes, slices,
// concatenates, transposes, reduces and dots over f32, f16, bf16, s32 and
// pred, with parameters in non-default layouts now and then.
//
// Every choice is read from a ByteSource, so the same generator serves
// libFuzzer (the input bytes steer it) and a seeded random walk (the
// hlo-diff-fuzz driver and the test).
//
// The modules are built so that a correct backend must agree with the
// evaluator exactly on every integer and predicate and to within rounding
// on floats. A float that feeds a compare, a convert to an integer or a
// reduction/dot must be "deterministic": computed only by operations whose
// IEEE result does not depend on evaluation order. Sums and dot products are
// only deterministic when every partial sum is exact, so the generator
// tracks a bound on each value's magnitude and the power-of-two grid its
// values lie on (inputs are multiples of 1/4 in [-4, 4], plus NaN and
// infinities now and then, or finite small integers) and uses a float sum
// only of values whose finite partial sums the type's significand holds
// exactly (a NaN or an infinity among the terms gives the same result in
// any order), and a dot only of finite ones.
#ifndef FUZZ_DIFFERENTIAL_MODULE_GENERATOR_H_
#define FUZZ_DIFFERENTIAL_MODULE_GENERATOR_H_

#include <cstddef>
#include <cstdint>
#include <random>
#include <string>

namespace hloc {
namespace fuzz {

// Where the generator's choices come from.
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // A byte; sources that run dry return 0 from then on (the generator
  // still finishes, with its simplest choices).
  virtual uint8_t Next() = 0;
  // Uniform-ish in [0, n) for n >= 1.
  int Below(int n);
  bool OneIn(int n) { return Below(n) == 0; }
};

class BytesSource : public ByteSource {
 public:
  BytesSource(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint8_t Next() override { return pos_ < size_ ? data_[pos_++] : 0; }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

class RandomSource : public ByteSource {
 public:
  explicit RandomSource(uint64_t seed) : rng_(seed) {}
  uint8_t Next() override { return static_cast<uint8_t>(rng_() & 0xff); }

 private:
  std::mt19937_64 rng_;
};

// The HLO text of one module. Its entry parameters take the values
// MakeDifferentialInput gives them.
std::string GenerateModule(ByteSource& source);

// Parameters whose name starts with this take small integers (see above).
inline constexpr char kSmallPrefix[] = "small";

}  // namespace fuzz
}  // namespace hloc

#endif  // FUZZ_DIFFERENTIAL_MODULE_GENERATOR_H_
