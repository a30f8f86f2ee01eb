#include "hlo/lapack_custom_call.h"

#include <algorithm>
#include <utility>

#include "absl/algorithm/container.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "hlo/status_macros.h"

namespace hloc {
namespace {

struct TypePrefix {
  char prefix;
  PrimitiveType type;
};
constexpr TypePrefix kTypes[] = {
    {'s', F32}, {'d', F64}, {'c', C64}, {'z', C128}};

struct RoutineName {
  LapackRoutine routine;
  // LAPACK's names for real and for complex types.
  const char* real;
  const char* complex;
};
constexpr RoutineName kRoutines[] = {
    {LapackRoutine::kPotrf, "potrf", "potrf"},
    {LapackRoutine::kTrsm, "trsm", "trsm"},
    {LapackRoutine::kGetrf, "getrf", "getrf"},
    {LapackRoutine::kGeqrf, "geqrf", "geqrf"},
    {LapackRoutine::kOrgqr, "orgqr", "ungqr"},
    {LapackRoutine::kSyevd, "syevd", "heevd"},
    {LapackRoutine::kGesdd, "gesdd", "gesdd"},
    {LapackRoutine::kGeev, "geev", "geev"},
    {LapackRoutine::kGees, "gees", "gees"},
    {LapackRoutine::kGehrd, "gehrd", "gehrd"},
    {LapackRoutine::kSytrd, "sytrd", "hetrd"},
    {LapackRoutine::kOrmqr, "ormqr", "unmqr"},
    {LapackRoutine::kGtsv, "gtsv", "gtsv"},
    {LapackRoutine::kGeqp3, "geqp3", "geqp3"},
};

// The CUDA lowering's calls the cuda backend runs with LAPACK on the host:
// jaxlib's host kernels (gpu/hybrid_kernels.cc) and two cuSOLVER calls
// whose results are LAPACK's (Xgeev, sytrd); the routine and the matrix
// types each takes.
struct HostCallTarget {
  const char* name;
  LapackRoutine routine;
  std::vector<PrimitiveType> types;
};
const std::vector<HostCallTarget>& HostCallTargets() {
  static const auto* targets = new std::vector<HostCallTarget>{
      {"cuhybrid_eig_real", LapackRoutine::kGeev, {F32, F64}},
      {"cuhybrid_eig_comp", LapackRoutine::kGeev, {C64, C128}},
      {"cuhybrid_geqp3", LapackRoutine::kGeqp3, {F32, F64, C64, C128}},
      {"cusolver_geev_ffi", LapackRoutine::kXgeev, {F32, F64, C64, C128}},
      {"cusolver_sytrd_ffi", LapackRoutine::kSytrd, {F32, F64, C64, C128}},
  };
  return *targets;
}

char Prefix(PrimitiveType type) {
  for (const TypePrefix& t : kTypes) {
    if (t.type == type) return t.prefix;
  }
  return '?';
}

absl::Status CallError(const HloInstruction& instruction,
                       absl::string_view message) {
  return absl::InvalidArgumentError(
      absl::StrCat("custom-call ", instruction.name(), " (",
                   instruction.attrs().custom_call_target, "): ", message));
}

std::vector<int64_t> Concat(std::vector<int64_t> a,
                            std::initializer_list<int64_t> b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// Checks that `shape` is an array of `type` with dimensions `dims`.
absl::Status Expect(const HloInstruction& instruction, const Shape& shape,
                    PrimitiveType type, const std::vector<int64_t>& dims,
                    absl::string_view what) {
  if (!shape.IsArray() || shape.element_type() != type ||
      shape.dimensions() != dims) {
    return CallError(
        instruction,
        absl::StrCat(what, " is ", shape.ToString(false), ", expected ",
                     Shape::Array(type, dims).ToString(false)));
  }
  return absl::OkStatus();
}

// Checks the result is a tuple of arrays `dims` of `types`.
absl::Status ExpectTuple(const HloInstruction& instruction,
                         const std::vector<PrimitiveType>& types,
                         const std::vector<std::vector<int64_t>>& dims) {
  const Shape& shape = instruction.shape();
  if (!shape.IsTuple() ||
      shape.tuple_shapes_size() != static_cast<int64_t>(types.size())) {
    return CallError(instruction,
                     absl::StrCat("the result is ", shape.ToString(false),
                                  ", expected a tuple of ", types.size()));
  }
  for (size_t i = 0; i < types.size(); ++i) {
    HLOC_RETURN_IF_ERROR(Expect(instruction, shape.tuple_shapes(i), types[i],
                                dims[i], absl::StrCat("result ", i)));
  }
  return absl::OkStatus();
}

// The value of attribute `name` as one of `allowed` characters; `fallback`
// when absent.
absl::StatusOr<char> CharAttribute(
    const HloInstruction& instruction,
    const std::vector<std::pair<std::string, int64_t>>& attributes,
    absl::string_view name, absl::string_view allowed, char fallback) {
  for (const auto& [key, value] : attributes) {
    if (key != name) continue;
    if (value < 0 || value > 127 ||
        allowed.find(static_cast<char>(value)) == absl::string_view::npos) {
      return CallError(instruction,
                       absl::StrCat("attribute ", name, " = ", value,
                                    " is not one of '", allowed, "'"));
    }
    return static_cast<char>(value);
  }
  return fallback;
}

PrimitiveType ComplexOf(PrimitiveType type) {
  return type == F32 ? C64 : type == F64 ? C128 : type;
}

// Checks operand `i` is `type` with `dims`.
absl::Status ExpectOperand(const HloInstruction& instruction, int64_t i,
                           PrimitiveType type,
                           const std::vector<int64_t>& dims) {
  return Expect(instruction, instruction.operand(i)->shape(), type, dims,
                absl::StrCat("operand ", i));
}

absl::Status CheckShapes(const HloInstruction& instruction,
                         const LapackCall& call) {
  const int64_t expected_operands = LapackOperandCount(call.routine);
  if (instruction.operand_count() != expected_operands) {
    return CallError(instruction, absl::StrCat("takes ", expected_operands,
                                               " operands, has ",
                                               instruction.operand_count()));
  }
  if (call.routine == LapackRoutine::kGtsv) {
    // The diagonals are vectors [batch, n]; b is [batch, n, nrhs].
    const Shape& b = instruction.operand(3)->shape();
    if (!b.IsArray() || b.rank() < 2 || b.element_type() != call.type) {
      return CallError(
          instruction,
          absl::StrCat("operand 3 is ", b.ToString(false), ", expected a ",
                       PrimitiveTypeName(call.type),
                       " array of rank >= 2 (batch dimensions, "
                       "then n x nrhs)"));
    }
    const std::vector<int64_t> diagonal(b.dimensions().begin(),
                                        b.dimensions().end() - 1);
    for (int64_t i = 0; i < 3; ++i) {
      HLOC_RETURN_IF_ERROR(ExpectOperand(instruction, i, call.type, diagonal));
    }
    const std::vector<int64_t> batch(b.dimensions().begin(),
                                     b.dimensions().end() - 2);
    return ExpectTuple(instruction,
                       {call.type, call.type, call.type, call.type, S32},
                       {diagonal, diagonal, diagonal, b.dimensions(), batch});
  }
  const Shape& a = instruction.operand(0)->shape();
  if (!a.IsArray() || a.rank() < 2 || a.element_type() != call.type) {
    return CallError(
        instruction,
        absl::StrCat("operand 0 is ", a.ToString(false), ", expected a ",
                     PrimitiveTypeName(call.type),
                     " array of rank >= 2 (batch dimensions, then a matrix)"));
  }
  const std::vector<int64_t> batch(a.dimensions().begin(),
                                   a.dimensions().end() - 2);
  const int64_t m = a.dimensions(a.rank() - 2);
  const int64_t n = a.dimensions(a.rank() - 1);
  const int64_t k = std::min(m, n);
  const PrimitiveType real = ComplexComponentType(call.type);
  const bool square = call.routine == LapackRoutine::kPotrf ||
                      call.routine == LapackRoutine::kTrsm ||
                      call.routine == LapackRoutine::kSyevd ||
                      call.routine == LapackRoutine::kGeev ||
                      call.routine == LapackRoutine::kXgeev ||
                      call.routine == LapackRoutine::kGees ||
                      call.routine == LapackRoutine::kGehrd ||
                      call.routine == LapackRoutine::kSytrd;
  if (square && m != n) {
    return CallError(instruction, absl::StrCat("operand 0 ", a.ToString(false),
                                               " is not square"));
  }
  // n - 1 reflectors (none for an empty matrix).
  const int64_t reflectors = std::max<int64_t>(n - 1, 0);
  switch (call.routine) {
    case LapackRoutine::kPotrf:
      return ExpectTuple(instruction, {call.type, S32},
                         {a.dimensions(), batch});
    case LapackRoutine::kTrsm: {
      const Shape& b = instruction.operand(1)->shape();
      if (!b.IsArray() || b.rank() != a.rank() ||
          b.element_type() != call.type ||
          !std::equal(batch.begin(), batch.end(), b.dimensions().begin())) {
        return CallError(
            instruction,
            absl::StrCat("operand 1 is ", b.ToString(false), ", expected ",
                         PrimitiveTypeName(call.type),
                         " with operand 0's batch dimensions"));
      }
      const int64_t shared =
          b.dimensions(b.rank() - (call.side == 'L' ? 2 : 1));
      if (shared != m) {
        return CallError(instruction,
                         absl::StrCat("side ", std::string(1, call.side), ": ",
                                      a.ToString(false), " does not fit ",
                                      b.ToString(false)));
      }
      return Expect(instruction, instruction.shape(), call.type, b.dimensions(),
                    "the result");
    }
    case LapackRoutine::kGetrf:
      return ExpectTuple(instruction, {call.type, S32, S32},
                         {a.dimensions(), Concat(batch, {k}), batch});
    case LapackRoutine::kGeqrf:
      return ExpectTuple(instruction, {call.type, call.type},
                         {a.dimensions(), Concat(batch, {k})});
    case LapackRoutine::kOrgqr: {
      const Shape& tau = instruction.operand(1)->shape();
      if (!tau.IsArray() || tau.element_type() != call.type ||
          tau.rank() != a.rank() - 1 ||
          !std::equal(batch.begin(), batch.end(), tau.dimensions().begin()) ||
          tau.dimensions().back() > n || n > m) {
        return CallError(
            instruction,
            absl::StrCat("operands ", a.ToString(false), " and ",
                         tau.ToString(false),
                         " do not fit (tau[batch, k], k <= n <= m)"));
      }
      return Expect(instruction, instruction.shape(), call.type, a.dimensions(),
                    "the result");
    }
    case LapackRoutine::kSyevd:
      return ExpectTuple(instruction, {call.type, real, S32},
                         {a.dimensions(), Concat(batch, {n}), batch});
    case LapackRoutine::kGesdd: {
      // 'N' computes no vectors; JAX still sizes u and vt full or thin.
      const Shape& result = instruction.shape();
      const bool tuple5 = result.IsTuple() && result.tuple_shapes_size() == 5;
      const bool full = GesddVectorsAreFull(
          call.mode, m, n,
          tuple5 ? result.tuple_shapes() : std::vector<Shape>());
      const int64_t u_cols = full ? m : k;
      const int64_t vt_rows = full ? n : k;
      return ExpectTuple(
          instruction, {call.type, real, call.type, call.type, S32},
          {a.dimensions(), Concat(batch, {k}), Concat(batch, {m, u_cols}),
           Concat(batch, {vt_rows, n}), batch});
    }
    case LapackRoutine::kGeev: {
      const PrimitiveType complex = ComplexOf(call.type);
      if (IsComplexType(call.type)) {
        return ExpectTuple(
            instruction, {call.type, call.type, call.type, S32},
            {Concat(batch, {n}), a.dimensions(), a.dimensions(), batch});
      }
      return ExpectTuple(instruction,
                         {call.type, call.type, complex, complex, S32},
                         {Concat(batch, {n}), Concat(batch, {n}),
                          a.dimensions(), a.dimensions(), batch});
    }
    case LapackRoutine::kXgeev:
      return ExpectTuple(
          instruction,
          {call.type, ComplexOf(call.type), call.type, call.type, S32},
          {a.dimensions(), Concat(batch, {n}), a.dimensions(), a.dimensions(),
           batch});
    case LapackRoutine::kGees:
      if (IsComplexType(call.type)) {
        return ExpectTuple(
            instruction, {call.type, call.type, call.type, S32, S32},
            {a.dimensions(), a.dimensions(), Concat(batch, {n}), batch, batch});
      }
      return ExpectTuple(instruction,
                         {call.type, call.type, call.type, call.type, S32, S32},
                         {a.dimensions(), a.dimensions(), Concat(batch, {n}),
                          Concat(batch, {n}), batch, batch});
    case LapackRoutine::kGehrd:
      if (n > 0 ? !(1 <= call.ilo && call.ilo <= call.ihi && call.ihi <= n)
                : !(call.ilo == 1 && call.ihi == 0)) {
        return CallError(
            instruction,
            absl::StrCat("low = ", call.ilo, ", high = ", call.ihi,
                         " do not fit n = ", n, " (1 <= low <= high <= n)"));
      }
      return ExpectTuple(instruction, {call.type, call.type, S32},
                         {a.dimensions(), Concat(batch, {reflectors}), batch});
    case LapackRoutine::kSytrd:
      return ExpectTuple(
          instruction, {call.type, real, real, call.type, S32},
          {a.dimensions(), Concat(batch, {n}), Concat(batch, {reflectors}),
           Concat(batch, {reflectors}), batch});
    case LapackRoutine::kOrmqr: {
      const Shape& tau = instruction.operand(1)->shape();
      const Shape& c = instruction.operand(2)->shape();
      const bool fits =
          tau.IsArray() && tau.element_type() == call.type &&
          tau.rank() == a.rank() - 1 &&
          std::equal(batch.begin(), batch.end(), tau.dimensions().begin()) &&
          c.IsArray() && c.element_type() == call.type &&
          c.rank() == a.rank() &&
          std::equal(batch.begin(), batch.end(), c.dimensions().begin()) &&
          c.dimensions(c.rank() - (call.side == 'L' ? 2 : 1)) == m &&
          tau.dimensions().back() <= std::min(m, n);
      if (!fits) {
        return CallError(
            instruction,
            absl::StrCat("operands ", a.ToString(false), ", ",
                         tau.ToString(false), " and ", c.ToString(false),
                         " do not fit (a[batch, r, ka], tau[batch, k], "
                         "c[batch, p, q], r = ",
                         call.side == 'L' ? "p" : "q", ", k <= min(r, ka))"));
      }
      return Expect(instruction, instruction.shape(), call.type, c.dimensions(),
                    "the result");
    }
    case LapackRoutine::kGeqp3:
      HLOC_RETURN_IF_ERROR(
          ExpectOperand(instruction, 1, S32, Concat(batch, {n})));
      return ExpectTuple(
          instruction, {call.type, S32, call.type},
          {a.dimensions(), Concat(batch, {n}), Concat(batch, {k})});
    case LapackRoutine::kGtsv:
      break;
  }
  return CallError(instruction, "unknown routine");
}

}  // namespace

int64_t LapackOperandCount(LapackRoutine routine) {
  switch (routine) {
    case LapackRoutine::kTrsm:
    case LapackRoutine::kOrgqr:
    case LapackRoutine::kGeqp3:
      return 2;
    case LapackRoutine::kOrmqr:
      return 3;
    case LapackRoutine::kGtsv:
      return 4;
    default:
      return 1;
  }
}

std::string LapackRoutineName(LapackRoutine routine, PrimitiveType type) {
  // xgeev is geev with cuSOLVER's results (no lapack_*_ffi target).
  if (routine == LapackRoutine::kXgeev) routine = LapackRoutine::kGeev;
  for (const RoutineName& r : kRoutines) {
    if (r.routine == routine) {
      return absl::StrCat(std::string(1, Prefix(type)),
                          IsComplexType(type) ? r.complex : r.real);
    }
  }
  return "?";
}

std::vector<std::string> SupportedLapackTargets() {
  std::vector<std::string> targets;
  for (const RoutineName& r : kRoutines) {
    for (const TypePrefix& t : kTypes) {
      targets.push_back(absl::StrCat(
          "lapack_", LapackRoutineName(r.routine, t.type), "_ffi"));
    }
  }
  return targets;
}

std::vector<std::string> GpuHostLapackTargets() {
  std::vector<std::string> targets;
  for (const HostCallTarget& t : HostCallTargets()) targets.push_back(t.name);
  return targets;
}

absl::StatusOr<std::vector<std::pair<std::string, int64_t>>>
ParseFfiIntegerAttributes(
    absl::string_view dictionary,
    std::vector<std::pair<std::string, std::string>>* strings) {
  absl::string_view text = absl::StripAsciiWhitespace(dictionary);
  std::vector<std::pair<std::string, int64_t>> attributes;
  if (text.empty()) return attributes;
  if (!absl::ConsumePrefix(&text, "{") || !absl::ConsumeSuffix(&text, "}")) {
    return absl::InvalidArgumentError(
        absl::StrCat("backend_config '", dictionary,
                     "' is not an attribute dictionary {name = value : type}"));
  }
  for (absl::string_view entry :
       absl::StrSplit(text, ',', absl::SkipWhitespace())) {
    std::vector<absl::string_view> name_value = absl::StrSplit(entry, '=');
    if (name_value.size() != 2) {
      return absl::InvalidArgumentError(absl::StrCat(
          "backend_config entry '", entry, "' is not name = value : type"));
    }
    absl::string_view value = name_value[1];
    const size_t colon = value.find(':');
    if (colon != absl::string_view::npos) value = value.substr(0, colon);
    int64_t number = 0;
    value = absl::StripAsciiWhitespace(value);
    if (strings != nullptr && value.size() >= 2 && value.front() == '"' &&
        value.back() == '"') {
      strings->emplace_back(
          std::string(absl::StripAsciiWhitespace(name_value[0])),
          std::string(value.substr(1, value.size() - 2)));
      continue;
    }
    if (value == "true" || value == "false") {
      number = value == "true" ? 1 : 0;
    } else if (!absl::SimpleAtoi(value, &number)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "backend_config entry '", entry, "' has no integer value"));
    }
    attributes.emplace_back(
        std::string(absl::StripAsciiWhitespace(name_value[0])), number);
  }
  return attributes;
}

