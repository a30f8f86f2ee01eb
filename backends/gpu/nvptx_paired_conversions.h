// NVPTX: f32 -> bf16 / f16 vector conversions as one instruction per pair.
#ifndef BACKENDS_GPU_NVPTX_PAIRED_CONVERSIONS_H_
#define BACKENDS_GPU_NVPTX_PAIRED_CONVERSIONS_H_

#include "llvm/IR/Module.h"

namespace hloc {

// Rounds f32 values to bf16 or f16 two lanes at a time, with
// cvt.rn.bf16x2.f32 (cvt.rn.f16x2.f32): every `fptrunc <N x float> to
// <N x bfloat>` (or `<N x half>`), N even, and every store of such a
// vector gathered lane by lane from scalar f32 conversions (what the
// load/store vectorizer makes of a loop kernel's 16-byte run). Each lane
// is rounded as the scalar cvt.rn.bf16.f32 rounds it. LLVM 19's NVPTX
// backend emits one cvt per lane plus the moves that pack pairs into
// 32-bit registers; a bf16 chain5 kernel spent 8 conversions and 4 moves
// per 16-byte store. Runs after O3 (the vectorizers have grouped the
// lanes); sm_80 and later, the architectures the NVPTX target accepts.
// Returns how many conversions or stores it rewrote.
int PairNarrowingConversions(llvm::Module& module);

}  // namespace hloc

#endif  // BACKENDS_GPU_NVPTX_PAIRED_CONVERSIONS_H_
