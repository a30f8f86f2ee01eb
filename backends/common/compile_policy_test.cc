// The compilers' shared answers to what they cannot compile: custom calls
// refused by target (anywhere in the module), and the evaluator-fallback
// policy (one warning line per instruction, or one error listing all).
#include <string>

#include "absl/status/status.h"
#include "backends/common/custom_call_support.h"
#include "backends/common/evaluator_fallback.h"
#include "gtest/gtest.h"
#include "hlo/computation.h"
#include "hlo/text/parser.h"

namespace hloc {
namespace {

constexpr char kCustomCalls[] = R"(
HloModule custom_calls

cond {
  c = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(c), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}

body {
  b = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(b), index=0
  one = s32[] constant(1)
  next = s32[] add(i, one)
  v = f32[4] get-tuple-element(b), index=1
  k = f32[4] custom-call(v), custom_call_target="inner_kernel"
  ROOT t = (s32[], f32[4]) tuple(next, k)
}

ENTRY main {
  x = f32[4] parameter(0)
  known = f32[4] custom-call(x), custom_call_target="known_kernel"
  zero = s32[] constant(0)
  init = (s32[], f32[4]) tuple(zero, known)
  w = (s32[], f32[4]) while(init), condition=cond, body=body
  ROOT unknown = f32[4] custom-call(known), custom_call_target="lapack_spotrf_ffi"
}
)";

TEST(CustomCallSupportTest, EveryUnsupportedCallIsNamedWithItsTarget) {
  auto module = ParseHloModule(kCustomCalls, "custom_calls");
  ASSERT_TRUE(module.ok()) << module.status();
  absl::Status status = CheckCustomCallTargets(
      **module,
      [](absl::string_view target) { return target == "known_kernel"; },
      "cpu");
  EXPECT_TRUE(absl::IsUnimplemented(status)) << status;
  EXPECT_EQ(status.message(),
            "the cpu backend cannot compile:\n"
            "  k (custom-call): custom_call_target=\"inner_kernel\" has no "
            "cpu implementation\n"
            "  unknown (custom-call): custom_call_target=\"lapack_spotrf_ffi\" "
            "has no cpu implementation");
}

TEST(CustomCallSupportTest, SupportedTargetsPass) {
  auto module = ParseHloModule(kCustomCalls, "custom_calls");
  ASSERT_TRUE(module.ok()) << module.status();
  absl::Status status = CheckCustomCallTargets(
      **module, [](absl::string_view) { return true; }, "cpu");
  EXPECT_TRUE(status.ok()) << status;
}

constexpr char kTwoOps[] = R"(
HloModule two
ENTRY main {
  r = u32[] replica-id()
  ROOT i = u32[] partition-id()
}
)";

TEST(EvaluatorFallbackTest, StrictListsEveryInstructionAndWarnsNothing) {
  auto module = ParseHloModule(kTwoOps, "two");
  ASSERT_TRUE(module.ok()) << module.status();
  const HloComputation* entry = (*module)->entry_computation();
  FallbackReport report("cpu", "runs in the evaluator",
                        FallbackPolicy{/*allow=*/false, /*warn=*/true});
  testing::internal::CaptureStderr();
  report.Add(*entry->GetInstructionWithName("r"), "no code\n  for this op");
  report.Add(*entry->GetInstructionWithName("i"), "no code either");
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  absl::Status status = report.Check();
  EXPECT_TRUE(absl::IsUnimplemented(status)) << status;
  EXPECT_EQ(status.message(),
            "cpu strict mode (--no-fallback): 2 instructions would need the "
            "reference evaluator:\n"
            "  r (replica-id): no code; for this op\n"
            "  i (partition-id): no code either");
}

TEST(EvaluatorFallbackTest, AllowedWarnsOneLinePerInstruction) {
  auto module = ParseHloModule(kTwoOps, "two");
  ASSERT_TRUE(module.ok()) << module.status();
  const HloComputation* entry = (*module)->entry_computation();
  FallbackReport report("cpu", "runs in the evaluator", FallbackPolicy{});
  testing::internal::CaptureStderr();
  report.Add(*entry->GetInstructionWithName("r"), "no code\nfor this op");
  report.Add(*entry->GetInstructionWithName("i"), "no code either");
  EXPECT_EQ(testing::internal::GetCapturedStderr(),
            "hloc cpu: r (replica-id) runs in the evaluator: no code; for "
            "this op\n"
            "hloc cpu: i (partition-id) runs in the evaluator: no code "
            "either\n");
  EXPECT_TRUE(report.Check().ok());
  EXPECT_EQ(report.entries().size(), 2u);
}

TEST(EvaluatorFallbackTest, NothingAddedIsFineWhenStrict) {
  FallbackReport report("aarch64 AOT", "has no generated code",
                        FallbackPolicy{/*allow=*/false, /*warn=*/true});
  EXPECT_TRUE(report.Check().ok());
}

}  // namespace
}  // namespace hloc
