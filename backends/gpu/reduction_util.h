// Pieces every GPU reduction kernel uses (row and column reductions, row-
// reduction fusions, transposes' and dots' tiles, row scans): warp shuffles of
// any register type and a block's shared-memory array. Included only by
// emitters' .cc files (it pulls in LLVM's IR headers through kernel_builder.h).
#ifndef BACKENDS_GPU_REDUCTION_UTIL_H_
#define BACKENDS_GPU_REDUCTION_UTIL_H_

#include <cstdint>
#include <string>

#include "backends/gpu/kernel_builder.h"

namespace hloc {

// The value of `value` in lane (lane ^ mask), any register type: split
// into 32-bit pieces, each shuffled. Every lane of the warp must execute it.
llvm::Value* ShuffleXor(KernelBuilder& kernel, llvm::Value* value, int mask);

// The value of `value` in lane (lane - delta); lanes below `delta` get
// their own. Any register type; every lane of the warp must execute it.
llvm::Value* ShuffleUp(KernelBuilder& kernel, llvm::Value* value, int delta);

// The value of `value` in lane `source_lane`, in every lane. Any register
// type; every lane of the warp must execute it.
llvm::Value* ShuffleIndex(KernelBuilder& kernel, llvm::Value* value,
                          int source_lane);

// A block-shared array of `count` elements of `type`, named after the
// kernel and `what`.
llvm::GlobalVariable* SharedArray(KernelBuilder& kernel, llvm::Type* type,
                                  int64_t count, const std::string& what);

// The address of element `i` of a SharedArray.
llvm::Value* SharedElement(KernelBuilder& kernel, llvm::GlobalVariable* array,
                           llvm::Value* i);

// True if every use of `value` (a fused instruction) reaches `root`
// through elementwise ops of root's dimensions only, so a kernel that
// computes `value` itself (a transpose's tile, a dot's register tile) is
// only asked for it at the output position it is writing.
bool ReadAtOutputPositionOnly(const HloInstruction* value,
                              const HloInstruction* root);

}  // namespace hloc

#endif  // BACKENDS_GPU_REDUCTION_UTIL_H_
