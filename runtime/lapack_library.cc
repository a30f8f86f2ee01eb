#include "runtime/lapack_library.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstddef>
#include <limits>
#include <type_traits>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

// LAPACK's and BLAS's Fortran entry points (LP64: INTEGER is int; gfortran
// passes each CHARACTER argument's length after all the others).
extern "C" {
using lapack_c = std::complex<float>;
using lapack_z = std::complex<double>;
void spotrf_(const char*, const int*, float*, const int*, int*, size_t);
void dpotrf_(const char*, const int*, double*, const int*, int*, size_t);
void cpotrf_(const char*, const int*, lapack_c*, const int*, int*, size_t);
void zpotrf_(const char*, const int*, lapack_z*, const int*, int*, size_t);
#define HLOC_TRSM(name, T)                                                  \
  void name(const char*, const char*, const char*, const char*, const int*, \
            const int*, const T*, const T*, const int*, T*, const int*,     \
            size_t, size_t, size_t, size_t);
HLOC_TRSM(strsm_, float)
HLOC_TRSM(dtrsm_, double)
HLOC_TRSM(ctrsm_, lapack_c)
HLOC_TRSM(ztrsm_, lapack_z)
#undef HLOC_TRSM
void sgetrf_(const int*, const int*, float*, const int*, int*, int*);
void dgetrf_(const int*, const int*, double*, const int*, int*, int*);
void cgetrf_(const int*, const int*, lapack_c*, const int*, int*, int*);
void zgetrf_(const int*, const int*, lapack_z*, const int*, int*, int*);
#define HLOC_GEQRF(name, T) \
  void name(const int*, const int*, T*, const int*, T*, T*, const int*, int*);
HLOC_GEQRF(sgeqrf_, float)
HLOC_GEQRF(dgeqrf_, double)
HLOC_GEQRF(cgeqrf_, lapack_c)
HLOC_GEQRF(zgeqrf_, lapack_z)
#undef HLOC_GEQRF
// geqp3: m, n, a, lda, jpvt, tau, work, lwork, [rwork,] info.
void sgeqp3_(const int*, const int*, float*, const int*, int*, float*, float*,
             const int*, int*);
void dgeqp3_(const int*, const int*, double*, const int*, int*, double*,
             double*, const int*, int*);
void cgeqp3_(const int*, const int*, lapack_c*, const int*, int*, lapack_c*,
             lapack_c*, const int*, float*, int*);
void zgeqp3_(const int*, const int*, lapack_z*, const int*, int*, lapack_z*,
             lapack_z*, const int*, double*, int*);
#define HLOC_ORGQR(name, T)                                                   \
  void name(const int*, const int*, const int*, T*, const int*, const T*, T*, \
            const int*, int*);
HLOC_ORGQR(sorgqr_, float)
HLOC_ORGQR(dorgqr_, double)
HLOC_ORGQR(cungqr_, lapack_c)
HLOC_ORGQR(zungqr_, lapack_z)
#undef HLOC_ORGQR
void ssyevd_(const char*, const char*, const int*, float*, const int*, float*,
             float*, const int*, int*, const int*, int*, size_t, size_t);
void dsyevd_(const char*, const char*, const int*, double*, const int*, double*,
             double*, const int*, int*, const int*, int*, size_t, size_t);
void cheevd_(const char*, const char*, const int*, lapack_c*, const int*,
             float*, lapack_c*, const int*, float*, const int*, int*,
             const int*, int*, size_t, size_t);
void zheevd_(const char*, const char*, const int*, lapack_z*, const int*,
             double*, lapack_z*, const int*, double*, const int*, int*,
             const int*, int*, size_t, size_t);

// gesdd: jobz, m, n, a, lda, s, u, ldu, vt, ldvt, work, lwork, [rwork,]
// iwork, info.
#define HLOC_GESDD(name, T, R)                                           \
  void name(const char*, const int*, const int*, T*, const int*, R*, T*, \
            const int*, T*, const int*, T*, const int*, int*, int*, size_t);
HLOC_GESDD(sgesdd_, float, float)
HLOC_GESDD(dgesdd_, double, double)
#undef HLOC_GESDD
#define HLOC_GESDD_COMPLEX(name, T, R)                                   \
  void name(const char*, const int*, const int*, T*, const int*, R*, T*, \
            const int*, T*, const int*, T*, const int*, R*, int*, int*,  \
            size_t);
HLOC_GESDD_COMPLEX(cgesdd_, lapack_c, float)
HLOC_GESDD_COMPLEX(zgesdd_, lapack_z, double)
#undef HLOC_GESDD_COMPLEX
#define HLOC_GEEV(name, T)                                                    \
  void name(const char*, const char*, const int*, T*, const int*, T*, T*, T*, \
            const int*, T*, const int*, T*, const int*, int*, size_t, size_t);
HLOC_GEEV(sgeev_, float)
HLOC_GEEV(dgeev_, double)
#undef HLOC_GEEV
#define HLOC_GEEV_COMPLEX(name, T, R)                                     \
  void name(const char*, const char*, const int*, T*, const int*, T*, T*, \
            const int*, T*, const int*, T*, const int*, R*, int*, size_t, \
            size_t);
HLOC_GEEV_COMPLEX(cgeev_, lapack_c, float)
HLOC_GEEV_COMPLEX(zgeev_, lapack_z, double)
#undef HLOC_GEEV_COMPLEX
// gees' select function is never called (sort = 'N'); bwork is LOGICAL.
#define HLOC_GEES(name, T)                                                     \
  void name(const char*, const char*, void*, const int*, T*, const int*, int*, \
            T*, T*, T*, const int*, T*, const int*, int*, int*, size_t,        \
            size_t);
HLOC_GEES(sgees_, float)
HLOC_GEES(dgees_, double)
#undef HLOC_GEES
#define HLOC_GEES_COMPLEX(name, T, R)                                          \
  void name(const char*, const char*, void*, const int*, T*, const int*, int*, \
            T*, T*, const int*, T*, const int*, R*, int*, int*, size_t,        \
            size_t);
HLOC_GEES_COMPLEX(cgees_, lapack_c, float)
HLOC_GEES_COMPLEX(zgees_, lapack_z, double)
#undef HLOC_GEES_COMPLEX
#define HLOC_GEHRD(name, T)                                             \
  void name(const int*, const int*, const int*, T*, const int*, T*, T*, \
            const int*, int*);
HLOC_GEHRD(sgehrd_, float)
HLOC_GEHRD(dgehrd_, double)
HLOC_GEHRD(cgehrd_, lapack_c)
HLOC_GEHRD(zgehrd_, lapack_z)
#undef HLOC_GEHRD
#define HLOC_SYTRD(name, T, R)                                       \
  void name(const char*, const int*, T*, const int*, R*, R*, T*, T*, \
            const int*, int*, size_t);
HLOC_SYTRD(ssytrd_, float, float)
HLOC_SYTRD(dsytrd_, double, double)
HLOC_SYTRD(chetrd_, lapack_c, float)
HLOC_SYTRD(zhetrd_, lapack_z, double)
#undef HLOC_SYTRD
#define HLOC_ORMQR(name, T)                                                 \
  void name(const char*, const char*, const int*, const int*, const int*,   \
            const T*, const int*, const T*, T*, const int*, T*, const int*, \
            int*, size_t, size_t);
HLOC_ORMQR(sormqr_, float)
HLOC_ORMQR(dormqr_, double)
HLOC_ORMQR(cunmqr_, lapack_c)
HLOC_ORMQR(zunmqr_, lapack_z)
#undef HLOC_ORMQR
#define HLOC_GTSV(name, T) \
  void name(const int*, const int*, T*, T*, T*, T*, const int*, int*);
HLOC_GTSV(sgtsv_, float)
HLOC_GTSV(dgtsv_, double)
HLOC_GTSV(cgtsv_, lapack_c)
HLOC_GTSV(zgtsv_, lapack_z)
#undef HLOC_GTSV
}

