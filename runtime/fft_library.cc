#include "runtime/fft_library.h"

#include <fftw3.h>

#include <algorithm>
#include <complex>
#include <limits>
#include <mutex>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace hloc {
namespace {

// FFTW's planner keeps global state and is not thread-safe (executing a
// plan is); executor runs may overlap.
std::mutex& PlannerMutex() {
  static std::mutex* mutex = new std::mutex;
  return *mutex;
}

// One overload set per precision, so the transform is written once.
fftwf_plan PlanC2c(int rank, const int* n, int howmany, std::complex<float>* in,
                   int idist, std::complex<float>* out, int odist, int sign) {
  return fftwf_plan_many_dft(rank, n, howmany,
                             reinterpret_cast<fftwf_complex*>(in), nullptr, 1,
                             idist, reinterpret_cast<fftwf_complex*>(out),
                             nullptr, 1, odist, sign, FFTW_ESTIMATE);
}
fftw_plan PlanC2c(int rank, const int* n, int howmany, std::complex<double>* in,
                  int idist, std::complex<double>* out, int odist, int sign) {
  return fftw_plan_many_dft(rank, n, howmany,
                            reinterpret_cast<fftw_complex*>(in), nullptr, 1,
                            idist, reinterpret_cast<fftw_complex*>(out),
                            nullptr, 1, odist, sign, FFTW_ESTIMATE);
}
fftwf_plan PlanR2c(int rank, const int* n, int howmany, float* in, int idist,
                   std::complex<float>* out, int odist) {
  return fftwf_plan_many_dft_r2c(rank, n, howmany, in, nullptr, 1, idist,
                                 reinterpret_cast<fftwf_complex*>(out), nullptr,
                                 1, odist, FFTW_ESTIMATE);
}
fftw_plan PlanR2c(int rank, const int* n, int howmany, double* in, int idist,
                  std::complex<double>* out, int odist) {
  return fftw_plan_many_dft_r2c(rank, n, howmany, in, nullptr, 1, idist,
                                reinterpret_cast<fftw_complex*>(out), nullptr,
                                1, odist, FFTW_ESTIMATE);
}
fftwf_plan PlanC2r(int rank, const int* n, int howmany, std::complex<float>* in,
                   int idist, float* out, int odist) {
  return fftwf_plan_many_dft_c2r(
      rank, n, howmany, reinterpret_cast<fftwf_complex*>(in), nullptr, 1, idist,
      out, nullptr, 1, odist, FFTW_ESTIMATE);
}
fftw_plan PlanC2r(int rank, const int* n, int howmany, std::complex<double>* in,
                  int idist, double* out, int odist) {
  return fftw_plan_many_dft_c2r(rank, n, howmany,
                                reinterpret_cast<fftw_complex*>(in), nullptr, 1,
                                idist, out, nullptr, 1, odist, FFTW_ESTIMATE);
}
void Execute(fftwf_plan plan) { fftwf_execute(plan); }
void Execute(fftw_plan plan) { fftw_execute(plan); }
void Destroy(fftwf_plan plan) { fftwf_destroy_plan(plan); }
void Destroy(fftw_plan plan) { fftw_destroy_plan(plan); }

// `howmany` transforms of sizes n, one after the other in row-major
// literals (FFTW's nullptr embeddings: each transform's array is dense).
template <typename Real>
absl::Status Transform(FftType type, const std::vector<int>& n, int howmany,
                       Literal* input, Literal* output) {
  using Complex = std::complex<Real>;
  const int rank = static_cast<int>(n.size());
  int64_t real_size = 1;
  for (int d : n) real_size *= d;
  const int64_t half_size = real_size / n.back() * (n.back() / 2 + 1);
  const int sign = type == FftType::kFft || type == FftType::kRfft
                       ? FFTW_FORWARD
                       : FFTW_BACKWARD;
  const int full = static_cast<int>(real_size);
  const int half = static_cast<int>(half_size);
  decltype(PlanC2c(0, nullptr, 0, static_cast<Complex*>(nullptr), 0,
                   static_cast<Complex*>(nullptr), 0, 0)) plan = nullptr;
  {
    std::lock_guard<std::mutex> lock(PlannerMutex());
    switch (type) {
      case FftType::kFft:
      case FftType::kIfft:
        plan = PlanC2c(rank, n.data(), howmany, input->data<Complex>().data(),
                       full, output->data<Complex>().data(), full, sign);
        break;
      case FftType::kRfft:
        plan = PlanR2c(rank, n.data(), howmany, input->data<Real>().data(),
                       full, output->data<Complex>().data(), half);
        break;
      case FftType::kIrfft:
        plan = PlanC2r(rank, n.data(), howmany, input->data<Complex>().data(),
                       half, output->data<Real>().data(), full);
        break;
    }
  }
  if (plan == nullptr) {
    return absl::InternalError(
        absl::StrCat("FFTW could not plan a ", FftTypeString(type),
                     " of sizes ", absl::StrJoin(n, "x"), " x ", howmany));
  }
  Execute(plan);
  {
    std::lock_guard<std::mutex> lock(PlannerMutex());
    Destroy(plan);
  }
  if (sign == FFTW_BACKWARD) {
    const Real scale = static_cast<Real>(1.0 / static_cast<double>(real_size));
    if (type == FftType::kIrfft) {
      for (Real& x : output->data<Real>()) x *= scale;
    } else {
      for (Complex& x : output->data<Complex>()) x *= scale;
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status RunFft(FftType type, const std::vector<int64_t>& fft_length,
                    Literal* input, Literal* output) {
  absl::Status status =
      CheckFft(type, fft_length, input->shape(), output->shape());
  if (!status.ok()) return status;
  if (input->element_count() == 0 || output->element_count() == 0) {
    // Nothing to transform, or an empty transform of zeros.
    std::fill(output->untyped_data(),
              output->untyped_data() + output->size_bytes(), 0);
    return absl::OkStatus();
  }
  std::vector<int> n(fft_length.begin(), fft_length.end());
  int64_t transform = 1;
  for (int d : n) transform *= d;
  const int howmany = static_cast<int>(
      (type == FftType::kRfft ? input : output)->element_count() / transform);
  const PrimitiveType element = input->element_type();
  if (element == F32 || element == C64) {
    return Transform<float>(type, n, howmany, input, output);
  }
  return Transform<double>(type, n, howmany, input, output);
}

}  // namespace hloc
