#include "python/host_arguments.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "hlo/float8.h"
#include "hlo/primitive_type.h"
#include "python/status_error.h"

namespace hloc {
namespace {

enum class ElementKind { kBool, kSigned, kUnsigned, kFloat, kComplex, kOther };

// How an element type crosses: bf16, the narrow floats and the sub-byte
// integers as their bits (ml_dtypes' types have no buffer-protocol code,
// so the Python side views them as uint16 and uint8).
ElementKind CrossingKind(PrimitiveType type) {
  if (type == PRED) return ElementKind::kBool;
  if (type == BF16 || IsFloat8Type(type) || IsSubByteIntegralType(type) ||
      IsUnsignedIntegralType(type)) {
    return ElementKind::kUnsigned;
  }
  if (IsSignedIntegralType(type)) return ElementKind::kSigned;
  if (IsComplexType(type)) return ElementKind::kComplex;
  return ElementKind::kFloat;
}

// A struct-module format (PEP 3118) of one element, as NumPy and JAX
// export them: "f", "<f", "l", "Zd", ... The size comes from the buffer's
// itemsize, so "l" and "q" both read as a signed integer.
ElementKind FormatKind(const char* format) {
  absl::string_view f = format == nullptr ? "B" : format;
  if (!f.empty() && (f[0] == '@' || f[0] == '=' || f[0] == '<')) {
    f.remove_prefix(1);
  }
  if (f.size() == 2 && f[0] == 'Z' &&
      absl::string_view("efd").find(f[1]) != absl::string_view::npos) {
    return ElementKind::kComplex;
  }
  if (f.size() != 1) return ElementKind::kOther;  // Big-endian, records, ...
  if (f[0] == '?') return ElementKind::kBool;
  if (absl::string_view("bhilqn").find(f[0]) != absl::string_view::npos) {
    return ElementKind::kSigned;
  }
  if (absl::string_view("BHILQN").find(f[0]) != absl::string_view::npos) {
    return ElementKind::kUnsigned;
  }
  if (absl::string_view("efd").find(f[0]) != absl::string_view::npos) {
    return ElementKind::kFloat;
  }
  return ElementKind::kOther;
}

bool IsCContiguous(const Py_buffer& view) {
  Py_ssize_t stride = view.itemsize;
  for (int d = view.ndim; d-- > 0;) {
    if (view.shape[d] > 1 && view.strides[d] != stride) return false;
    stride *= view.shape[d];
  }
  return true;
}

// `view`'s elements in row-major order into `out`, whatever its strides
// (a transposed or sliced NumPy view, a JAX array in another layout).
void CopyRowMajor(const Py_buffer& view, uint8_t* out) {
  if (IsCContiguous(view)) {
    std::memcpy(out, view.buf, view.len);
    return;
  }
  std::vector<Py_ssize_t> index(view.ndim, 0);
  const Py_ssize_t count = view.len / view.itemsize;
  for (Py_ssize_t n = 0; n < count; ++n) {
    const uint8_t* element = static_cast<const uint8_t*>(view.buf);
    for (int d = 0; d < view.ndim; ++d) element += index[d] * view.strides[d];
    std::memcpy(out + n * view.itemsize, element, view.itemsize);
    for (int d = view.ndim; d-- > 0;) {
      if (++index[d] < view.shape[d]) break;
      index[d] = 0;
    }
  }
}

// The pending Python exception's message, cleared.
std::string FetchPythonError() {
  PyObject *type, *value, *traceback;
  PyErr_Fetch(&type, &value, &traceback);
  std::string message = "it has no buffer";
  if (value != nullptr) {
    if (PyObject* text = PyObject_Str(value)) {
      if (const char* utf8 = PyUnicode_AsUTF8(text)) message = utf8;
      Py_DECREF(text);
    }
  }
  PyErr_Clear();
  Py_XDECREF(type);
  Py_XDECREF(value);
  Py_XDECREF(traceback);
  return message;
}

[[noreturn]] void Throw(std::string message) {
  throw StatusError(absl::InvalidArgumentError(message));
}

}  // namespace

HostArguments::HostArguments(PyObject* objects,
                             const std::vector<Shape>& parameters) {
  PyObject* sequence =
      PySequence_Fast(objects, "the arguments must be a sequence of arrays");
  if (sequence == nullptr) {
    PyErr_Clear();
    Throw("the arguments must be a sequence of arrays");
  }
  const size_t count = PySequence_Fast_GET_SIZE(sequence);
  if (count != parameters.size()) {
    Py_DECREF(sequence);
    Throw(absl::StrCat("the program takes ", parameters.size(),
                       " arguments, given ", count));
  }
  buffers_.reserve(count);
  literals_.reserve(count);
  PyObject** items = PySequence_Fast_ITEMS(sequence);
  try {
    for (size_t i = 0; i < count; ++i) Add(items[i], parameters[i], i);
  } catch (...) {
    Py_DECREF(sequence);
    for (Py_buffer& buffer : buffers_) PyBuffer_Release(&buffer);
    throw;
  }
  Py_DECREF(sequence);
}

HostArguments::~HostArguments() {
  literals_.clear();
  for (Py_buffer& buffer : buffers_) PyBuffer_Release(&buffer);
}

void HostArguments::Add(PyObject* object, const Shape& parameter,
                        size_t index) {
  if (!parameter.IsArray()) {
    Throw(absl::StrCat("parameter ", index, " is a ", parameter.ToString(),
                       ", not an array: only array parameters are supported"));
  }
  Py_buffer view;
  if (PyObject_GetBuffer(object, &view, PyBUF_RECORDS_RO) != 0) {
    Throw(absl::StrCat("argument ", index, " (", Py_TYPE(object)->tp_name,
                       ") is not a host array: ", FetchPythonError()));
  }
  buffers_.push_back(view);
  const PrimitiveType type = parameter.element_type();
  const std::vector<int64_t>& want = parameter.dimensions();
  bool match = FormatKind(view.format) == CrossingKind(type) &&
               view.itemsize == ByteWidth(type) &&
               view.ndim == static_cast<int>(want.size());
  for (int d = 0; match && d < view.ndim; ++d) {
    match = view.shape[d] == want[d];
  }
  if (!match) {
    Throw(absl::StrCat("argument ", index, " does not match parameter ", index,
                       " (", parameter.ToString(), "): given ", view.ndim,
                       "-d array of ", view.itemsize * 8,
                       "-bit elements (format '",
                       view.format == nullptr ? "B" : view.format, "')"));
  }
  // Literals are row-major and static: the parameter's own shape serves
  // (no shape built per call) unless its layout is another (the executor
  // lays such a parameter out itself) or it has dynamic dimensions (which
  // Program::Run refuses an array for).
  const bool use_parameter =
      parameter.HasDescendingLayout() && parameter.is_static();
  Shape row_major;
  if (!use_parameter) row_major = Shape::Array(type, want);
  const Shape& shape = use_parameter ? parameter : row_major;
  const auto address = reinterpret_cast<uintptr_t>(view.buf);
  if (IsCContiguous(view) && address % ByteWidth(type) == 0) {
    literals_.push_back(Literal::CreateView(shape, view.buf));
    return;
  }
  Literal copy = Literal::CreateUninitialized(shape);
  CopyRowMajor(view, static_cast<uint8_t*>(copy.untyped_data()));
  literals_.push_back(std::move(copy));
}

}  // namespace hloc
