// Exact converts of a dot's operands read by the dot itself
// ("dot-convert-folding").
//
// JAX programs in mixed precision compute dots of widened values:
// `x.astype(f32) @ w.astype(f32)` with bf16 x and w is dot(convert(x),
// convert(w)) -> f32. Compiled as written, each convert is a kernel (or a
// loop of the CPU) that writes the wide copy, and the dot reads it back:
// three passes over the operands where one would do. This pass gives the
// dot the narrow values instead, keeping its result type:
//     dot(convert(x) -> f32, convert(w) -> f32) -> f32
//  => dot(x, w) -> f32        (x, w: bf16; HLO allows mixed dots)
// which is what XLA's gemm fusions achieve by fusing the converts into the
// dot. Only exact conversions are folded (every value of the narrow type
// is a value of the wide one: bf16/f16 -> f32, f32 -> f64, s8 -> s32,
// s8 -> f32, ...), and only where the platform's dot computes the same
// products from the narrow operands (DotOperandReads), so the result is
// the same up to the order of the sums. A convert with other users stays
// for them.
#ifndef PASSES_DOT_CONVERT_FOLDING_H_
#define PASSES_DOT_CONVERT_FOLDING_H_

#include "hlo/primitive_type.h"
#include "passes/pass.h"

namespace hloc {

// Which operand types a platform's dot reads itself, converting them as it
// loads them.
enum class DotOperandReads {
  // The CPU: its GEMM packs every operand element converted to the
  // accumulation type (backends/cpu/gemm_emitter.h), and that type follows
  // the result type (f32 for float results up to f32, f64, or s32/s64), so
  // each operand may keep any type it is exactly widened from.
  kEachOperandAnyType,
  // ROCm: every dot is the tiled kernel, which reads any types, but uses
  // matrix cores (MFMA) only for operands of one type; so both operands
  // must end up with one type.
  kBothOperandsOneType,
  // CUDA: float dots are cuBLASLt calls, which take two operands of one
  // type: bf16 or f16 into an f32 result. Integer dots are tiled kernels
  // (cuBLASLt has no call for them), which read any integer type. Anything
  // else (f32 operands into f64) would leave cuBLAS for the tiled kernel,
  // which is slower than the library on large dots: not folded.
  kCublasLtTypes,
};

// Whether `from` converts to `to` exactly: every value of `from` is a
// value of `to` (float widening, integer widening that keeps the sign,
// integers into floats with enough mantissa). Pred and complex types never.
bool IsExactConversion(PrimitiveType from, PrimitiveType to);

class DotConvertFolding : public HloPass {
 public:
  explicit DotConvertFolding(
      DotOperandReads reads = DotOperandReads::kEachOperandAnyType)
      : reads_(reads) {}
  absl::string_view name() const override { return "dot-convert-folding"; }
  absl::StatusOr<bool> Run(HloModule* module) override;

 private:
  DotOperandReads reads_;
};

}  // namespace hloc

#endif  // PASSES_DOT_CONVERT_FOLDING_H_
