// The host-callbacks pass and the evaluator's policy on JAX's Python host
// callbacks: refused by default with each callback named, dropped on
// request where their results are unused, never where they are read. The
// modules are what JAX 0.10 lowers jax.debug.print, io_callback and
// pure_callback to (metadata and stack frames included);
// tools/testdata/host_callbacks holds such protos as JAX wrote them.
#include "passes/host_callbacks.h"

#include <sstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo/evaluator/evaluator.h"
#include "hlo/host_callbacks.h"
#include "passes/test_util.h"

namespace hloc {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kStackFrames[] = R"(
FileNames
1 "/src/model.py"

FunctionNames
1 "f"
2 "body"

FileLocations
1 {file_name_id=1 function_name_id=1 line=3 end_line=3 column=2 end_column=41}
2 {file_name_id=1 function_name_id=1 line=4 end_line=4 column=6 end_column=60}
3 {file_name_id=1 function_name_id=2 line=9 end_line=9 column=4 end_column=30}

StackFrames
1 {file_location_id=1 parent_frame_id=1}
2 {file_location_id=2 parent_frame_id=1}
3 {file_location_id=3 parent_frame_id=1}
)";

// jax.debug.print('x sum {}', jnp.sum(x)); return x * 2, with the loop of
// a fori_loop whose body prints its counter (unordered io_callback).
std::string PrintModule() {
  return std::string("HloModule jit_f\n") + kStackFrames + R"(
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

body {
  p = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  v = f32[4] get-tuple-element(p), index=1
  io_callback.1 = () custom-call(i), custom_call_target="xla_ffi_python_cpu_callback", custom_call_has_side_effect=true, api_version=API_VERSION_TYPED_FFI, metadata={op_type="io_callback" op_name="jit(f)/while/body/io_callback" stack_frame_id=3}, backend_config={index = 1 : ui64}
  one = s32[] constant(1)
  next = s32[] add(i, one)
  ROOT t = (s32[], f32[4]) tuple(next, v)
}

cond {
  p = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  three = s32[] constant(3)
  ROOT lt = pred[] compare(i, three), direction=LT
}

ENTRY main {
  x = f32[4] parameter(0)
  zero = f32[] constant(0)
  sum = f32[] reduce(x, zero), dimensions={0}, to_apply=add
  debug_print.1 = () custom-call(sum), custom_call_target="xla_ffi_python_cpu_callback", custom_call_has_side_effect=true, api_version=API_VERSION_TYPED_FFI, metadata={op_type="debug_print" op_name="jit(f)/debug_print" stack_frame_id=1}, backend_config={index = 0 : ui64}
  i0 = s32[] constant(0)
  init = (s32[], f32[4]) tuple(i0, x)
  loop = (s32[], f32[4]) while(init), condition=cond, body=body
  y = f32[4] get-tuple-element(loop), index=1
  two = f32[] constant(2)
  twos = f32[4] broadcast(two), dimensions={}
  ROOT r = f32[4] multiply(y, twos)
}
)";
}

Literal Iota4() {
  Literal x(Shape::Array(F32, {4}));
  for (int i = 0; i < 4; ++i) x.data<float>()[i] = static_cast<float>(i);
  return x;
}

TEST(HostCallbacksTest, RefusesByDefaultNamingEachCallback) {
  auto module = ParseAndVerify(PrintModule());
  ASSERT_TRUE(module.ok()) << module.status();
  std::ostringstream notices;
  HostCallbacks pass(/*drop=*/false, &notices);
  EXPECT_EQ(pass.name(), "host-callbacks");
  absl::StatusOr<bool> changed = pass.Run(module->get());
  ASSERT_FALSE(changed.ok());
  EXPECT_TRUE(absl::IsUnimplemented(changed.status()));
  const std::string message(changed.status().message());
  EXPECT_THAT(message, HasSubstr("module jit_f has 2 Python host callbacks"));
  EXPECT_THAT(message, HasSubstr("hloc runs no Python"));
  EXPECT_THAT(message, HasSubstr("\n  debug_print.1: jax.debug.print at "
                                 "/src/model.py:3 in f (custom-call "
                                 "xla_ffi_python_cpu_callback)\n"));
  EXPECT_THAT(message,
              HasSubstr("\n  io_callback.1: jax.experimental.io_callback at "
                        "/src/model.py:9 in body (custom-call "
                        "xla_ffi_python_cpu_callback)\n"));
  EXPECT_THAT(message, HasSubstr("--drop-debug-callbacks (Python: "
                                 "drop_debug_callbacks=True) drops them"));
  EXPECT_THAT(message, Not(HasSubstr("cannot be dropped")));
  EXPECT_TRUE(notices.str().empty());
  // Nothing changed.
  EXPECT_NE(FindInstruction(**module, "debug_print.1"), nullptr);
}

