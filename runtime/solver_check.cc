#include "runtime/solver_check.h"

#include <algorithm>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace hloc {
namespace {

struct RoutineName {
  SolverRoutine routine;
  const char* name;
};
constexpr RoutineName kRoutines[] = {
    {SolverRoutine::kPotrf, "cusolver.potrf"},
    {SolverRoutine::kGetrf, "cusolver.getrf"},
    {SolverRoutine::kGeqrf, "cusolver.geqrf"},
    {SolverRoutine::kOrgqr, "cusolver.orgqr"},
    {SolverRoutine::kSyevd, "cusolver.syevd"},
    {SolverRoutine::kGesvdj, "cusolver.gesvdj"},
    {SolverRoutine::kPivotsToPermutation, "cusolver.pivots_to_permutation"},
    {SolverRoutine::kTrsm, "cublas.trsm"},
};

bool IsSolverType(PrimitiveType type) {
  return type == F32 || type == F64 || type == C64 || type == C128;
}

Shape Wanted(PrimitiveType type, const std::vector<int64_t>& dims,
             bool matrix) {
  return matrix ? Shape::ArrayWithLayout(type, dims,
                                         ColumnMajorMatrixMinorToMajor(
                                             static_cast<int64_t>(dims.size())))
                : Shape::Array(type, dims);
}

// Checks that `shape` is `wanted`, its bytes in the same order.
absl::Status Expect(const Shape& shape, const Shape& wanted,
                    absl::string_view what) {
  if (!shape.IsArray() || !shape.Compatible(wanted) ||
      (shape.ElementCount() > 0 &&
       !StoresInOrder(shape, wanted.MinorToMajor()))) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " is ", shape.ToString(), ", expected ", wanted.ToString(),
        wanted.rank() >= 2 && wanted.MinorToMajor()[0] == wanted.rank() - 2
            ? " (column-major matrices)"
            : ""));
  }
  return absl::OkStatus();
}

std::vector<int64_t> With(std::vector<int64_t> batch,
                          std::initializer_list<int64_t> more) {
  batch.insert(batch.end(), more.begin(), more.end());
  return batch;
}

// "cublas.trsm": a[B,k,k], b[B,m,n], x[B,m,n], column-major matrices, one
// type.
absl::Status CheckTrsmShapes(const LibraryConfig& config,
                             const std::vector<Shape>& shapes) {
  const char* name = "cublas.trsm";
  auto fail = [&](absl::string_view message) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": ", message));
  };
  if (shapes.size() != 3) {
    return fail(absl::StrCat("takes 2 operand and 1 result buffers, not ",
                             shapes.size()));
  }
  struct Code {
    char value;
    const char* field;
    const char* allowed;
  };
  for (const Code& c :
       {Code{config.side, "side", "LR"}, Code{config.uplo, "uplo", "LU"},
        Code{config.trans, "trans", "NTC"}, Code{config.diag, "diag", "NU"}}) {
    if (c.value == 0 ||
        std::string(c.allowed).find(c.value) == std::string::npos) {
      return fail(absl::StrCat(c.field, " must be one of '", c.allowed,
                               "', not code ", static_cast<int>(c.value)));
    }
  }
  const Shape& a = shapes[0];
  const Shape& b = shapes[1];
  if (!a.IsArray() || a.rank() < 2 || !IsSolverType(a.element_type()) ||
      !b.IsArray() || b.rank() != a.rank()) {
    return fail(absl::StrCat("operands ", a.ToString(), " and ", b.ToString(),
                             " are not f32, f64, c64 or c128 arrays of one "
                             "rank >= 2 (batch dimensions, then a matrix)"));
  }
  const int64_t rank = a.rank();
  const int64_t k =
      config.side == 'L' ? b.dimensions(rank - 2) : b.dimensions(rank - 1);
  std::vector<int64_t> dims(b.dimensions().begin(), b.dimensions().end() - 2);
  dims.push_back(k);
  dims.push_back(k);
  const PrimitiveType t = a.element_type();
  absl::Status status =
      Expect(a, Wanted(t, dims, true),
             absl::StrCat(name, ": operand 0 (the triangle)"));
  if (!status.ok()) return status;
  status = Expect(b, Wanted(t, b.dimensions(), true),
                  absl::StrCat(name, ": operand 1"));
  if (!status.ok()) return status;
  return Expect(shapes[2], Wanted(t, b.dimensions(), true),
                absl::StrCat(name, ": result 0"));
}

}  // namespace

std::string SolverLibraryName(SolverRoutine routine) {
  for (const RoutineName& r : kRoutines) {
    if (r.routine == routine) return r.name;
  }
  return "cusolver.?";
}

std::optional<SolverRoutine> SolverRoutineOfLibrary(absl::string_view library) {
  for (const RoutineName& r : kRoutines) {
    if (library == r.name) return r.routine;
  }
  return std::nullopt;
}

