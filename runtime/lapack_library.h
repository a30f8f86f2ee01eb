// LAPACK on the host for the CPU backend's "lapack.<routine>" steps: the
// custom calls of hlo/lapack_custom_call.h (jaxlib's calling convention),
// plus the HLO ops cholesky (potrf with XLA's result) and triangular-solve
// (trsm). Linked against Debian's liblapack.so.3 / libblas.so.3 (the
// reference LAPACK or, through Debian's alternatives, OpenBLAS's), called
// through the Fortran interface, one matrix of the batch at a time.
#ifndef RUNTIME_LAPACK_LIBRARY_H_
#define RUNTIME_LAPACK_LIBRARY_H_

#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hlo/lapack_custom_call.h"
#include "hlo/literal.h"
#include "runtime/executable.h"

namespace hloc {

// The routine a step's library name ("lapack.potrf", ...) names.
absl::StatusOr<LapackRoutine> LapackRoutineFromLibrary(
    absl::string_view library);
// "lapack.potrf" for kPotrf, and so on.
std::string LapackLibraryName(LapackRoutine routine);

// Checks operand and result shapes (row-major values; layouts ignored)
// against the routine's convention and the config's characters.
absl::Status CheckLapack(LapackRoutine routine, const LibraryConfig& config,
                         const std::vector<Shape>& operands,
                         const std::vector<Shape>& results);

// Runs it: operands are row-major arrays (they may be overwritten),
// results are row-major arrays of the result shapes, written completely.
absl::Status RunLapack(LapackRoutine routine, const LibraryConfig& config,
                       std::vector<Literal>* operands,
                       std::vector<Literal>* results);

}  // namespace hloc

#endif  // RUNTIME_LAPACK_LIBRARY_H_
