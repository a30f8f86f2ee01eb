// Streaming (non-temporal) stores for large kernel outputs.
//
// An ordinary store first reads the cache line it writes (read for
// ownership), so a kernel that reads N bytes and writes N bytes moves 3N
// through memory, and the written lines push useful data out of the
// caches. A non-temporal store writes whole lines straight to memory: 2N.
// That is how memcpy reaches its bandwidth on large blocks, and it is the
// difference between ~55% and ~90% of it for a memory-bound elementwise
// kernel. It only pays when the output will not be read from cache again
// soon, so it is used for outputs larger than the last-level cache
// (StreamingStoreThreshold), which cannot stay cached anyway.
//
// LLVM's loop vectorizer refuses to widen a loop whose scalar stores are
// marked !nontemporal unless the scalar store is aligned to the vector
// pair, so kernels do not mark their element stores. They compute a chunk
// of the output into a 64-byte-aligned stack buffer with ordinary
// (vectorized, L1-resident) stores, then EmitStreamingCopy moves the chunk
// to the output with aligned 64-byte non-temporal stores.
#ifndef BACKENDS_CPU_STREAMING_STORE_H_
#define BACKENDS_CPU_STREAMING_STORE_H_

#include <cstdint>

#include "backends/common/ir_array.h"
#include "hlo/shape.h"

namespace llvm {
class IRBuilderBase;
class Value;
}  // namespace llvm

namespace hloc {

struct CpuCodegenOptions;

// The host's last-level cache size in bytes (32 MiB if the system does not
// say): the default CpuCodegenOptions::streaming_store_min_bytes.
int64_t StreamingStoreThreshold();

// True if a kernel should write an output of `shape` with streaming stores
// under `options` (host targets only, dense outputs of at least
// streaming_store_min_bytes).
bool UseStreamingStores(const CpuCodegenOptions& options, const Shape& shape);

// A 64-byte-aligned stack buffer (allocated in the function's entry block)
// for `elements` elements of `type`: where a streamed chunk is staged.
llvm::Value* EmitStageBuffer(PrimitiveType type, int64_t elements,
                             llvm::IRBuilderBase* b);

// Streams `length` elements (an i64 value) staged at `stage` into `out` at
// physical positions [start, start + length) (EmitStreamingCopy).
void EmitStreamOut(const IrArray& out, llvm::Value* start, llvm::Value* length,
                   llvm::Value* stage, llvm::IRBuilderBase* b);

// Copies `bytes` (an i64 value) from `src` to `dst`: bytes up to the first
// 64-byte boundary of dst and after the last one one at a time, everything
// between as 64-byte non-temporal stores.
void EmitStreamingCopy(llvm::Value* dst, llvm::Value* src, llvm::Value* bytes,
                       llvm::IRBuilderBase* b);

// Orders this thread's non-temporal stores before anything it does next
// (they are weakly ordered): emitted once at the end of a range function
// that streamed, before the OpenMP barrier publishes the output.
void EmitStreamingFence(llvm::IRBuilderBase* b);

}  // namespace hloc

#endif  // BACKENDS_CPU_STREAMING_STORE_H_
