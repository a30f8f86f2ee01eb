#include "backends/gpu/solver_lowering.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hlo/lapack_custom_call.h"
#include "hlo/status_macros.h"
#include "runtime/lapack_library.h"
#include "runtime/solver_check.h"

namespace hloc {
namespace {

struct Target {
  const char* name;
  SolverRoutine routine;
  // The attributes it takes.
  std::vector<std::string> attributes;
};

const std::vector<Target>& Targets() {
  static const auto* targets = new std::vector<Target>{
      {"cusolver_potrf_ffi", SolverRoutine::kPotrf, {"lower"}},
      {"cusolver_getrf_ffi", SolverRoutine::kGetrf, {}},
      {"cu_lu_pivots_to_permutation", SolverRoutine::kPivotsToPermutation, {}},
      {"cusolver_geqrf_ffi", SolverRoutine::kGeqrf, {}},
      {"cusolver_orgqr_ffi", SolverRoutine::kOrgqr, {}},
      {"cusolver_syevd_ffi", SolverRoutine::kSyevd, {"algorithm", "lower"}},
      {"cusolver_gesvdj_ffi",
       SolverRoutine::kGesvdj,
       {"compute_uv", "full_matrices"}},
  };
  return *targets;
}

absl::Status CallError(const HloInstruction& call, absl::string_view message) {
  return absl::InvalidArgumentError(
      absl::StrCat("custom-call ", call.name(), " (",
                   call.attrs().custom_call_target, "): ", message));
}

// The entries of the backend_config's MLIR attribute dictionary
// ("{lower = true, algorithm = 0 : ui8}"): booleans as 0 and 1, integers.
absl::StatusOr<std::vector<std::pair<std::string, int64_t>>> ParseAttributes(
    const HloInstruction& call) {
  absl::StatusOr<std::vector<std::pair<std::string, int64_t>>> attributes =
      ParseFfiIntegerAttributes(call.backend_config());
  if (!attributes.ok()) return CallError(call, attributes.status().message());
  return attributes;
}

}  // namespace

std::vector<std::string> SolverCustomCallTargets() {
  std::vector<std::string> names;
  for (const Target& target : Targets()) names.push_back(target.name);
  return names;
}

absl::StatusOr<std::optional<ExecutableStep>> MakeSolverStep(
    const HloInstruction& call, const std::vector<int64_t>& slots) {
  if (call.opcode() != HloOpcode::kCustomCall) return std::nullopt;
  const Target* target = nullptr;
  for (const Target& t : Targets()) {
    if (call.attrs().custom_call_target == t.name) target = &t;
  }
  if (target == nullptr) return std::nullopt;
  HLOC_ASSIGN_OR_RETURN(auto attributes, ParseAttributes(call));
  ExecutableStep step;
  step.kind = ExecutableStep::Kind::kLibraryCall;
  step.library = SolverLibraryName(target->routine);
  step.instruction = call.name();
  step.buffers = slots;
  LibraryConfig& config = step.library_config;
  for (const auto& [name, value] : attributes) {
    bool known = false;
    for (const std::string& allowed : target->attributes) {
      known |= name == allowed;
    }
    if (!known) {
      return CallError(
          call, absl::StrCat("unknown attribute '", name, "' (it takes ",
                             target->attributes.empty()
                                 ? std::string("none")
                                 : absl::StrJoin(target->attributes, ", "),
                             ")"));
    }
    const bool boolean = name != "algorithm";
    if ((boolean && value != 0 && value != 1) ||
        (!boolean && (value < 0 || value > 2))) {
      return CallError(call,
                       absl::StrCat("attribute ", name, " = ", value,
                                    boolean ? " is not a boolean"
                                            : " is not 0 (default), 1 (QR) "
                                              "or 2 (Jacobi)"));
    }
    if (name == "lower") config.uplo = value ? 'L' : 'U';
    if (name == "compute_uv") config.mode = value ? 'V' : 'N';
    if (name == "full_matrices") config.econ = !value;
    if (name == "algorithm") config.eigh_algorithm = static_cast<int>(value);
  }
  std::vector<Shape> shapes;
  for (const HloInstruction* operand : call.operands()) {
    if (!operand->shape().IsArray()) {
      return CallError(
          call, absl::StrCat("operand ", operand->name(), " is ",
                             operand->shape().ToString(), ", not an array"));
    }
    shapes.push_back(operand->shape());
  }
  if (call.shape().IsTuple()) {
    for (const Shape& leaf : call.shape().tuple_shapes()) {
      shapes.push_back(leaf);
    }
  } else {
    shapes.push_back(call.shape());
  }
  absl::Status status = CheckSolverShapes(target->routine, config, shapes);
  if (!status.ok()) return CallError(call, status.message());
  if (shapes.size() != slots.size()) {
    return CallError(call, absl::StrCat(shapes.size(), " buffers but ",
                                        slots.size(), " slots"));
  }
  return step;
}

absl::StatusOr<std::optional<ExecutableStep>> MakeHostLapackStep(
    const HloInstruction& call, const std::vector<int64_t>& slots) {
  HLOC_ASSIGN_OR_RETURN(std::optional<LapackCall> lapack,
                        ParseLapackCall(call));
  // The CPU's lapack_*_ffi calls are not cuda's, as in XLA:GPU.
  if (!lapack.has_value() || !lapack->gpu_host_call) return std::nullopt;
  ExecutableStep step;
  step.kind = ExecutableStep::Kind::kLibraryCall;
  step.library = LapackLibraryName(lapack->routine);
  step.instruction = call.name();
  step.buffers = slots;
  SetLapackCodes(*lapack, &step.library_config);
  std::vector<Shape> operands, results;
  for (const HloInstruction* operand : call.operands()) {
    operands.push_back(operand->shape());
  }
  for (const Shape& leaf : call.shape().IsTuple()
                               ? call.shape().tuple_shapes()
                               : std::vector<Shape>{call.shape()}) {
    results.push_back(leaf);
  }
  absl::Status status =
      CheckLapack(lapack->routine, step.library_config, operands, results);
  if (!status.ok()) return CallError(call, status.message());
  if (operands.size() + results.size() != slots.size()) {
    return CallError(
        call, absl::StrCat(operands.size() + results.size(), " buffers but ",
                           slots.size(), " slots"));
  }
  return step;
}

absl::StatusOr<ExecutableStep> MakeTrsmStep(const HloInstruction& solve,
                                            const std::vector<int64_t>& slots) {
  auto fail = [&](absl::string_view message) {
    return absl::InvalidArgumentError(
        absl::StrCat("triangular-solve ", solve.name(), ": ", message));
  };
  const std::optional<TriangularSolveOptions>& options =
      solve.attrs().triangular_solve_options;
  if (solve.opcode() != HloOpcode::kTriangularSolve || !options.has_value()) {
    return fail("not a triangular-solve with its options");
  }
  ExecutableStep step;
  step.kind = ExecutableStep::Kind::kLibraryCall;
  step.library = SolverLibraryName(SolverRoutine::kTrsm);
  step.instruction = solve.name();
  step.buffers = slots;
  SetTriangularSolveCodes(*options, &step.library_config);
  absl::Status status = CheckSolverShapes(
      SolverRoutine::kTrsm, step.library_config,
      {solve.operand(0)->shape(), solve.operand(1)->shape(), solve.shape()});
  if (!status.ok()) return fail(status.message());
  if (slots.size() != 3) {
    return fail(absl::StrCat("3 buffers but ", slots.size(), " slots"));
  }
  return step;
}

}  // namespace hloc
