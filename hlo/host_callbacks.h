// JAX's Python host callbacks: jax.debug.print, jax.debug.callback,
// jax.experimental.io_callback and jax.pure_callback lower to a custom call
// (xla_ffi_python_cpu_callback, its gpu and partitioned forms, and the older
// xla_python_*_callback) whose backend_config indexes a Python function
// kept in the JAX process that traced the module. hloc runs no Python, so
// no hloc platform can run one, the evaluator included: a module that has
// one is refused with an error that names each callback, the JAX construct
// it came from and its source line. A callback whose results the program
// never reads (a debug print, io_callback without results; an ordered one
// returns only a token) can be dropped instead, on request
// (passes/host_callbacks.h, hlo-opt/hlo-run --drop-debug-callbacks); one
// whose results are read (pure_callback) never can.
#ifndef HLO_HOST_CALLBACKS_H_
#define HLO_HOST_CALLBACKS_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "hlo/module.h"

namespace hloc {

// The option that drops callbacks, as the tools and the Python API spell it.
inline constexpr absl::string_view kDropDebugCallbacksFlag =
    "--drop-debug-callbacks";
inline constexpr absl::string_view kDropDebugCallbacksKeyword =
    "drop_debug_callbacks=True";

bool IsPythonCallbackTarget(absl::string_view custom_call_target);
bool IsPythonCallback(const HloInstruction& instruction);

// Every Python callback of `module`, called computations included, in the
// module's stored order (the order JAX traced them, as a rule).
std::vector<const HloInstruction*> FindPythonCallbacks(const HloModule& module);

// Whether the program reads a result of `callback` other than a token: an
// array result with users, or one that is (part of) its computation's
// root. Such a callback cannot be dropped.
bool PythonCallbackResultsUsed(const HloInstruction& callback);

// "debug_print.1: jax.debug.print at f.py:3 (custom-call
// xla_ffi_python_cpu_callback)": the JAX construct from the metadata's
// op_type or op_name, the source location from the module's stack frames
// (or the metadata's source_file/source_line), each where present.
std::string DescribePythonCallback(const HloModule& module,
                                   const HloInstruction& callback);

// Unimplemented, naming every callback in `callbacks` (of `module`), saying
// that hloc runs no Python and which of them --drop-debug-callbacks would
// drop. `dropping`: the option is on already, so `callbacks` are the ones
// it cannot drop (their results are used).
absl::Status PythonCallbackError(
    const HloModule& module, absl::Span<const HloInstruction* const> callbacks,
    bool dropping);

// OK when `module` has no Python callback, else PythonCallbackError for
// all of them (the policy where the option is off: the evaluator's, and a
// backend's given a module that did not go through its pipeline).
absl::Status CheckNoPythonCallbacks(const HloModule& module);

}  // namespace hloc

#endif  // HLO_HOST_CALLBACKS_H_
