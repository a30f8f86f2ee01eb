// Dense linear algebra for the reference evaluator: the unblocked
// algorithms of LAPACK's reference implementation (potf2, trsm, getf2,
// geqr2 with larfg, org2r), written plainly on one row-major matrix of
// complex128. Every real and complex type is computed this way (a real
// matrix is one with zero imaginary parts, and each operation below keeps
// them zero), so one implementation serves f32, f64, c64 and c128. Pivot
// and reflector choices follow LAPACK's (the first largest |re|+|im|,
// beta = -sign(re alpha) * norm), so that results match LAPACK's and not
// merely solve the same problem.
#ifndef HLO_EVALUATOR_LINALG_KERNELS_H_
#define HLO_EVALUATOR_LINALG_KERNELS_H_

#include <cstdint>
#include <vector>

#include "hlo/literal.h"

namespace hloc {
namespace eval {

// Factors the Hermitian positive definite n x n matrix `a` read from its
// `lower` (else upper) triangle: a = L L^H (a = U^H U), written over that
// triangle; the other triangle is untouched. Returns 0, or as LAPACK's info
// the 1-based column whose pivot was not positive (the factorisation stops
// there) unless `continue_on_failure`, which goes on with NaN pivots.
int64_t CholeskyInPlace(complex128* a, int64_t n, bool lower,
                        bool continue_on_failure);

// Solves op(A) X = B (left) or X op(A) = B (right) in place of B (m x n).
// A is k x k (k = m on the left, n on the right), only its `lower` (else
// upper) triangle read, its diagonal taken as ones if `unit_diagonal`;
// op is 'N' (none), 'T' (transpose) or 'C' (conjugate transpose).
void TriangularSolveInPlace(const complex128* a, complex128* b, int64_t m,
                            int64_t n, bool left, bool lower, char trans,
                            bool unit_diagonal);

// LU with partial pivoting of the m x n matrix `a` in place (L unit lower
// below the diagonal, U on and above it); ipiv gets min(m, n) 1-based pivot
// rows. Returns 0, or the 1-based index of the first zero pivot.
int64_t LuInPlace(complex128* a, int64_t m, int64_t n, int32_t* ipiv);

// QR of the m x n matrix `a` in place: R on and above the diagonal, the
// Householder vectors below it, their scalars in tau (min(m, n)).
void QrInPlace(complex128* a, int64_t m, int64_t n, complex128* tau);

// geqp3: QR with column pivoting, A P = Q R, in place as QrInPlace. On
// entry jpvt[j] != 0 pins column j to the front (LAPACK's convention); on
// return jpvt[j] is the 1-based column of A that went to column j.
void PivotedQrInPlace(complex128* a, int64_t m, int64_t n, int32_t* jpvt,
                      complex128* tau);

// The first n columns of Q = H(0) ... H(k-1) from the k reflectors stored
// in the columns of the m x n matrix `a` (QrInPlace's form), in place.
void HouseholderProductInPlace(complex128* a, int64_t m, int64_t n,
                               const complex128* tau, int64_t k);

// ormqr/unmqr: C (p x q) times Q = H(0) ... H(k-1) from the k reflectors
// in the columns of the r x ka matrix `a` (QrInPlace's form), in place of
// C: Q C or Q^H C (`left`, r = p), C Q or C Q^H (r = q); `conjugate`
// applies Q^H (LAPACK's trans 'T' or 'C').
void ApplyHouseholderInPlace(const complex128* a, int64_t r, int64_t ka,
                             const complex128* tau, int64_t k, complex128* c,
                             int64_t p, int64_t q, bool left, bool conjugate);

// gtsv: solves the n x n tridiagonal system with sub-diagonal dl[1..n),
// diagonal d and super-diagonal du[0..n-1) for the n x nrhs matrix b in
// place, by LAPACK's Gaussian elimination with row interchanges (the
// larger of |d[i]| and |dl[i+1]|, as |re| + |im|, is the pivot). dl, d
// and du are overwritten as LAPACK's are. Returns 0, or the 1-based index
// of the first zero pivot (b then holds no solution).
int64_t TridiagonalSolveInPlace(complex128* dl, complex128* d, complex128* du,
                                complex128* b, int64_t n, int64_t nrhs);

// gehrd: reduces the n x n matrix `a` to upper Hessenberg form in place
// (gehd2: H = Q^H A Q, Q's reflectors below the first sub-diagonal as
// LAPACK stores them), acting on rows and columns ilo..ihi (1-based); tau
// gets n - 1 scalars, zero outside [ilo, ihi).
void HessenbergInPlace(complex128* a, int64_t n, int64_t ilo, int64_t ihi,
                       complex128* tau);

// sytrd/hetrd: reduces the Hermitian n x n matrix `a`, read from its
// `lower` (else upper) triangle, to real tridiagonal form (sytd2/hetd2):
// d the diagonal (n), e the off-diagonal (n - 1), tau the reflectors'
// scalars (n - 1), the reflectors written over that triangle as LAPACK
// stores them; the other triangle is untouched.
void TridiagonalizeInPlace(complex128* a, int64_t n, bool lower, double* d,
                           double* e, complex128* tau);

// gesdd with jobz 'N': the min(m, n) singular values of the m x n matrix
// `a`, in descending order, into s. Not LAPACK's bidiagonal QR: one-sided
// (Hestenes) Jacobi rotations of the columns until they are orthogonal,
// whose lengths are then the singular values. Singular values, unlike the
// vectors, are unique, so they compare with LAPACK's within rounding.
void SingularValues(const complex128* a, int64_t m, int64_t n, double* s);

// An array literal's values as complex128 (real types with zero imaginary
// parts), in row-major order; and back, rounded to the literal's type (the
// imaginary parts dropped for real types).
std::vector<complex128> ToComplexValues(const Literal& literal);
void StoreComplexValues(const std::vector<complex128>& values,
                        Literal* literal);

}  // namespace eval
}  // namespace hloc

#endif  // HLO_EVALUATOR_LINALG_KERNELS_H_
