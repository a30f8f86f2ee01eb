#include "hlo/host_callbacks.h"

#include <cstdint>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hlo/computation.h"

namespace hloc {
namespace {

bool HasArrayLeaf(const Shape& shape) {
  if (!shape.IsTuple()) return shape.IsArray();
  for (const Shape& element : shape.tuple_shapes()) {
    if (HasArrayLeaf(element)) return true;
  }
  return false;
}

// The JAX primitive a callback was lowered from: op_type where JAX sets it
// (0.5 on), else the last scope of op_name, without the parameters older
// JAX appends in brackets ("jit(f)/debug_callback[callback=...]").
std::string JaxPrimitive(const OpMetadata& metadata) {
  if (!metadata.op_type.empty()) return metadata.op_type;
  absl::string_view name = metadata.op_name;
  name = name.substr(0, name.find('['));
  const size_t slash = name.rfind('/');
  if (slash != absl::string_view::npos) name = name.substr(slash + 1);
  return std::string(name);
}

std::string JaxConstruct(const OpMetadata& metadata) {
  const std::string primitive = JaxPrimitive(metadata);
  if (primitive == "debug_print") return "jax.debug.print";
  if (primitive == "debug_callback") return "jax.debug.callback";
  if (primitive == "io_callback") return "jax.experimental.io_callback";
  if (primitive == "pure_callback") return "jax.pure_callback";
  if (primitive.empty()) return "a Python callback";
  return absl::StrCat("a Python callback (JAX op ", primitive, ")");
}

// " at FILE:LINE in FUNCTION" from the innermost stack frame, or " at
// FILE:LINE" from the metadata's own fields; empty when neither is known.
std::string SourceLocation(const HloModule& module,
                           const OpMetadata& metadata) {
  const StackFrameIndex& index = module.stack_frames();
  const int64_t frame = metadata.stack_frame_id;
  if (frame > 0 && frame <= static_cast<int64_t>(index.stack_frames.size())) {
    const int64_t location = index.stack_frames[frame - 1].file_location_id;
    if (location > 0 &&
        location <= static_cast<int64_t>(index.file_locations.size())) {
      const StackFrameIndex::FileLocation& l =
          index.file_locations[location - 1];
      if (l.file_name_id > 0 &&
          l.file_name_id <= static_cast<int64_t>(index.file_names.size())) {
        std::string text = absl::StrCat(
            " at ", index.file_names[l.file_name_id - 1], ":", l.line);
        if (l.function_name_id > 0 &&
            l.function_name_id <=
                static_cast<int64_t>(index.function_names.size())) {
          absl::StrAppend(&text, " in ",
                          index.function_names[l.function_name_id - 1]);
        }
        return text;
      }
    }
  }
  if (!metadata.source_file.empty()) {
    return absl::StrCat(" at ", metadata.source_file, ":",
                        metadata.source_line);
  }
  return "";
}

}  // namespace

bool IsPythonCallbackTarget(absl::string_view target) {
  return target == "xla_ffi_python_cpu_callback" ||
         target == "xla_ffi_python_gpu_callback" ||
         target == "xla_ffi_partitioned_python_cpu_callback" ||
         target == "xla_ffi_partitioned_python_gpu_callback" ||
         target == "xla_python_cpu_callback" ||
         target == "xla_python_gpu_callback" ||
         target == "xla_buffer_python_cpu_callback" ||
         target == "xla_buffer_python_gpu_callback";
}

bool IsPythonCallback(const HloInstruction& instruction) {
  return instruction.opcode() == HloOpcode::kCustomCall &&
         IsPythonCallbackTarget(instruction.attrs().custom_call_target);
}

std::vector<const HloInstruction*> FindPythonCallbacks(
    const HloModule& module) {
  std::vector<const HloInstruction*> callbacks;
  for (const HloComputation* computation : module.computations()) {
    for (const HloInstruction* instruction : computation->instructions()) {
      if (IsPythonCallback(*instruction)) callbacks.push_back(instruction);
    }
  }
  return callbacks;
}

bool PythonCallbackResultsUsed(const HloInstruction& callback) {
  const Shape& shape = callback.shape();
  if (!HasArrayLeaf(shape)) return false;
  if (callback.parent() != nullptr &&
      callback.parent()->root_instruction() == &callback) {
    return true;
  }
  for (const HloInstruction* user : callback.users()) {
    // An ordered callback's token, read alone, orders nothing once the
    // callback is gone.
    if (user->opcode() == HloOpcode::kGetTupleElement && shape.IsTuple() &&
        !HasArrayLeaf(shape.tuple_shapes(user->tuple_index()))) {
      continue;
    }
    return true;
  }
  return false;
}

std::string DescribePythonCallback(const HloModule& module,
                                   const HloInstruction& callback) {
  return absl::StrCat(callback.name(), ": ", JaxConstruct(callback.metadata()),
                      SourceLocation(module, callback.metadata()),
                      " (custom-call ", callback.attrs().custom_call_target,
                      ")");
}

absl::Status PythonCallbackError(
    const HloModule& module, absl::Span<const HloInstruction* const> callbacks,
    bool dropping) {
  const size_t n = callbacks.size();
  std::vector<std::string> lines;
  size_t droppable = 0;
  for (const HloInstruction* callback : callbacks) {
    std::string line = DescribePythonCallback(module, *callback);
    if (PythonCallbackResultsUsed(*callback)) {
      absl::StrAppend(&line, ": its results are used, so it cannot be dropped");
    } else {
      ++droppable;
    }
    lines.push_back(std::move(line));
  }
  std::string message = absl::StrCat(
      "module ", module.name(), " has ", n, " Python host callback",
      n == 1 ? "" : "s",
      dropping
          ? absl::StrCat(" whose results are used, which hloc cannot run (it "
                         "runs no Python) and ",
                         kDropDebugCallbacksFlag, " cannot drop")
          : absl::StrCat(", which hloc cannot run: hloc runs no Python, "
                         "and ",
                         n == 1 ? "the callback's function lives"
                                : "the callbacks' functions live",
                         " in the JAX process that traced the module"),
      ":\n  ", absl::StrJoin(lines, "\n  "));
  if (!dropping && droppable > 0) {
    const bool one = droppable == 1;
    absl::StrAppend(
        &message, "\n", kDropDebugCallbacksFlag,
        " (Python: ", kDropDebugCallbacksKeyword, ") drops ",
        droppable == n
            ? (one ? "it" : "them")
            : absl::StrCat("the ", droppable, " whose results are unused"),
        one ? ", with a notice on stderr: it then does not run"
            : ", with a notice each on stderr: they then do not run");
  }
  if (droppable < n) {
    absl::StrAppend(&message,
                    "\na callback whose results are used can never be "
                    "dropped: compute its value with JAX operations instead");
  }
  return absl::UnimplementedError(message);
}

absl::Status CheckNoPythonCallbacks(const HloModule& module) {
  const std::vector<const HloInstruction*> callbacks =
      FindPythonCallbacks(module);
  if (callbacks.empty()) return absl::OkStatus();
  return PythonCallbackError(module, callbacks, /*dropping=*/false);
}

}  // namespace hloc
