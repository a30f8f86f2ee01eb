// Test helpers for the op emitters (dot, convolution, sort, scatter,
// control flow): run an HLO module on the CPU backend and in the reference
// evaluator and compare, with the runtime's default tolerances for
// accumulating ops; report evaluator fallbacks.
#ifndef BACKENDS_CPU_OP_TEST_UTIL_H_
#define BACKENDS_CPU_OP_TEST_UTIL_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/cpu/cpu_compiler.h"
#include "gtest/gtest.h"
#include "hlo/evaluator/evaluator.h"
#include "hlo/text/parser.h"
#include "passes/pipelines.h"
#include "runtime/compare.h"

namespace hloc {
namespace testing_util {

// Deterministic inputs: floats uniform in [-2, 2], integers in [-50, 50]
// (unsigned: [0, 100]), predicates random.
inline Literal MakeOpInput(const Shape& shape, uint32_t seed) {
  if (shape.IsTuple()) {
    std::vector<Literal> elements;
    for (const Shape& s : shape.tuple_shapes()) {
      elements.push_back(MakeOpInput(s, seed++));
    }
    return Literal::MakeTuple(std::move(elements));
  }
  Literal literal(shape);
  std::mt19937 rng(seed);
  const PrimitiveType t = shape.element_type();
  for (int64_t i = 0; i < shape.ElementCount(); ++i) {
    if (IsFloatingPointType(t)) {
      literal.SetFromDouble(
          i, std::uniform_real_distribution<double>(-2.0, 2.0)(rng));
    } else if (t == PRED) {
      literal.SetFromInt64(i, rng() & 1);
    } else {
      int64_t v = static_cast<int64_t>(rng() % 101);
      literal.SetFromInt64(i, IsSignedIntegralType(t) ? v - 50 : v);
    }
  }
  return literal;
}

inline void CompareLeaves(const Literal& expected, const Literal& actual,
                          const std::string& what) {
  if (expected.shape().IsTuple()) {
    ASSERT_TRUE(actual.shape().IsTuple()) << what;
    ASSERT_EQ(expected.tuple_elements().size(), actual.tuple_elements().size());
    for (size_t i = 0; i < expected.tuple_elements().size(); ++i) {
      CompareLeaves(expected.tuple_elements()[i], actual.tuple_elements()[i],
                    absl::StrCat(what, "{", i, "}"));
    }
    return;
  }
  // Long sums cancel: an element's rounding error scales with the sizes of
  // the terms, not with the element, so allow a little of the largest
  // result everywhere.
  Tolerance tol = DefaultTolerance(expected.element_type(), true);
  if (IsFloatingPointType(expected.element_type())) {
    double largest = 0;
    for (int64_t i = 0; i < expected.element_count(); ++i) {
      double v = std::fabs(expected.GetAsDouble(i));
      if (std::isfinite(v)) largest = std::max(largest, v);
    }
    tol.atol += 0.01 * tol.rtol * largest;
  }
  ComparisonResult c = CompareLiterals(actual, expected, tol);
  std::string mismatches;
  for (const ElementMismatch& m : c.first_mismatches) {
    absl::StrAppend(&mismatches, "\n  ", m.ToString());
  }
  EXPECT_TRUE(c.ok()) << what << ": " << c.shape_message << c.mismatch_count
                      << " of " << c.element_count << " mismatch ("
                      << tol.ToString() << ")" << mismatches;
}

// Runs `text` on the CPU and in the evaluator (on `args`, or generated
// inputs) and compares. Returns the names of evaluator fallbacks.
inline std::vector<std::string> CheckAgainstEvaluator(
    const std::string& text, std::vector<Literal> args = {},
    const CpuCompileOptions& options = {}) {
  auto module = ParseHloModule(text, "test");
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return {"<parse error>"};
  const HloComputation* entry = (*module)->entry_computation();
  if (args.empty()) {
    for (int64_t i = 0; i < entry->num_parameters(); ++i) {
      args.push_back(
          MakeOpInput(entry->parameter_instruction(i)->shape(), 7 + 13 * i));
    }
  }
  absl::StatusOr<Literal> expected = EvaluateModule(**module, args);
  EXPECT_TRUE(expected.ok()) << expected.status();
  auto executable = CompileForCpu(**module, options);
  EXPECT_TRUE(executable.ok()) << executable.status();
  if (!expected.ok() || !executable.ok()) return {"<error>"};
  // The evaluator is IEEE: the kernels keep denormals too, so the test
  // checks the generated code, not the runtime's flushing.
  absl::StatusOr<Literal> actual =
      (*executable)->Run(args, DenormalMode::kKeep);
  EXPECT_TRUE(actual.ok()) << actual.status();
  if (!actual.ok()) return {"<error>"};
  CompareLeaves(*expected, *actual, (*module)->name());
  return (*executable)->fallback_instructions();
}

// Runs `text` through the cpu pipeline, compiles it strictly (nothing may
// run in the evaluator) and runs it on `args`; for ops the pipeline
// rewrites into others (rng-bit-generator) or leaves to a library call
// (topk).
inline absl::StatusOr<Literal> RunOptimizedStrict(
    const std::string& text, absl::Span<const Literal> args) {
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseHloModule(text, "test");
  if (!module.ok()) return module.status();
  absl::StatusOr<HloPassPipeline> pipeline =
      MakePipeline("cpu", PipelineOptions{});
  if (!pipeline.ok()) return pipeline.status();
  if (absl::StatusOr<bool> changed = pipeline->Run(module->get());
      !changed.ok()) {
    return changed.status();
  }
  CpuCompileOptions options;
  options.allow_fallback = false;
  absl::StatusOr<std::unique_ptr<CpuExecutable>> executable =
      CompileForCpu(**module, options);
  if (!executable.ok()) return executable.status();
  return (*executable)->Run(args, DenormalMode::kKeep);
}

}  // namespace testing_util
}  // namespace hloc

#endif  // BACKENDS_CPU_OP_TEST_UTIL_H_