absl::Status CheckSolverShapes(SolverRoutine routine,
                               const LibraryConfig& config,
                               const std::vector<Shape>& shapes) {
  const std::string name = SolverLibraryName(routine);
  if (routine == SolverRoutine::kTrsm) return CheckTrsmShapes(config, shapes);
  const size_t operands = routine == SolverRoutine::kOrgqr ? 2 : 1;
  size_t results = 0;
  switch (routine) {
    case SolverRoutine::kPotrf:
    case SolverRoutine::kGeqrf:
      results = 2;
      break;
    case SolverRoutine::kGetrf:
    case SolverRoutine::kSyevd:
      results = 3;
      break;
    case SolverRoutine::kOrgqr:
    case SolverRoutine::kPivotsToPermutation:
      results = 1;
      break;
    case SolverRoutine::kGesvdj:
      results = 5;
      break;
    case SolverRoutine::kTrsm:
      break;
  }
  if (shapes.size() != operands + results) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, " takes ", operands, " operand and ", results,
                     " result buffers, not ", shapes.size()));
  }
  if (config.uplo != 'L' && config.uplo != 'U') {
    return absl::InvalidArgumentError(
        absl::StrCat(name, ": uplo must be 'L' or 'U', not code ",
                     static_cast<int>(config.uplo)));
  }
  if (config.mode != 'V' && config.mode != 'N') {
    return absl::InvalidArgumentError(
        absl::StrCat(name, ": mode must be 'V' or 'N', not code ",
                     static_cast<int>(config.mode)));
  }
  const Shape& a = shapes[0];
  auto fail = [&](absl::string_view message) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": ", message));
  };
  if (routine == SolverRoutine::kPivotsToPermutation) {
    if (!a.IsArray() || a.rank() < 1 || a.element_type() != S32) {
      return fail(absl::StrCat("the pivots are ", a.ToString(),
                               ", expected s32[batch..., k]"));
    }
    std::vector<int64_t> batch(a.dimensions().begin(),
                               a.dimensions().end() - 1);
    absl::Status status = Expect(a, Wanted(S32, a.dimensions(), false),
                                 absl::StrCat(name, ": the pivots"));
    if (!status.ok()) return status;
    const Shape& perm = shapes[1];
    if (!perm.IsArray() || perm.rank() != a.rank() ||
        perm.dimensions(perm.rank() - 1) < a.dimensions(a.rank() - 1)) {
      return fail(absl::StrCat("the permutation ", perm.ToString(),
                               " does not fit the pivots ", a.ToString()));
    }
    return Expect(
        perm,
        Wanted(S32, With(batch, {perm.dimensions(perm.rank() - 1)}), false),
        absl::StrCat(name, ": the permutation"));
  }
  if (!a.IsArray() || a.rank() < 2 || !IsSolverType(a.element_type())) {
    return fail(absl::StrCat("operand 0 is ", a.ToString(),
                             ", expected an f32, f64, c64 or c128 array of "
                             "rank >= 2 (batch dimensions, then a matrix)"));
  }
  const PrimitiveType t = a.element_type();
  const PrimitiveType real = ComplexComponentType(t);
  const std::vector<int64_t> batch(a.dimensions().begin(),
                                   a.dimensions().end() - 2);
  const int64_t m = a.dimensions(a.rank() - 2);
  const int64_t n = a.dimensions(a.rank() - 1);
  const int64_t k = std::min(m, n);
  const bool square =
      routine == SolverRoutine::kPotrf || routine == SolverRoutine::kSyevd;
  if (square && m != n) {
    return fail(absl::StrCat("operand 0 ", a.ToString(), " is not square"));
  }
  struct Buffer {
    PrimitiveType type;
    std::vector<int64_t> dims;
    bool matrix;
  };
  std::vector<Buffer> wanted = {{t, a.dimensions(), true}};
  switch (routine) {
    case SolverRoutine::kPotrf:
      wanted.push_back({t, a.dimensions(), true});
      wanted.push_back({S32, batch, false});
      break;
    case SolverRoutine::kGetrf:
      wanted.push_back({t, a.dimensions(), true});
      wanted.push_back({S32, With(batch, {k}), false});
      wanted.push_back({S32, batch, false});
      break;
    case SolverRoutine::kGeqrf:
      wanted.push_back({t, a.dimensions(), true});
      wanted.push_back({t, With(batch, {k}), false});
      break;
    case SolverRoutine::kOrgqr: {
      const Shape& tau = shapes[1];
      if (!tau.IsArray() || tau.rank() != a.rank() - 1 ||
          tau.dimensions(tau.rank() - 1) > n || n > m) {
        return fail(absl::StrCat("operands ", a.ToString(), " and ",
                                 tau.ToString(),
                                 " do not fit (tau[batch, l], l <= n <= m)"));
      }
      wanted.push_back(
          {t, With(batch, {tau.dimensions(tau.rank() - 1)}), false});
      wanted.push_back({t, a.dimensions(), true});
      break;
    }
    case SolverRoutine::kSyevd:
      wanted.push_back({t, a.dimensions(), true});
      wanted.push_back({real, With(batch, {n}), false});
      wanted.push_back({S32, batch, false});
      break;
    case SolverRoutine::kGesvdj:
      wanted.push_back({t, a.dimensions(), true});
      wanted.push_back({real, With(batch, {k}), false});
      wanted.push_back({t, With(batch, {m, config.econ ? k : m}), true});
      wanted.push_back({t, With(batch, {n, config.econ ? k : n}), true});
      wanted.push_back({S32, batch, false});
      break;
    case SolverRoutine::kPivotsToPermutation:
    case SolverRoutine::kTrsm:
      break;
  }
  for (size_t i = 0; i < shapes.size(); ++i) {
    const bool is_operand = i < operands;
    absl::Status status = Expect(
        shapes[i], Wanted(wanted[i].type, wanted[i].dims, wanted[i].matrix),
        absl::StrCat(name, ": ", is_operand ? "operand " : "result ",
                     is_operand ? i : i - operands));
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

}  // namespace hloc
