// Solver probe: what one f32 N x N factorisation or triangular solve
// costs through cuSOLVER and cuBLAS (N = 192 by default), called on a stream as
// the runtime calls them, and recorded into a CUDA graph by stream capture and
// launched as one (whether capture accepts the call at all is the first
// question: a routine that reads a result back to the host, or allocates,
// breaks the capture). big_linalg (tests/jax/zoo/hunted7.py) is one each
// of these at 192, where hloc ran at XLA:GPU's speed with the
// factorisations taking two thirds of its time. A measuring tool for the
// runtime's choices, not part of the compiler:
//
//   nvcc -O3 -arch=sm_90 -o solver_capture_probe solver_capture_probe.cu \
//       -lcusolver -lcublas
//   ./solver_capture_probe [N]
//
// (cuBLAS's getrfBatched and geqrfBatched on a batch of one are timed up
// to N = 256 only.) Every time is a whole run of 20 calls back to back, the
// median of 15 samples, divided by 20 (as hlo-run-gpu --time-run times runs).
// Each call factorises a fresh copy of the matrix (a device-to-device copy
// first, timed alone too, to subtract).
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "probe_util.h"

#define CHECK_SOLVER(x)                                                     \
  do {                                                                      \
    int s = static_cast<int>(x);                                            \
    if (s != 0) {                                                           \
      std::fprintf(stderr, "%s:%d %s: status %d\n", __FILE__, __LINE__, #x, \
                   s);                                                      \
      std::exit(1);                                                         \
    }                                                                       \
  } while (0)