TEST(HostCallbacksTest, DropsCallbacksWhoseResultsAreUnused) {
  auto module = ParseAndVerify(PrintModule());
  ASSERT_TRUE(module.ok()) << module.status();
  std::ostringstream notices;
  HostCallbacks pass(/*drop=*/true, &notices);
  EXPECT_EQ(pass.name(), "drop-host-callbacks");
  absl::StatusOr<bool> changed = RunAndVerify(pass, module->get());
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  EXPECT_EQ(CountOpcode(**module, HloOpcode::kCustomCall), 0)
      << ModuleText(**module);
  EXPECT_EQ(pass.statistics().at("callbacks-dropped"), 2);
  EXPECT_EQ(notices.str(),
            "hloc: dropped Python host callback io_callback.1: "
            "jax.experimental.io_callback at /src/model.py:9 in body "
            "(custom-call xla_ffi_python_cpu_callback); it will not run "
            "(--drop-debug-callbacks)\n"
            "hloc: dropped Python host callback debug_print.1: "
            "jax.debug.print at /src/model.py:3 in f (custom-call "
            "xla_ffi_python_cpu_callback); it will not run "
            "(--drop-debug-callbacks)\n");
  // The rest computes as before.
  absl::StatusOr<Literal> result = EvaluateModule(**module, {Iota4()});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->ToString(), "f32[4] {0, 2, 4, 6}");

  changed = pass.Run(module->get());
  ASSERT_TRUE(changed.ok());
  EXPECT_FALSE(*changed);
}

TEST(HostCallbacksTest, OrderedCallbackTokenBecomesItsTokenOperand) {
  // jax.debug.print(..., ordered=True): the effect token threads through.
  auto module = ParseAndVerify(R"(
HloModule jit_f_ord

ENTRY main {
  token = token[] parameter(0)
  x = f32[4] parameter(1)
  debug_print.1 = token[] custom-call(token, x), custom_call_target="xla_ffi_python_cpu_callback", custom_call_has_side_effect=true, api_version=API_VERSION_TYPED_FFI, metadata={op_type="debug_print" op_name="jit(f_ord)/debug_print"}
  io = (token[], f32[4]) custom-call(debug_print.1, x), custom_call_target="xla_python_cpu_callback", custom_call_has_side_effect=true
  io_token = token[] get-tuple-element(io), index=0
  ROOT r = (token[], f32[4]) tuple(io_token, x)
}
)");
  ASSERT_TRUE(module.ok()) << module.status();
  std::ostringstream notices;
  HostCallbacks pass(/*drop=*/true, &notices);
  absl::StatusOr<bool> changed = RunAndVerify(pass, module->get());
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  const HloInstruction* root =
      (*module)->entry_computation()->root_instruction();
  EXPECT_EQ(root->operand(0)->name(), "token") << ModuleText(**module);
  EXPECT_EQ(CountOpcode(**module, HloOpcode::kCustomCall), 0);
  // No metadata: the construct is unknown, the target still named.
  EXPECT_THAT(notices.str(), HasSubstr("io: a Python callback (custom-call "
                                       "xla_python_cpu_callback)"));
}

