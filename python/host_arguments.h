// A program's host arguments, read in place through Python's buffer
// protocol: NumPy arrays (read-only ones included), JAX arrays on one CPU
// device, and anything else that exports a strided buffer.
//
// Why not nanobind's ndarray caster: it asks an object for __dlpack__
// first, which for a JAX array is Python code in JAX (~3 us), so the Python
// side used to convert every JAX argument with numpy.asarray (1-3 us
// each). JAX exports a CPU array's buffer to the buffer protocol directly
// (under 1 us), and NumPy arrays take the same path.
#ifndef PYTHON_HOST_ARGUMENTS_H_
#define PYTHON_HOST_ARGUMENTS_H_

#include <Python.h>

#include <vector>

#include "absl/types/span.h"
#include "hlo/literal.h"
#include "hlo/shape.h"

namespace hloc {

class HostArguments {
 public:
  // Views each of `objects` (a Python sequence) as a Literal of its
  // parameter's shape after checking its element type and dimensions;
  // copies (row-major) only an argument that is not C-contiguous or whose
  // address is not a multiple of its element size (kernels load whole
  // elements). Throws StatusError naming the argument. Needs the GIL.
  HostArguments(PyObject* objects, const std::vector<Shape>& parameters);
  // Releases the buffers: needs the GIL.
  ~HostArguments();
  HostArguments(const HostArguments&) = delete;
  HostArguments& operator=(const HostArguments&) = delete;

  // Valid while this lives; readable without the GIL.
  absl::Span<const Literal> literals() const { return literals_; }

 private:
  void Add(PyObject* object, const Shape& parameter, size_t index);

  std::vector<Py_buffer> buffers_;
  std::vector<Literal> literals_;
};

}  // namespace hloc

#endif  // PYTHON_HOST_ARGUMENTS_H_