namespace hloc {
namespace {

// One overload per type of each routine, so the batch loops below are
// written once.
void Potrf(char uplo, int n, float* a, int* info) {
  spotrf_(&uplo, &n, a, &n, info, 1);
}
void Potrf(char uplo, int n, double* a, int* info) {
  dpotrf_(&uplo, &n, a, &n, info, 1);
}
void Potrf(char uplo, int n, lapack_c* a, int* info) {
  cpotrf_(&uplo, &n, a, &n, info, 1);
}
void Potrf(char uplo, int n, lapack_z* a, int* info) {
  zpotrf_(&uplo, &n, a, &n, info, 1);
}

#define HLOC_TRSM_CALL(T, fn)                                                  \
  void Trsm(char side, char uplo, char trans, char diag, int m, int n,         \
            const T* a, int lda, T* b) {                                       \
    const T one = 1;                                                           \
    fn(&side, &uplo, &trans, &diag, &m, &n, &one, a, &lda, b, &m, 1, 1, 1, 1); \
  }
HLOC_TRSM_CALL(float, strsm_)
HLOC_TRSM_CALL(double, dtrsm_)
HLOC_TRSM_CALL(lapack_c, ctrsm_)
HLOC_TRSM_CALL(lapack_z, ztrsm_)
#undef HLOC_TRSM_CALL

void Getrf(int m, int n, float* a, int* ipiv, int* info) {
  sgetrf_(&m, &n, a, &m, ipiv, info);
}
void Getrf(int m, int n, double* a, int* ipiv, int* info) {
  dgetrf_(&m, &n, a, &m, ipiv, info);
}
void Getrf(int m, int n, lapack_c* a, int* ipiv, int* info) {
  cgetrf_(&m, &n, a, &m, ipiv, info);
}
void Getrf(int m, int n, lapack_z* a, int* ipiv, int* info) {
  zgetrf_(&m, &n, a, &m, ipiv, info);
}

void Geqrf(int m, int n, float* a, float* tau, float* work, int lwork,
           int* info) {
  sgeqrf_(&m, &n, a, &m, tau, work, &lwork, info);
}
void Geqrf(int m, int n, double* a, double* tau, double* work, int lwork,
           int* info) {
  dgeqrf_(&m, &n, a, &m, tau, work, &lwork, info);
}
void Geqrf(int m, int n, lapack_c* a, lapack_c* tau, lapack_c* work, int lwork,
           int* info) {
  cgeqrf_(&m, &n, a, &m, tau, work, &lwork, info);
}
void Geqrf(int m, int n, lapack_z* a, lapack_z* tau, lapack_z* work, int lwork,
           int* info) {
  zgeqrf_(&m, &n, a, &m, tau, work, &lwork, info);
}

// rwork (2n) is only the complex routines'. lda is at least 1 (LAPACK
// rejects 0), so a matrix of no rows still gets its pinned columns' order.
void Geqp3(int m, int n, float* a, int* jpvt, float* tau, float* work,
           int lwork, float*, int* info) {
  const int lda = std::max(1, m);
  sgeqp3_(&m, &n, a, &lda, jpvt, tau, work, &lwork, info);
}
void Geqp3(int m, int n, double* a, int* jpvt, double* tau, double* work,
           int lwork, double*, int* info) {
  const int lda = std::max(1, m);
  dgeqp3_(&m, &n, a, &lda, jpvt, tau, work, &lwork, info);
}
void Geqp3(int m, int n, lapack_c* a, int* jpvt, lapack_c* tau, lapack_c* work,
           int lwork, float* rwork, int* info) {
  const int lda = std::max(1, m);
  cgeqp3_(&m, &n, a, &lda, jpvt, tau, work, &lwork, rwork, info);
}
void Geqp3(int m, int n, lapack_z* a, int* jpvt, lapack_z* tau, lapack_z* work,
           int lwork, double* rwork, int* info) {
  const int lda = std::max(1, m);
  zgeqp3_(&m, &n, a, &lda, jpvt, tau, work, &lwork, rwork, info);
}

void Orgqr(int m, int n, int k, float* a, const float* tau, float* work,
           int lwork, int* info) {
  sorgqr_(&m, &n, &k, a, &m, tau, work, &lwork, info);
}
void Orgqr(int m, int n, int k, double* a, const double* tau, double* work,
           int lwork, int* info) {
  dorgqr_(&m, &n, &k, a, &m, tau, work, &lwork, info);
}
void Orgqr(int m, int n, int k, lapack_c* a, const lapack_c* tau,
           lapack_c* work, int lwork, int* info) {
  cungqr_(&m, &n, &k, a, &m, tau, work, &lwork, info);
}
void Orgqr(int m, int n, int k, lapack_z* a, const lapack_z* tau,
           lapack_z* work, int lwork, int* info) {
  zungqr_(&m, &n, &k, a, &m, tau, work, &lwork, info);
}

// rwork is only the complex routines'.
void Syevd(char jobz, char uplo, int n, float* a, float* w, float* work,
           int lwork, float*, int, int* iwork, int liwork, int* info) {
  ssyevd_(&jobz, &uplo, &n, a, &n, w, work, &lwork, iwork, &liwork, info, 1, 1);
}
void Syevd(char jobz, char uplo, int n, double* a, double* w, double* work,
           int lwork, double*, int, int* iwork, int liwork, int* info) {
  dsyevd_(&jobz, &uplo, &n, a, &n, w, work, &lwork, iwork, &liwork, info, 1, 1);
}
void Syevd(char jobz, char uplo, int n, lapack_c* a, float* w, lapack_c* work,
           int lwork, float* rwork, int lrwork, int* iwork, int liwork,
           int* info) {
  cheevd_(&jobz, &uplo, &n, a, &n, w, work, &lwork, rwork, &lrwork, iwork,
          &liwork, info, 1, 1);
}
void Syevd(char jobz, char uplo, int n, lapack_z* a, double* w, lapack_z* work,
           int lwork, double* rwork, int lrwork, int* iwork, int liwork,
           int* info) {
  zheevd_(&jobz, &uplo, &n, a, &n, w, work, &lwork, rwork, &lrwork, iwork,
          &liwork, info, 1, 1);
}

template <typename T>
struct RealOf {
  using type = T;
};
template <typename T>
struct RealOf<std::complex<T>> {
  using type = T;
};
template <typename T>
constexpr bool kIsComplex = !std::is_same_v<T, typename RealOf<T>::type>;

// rwork is only the complex routines'.
void Gesdd(char jobz, int m, int n, float* a, float* s, float* u, int ldu,
           float* vt, int ldvt, float* work, int lwork, float*, int* iwork,
           int* info) {
  sgesdd_(&jobz, &m, &n, a, &m, s, u, &ldu, vt, &ldvt, work, &lwork, iwork,
          info, 1);
}
void Gesdd(char jobz, int m, int n, double* a, double* s, double* u, int ldu,
           double* vt, int ldvt, double* work, int lwork, double*, int* iwork,
           int* info) {
  dgesdd_(&jobz, &m, &n, a, &m, s, u, &ldu, vt, &ldvt, work, &lwork, iwork,
          info, 1);
}
void Gesdd(char jobz, int m, int n, lapack_c* a, float* s, lapack_c* u, int ldu,
           lapack_c* vt, int ldvt, lapack_c* work, int lwork, float* rwork,
           int* iwork, int* info) {
  cgesdd_(&jobz, &m, &n, a, &m, s, u, &ldu, vt, &ldvt, work, &lwork, rwork,
          iwork, info, 1);
}
void Gesdd(char jobz, int m, int n, lapack_z* a, double* s, lapack_z* u,
           int ldu, lapack_z* vt, int ldvt, lapack_z* work, int lwork,
           double* rwork, int* iwork, int* info) {
  zgesdd_(&jobz, &m, &n, a, &m, s, u, &ldu, vt, &ldvt, work, &lwork, rwork,
          iwork, info, 1);
}

// Real geev: eigenvalues as (wr, wi), eigenvectors packed in real
// matrices.
void Geev(char jobvl, char jobvr, int n, float* a, float* wr, float* wi,
          float* vl, float* vr, int ldv, float* work, int lwork, int* info) {
  sgeev_(&jobvl, &jobvr, &n, a, &n, wr, wi, vl, &ldv, vr, &ldv, work, &lwork,
         info, 1, 1);
}
void Geev(char jobvl, char jobvr, int n, double* a, double* wr, double* wi,
          double* vl, double* vr, int ldv, double* work, int lwork, int* info) {
  dgeev_(&jobvl, &jobvr, &n, a, &n, wr, wi, vl, &ldv, vr, &ldv, work, &lwork,
         info, 1, 1);
}
void Geev(char jobvl, char jobvr, int n, lapack_c* a, lapack_c* w, lapack_c* vl,
          lapack_c* vr, int ldv, lapack_c* work, int lwork, float* rwork,
          int* info) {
  cgeev_(&jobvl, &jobvr, &n, a, &n, w, vl, &ldv, vr, &ldv, work, &lwork, rwork,
         info, 1, 1);
}
void Geev(char jobvl, char jobvr, int n, lapack_z* a, lapack_z* w, lapack_z* vl,
          lapack_z* vr, int ldv, lapack_z* work, int lwork, double* rwork,
          int* info) {
  zgeev_(&jobvl, &jobvr, &n, a, &n, w, vl, &ldv, vr, &ldv, work, &lwork, rwork,
         info, 1, 1);
}

// gees without sorting: no select function, no bwork.
void Gees(char jobvs, int n, float* a, int* sdim, float* wr, float* wi,
          float* vs, int ldvs, float* work, int lwork, int* info) {
  const char sort = 'N';
  sgees_(&jobvs, &sort, nullptr, &n, a, &n, sdim, wr, wi, vs, &ldvs, work,
         &lwork, nullptr, info, 1, 1);
}
void Gees(char jobvs, int n, double* a, int* sdim, double* wr, double* wi,
          double* vs, int ldvs, double* work, int lwork, int* info) {
  const char sort = 'N';
  dgees_(&jobvs, &sort, nullptr, &n, a, &n, sdim, wr, wi, vs, &ldvs, work,
         &lwork, nullptr, info, 1, 1);
}
void Gees(char jobvs, int n, lapack_c* a, int* sdim, lapack_c* w, lapack_c* vs,
          int ldvs, lapack_c* work, int lwork, float* rwork, int* info) {
  const char sort = 'N';
  cgees_(&jobvs, &sort, nullptr, &n, a, &n, sdim, w, vs, &ldvs, work, &lwork,
         rwork, nullptr, info, 1, 1);
}
void Gees(char jobvs, int n, lapack_z* a, int* sdim, lapack_z* w, lapack_z* vs,
          int ldvs, lapack_z* work, int lwork, double* rwork, int* info) {
  const char sort = 'N';
  zgees_(&jobvs, &sort, nullptr, &n, a, &n, sdim, w, vs, &ldvs, work, &lwork,
         rwork, nullptr, info, 1, 1);
}

#define HLOC_GEHRD_CALL(T, fn)                                          \
  void Gehrd(int n, int ilo, int ihi, T* a, T* tau, T* work, int lwork, \
             int* info) {                                               \
    const int lda = std::max(n, 1);                                     \
    fn(&n, &ilo, &ihi, a, &lda, tau, work, &lwork, info);               \
  }
HLOC_GEHRD_CALL(float, sgehrd_)
HLOC_GEHRD_CALL(double, dgehrd_)
HLOC_GEHRD_CALL(lapack_c, cgehrd_)
HLOC_GEHRD_CALL(lapack_z, zgehrd_)
#undef HLOC_GEHRD_CALL

#define HLOC_SYTRD_CALL(T, fn)                                        \
  void Sytrd(char uplo, int n, T* a, typename RealOf<T>::type* d,     \
             typename RealOf<T>::type* e, T* tau, T* work, int lwork, \
             int* info) {                                             \
    const int lda = std::max(n, 1);                                   \
    fn(&uplo, &n, a, &lda, d, e, tau, work, &lwork, info, 1);         \
  }
HLOC_SYTRD_CALL(float, ssytrd_)
HLOC_SYTRD_CALL(double, dsytrd_)
HLOC_SYTRD_CALL(lapack_c, chetrd_)
HLOC_SYTRD_CALL(lapack_z, zhetrd_)
#undef HLOC_SYTRD_CALL

#define HLOC_ORMQR_CALL(T, fn)                                                \
  void Ormqr(char side, char trans, int m, int n, int k, const T* a, int lda, \
             const T* tau, T* c, T* work, int lwork, int* info) {             \
    const int ldc = std::max(m, 1);                                           \
    fn(&side, &trans, &m, &n, &k, a, &lda, tau, c, &ldc, work, &lwork, info,  \
       1, 1);                                                                 \
  }
HLOC_ORMQR_CALL(float, sormqr_)
HLOC_ORMQR_CALL(double, dormqr_)
HLOC_ORMQR_CALL(lapack_c, cunmqr_)
HLOC_ORMQR_CALL(lapack_z, zunmqr_)
#undef HLOC_ORMQR_CALL

#define HLOC_GTSV_CALL(T, fn)                                       \
  void Gtsv(int n, int nrhs, T* dl, T* d, T* du, T* b, int* info) { \
    const int ldb = std::max(n, 1);                                 \
    fn(&n, &nrhs, dl, d, du, b, &ldb, info);                        \
  }
HLOC_GTSV_CALL(float, sgtsv_)
HLOC_GTSV_CALL(double, dgtsv_)
HLOC_GTSV_CALL(lapack_c, cgtsv_)
HLOC_GTSV_CALL(lapack_z, zgtsv_)
#undef HLOC_GTSV_CALL

// The matrices (the last two dimensions) of a row-major array, column-major
// for LAPACK, and back.
struct Batch {
  int64_t count, rows, cols;
};
Batch BatchOf(const Shape& shape) {
  const int64_t rows = shape.dimensions(shape.rank() - 2);
  const int64_t cols = shape.dimensions(shape.rank() - 1);
  return {rows * cols == 0 ? 0 : shape.ElementCount() / (rows * cols), rows,
          cols};
}
template <typename T>
std::vector<T> ToColumnMajor(const Literal& literal) {
  const Batch b = BatchOf(literal.shape());
  auto in = literal.data<T>();
  std::vector<T> out(in.size());
  for (int64_t m = 0; m < b.count; ++m) {
    const int64_t base = m * b.rows * b.cols;
    for (int64_t i = 0; i < b.rows; ++i) {
      for (int64_t j = 0; j < b.cols; ++j) {
        out[base + j * b.rows + i] = in[base + i * b.cols + j];
      }
    }
  }
  return out;
}
template <typename T>
void FromColumnMajor(const std::vector<T>& in, Literal* literal) {
  const Batch b = BatchOf(literal->shape());
  auto out = literal->data<T>();
  for (int64_t m = 0; m < b.count; ++m) {
    const int64_t base = m * b.rows * b.cols;
    for (int64_t i = 0; i < b.rows; ++i) {
      for (int64_t j = 0; j < b.cols; ++j) {
        out[base + i * b.cols + j] = in[base + j * b.rows + i];
      }
    }
  }
}

// A workspace size from a query (LAPACK returns it as a float in work[0]).
template <typename T>
int WorkSize(T query) {
  return std::max(1, static_cast<int>(std::real(query)));
}

template <typename T>
void PotrfBatch(const LibraryConfig& config, std::vector<Literal>* operands,
                std::vector<Literal>* results) {
  const Batch b = BatchOf((*operands)[0].shape());
  std::vector<T> a = ToColumnMajor<T>((*operands)[0]);
  const int n = static_cast<int>(b.rows);
  const bool lower = config.uplo == 'L';
  for (int64_t m = 0; m < b.count; ++m) {
    T* matrix = a.data() + m * b.rows * b.rows;
    int info = 0;
    if (n > 0) Potrf(config.uplo, n, matrix, &info);
    if (!config.hlo_cholesky) {
      (*results)[1].data<int32_t>()[m] = info;
      continue;
    }
    // XLA's cholesky: zeros in the other triangle, NaN from the column
    // whose pivot was not positive on (its own unblocked algorithm carries
    // the NaN of that pivot's square root into every later column).
    const T nan = std::numeric_limits<typename RealOf<T>::type>::quiet_NaN();
    for (int64_t j = 0; j < b.rows; ++j) {
      for (int64_t i = 0; i < b.rows; ++i) {
        // (row i, column j) of the factor; in L terms column min(i, j)
        // of the lower case, max's transpose of the upper one.
        const bool inside = lower ? i >= j : i <= j;
        const int64_t factor_column = lower ? j : i;
        T& x = matrix[j * b.rows + i];
        if (!inside) {
          x = 0;
        } else if (info > 0 && factor_column >= info - 1) {
          x = nan;
        }
      }
    }
  }
  FromColumnMajor(a, &(*results)[0]);
}

template <typename T>
void TrsmBatch(const LibraryConfig& config, std::vector<Literal>* operands,
               std::vector<Literal>* results) {
  const Batch ab = BatchOf((*operands)[0].shape());
  const Batch bb = BatchOf((*operands)[1].shape());
  const std::vector<T> a = ToColumnMajor<T>((*operands)[0]);
  std::vector<T> x = ToColumnMajor<T>((*operands)[1]);
  for (int64_t m = 0; m < bb.count; ++m) {
    if (bb.rows == 0 || bb.cols == 0) break;
    Trsm(config.side, config.uplo, config.trans, config.diag,
         static_cast<int>(bb.rows), static_cast<int>(bb.cols),
         a.data() + m * ab.rows * ab.cols,
         static_cast<int>(std::max<int64_t>(ab.rows, 1)),
         x.data() + m * bb.rows * bb.cols);
  }
  FromColumnMajor(x, &(*results)[0]);
}

template <typename T>
void GetrfBatch(std::vector<Literal>* operands, std::vector<Literal>* results) {
  const Batch b = BatchOf((*operands)[0].shape());
  const int64_t k = std::min(b.rows, b.cols);
  std::vector<T> a = ToColumnMajor<T>((*operands)[0]);
  for (int64_t m = 0; m < b.count; ++m) {
    int info = 0;
    int32_t* ipiv = (*results)[1].data<int32_t>().data() + m * k;
    if (k > 0) {
      Getrf(static_cast<int>(b.rows), static_cast<int>(b.cols),
            a.data() + m * b.rows * b.cols, ipiv, &info);
    }
    (*results)[2].data<int32_t>()[m] = info;
  }
  FromColumnMajor(a, &(*results)[0]);
}

template <typename T>
void GeqrfBatch(std::vector<Literal>* operands, std::vector<Literal>* results) {
  const Batch b = BatchOf((*operands)[0].shape());
  const int64_t k = std::min(b.rows, b.cols);
  std::vector<T> a = ToColumnMajor<T>((*operands)[0]);
  const int m = static_cast<int>(b.rows), n = static_cast<int>(b.cols);
  if (k > 0) {
    T query = 0;
    int info = 0;
    Geqrf(m, n, a.data(), (*results)[1].data<T>().data(), &query, -1, &info);
    std::vector<T> work(WorkSize(query));
    for (int64_t i = 0; i < b.count; ++i) {
      Geqrf(m, n, a.data() + i * b.rows * b.cols,
            (*results)[1].data<T>().data() + i * k, work.data(),
            static_cast<int>(work.size()), &info);
    }
  }
  FromColumnMajor(a, &(*results)[0]);
}

// jpvt in and out as LAPACK's (1-based; a non-zero entry pins its column).
template <typename T>
void Geqp3Batch(std::vector<Literal>* operands, std::vector<Literal>* results) {
  const Batch b = BatchOf((*operands)[0].shape());
  const int64_t k = std::min(b.rows, b.cols);
  std::vector<T> a = ToColumnMajor<T>((*operands)[0]);
  auto jpvt = (*results)[1].data<int32_t>();
  auto pinned = (*operands)[1].data<int32_t>();
  std::copy(pinned.begin(), pinned.end(), jpvt.begin());
  const int m = static_cast<int>(b.rows), n = static_cast<int>(b.cols);
  T* tau = (*results)[2].data<T>().data();
  if (n > 0) {
    std::vector<typename RealOf<T>::type> rwork(2 * b.cols);
    T query = 0;
    int info = 0;
    Geqp3(m, n, a.data(), jpvt.data(), tau, &query, -1, rwork.data(), &info);
    std::vector<T> work(WorkSize(query));
    for (int64_t i = 0; i < b.count; ++i) {
      Geqp3(m, n, a.data() + i * b.rows * b.cols, jpvt.data() + i * b.cols,
            tau + i * k, work.data(), static_cast<int>(work.size()),
            rwork.data(), &info);
    }
  }
  FromColumnMajor(a, &(*results)[0]);
}

template <typename T>
void OrgqrBatch(std::vector<Literal>* operands, std::vector<Literal>* results) {
  const Batch b = BatchOf((*operands)[0].shape());
  const int64_t k = (*operands)[1].shape().dimensions().back();
  std::vector<T> a = ToColumnMajor<T>((*operands)[0]);
  const T* tau = (*operands)[1].data<T>().data();
  const int m = static_cast<int>(b.rows), n = static_cast<int>(b.cols);
  if (n > 0) {
    T query = 0;
    int info = 0;
    Orgqr(m, n, static_cast<int>(k), a.data(), tau, &query, -1, &info);
    std::vector<T> work(WorkSize(query));
    for (int64_t i = 0; i < b.count; ++i) {
      Orgqr(m, n, static_cast<int>(k), a.data() + i * b.rows * b.cols,
            tau + i * k, work.data(), static_cast<int>(work.size()), &info);
    }
  }
  FromColumnMajor(a, &(*results)[0]);
}

template <typename T>
void SyevdBatch(const LibraryConfig& config, std::vector<Literal>* operands,
                std::vector<Literal>* results) {
  using Real = typename RealOf<T>::type;
  const Batch b = BatchOf((*operands)[0].shape());
  std::vector<T> a = ToColumnMajor<T>((*operands)[0]);
  const int n = static_cast<int>(b.rows);
  if (n > 0) {
    T work_query = 0;
    Real rwork_query = 0;
    int iwork_query = 0, info = 0;
    Syevd(config.mode, config.uplo, n, a.data(),
          (*results)[1].data<Real>().data(), &work_query, -1, &rwork_query, -1,
          &iwork_query, -1, &info);
    std::vector<T> work(WorkSize(work_query));
    std::vector<Real> rwork(std::max(1, static_cast<int>(rwork_query)));
    std::vector<int> iwork(std::max(1, iwork_query));
    for (int64_t i = 0; i < b.count; ++i) {
      Syevd(config.mode, config.uplo, n, a.data() + i * b.rows * b.rows,
            (*results)[1].data<Real>().data() + i * b.rows, work.data(),
            static_cast<int>(work.size()), rwork.data(),
            static_cast<int>(rwork.size()), iwork.data(),
            static_cast<int>(iwork.size()), &info);
      (*results)[2].data<int32_t>()[i] = info;
    }
  } else {
    for (int32_t& info : (*results)[2].data<int32_t>()) info = 0;
  }
  FromColumnMajor(a, &(*results)[0]);
}

// The number of elements of a matrix, as LAPACK's 32-bit sizes.
int AsInt(int64_t value) { return static_cast<int>(value); }

template <typename T>
void GesddBatch(const LibraryConfig& config, std::vector<Literal>* operands,
                std::vector<Literal>* results) {
  using Real = typename RealOf<T>::type;
  const Batch b = BatchOf((*operands)[0].shape());
  const int64_t m = b.rows, n = b.cols, k = std::min(m, n);
  const Batch ub = BatchOf((*results)[2].shape());
  const Batch vb = BatchOf((*results)[3].shape());
  std::vector<T> a = ToColumnMajor<T>((*operands)[0]);
  std::vector<T> u(ub.count * ub.rows * ub.cols);
  std::vector<T> vt(vb.count * vb.rows * vb.cols);
  Real* s = (*results)[1].data<Real>().data();
  int32_t* infos = (*results)[4].data<int32_t>().data();
  if (k > 0) {
    const int ldu = AsInt(std::max<int64_t>(m, 1));
    const int ldvt = AsInt(std::max<int64_t>(vb.rows, 1));
    // LAPACK's bound for rwork (the complex routines only).
    const int64_t rwork_size =
        config.mode == 'N' ? 7 * k
                           : std::max(5 * k * k + 5 * k,
                                      2 * std::max(m, n) * k + 2 * k * k + k);
    std::vector<Real> rwork(kIsComplex<T> ? rwork_size : 1);
    std::vector<int> iwork(8 * k);
    // u and vt are not referenced for 'N' (still valid pointers).
    T dummy = 0;
    T* u0 = u.empty() ? &dummy : u.data();
    T* vt0 = vt.empty() ? &dummy : vt.data();
    T query = 0;
    int info = 0;
    Gesdd(config.mode, AsInt(m), AsInt(n), a.data(), s, u0, ldu, vt0, ldvt,
          &query, -1, rwork.data(), iwork.data(), &info);
    std::vector<T> work(WorkSize(query));
    for (int64_t i = 0; i < b.count; ++i) {
      Gesdd(config.mode, AsInt(m), AsInt(n), a.data() + i * m * n, s + i * k,
            u.empty() ? &dummy : u.data() + i * ub.rows * ub.cols, ldu,
            vt.empty() ? &dummy : vt.data() + i * vb.rows * vb.cols, ldvt,
            work.data(), static_cast<int>(work.size()), rwork.data(),
            iwork.data(), &info);
      infos[i] = info;
    }
  }
  FromColumnMajor(a, &(*results)[0]);
  if (config.mode != 'N') {
    FromColumnMajor(u, &(*results)[2]);
    FromColumnMajor(vt, &(*results)[3]);
  }
}

template <typename T>
bool AllFinite(const T* data, int64_t size) {
  for (int64_t i = 0; i < size; ++i) {
    if (!std::isfinite(std::real(data[i])) ||
        !std::isfinite(std::imag(data[i]))) {
      return false;
    }
  }
  return true;
}

// Real geev packs a complex conjugate pair of eigenvectors (columns j and
// j + 1, column-major n x n) as their real and imaginary parts.
template <typename Real>
void UnpackEigenvectors(int64_t n, const Real* wi, const Real* packed,
                        std::complex<Real>* out) {
  for (int64_t j = 0; j < n;) {
    if (wi[j] == 0 || std::isnan(wi[j]) || j + 1 == n) {
      for (int64_t i = 0; i < n; ++i) out[j * n + i] = packed[j * n + i];
      ++j;
      continue;
    }
    for (int64_t i = 0; i < n; ++i) {
      const Real re = packed[j * n + i], im = packed[(j + 1) * n + i];
      out[j * n + i] = {re, im};
      out[(j + 1) * n + i] = {re, -im};
    }
    j += 2;
  }
}

// geev, in place, on each of the `count` column-major n x n matrices of
// `a`, as jaxlib runs it: a matrix with a non-finite element is not passed
// to LAPACK (info -4, its outputs left as they are). Matrix i's eigenvalues
// go to w[i * n ...] (a real matrix's as wr + i wi), its eigenvectors, as
// geev returns them (a real matrix's packed in real columns), to vl and vr
// at i * n * n.
template <typename T>
void GeevEach(const LibraryConfig& config, int64_t n, int64_t count, T* a,
              std::complex<typename RealOf<T>::type>* w, T* vl, T* vr,
              int32_t* infos) {
  using Real = typename RealOf<T>::type;
  if (n == 0 || count == 0) return;
  const int ldv = AsInt(n);
  std::vector<Real> rwork(2 * n), wr(n), wi(n);
  T query = 0;
  int info = 0;
  if constexpr (kIsComplex<T>) {
    Geev(config.jobvl, config.jobvr, AsInt(n), a, w, vl, vr, ldv, &query, -1,
         rwork.data(), &info);
  } else {
    Geev(config.jobvl, config.jobvr, AsInt(n), a, wr.data(), wi.data(), vl, vr,
         ldv, &query, -1, &info);
  }
  std::vector<T> work(WorkSize(query));
  for (int64_t i = 0; i < count; ++i) {
    T* matrix = a + i * n * n;
    if (!AllFinite(matrix, n * n)) {
      infos[i] = -4;
      continue;
    }
    if constexpr (kIsComplex<T>) {
      Geev(config.jobvl, config.jobvr, AsInt(n), matrix, w + i * n,
           vl + i * n * n, vr + i * n * n, ldv, work.data(),
           static_cast<int>(work.size()), rwork.data(), &info);
    } else {
      Geev(config.jobvl, config.jobvr, AsInt(n), matrix, wr.data(), wi.data(),
           vl + i * n * n, vr + i * n * n, ldv, work.data(),
           static_cast<int>(work.size()), &info);
      for (int64_t j = 0; j < n; ++j) {
        w[i * n + j] = std::complex<Real>(wr[j], wi[j]);
      }
    }
    infos[i] = info;
  }
}

// jaxlib's CPU convention: a real matrix's eigenvalues as (wr, wi) and its
// eigenvectors unpacked into complex ones (where geev succeeded); outputs
// of a non-finite matrix zero; eigenvectors not asked for stay zero.
template <typename T>
void GeevBatch(const LibraryConfig& config, std::vector<Literal>* operands,
               std::vector<Literal>* results) {
  using Real = typename RealOf<T>::type;
  using Complex = std::complex<Real>;
  const Batch b = BatchOf((*operands)[0].shape());
  const int64_t n = b.rows;
  std::vector<T> a = ToColumnMajor<T>((*operands)[0]);
  std::vector<T> packed_vl(a.size()), packed_vr(a.size());
  std::vector<Complex> w(b.count * n);
  const int vectors_at = kIsComplex<T> ? 1 : 2;
  int32_t* infos = (*results)[vectors_at + 2].data<int32_t>().data();
  GeevEach(config, n, b.count, a.data(), w.data(), packed_vl.data(),
           packed_vr.data(), infos);
  if constexpr (kIsComplex<T>) {
    std::copy(w.begin(), w.end(), (*results)[0].data<T>().begin());
    if (config.jobvl == 'V') FromColumnMajor(packed_vl, &(*results)[1]);
    if (config.jobvr == 'V') FromColumnMajor(packed_vr, &(*results)[2]);
  } else {
    std::vector<Complex> vl(a.size()), vr(a.size());
    Real* wr = (*results)[0].data<Real>().data();
    Real* wi_out = (*results)[1].data<Real>().data();
    std::vector<Real> wi(n);
    for (int64_t i = 0; i < b.count; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        wr[i * n + j] = w[i * n + j].real();
        wi_out[i * n + j] = wi[j] = w[i * n + j].imag();
      }
      if (infos[i] != 0) continue;
      if (config.jobvl == 'V') {
        UnpackEigenvectors(n, wi.data(), packed_vl.data() + i * n * n,
                           vl.data() + i * n * n);
      }
      if (config.jobvr == 'V') {
        UnpackEigenvectors(n, wi.data(), packed_vr.data() + i * n * n,
                           vr.data() + i * n * n);
      }
    }
    if (config.jobvl == 'V') FromColumnMajor(vl, &(*results)[2]);
    if (config.jobvr == 'V') FromColumnMajor(vr, &(*results)[3]);
  }
}

// cuSOLVER's Xgeev convention (JAX's cusolver_geev_ffi): the matrix as
// geev leaves it, complex eigenvalues, and the eigenvectors as geev
// returns them (a real matrix's packed in real columns: a conjugate pair's
// real and imaginary parts side by side, which JAX unpacks in HLO).
template <typename T>
void XgeevBatch(const LibraryConfig& config, std::vector<Literal>* operands,
                std::vector<Literal>* results) {
  using Complex = std::complex<typename RealOf<T>::type>;
  const Batch b = BatchOf((*operands)[0].shape());
  std::vector<T> a = ToColumnMajor<T>((*operands)[0]);
  std::vector<T> vl(a.size()), vr(a.size());
  GeevEach(config, b.rows, b.count, a.data(),
           (*results)[1].data<Complex>().data(), vl.data(), vr.data(),
           (*results)[4].data<int32_t>().data());
  FromColumnMajor(a, &(*results)[0]);
  FromColumnMajor(vl, &(*results)[2]);
  FromColumnMajor(vr, &(*results)[3]);
}

template <typename T>
void GeesBatch(const LibraryConfig& config, std::vector<Literal>* operands,
               std::vector<Literal>* results) {
  using Real = typename RealOf<T>::type;
  const Batch b = BatchOf((*operands)[0].shape());
  const int64_t n = b.rows;
  std::vector<T> a = ToColumnMajor<T>((*operands)[0]);
  std::vector<T> vs(a.size());
  const int sdim_at = kIsComplex<T> ? 3 : 4;
  int32_t* sdims = (*results)[sdim_at].data<int32_t>().data();
  int32_t* infos = (*results)[sdim_at + 1].data<int32_t>().data();
  if (n > 0) {
    const int ldvs = AsInt(n);
    std::vector<Real> rwork(n);
    T query = 0;
    int info = 0, sdim = 0;
    std::vector<T> w_query(n), w2_query(n);
    if constexpr (kIsComplex<T>) {
      Gees(config.mode, AsInt(n), a.data(), &sdim, w_query.data(), vs.data(),
           ldvs, &query, -1, rwork.data(), &info);
    } else {
      Gees(config.mode, AsInt(n), a.data(), &sdim, w_query.data(),
           w2_query.data(), vs.data(), ldvs, &query, -1, &info);
    }
    std::vector<T> work(WorkSize(query));
    for (int64_t i = 0; i < b.count; ++i) {
      T* matrix = a.data() + i * n * n;
      T* vectors = vs.data() + i * n * n;
      if constexpr (kIsComplex<T>) {
        Gees(config.mode, AsInt(n), matrix, &sdim,
             (*results)[2].data<T>().data() + i * n, vectors, ldvs, work.data(),
             static_cast<int>(work.size()), rwork.data(), &info);
      } else {
        Gees(config.mode, AsInt(n), matrix, &sdim,
             (*results)[2].data<T>().data() + i * n,
             (*results)[3].data<T>().data() + i * n, vectors, ldvs, work.data(),
             static_cast<int>(work.size()), &info);
      }
      sdims[i] = sdim;
      infos[i] = info;
    }
  }
  FromColumnMajor(a, &(*results)[0]);
  if (config.mode == 'V') FromColumnMajor(vs, &(*results)[1]);
}

template <typename T>
void GehrdBatch(const LibraryConfig& config, std::vector<Literal>* operands,
                std::vector<Literal>* results) {
  const Batch b = BatchOf((*operands)[0].shape());
  const int64_t n = b.rows;
  std::vector<T> a = ToColumnMajor<T>((*operands)[0]);
  int32_t* infos = (*results)[2].data<int32_t>().data();
  if (n > 0) {
    T* tau = (*results)[1].data<T>().data();
    // n = 1 has no reflector; LAPACK still writes nothing there.
    std::vector<T> tau_scratch(std::max<int64_t>(n - 1, 1));
    T query = 0;
    int info = 0;
    Gehrd(AsInt(n), AsInt(config.ilo), AsInt(config.ihi), a.data(),
          tau_scratch.data(), &query, -1, &info);
    std::vector<T> work(WorkSize(query));
    for (int64_t i = 0; i < b.count; ++i) {
      Gehrd(AsInt(n), AsInt(config.ilo), AsInt(config.ihi),
            a.data() + i * n * n, tau_scratch.data(), work.data(),
            static_cast<int>(work.size()), &info);
      std::copy(tau_scratch.begin(), tau_scratch.begin() + (n - 1),
                tau + i * (n - 1));
      infos[i] = info;
    }
  }
  FromColumnMajor(a, &(*results)[0]);
}

template <typename T>
void SytrdBatch(const LibraryConfig& config, std::vector<Literal>* operands,
                std::vector<Literal>* results) {
  using Real = typename RealOf<T>::type;
  const Batch b = BatchOf((*operands)[0].shape());
  const int64_t n = b.rows;
  std::vector<T> a = ToColumnMajor<T>((*operands)[0]);
  int32_t* infos = (*results)[4].data<int32_t>().data();
  if (n > 0) {
    Real* d = (*results)[1].data<Real>().data();
    Real* e = (*results)[2].data<Real>().data();
    T* tau = (*results)[3].data<T>().data();
    std::vector<Real> e_scratch(std::max<int64_t>(n - 1, 1));
    std::vector<T> tau_scratch(std::max<int64_t>(n - 1, 1));
    T query = 0;
    int info = 0;
    Sytrd(config.uplo, AsInt(n), a.data(), d, e_scratch.data(),
          tau_scratch.data(), &query, -1, &info);
    std::vector<T> work(WorkSize(query));
    for (int64_t i = 0; i < b.count; ++i) {
      Sytrd(config.uplo, AsInt(n), a.data() + i * n * n, d + i * n,
            e_scratch.data(), tau_scratch.data(), work.data(),
            static_cast<int>(work.size()), &info);
      std::copy(e_scratch.begin(), e_scratch.begin() + (n - 1),
                e + i * (n - 1));
      std::copy(tau_scratch.begin(), tau_scratch.begin() + (n - 1),
                tau + i * (n - 1));
      infos[i] = info;
    }
  }
  FromColumnMajor(a, &(*results)[0]);
}

template <typename T>
void OrmqrBatch(const LibraryConfig& config, std::vector<Literal>* operands,
                std::vector<Literal>* results) {
  const Batch ab = BatchOf((*operands)[0].shape());
  const Batch cb = BatchOf((*operands)[2].shape());
  const int64_t k = (*operands)[1].shape().dimensions().back();
  const std::vector<T> a = ToColumnMajor<T>((*operands)[0]);
  const T* tau = (*operands)[1].data<T>().data();
  std::vector<T> c = ToColumnMajor<T>((*operands)[2]);
  if (cb.rows > 0 && cb.cols > 0) {
    const int lda = AsInt(std::max<int64_t>(ab.rows, 1));
    T query = 0;
    int info = 0;
    Ormqr(config.side, config.trans, AsInt(cb.rows), AsInt(cb.cols), AsInt(k),
          a.data(), lda, tau, c.data(), &query, -1, &info);
    std::vector<T> work(WorkSize(query));
    for (int64_t i = 0; i < cb.count; ++i) {
      Ormqr(config.side, config.trans, AsInt(cb.rows), AsInt(cb.cols), AsInt(k),
            a.data() + i * ab.rows * ab.cols, lda, tau + i * k,
            c.data() + i * cb.rows * cb.cols, work.data(),
            static_cast<int>(work.size()), &info);
    }
  }
  FromColumnMajor(c, &(*results)[0]);
}

// The diagonals are overwritten in place as jaxlib's are: LAPACK's dl
// starts at dl[1] (dl[0] is outside the matrix).
template <typename T>
void GtsvBatch(std::vector<Literal>* operands, std::vector<Literal>* results) {
  const Batch b = BatchOf((*operands)[3].shape());
  const int64_t n = b.rows;
  for (int i = 0; i < 3; ++i) {
    auto in = (*operands)[i].data<T>();
    std::copy(in.begin(), in.end(), (*results)[i].data<T>().begin());
  }
  T* dl = (*results)[0].data<T>().data();
  T* d = (*results)[1].data<T>().data();
  T* du = (*results)[2].data<T>().data();
  std::vector<T> x = ToColumnMajor<T>((*operands)[3]);
  int32_t* infos = (*results)[4].data<int32_t>().data();
  if (n > 0) {
    for (int64_t i = 0; i < b.count; ++i) {
      int info = 0;
      Gtsv(AsInt(n), AsInt(b.cols), dl + i * n + 1, d + i * n, du + i * n,
           x.data() + i * n * b.cols, &info);
      infos[i] = info;
    }
  }
  FromColumnMajor(x, &(*results)[3]);
}

template <typename T>
void Dispatch(LapackRoutine routine, const LibraryConfig& config,
              std::vector<Literal>* operands, std::vector<Literal>* results) {
  switch (routine) {
    case LapackRoutine::kPotrf:
      return PotrfBatch<T>(config, operands, results);
    case LapackRoutine::kTrsm:
      return TrsmBatch<T>(config, operands, results);
    case LapackRoutine::kGetrf:
      return GetrfBatch<T>(operands, results);
    case LapackRoutine::kGeqrf:
      return GeqrfBatch<T>(operands, results);
    case LapackRoutine::kOrgqr:
      return OrgqrBatch<T>(operands, results);
    case LapackRoutine::kSyevd:
      return SyevdBatch<T>(config, operands, results);
    case LapackRoutine::kGesdd:
      return GesddBatch<T>(config, operands, results);
    case LapackRoutine::kGeev:
      return GeevBatch<T>(config, operands, results);
    case LapackRoutine::kGees:
      return GeesBatch<T>(config, operands, results);
    case LapackRoutine::kGehrd:
      return GehrdBatch<T>(config, operands, results);
    case LapackRoutine::kSytrd:
      return SytrdBatch<T>(config, operands, results);
    case LapackRoutine::kOrmqr:
      return OrmqrBatch<T>(config, operands, results);
    case LapackRoutine::kGtsv:
      return GtsvBatch<T>(operands, results);
    case LapackRoutine::kGeqp3:
      return Geqp3Batch<T>(operands, results);
    case LapackRoutine::kXgeev:
      return XgeevBatch<T>(config, operands, results);
  }
}

constexpr std::pair<LapackRoutine, const char*> kLibraries[] = {
    {LapackRoutine::kPotrf, "lapack.potrf"},
    {LapackRoutine::kTrsm, "lapack.trsm"},
    {LapackRoutine::kGetrf, "lapack.getrf"},
    {LapackRoutine::kGeqrf, "lapack.geqrf"},
    {LapackRoutine::kOrgqr, "lapack.orgqr"},
    {LapackRoutine::kSyevd, "lapack.syevd"},
    {LapackRoutine::kGesdd, "lapack.gesdd"},
    {LapackRoutine::kGeev, "lapack.geev"},
    {LapackRoutine::kGees, "lapack.gees"},
    {LapackRoutine::kGehrd, "lapack.gehrd"},
    {LapackRoutine::kSytrd, "lapack.sytrd"},
    {LapackRoutine::kOrmqr, "lapack.ormqr"},
    {LapackRoutine::kGtsv, "lapack.gtsv"},
    {LapackRoutine::kGeqp3, "lapack.geqp3"},
    {LapackRoutine::kXgeev, "lapack.xgeev"},
};

}  // namespace

