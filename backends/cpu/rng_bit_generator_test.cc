// rng-bit-generator compiled on the CPU (the cpu pipeline's
// rng-bit-generator-expander, then ordinary loops) gives the evaluator's
// bits exactly, XLA's: ThreeFry, Philox with two- and three-word states and
// the default algorithm, 8- to 64-bit integer and float outputs, scalars,
// odd shapes, long outputs, and counters about to wrap. Compiled strictly:
// nothing may run in the evaluator.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/cpu/op_test_util.h"
#include "gtest/gtest.h"

namespace hloc {
namespace {

struct Algorithm {
  std::string name;
  int64_t words;
};

void CheckBits(const std::string& text, std::vector<uint64_t> words) {
  auto module = ParseHloModule(text, "test");
  ASSERT_TRUE(module.ok()) << module.status();
  std::vector<Literal> args;
  args.push_back(
      Literal::CreateR1<uint64_t>(U64, absl::Span<const uint64_t>(words)));
  absl::StatusOr<Literal> expected = EvaluateModule(**module, args);
  ASSERT_TRUE(expected.ok()) << expected.status();
  absl::StatusOr<Literal> actual = testing_util::RunOptimizedStrict(text, args);
  ASSERT_TRUE(actual.ok()) << actual.status();
  EXPECT_TRUE(*actual == *expected);
}

TEST(RngBitGeneratorTest, CompiledBitsMatchTheEvaluator) {
  const std::vector<std::string> shapes = {
      "u32[3,5]",   "u64[7]",   "u16[2,3,1]", "u32[]",   "u8[5,3]", "s32[1000]",
      "u32[257,3]", "s64[2,3]", "f32[4,6]",   "bf16[9]", "u8[0,2]"};
  const std::vector<std::vector<uint64_t>> states = {
      {0x0123456789ABCDEFull, 42, 7},
      {5, 0xFFFFFFFFFFFFFFFEull, 0xFFFFFFFFFFFFFFFFull}};
  for (const Algorithm& a :
       {Algorithm{"rng_three_fry", 2}, Algorithm{"rng_philox", 2},
        Algorithm{"rng_philox", 3}, Algorithm{"rng_default", 2}}) {
    for (const std::string& bits : shapes) {
      const std::string state = absl::StrCat("u64[", a.words, "]");
      const std::string text =
          absl::StrCat("HloModule rbg\n\nENTRY main {\n  s = ", state,
                       " parameter(0)\n  ROOT r = (", state, ", ", bits,
                       ") rng-bit-generator(s), algorithm=", a.name, "\n}\n");
      for (std::vector<uint64_t> words : states) {
        words.resize(a.words);
        SCOPED_TRACE(absl::StrCat(a.name, " u64[", a.words, "] ", bits,
                                  " state[1]=", words[1]));
        CheckBits(text, words);
      }
    }
  }
}

}  // namespace
}  // namespace hloc
