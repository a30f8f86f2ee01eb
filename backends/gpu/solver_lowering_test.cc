// JAX's CUDA solver custom calls become cusolver steps with the right
// configs, survive the executable's proto, are checked by the runtime
// without a GPU, and malformed ones are refused by name. No GPU needed.
#include "backends/gpu/solver_lowering.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "backends/gpu/gpu_compiler.h"
#include "gtest/gtest.h"
#include "hlo/text/parser.h"
#include "passes/pipelines.h"
#include "runtime/cusolver_solver.h"
#include "runtime/executable.h"

namespace hloc {
namespace {

// The module of one custom call on parameters of `parameters` (row-major,
// as JAX computes them) returning `result`.
std::string CallModule(const std::string& parameters, const std::string& call,
                       const std::string& result) {
  return "HloModule m\n\nENTRY main {\n" + parameters + "  ROOT c = " + result +
         " " + call + "\n}\n";
}

absl::StatusOr<Executable> Compile(const std::string& text) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  if (!module.ok()) return module.status();
  absl::StatusOr<HloPassPipeline> pipeline =
      MakePipeline("cuda", PipelineOptions{});
  if (!pipeline.ok()) return pipeline.status();
  absl::StatusOr<bool> ran = pipeline->Run(module->get());
  if (!ran.ok()) return ran.status();
  GpuCompileOptions options;
  options.emit_cubin = false;
  return CompileForGpu(**module, options);
}

const ExecutableStep* FindStep(const Executable& e,
                               const std::string& library) {
  for (const ExecutableStep& step : e.steps) {
    if (step.library == library) return &step;
  }
  return nullptr;
}

// The index of the first step of `library` in `e` (steps.size() if none).
size_t StepIndex(const Executable& e, const std::string& library) {
  size_t index = 0;
  while (index < e.steps.size() && e.steps[index].library != library) ++index;
  return index;
}

// The runtime's check refuses step `index` of `bad` with a message holding
// `text`.
void ExpectCheckError(const Executable& bad, size_t index,
                      const std::string& what, const std::string& text) {
  absl::Status status = cuda::CheckSolverStep(bad, bad.steps[index], what);
  ASSERT_FALSE(status.ok()) << text;
  EXPECT_NE(status.message().find(text), std::string::npos) << status.message();
}

// Compiles, finds the step, checks it as the runtime does, and round-trips
// the executable through its proto.
ExecutableStep CompiledStep(const std::string& text,
                            const std::string& library) {
  absl::StatusOr<Executable> e = Compile(text);
  EXPECT_TRUE(e.ok()) << e.status().message();
  if (!e.ok()) return {};
  const ExecutableStep* step = FindStep(*e, library);
  EXPECT_NE(step, nullptr) << library;
  if (step == nullptr) return {};
  absl::Status checked = cuda::CheckSolverStep(*e, *step, "step");
  EXPECT_TRUE(checked.ok()) << checked.message();
  absl::StatusOr<std::string> bytes = SerializeExecutable(*e);
  EXPECT_TRUE(bytes.ok()) << bytes.status().message();
  absl::StatusOr<Executable> back = DeserializeExecutable(*bytes);
  EXPECT_TRUE(back.ok()) << back.status().message();
  if (!back.ok()) return {};
  const ExecutableStep* reread = FindStep(*back, library);
  EXPECT_NE(reread, nullptr);
  if (reread == nullptr) return {};
  EXPECT_EQ(reread->buffers, step->buffers);
  EXPECT_EQ(reread->library_config.uplo, step->library_config.uplo);
  EXPECT_EQ(reread->library_config.mode, step->library_config.mode);
  EXPECT_EQ(reread->library_config.econ, step->library_config.econ);
  EXPECT_EQ(reread->library_config.eigh_algorithm,
            step->library_config.eigh_algorithm);
  return *reread;
}

TEST(SolverLoweringTest, PotrfBatchedWithItsTriangle) {
  for (const char* lower : {"true", "false"}) {
    const ExecutableStep step = CompiledStep(
        CallModule(
            "  a = f32[3,4,4]{2,1,0} parameter(0)\n",
            std::string("custom-call(a), custom_call_target=\"cusolver_potrf_"
                        "ffi\", operand_layout_constraints={f32[3,4,4]{1,2,0}}"
                        ", output_to_operand_aliasing={{0}: (0, {})}, "
                        "api_version=API_VERSION_TYPED_FFI, "
                        "backend_config={lower = ") +
                lower + "}",
            "(f32[3,4,4]{1,2,0}, s32[3]{0})"),
        "cusolver.potrf");
    EXPECT_EQ(step.library_config.uplo,
              std::string(lower) == "true" ? 'L' : 'U');
    EXPECT_EQ(step.buffers.size(), 3u);
  }
}

TEST(SolverLoweringTest, LuAndItsPermutation) {
  const std::string text =
      "HloModule m\n\nENTRY main {\n"
      "  a = f64[2,5,3]{2,1,0} parameter(0)\n"
      "  lu = (f64[2,5,3]{1,2,0}, s32[2,3]{1,0}, s32[2]{0}) custom-call(a), "
      "custom_call_target=\"cusolver_getrf_ffi\", "
      "operand_layout_constraints={f64[2,5,3]{1,2,0}}, "
      "api_version=API_VERSION_TYPED_FFI, backend_config={}\n"
      "  piv = s32[2,3]{1,0} get-tuple-element(lu), index=1\n"
      "  perm = s32[2,5]{1,0} custom-call(piv), "
      "custom_call_target=\"cu_lu_pivots_to_permutation\", "
      "operand_layout_constraints={s32[2,3]{1,0}}, "
      "api_version=API_VERSION_TYPED_FFI, backend_config={}\n"
      "  f = f64[2,5,3]{1,2,0} get-tuple-element(lu), index=0\n"
      "  ROOT t = (f64[2,5,3]{1,2,0}, s32[2,5]{1,0}) tuple(f, perm)\n}\n";
  CompiledStep(text, "cusolver.getrf");
  CompiledStep(text, "cusolver.pivots_to_permutation");
}

TEST(SolverLoweringTest, QrAsGeqrfThenOrgqr) {
  const std::string text =
      "HloModule m\n\nENTRY main {\n"
      "  a = c64[6,4]{1,0} parameter(0)\n"
      "  qr = (c64[6,4]{0,1}, c64[4]{0}) custom-call(a), "
      "custom_call_target=\"cusolver_geqrf_ffi\", "
      "operand_layout_constraints={c64[6,4]{0,1}}, backend_config={}\n"
      "  r = c64[6,4]{0,1} get-tuple-element(qr), index=0\n"
      "  tau = c64[4]{0} get-tuple-element(qr), index=1\n"
      "  ROOT q = c64[6,4]{0,1} custom-call(r, tau), "
      "custom_call_target=\"cusolver_orgqr_ffi\", "
      "operand_layout_constraints={c64[6,4]{0,1}, c64[4]{0}}, "
      "backend_config={}\n}\n";
  CompiledStep(text, "cusolver.geqrf");
  EXPECT_EQ(CompiledStep(text, "cusolver.orgqr").buffers.size(), 3u);
}

TEST(SolverLoweringTest, SyevdAndGesvdjAttributes) {
  const ExecutableStep eigh = CompiledStep(
      CallModule("  a = f32[2,4,4]{2,1,0} parameter(0)\n",
                 "custom-call(a), custom_call_target=\"cusolver_syevd_ffi\", "
                 "operand_layout_constraints={f32[2,4,4]{1,2,0}}, "
                 "backend_config={algorithm = 0 : ui8, lower = false}",
                 "(f32[2,4,4]{1,2,0}, f32[2,4]{1,0}, s32[2]{0})"),
      "cusolver.syevd");
  EXPECT_EQ(eigh.library_config.uplo, 'U');
  EXPECT_EQ(eigh.library_config.eigh_algorithm, 0);
  // jaxlib's algorithm attribute (2: Jacobi) travels to the runtime, which
  // chooses its routine by it (runtime/solver_method.h).
  const ExecutableStep jacobi = CompiledStep(
      CallModule("  a = f64[40,40]{1,0} parameter(0)\n",
                 "custom-call(a), custom_call_target=\"cusolver_syevd_ffi\", "
                 "operand_layout_constraints={f64[40,40]{0,1}}, "
                 "backend_config={algorithm = 2 : ui8, lower = true}",
                 "(f64[40,40]{0,1}, f64[40]{0}, s32[]{})"),
      "cusolver.syevd");
  EXPECT_EQ(jacobi.library_config.eigh_algorithm, 2);
  EXPECT_EQ(jacobi.library_config.uplo, 'L');
  const ExecutableStep econ = CompiledStep(
      CallModule("  a = f64[40,34]{1,0} parameter(0)\n",
                 "custom-call(a), custom_call_target=\"cusolver_gesvdj_ffi\", "
                 "operand_layout_constraints={f64[40,34]{0,1}}, "
                 "backend_config={compute_uv = true, full_matrices = false}",
                 "(f64[40,34]{0,1}, f64[34]{0}, f64[40,34]{0,1}, "
                 "f64[34,34]{0,1}, s32[]) "),
      "cusolver.gesvdj");
  EXPECT_TRUE(econ.library_config.econ);
  EXPECT_EQ(econ.library_config.mode, 'V');
  const ExecutableStep values = CompiledStep(
      CallModule("  a = c128[5,3]{1,0} parameter(0)\n",
                 "custom-call(a), custom_call_target=\"cusolver_gesvdj_ffi\", "
                 "operand_layout_constraints={c128[5,3]{0,1}}, "
                 "backend_config={compute_uv = false, full_matrices = true}",
                 "(c128[5,3]{0,1}, f64[3]{0}, c128[5,5]{0,1}, "
                 "c128[3,3]{0,1}, s32[]) "),
      "cusolver.gesvdj");
  EXPECT_FALSE(values.library_config.econ);
  EXPECT_EQ(values.library_config.mode, 'N');
}

void ExpectError(const std::string& text, const std::string& message) {
  absl::StatusOr<Executable> e = Compile(text);
  ASSERT_FALSE(e.ok()) << message;
  EXPECT_NE(e.status().message().find(message), std::string::npos)
      << e.status().message();
}

TEST(SolverLoweringTest, MalformedCallsAreRefusedByName) {
  const std::string a = "  a = f32[4,4]{1,0} parameter(0)\n";
  const std::string potrf =
      "custom-call(a), custom_call_target=\"cusolver_potrf_ffi\", "
      "operand_layout_constraints={f32[4,4]{0,1}}, backend_config=";
  ExpectError(CallModule(a, potrf + "{lower = true, side = 1}",
                         "(f32[4,4]{0,1}, s32[])"),
              "custom-call c (cusolver_potrf_ffi): unknown attribute 'side'");
  ExpectError(CallModule(a, potrf + "{lower = 3}", "(f32[4,4]{0,1}, s32[])"),
              "lower = 3 is not a boolean");
  ExpectError(
      CallModule(a, potrf + "{lower = true}", "(f32[4,4]{0,1}, s32[2])"),
      "result 1 is s32[2]{0}, expected s32[]");
  ExpectError(CallModule(a, potrf + "{lower = true}", "(f32[4,4]{1,0}, s32[])"),
              "(column-major matrices)");
  ExpectError(
      CallModule("  a = f32[4,3]{1,0} parameter(0)\n",
                 "custom-call(a), custom_call_target=\"cusolver_potrf_ffi\", "
                 "operand_layout_constraints={f32[4,3]{0,1}}, "
                 "backend_config={}",
                 "(f32[4,3]{0,1}, s32[])"),
      "is not square");
  ExpectError(
      CallModule(a,
                 "custom-call(a), custom_call_target=\"cusolver_syevd_ffi\", "
                 "operand_layout_constraints={f32[4,4]{0,1}}, "
                 "backend_config={algorithm = 7 : ui8}",
                 "(f32[4,4]{0,1}, f32[4]{0}, s32[])"),
      "algorithm = 7 is not 0 (default), 1 (QR) or 2 (Jacobi)");
  ExpectError(
      CallModule(a,
                 "custom-call(a), custom_call_target=\"cusolver_gesvdj_ffi\", "
                 "operand_layout_constraints={f32[4,4]{0,1}}, "
                 "backend_config={full_matrices = false}",
                 "(f32[4,4]{0,1}, f32[4]{0}, f32[4,3]{0,1}, f32[4,4]{0,1}, "
                 "s32[])"),
      "result 2 is f32[4,3]{0,1}, expected f32[4,4]{0,1}");
  // Not implemented: refused by name before anything compiles.
  ExpectError(
      CallModule(a,
                 "custom-call(a), custom_call_target=\"cusolver_gesvd_ffi\", "
                 "backend_config={}",
                 "(f32[4,4]{0,1}, f32[4]{0}, f32[4,4]{0,1}, f32[4,4]{0,1}, "
                 "s32[])"),
      "cusolver_gesvd_ffi");
}

TEST(SolverLoweringTest, TheRuntimeChecksStepsWithoutAGpu) {
  absl::StatusOr<Executable> e = Compile(
      CallModule("  a = f32[3,6,4]{2,1,0} parameter(0)\n",
                 "custom-call(a), custom_call_target=\"cusolver_gesvdj_ffi\", "
                 "operand_layout_constraints={f32[3,6,4]{1,2,0}}, "
                 "backend_config={compute_uv = true, full_matrices = true}",
                 "(f32[3,6,4]{1,2,0}, f32[3,4]{1,0}, f32[3,6,6]{1,2,0}, "
                 "f32[3,4,4]{1,2,0}, s32[3]{0})"));
  ASSERT_TRUE(e.ok()) << e.status().message();
  const size_t index = StepIndex(*e, "cusolver.gesvdj");
  ASSERT_LT(index, e->steps.size());
  auto expect_error = [&](const Executable& bad, const std::string& text) {
    ExpectCheckError(bad, index, "step 0 (svd)", text);
  };
  Executable bad = *e;
  bad.steps[index].library_config.econ = true;
  expect_error(bad, "step 0 (svd): cusolver.gesvdj: result 2 is f32[3,6,6]");
  bad = *e;
  bad.steps[index].buffers.pop_back();
  expect_error(bad, "takes 1 operand and 5 result buffers, not 5");
  bad = *e;
  bad.steps[index].library_config.uplo = 'X';
  expect_error(bad, "uplo must be 'L' or 'U'");
  bad = *e;
  bad.steps[index].library = "cusolver.getrs";
  expect_error(bad, "'cusolver.getrs' is no cuSOLVER routine");
}

// Triangular solves of 192 rows and more stay for cuBLAS's trsm, with
// XLA's options as LAPACK's codes; smaller ones are expanded into kernels.
TEST(SolverLoweringTest, TriangularSolvesAsTrsm) {
  const std::string batched = CallModule(
      "  a = f32[2,200,200] parameter(0)\n  b = f32[2,200,5] parameter(1)\n",
      "triangular-solve(a, b), left_side=true, lower=true, "
      "transpose_a=TRANSPOSE",
      "f32[2,200,5]");
  ExecutableStep step = CompiledStep(batched, "cublas.trsm");
  EXPECT_EQ(step.library_config.side, 'L');
  EXPECT_EQ(step.library_config.uplo, 'L');
  EXPECT_EQ(step.library_config.trans, 'T');
  EXPECT_EQ(step.library_config.diag, 'N');
  const std::string adjoint = CallModule(
      "  a = c64[192,192] parameter(0)\n  b = c64[3,192] parameter(1)\n",
      "triangular-solve(a, b), left_side=false, lower=false, "
      "unit_diagonal=true, transpose_a=ADJOINT",
      "c64[3,192]");
  step = CompiledStep(adjoint, "cublas.trsm");
  EXPECT_EQ(step.library_config.side, 'R');
  EXPECT_EQ(step.library_config.uplo, 'U');
  EXPECT_EQ(step.library_config.trans, 'C');
  EXPECT_EQ(step.library_config.diag, 'U');
  // A row-major triangle is copied to column-major first (library-layout).
  const std::string transposed = CallModule(
      "  a = f64[194,194]{1,0} parameter(0)\n  b = f64[194,2] parameter(1)\n",
      "triangular-solve(a, b), left_side=true, lower=false, "
      "transpose_a=NO_TRANSPOSE",
      "f64[194,2]");
  step = CompiledStep(transposed, "cublas.trsm");
  EXPECT_EQ(step.library_config.uplo, 'U');
  // Small ones and bf16 ones (cuBLAS has no bf16 trsm) are kernels.
  for (const std::string& kernels :
       {CallModule(
            "  a = f32[24,24] parameter(0)\n  b = f32[24,5] parameter(1)\n",
            "triangular-solve(a, b), left_side=true, lower=true, "
            "transpose_a=NO_TRANSPOSE",
            "f32[24,5]"),
        CallModule("  a = bf16[200,200] parameter(0)\n  b = bf16[200,5] "
                   "parameter(1)\n",
                   "triangular-solve(a, b), left_side=true, lower=true, "
                   "transpose_a=NO_TRANSPOSE",
                   "bf16[200,5]")}) {
    absl::StatusOr<Executable> e = Compile(kernels);
    ASSERT_TRUE(e.ok()) << e.status().message();
    EXPECT_EQ(FindStep(*e, "cublas.trsm"), nullptr) << kernels;
  }
}

TEST(SolverLoweringTest, TheRuntimeChecksTrsmStepsWithoutAGpu) {
  absl::StatusOr<Executable> e = Compile(CallModule(
      "  a = f32[3,194,194] parameter(0)\n  b = f32[3,4,194] parameter(1)\n",
      "triangular-solve(a, b), left_side=false, lower=true, "
      "transpose_a=NO_TRANSPOSE",
      "f32[3,4,194]"));
  ASSERT_TRUE(e.ok()) << e.status().message();
  const size_t index = StepIndex(*e, "cublas.trsm");
  ASSERT_LT(index, e->steps.size());
  ASSERT_TRUE(cuda::CheckSolverStep(*e, e->steps[index], "step").ok());
  auto expect_error = [&](const Executable& bad, const std::string& text) {
    ExpectCheckError(bad, index, "step", text);
  };
  Executable bad = *e;
  bad.steps[index].library_config.side = 'X';
  expect_error(bad, "cublas.trsm: side must be one of 'LR'");
  bad = *e;
  bad.steps[index].library_config.trans = 0;
  expect_error(bad, "trans must be one of 'NTC', not code 0");
  // Left side: the triangle would need b's 4 rows.
  bad = *e;
  bad.steps[index].library_config.side = 'L';
  expect_error(bad, "operand 0 (the triangle) is f32[3,194,194]");
  bad = *e;
  // Row-major: the matrices must be column-major.
  bad.buffers[bad.steps[index].buffers[2]].shape =
      Shape::ArrayWithLayout(F32, {3, 4, 194}, {2, 1, 0});
  expect_error(bad,
               "result 0 is f32[3,4,194]{2,1,0}, expected f32[3,4,194]{1,2,0} "
               "(column-major matrices)");
  bad = *e;
  bad.steps[index].buffers.pop_back();
  expect_error(bad, "takes 2 operand and 1 result buffers, not 2");
}

// The permutation kernel is valid PTX for the GPU the bundle targets.
// JAX's host-LAPACK calls for CUDA (cuhybrid_*) become lapack.<routine>
// steps, which the cuda runtime runs on the host: the eig's booleans as
// geev's jobvl/jobvr (through the executable's proto), pivoted QR as geqp3.
// The CPU's lapack_*_ffi calls are not cuda's; malformed host calls are
// refused by name.
TEST(SolverLoweringTest, HostLapackCallsAsLapackSteps) {
  const std::string eig = CallModule(
      "  a = f32[2,5,5]{2,1,0} parameter(0)\n",
      "custom-call(a), custom_call_target=\"cuhybrid_eig_real\", "
      "operand_layout_constraints={f32[2,5,5]{1,2,0}}, "
      "api_version=API_VERSION_TYPED_FFI, "
      "backend_config={left = false, magma = \"auto\", right = true}",
      "(f32[2,5]{1,0}, f32[2,5]{1,0}, c64[2,5,5]{1,2,0}, c64[2,5,5]{1,2,0}, "
      "s32[2]{0})");
  absl::StatusOr<Executable> e = Compile(eig);
  ASSERT_TRUE(e.ok()) << e.status().message();
  absl::StatusOr<std::string> bytes = SerializeExecutable(*e);
  ASSERT_TRUE(bytes.ok()) << bytes.status().message();
  absl::StatusOr<Executable> back = DeserializeExecutable(*bytes);
  ASSERT_TRUE(back.ok()) << back.status().message();
  const ExecutableStep* geev = FindStep(*back, "lapack.geev");
  ASSERT_NE(geev, nullptr);
  EXPECT_EQ(geev->kind, ExecutableStep::Kind::kLibraryCall);
  EXPECT_EQ(geev->library_config.jobvl, 'N');
  EXPECT_EQ(geev->library_config.jobvr, 'V');
  EXPECT_EQ(geev->buffers.size(), 6u);

  const ExecutableStep* geqp3 = nullptr;
  absl::StatusOr<Executable> qr = Compile(
      "HloModule m\n\nENTRY main {\n"
      "  a = c128[6,4]{1,0} parameter(0)\n"
      "  p = s32[4]{0} parameter(1)\n"
      "  ROOT qr = (c128[6,4]{0,1}, s32[4]{0}, c128[4]{0}) custom-call(a, p), "
      "custom_call_target=\"cuhybrid_geqp3\", "
      "operand_layout_constraints={c128[6,4]{0,1}, s32[4]{0}}, "
      "output_to_operand_aliasing={{0}: (0, {}), {1}: (1, {})}, "
      "backend_config={magma = \"auto\"}\n}\n");
  ASSERT_TRUE(qr.ok()) << qr.status().message();
  geqp3 = FindStep(*qr, "lapack.geqp3");
  ASSERT_NE(geqp3, nullptr);
  EXPECT_EQ(geqp3->buffers.size(), 5u);

  auto expect_error = [](const std::string& text, const std::string& what) {
    absl::StatusOr<Executable> bad = Compile(text);
    ASSERT_FALSE(bad.ok()) << what;
    EXPECT_NE(bad.status().message().find(what), std::string::npos)
        << bad.status().message();
  };
  // The CPU's geev is no cuda call.
  expect_error(
      CallModule("  a = f32[5,5]{1,0} parameter(0)\n",
                 "custom-call(a), custom_call_target=\"lapack_sgeev_ffi\", "
                 "backend_config={}",
                 "(f32[5]{0}, f32[5]{0}, c64[5,5]{0,1}, c64[5,5]{0,1}, s32[])"),
      "lapack_sgeev_ffi");
  // A real eig of a complex matrix, a string where a boolean goes, a
  // result of the wrong shape.
  expect_error(
      CallModule("  a = c64[5,5]{1,0} parameter(0)\n",
                 "custom-call(a), custom_call_target=\"cuhybrid_eig_real\", "
                 "backend_config={left = false, right = true}",
                 "(f32[5]{0}, f32[5]{0}, c64[5,5]{0,1}, c64[5,5]{0,1}, s32[])"),
      "expected a matrix of f32, f64");
  expect_error(
      CallModule("  a = f64[5,5]{1,0} parameter(0)\n",
                 "custom-call(a), custom_call_target=\"cuhybrid_eig_real\", "
                 "backend_config={left = \"yes\", right = true}",
                 "(f64[5]{0}, f64[5]{0}, c128[5,5]{0,1}, c128[5,5]{0,1}, "
                 "s32[])"),
      "attribute left = \"yes\" is not a number");
  expect_error(
      CallModule("  a = c64[5,5]{1,0} parameter(0)\n",
                 "custom-call(a), custom_call_target=\"cuhybrid_eig_comp\", "
                 "backend_config={left = false, right = true}",
                 "(c64[5]{0}, c64[5,5]{0,1}, c64[4,5]{0,1}, s32[])"),
      "result 2 is c64[4,5]");
}

TEST(SolverLoweringTest, PermutationPtxAssembles) {
  const char* cuda = std::getenv("CUDA_PATH");
  const std::filesystem::path ptxas =
      std::filesystem::path(cuda != nullptr ? cuda : "/usr/local/cuda") /
      "bin" / "ptxas";
  if (!std::filesystem::exists(ptxas)) {
    std::printf("no ptxas at %s, skipping\n", ptxas.c_str());
    return;
  }
  const std::string dir = ::testing::TempDir();
  const std::string ptx = dir + "/permutation.ptx";
  std::ofstream(ptx) << cuda::PivotsToPermutationPtx();
  const std::string command = ptxas.string() + " -arch=sm_90 " + ptx + " -o " +
                              dir + "/permutation.cubin";
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
}

}  // namespace
}  // namespace hloc
