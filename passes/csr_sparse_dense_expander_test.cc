// csr-sparse-dense-expander: jaxlib's cpu_csr_sparse_dense_ffi against a
// product written out here, for the evaluator's own kernel (the call
// unexpanded) and for the expansion, on matrices with empty rows (first,
// inner, last), duplicate columns, stored elements past indptr[m] (a BCSR
// matrix's padding, not read), a column out of range (dropped), matrix
// and vector right-hand sides, f32 with s32 indices, f64 with s64, s32
// data that wraps and c64. Both sum each row in storage order in the
// element type, as Eigen does, so the three agree exactly. A malformed
// call is a clear error. tests/jax/zoo/hunted11.py's bcsr_sparse_layers
// runs JAX's own calls against XLA:CPU.
#include "passes/csr_sparse_dense_expander.h"

#include <complex>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "hlo/evaluator/evaluator.h"
#include "passes/test_util.h"

namespace hloc {
namespace {

struct Csr {
  std::vector<int64_t> indptr, indices;
  int64_t cols;
};

// Rows 0 and 3 empty, row 2 holds column 1 twice and column 7 (out of
// range for k = 5); two padding elements past indptr[5] = 7.
Csr Example() { return {{0, 0, 3, 6, 6, 7}, {2, 0, 4, 1, 7, 1, 3, 4, 0}, 5}; }

std::string Module(const std::string& t, const std::string& it, int64_t nse,
                   int64_t m, int64_t k, int64_t n, bool vector) {
  const std::string rhs = vector ? absl::StrCat(t, "[", k, "]")
                                 : absl::StrCat(t, "[", k, ",", n, "]");
  const std::string out = vector ? absl::StrCat(t, "[", m, "]")
                                 : absl::StrCat(t, "[", m, ",", n, "]");
  return absl::StrCat(
      "HloModule m\nENTRY e {\n  data = ", t, "[", nse, "] parameter(0)\n",
      "  indptr = ", it, "[", m + 1, "] parameter(1)\n  indices = ", it, "[",
      nse, "] parameter(2)\n  rhs = ", rhs, " parameter(3)\n  ROOT out = ", out,
      " custom-call(data, indptr, indices, rhs), "
      "custom_call_target=\"cpu_csr_sparse_dense_ffi\", "
      "api_version=API_VERSION_TYPED_FFI\n}\n");
}

Literal Indices(PrimitiveType type, const std::vector<int64_t>& values) {
  Literal literal(Shape::Array(type, {static_cast<int64_t>(values.size())}));
  for (size_t i = 0; i < values.size(); ++i) {
    literal.SetFromInt64(i, values[i]);
  }
  return literal;
}

// out[i, j] = 0 + sum data[e] * rhs[indices[e], j] over row i's elements in
// storage order, columns out of range dropped.
template <typename T>
std::vector<T> Product(const Csr& a, const std::vector<T>& data,
                       const std::vector<T>& rhs, int64_t n) {
  const int64_t m = a.indptr.size() - 1;
  std::vector<T> out(m * n, T(0));
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t e = a.indptr[i]; e < a.indptr[i + 1]; ++e) {
      const int64_t col = a.indices[e];
      if (col < 0 || col >= a.cols) continue;
      for (int64_t j = 0; j < n; ++j) {
        if constexpr (std::is_integral_v<T>) {
          out[i * n + j] =
              static_cast<T>(static_cast<uint32_t>(out[i * n + j]) +
                             static_cast<uint32_t>(data[e]) *
                                 static_cast<uint32_t>(rhs[col * n + j]));
        } else {
          out[i * n + j] = out[i * n + j] + data[e] * rhs[col * n + j];
        }
      }
    }
  }
  return out;
}

// The call unexpanded (the evaluator's kernel) and expanded, both on the
// evaluator.
std::vector<Literal> Results(const std::string& text,
                             const std::vector<Literal>& args) {
  std::vector<Literal> results;
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseAndVerify(text);
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return results;
  absl::StatusOr<Literal> direct = EvaluateModule(**module, args);
  EXPECT_TRUE(direct.ok()) << direct.status();
  CsrSparseDenseExpander pass;
  absl::StatusOr<bool> changed = RunAndVerify(pass, module->get());
  EXPECT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(changed.ok() && *changed);
  EXPECT_EQ(CountOpcode(**module, HloOpcode::kCustomCall), 0);
  absl::StatusOr<Literal> expanded = EvaluateModule(**module, args);
  EXPECT_TRUE(expanded.ok()) << expanded.status();
  if (direct.ok() && expanded.ok()) {
    results.push_back(*std::move(direct));
    results.push_back(*std::move(expanded));
  }
  return results;
}

