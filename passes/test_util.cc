#include "passes/test_util.h"

#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "hlo/computation.h"
#include "hlo/evaluator/evaluator.h"
#include "hlo/text/parser.h"
#include "hlo/text/printer.h"
#include "hlo/verifier.h"

namespace hloc {

absl::StatusOr<std::unique_ptr<HloModule>> ParseAndVerify(
    absl::string_view text) {
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseHloModule(text, "test");
  if (!module.ok()) return module.status();
  absl::Status status = VerifyModule(**module);
  if (!status.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("test module does not verify: ", status.message()));
  }
  return module;
}

absl::StatusOr<bool> RunAndVerify(HloPass& pass, HloModule* module) {
  absl::StatusOr<bool> changed = pass.Run(module);
  if (!changed.ok()) return changed.status();
  absl::Status status = VerifyModule(*module);
  if (!status.ok()) {
    return absl::InternalError(absl::StrCat("module invalid after ",
                                            pass.name(), ": ", status.message(),
                                            "\n", ModuleText(*module)));
  }
  return changed;
}

HloInstruction* FindInstruction(const HloModule& module,
                                absl::string_view name) {
  for (HloComputation* computation : module.computations()) {
    if (HloInstruction* found = computation->GetInstructionWithName(name)) {
      return found;
    }
  }
  return nullptr;
}

std::string ModuleText(const HloModule& module) { return PrintModule(module); }

Literal MakeUniformInput(const Shape& shape, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(shape.ElementCount());
  for (float& x : v) x = dist(rng);
  return Literal::FromVector<float>(shape, v);
}

int64_t CountOpcode(const HloModule& module, HloOpcode opcode) {
  int64_t n = 0;
  for (const HloComputation* c : module.computations()) {
    for (const HloInstruction* instr : c->instructions()) {
      n += instr->opcode() == opcode;
    }
  }
  return n;
}

namespace {

// f32 bit patterns: few distinct values (ties everywhere), both zeros, and
// rarely an infinity or a NaN of either sign (two payloads), so that a top
// 64 holds NaNs, infinities and ties of ordinary values.
uint32_t RandomF32Bits(std::mt19937& rng) {
  static constexpr uint32_t kSpecial[] = {0x7FC00000u, 0xFFC00000u,
                                          0x7FC00001u, 0xFFC00001u,
                                          0x7F800000u, 0xFF800000u};
  static constexpr float kOrdinary[] = {-2.0f, -1.5f, -1.0f, -0.5f, 0.0f,
                                        -0.0f, 0.5f,  1.0f,  1.5f,  2.0f};
  if (rng() % 500 == 0) return kSpecial[rng() % 6];
  uint32_t bits;
  const float v = kOrdinary[rng() % 10];
  std::memcpy(&bits, &v, 4);
  return bits;
}

}  // namespace

Literal MakeTiedInput(const Shape& shape, uint32_t seed) {
  std::mt19937 rng(seed);
  Literal input(shape);
  uint8_t* p = input.untyped_data();
  const int64_t n = shape.ElementCount();
  for (int64_t i = 0; i < n; ++i) {
    switch (shape.element_type()) {
      case F32: {
        const uint32_t bits = RandomF32Bits(rng);
        std::memcpy(p + 4 * i, &bits, 4);
        break;
      }
      case BF16: {  // The high half of an f32: the same values.
        const uint16_t bits = RandomF32Bits(rng) >> 16;
        std::memcpy(p + 2 * i, &bits, 2);
        break;
      }
      case S32: {
        const int32_t v = static_cast<int32_t>(rng() % 9) - 4;
        std::memcpy(p + 4 * i, &v, 4);
        break;
      }
      default:  // u8 and other bytes
        p[i] = static_cast<uint8_t>(rng() % 7);
        break;
    }
  }
  return input;
}

std::optional<bool> ExpectSameResultsAfterPass(
    HloPass& pass, HloModule* module, const std::vector<Literal>& inputs,
    const Tolerance& tolerance) {
  absl::StatusOr<Literal> want = EvaluateModule(*module, inputs);
  if (!want.ok()) {
    ADD_FAILURE() << want.status();
    return std::nullopt;
  }
  absl::StatusOr<bool> changed = RunAndVerify(pass, module);
  if (!changed.ok()) {
    ADD_FAILURE() << changed.status();
    return std::nullopt;
  }
  absl::StatusOr<Literal> got = EvaluateModule(*module, inputs);
  if (!got.ok()) {
    ADD_FAILURE() << got.status();
    return std::nullopt;
  }
  const ComparisonResult result = CompareLiterals(*got, *want, tolerance);
  EXPECT_TRUE(result.ok()) << "max abs error " << result.max_abs_error << " ("
                           << tolerance.ToString() << ")\n"
                           << ModuleText(*module);
  return *changed;
}

std::unique_ptr<HloModule> CheckCopyingPass(HloPass& pass,
                                            absl::string_view text,
                                            int64_t copies, bool changes) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseAndVerify(text);
  if (!module.ok()) {
    ADD_FAILURE() << module.status();
    return nullptr;
  }
  std::vector<Literal> args;
  for (const HloInstruction* p :
       (*module)->entry_computation()->parameter_instructions()) {
    args.push_back(MakeTiedInput(p->shape(), 7 + p->parameter_number()));
  }
  absl::StatusOr<Literal> want = EvaluateModule(**module, args);
  if (!want.ok()) {
    ADD_FAILURE() << want.status();
    return nullptr;
  }

  const int64_t before = CountOpcode(**module, HloOpcode::kCopy);
  absl::StatusOr<bool> changed = RunAndVerify(pass, module->get());
  if (!changed.ok()) {
    ADD_FAILURE() << changed.status();
    return nullptr;
  }
  EXPECT_EQ(*changed, changes);
  EXPECT_EQ(CountOpcode(**module, HloOpcode::kCopy) - before, copies)
      << ModuleText(**module);

  absl::StatusOr<Literal> got = EvaluateModule(**module, args);
  if (!got.ok()) {
    ADD_FAILURE() << got.status();
    return nullptr;
  }
  EXPECT_TRUE(*got == *want) << ModuleText(**module);
  return std::move(*module);
}

}  // namespace hloc
