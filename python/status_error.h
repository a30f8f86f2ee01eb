// How an absl::Status reaches Python from hloc's extensions: thrown as
// StatusError, translated to hloc.HlocError (hloc/_errors.py), one Python
// class for the compiler's and the cuda runtime's errors. Header-only: each
// extension (_hloc, _hloc_cuda) compiles it once.
#ifndef PYTHON_STATUS_ERROR_H_
#define PYTHON_STATUS_ERROR_H_

#include <stdexcept>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "nanobind/nanobind.h"

namespace hloc {

// Carries an absl::Status to Python as hloc.HlocError.
class StatusError : public std::runtime_error {
 public:
  explicit StatusError(const absl::Status& status)
      : std::runtime_error(std::string(status.message())) {}
};

inline void ThrowIfError(const absl::Status& status) {
  if (!status.ok()) throw StatusError(status);
}

template <typename T>
T ValueOrThrow(absl::StatusOr<T> value) {
  ThrowIfError(value.status());
  return *std::move(value);
}

// Translates StatusError to hloc.HlocError in this extension; returns the
// class. Call once, from the extension's module initialisation.
inline PyObject* RegisterHlocError() {
  // Held for the process's life: a static nb::object would be released
  // after the interpreter is gone.
  static PyObject* error =
      nanobind::object(
          nanobind::module_::import_("hloc._errors").attr("HlocError"))
          .release()
          .ptr();
  nanobind::register_exception_translator(
      [](const std::exception_ptr& p, void*) {
        try {
          std::rethrow_exception(p);
        } catch (const StatusError& e) {
          PyErr_SetString(error, e.what());
        }
      });
  return error;
}

}  // namespace hloc

#endif  // PYTHON_STATUS_ERROR_H_
