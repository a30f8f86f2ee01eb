#include "runtime/lapack_library.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstddef>
#include <limits>

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
  }
}

constexpr std::pair<LapackRoutine, const char*> kLibraries[] = {
    {LapackRoutine::kPotrf, "lapack.potrf"},
    {LapackRoutine::kTrsm, "lapack.trsm"},
    {LapackRoutine::kGetrf, "lapack.getrf"},
    {LapackRoutine::kGeqrf, "lapack.geqrf"},
    {LapackRoutine::kOrgqr, "lapack.orgqr"},
    {LapackRoutine::kSyevd, "lapack.syevd"},
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
  const bool two_operands =
      routine == LapackRoutine::kTrsm || routine == LapackRoutine::kOrgqr;
  if (operands.size() != (two_operands ? 2u : 1u)) {
    return fail(absl::StrCat(operands.size(), " operands"));
  }
  const Shape& a = operands[0];
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
  const std::pair<char, absl::string_view> characters[] = {
      {config.uplo, "LU"},
      {config.side, "LR"},
      {config.trans, "NTC"},
      {config.diag, "UN"},
      {config.mode, "VN"}};
  for (const auto& [c, allowed] : characters) {
    if (c == 0 || allowed.find(c) == absl::string_view::npos) {
      return fail(absl::StrCat("LAPACK character code ", static_cast<int>(c),
                               " is not one of '", allowed, "'"));
    }
  }
  if (a.ElementCount() > std::numeric_limits<int>::max() ||
      (two_operands &&
       operands[1].ElementCount() > std::numeric_limits<int>::max())) {
    return fail("more elements than LAPACK indexes");
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
  switch ((*operands)[0].element_type()) {
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
