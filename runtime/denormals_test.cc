#include "runtime/denormals.h"

#include <atomic>
#include <cmath>
#include <limits>
#include <vector>

#include "gtest/gtest.h"

namespace hloc {
namespace {

// Arithmetic the compiler cannot fold: the values come through volatile.
float Multiply(float a, float b) {
  volatile float x = a;
  volatile float y = b;
  return x * y;
}

TEST(DenormalsTest, ScopedModeFlushesAndRestores) {
  const float tiny = 1e-39f;  // Denormal in f32.
  ASSERT_EQ(std::fpclassify(tiny), FP_SUBNORMAL);
  EXPECT_EQ(std::fpclassify(Multiply(tiny, 1.0f)), FP_SUBNORMAL);
  {
    ScopedDenormalMode flush(DenormalMode::kFlush);
    // DAZ: the denormal input reads as zero; FTZ: a denormal result of
    // normal inputs is written as zero, keeping its sign.
    EXPECT_EQ(Multiply(tiny, 1.0f), 0.0f);
    const float underflow = Multiply(-1e-20f, 1e-20f);
    EXPECT_EQ(underflow, 0.0f);
    EXPECT_TRUE(std::signbit(underflow));
    {
      ScopedDenormalMode keep(DenormalMode::kKeep);
      EXPECT_EQ(std::fpclassify(Multiply(tiny, 1.0f)), FP_SUBNORMAL);
    }
    EXPECT_EQ(Multiply(tiny, 1.0f), 0.0f);
  }
  EXPECT_EQ(std::fpclassify(Multiply(tiny, 1.0f)), FP_SUBNORMAL);
}

TEST(DenormalsTest, FlushDenormalsKeepsSignAndNormals) {
  Literal f32 = Literal::CreateR1<float>(
      F32, std::vector<float>{-1e-40f, 1e-39f, 1e-30f, 0.0f,
                              std::numeric_limits<float>::infinity()});
  EXPECT_EQ(FlushDenormals(&f32), 2);
  EXPECT_EQ(f32.data<float>()[0], 0.0f);
  EXPECT_TRUE(std::signbit(f32.data<float>()[0]));
  EXPECT_EQ(f32.data<float>()[1], 0.0f);
  EXPECT_FALSE(std::signbit(f32.data<float>()[1]));
  EXPECT_EQ(f32.data<float>()[2], 1e-30f);
  EXPECT_TRUE(std::isinf(f32.data<float>()[4]));

  // 1e-39 is a normal f64.
  Literal f64 =
      Literal::CreateR1<double>(F64, std::vector<double>{1e-310, 1e-39});
  EXPECT_EQ(FlushDenormals(&f64), 1);
  EXPECT_EQ(f64.data<double>()[0], 0.0);
  EXPECT_EQ(f64.data<double>()[1], 1e-39);
}

// bf16 shares f32's exponent range (its denormals widen to f32 denormals)
// and complex parts are f32/f64 values: XLA's runtimes read both as zeros,
// so the evaluator's inputs are flushed too (clogf and logf of a widened
// bf16 1e-40 are not -inf under DAZ, XLA:CPU's log is).
TEST(DenormalsTest, FlushDenormalsCoversBf16AndComplexParts) {
  Literal bf16 = Literal::CreateR1<BFloat16>(
      BF16, std::vector<BFloat16>{
                BFloat16::FromBits(0x0001), BFloat16::FromBits(0x807f),
                BFloat16::FromBits(0x0080), BFloat16(1.0f),
                BFloat16::FromBits(0x8000)});
  EXPECT_EQ(FlushDenormals(&bf16), 2);
  EXPECT_EQ(bf16.data<BFloat16>()[0].bits, 0x0000);
  EXPECT_EQ(bf16.data<BFloat16>()[1].bits, 0x8000);
  EXPECT_EQ(bf16.data<BFloat16>()[2].bits, 0x0080);  // the least normal
  EXPECT_EQ(static_cast<float>(bf16.data<BFloat16>()[3]), 1.0f);
  EXPECT_EQ(bf16.data<BFloat16>()[4].bits, 0x8000);

  Literal c64 = Literal::CreateR1<complex64>(
      C64, std::vector<complex64>{
               {-1e-40f, 1.0f}, {2.0f, 1e-39f}, {1e-30f, -1e-30f}});
  EXPECT_EQ(FlushDenormals(&c64), 2);
  EXPECT_EQ(c64.data<complex64>()[0].real(), 0.0f);
  EXPECT_TRUE(std::signbit(c64.data<complex64>()[0].real()));
  EXPECT_EQ(c64.data<complex64>()[0].imag(), 1.0f);
  EXPECT_EQ(c64.data<complex64>()[1], complex64(2.0f, 0.0f));
  EXPECT_EQ(c64.data<complex64>()[2], complex64(1e-30f, -1e-30f));

  Literal c128 = Literal::CreateR1<complex128>(
      C128, std::vector<complex128>{{1e-310, -1e-310}, {1e-39, 0.0}});
  EXPECT_EQ(FlushDenormals(&c128), 2);
  EXPECT_EQ(c128.data<complex128>()[0], complex128(0.0, 0.0));
  EXPECT_TRUE(std::signbit(c128.data<complex128>()[0].imag()));
  EXPECT_EQ(c128.data<complex128>()[1].real(), 1e-39);
}

void CountFlushedWorkers(void* data) {
  if (Multiply(1e-39f, 1.0f) == 0.0f) {
    static_cast<std::atomic<int>*>(data)->fetch_add(1);
  }
}

TEST(DenormalsTest, WorkersRunInTheCallersMode) {
  // OpenMP's pool threads keep their own control registers; the wrapper
  // the kernels call gives every worker the caller's mode.
  for (DenormalMode mode : {DenormalMode::kFlush, DenormalMode::kKeep}) {
    ScopedDenormalMode scoped(mode);
    std::atomic<int> flushed{0};
    ParallelInCallersDenormalMode(CountFlushedWorkers, &flushed, 4, 0);
    EXPECT_EQ(flushed.load(), mode == DenormalMode::kFlush ? 4 : 0)
        << DenormalModeName(mode);
  }
}

}  // namespace
}  // namespace hloc