bool GesddVectorsAreFull(char mode, int64_t m, int64_t n,
                         const std::vector<Shape>& results) {
  if (mode != 'N') return mode == 'A';
  if (results.size() != 5) return false;
  const Shape& u = results[2];
  const Shape& vt = results[3];
  if (!u.IsArray() || !vt.IsArray() || u.rank() < 2 || vt.rank() < 2) {
    return false;
  }
  return u.dimensions().back() == m && vt.dimensions(vt.rank() - 2) == n;
}

absl::StatusOr<std::optional<LapackCall>> ParseLapackCall(
    const HloInstruction& instruction) {
  if (instruction.opcode() != HloOpcode::kCustomCall) return std::nullopt;
  LapackCall call;
  const std::string& name = instruction.attrs().custom_call_target;
  for (const HostCallTarget& t : HostCallTargets()) {
    if (name != t.name) continue;
    // The type is the matrix's: the target names only real or complex.
    call.routine = t.routine;
    call.gpu_host_call = true;
    const Shape* a = instruction.operand_count() > 0
                         ? &instruction.operand(0)->shape()
                         : nullptr;
    if (a == nullptr || !a->IsArray() ||
        !absl::c_linear_search(t.types, a->element_type())) {
      std::vector<std::string> types;
      for (PrimitiveType type : t.types) {
        types.push_back(std::string(PrimitiveTypeName(type)));
      }
      return CallError(
          instruction,
          absl::StrCat(
              "operand 0 is ",
              a == nullptr ? std::string("missing") : a->ToString(false),
              ", expected a matrix of ", absl::StrJoin(types, ", ")));
    }
    call.type = a->element_type();
  }
  absl::string_view target = name;
  if (!call.gpu_host_call) {
    if (!absl::ConsumePrefix(&target, "lapack_") ||
        !absl::ConsumeSuffix(&target, "_ffi") || target.size() < 2) {
      return std::nullopt;
    }
    for (const TypePrefix& t : kTypes) {
      if (target[0] == t.prefix) call.type = t.type;
    }
    if (call.type == PRIMITIVE_TYPE_INVALID) return std::nullopt;
    bool found = false;
    for (const RoutineName& r : kRoutines) {
      if (target.substr(1) == (IsComplexType(call.type) ? r.complex : r.real)) {
        call.routine = r.routine;
        found = true;
      }
    }
    if (!found) return std::nullopt;
  }
  // A host call's magma names the library jaxlib runs (MAGMA or LAPACK):
  // both compute the same factorisation, and here it is always LAPACK.
  std::vector<std::pair<std::string, std::string>> strings;
  absl::StatusOr<std::vector<std::pair<std::string, int64_t>>> attributes =
      ParseFfiIntegerAttributes(instruction.backend_config(),
                                call.gpu_host_call ? &strings : nullptr);
  if (!attributes.ok()) {
    return CallError(instruction, attributes.status().message());
  }
  for (const auto& [key, value] : strings) {
    if (key != "magma") {
      return CallError(instruction, absl::StrCat("attribute ", key, " = \"",
                                                 value, "\" is not a number"));
    }
  }
  HLOC_ASSIGN_OR_RETURN(
      call.uplo, CharAttribute(instruction, *attributes, "uplo", "LU", 'L'));
  HLOC_ASSIGN_OR_RETURN(
      call.side, CharAttribute(instruction, *attributes, "side", "LR", 'L'));
  HLOC_ASSIGN_OR_RETURN(call.trans, CharAttribute(instruction, *attributes,
                                                  "trans_x", "NTC", 'N'));
  HLOC_ASSIGN_OR_RETURN(
      call.diag, CharAttribute(instruction, *attributes, "diag", "UN", 'N'));
  const bool svd = call.routine == LapackRoutine::kGesdd;
  HLOC_ASSIGN_OR_RETURN(call.mode,
                        CharAttribute(instruction, *attributes, "mode",
                                      svd ? "ASN" : "VN", svd ? 'A' : 'V'));
  HLOC_ASSIGN_OR_RETURN(call.jobvl, CharAttribute(instruction, *attributes,
                                                  "compute_left", "VN", 'N'));
  HLOC_ASSIGN_OR_RETURN(call.jobvr, CharAttribute(instruction, *attributes,
                                                  "compute_right", "VN", 'N'));
  HLOC_ASSIGN_OR_RETURN(const char sort, CharAttribute(instruction, *attributes,
                                                       "sort", "NS", 'N'));
  if (sort == 'S') {
    // As jaxlib's gees: sorting needs a select function, which no custom
    // call can pass.
    return CallError(instruction,
                     "sort = 'S' (ordered Schur form) is not supported: it "
                     "needs a select function");
  }
  for (const auto& [key, value] : *attributes) {
    if (key == "low") call.ilo = value;
    if (key == "high") call.ihi = value;
    if (call.routine == LapackRoutine::kOrmqr && key == "left") {
      call.side = value ? 'L' : 'R';
    }
    if (call.routine == LapackRoutine::kOrmqr && key == "transpose") {
      call.trans = !value ? 'N' : IsComplexType(call.type) ? 'C' : 'T';
    }
    // The GPU calls' booleans for LAPACK's characters.
    if (call.gpu_host_call && key == "left") call.jobvl = value ? 'V' : 'N';
    if (call.gpu_host_call && key == "right") call.jobvr = value ? 'V' : 'N';
    if (call.gpu_host_call && key == "lower") call.uplo = value ? 'L' : 'U';
  }
  if (call.routine == LapackRoutine::kGehrd &&
      instruction.operand_count() > 0 &&
      instruction.operand(0)->shape().IsArray() &&
      instruction.operand(0)->shape().rank() >= 2 &&
      absl::c_none_of(*attributes,
                      [](const auto& a) { return a.first == "high"; })) {
    call.ihi = instruction.operand(0)->shape().dimensions().back();
  }
  HLOC_RETURN_IF_ERROR(CheckShapes(instruction, call));
  return call;
}

}  // namespace hloc
