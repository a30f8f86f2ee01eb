// hloc._hloc: the Python extension behind the hloc package (hloc/*.py).
// Thin: parsing, the pipelines, compilation and runs are python/program.h's;
// this converts arrays and statuses.
//
// Arrays cross without a copy where the layout allows: an argument is a
// host buffer (NumPy or a JAX CPU array), viewed in place as a Literal
// (host_arguments.h) for the run, with the GIL released. Only an argument
// that is not C-contiguous or not aligned to its element size (kernels
// load whole elements) is copied first. Results are the run's own
// Literals, handed to NumPy with a capsule that frees them: the CPU
// executor writes result leaves in place, so a result is written once and
// never copied afterwards.
//
// bf16 crosses as its uint16 bits: NumPy's bf16 (ml_dtypes) has no DLPack
// or buffer-protocol code, so the Python side views it as uint16 both ways.
// Errors are hloc.HlocError (a RuntimeError, hloc/_errors.py) with the
// compiler's message.
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "hlo/literal.h"
#include "hlo/primitive_type.h"
#include "hlo/shape.h"
#include "hlo/text/printer.h"
#include "nanobind/nanobind.h"
#include "nanobind/ndarray.h"
#include "nanobind/stl/optional.h"
#include "nanobind/stl/string.h"
#include "nanobind/stl/unique_ptr.h"
#include "nanobind/stl/vector.h"
#include "python/cuda_bindings.h"
#include "python/host_arguments.h"
#include "python/program.h"
#include "python/status_error.h"
#include "tools/compile_stages.h"
#include "tools/hlo_run_core.h"
#include "tools/module_loader.h"

namespace nb = nanobind;

namespace hloc {
namespace {

// The DLPack type of an element type as it crosses (bf16 as uint16, the
// narrow floats and the sub-byte integers as uint8: a byte each).
nb::dlpack::dtype CrossingType(PrimitiveType type) {
  const int bits = 8 * ByteWidth(type);
  switch (type) {
    case PRED:
      return nb::dtype<bool>();
    case F16:
    case F32:
    case F64:
      return {static_cast<uint8_t>(nb::dlpack::dtype_code::Float),
              static_cast<uint8_t>(bits), 1};
    case C64:
    case C128:
      return {static_cast<uint8_t>(nb::dlpack::dtype_code::Complex),
              static_cast<uint8_t>(bits), 1};
    case S8:
    case S16:
    case S32:
    case S64:
      return {static_cast<uint8_t>(nb::dlpack::dtype_code::Int),
              static_cast<uint8_t>(bits), 1};
    default:  // unsigned integers, bf16, the narrow floats, sub-byte ints
      return {static_cast<uint8_t>(nb::dlpack::dtype_code::UInt),
              static_cast<uint8_t>(bits), 1};
  }
}

// Hands a result leaf to NumPy: the array points into the Literal, which
// the capsule frees when the array dies.
nb::object ResultArray(Literal leaf) {
  const Shape& shape = leaf.shape();
  std::vector<size_t> dims(shape.dimensions().begin(),
                           shape.dimensions().end());
  auto* owner = new Literal(std::move(leaf));
  nb::capsule free_literal(
      owner, [](void* p) noexcept { delete static_cast<Literal*>(p); });
  nb::ndarray<nb::numpy> array(owner->untyped_data(), dims.size(), dims.data(),
                               free_literal, /*strides=*/nullptr,
                               CrossingType(shape.element_type()));
  return array.cast();
}

// The element type names a Python caller sees for a program's signature.
std::vector<std::string> LeafTypeNames(const Shape& shape) {
  std::vector<std::string> names;
  if (shape.IsTuple()) {
    for (const Shape& element : shape.tuple_shapes()) {
      for (std::string& name : LeafTypeNames(element)) {
        names.push_back(std::move(name));
      }
    }
  } else {
    names.emplace_back(PrimitiveTypeName(shape.element_type()));
  }
  return names;
}

nb::list RunProgram(const Program& program, nb::handle arrays) {
  const HostArguments arguments(arrays.ptr(), program.parameter_shapes());
  absl::StatusOr<Literal> result;
  {
    nb::gil_scoped_release release;
    result = program.Run(arguments.literals());
  }
  std::vector<Literal> leaves = FlattenResult(ValueOrThrow(std::move(result)));
  nb::list out;
  for (Literal& leaf : leaves) out.append(ResultArray(std::move(leaf)));
  return out;
}

std::string BytesOrStr(const nb::handle& contents) {
  if (nb::isinstance<nb::bytes>(contents)) {
    nb::bytes bytes = nb::borrow<nb::bytes>(contents);
    return std::string(bytes.c_str(), bytes.size());
  }
  return nb::cast<std::string>(contents);
}

}  // namespace
}  // namespace hloc

