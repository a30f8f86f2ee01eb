#include "hlo/text/names.h"

#include <string>
#include <utility>

#include "absl/strings/ascii.h"

namespace hloc {
namespace {

// Values match xla_data.proto.
constexpr std::pair<int, absl::string_view> kDotAlgorithms[] = {
    {0, "unset"},
    {1, "dot_any_f8_any_f8_f32"},
    {2, "dot_any_f8_any_f8_f32_fast_accum"},
    {3, "dot_f16_f16_f16"},
    {4, "dot_f16_f16_f32"},
    {5, "dot_bf16_bf16_bf16"},
    {6, "dot_bf16_bf16_f32"},
    {7, "dot_bf16_bf16_f32_x3"},
    {8, "dot_bf16_bf16_f32_x6"},
    {9, "dot_tf32_tf32_f32"},
    {10, "dot_tf32_tf32_f32_x3"},
    {11, "dot_f32_f32_f32"},
    {12, "dot_f64_f64_f64"},
    {13, "dot_bf16_bf16_f32_x9"},
};

constexpr std::pair<int, absl::string_view> kTransposes[] = {
    {1, "NO_TRANSPOSE"},
    {2, "TRANSPOSE"},
    {3, "ADJOINT"},
};

}  // namespace

absl::string_view DotAlgorithmName(int algorithm) {
  for (const auto& [value, name] : kDotAlgorithms) {
    if (value == algorithm) return name;
  }
  return "unset";
}

std::optional<int> ParseDotAlgorithmName(absl::string_view name) {
  // XLA accepts the proto spelling too ("ALG_DOT_F32_F32_F32").
  std::string lower = absl::AsciiStrToLower(name);
  absl::string_view key = lower;
  if (key.substr(0, 4) == "alg_") key.remove_prefix(4);
  for (const auto& [value, text] : kDotAlgorithms) {
    if (text == key) return value;
  }
  return std::nullopt;
}

absl::string_view TransposeName(int transpose) {
  for (const auto& [value, name] : kTransposes) {
    if (value == transpose) return name;
  }
  return "TRANSPOSE_INVALID";
}

std::optional<int> ParseTransposeName(absl::string_view name) {
  for (const auto& [value, text] : kTransposes) {
    if (text == name) return value;
  }
  return std::nullopt;
}

}  // namespace hloc
