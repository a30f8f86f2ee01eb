// jaxlib's CPU sparse kernel, the custom call `cpu_csr_sparse_dense_ffi`
// that jax.experimental.sparse lowers a BCSR (or CSR) matrix times a dense
// matrix or vector to on the CPU (bcsr_dot_general, CSR @ dense). Read from
// an HLO custom-call once, so that the evaluator and the pipelines'
// expander (passes/csr_sparse_dense_expander.h) agree on what it means and
// refuse the same malformed ones.
//
// XLA's calling convention (jaxlib/cpu/sparse_kernels.cc, Eigen's mapped
// row-major SparseMatrix times a dense row-major matrix):
//   (data T[nse], indptr I[m+1], indices I[nse], rhs T[k] | T[k, n])
//     -> out T[m] | T[m, n]
// with T one of f32, f64, c64, c128, s32, s64 and I s32 or s64 (both index
// operands of one type). Row i of the sparse matrix holds the stored
// elements indptr[i] <= e < indptr[i+1], element e at column indices[e]
// with value data[e]; elements past indptr[m] (the padding of a BCSR
// matrix with fewer than nse non-zeros) are not read. Row i of the result
// is 0 + data[e] * rhs[indices[e]] summed over its elements in storage
// order, in T, as Eigen sums them; a duplicate column adds twice.
//
// What Eigen leaves undefined (it reads out of bounds) is defined here as
// dropping the element: an element outside [0, nse) and a column outside
// [0, k).
#ifndef HLO_SPARSE_CUSTOM_CALL_H_
#define HLO_SPARSE_CUSTOM_CALL_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "hlo/instruction.h"

namespace hloc {

bool IsCsrSparseDenseCustomCall(const HloInstruction& instr);

// The call's sizes, read from its shapes.
struct CsrSparseDenseCall {
  PrimitiveType type;        // T: data, rhs and the result
  PrimitiveType index_type;  // I: indptr and indices
  int64_t nse;               // stored elements
  int64_t rows;              // m: the sparse matrix's rows
  int64_t cols;              // k: its columns, the rhs's rows
  int64_t rhs_cols;          // n: 1 for a vector rhs
  bool vector_rhs;           // rhs T[k] and result T[m]
};

// InvalidArgument naming the instruction where its operands or result do
// not have the shapes above; `instr` must be IsCsrSparseDenseCustomCall.
absl::StatusOr<CsrSparseDenseCall> ReadCsrSparseDenseCall(
    const HloInstruction& instr);

}  // namespace hloc

#endif  // HLO_SPARSE_CUSTOM_CALL_H_
