// rng-bit-generator-expander keeps the bits: the reference evaluator's
// rng-bit-generator (XLA's bits) and the expanded HLO give the same state
// and the same bits, byte for byte, for every algorithm, two- and
// three-word Philox states, 8- to 64-bit integer and float outputs (floats
// carry the bits, NaN patterns included), scalars, odd and even shapes
// (ThreeFry's halving), empty outputs, and counters about to wrap. A state
// of the wrong length is an error naming the instruction.
#include "passes/rng_bit_generator_expander.h"

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "hlo/computation.h"
#include "hlo/evaluator/evaluator.h"
#include "hlo/text/parser.h"
#include "passes/test_util.h"

namespace hloc {
namespace {

struct Case {
  std::string algorithm;  // rng_default, rng_three_fry, rng_philox
  int64_t state_words;
  std::string bits;  // "u32[3,5]"
};

std::string Name(const Case& c) {
  std::string bits = c.bits;
  for (char& ch : bits) {
    if (ch == '[' || ch == ']' || ch == ',') ch = '_';
  }
  return absl::StrCat(c.algorithm, "_", c.state_words, "_", bits);
}

std::string ModuleFor(const Case& c) {
  const std::string state = absl::StrCat("u64[", c.state_words, "]");
  return absl::StrCat("HloModule rbg\n\nENTRY main {\n  s = ", state,
                      " parameter(0)\n  ROOT r = (", state, ", ", c.bits,
                      ") rng-bit-generator(s), algorithm=", c.algorithm,
                      "\n}\n");
}

class RngBitGeneratorExpanderTest : public testing::TestWithParam<Case> {};

TEST_P(RngBitGeneratorExpanderTest, SameStateAndBitsAsTheEvaluator) {
  const Case& c = GetParam();
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseAndVerify(ModuleFor(c));
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<std::unique_ptr<HloModule>> expanded =
      ParseAndVerify(ModuleFor(c));
  ASSERT_TRUE(expanded.ok()) << expanded.status();
  RngBitGeneratorExpander pass;
  absl::StatusOr<bool> changed = RunAndVerify(pass, expanded->get());
  ASSERT_TRUE(changed.ok()) << changed.status();
  ASSERT_TRUE(*changed);
  for (const HloInstruction* instr :
       (*expanded)->entry_computation()->instructions()) {
    EXPECT_NE(instr->opcode(), HloOpcode::kRngBitGenerator);
  }
  // Ordinary states, and counters whose low word (and, for Philox, whose
  // 64-bit low half) wraps within the output.
  const std::vector<std::vector<uint64_t>> states = {
      {0x0123456789ABCDEFull, 42, 7},
      {0xFFFFFFFF00000001ull, 0xFFFFFFFFull - 3, 0},
      {5, 0xFFFFFFFFFFFFFFFEull, 0xFFFFFFFFFFFFFFFFull}};
  for (std::vector<uint64_t> words : states) {
    words.resize(c.state_words);
    std::vector<Literal> inputs;
    inputs.push_back(
        Literal::CreateR1<uint64_t>(U64, absl::Span<const uint64_t>(words)));
    absl::StatusOr<Literal> before = EvaluateModule(**module, inputs);
    ASSERT_TRUE(before.ok()) << before.status();
    absl::StatusOr<Literal> after = EvaluateModule(**expanded, inputs);
    ASSERT_TRUE(after.ok()) << after.status() << "\n" << ModuleText(**expanded);
    EXPECT_TRUE(*after == *before) << "state " << absl::StrJoin(words, ",");
  }
}

std::vector<Case> Cases() {
  std::vector<Case> cases;
  const std::vector<std::string> shapes = {
      "u32[3,5]", "u64[7]",     "u16[2,3,1]", "u32[]",     "u8[5,3]",
      "u64[]",    "s32[4]",     "f32[2,8]",   "bf16[3,3]", "f64[5]",
      "s8[9]",    "u32[3,3,5]", "u32[0,4]",   "u16[1025]", "s64[2,3]"};
  for (const std::string& bits : shapes) {
    cases.push_back({"rng_three_fry", 2, bits});
    cases.push_back({"rng_philox", 2, bits});
    cases.push_back({"rng_philox", 3, bits});
    cases.push_back({"rng_default", 2, bits});
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Algorithms, RngBitGeneratorExpanderTest,
                         testing::ValuesIn(Cases()),
                         [](const testing::TestParamInfo<Case>& info) {
                           return Name(info.param);
                         });

TEST(RngBitGeneratorExpanderErrorTest, WrongStateLengthNamesTheInstruction) {
  for (const Case& c :
       {Case{"rng_three_fry", 3, "u32[4]"}, Case{"rng_philox", 4, "u32[4]"}}) {
    absl::StatusOr<std::unique_ptr<HloModule>> module =
        ParseHloModule(ModuleFor(c), "test");
    ASSERT_TRUE(module.ok()) << module.status();
    RngBitGeneratorExpander pass;
    absl::StatusOr<bool> changed = pass.Run(module->get());
    ASSERT_FALSE(changed.ok()) << Name(c);
    EXPECT_NE(changed.status().message().find("rng-bit-generator r:"),
              std::string::npos)
        << changed.status();
    EXPECT_NE(changed.status().message().find(
                  absl::StrCat("got u64[", c.state_words, "]")),
              std::string::npos)
        << changed.status();
  }
}

}  // namespace
}  // namespace hloc
