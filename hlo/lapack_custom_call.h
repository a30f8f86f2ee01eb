// The LAPACK custom calls JAX's CPU lowering emits (jaxlib's typed-FFI
// kernels, `lapack_<t><routine>_ffi` with t = s, d, c, z for f32, f64, c64,
// c128), read from an HLO custom-call once so that the evaluator and the CPU
// backend agree on what each one means and refuse the same malformed ones.
// Also the host-LAPACK calls of JAX's CUDA lowering (jaxlib's "hybrid"
// kernels, which copy the matrix to the host and run LAPACK or MAGMA there):
// `cuhybrid_eig_real` and `cuhybrid_eig_comp` are geev (attributes left,
// right: booleans; magma: a string naming the library, ignored: both
// compute the same factorisation) and `cuhybrid_geqp3` is geqp3, each with
// the convention of the CPU's call of the same routine; and two cuSOLVER
// calls the cuda backend computes with LAPACK on the host too (the same
// algorithms; on the small matrices eig usually sees a host round trip is
// quicker than cuSOLVER's per-matrix work): the eig newer JAX lowers to
// cuSOLVER's Xgeev, `cusolver_geev_ffi` (left, right), xgeev below, and
// lax.linalg.tridiagonal's `cusolver_sytrd_ffi` (lower: a boolean), sytrd.
//
// XLA's calling convention for them (jaxlib/cpu/lapack_kernels.cc): every
// leading dimension of a matrix operand is a batch dimension, the last two
// are the matrix (JAX asks for a column-major layout through
// operand_layout_constraints; the values are the same whatever the layout),
// and the attributes are the backend_config's MLIR dictionary of ui8
// characters, e.g. `{uplo = 76 : ui8}` for 'L'.
//   potrf(a)    -> (a', info s32[batch])        uplo; a' keeps a's other
//                                                triangle
//   trsm(a, b)  -> x                             side, uplo, trans_x, diag
//   getrf(a)    -> (lu, ipiv s32[batch, min(m,n)] 1-based, info s32[batch])
//   geqrf(a)    -> (a', tau[batch, min(m,n)])
//   orgqr/ungqr(a, tau) -> q                     (householder product)
//   syevd/heevd(a) -> (v, w real[batch, n], info s32[batch])  mode, uplo
//   gesdd(a)    -> (a', s real[batch, k], u[batch, m, m|k],
//                   vt[batch, n|k, n], info)      mode 'A' (full), 'S'
//                                                (thin) or 'N' (values only;
//                                                u and vt keep either shape)
//   geev(a)     -> real: (wr, wi [batch, n], vl, vr complex[batch, n, n],
//                   info); complex: (w, vl, vr, info)
//                                                compute_left, compute_right
//   gees(a)     -> real: (t, vs, wr, wi, sdim s32[batch], info);
//                  complex: (t, vs, w, sdim, info)  mode, sort ('N' only)
//   gehrd(a)    -> (a', tau[batch, n-1], info)   low, high (i32, 1-based)
//   sytrd/hetrd(a) -> (a', d real[batch, n], e real[batch, n-1],
//                   tau[batch, n-1], info)       uplo
//   ormqr/unmqr(a[batch, r, ka], tau[batch, k], c[batch, p, q]) -> c'
//                                                left, transpose (booleans;
//                                                r = p if left, else q)
//   gtsv(dl, d, du [batch, n], b[batch, n, nrhs]) -> (dl', d', du', b',
//                   info)                        dl[0] and du[n-1] unused
//   xgeev(a)    -> (a', w complex[batch, n], vl, vr [batch, n, n] of a's
//                   type (a real matrix's packed as geev's), info)
//                                                left, right (booleans)
//   geqp3(a, jpvt s32[batch, n]) -> (a', jpvt', tau[batch, min(m,n)])
//                                                jpvt 1-based (LAPACK's):
//                                                on entry a non-zero pins
//                                                that column to the front
#ifndef HLO_LAPACK_CUSTOM_CALL_H_
#define HLO_LAPACK_CUSTOM_CALL_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hlo/instruction.h"

namespace hloc {

enum class LapackRoutine {
  kPotrf,
  kTrsm,
  kGetrf,
  kGeqrf,
  kOrgqr,
  kSyevd,
  kGesdd,
  kGeev,
  kGees,
  kGehrd,
  kSytrd,
  kOrmqr,
  kGtsv,
  kGeqp3,
  kXgeev,
};

// How many operands the routine's custom call (and library step) takes.
int64_t LapackOperandCount(LapackRoutine routine);

struct LapackCall {
  LapackRoutine routine = LapackRoutine::kPotrf;
  // The matrix element type: F32, F64, C64 or C128.
  PrimitiveType type = PRIMITIVE_TYPE_INVALID;
  // The FFI attributes as LAPACK's characters ('L', 'U', 'N', 'T', 'C',
  // 'V'), defaulted where a routine takes none.
  char uplo = 'L';
  char side = 'L';
  char trans = 'N';
  char diag = 'N';
  // syevd: 'V'/'N'; gesdd: 'A', 'S' or 'N'; gees: jobvs 'V'/'N'.
  char mode = 'V';
  // geev's compute_left / compute_right: 'V' or 'N'.
  char jobvl = 'N';
  char jobvr = 'N';
  // gehrd's low and high (LAPACK's ilo, ihi; 1-based).
  int64_t ilo = 1;
  int64_t ihi = 0;
  // One of the CUDA lowering's calls (GpuHostLapackTargets()), not a CPU
  // one: the cuda backend runs these, and only these, on its host.
  bool gpu_host_call = false;
};

// The routine's name as LAPACK spells it for `type` ("spotrf", "zungqr").
std::string LapackRoutineName(LapackRoutine routine, PrimitiveType type);

// Every CPU custom_call_target ParseLapackCall accepts (lapack_*_ffi).
std::vector<std::string> SupportedLapackTargets();

// The CUDA lowering's targets ParseLapackCall accepts (cuhybrid_*,
// cusolver_geev_ffi, cusolver_sytrd_ffi): what the cuda backend runs with
// LAPACK on its host.
std::vector<std::string> GpuHostLapackTargets();

// Whether a gesdd call's u and vt are full (batch x m x m, batch x n x n)
// rather than thin (m x k, k x n, k = min(m, n)), given the matrix's m and
// n and the call's result shapes: jobz 'A' is full, 'S' thin; 'N' computes
// no vectors but JAX still sizes them either way. Where m or n is k, u or
// vt reads the same both ways (a wide matrix's u is m x m), so both decide.
bool GesddVectorsAreFull(char mode, int64_t m, int64_t n,
                         const std::vector<Shape>& results);

// nullopt when `instruction` is not a custom-call to one of
// SupportedLapackTargets(); an error naming the instruction when it is one
// but its operands, result or attributes do not fit the convention above.
absl::StatusOr<std::optional<LapackCall>> ParseLapackCall(
    const HloInstruction& instruction);

// The `name = value : type` entries of an MLIR attribute dictionary as
// jaxlib's FFI calls carry it in backend_config ("{uplo = 76 : ui8}"); only
// integer values and booleans (true 1, false 0). A quoted string value
// ({magma = "auto"}) is an error unless `strings` is given: then it goes
// there, unquoted.
absl::StatusOr<std::vector<std::pair<std::string, int64_t>>>
ParseFfiIntegerAttributes(
    absl::string_view dictionary,
    std::vector<std::pair<std::string, std::string>>* strings = nullptr);

}  // namespace hloc

#endif  // HLO_LAPACK_CUSTOM_CALL_H_
