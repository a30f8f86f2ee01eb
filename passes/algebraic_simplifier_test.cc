// The algebraic simplifier's rule table against its lit tests
// (tests/lit/passes/algebraic_simplifier/<rule>.hlo): every rule has one, the
// rule fires on it, and the rewritten module computes what the original did
// on random inputs sprinkled with NaN, infinities and signed zeros.
#include "passes/simplifier/algebraic_simplifier.h"

#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>

#include "gtest/gtest.h"
#include "hlo/evaluator/evaluator.h"
#include "passes/simplifier/rules.h"
#include "passes/test_util.h"
#include "runtime/compare.h"

namespace hloc {
namespace {

constexpr char kLitDir[] = "tests/lit/passes/algebraic_simplifier/";

std::string ReadFile(const std::string& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

std::set<std::string> RuleNames() {
  std::set<std::string> names;
  for (const SimplifierRule& rule : AllSimplifierRules()) {
    names.insert(rule.name);
  }
  return names;
}

AlgebraicSimplifierOptions OptionsFor(const std::string& test_text) {
  AlgebraicSimplifierOptions options;
  options.enable_bitcasts =
      test_text.find("--passes=algebraic-simplifier-bitcasts") !=
      std::string::npos;
  return options;
}

TEST(AlgebraicSimplifierTest, RuleNamesAreKebabCaseAndNameOneFunction) {
  std::map<std::string, RuleFn> functions;
  for (const SimplifierRule& rule : AllSimplifierRules()) {
    for (char c : std::string(rule.name)) {
      EXPECT_TRUE((c >= 'a' && c <= 'z') || c == '-') << rule.name;
    }
    auto [it, inserted] = functions.emplace(rule.name, rule.rewrite);
    EXPECT_EQ(it->second, rule.rewrite) << rule.name << " names two rules";
  }
}

TEST(AlgebraicSimplifierTest, EveryRuleFiresOnItsLitTest) {
  for (const std::string& name : RuleNames()) {
    SCOPED_TRACE(name);
    std::string text = ReadFile(kLitDir + name + ".hlo");
    ASSERT_FALSE(text.empty()) << "no lit test " << kLitDir << name << ".hlo";
    auto module = ParseAndVerify(text);
    ASSERT_TRUE(module.ok()) << module.status();
    AlgebraicSimplifier simplifier(OptionsFor(text));
    absl::StatusOr<bool> changed = RunAndVerify(simplifier, module->get());
    ASSERT_TRUE(changed.ok()) << changed.status();
    EXPECT_TRUE(*changed);
    auto it = simplifier.statistics().find(name);
    EXPECT_TRUE(it != simplifier.statistics().end() && it->second > 0)
        << "rule " << name << " did not fire";
    EXPECT_EQ(simplifier.statistics().count("round-limit-reached"), 0u);
  }
}

// Random values for a parameter; floats include NaN, +-inf and +-0.
Literal RandomLiteral(const Shape& shape, std::mt19937& rng) {
  Literal literal(shape);
  PrimitiveType type = shape.element_type();
  const double specials[] = {NAN, INFINITY, -INFINITY, 0.0, -0.0, 1.0};
  std::uniform_real_distribution<double> real(-4, 4);
  std::uniform_int_distribution<int64_t> integer(
      IsUnsignedIntegralType(type) ? 0 : -8, type == PRED ? 1 : 8);
  for (int64_t i = 0; i < literal.element_count(); ++i) {
    if (IsFloatingPointType(type) || IsComplexType(type)) {
      literal.SetFromDouble(i, i % 5 == 4 ? specials[(i / 5) % 6] : real(rng));
    } else {
      literal.SetFromInt64(i, integer(rng));
    }
  }
  return literal;
}

TEST(AlgebraicSimplifierTest, RulesPreserveResults) {
  std::mt19937 rng(42);
  for (const std::string& name : RuleNames()) {
    SCOPED_TRACE(name);
    std::string text = ReadFile(kLitDir + name + ".hlo");
    auto module = ParseAndVerify(text);
    ASSERT_TRUE(module.ok()) << module.status();
    std::vector<Literal> arguments;
    for (HloInstruction* parameter :
         (*module)->entry_computation()->parameter_instructions()) {
      arguments.push_back(RandomLiteral(parameter->shape(), rng));
    }
    absl::StatusOr<Literal> before = EvaluateModule(**module, arguments);
    ASSERT_TRUE(before.ok()) << before.status();
    AlgebraicSimplifier simplifier(OptionsFor(text));
    ASSERT_TRUE(RunAndVerify(simplifier, module->get()).ok());
    absl::StatusOr<Literal> after = EvaluateModule(**module, arguments);
    ASSERT_TRUE(after.ok()) << after.status();
    // Exact, except that power(x, 2) -> x * x may differ in the last bit
    // from the library's pow, and a * rsqrt(b) from a / sqrt(b) in the
    // last few.
    Tolerance tolerance;
    if (name == "power-two" || name == "divide-by-sqrt") {
      tolerance = DefaultTolerance(F32, false);
    }
    ComparisonResult result = CompareLiterals(*after, *before, tolerance);
    EXPECT_TRUE(result.ok()) << result.shape_message << " "
                             << (result.first_mismatches.empty()
                                     ? ""
                                     : result.first_mismatches[0].ToString())
                             << "\n"
                             << ModuleText(**module);
  }
}

}  // namespace
}  // namespace hloc
