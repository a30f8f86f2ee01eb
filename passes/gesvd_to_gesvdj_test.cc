// gesvd-to-gesvdj: JAX's gesvd calls become one gesvdj call on the matrix
// or its transpose, with the U and V^H results rebuilt from gesvdj's U and
// V as passes/gesvd_to_gesvdj.h derives: which result is transposed, which
// conjugated, the shapes and column-major layouts the cuda runtime checks
// (runtime/solver_check.h), and a clear error for a malformed call. The
// factorisations themselves run only on a GPU (tests/jax/
// jax_linalg_gpu_export.py's svd_gesvd cases, in the GPU check).
#include "passes/gesvd_to_gesvdj.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "passes/test_util.h"

namespace hloc {
namespace {

// A module whose root is a gesvd call of `a` with the given results
// (tuple shape text) and backend_config.
std::string Module(const std::string& a, const std::string& results,
                   const std::string& config) {
  return absl::StrCat(
      "HloModule m\nENTRY e {\n  a = ", a,
      " parameter(0)\n  ROOT svd = ", results,
      " custom-call(a), custom_call_target=\"cusolver_gesvd_ffi\", ",
      "api_version=API_VERSION_TYPED_FFI, backend_config={", config, "}\n}\n");
}

// The gesvdj call the pass left (exactly one, no gesvd).
const HloInstruction* Rewrite(HloModule* module) {
  GesvdToGesvdj pass;
  absl::StatusOr<bool> changed = RunAndVerify(pass, module);
  EXPECT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(changed.ok() && *changed);
  const HloInstruction* gesvdj = nullptr;
  int64_t calls = 0;
  for (const HloComputation* c : module->computations()) {
    for (const HloInstruction* instr : c->instructions()) {
      if (instr->opcode() != HloOpcode::kCustomCall) continue;
      ++calls;
      EXPECT_EQ(instr->attrs().custom_call_target, "cusolver_gesvdj_ffi");
      gesvdj = instr;
    }
  }
  EXPECT_EQ(calls, 1) << ModuleText(*module);
  return gesvdj;
}

// Which gesvdj result (2: U, 3: V) `x` reads, through copies.
int64_t ResultIndex(const HloInstruction* x) {
  while (x->opcode() == HloOpcode::kCopy) x = x->operand(0);
  if (x->opcode() != HloOpcode::kGetTupleElement) return -1;
  return x->attrs().tuple_index;
}

TEST(GesvdToGesvdjTest, TallRealEconomy) {
  // m >= n: gesvdj(A); U is gesvdj's U, V^T the transpose of its V.
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseAndVerify(
      Module("f32[1100,24]{0,1}",
             "(f32[1100,24]{0,1}, f32[24]{0}, f32[1100,24]{0,1}, "
             "f32[24,24]{0,1}, s32[])",
             "compute_uv = true, full_matrices = false, transposed = false"));
  ASSERT_TRUE(module.ok()) << module.status();
  const HloInstruction* call = Rewrite(module->get());
  ASSERT_NE(call, nullptr);
  EXPECT_EQ(call->operand(0)->shape().ToString(true), "f32[1100,24]{0,1}");
  EXPECT_EQ(call->shape().ToString(true),
            "(f32[1100,24]{0,1}, f32[24]{0}, f32[1100,24]{0,1}, "
            "f32[24,24]{0,1}, s32[])");
  EXPECT_EQ(call->backend_config(),
            "{compute_uv = true, full_matrices = false}");
  const HloInstruction* root =
      (*module)->entry_computation()->root_instruction();
  ASSERT_EQ(root->opcode(), HloOpcode::kTuple);
  EXPECT_EQ(ResultIndex(root->operand(2)), 2);
  ASSERT_EQ(root->operand(3)->opcode(), HloOpcode::kTranspose);
  EXPECT_EQ(ResultIndex(root->operand(3)->operand(0)), 3);
}

TEST(GesvdToGesvdjTest, WideComplexFullTransposed) {
  // m < n: JAX's operand is row-major (the transpose, read column-major);
  // gesvdj factors A^T [n, m] = U' S V'^H, and A = conj(V') S U'^T: the
  // first vector result (V^T's slot) is U'^T, the second conj(V').
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseAndVerify(
      Module("c64[2,12,1030]{2,1,0}",
             "(c64[2,12,1030]{2,1,0}, f32[2,12]{1,0}, "
             "c64[2,1030,1030]{2,1,0}, c64[2,12,12]{2,1,0}, s32[2]{0})",
             "compute_uv = true, full_matrices = true, transposed = true"));
  ASSERT_TRUE(module.ok()) << module.status();
  const HloInstruction* call = Rewrite(module->get());
  ASSERT_NE(call, nullptr);
  EXPECT_EQ(call->operand(0)->shape().ToString(true), "c64[2,1030,12]{1,2,0}");
  EXPECT_EQ(call->operand(0)->opcode(), HloOpcode::kTranspose);
  EXPECT_EQ(call->shape().ToString(true),
            "(c64[2,1030,12]{1,2,0}, f32[2,12]{1,0}, c64[2,1030,1030]{1,2,0}, "
            "c64[2,12,12]{1,2,0}, s32[2]{0})");
  EXPECT_EQ(call->backend_config(),
            "{compute_uv = true, full_matrices = true}");
  const HloInstruction* root =
      (*module)->entry_computation()->root_instruction();
  ASSERT_EQ(root->opcode(), HloOpcode::kTuple);
  ASSERT_EQ(root->operand(2)->opcode(), HloOpcode::kTranspose);
  EXPECT_EQ(ResultIndex(root->operand(2)->operand(0)), 2);
  // conj(V'): complex(real(v), negate(imag(v))).
  const HloInstruction* conj = root->operand(3);
  while (conj->opcode() == HloOpcode::kCopy) conj = conj->operand(0);
  ASSERT_EQ(conj->opcode(), HloOpcode::kComplex);
  EXPECT_EQ(conj->operand(1)->opcode(), HloOpcode::kNegate);
  EXPECT_EQ(ResultIndex(conj->operand(0)->operand(0)), 3);
}

TEST(GesvdToGesvdjTest, ValuesOnly) {
  // compute_uv = false: gesvdj computes economy-sized vectors it does not
  // write; the call's scalar vector results are zeros nobody reads.
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseAndVerify(
      Module("f64[1030,16]{0,1}",
             "(f64[1030,16]{0,1}, f64[16]{0}, f64[], f64[], s32[])",
             "compute_uv = false, full_matrices = true, transposed = false"));
  ASSERT_TRUE(module.ok()) << module.status();
  const HloInstruction* call = Rewrite(module->get());
  ASSERT_NE(call, nullptr);
  EXPECT_EQ(call->shape().ToString(true),
            "(f64[1030,16]{0,1}, f64[16]{0}, f64[1030,16]{0,1}, "
            "f64[16,16]{0,1}, s32[])");
  EXPECT_EQ(call->backend_config(),
            "{compute_uv = false, full_matrices = false}");
  const HloInstruction* root =
      (*module)->entry_computation()->root_instruction();
  EXPECT_EQ(root->operand(2)->opcode(), HloOpcode::kConstant);
  EXPECT_EQ(root->operand(3)->opcode(), HloOpcode::kConstant);
}

TEST(GesvdToGesvdjTest, MalformedCallIsAnError) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseAndVerify(
      Module("f32[1100,24]{0,1}",
             "(f32[1100,24]{0,1}, f32[24]{0}, f32[1100,24]{0,1}, "
             "f32[24,24]{0,1}, s32[])",
             "compute_uv = true"));
  ASSERT_TRUE(module.ok()) << module.status();
  GesvdToGesvdj pass;
  absl::StatusOr<bool> changed = pass.Run(module->get());
  ASSERT_FALSE(changed.ok());
  EXPECT_NE(changed.status().message().find("transposed"), std::string::npos)
      << changed.status();
}

}  // namespace
}  // namespace hloc
