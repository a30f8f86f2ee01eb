// dot on the CPU: any dimension numbers, layouts and element types (no
// complex), and the dot-epilogue fusion (kOutput, fusion_kinds.h), as one
// call of the GEMM engine (gemm_emitter.h), or of the GEMV engine
// (gemv_emitter.h) when one side is a single row or column and the other
// can be read in place (ChooseDotEngine in dot_emitter.cc decides).
//
// The dot is read as a batched matrix product: batch = the batch
// dimensions, M = lhs free dimensions, N = rhs free dimensions, K = the
// contracting dimensions, each a group of logical dimensions walked
// row-major (the output's order). Packing reads each operand through its
// groups' strides -- a single stride where the group's dimensions are
// adjacent in the layout (any transpose of a matrix then costs nothing
// extra), a div/mod chain otherwise -- and converts to the accumulation
// type (f32 for f16/bf16/f32, f64, or wrapping s32/s64 for integers and
// pred), so mixed operand types cost nothing in the micro-kernel. When the
// padding of the register tile wastes less that way, the kernel computes
// the transpose (C^T = B^T A^T: the engine's vectors run along M). A GEMV
// with the vector on the right is likewise computed transposed.
//
// Epilogue: for a kOutput fusion, the fused computation's root is
// generated per element of each finished register tile (elemental emitter)
// with the dot's value taken from the tile, converted to the dot's type;
// the other fused parameters are read from their buffers.
#ifndef BACKENDS_CPU_DOT_EMITTER_H_
#define BACKENDS_CPU_DOT_EMITTER_H_

#include <string>

#include "absl/status/status.h"
#include "backends/cpu/kernel_util.h"
#include "hlo/instruction.h"

namespace hloc {

// A dot, or a fusion of kind kOutput (a dot with an elementwise epilogue),
// on real or integer types (complex dots run as loop kernels).
bool IsDotKernel(const HloInstruction& hlo);

absl::Status EmitDotKernel(const HloInstruction& hlo, const std::string& symbol,
                           const OpEmitterContext& ctx);

}  // namespace hloc

#endif  // BACKENDS_CPU_DOT_EMITTER_H_
