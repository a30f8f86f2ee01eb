// cholesky, triangular-solve and the LAPACK custom calls of JAX's CPU
// lowering (hlo/lapack_custom_call.h), one matrix of the batch at a time
// through linalg_kernels.h.
#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "hlo/evaluator/evaluator_internal.h"
#include "hlo/evaluator/linalg_kernels.h"
#include "hlo/lapack_custom_call.h"

namespace hloc {
namespace eval {
namespace {

// Rows and columns of the matrices of an array of rank >= 2, and how many
// there are (the product of the leading dimensions).
struct MatrixBatch {
  int64_t batch, rows, cols;
};
MatrixBatch BatchOf(const Shape& shape) {
  const int64_t rows = shape.dimensions(shape.rank() - 2);
  const int64_t cols = shape.dimensions(shape.rank() - 1);
  const int64_t size = rows * cols;
  return {size == 0 ? 0 : shape.ElementCount() / size, rows, cols};
}

Literal WithValues(const Shape& shape, const std::vector<complex128>& values) {
  Literal literal(shape);
  StoreComplexValues(values, &literal);
  return literal;
}

Literal S32Values(const Shape& shape, const std::vector<int32_t>& values) {
  Literal literal(shape);
  std::copy(values.begin(), values.end(), literal.data<int32_t>().begin());
  return literal;
}

absl::StatusOr<Literal> Potrf(const LapackCall& call,
                              const HloInstruction& instr,
                              OperandValues& operands) {
  const Shape& shape = instr.operand(0)->shape();
  const MatrixBatch m = BatchOf(shape);
  std::vector<complex128> a = ToComplexValues(operands.Get(0));
  std::vector<int32_t> info(m.batch);
  for (int64_t b = 0; b < m.batch; ++b) {
    info[b] = static_cast<int32_t>(CholeskyInPlace(
        a.data() + b * m.rows * m.rows, m.rows, call.uplo == 'L', false));
  }
  std::vector<Literal> results;
  results.push_back(WithValues(instr.shape().tuple_shapes(0), a));
  results.push_back(S32Values(instr.shape().tuple_shapes(1), info));
  return Literal::MakeTuple(std::move(results));
}

absl::StatusOr<Literal> Getrf(const HloInstruction& instr,
                              OperandValues& operands) {
  const MatrixBatch m = BatchOf(instr.operand(0)->shape());
  const int64_t k = std::min(m.rows, m.cols);
  std::vector<complex128> a = ToComplexValues(operands.Get(0));
  std::vector<int32_t> ipiv(m.batch * k), info(m.batch);
  for (int64_t b = 0; b < m.batch; ++b) {
    info[b] = static_cast<int32_t>(LuInPlace(
        a.data() + b * m.rows * m.cols, m.rows, m.cols, ipiv.data() + b * k));
  }
  std::vector<Literal> results;
  results.push_back(WithValues(instr.shape().tuple_shapes(0), a));
  results.push_back(S32Values(instr.shape().tuple_shapes(1), ipiv));
  results.push_back(S32Values(instr.shape().tuple_shapes(2), info));
  return Literal::MakeTuple(std::move(results));
}

absl::StatusOr<Literal> Geqrf(const HloInstruction& instr,
                              OperandValues& operands) {
  const MatrixBatch m = BatchOf(instr.operand(0)->shape());
  const int64_t k = std::min(m.rows, m.cols);
  std::vector<complex128> a = ToComplexValues(operands.Get(0));
  std::vector<complex128> tau(m.batch * k);
  for (int64_t b = 0; b < m.batch; ++b) {
    QrInPlace(a.data() + b * m.rows * m.cols, m.rows, m.cols,
              tau.data() + b * k);
  }
  std::vector<Literal> results;
  results.push_back(WithValues(instr.shape().tuple_shapes(0), a));
  results.push_back(WithValues(instr.shape().tuple_shapes(1), tau));
  return Literal::MakeTuple(std::move(results));
}

absl::StatusOr<Literal> Geqp3(const HloInstruction& instr,
                              OperandValues& operands) {
  const MatrixBatch m = BatchOf(instr.operand(0)->shape());
  const int64_t k = std::min(m.rows, m.cols);
  std::vector<complex128> a = ToComplexValues(operands.Get(0));
  const Literal& pivots = operands.Get(1);
  std::vector<int32_t> jpvt(pivots.data<int32_t>().begin(),
                            pivots.data<int32_t>().end());
  std::vector<complex128> tau(m.batch * k);
  for (int64_t b = 0; b < m.batch; ++b) {
    PivotedQrInPlace(a.data() + b * m.rows * m.cols, m.rows, m.cols,
                     jpvt.data() + b * m.cols, tau.data() + b * k);
  }
  std::vector<Literal> results;
  results.push_back(WithValues(instr.shape().tuple_shapes(0), a));
  results.push_back(S32Values(instr.shape().tuple_shapes(1), jpvt));
  results.push_back(WithValues(instr.shape().tuple_shapes(2), tau));
  return Literal::MakeTuple(std::move(results));
}

absl::StatusOr<Literal> Orgqr(const HloInstruction& instr,
                              OperandValues& operands) {
  const MatrixBatch m = BatchOf(instr.operand(0)->shape());
  const int64_t k = instr.operand(1)->shape().dimensions().back();
  std::vector<complex128> a = ToComplexValues(operands.Get(0));
  const std::vector<complex128> tau = ToComplexValues(operands.Get(1));
  for (int64_t b = 0; b < m.batch; ++b) {
    HouseholderProductInPlace(a.data() + b * m.rows * m.cols, m.rows, m.cols,
                              tau.data() + b * k, k);
  }
  return WithValues(instr.shape(), a);
}

// gehrd(a) -> (a', tau, info).
absl::StatusOr<Literal> Gehrd(const LapackCall& call,
                              const HloInstruction& instr,
                              OperandValues& operands) {
  const MatrixBatch m = BatchOf(instr.operand(0)->shape());
  const int64_t n = m.rows;
  const int64_t reflectors = std::max<int64_t>(n - 1, 0);
  std::vector<complex128> a = ToComplexValues(operands.Get(0));
  std::vector<complex128> tau(m.batch * reflectors);
  for (int64_t b = 0; b < m.batch; ++b) {
    HessenbergInPlace(a.data() + b * n * n, n, call.ilo, call.ihi,
                      tau.data() + b * reflectors);
  }
  std::vector<Literal> results;
  results.push_back(WithValues(instr.shape().tuple_shapes(0), a));
  results.push_back(WithValues(instr.shape().tuple_shapes(1), tau));
  results.push_back(
      S32Values(instr.shape().tuple_shapes(2), std::vector<int32_t>(m.batch)));
  return Literal::MakeTuple(std::move(results));
}

// sytrd/hetrd(a) -> (a', d, e, tau, info).
absl::StatusOr<Literal> Sytrd(const LapackCall& call,
                              const HloInstruction& instr,
                              OperandValues& operands) {
  const MatrixBatch m = BatchOf(instr.operand(0)->shape());
  const int64_t n = m.rows;
  const int64_t reflectors = std::max<int64_t>(n - 1, 0);
  std::vector<complex128> a = ToComplexValues(operands.Get(0));
  std::vector<double> d(m.batch * n), e(m.batch * reflectors);
  std::vector<complex128> tau(m.batch * reflectors);
  for (int64_t b = 0; b < m.batch; ++b) {
    TridiagonalizeInPlace(a.data() + b * n * n, n, call.uplo == 'L',
                          d.data() + b * n, e.data() + b * reflectors,
                          tau.data() + b * reflectors);
  }
  std::vector<Literal> results;
  results.push_back(WithValues(instr.shape().tuple_shapes(0), a));
  results.push_back(WithValues(instr.shape().tuple_shapes(1),
                               std::vector<complex128>(d.begin(), d.end())));
  results.push_back(WithValues(instr.shape().tuple_shapes(2),
                               std::vector<complex128>(e.begin(), e.end())));
  results.push_back(WithValues(instr.shape().tuple_shapes(3), tau));
  results.push_back(
      S32Values(instr.shape().tuple_shapes(4), std::vector<int32_t>(m.batch)));
  return Literal::MakeTuple(std::move(results));
}

// gesdd with jobz 'N' (jnp.linalg.svd(compute_uv=False), norm(ord=2),
// matrix_rank, cond): the singular values. u and vt are not written by
// LAPACK then (zeros here) and a is its workspace (left as it was). A NaN
// makes LAPACK stop before it starts (info -4, the matrix argument), which
// JAX turns into NaN singular values.
absl::StatusOr<Literal> GesddValues(const HloInstruction& instr,
                                    OperandValues& operands) {
  const MatrixBatch m = BatchOf(instr.operand(0)->shape());
  const int64_t k = std::min(m.rows, m.cols);
  const std::vector<complex128> a = ToComplexValues(operands.Get(0));
  std::vector<double> s(m.batch * k);
  std::vector<int32_t> info(m.batch);
  for (int64_t b = 0; b < m.batch; ++b) {
    const complex128* matrix = a.data() + b * m.rows * m.cols;
    const bool has_nan =
        std::any_of(matrix, matrix + m.rows * m.cols, [](complex128 v) {
          return std::isnan(v.real()) || std::isnan(v.imag());
        });
    if (has_nan) {
      info[b] = -4;
      std::fill_n(s.data() + b * k, k, std::nan(""));
      continue;
    }
    SingularValues(matrix, m.rows, m.cols, s.data() + b * k);
  }
  const Shape& shape = instr.shape();
  std::vector<Literal> results;
  results.push_back(WithValues(shape.tuple_shapes(0), a));
  results.push_back(WithValues(shape.tuple_shapes(1),
                               std::vector<complex128>(s.begin(), s.end())));
  for (int i : {2, 3}) {
    results.push_back(WithValues(
        shape.tuple_shapes(i),
        std::vector<complex128>(shape.tuple_shapes(i).ElementCount())));
  }
  results.push_back(S32Values(shape.tuple_shapes(4), info));
  return Literal::MakeTuple(std::move(results));
}

// ormqr/unmqr(a, tau, c) -> c'.
absl::StatusOr<Literal> Ormqr(const LapackCall& call,
                              const HloInstruction& instr,
                              OperandValues& operands) {
  const MatrixBatch a_batch = BatchOf(instr.operand(0)->shape());
  const MatrixBatch c_batch = BatchOf(instr.operand(2)->shape());
  const int64_t k = instr.operand(1)->shape().dimensions().back();
  const std::vector<complex128> a = ToComplexValues(operands.Get(0));
  const std::vector<complex128> tau = ToComplexValues(operands.Get(1));
  std::vector<complex128> c = ToComplexValues(operands.Get(2));
  for (int64_t b = 0; b < c_batch.batch; ++b) {
    ApplyHouseholderInPlace(
        a.data() + b * a_batch.rows * a_batch.cols, a_batch.rows, a_batch.cols,
        tau.data() + b * k, k, c.data() + b * c_batch.rows * c_batch.cols,
        c_batch.rows, c_batch.cols, call.side == 'L', call.trans != 'N');
  }
  return WithValues(instr.shape(), c);
}

// gtsv(dl, d, du, b) -> (dl', d', du', b', info).
absl::StatusOr<Literal> Gtsv(const HloInstruction& instr,
                             OperandValues& operands) {
  const MatrixBatch m = BatchOf(instr.operand(3)->shape());
  std::vector<complex128> dl = ToComplexValues(operands.Get(0));
  std::vector<complex128> d = ToComplexValues(operands.Get(1));
  std::vector<complex128> du = ToComplexValues(operands.Get(2));
  std::vector<complex128> b = ToComplexValues(operands.Get(3));
  std::vector<int32_t> info(m.batch);
  for (int64_t i = 0; i < m.batch; ++i) {
    info[i] = static_cast<int32_t>(TridiagonalSolveInPlace(
        dl.data() + i * m.rows, d.data() + i * m.rows, du.data() + i * m.rows,
        b.data() + i * m.rows * m.cols, m.rows, m.cols));
  }
  std::vector<Literal> results;
  results.push_back(WithValues(instr.shape().tuple_shapes(0), dl));
  results.push_back(WithValues(instr.shape().tuple_shapes(1), d));
  results.push_back(WithValues(instr.shape().tuple_shapes(2), du));
  results.push_back(WithValues(instr.shape().tuple_shapes(3), b));
  results.push_back(S32Values(instr.shape().tuple_shapes(4), info));
  return Literal::MakeTuple(std::move(results));
}

// Solves every matrix of operand 1 against the matching one of operand 0.
Literal SolveBatch(const HloInstruction& instr, OperandValues& operands,
                   bool left, bool lower, char trans, bool unit_diagonal) {
  const MatrixBatch a_batch = BatchOf(instr.operand(0)->shape());
  const MatrixBatch b_batch = BatchOf(instr.operand(1)->shape());
  const std::vector<complex128> a = ToComplexValues(operands.Get(0));
  std::vector<complex128> b = ToComplexValues(operands.Get(1));
  const int64_t a_size = a_batch.rows * a_batch.cols;
  const int64_t b_size = b_batch.rows * b_batch.cols;
  for (int64_t i = 0; i < b_batch.batch; ++i) {
    TriangularSolveInPlace(a.data() + i * a_size, b.data() + i * b_size,
                           b_batch.rows, b_batch.cols, left, lower, trans,
                           unit_diagonal);
  }
  return WithValues(instr.shape(), b);
}

}  // namespace

absl::StatusOr<Literal> EvaluateCholesky(const HloInstruction& instr,
                                         OperandValues& operands) {
  const Shape& shape = instr.operand(0)->shape();
  if (!shape.IsArray() || shape.rank() < 2 ||
      shape.dimensions(shape.rank() - 1) !=
          shape.dimensions(shape.rank() - 2)) {
    return InstructionError(instr, "cholesky needs square matrices");
  }
  const MatrixBatch m = BatchOf(shape);
  const bool lower = instr.attrs().cholesky_lower;
  std::vector<complex128> a = ToComplexValues(operands.Get(0));
  for (int64_t b = 0; b < m.batch; ++b) {
    complex128* matrix = a.data() + b * m.rows * m.rows;
    // As XLA's expansion: NaN where the matrix is not positive definite,
    // zeros in the other triangle.
    CholeskyInPlace(matrix, m.rows, lower, /*continue_on_failure=*/true);
    for (int64_t i = 0; i < m.rows; ++i) {
      for (int64_t j = 0; j < m.rows; ++j) {
        if (lower ? j > i : j < i) matrix[i * m.rows + j] = 0.0;
      }
    }
  }
  return WithValues(instr.shape(), a);
}

absl::StatusOr<Literal> EvaluateTriangularSolve(const HloInstruction& instr,
                                                OperandValues& operands) {
  const std::optional<TriangularSolveOptions>& options =
      instr.attrs().triangular_solve_options;
  if (!options.has_value()) {
    return InstructionError(instr, "triangular-solve without its options");
  }
  const char trans = options->transpose_a == 2   ? 'T'
                     : options->transpose_a == 3 ? 'C'
                                                 : 'N';
  return SolveBatch(instr, operands, options->left_side, options->lower, trans,
                    options->unit_diagonal);
}

absl::StatusOr<Literal> EvaluateCustomCall(const HloInstruction& instr,
                                           OperandValues& operands) {
  absl::StatusOr<std::optional<LapackCall>> call = ParseLapackCall(instr);
  if (!call.ok()) return call.status();
  if (!call->has_value()) {
    return absl::UnimplementedError(absl::StrCat(
        "not supported by the evaluator: custom-call (", instr.name(), ") to '",
        instr.attrs().custom_call_target, "'"));
  }
  const LapackCall& c = **call;
  const char* reason = "eigenvectors";
  switch (c.routine) {
    case LapackRoutine::kPotrf:
      return Potrf(c, instr, operands);
    case LapackRoutine::kTrsm:
      return SolveBatch(instr, operands, c.side == 'L', c.uplo == 'L', c.trans,
                        c.diag == 'U');
    case LapackRoutine::kGetrf:
      return Getrf(instr, operands);
    case LapackRoutine::kGeqrf:
      return Geqrf(instr, operands);
    case LapackRoutine::kGeqp3:
      return Geqp3(instr, operands);
    case LapackRoutine::kOrgqr:
      return Orgqr(instr, operands);
    case LapackRoutine::kSyevd:
      break;
    case LapackRoutine::kGeev:
    case LapackRoutine::kXgeev:
      // jnp.linalg.eigvals and jnp.roots ask for no vectors: then it is
      // the eigenvalues' order (LAPACK's own, from its QR iterations).
      if (c.jobvl == 'N' && c.jobvr == 'N') {
        reason = "eigenvalues, in an order that is LAPACK's own";
      }
      break;
    case LapackRoutine::kGesdd:
      if (c.mode == 'N') return GesddValues(instr, operands);
      reason = "singular vectors";
      break;
    case LapackRoutine::kGees:
      reason = "Schur vectors";
      break;
    case LapackRoutine::kOrmqr:
      return Ormqr(c, instr, operands);
    case LapackRoutine::kGtsv:
      return Gtsv(instr, operands);
    case LapackRoutine::kGehrd:
      return Gehrd(c, instr, operands);
    case LapackRoutine::kSytrd:
      return Sytrd(c, instr, operands);
  }
  // Eigenvectors, singular and Schur vectors are defined up to a sign (a
  // phase), a general matrix's eigenvalues come in no defined order, and
  // iterative solvers' rounding is their own: a second implementation could
  // not be compared with LAPACK's element by element.
  return absl::UnimplementedError(absl::StrCat(
      "not supported by the evaluator: custom-call (", instr.name(), ") to '",
      instr.attrs().custom_call_target, "' (", reason, ")"));
}

}  // namespace eval
}  // namespace hloc