namespace {

constexpr int kCalls = 20;
constexpr int kSamples = 15;

// Median microseconds per call of `call` issued kCalls times on `stream`.
double TimeCalls(cudaStream_t stream, const std::function<void()>& call) {
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  for (int i = 0; i < 3; ++i) call();
  std::vector<float> ms;
  for (int s = 0; s < kSamples; ++s) {
    CHECK(cudaEventRecord(start, stream));
    for (int i = 0; i < kCalls; ++i) call();
    CHECK(cudaEventRecord(stop, stream));
    CHECK(cudaEventSynchronize(stop));
    float t = 0;
    CHECK(cudaEventElapsedTime(&t, start, stop));
    ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  return ms[ms.size() / 2] * 1000.0 / kCalls;
}

// The same call recorded into a graph; -1 where capture refuses it.
double TimeCaptured(cudaStream_t stream, const std::function<void()>& call,
                    int* kernels) {
  call();  // first call outside capture: lazy setup, module loads
  CHECK(cudaStreamSynchronize(stream));
  CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  call();
  cudaGraph_t graph = nullptr;
  cudaError_t e = cudaStreamEndCapture(stream, &graph);
  if (e != cudaSuccess || graph == nullptr) {
    std::printf("    capture refused: %s\n", cudaGetErrorString(e));
    cudaGetLastError();
    return -1;
  }
  size_t nodes = 0;
  CHECK(cudaGraphGetNodes(graph, nullptr, &nodes));
  *kernels = static_cast<int>(nodes);
  cudaGraphExec_t exec;
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  double us = TimeCalls(stream, [&] { CHECK(cudaGraphLaunch(exec, stream)); });
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(graph));
  return us;
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 192;
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cusolverDnHandle_t solver;
  CHECK_SOLVER(cusolverDnCreate(&solver));
  CHECK_SOLVER(cusolverDnSetStream(solver, stream));
  cublasHandle_t blas;
  CHECK_SOLVER(cublasCreate(&blas));
  CHECK_SOLVER(cublasSetStream(blas, stream));
  // Workspace given to cuBLAS so that capture does not allocate.
  void* blas_ws;
  CHECK(cudaMalloc(&blas_ws, 32 << 20));
  CHECK_SOLVER(cublasSetWorkspace(blas, blas_ws, 32 << 20));

  // A well-conditioned matrix: random plus n on the diagonal (symmetric,
  // so potrf accepts it too).
  std::vector<float> host(size_t(n) * n);
  unsigned seed = 12345;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j <= i; ++j) {
      seed = seed * 1664525u + 1013904223u;
      float v = float(seed >> 8) / float(1 << 24) - 0.5f;
      host[size_t(i) * n + j] = host[size_t(j) * n + i] = v;
    }
    host[size_t(i) * n + i] += n;
  }
  const size_t bytes = host.size() * sizeof(float);
  float *a0, *a, *b, *tau;
  int *ipiv, *info;
  CHECK(cudaMalloc(&a0, bytes));
  CHECK(cudaMalloc(&a, bytes));
  CHECK(cudaMalloc(&b, bytes));
  CHECK(cudaMalloc(&tau, n * sizeof(float)));
  CHECK(cudaMalloc(&ipiv, n * sizeof(int)));
  CHECK(cudaMalloc(&info, sizeof(int)));
  CHECK(cudaMemcpy(a0, host.data(), bytes, cudaMemcpyHostToDevice));
  int lwork = 0, l = 0;
  CHECK_SOLVER(cusolverDnSgetrf_bufferSize(solver, n, n, a, n, &l));
  lwork = std::max(lwork, l);
  CHECK_SOLVER(cusolverDnSgeqrf_bufferSize(solver, n, n, a, n, &l));
  lwork = std::max(lwork, l);
  CHECK_SOLVER(cusolverDnSorgqr_bufferSize(solver, n, n, n, a, n, tau, &l));
  lwork = std::max(lwork, l);
  CHECK_SOLVER(
      cusolverDnSpotrf_bufferSize(solver, CUBLAS_FILL_MODE_LOWER, n, a, n, &l));
  lwork = std::max(lwork, l);
  float* work;
  CHECK(cudaMalloc(&work, size_t(lwork) * sizeof(float)));

  // cuBLAS's batched LU and QR on a batch of one (arrays of addresses).
  float** a_array;
  float** tau_array;
  CHECK(cudaMalloc(&a_array, sizeof(float*)));
  CHECK(cudaMalloc(&tau_array, sizeof(float*)));
  CHECK(cudaMemcpy(a_array, &a, sizeof(float*), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(tau_array, &tau, sizeof(float*), cudaMemcpyHostToDevice));
  int host_info = 0;

  auto copy = [&] {
    CHECK(cudaMemcpyAsync(a, a0, bytes, cudaMemcpyDeviceToDevice, stream));
  };
  const float one = 1.0f;
  struct Case {
    std::string name;
    std::function<void()> call;
  };
  std::vector<Case> cases = {
      {"copy only", copy},
      {"getrf",
       [&] {
         copy();
         CHECK_SOLVER(cusolverDnSgetrf(solver, n, n, a, n, work, ipiv, info));
       }},
      {"geqrf",
       [&] {
         copy();
         CHECK_SOLVER(
             cusolverDnSgeqrf(solver, n, n, a, n, tau, work, lwork, info));
       }},
      {"orgqr",
       [&] {
         copy();
         CHECK_SOLVER(
             cusolverDnSorgqr(solver, n, n, n, a, n, tau, work, lwork, info));
       }},
      {"getrfBatched (batch of 1)",
       [&] {
         copy();
         CHECK_SOLVER(cublasSgetrfBatched(blas, n, a_array, n, ipiv, info, 1));
       }},
      {"geqrfBatched (batch of 1)",
       [&] {
         copy();
         CHECK_SOLVER(cublasSgeqrfBatched(blas, n, n, a_array, n, tau_array,
                                          &host_info, 1));
       }},
      {"potrf",
       [&] {
         copy();
         CHECK_SOLVER(cusolverDnSpotrf(solver, CUBLAS_FILL_MODE_LOWER, n, a, n,
                                       work, lwork, info));
       }},
      {"trsm left lower, 1 rhs",
       [&] {
         copy();
         CHECK_SOLVER(cublasStrsm(
             blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N,
             CUBLAS_DIAG_NON_UNIT, n, 1, &one, a0, n, a, n));
       }},
      {"trsm left upper, n rhs",
       [&] {
         copy();
         CHECK_SOLVER(cublasStrsm(
             blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N,
             CUBLAS_DIAG_NON_UNIT, n, n, &one, a0, n, a, n));
       }},
      {"trsm right lower trans, n rhs",
       [&] {
         copy();
         CHECK_SOLVER(cublasStrsm(blas, CUBLAS_SIDE_RIGHT,
                                  CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T,
                                  CUBLAS_DIAG_UNIT, n, n, &one, a0, n, a, n));
       }},
  };
  std::printf("n = %d, f32; us per call (20 back to back, median of 15)\n", n);
  std::printf("%-32s %10s %10s %8s\n", "call", "stream", "graph", "nodes");
  for (const Case& c : cases) {
    // cuBLAS's batched QR of one matrix takes 12 ms at 192 (session 37),
    // growing as n^3: at 1024 the probe's ~300 calls would take minutes.
    if (n > 256 && c.name.find("Batched") != std::string::npos) continue;
    const double direct = TimeCalls(stream, c.call);
    int nodes = 0;
    const double graph = TimeCaptured(stream, c.call, &nodes);
    std::printf("%-32s %10.1f %10.1f %8d\n", c.name.c_str(), direct, graph,
                nodes);
  }
  return 0;
}
