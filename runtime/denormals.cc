#include "runtime/denormals.h"

#include <cmath>
#include <limits>
#include <type_traits>

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

// libgomp's entry point (the program links libgomp through -fopenmp).
extern "C" void GOMP_parallel(void (*fn)(void*), void* data,
                              unsigned num_threads, unsigned flags);

namespace hloc {
namespace {

#if defined(__x86_64__) || defined(__i386__)
constexpr uint64_t kFlushBits = 0x8040;  // MXCSR FTZ (bit 15), DAZ (bit 6).
uint64_t ReadControl() { return _mm_getcsr(); }
void WriteControl(uint64_t value) { _mm_setcsr(static_cast<unsigned>(value)); }
#elif defined(__aarch64__)
constexpr uint64_t kFlushBits = uint64_t{1} << 24;  // FPCR FZ.
uint64_t ReadControl() {
  uint64_t value;
  asm volatile("mrs %0, fpcr" : "=r"(value));
  return value;
}
void WriteControl(uint64_t value) {
  asm volatile("msr fpcr, %0" : : "r"(value));
}
#else
constexpr uint64_t kFlushBits = 0;
uint64_t ReadControl() { return 0; }
void WriteControl(uint64_t) {}
#endif

template <typename T>
int64_t FlushArray(T* data, int64_t n) {
  int64_t flushed = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (std::fpclassify(data[i]) == FP_SUBNORMAL) {
      data[i] = std::signbit(data[i]) ? -T(0) : T(0);
      ++flushed;
    }
  }
  return flushed;
}

// bf16 has f32's exponent range, so its denormals are f32 denormals once
// widened, which is how XLA's runtimes compute on bf16: they read as zeros.
int64_t FlushBf16Array(BFloat16* data, int64_t n) {
  int64_t flushed = 0;
  for (int64_t i = 0; i < n; ++i) {
    const uint16_t bits = data[i].bits;
    if ((bits & 0x7f80) == 0 && (bits & 0x007f) != 0) {
      data[i] = BFloat16::FromBits(bits & 0x8000);
      ++flushed;
    }
  }
  return flushed;
}

struct ParallelCall {
  void (*fn)(void*);
  void* data;
  uint64_t control;
};

void RunInCallersMode(void* arg) {
  const ParallelCall* call = static_cast<const ParallelCall*>(arg);
  const uint64_t saved = ReadControl();
  WriteControl(call->control);
  call->fn(call->data);
  WriteControl(saved);
}

}  // namespace

const char* DenormalModeName(DenormalMode mode) {
  return mode == DenormalMode::kFlush ? "flush" : "keep";
}

ScopedDenormalMode::ScopedDenormalMode(DenormalMode mode)
    : saved_(ReadControl()) {
  WriteControl(mode == DenormalMode::kFlush ? saved_ | kFlushBits
                                            : saved_ & ~kFlushBits);
}

ScopedDenormalMode::~ScopedDenormalMode() { WriteControl(saved_); }

int64_t FlushDenormals(Literal* literal) {
  if (literal->shape().IsTuple()) {
    int64_t flushed = 0;
    for (Literal& element : literal->tuple_elements()) {
      flushed += FlushDenormals(&element);
    }
    return flushed;
  }
  if (!literal->shape().IsArray()) return 0;
  switch (literal->element_type()) {
    case F32:
      return FlushArray(literal->data<float>().data(),
                        literal->element_count());
    case F64:
      return FlushArray(literal->data<double>().data(),
                        literal->element_count());
    case BF16:
      return FlushBf16Array(literal->data<BFloat16>().data(),
                            literal->element_count());
    // A complex number's parts are f32 (f64) values XLA's runtimes compute
    // on as such (clogf's integer tests would see a denormal part).
    case C64:
      return FlushArray(
          reinterpret_cast<float*>(literal->data<complex64>().data()),
          2 * literal->element_count());
    case C128:
      return FlushArray(
          reinterpret_cast<double*>(literal->data<complex128>().data()),
          2 * literal->element_count());
    default:
      return 0;
  }
}

std::vector<Literal> FlushedCopies(absl::Span<const Literal> literals) {
  std::vector<Literal> copies(literals.begin(), literals.end());
  for (Literal& copy : copies) FlushDenormals(&copy);
  return copies;
}

extern "C" void ParallelInCallersDenormalMode(void (*fn)(void*), void* data,
                                              unsigned num_threads,
                                              unsigned flags) {
  ParallelCall call{fn, data, ReadControl()};
  GOMP_parallel(RunInCallersMode, &call, num_threads, flags);
}

}  // namespace hloc