NB_MODULE(_hloc, m) {
  using namespace hloc;
  m.doc() = "hloc's compiler and runtime (use the hloc package, not this)";
  m.attr("HlocError") = nb::handle(RegisterHlocError());

  m.def("platforms", &ProgramPlatforms);

  nb::class_<HloModule>(m, "Module")
      .def_prop_ro("name",
                   [](const HloModule& module) { return module.name(); })
      .def("num_parameters",
           [](const HloModule& module) {
             return module.entry_computation()->num_parameters();
           })
      .def(
          "canonical_text",
          [](const HloModule& module) {
            // Without metadata: JAX records the Python call stack of the
            // lowering there, which must not make the same computation a
            // different cache entry.
            PrintOptions options;
            options.print_metadata = false;
            const std::string text = PrintModule(module, options);
            return nb::bytes(text.data(), text.size());
          },
          "The module as HLO text without metadata: what the compilation "
          "cache fingerprints.");

  m.def(
      "parse",
      [](nb::handle contents, const std::string& format,
         const std::string& name) {
        const std::string bytes = BytesOrStr(contents);
        std::unique_ptr<HloModule> module;
        {
          nb::gil_scoped_release release;
          module = ValueOrThrow(ParseModule(bytes, format, name));
        }
        return module;
      },
      nb::arg("contents"), nb::arg("format"), nb::arg("name"),
      "Parses and verifies HLO text ('hlo') or an HloModuleProto ('pb').");

  nb::class_<OptimizedModule>(m, "OptimizedModule")
      .def_prop_ro("platform",
                   [](const OptimizedModule& o) { return o.options.platform; })
      .def("as_text",
           [](const OptimizedModule& o) {
             return ValueOrThrow(ModuleStage(o, "hlo"));
           })
      .def("fusion_report",
           [](const OptimizedModule& o) {
             return FormatFusionReport(o.fusion_report);
           })
      .def(
          "stage",
          [](const OptimizedModule& o, const std::string& stage) {
            std::string text;
            {
              nb::gil_scoped_release release;
              text = ValueOrThrow(ModuleStage(o, stage));
            }
            // Object code is binary; every other stage is text.
            if (stage == "object")
              return nb::object(nb::bytes(text.data(), text.size()));
            return nb::object(nb::str(text.data(), text.size()));
          },
          nb::arg("stage"))
      .def(
          "executable_bytes",
          [](const OptimizedModule& o) {
            std::string bytes;
            {
              nb::gil_scoped_release release;
              bytes = ValueOrThrow(SerializedExecutable(o));
            }
            return nb::bytes(bytes.data(), bytes.size());
          },
          "The saved executable (hlo-opt --stage=executable -o FILE): what "
          "the cuda runtime (hloc._hloc_cuda) loads.")
      .def("compile", [](const OptimizedModule& o) {
        nb::gil_scoped_release release;
        return *ValueOrThrow(Program::Compile(o));
      });

  m.def(
      "optimize",
      [](const HloModule& module, const std::string& platform, bool verify_each,
         bool saveable, std::optional<bool> allow_fallback,
         bool drop_debug_callbacks) {
        ProgramOptions options;
        options.platform = platform;
        options.verify_each = verify_each;
        options.saveable = saveable;
        options.allow_fallback = allow_fallback;
        options.drop_debug_callbacks = drop_debug_callbacks;
        nb::gil_scoped_release release;
        return ValueOrThrow(OptimizeModule(module, options));
      },
      nb::arg("module"), nb::arg("platform"), nb::arg("verify_each") = false,
      nb::arg("saveable") = false, nb::arg("allow_fallback") = nb::none(),
      nb::arg("drop_debug_callbacks") = false,
      "Runs the platform's pipeline on a copy of the module. allow_fallback: "
      "None (the platform's default), True (cpu: run what code generation "
      "declines in the evaluator) or False (strict: fail listing it). "
      "drop_debug_callbacks: drop JAX's Python host callbacks whose results "
      "are unused (a notice line each on stderr) instead of failing.");

  m.def(
      "stages",
      [](const std::string& platform) {
        std::vector<std::string> names;
        for (const auto& entry : CommonStages()) names.push_back(entry.first);
        for (const auto& entry : BackendStages(platform)) {
          names.push_back(entry.first);
        }
        return names;
      },
      nb::arg("platform") = "cpu",
      "The stages OptimizedModule.stage accepts for a platform, in "
      "compilation order.");

  nb::class_<Program>(m, "Program")
      .def_prop_ro("platform", &Program::platform)
      .def_prop_ro(
          "parameter_types",
          [](const Program& p) {
            std::vector<std::string> names;
            for (const Shape& s : p.parameter_shapes()) {
              names.push_back(
                  s.IsArray() ? std::string(PrimitiveTypeName(s.element_type()))
                              : s.ToString());
            }
            return names;
          })
      .def_prop_ro("parameter_shapes",
                   [](const Program& p) {
                     std::vector<std::string> shapes;
                     for (const Shape& s : p.parameter_shapes()) {
                       shapes.push_back(s.ToString());
                     }
                     return shapes;
                   })
      .def_prop_ro("parameter_dims",
                   [](const Program& p) {
                     std::vector<std::vector<int64_t>> dims;
                     for (const Shape& s : p.parameter_shapes()) {
                       dims.push_back(s.dimensions());
                     }
                     return dims;
                   })
      .def_prop_ro("result_is_tuple",
                   [](const Program& p) { return p.result_shape().IsTuple(); })
      .def_prop_ro(
          "result_types",
          [](const Program& p) { return LeafTypeNames(p.result_shape()); })
      .def_prop_ro("fallback_runs", &Program::fallback_runs)
      .def("run", &RunProgram, nb::arg("arrays"))
      .def("save", [](const Program& p, const std::string& path) {
        ThrowIfError(p.Save(path));
      });

  m.def(
      "load",
      [](const std::string& path) {
        nb::gil_scoped_release release;
        return *ValueOrThrow(Program::Load(path));
      },
      nb::arg("path"), "Loads a saved cpu executable (nothing compiled).");

  nb::module_ cuda = m.def_submodule(
      "cuda", "The cuda runtime (what the runtime-only _hloc_cuda holds)");
  DefineCudaRuntime(cuda);
}