TEST(HostCallbacksTest, RefusesCallbacksWhoseResultsAreUsed) {
  auto module =
      ParseAndVerify(std::string("HloModule jit_f\n") + kStackFrames + R"(
ENTRY main {
  x = f32[4] parameter(0)
  debug_print.1 = () custom-call(x), custom_call_target="xla_ffi_python_cpu_callback", custom_call_has_side_effect=true, metadata={op_type="debug_print" op_name="jit(f)/debug_print" stack_frame_id=1}
  pure_callback.1 = f32[4] custom-call(x), custom_call_target="xla_ffi_python_gpu_callback", metadata={op_type="pure_callback" op_name="jit(f)/pure_callback" stack_frame_id=2}
  ROOT r = f32[4] add(pure_callback.1, x)
}
)");
  ASSERT_TRUE(module.ok()) << module.status();
  std::ostringstream notices;
  HostCallbacks drop(/*drop=*/true, &notices);
  absl::StatusOr<bool> changed = drop.Run(module->get());
  ASSERT_FALSE(changed.ok());
  const std::string message(changed.status().message());
  EXPECT_THAT(message,
              HasSubstr("module jit_f has 1 Python host callback whose "
                        "results are used"));
  EXPECT_THAT(message,
              HasSubstr("\n  pure_callback.1: jax.pure_callback at "
                        "/src/model.py:4 in f (custom-call "
                        "xla_ffi_python_gpu_callback): its results are used, "
                        "so it cannot be dropped"));
  EXPECT_THAT(message,
              HasSubstr("compute its value with JAX operations instead"));
  EXPECT_THAT(message, Not(HasSubstr("debug_print.1")));
  // Refused before anything changed: no notice, the print still there.
  EXPECT_TRUE(notices.str().empty());
  EXPECT_NE(FindInstruction(**module, "debug_print.1"), nullptr);

  // Without the option both are named, and only the print is droppable.
  changed = HostCallbacks().Run(module->get());
  ASSERT_FALSE(changed.ok());
  EXPECT_THAT(changed.status().message(),
              HasSubstr("drops the 1 whose results are unused"));
  EXPECT_THAT(changed.status().message(), HasSubstr("debug_print.1: "));
}

TEST(HostCallbacksTest, UnusedArrayResultsAndOldJaxMetadata) {
  // An io_callback whose array result nothing reads, and one whose tuple
  // result is read for its token only; older JAX's op_name with the
  // primitive's parameters, and source_file/source_line.
  auto module = ParseAndVerify(R"(
HloModule jit_g

ENTRY main {
  token = token[] parameter(0)
  x = f32[4] parameter(1)
  cb = f32[4] custom-call(x), custom_call_target="xla_python_cpu_callback", custom_call_has_side_effect=true, metadata={op_name="jit(g)/jit(main)/io_callback[callback=<function cb at 0x7f> ordered=False]" source_file="g.py" source_line=7}
  cb2 = (token[], f32[4]) custom-call(token, x), custom_call_target="xla_ffi_partitioned_python_cpu_callback", custom_call_has_side_effect=true, metadata={op_name="jit(g)/debug_callback"}
  t = token[] get-tuple-element(cb2), index=0
  ROOT r = (token[], f32[4]) tuple(t, x)
}
)");
  ASSERT_TRUE(module.ok()) << module.status();
  absl::Status refused = HostCallbacks().Run(module->get()).status();
  EXPECT_THAT(refused.message(),
              HasSubstr("\n  cb: jax.experimental.io_callback at g.py:7 "
                        "(custom-call xla_python_cpu_callback)\n"));
  EXPECT_THAT(refused.message(),
              HasSubstr("\n  cb2: jax.debug.callback (custom-call "
                        "xla_ffi_partitioned_python_cpu_callback)\n"));
  std::ostringstream notices;
  HostCallbacks pass(/*drop=*/true, &notices);
  absl::StatusOr<bool> changed = RunAndVerify(pass, module->get());
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_EQ(CountOpcode(**module, HloOpcode::kCustomCall), 0)
      << ModuleText(**module);
  EXPECT_EQ(pass.statistics().at("callbacks-dropped"), 2);
}

TEST(HostCallbacksTest, EvaluatorRefusesCallbacksItWouldNeverReach) {
  auto module = ParseAndVerify(PrintModule());
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<Literal> result = EvaluateModule(**module, {Iota4()});
  ASSERT_FALSE(result.ok());
  EXPECT_TRUE(absl::IsUnimplemented(result.status()));
  EXPECT_THAT(result.status().message(),
              HasSubstr("debug_print.1: jax.debug.print at /src/model.py:3"));
  EXPECT_THAT(result.status().message(), HasSubstr("--drop-debug-callbacks"));
  absl::StatusOr<std::vector<Literal>> replicated =
      EvaluateReplicated(**module, {{Iota4()}});
  ASSERT_FALSE(replicated.ok());
  EXPECT_THAT(replicated.status().message(), HasSubstr("hloc runs no Python"));
  EXPECT_EQ(CheckNoPythonCallbacks(**module).message(),
            result.status().message());
}

}  // namespace
}  // namespace hloc
