#include "fuzz/differential/differential_check.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "backends/cpu/cpu_compiler.h"
#include "fuzz/differential/module_generator.h"
#include "hlo/evaluator/evaluator.h"
#include "hlo/text/parser.h"
#include "hlo/verifier.h"
#include "passes/pipelines.h"
#include "runtime/compare.h"

namespace hloc {
namespace fuzz {
namespace {

Literal MakeArrayInput(const Shape& shape, bool small, std::mt19937_64& rng) {
  Literal literal(shape);
  const PrimitiveType t = shape.element_type();
  auto below = [&](int n) { return static_cast<int>(rng() % n); };
  for (int64_t i = 0; i < shape.ElementCount(); ++i) {
    if (t == PRED) {
      literal.SetFromInt64(i, below(2));
    } else if (t == S32) {
      static const int64_t kEdges[] = {std::numeric_limits<int32_t>::min(),
                                       std::numeric_limits<int32_t>::max(), 0};
      literal.SetFromInt64(i, below(16) == 0 ? kEdges[below(3)]
                                             : below(101) - 50);
    } else if (!small && below(16) == 0) {
      static const double kSpecial[] = {
          std::numeric_limits<double>::quiet_NaN(),
          std::numeric_limits<double>::infinity(),
          -std::numeric_limits<double>::infinity()};
      literal.SetFromDouble(i, kSpecial[below(3)]);
    } else {
      literal.SetFromDouble(i, small ? below(5) - 2 : (below(33) - 16) / 4.0);
    }
  }
  return literal;
}

std::string Describe(const ComparisonResult& c) {
  std::string out = c.shape_message;
  absl::StrAppend(&out, c.mismatch_count, " of ", c.element_count,
                  " elements differ");
  for (const ElementMismatch& m : c.first_mismatches) {
    absl::StrAppend(&out, "\n  ", m.ToString());
  }
  return out;
}

}  // namespace

Literal MakeDifferentialInput(const HloInstruction& parameter, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const bool small = absl::StartsWith(parameter.name(), kSmallPrefix);
  return MakeArrayInput(parameter.shape(), small, rng);
}

std::vector<Literal> MakeDifferentialInputs(const HloComputation& entry,
                                            uint64_t input_seed) {
  std::vector<Literal> args;
  for (int64_t i = 0; i < entry.num_parameters(); ++i) {
    args.push_back(MakeDifferentialInput(*entry.parameter_instruction(i),
                                         input_seed + 7919 * i));
  }
  return args;
}

absl::Status CheckModule(const std::string& text, uint64_t input_seed) {
  auto fail = [&](auto&&... parts) {
    return absl::InternalError(absl::StrCat(parts..., "\n", text));
  };
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseHloModule(text, "generated");
  if (!module.ok()) return fail("does not parse: ", module.status().message());
  if (absl::Status s = VerifyModule(**module); !s.ok()) {
    return fail("does not verify: ", s.message());
  }
  std::vector<Literal> args =
      MakeDifferentialInputs(*(*module)->entry_computation(), input_seed);
  absl::StatusOr<Literal> expected = EvaluateModule(**module, args);
  if (!expected.ok()) {
    return fail("the evaluator fails: ", expected.status().message());
  }

  std::unique_ptr<HloModule> optimized = (*module)->Clone();
  PipelineOptions pipeline_options;
  pipeline_options.verify = true;
  pipeline_options.allow_excess_precision = false;
  absl::StatusOr<HloPassPipeline> pipeline =
      MakePipeline("cpu", pipeline_options);
  if (!pipeline.ok()) return pipeline.status();
  if (absl::StatusOr<bool> changed = pipeline->Run(optimized.get());
      !changed.ok()) {
    return fail("the cpu pipeline fails: ", changed.status().message());
  }
  CpuCompileOptions compile_options;
  compile_options.log_fallbacks = false;
  // Exact agreement needs each multiply and add rounded as the evaluator
  // rounds it, not fused (jit.h contract_multiply_add).
  compile_options.jit.contract_multiply_add = false;
  auto executable = CompileForCpu(*optimized, compile_options);
  if (!executable.ok()) {
    return fail("the cpu backend cannot compile it: ",
                executable.status().message());
  }
  absl::StatusOr<Literal> actual = (*executable)->Run(args, DenormalMode::kKeep);
  if (!actual.ok()) return fail("the cpu run fails: ", actual.status().message());

  const ComparisonResult c = CompareLiterals(*actual, *expected, Tolerance{});
  if (c.ok()) return absl::OkStatus();
  // Whose fault: the evaluator on the optimized module tells the passes'
  // changes from code generation's.
  std::string culprit = "code generation (the optimized module evaluates "
                        "to the expected result)";
  absl::StatusOr<Literal> reevaluated = EvaluateModule(*optimized, args);
  if (!reevaluated.ok() ||
      !CompareLiterals(*reevaluated, *expected, Tolerance{}).ok()) {
    culprit = "the cpu pipeline (the optimized module evaluates differently)";
  }
  return fail("cpu and evaluator differ (input seed ", input_seed, "; ",
              culprit, "): ", Describe(c));
}

std::optional<std::string> ForExactTarget(const std::string& text) {
  std::vector<std::string> lines = absl::StrSplit(text, '\n');
  for (std::string& line : lines) {
    const bool float_result = absl::StrContains(line, "= f32[") ||
                              absl::StrContains(line, "= f16[") ||
                              absl::StrContains(line, "= bf16[");
    if (float_result && absl::StrContains(line, " divide(")) {
      return std::nullopt;
    }
    if (absl::StrContains(line, " dot(")) {
      absl::StrAppend(&line, ", operand_precision={highest,highest}");
    }
  }
  return absl::StrJoin(lines, "\n");
}

}  // namespace fuzz
}  // namespace hloc
