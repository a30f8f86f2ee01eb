// rng-bit-generator in the evaluator: the algorithms' published known-answer
// vectors (Random123's kat_vectors for threefry2x32_20 and philox4x32_10),
// the state updates, and the errors for states of the wrong size. The JAX
// live test checks the bits of every algorithm and width against XLA:CPU.
#include <cstdint>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "hlo/evaluator/test_util.h"

namespace hloc {
namespace {

using eval_test::MustRun;
using eval_test::RunHlo;
using eval_test::Values;
using eval_test::Vec;

constexpr char kThreeFry[] = R"(
HloModule m
ENTRY e {
  s = u64[2] parameter(0)
  ROOT r = (u64[2], u64[1]) rng-bit-generator(s), algorithm=rng_three_fry
}
)";

TEST(RngBitGeneratorTest, ThreeFryKnownAnswers) {
  // Key (0, 0) and counter (0, 0); and key, counter all ones.
  Literal zero = MustRun(kThreeFry, {Vec<uint64_t>(U64, {0, 0})});
  ASSERT_EQ(zero.tuple_elements().size(), 2u);
  EXPECT_EQ(Values<uint64_t>(zero.tuple_elements()[1]),
            std::vector<uint64_t>{0x99ba4efe6b200159ull});
  EXPECT_EQ(Values<uint64_t>(zero.tuple_elements()[0]),
            (std::vector<uint64_t>{0, 1}));
  Literal ones = MustRun(kThreeFry, {Vec<uint64_t>(U64, {~0ull, ~0ull})});
  EXPECT_EQ(Values<uint64_t>(ones.tuple_elements()[1]),
            std::vector<uint64_t>{0xbb002be71cb996fcull});
}

TEST(RngBitGeneratorTest, PhiloxKnownAnswer) {
  // Key 0 and the 128-bit counter 0: state [key, counter low, counter high].
  Literal r = MustRun(R"(
HloModule m
ENTRY e {
  s = u64[3] parameter(0)
  ROOT r = (u64[3], u32[4]) rng-bit-generator(s), algorithm=rng_philox
}
)",
                      {Vec<uint64_t>(U64, {0, 0, 0})});
  EXPECT_EQ(Values<uint32_t>(r.tuple_elements()[1]),
            (std::vector<uint32_t>{0x6627e8d5, 0xe169c58d, 0xbc57ac4c,
                                   0x9b00dbd8}));
  EXPECT_EQ(Values<uint64_t>(r.tuple_elements()[0]),
            (std::vector<uint64_t>{0, 1, 0}));
}

TEST(RngBitGeneratorTest, PhiloxCounterCarriesIntoHighWord) {
  Literal r = MustRun(R"(
HloModule m
ENTRY e {
  s = u64[3] parameter(0)
  ROOT r = (u64[3], u64[5]) rng-bit-generator(s), algorithm=rng_philox
}
)",
                      {Vec<uint64_t>(U64, {7, ~0ull - 1, 4})});
  // Five u64 values use three blocks of two.
  EXPECT_EQ(Values<uint64_t>(r.tuple_elements()[0]),
            (std::vector<uint64_t>{7, 1, 5}));
}

TEST(RngBitGeneratorTest, DefaultIsPhiloxWithTwoWordState) {
  const char* hlo = R"(
HloModule m
ENTRY e {
  s = u64[2] parameter(0)
  ROOT r = (u64[2], u32[3,5]) rng-bit-generator(s), algorithm=%s
}
)";
  auto run = [&](const char* algorithm) {
    std::string text = hlo;
    text.replace(text.find("%s"), 2, algorithm);
    return MustRun(text, {Vec<uint64_t>(U64, {123, 456})});
  };
  Literal by_default = run("rng_default");
  Literal philox = run("rng_philox");
  EXPECT_EQ(Values<uint32_t>(by_default.tuple_elements()[1]),
            Values<uint32_t>(philox.tuple_elements()[1]));
  // 15 words use four blocks; the key stays.
  EXPECT_EQ(Values<uint64_t>(philox.tuple_elements()[0]),
            (std::vector<uint64_t>{123, 460}));
}

TEST(RngBitGeneratorTest, BadStatesAreErrors) {
  absl::StatusOr<Literal> r = RunHlo(R"(
HloModule m
ENTRY e {
  s = u64[3] parameter(0)
  ROOT r = (u64[3], u32[4]) rng-bit-generator(s), algorithm=rng_three_fry
}
)",
                                     {Vec<uint64_t>(U64, {1, 2, 3})});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("u64[2]"), std::string::npos)
      << r.status();
}

}  // namespace
}  // namespace hloc
