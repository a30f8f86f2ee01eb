// NVPTX: f32 -> bf16 / f16 vector conversions as one instruction per pair.
#ifndef BACKENDS_GPU_NVPTX_PAIRED_CONVERSIONS_H_
#define BACKENDS_GPU_NVPTX_PAIRED_CONVERSIONS_H_

#include "llvm/IR/Module.h"

namespace hloc {

// Rewrites every `fptrunc <N x float> to <N x bfloat>` (or `<N x half>`),
// N even, into N / 2 cvt.rn.bf16x2.f32 (cvt.rn.f16x2.f32) instructions,
// each rounding two lanes into one 32-bit register, the same rounding as
// the scalar cvt.rn.bf16.f32 per lane. LLVM 19's NVPTX backend splits the
// vector conversion into one cvt per lane plus the packing moves; after
// O3 the SLP vectorizer has already grouped the conversions of a loop
// kernel's 16-byte run, so this only pairs what is known to be adjacent.
// For sm_80 and later (the architectures the NVPTX target accepts).
// Returns how many conversions it rewrote.
int PairNarrowingConversions(llvm::Module& module);

}  // namespace hloc

#endif  // BACKENDS_GPU_NVPTX_PAIRED_CONVERSIONS_H_
