// NVPTX: f32 -> bf16 / f16 conversions as one instruction per pair.
#ifndef BACKENDS_GPU_NVPTX_PAIRED_CONVERSIONS_H_
#define BACKENDS_GPU_NVPTX_PAIRED_CONVERSIONS_H_

#include "llvm/IR/Module.h"

namespace hloc {

// Rounds f32 values to bf16 or f16 two lanes at a time, with
// cvt.rn.bf16x2.f32 (cvt.rn.f16x2.f32): every store of a vector of an even
// number of bf16 (f16) lanes gathered lane by lane from scalar f32
// conversions, which is what the load/store vectorizer makes of a loop
// kernel's 16-byte run (O3's SLP vectorizer forms no vector conversions
// here: none in the benchmark, model and zoo modules). Each lane is
// rounded as the scalar cvt.rn.bf16.f32 rounds it. LLVM 19's NVPTX backend
// emits one cvt per lane plus the moves that pack pairs into 32-bit
// registers; a bf16 chain5 kernel spent 8 conversions and 4 moves per
// 16-byte store. Runs after O3; sm_80 and later, the architectures the
// NVPTX target accepts. Returns how many stores it rewrote.
int PairNarrowingConversions(llvm::Module& module);

}  // namespace hloc

#endif  // BACKENDS_GPU_NVPTX_PAIRED_CONVERSIONS_H_
