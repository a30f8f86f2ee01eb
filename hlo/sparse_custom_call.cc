#include "hlo/sparse_custom_call.h"

#include "absl/strings/str_cat.h"

namespace hloc {

bool IsCsrSparseDenseCustomCall(const HloInstruction& instr) {
  return instr.opcode() == HloOpcode::kCustomCall &&
         instr.attrs().custom_call_target == "cpu_csr_sparse_dense_ffi";
}

absl::StatusOr<CsrSparseDenseCall> ReadCsrSparseDenseCall(
    const HloInstruction& instr) {
  auto fail = [&](absl::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat("custom-call ", instr.name(), " (",
                     instr.attrs().custom_call_target, "): ", why));
  };
  if (instr.operand_count() != 4 || !instr.shape().IsArray()) {
    return fail(
        "expected operands (data, indptr, indices, rhs) and one "
        "array result");
  }
  for (int64_t i = 0; i < 4; ++i) {
    if (!instr.operand(i)->shape().IsArray()) {
      return fail("every operand must be an array");
    }
  }
  const Shape& data = instr.operand(0)->shape();
  const Shape& indptr = instr.operand(1)->shape();
  const Shape& indices = instr.operand(2)->shape();
  const Shape& rhs = instr.operand(3)->shape();
  const Shape& out = instr.shape();
  CsrSparseDenseCall call;
  call.type = data.element_type();
  call.index_type = indptr.element_type();
  switch (call.type) {
    case F32:
    case F64:
    case C64:
    case C128:
    case S32:
    case S64:
      break;
    default:
      return fail("data must be f32, f64, c64, c128, s32 or s64");
  }
  if ((call.index_type != S32 && call.index_type != S64) ||
      indices.element_type() != call.index_type) {
    return fail("indptr and indices must be both s32 or both s64");
  }
  if (rhs.element_type() != call.type || out.element_type() != call.type) {
    return fail("rhs and the result must have data's element type");
  }
  if (data.rank() != 1 || indptr.rank() != 1 || indices.rank() != 1 ||
      indptr.dimensions(0) < 1 || indices.dimensions(0) != data.dimensions(0)) {
    return fail("expected data [nse], indptr [m+1] and indices [nse]");
  }
  call.nse = data.dimensions(0);
  call.rows = indptr.dimensions(0) - 1;
  if (rhs.rank() != 1 && rhs.rank() != 2) {
    return fail("rhs must be a vector [k] or a matrix [k, n]");
  }
  call.vector_rhs = rhs.rank() == 1;
  call.cols = rhs.dimensions(0);
  call.rhs_cols = call.vector_rhs ? 1 : rhs.dimensions(1);
  if (out.rank() != rhs.rank() || out.dimensions(0) != call.rows ||
      (!call.vector_rhs && out.dimensions(1) != call.rhs_cols)) {
    return fail(
        "the result must be [m] for a vector rhs, [m, n] for a "
        "matrix [k, n]");
  }
  return call;
}

}  // namespace hloc
