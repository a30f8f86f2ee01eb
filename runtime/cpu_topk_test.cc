// The CPU topk kernel gives the evaluator's values and indices bit for bit,
// for every element type it takes, on rows drawn from a few values (ties
// everywhere) with both zeros, both infinities and NaNs of both signs and
// two payloads: rows of 1, 7, 1000 and 32768, k of 1, 5, 64 and the whole
// row, largest and smallest.
#include "runtime/cpu_topk.h"

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "hlo/evaluator/evaluator.h"
#include "hlo/literal.h"
#include "hlo/text/parser.h"

namespace hloc {
namespace {

// Exponent and mantissa widths of the float types, to build their special
// values from bits.
struct FloatBits {
  int exponent;
  int mantissa;
};

FloatBits BitsOf(PrimitiveType type) {
  switch (type) {
    case F16:
      return {5, 10};
    case BF16:
      return {8, 7};
    case F32:
      return {8, 23};
    default:
      return {11, 52};
  }
}

// A pool of bit patterns of `type` for one test: eight random ones (so
// each appears many times in a long row) and the special values.
std::vector<uint64_t> ValuePool(PrimitiveType type, std::mt19937_64& rng) {
  const int width = 8 * ByteWidth(type);
  const uint64_t all = width == 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
  std::vector<uint64_t> pool;
  if (type == PRED) return {0, 1};
  for (int i = 0; i < 8; ++i) pool.push_back(rng() & all);
  const uint64_t sign = uint64_t{1} << (width - 1);
  if (IsFloatingPointType(type)) {
    const FloatBits f = BitsOf(type);
    const uint64_t inf = ((uint64_t{1} << f.exponent) - 1) << f.mantissa;
    const uint64_t quiet = uint64_t{1} << (f.mantissa - 1);
    for (uint64_t s : {uint64_t{0}, sign}) {
      pool.push_back(s);                    // +-0
      pool.push_back(s | inf);              // +-inf
      pool.push_back(s | inf | quiet);      // +-NaN
      pool.push_back(s | inf | quiet | 1);  // +-NaN, another payload
    }
  } else {
    pool.push_back(0);
    pool.push_back(1);
    pool.push_back(all);   // -1, or the unsigned maximum
    pool.push_back(sign);  // the signed minimum
    pool.push_back(sign - 1);
  }
  return pool;
}

void CheckTopK(PrimitiveType type, int64_t rows, int64_t length, int64_t k,
               bool largest, uint64_t seed) {
  const std::string name(PrimitiveTypeName(type));
  const std::string text =
      absl::StrCat("HloModule topk\n\nENTRY main {\n  x = ", name, "[", rows,
                   ",", length, "] parameter(0)\n  ROOT t = (", name, "[", rows,
                   ",", k, "], s32[", rows, ",", k, "]) topk(x), k=", k,
                   ", largest=", largest ? "true" : "false", "\n}\n");
  SCOPED_TRACE(text);
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseHloModule(text, "test");
  ASSERT_TRUE(module.ok()) << module.status();
  std::mt19937_64 rng(seed);
  const std::vector<uint64_t> pool = ValuePool(type, rng);
  const int64_t width = ByteWidth(type);
  Literal input(Shape::Array(type, {rows, length}));
  for (int64_t i = 0; i < rows * length; ++i) {
    const uint64_t bits = pool[rng() % pool.size()];
    std::memcpy(input.untyped_data() + i * width, &bits, width);  // LE
  }
  std::vector<Literal> args;
  args.push_back(input);
  absl::StatusOr<Literal> expected = EvaluateModule(**module, args);
  ASSERT_TRUE(expected.ok()) << expected.status();

  std::vector<uint8_t> values(rows * k * width);
  std::vector<int32_t> indices(rows * k);
  ASSERT_TRUE(RunTopK(type, input.untyped_data(), rows, length, k, largest,
                      values.data(), indices.data())
                  .ok());
  const Literal& want_values = expected->tuple_elements()[0];
  const Literal& want_indices = expected->tuple_elements()[1];
  EXPECT_EQ(
      std::memcmp(values.data(), want_values.untyped_data(), values.size()), 0);
  EXPECT_EQ(std::memcmp(indices.data(), want_indices.untyped_data(),
                        indices.size() * sizeof(int32_t)),
            0);
}

TEST(CpuTopKTest, MatchesTheEvaluatorBitForBit) {
  uint64_t seed = 1;
  for (PrimitiveType type :
       {PRED, S8, S16, S32, S64, U8, U16, U32, U64, F16, BF16, F32, F64}) {
    ASSERT_TRUE(CpuTopKSupportsType(type)) << PrimitiveTypeName(type);
    for (bool largest : {true, false}) {
      for (int64_t length : {1, 7, 1000, 32768}) {
        const int64_t rows = length == 32768 ? 2 : 5;
        for (int64_t k : {int64_t{1}, int64_t{5}, int64_t{64}, length}) {
          if (k > length) continue;
          CheckTopK(type, rows, length, k, largest, seed++);
        }
      }
    }
  }
}

// Many rows run in parallel, each into its own part of the results.
TEST(CpuTopKTest, ParallelRowsMatchTheEvaluator) {
  CheckTopK(F32, 300, 500, 8, true, 7);
  CheckTopK(BF16, 64, 4096, 64, false, 8);
}

TEST(CpuTopKTest, RejectsComplexAndBadK) {
  EXPECT_FALSE(CpuTopKSupportsType(C64));
  float x = 0;
  float v = 0;
  int32_t i = 0;
  EXPECT_FALSE(RunTopK(C64, reinterpret_cast<uint8_t*>(&x), 1, 1, 1, true,
                       reinterpret_cast<uint8_t*>(&v), &i)
                   .ok());
  EXPECT_FALSE(RunTopK(F32, reinterpret_cast<uint8_t*>(&x), 1, 1, 2, true,
                       reinterpret_cast<uint8_t*>(&v), &i)
                   .ok());
}

}  // namespace
}  // namespace hloc