absl::StatusOr<LapackRoutine> LapackRoutineFromLibrary(
    absl::string_view library) {
  for (const auto& [routine, name] : kLibraries) {
    if (library == name) return routine;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown CPU library call '", library, "'"));
}

std::string LapackLibraryName(LapackRoutine routine) {
  for (const auto& [r, name] : kLibraries) {
    if (r == routine) return name;
  }
  return "lapack.?";
}

absl::Status CheckLapack(LapackRoutine routine, const LibraryConfig& config,
                         const std::vector<Shape>& operands,
                         const std::vector<Shape>& results) {
  auto fail = [&](absl::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat(LapackLibraryName(routine), ": ", why));
  };
  if (operands.size() != static_cast<size_t>(LapackOperandCount(routine))) {
    return fail(absl::StrCat(operands.size(), " operands"));
  }
  for (const Shape& operand : operands) {
    if (operand.IsArray() &&
        operand.ElementCount() > std::numeric_limits<int>::max()) {
      return fail("more elements than LAPACK indexes");
    }
  }
  // gtsv's first operands are vectors: its matrix is b.
  const Shape& a = operands[routine == LapackRoutine::kGtsv ? 3 : 0];
  const PrimitiveType type = a.element_type();
  if (!a.IsArray() || a.rank() < 2 ||
      (type != F32 && type != F64 && type != C64 && type != C128)) {
    return fail(absl::StrCat("operand ", a.ToString(false),
                             " is not a batch of f32/f64/c64/c128 matrices"));
  }
  std::vector<int64_t> batch(a.dimensions().begin(), a.dimensions().end() - 2);
  const int64_t m = a.dimensions(a.rank() - 2), n = a.dimensions(a.rank() - 1);
  auto with = [&](std::initializer_list<int64_t> extra) {
    std::vector<int64_t> dims = batch;
    dims.insert(dims.end(), extra.begin(), extra.end());
    return dims;
  };
  std::vector<Shape> expected;
  const PrimitiveType real = ComplexComponentType(type);
  switch (routine) {
    case LapackRoutine::kPotrf:
      if (m != n) return fail("not square");
      expected.push_back(Shape::Array(type, a.dimensions()));
      if (!config.hlo_cholesky) expected.push_back(Shape::Array(S32, batch));
      break;
    case LapackRoutine::kTrsm: {
      const Shape& b = operands[1];
      if (m != n || !b.IsArray() || b.rank() != a.rank() ||
          b.element_type() != type ||
          !std::equal(batch.begin(), batch.end(), b.dimensions().begin()) ||
          b.dimensions(b.rank() - (config.side == 'L' ? 2 : 1)) != m) {
        return fail(absl::StrCat(a.ToString(false), " does not solve ",
                                 b.ToString(false)));
      }
      expected.push_back(Shape::Array(type, b.dimensions()));
      break;
    }
    case LapackRoutine::kGetrf:
      expected = {Shape::Array(type, a.dimensions()),
                  Shape::Array(S32, with({std::min(m, n)})),
                  Shape::Array(S32, batch)};
      break;
    case LapackRoutine::kGeqrf:
      expected = {Shape::Array(type, a.dimensions()),
                  Shape::Array(type, with({std::min(m, n)}))};
      break;
    case LapackRoutine::kGeqp3:
      if (!operands[1].IsArray() || operands[1].element_type() != S32 ||
          operands[1].dimensions() != with({n})) {
        return fail(absl::StrCat(operands[1].ToString(false),
                                 " are not the pivots of ", a.ToString(false)));
      }
      expected = {Shape::Array(type, a.dimensions()),
                  Shape::Array(S32, with({n})),
                  Shape::Array(type, with({std::min(m, n)}))};
      break;
    case LapackRoutine::kOrgqr: {
      const Shape& tau = operands[1];
      if (!tau.IsArray() || tau.element_type() != type ||
          tau.rank() != a.rank() - 1 ||
          !std::equal(batch.begin(), batch.end(), tau.dimensions().begin()) ||
          tau.dimensions().back() > n || n > m) {
        return fail(absl::StrCat(tau.ToString(false), " does not fit ",
                                 a.ToString(false)));
      }
      expected.push_back(Shape::Array(type, a.dimensions()));
      break;
    }
    case LapackRoutine::kSyevd:
      if (m != n) return fail("not square");
      expected = {Shape::Array(type, a.dimensions()),
                  Shape::Array(real, with({n})), Shape::Array(S32, batch)};
      break;
    case LapackRoutine::kGesdd: {
      const int64_t k = std::min(m, n);
      // 'N' leaves u and vt alone, whichever shape JAX gave them.
      const bool full = GesddVectorsAreFull(config.mode, m, n, results);
      expected = {Shape::Array(type, a.dimensions()),
                  Shape::Array(real, with({k})),
                  Shape::Array(type, with({m, full ? m : k})),
                  Shape::Array(type, with({full ? n : k, n})),
                  Shape::Array(S32, batch)};
      break;
    }
    case LapackRoutine::kGeev: {
      if (m != n) return fail("not square");
      const PrimitiveType complex = type == F32   ? C64
                                    : type == F64 ? C128
                                                  : type;
      expected = {Shape::Array(type, with({n}))};
      if (type == F32 || type == F64) {
        expected.push_back(Shape::Array(type, with({n})));
      }
      expected.push_back(Shape::Array(complex, a.dimensions()));
      expected.push_back(Shape::Array(complex, a.dimensions()));
      expected.push_back(Shape::Array(S32, batch));
      break;
    }
    case LapackRoutine::kXgeev: {
      if (m != n) return fail("not square");
      const PrimitiveType complex = type == F32   ? C64
                                    : type == F64 ? C128
                                                  : type;
      expected = {Shape::Array(type, a.dimensions()),
                  Shape::Array(complex, with({n})),
                  Shape::Array(type, a.dimensions()),
                  Shape::Array(type, a.dimensions()), Shape::Array(S32, batch)};
      break;
    }
    case LapackRoutine::kGees:
      if (m != n) return fail("not square");
      expected = {Shape::Array(type, a.dimensions()),
                  Shape::Array(type, a.dimensions()),
                  Shape::Array(type, with({n}))};
      if (type == F32 || type == F64) {
        expected.push_back(Shape::Array(type, with({n})));
      }
      expected.push_back(Shape::Array(S32, batch));
      expected.push_back(Shape::Array(S32, batch));
      break;
    case LapackRoutine::kGehrd:
      if (m != n) return fail("not square");
      if (n > 0 ? !(1 <= config.ilo && config.ilo <= config.ihi &&
                    config.ihi <= n)
                : !(config.ilo == 1 && config.ihi == 0)) {
        return fail(absl::StrCat("ilo ", config.ilo, ", ihi ", config.ihi,
                                 " do not fit n = ", n));
      }
      expected = {Shape::Array(type, a.dimensions()),
                  Shape::Array(type, with({std::max<int64_t>(n - 1, 0)})),
                  Shape::Array(S32, batch)};
      break;
    case LapackRoutine::kSytrd:
      if (m != n) return fail("not square");
      expected = {Shape::Array(type, a.dimensions()),
                  Shape::Array(real, with({n})),
                  Shape::Array(real, with({std::max<int64_t>(n - 1, 0)})),
                  Shape::Array(type, with({std::max<int64_t>(n - 1, 0)})),
                  Shape::Array(S32, batch)};
      break;
    case LapackRoutine::kOrmqr: {
      const Shape& tau = operands[1];
      const Shape& c = operands[2];
      if (!tau.IsArray() || tau.element_type() != type ||
          tau.rank() != a.rank() - 1 ||
          !std::equal(batch.begin(), batch.end(), tau.dimensions().begin()) ||
          !c.IsArray() || c.element_type() != type || c.rank() != a.rank() ||
          !std::equal(batch.begin(), batch.end(), c.dimensions().begin()) ||
          c.dimensions(c.rank() - (config.side == 'L' ? 2 : 1)) != m ||
          tau.dimensions().back() > std::min(m, n)) {
        return fail(absl::StrCat(a.ToString(false), ", ", tau.ToString(false),
                                 " and ", c.ToString(false), " do not fit"));
      }
      expected.push_back(Shape::Array(type, c.dimensions()));
      break;
    }
    case LapackRoutine::kGtsv: {
      const std::vector<int64_t> diagonal(a.dimensions().begin(),
                                          a.dimensions().end() - 1);
      for (int i = 0; i < 3; ++i) {
        if (!operands[i].Compatible(Shape::Array(type, diagonal))) {
          return fail(absl::StrCat("diagonal ", operands[i].ToString(false),
                                   " does not fit ", a.ToString(false)));
        }
      }
      expected = {Shape::Array(type, diagonal), Shape::Array(type, diagonal),
                  Shape::Array(type, diagonal),
                  Shape::Array(type, a.dimensions()), Shape::Array(S32, batch)};
      break;
    }
  }
  if (results.size() != expected.size()) {
    return fail(
        absl::StrCat(results.size(), " results, expected ", expected.size()));
  }
  for (size_t i = 0; i < results.size(); ++i) {
    if (!results[i].Compatible(expected[i])) {
      return fail(absl::StrCat("result ", i, " is ", results[i].ToString(false),
                               ", expected ", expected[i].ToString(false)));
    }
  }
  const bool geev =
      routine == LapackRoutine::kGeev || routine == LapackRoutine::kXgeev;
  const std::pair<char, absl::string_view> characters[] = {
      {config.uplo, "LU"},
      {config.side, "LR"},
      {config.trans, "NTC"},
      {config.diag, "UN"},
      {config.mode, routine == LapackRoutine::kGesdd ? "ASN" : "VN"},
      // Only geev's: executables saved before it have none.
      {geev ? config.jobvl : 'N', "VN"},
      {geev ? config.jobvr : 'N', "VN"}};
  for (const auto& [c, allowed] : characters) {
    if (c == 0 || allowed.find(c) == absl::string_view::npos) {
      return fail(absl::StrCat("LAPACK character code ", static_cast<int>(c),
                               " is not one of '", allowed, "'"));
    }
  }
  return absl::OkStatus();
}

absl::Status RunLapack(LapackRoutine routine, const LibraryConfig& config,
                       std::vector<Literal>* operands,
                       std::vector<Literal>* results) {
  std::vector<Shape> operand_shapes, result_shapes;
  for (const Literal& l : *operands) operand_shapes.push_back(l.shape());
  for (const Literal& l : *results) result_shapes.push_back(l.shape());
  absl::Status status =
      CheckLapack(routine, config, operand_shapes, result_shapes);
  if (!status.ok()) return status;
  switch ((*operands)[routine == LapackRoutine::kGtsv ? 3 : 0].element_type()) {
    case F32:
      Dispatch<float>(routine, config, operands, results);
      break;
    case F64:
      Dispatch<double>(routine, config, operands, results);
      break;
    case C64:
      Dispatch<lapack_c>(routine, config, operands, results);
      break;
    default:
      Dispatch<lapack_z>(routine, config, operands, results);
      break;
  }
  return absl::OkStatus();
}

}  // namespace hloc
