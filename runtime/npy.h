// NumPy .npy files <-> host literals, written here (no NumPy needed).
//
// The format (numpy.lib.format): 6 magic bytes "\x93NUMPY", a major and a
// minor version byte, the header length (2 bytes little-endian for 1.0, 4
// bytes for 2.0 and 3.0), then a Python dict literal such as
//   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
// padded with spaces and a '\n', then the raw element data. 1.0 and 2.0
// headers are latin-1; 3.0 headers are UTF-8.
//
// Element types: pred (|b1), s8..s64 (i1..i8), u8..u64 (u1..u8), f16 (f2),
// f32 (f4), f64 (f8), c64 (c8), c128 (c16), and bf16. NumPy has no bf16 of
// its own: np.save of an ml_dtypes.bfloat16 array writes the descr '<V2'
// ("2 opaque bytes"), which is ambiguous, so '<V2' (and any 'V<n>') is read
// only when the caller names the type it expects (NpyReadOptions); the
// unambiguous descr 'bfloat16' is always read as bf16. WriteNpy writes bf16
// as '<V2' so that np.load reads it anywhere (view it as ml_dtypes.bfloat16).
// The same holds for ml_dtypes' one-byte types, saved as 'V1': the 8-bit
// and microscaling floats and the sub-byte integers (int4 and the like:
// ml_dtypes stores the low bits, which reading wraps to the value and
// writing writes back; hlo/sub_byte_int.h).
//
// Reading accepts every byte order ('<', '>', '|', '='; this host is
// little-endian) and Fortran order (transposed into the Literal's row-major
// storage). Writing always produces version 1.0 (enough for NumPy's 64
// dimensions), little-endian, C order, byte-identical to what np.save writes.
//
// Every malformed input gets an InvalidArgument error that starts with the
// file name and says what is wrong; the size the header claims is checked
// against the bytes present before anything is allocated for it.
#ifndef RUNTIME_NPY_H_
#define RUNTIME_NPY_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hlo/literal.h"
#include "hlo/primitive_type.h"

namespace hloc {

struct NpyReadOptions {
  // The element type the caller expects, or PRIMITIVE_TYPE_INVALID. Used
  // only to give a width-only descr ('<V2' from ml_dtypes' bfloat16) a type,
  // which must then have that width; a file with a concrete dtype reads as
  // that dtype whatever this says (callers compare shapes themselves).
  PrimitiveType expected_type = PRIMITIVE_TYPE_INVALID;
};

// Reads the .npy file at `path` (errors name the path).
absl::StatusOr<Literal> ReadNpy(const std::string& path,
                                const NpyReadOptions& options = {});

// Parses the contents of a .npy file; `name` is used in error messages.
absl::StatusOr<Literal> ParseNpy(absl::string_view bytes,
                                 absl::string_view name,
                                 const NpyReadOptions& options = {});

// The .npy bytes of an array literal; an error for tuples and types .npy
// cannot hold.
absl::StatusOr<std::string> SerializeNpy(const Literal& literal);

// Writes SerializeNpy(literal) to `path`.
absl::Status WriteNpy(const std::string& path, const Literal& literal);

// The descr WriteNpy uses for `type` ("<f4", "|b1", "<V2" for bf16), or an
// error for types .npy cannot hold.
absl::StatusOr<std::string> NpyDescr(PrimitiveType type);

}  // namespace hloc

#endif  // RUNTIME_NPY_H_
