// Hand-made "cuda" executables for the CUDA runtime's tests: hand-written
// PTX kernels (no compiler involved) and buffer plans built slot by slot,
// each exercising a part of the executor (kernels, copies, while loops,
// conditionals, constants, tuple results, dynamic shared memory, evaluator
// steps, cuBLASLt gemms). They run on any NVIDIA GPU of sm_80 or newer.
#ifndef RUNTIME_TESTING_CUDA_TEST_EXECUTABLES_H_
#define RUNTIME_TESTING_CUDA_TEST_EXECUTABLES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "hlo/literal.h"
#include "hlo/shape.h"
#include "runtime/executable.h"

namespace hloc {
namespace testing {

// Elements of the f32 vectors the kernels work on: not a multiple of the
// block size, so the kernels' bounds checks matter.
inline constexpr int64_t kVectorSize = 1000;
// Loop trips of the while executable.
inline constexpr int32_t kLoopTrips = 5;

// PTX with add_f32, mul_f32 (elementwise on kVectorSize elements),
// increment_s32 (out = in + 1), less_than_s32 (pred out = a < b) and
// shared_copy_f32 (through 64 KiB of dynamic shared memory).
std::string TestPtx();

// Builds an executable's buffer plan one slot per allocation.
class ExecutableBuilder {
 public:
  explicit ExecutableBuilder(std::string name);
  int64_t Parameter(const Shape& shape);
  int64_t Constant(const Literal& value);
  int64_t Temporary(const Shape& shape);
  int64_t Output(const Shape& shape);
  // Finishes: the result is a tuple of `results` (or the one slot when
  // `tuple` is false).
  Executable Build(std::vector<ExecutableStep> steps,
                   const std::vector<int64_t>& results, bool tuple,
                   std::string hlo_module = "");

 private:
  int64_t Slot(BufferAllocation::Kind kind, const Shape& shape,
               std::string data = "");
  Executable e_;
};

// A kernel of TestPtx() on `buffers`, writing the last one.
ExecutableStep KernelStep(const std::string& instruction,
                          const std::string& kernel,
                          std::vector<int64_t> buffers,
                          int64_t shared_memory_bytes = 0);
ExecutableStep CopyStep(const std::string& instruction, int64_t from,
                        int64_t to);

// (x: f32[kVectorSize], flag: pred[]) -> (f32[kVectorSize], s32[]):
//   a while loop runs kLoopTrips times acc += x from a constant start
//   (i * 0.5), counting in s32; then a conditional on flag returns acc * acc
//   (true) or acc (false), and the count. Its hlo_module is the same
//   computation in HLO, so the interpreter gives the expected result.
//   With `trips`, the loop runs that many times instead; `counted` gives
//   the loop step its trip count (as the compiler does for a loop it
//   proves), so the runtime may run it without its condition.
Executable WhileConditionalExecutable(int32_t trips = kLoopTrips,
                                      bool counted = false);
// The expected result of WhileConditionalExecutable.
Literal WhileConditionalExpected(const Literal& x, bool flag,
                                 int32_t trips = kLoopTrips);

// (x, y: f32[kVectorSize], k: s32[]) -> f32[kVectorSize]: a conditional
// on k with branches x + y, x * y, -x (an evaluator step), then the result
// copied through 64 KiB of dynamic shared memory. Without
// `evaluator_branch` the last branch is x (a copy), so that every branch
// can be captured into a graph.
Executable IndexedConditionalExecutable(bool evaluator_branch = true);

// One gemm step on row-major operands: out[M,N] = lhs[M,K] x rhs[K,N]
// (batched when batch > 1: [B,M,K] x [B,K,N]), in `type`, with `epilogue`
// (a bias is f32[N]-like, per output column) and the lhs given transposed
// ([K,M]) when `transposed_lhs`.
Executable GemmExecutable(PrimitiveType type, int64_t batch, int64_t m,
                          int64_t n, int64_t k, const std::string& epilogue,
                          bool transposed_lhs);

// One cuDNN convolution step, channels last: out[N, OH, OW, K] =
// conv(input[N, H, W, C], filter[K, R, S, C / groups]) with the given
// stride, padding (both sides) and dilation in both spatial dimensions;
// with `channels_first`, input[N, C, H, W], filter[K, C / groups, R, S]
// and out[N, K, OH, OW] instead.
// With `backward_filter`, that convolution's filter gradient instead:
// the filter from input and out (the output's gradient).
struct ConvTestShape {
  int64_t n = 2, h = 7, w = 6, c = 4, k = 6, r = 3, s = 3;
  int64_t stride = 1, padding = 1, dilation = 1, groups = 1;
  bool backward_filter = false;
  bool channels_first = false;
  int64_t OutH() const {
    return (h + 2 * padding - (r - 1) * dilation - 1) / stride + 1;
  }
  int64_t OutW() const {
    return (w + 2 * padding - (s - 1) * dilation - 1) / stride + 1;
  }
  // Row-major offsets of an element of each tensor in the order above.
  int64_t InputIndex(int64_t b, int64_t y, int64_t x, int64_t f) const {
    return channels_first ? ((b * c + f) * h + y) * w + x
                          : ((b * h + y) * w + x) * c + f;
  }
  int64_t FilterIndex(int64_t o, int64_t y, int64_t x, int64_t i) const {
    return channels_first ? ((o * (c / groups) + i) * r + y) * s + x
                          : ((o * r + y) * s + x) * (c / groups) + i;
  }
  int64_t OutIndex(int64_t b, int64_t y, int64_t x, int64_t f) const {
    return channels_first ? ((b * k + f) * OutH() + y) * OutW() + x
                          : ((b * OutH() + y) * OutW() + x) * k + f;
  }
};
Executable ConvExecutable(PrimitiveType type, const ConvTestShape& shape);

// One "cufft" step of `type` over fft_length from `input` to `output`.
Executable FftExecutable(FftType type, const Shape& input, const Shape& output,
                         const std::vector<int64_t>& fft_length);

}  // namespace testing
}  // namespace hloc

#endif  // RUNTIME_TESTING_CUDA_TEST_EXECUTABLES_H_