TEST(CsrSparseDenseExpanderTest, F32MatrixRhsS32Indices) {
  const Csr a = Example();
  const int64_t nse = a.indices.size(), m = a.indptr.size() - 1, n = 3;
  std::vector<float> data, rhs;
  for (int64_t e = 0; e < nse; ++e) data.push_back(0.37f * e - 1.1f);
  for (int64_t i = 0; i < a.cols * n; ++i) rhs.push_back(0.013f * i * i - 0.4f);
  std::vector<Literal> args;
  args.push_back(Literal::CreateR1<float>(F32, data));
  args.push_back(Indices(S32, a.indptr));
  args.push_back(Indices(S32, a.indices));
  args.push_back(
      Literal::FromVector<float>(Shape::Array(F32, {a.cols, n}), rhs));
  const std::vector<float> expected = Product(a, data, rhs, n);
  for (const Literal& got :
       Results(Module("f32", "s32", nse, m, a.cols, n, false), args)) {
    for (int64_t i = 0; i < m * n; ++i) {
      EXPECT_EQ(got.data<float>()[i], expected[i]) << "element " << i;
    }
  }
}

TEST(CsrSparseDenseExpanderTest, F64VectorRhsS64Indices) {
  const Csr a = Example();
  const int64_t nse = a.indices.size(), m = a.indptr.size() - 1;
  std::vector<double> data, rhs;
  for (int64_t e = 0; e < nse; ++e) data.push_back(1.0 / (e + 3));
  for (int64_t i = 0; i < a.cols; ++i) rhs.push_back(i - 1.75);
  std::vector<Literal> args;
  args.push_back(Literal::CreateR1<double>(F64, data));
  args.push_back(Indices(S64, a.indptr));
  args.push_back(Indices(S64, a.indices));
  args.push_back(Literal::CreateR1<double>(F64, rhs));
  const std::vector<double> expected = Product(a, data, rhs, 1);
  for (const Literal& got :
       Results(Module("f64", "s64", nse, m, a.cols, 1, true), args)) {
    for (int64_t i = 0; i < m; ++i) {
      EXPECT_EQ(got.data<double>()[i], expected[i]) << "row " << i;
    }
  }
}

TEST(CsrSparseDenseExpanderTest, S32DataWrapsAndC64) {
  const Csr a = Example();
  const int64_t nse = a.indices.size(), m = a.indptr.size() - 1, n = 2;
  std::vector<int32_t> idata, irhs;
  for (int64_t e = 0; e < nse; ++e) idata.push_back(1 << (20 + e % 4));
  for (int64_t i = 0; i < a.cols * n; ++i) irhs.push_back(3000 + 77 * i);
  std::vector<Literal> args;
  args.push_back(Literal::CreateR1<int32_t>(S32, idata));
  args.push_back(Indices(S32, a.indptr));
  args.push_back(Indices(S32, a.indices));
  args.push_back(
      Literal::FromVector<int32_t>(Shape::Array(S32, {a.cols, n}), irhs));
  const std::vector<int32_t> iexpected = Product(a, idata, irhs, n);
  for (const Literal& got :
       Results(Module("s32", "s32", nse, m, a.cols, n, false), args)) {
    for (int64_t i = 0; i < m * n; ++i) {
      EXPECT_EQ(got.data<int32_t>()[i], iexpected[i]) << "element " << i;
    }
  }
  using c64 = std::complex<float>;
  std::vector<c64> cdata, crhs;
  for (int64_t e = 0; e < nse; ++e) cdata.push_back(c64(0.5f * e, 1.0f - e));
  for (int64_t i = 0; i < a.cols * n; ++i) crhs.push_back(c64(i, 0.25f * i));
  std::vector<Literal> cargs;
  cargs.push_back(Literal::CreateR1<c64>(C64, cdata));
  cargs.push_back(Indices(S32, a.indptr));
  cargs.push_back(Indices(S32, a.indices));
  cargs.push_back(
      Literal::FromVector<c64>(Shape::Array(C64, {a.cols, n}), crhs));
  // Products of small exact values: every formula for them agrees.
  const std::vector<c64> cexpected = Product(a, cdata, crhs, n);
  for (const Literal& got :
       Results(Module("c64", "s32", nse, m, a.cols, n, false), cargs)) {
    for (int64_t i = 0; i < m * n; ++i) {
      EXPECT_EQ(got.data<c64>()[i], cexpected[i]) << "element " << i;
    }
  }
}

TEST(CsrSparseDenseExpanderTest, MalformedCallIsAnError) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseAndVerify(
      "HloModule m\nENTRY e {\n  data = f32[4] parameter(0)\n  indptr = "
      "s32[3] parameter(1)\n  indices = s64[4] parameter(2)\n  rhs = "
      "f32[5,2] parameter(3)\n  ROOT out = f32[2,2] custom-call(data, indptr, "
      "indices, rhs), custom_call_target=\"cpu_csr_sparse_dense_ffi\"\n}\n");
  ASSERT_TRUE(module.ok()) << module.status();
  CsrSparseDenseExpander pass;
  absl::StatusOr<bool> changed = pass.Run(module->get());
  ASSERT_FALSE(changed.ok());
  EXPECT_NE(changed.status().message().find("both s32 or both s64"),
            std::string::npos)
      << changed.status();
}

}  // namespace
}  // namespace hloc
