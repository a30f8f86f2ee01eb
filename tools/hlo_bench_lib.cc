#include "tools/hlo_bench_lib.h"

#include <dlfcn.h>
#include <omp.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <new>
#include <optional>
#include <system_error>
#include <thread>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "backends/cpu/cpu_compiler.h"
#include "hlo/large_block_allocator.h"
#include "hlo/module.h"
#include "hlo/proto/proto_export.h"
#include "hlo/text/parser.h"
#include "hlo/verifier.h"
#include "passes/pipelines.h"
#include "runtime/compare.h"
#include "runtime/npy.h"
#include "tests/corpus.h"
#include "tools/bench_plot.h"
#include "tools/flags.h"
#include "tools/hlo_bench_xla_client.h"
#include "tools/hlo_run_core.h"
#include "tools/hlo_run_lib.h"
#include "tools/module_loader.h"

namespace hloc {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using Table = std::vector<std::vector<std::string>>;

constexpr int64_t kAlignment = 64;
constexpr uint64_t kInputSeed = 1;

const std::vector<FlagSpec>& Specs() {
  static const auto* specs = new std::vector<FlagSpec>{
      {"reps", true, "N: timed repetitions after one warm-up (default 20)"},
      {"compile-reps", true,
       "N: compiles per corpus case, the median reported (default 5)"},
      {"only", true,
       "A,B,...: run only cases whose name contains one of these"},
      {"no-xla", false, "do not run XLA:CPU (its columns say n/a)"},
      {"threads", true,
       "N: OpenMP threads (also OpenBLAS's and XLA's); default: all cores"},
      {"size", true, "N: memory-bound cases are f32[N,N] (default 4096)"},
      {"dot-size", true, "N: the dot is N x N x N (default 1024)"},
      {"budget", true,
       "S: seconds one measurement may take; fewer reps if slower "
       "(default 20)"},
      {"python", true, "PATH: python with JAX for XLA:CPU (default python3)"},
      {"xla-helper", true,
       "PATH: tools/hlo_bench_xla.py (default: found next to the binary)"},
      {"plot", true,
       "FILE.svg: also draw the memory-bound and dot tables as a bar chart"},
      {"help", false, "print this help"},
  };
  return *specs;
}

// ---------------------------------------------------------------------------
// Timing.

struct Stats {
  double best_s = 0;
  double median_s = 0;
  int reps = 0;
};

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

Stats Summarize(std::vector<double> times) {
  std::sort(times.begin(), times.end());
  Stats stats;
  stats.reps = static_cast<int>(times.size());
  stats.best_s = times.front();
  const size_t n = times.size();
  stats.median_s =
      n % 2 == 1 ? times[n / 2] : (times[n / 2 - 1] + times[n / 2]) / 2;
  return stats;
}

// Seconds one call took.
using TimedFn = std::function<absl::StatusOr<double>()>;

TimedFn Timed(std::function<absl::Status()> fn) {
  return [fn = std::move(fn)]() -> absl::StatusOr<double> {
    const Clock::time_point start = Clock::now();
    absl::Status status = fn();
    const double seconds = SecondsSince(start);
    if (!status.ok()) return status;
    return seconds;
  };
}

// Times contenders in rounds (A, B, C, A, B, C, ...) so that the load of a
// busy machine falls on all of them alike: one warm-up call each, then up
// to `reps` rounds. Before each timed call the bench sleeps kSettle, so the
// previous contender's idle threads (libgomp's spin for a while before they
// sleep) do not compete with it. A contender whose warm-up says its reps would
// take more than its share of `budget_s` sits out the later rounds (it runs at
// least one). A contender given as an error, or failing, reports that error.
constexpr std::chrono::milliseconds kSettle(5);

std::vector<absl::StatusOr<Stats>> MeasureInterleaved(
    const std::vector<absl::StatusOr<TimedFn>>& contenders, int reps,
    double budget_s) {
  const size_t n = contenders.size();
  std::vector<absl::StatusOr<Stats>> results(n, absl::UnknownError("no reps"));
  std::vector<std::vector<double>> times(n);
  std::vector<int> rounds(n, 0);
  for (size_t i = 0; i < n; ++i) {
    if (!contenders[i].ok()) {
      results[i] = contenders[i].status();
      continue;
    }
    absl::StatusOr<double> warmup = (*contenders[i])();
    if (!warmup.ok()) {
      results[i] = warmup.status();
      continue;
    }
    const double share = budget_s / n / std::max(*warmup, 1e-9);
    rounds[i] = static_cast<int>(
        std::max(1.0, std::min<double>(reps, std::floor(share))));
  }
  for (int r = 0; r < reps; ++r) {
    for (size_t i = 0; i < n; ++i) {
      if (r >= rounds[i]) continue;
      std::this_thread::sleep_for(kSettle);
      absl::StatusOr<double> seconds = (*contenders[i])();
      if (!seconds.ok()) {
        results[i] = seconds.status();
        rounds[i] = 0;
        times[i].clear();
        continue;
      }
      times[i].push_back(*seconds);
    }
  }
  for (size_t i = 0; i < n; ++i) {
    if (!times[i].empty()) results[i] = Summarize(times[i]);
  }
  return results;
}

// ---------------------------------------------------------------------------
// Aligned host memory.

// `bytes` (rounded up to 64) of zeroed memory, so that timed code does not
// pay for first-touch page faults; empty when out of memory. It comes from
// the allocator literals and runs use (huge-page backed when large), so the
// copy reference, the kernels alone and Run() all work on the same kind of
// memory: what differs between their rows is the code.
ByteBlock AllocateTouched(int64_t bytes) {
  try {
    return ByteBlock::Zeroed(static_cast<size_t>(std::max<int64_t>(
        kAlignment, (bytes + kAlignment - 1) / kAlignment * kAlignment)));
  } catch (const std::bad_alloc&) {
    return ByteBlock();
  }
}

// The reference for memory-bound code: each thread copies one contiguous
// share with memcpy.
void ParallelCopy(uint8_t* dst, const uint8_t* src, int64_t bytes) {
#pragma omp parallel
  {
    const int64_t n = omp_get_num_threads();
    const int64_t t = omp_get_thread_num();
    const int64_t share =
        (bytes / n + kAlignment - 1) / kAlignment * kAlignment;
    const int64_t begin = std::min(bytes, t * share);
    const int64_t end = std::min(bytes, begin + share);
    if (end > begin) std::memcpy(dst + begin, src + begin, end - begin);
  }
}

// ---------------------------------------------------------------------------
// The compiled kernels on buffers allocated once: what the kernels cost
// without a run's allocation and result copy (CpuExecutor::Run does both
// every call). Only for executables without evaluator steps.
class KernelRunner {
 public:
  static absl::StatusOr<std::unique_ptr<KernelRunner>> Create(
      const CpuExecutable& compiled, const std::vector<Literal>& arguments) {
    const Executable& e = compiled.executable();
    auto runner = std::unique_ptr<KernelRunner>(new KernelRunner());
    if (compiled.steps().size() != e.steps.size()) {
      return absl::InternalError("executable and compiler steps differ");
    }
    for (size_t s = 0; s < e.steps.size(); ++s) {
      const CpuStep& step = compiled.steps()[s];
      if (step.kind != CpuStep::Kind::kKernel) {
        return absl::FailedPreconditionError(
            absl::StrCat("has steps other than kernels (",
                         step.instruction->name(), ")"));
      }
      if (step.kernel == nullptr ||
          step.kernel_name != e.steps[s].kernel_name) {
        return absl::InternalError(
            absl::StrCat("kernel of step ", s, " not found"));
      }
    }
    std::vector<uint8_t*> base(e.allocations.size(), nullptr);
    for (size_t a = 0; a < e.allocations.size(); ++a) {
      const ExecutableAllocation& allocation = e.allocations[a];
      if (allocation.kind == BufferAllocation::Kind::kParameter) continue;
      runner->blocks_.push_back(AllocateTouched(allocation.size));
      if (runner->blocks_.back().empty()) {
        return absl::ResourceExhaustedError("cannot allocate buffers");
      }
      base[a] = runner->blocks_.back().data();
      std::memcpy(base[a], allocation.constant_data.data(),
                  allocation.constant_data.size());
    }
    if (arguments.size() != e.parameter_buffers.size()) {
      return absl::InvalidArgumentError("wrong number of arguments");
    }
    for (size_t p = 0; p < arguments.size(); ++p) {
      if (!arguments[p].shape().IsArray() ||
          e.parameter_buffers[p].size() != 1) {
        return absl::UnimplementedError("tuple parameters");
      }
      const ExecutableBuffer& slot = e.buffers[e.parameter_buffers[p][0]];
      if (!slot.shape.HasDescendingLayout() && slot.shape.rank() > 1) {
        return absl::UnimplementedError("parameters with non-default layouts");
      }
      base[slot.allocation] = const_cast<uint8_t*>(arguments[p].untyped_data());
    }
    static uint8_t empty_leaf[kAlignment];
    for (const ExecutableStep& step : e.steps) {
      std::vector<void*> pointers;
      for (int64_t s : step.buffers) {
        const ExecutableBuffer& slot = e.buffers[s];
        pointers.push_back(slot.size == 0 || base[slot.allocation] == nullptr
                               ? empty_leaf
                               : base[slot.allocation] + slot.offset);
      }
      runner->pointers_.push_back(std::move(pointers));
    }
    for (const CpuStep& step : compiled.steps()) {
      runner->kernels_.push_back(step.kernel);
    }
    if (e.result_buffers.size() == 1) {
      const ExecutableBuffer& slot = e.buffers[e.result_buffers[0]];
      if (e.allocations[slot.allocation].kind !=
              BufferAllocation::Kind::kParameter &&
          slot.size > 0) {
        runner->result_ = base[slot.allocation] + slot.offset;
        runner->result_size_ = slot.size;
      }
    }
    return runner;
  }

  void Run() {
    for (size_t s = 0; s < kernels_.size(); ++s) {
      kernels_[s](pointers_[s].data());
    }
  }

  // Whether the last Run left `expected` (what CpuExecutable::Run returned:
  // the same kernels on the same inputs) in the result buffer, byte for
  // byte. True when the result has no buffer of its own to look at (a
  // tuple, or a parameter passed through).
  bool ResultMatches(const Literal& expected) const {
    if (result_ == nullptr) return true;
    return expected.size_bytes() == result_size_ &&
           std::memcmp(result_, expected.untyped_data(), result_size_) == 0;
  }

 private:
  KernelRunner() = default;
  std::vector<ByteBlock> blocks_;
  std::vector<std::vector<void*>> pointers_;
  std::vector<void (*)(void**)> kernels_;
  const uint8_t* result_ = nullptr;
  int64_t result_size_ = 0;
};

// ---------------------------------------------------------------------------
// The modules.

// The corpus's chain5 (JAX's HLO for 1 / (1 + exp(-(max((x+1)*2, 0) -
// 0.5)))), scaled.
constexpr char kChain5[] =
    R"(HloModule bench_chain5, entry_computation_layout={(f32[$R,$C]{1,0})->f32[$R,$C]{1,0}}

ENTRY main.1 {
  constant.7 = f32[] constant(1)
  broadcast.1 = f32[$R,$C]{1,0} broadcast(constant.7), dimensions={}
  x.1 = f32[$R,$C]{1,0} parameter(0)
  add.2 = f32[$R,$C]{1,0} add(x.1, broadcast.1)
  constant.6 = f32[] constant(2)
  mul.2 = f32[$R,$C]{1,0} broadcast(constant.6), dimensions={}
  mul.3 = f32[$R,$C]{1,0} multiply(add.2, mul.2)
  constant.5 = f32[] constant(0)
  max.2 = f32[$R,$C]{1,0} broadcast(constant.5), dimensions={}
  max.3 = f32[$R,$C]{1,0} maximum(mul.3, max.2)
  constant.4 = f32[] constant(0.5)
  sub.2 = f32[$R,$C]{1,0} broadcast(constant.4), dimensions={}
  sub.3 = f32[$R,$C]{1,0} subtract(max.3, sub.2)
  neg.1 = f32[$R,$C]{1,0} negate(sub.3)
  exp.1 = f32[$R,$C]{1,0} exponential(neg.1)
  add.3 = f32[$R,$C]{1,0} add(exp.1, broadcast.1)
  ROOT div.1 = f32[$R,$C]{1,0} divide(broadcast.1, add.3)
}
)";

// jax.nn.softmax(x, axis=-1) as JAX lowers it (the corpus's softmax).
constexpr char kSoftmax[] =
    R"(HloModule bench_softmax, entry_computation_layout={(f32[$R,$C]{1,0})->f32[$R,$C]{1,0}}

region_0.1 {
  reduce_max.3 = f32[] parameter(0)
  reduce_max.4 = f32[] parameter(1)
  ROOT reduce_max.5 = f32[] maximum(reduce_max.3, reduce_max.4)
}

region_1.2 {
  reduce_sum.3 = f32[] parameter(0)
  reduce_sum.4 = f32[] parameter(1)
  ROOT reduce_sum.5 = f32[] add(reduce_sum.3, reduce_sum.4)
}

ENTRY main.3 {
  x.1 = f32[$R,$C]{1,0} parameter(0)
  constant.5 = f32[] constant(-inf)
  reduce_max.7 = f32[$R]{0} reduce(x.1, constant.5), dimensions={1}, to_apply=region_0.1
  max.2 = f32[$R]{0} broadcast(constant.5), dimensions={}
  max.3 = f32[$R]{0} maximum(reduce_max.7, max.2)
  sub.6 = f32[$R,$C]{1,0} broadcast(max.3), dimensions={0}
  sub.7 = f32[$R,$C]{1,0} subtract(x.1, sub.6)
  exp.1 = f32[$R,$C]{1,0} exponential(sub.7)
  constant.4 = f32[] constant(0)
  reduce_sum.7 = f32[$R]{0} reduce(exp.1, constant.4), dimensions={1}, to_apply=region_1.2
  div.6 = f32[$R,$C]{1,0} broadcast(reduce_sum.7), dimensions={0}
  ROOT div.7 = f32[$R,$C]{1,0} divide(exp.1, div.6)
}
)";

// (x - mean) / sqrt(var + 1e-5) * g + b over the last dimension, as JAX
// lowers it (the corpus's layernorm).
constexpr char kLayernorm[] =
    R"(HloModule bench_layernorm, entry_computation_layout={(f32[$R,$C]{1,0}, f32[$C]{0}, f32[$C]{0})->f32[$R,$C]{1,0}}

region_0.1 {
  reduce_sum.3 = f32[] parameter(0)
  reduce_sum.4 = f32[] parameter(1)
  ROOT reduce_sum.5 = f32[] add(reduce_sum.3, reduce_sum.4)
}

ENTRY main.3 {
  h.1 = f32[$R,$C]{1,0} parameter(0)
  constant.5 = f32[] constant(0)
  reduce_sum.14 = f32[$R]{0} reduce(h.1, constant.5), dimensions={1}, to_apply=region_0.1
  constant.4 = f32[] constant($C)
  broadcast.1 = f32[$R]{0} broadcast(constant.4), dimensions={}
  div.2 = f32[$R]{0} divide(reduce_sum.14, broadcast.1)
  sub.14 = f32[$R,$C]{1,0} broadcast(div.2), dimensions={0}
  sub.15 = f32[$R,$C]{1,0} subtract(h.1, sub.14)
  integer_pow.1 = f32[$R,$C]{1,0} multiply(sub.15, sub.15)
  reduce_sum.15 = f32[$R]{0} reduce(integer_pow.1, constant.5), dimensions={1}, to_apply=region_0.1
  div.3 = f32[$R]{0} divide(reduce_sum.15, broadcast.1)
  constant.3 = f32[] constant(1e-05)
  add.6 = f32[$R]{0} broadcast(constant.3), dimensions={}
  add.7 = f32[$R]{0} add(div.3, add.6)
  rsqrt.1 = f32[$R]{0} rsqrt(add.7)
  mul.10 = f32[$R,$C]{1,0} broadcast(rsqrt.1), dimensions={0}
  mul.11 = f32[$R,$C]{1,0} multiply(sub.15, mul.10)
  g.1 = f32[$C]{0} parameter(1)
  mul.14 = f32[$R,$C]{1,0} broadcast(g.1), dimensions={1}
  mul.15 = f32[$R,$C]{1,0} multiply(mul.11, mul.14)
  b.1 = f32[$C]{0} parameter(2)
  add.10 = f32[$R,$C]{1,0} broadcast(b.1), dimensions={1}
  ROOT add.11 = f32[$R,$C]{1,0} add(mul.15, add.10)
}
)";

constexpr char kDot[] =
    R"(HloModule bench_dot, entry_computation_layout={(f32[$M,$K]{1,0}, f32[$K,$N]{1,0})->f32[$M,$N]{1,0}}

ENTRY main {
  a = f32[$M,$K]{1,0} parameter(0)
  b = f32[$K,$N]{1,0} parameter(1)
  ROOT dot = f32[$M,$N]{1,0} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
)";

// Issue 16's operations, each as JAX lowers it (or as the op itself), with
// one array result so that the check compares it with XLA's: jnp.cumsum
// as JAX 0.10 writes it (a reduce-window over the whole row), lax.top_k's
// indices, jnp.argmax's variadic reduce (NaN first, ties to the lower
// index), the real part of a c64 fft, and the lower cholesky factor of
// x x^T + n I (the other triangle, which XLA leaves undefined, zeroed).
constexpr char kCumsum[] = R"(HloModule bench_cumsum

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY main {
  x = f32[$R,$C]{1,0} parameter(0)
  zero = f32[] constant(0)
  ROOT c = f32[$R,$C]{1,0} reduce-window(x, zero), window={size=1x$C pad=0_0x$P_0}, to_apply=add
}
)";

constexpr char kTopK[] = R"(HloModule bench_topk

ENTRY main {
  x = f32[$R,$C]{1,0} parameter(0)
  t = (f32[$R,8]{1,0}, s32[$R,8]{1,0}) topk(x), k=8, largest=true
  ROOT i = s32[$R,8]{1,0} get-tuple-element(t), index=1
}
)";

constexpr char kArgmax[] = R"(HloModule bench_argmax

argmax {
  a = f32[] parameter(0)
  ai = s32[] parameter(1)
  b = f32[] parameter(2)
  bi = s32[] parameter(3)
  gt = pred[] compare(a, b), direction=GT
  nan = pred[] compare(a, a), direction=NE
  eq = pred[] compare(a, b), direction=EQ
  lower = pred[] compare(ai, bi), direction=LT
  tie = pred[] and(eq, lower)
  a_wins = pred[] or(gt, nan)
  first = pred[] or(a_wins, tie)
  v = f32[] select(first, a, b)
  i = s32[] select(first, ai, bi)
  ROOT r = (f32[], s32[]) tuple(v, i)
}

ENTRY main {
  x = f32[$R,$C]{1,0} parameter(0)
  iota = s32[$R,$C]{1,0} iota(), iota_dimension=1
  ninf = f32[] constant(-inf)
  zero = s32[] constant(0)
  r = (f32[$R]{0}, s32[$R]{0}) reduce(x, iota, ninf, zero), dimensions={1}, to_apply=argmax
  ROOT i = s32[$R]{0} get-tuple-element(r), index=1
}
)";

constexpr char kFft[] = R"(HloModule bench_fft

ENTRY main {
  x = f32[$R,$C]{1,0} parameter(0)
  y = f32[$R,$C]{1,0} parameter(1)
  c = c64[$R,$C]{1,0} complex(x, y)
  f = c64[$R,$C]{1,0} fft(c), fft_type=FFT, fft_length={$C}
  ROOT r = f32[$R,$C]{1,0} real(f)
}
)";

constexpr char kCholesky[] = R"(HloModule bench_cholesky

ENTRY main {
  x = f32[$R,$C,$C]{2,1,0} parameter(0)
  xxt = f32[$R,$C,$C]{2,1,0} dot(x, x), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={2}
  row = s32[$C,$C]{1,0} iota(), iota_dimension=0
  col = s32[$C,$C]{1,0} iota(), iota_dimension=1
  diagonal = pred[$C,$C]{1,0} compare(row, col), direction=EQ
  n = f32[] constant($C)
  zero = f32[] constant(0)
  ns = f32[$C,$C]{1,0} broadcast(n), dimensions={}
  zeros = f32[$C,$C]{1,0} broadcast(zero), dimensions={}
  eye = f32[$C,$C]{1,0} select(diagonal, ns, zeros)
  shift = f32[$R,$C,$C]{2,1,0} broadcast(eye), dimensions={1,2}
  a = f32[$R,$C,$C]{2,1,0} add(xxt, shift)
  l = f32[$R,$C,$C]{2,1,0} cholesky(a), lower=true
  lower = pred[$C,$C]{1,0} compare(row, col), direction=GE
  mask = pred[$R,$C,$C]{2,1,0} broadcast(lower), dimensions={1,2}
  all_zeros = f32[$R,$C,$C]{2,1,0} broadcast(zero), dimensions={}
  ROOT r = f32[$R,$C,$C]{2,1,0} select(mask, l, all_zeros)
}
)";

struct OpCase {
  const char* name;
  const char* text;
  // The shape's $R and $C from --size n.
  int64_t (*rows)(int64_t n);
  int64_t (*cols)(int64_t n);
};

// Sizes from --size (4096 by default: cumsum 64x1024, whose windows are
// O(C^2) unless rewritten; top-k of 32 rows of 32768; argmax 2048x2048;
// fft of 64 rows of 1024; cholesky of 8 matrices of 128x128), so that
// --size bounds the table as it bounds the others.
const std::vector<OpCase>& OpCases() {
  static const auto* cases = new std::vector<OpCase>{
      {"cumsum", kCumsum, [](int64_t) -> int64_t { return 64; },
       [](int64_t n) { return std::max<int64_t>(n / 4, 2); }},
      {"topk", kTopK, [](int64_t) -> int64_t { return 32; },
       [](int64_t n) { return 8 * n; }},
      {"argmax", kArgmax, [](int64_t n) { return std::max<int64_t>(n / 2, 1); },
       [](int64_t n) { return std::max<int64_t>(n / 2, 1); }},
      {"fft", kFft, [](int64_t) -> int64_t { return 64; },
       [](int64_t n) { return std::max<int64_t>(n / 4, 2); }},
      {"cholesky", kCholesky, [](int64_t) -> int64_t { return 8; },
       [](int64_t n) { return std::max<int64_t>(n / 32, 2); }},
  };
  return *cases;
}

const std::vector<std::string>& MemoryBoundCases() {
  static const auto* cases =
      new std::vector<std::string>{"chain5", "softmax", "layernorm"};
  return *cases;
}

// ---------------------------------------------------------------------------
// Reporting.

std::string Ms(double seconds) {
  const double ms = seconds * 1e3;
  return absl::StrFormat(ms < 10 ? "%.3f" : ms < 100 ? "%.2f" : "%.1f", ms);
}
std::string Ratio(double r) { return absl::StrFormat("%.2fx", r); }
std::string Percent(double r) { return absl::StrFormat("%.0f%%", 100 * r); }
// Cells for something that could not be measured: "n/a" where the time
// goes, then blanks up to the last column (of `columns`), which says why
// (cut short; stderr has the whole message).
std::vector<std::string> NotAvailable(std::vector<std::string> row,
                                      const absl::Status& status,
                                      size_t columns) {
  constexpr size_t kMax = 100;
  std::string why(status.message());
  if (why.size() > kMax) why = absl::StrCat(why.substr(0, kMax - 3), "...");
  row.push_back("n/a");
  while (row.size() + 1 < columns) row.push_back("");
  row.push_back(absl::StrCat("(", why, ")"));
  return row;
}
std::string MetText(bool met) { return met ? "met" : "MISSED"; }

std::string LoadAverage() {
  double load[3];
  if (getloadavg(load, 3) != 3) return "unknown";
  return absl::StrFormat("%.2f %.2f %.2f", load[0], load[1], load[2]);
}

std::string CpuModel() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (absl::StartsWith(line, "model name")) {
      const size_t colon = line.find(':');
      if (colon != std::string::npos) {
        return std::string(absl::StripAsciiWhitespace(line.substr(colon + 1)));
      }
    }
  }
  return "unknown CPU";
}

int64_t ArrayBytes(const Shape& shape) {
  if (!shape.IsTuple()) return shape.IsArray() ? shape.ByteSize() : 0;
  int64_t bytes = 0;
  for (const Shape& element : shape.tuple_shapes())
    bytes += ArrayBytes(element);
  return bytes;
}

absl::StatusOr<std::unique_ptr<HloModule>> ParseAndVerify(
    absl::string_view text, absl::string_view name) {
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseHloModule(text, name);
  if (!module.ok()) return module.status();
  absl::Status verified = VerifyModule(**module);
  if (!verified.ok()) return verified;
  return module;
}

// ---------------------------------------------------------------------------
// The benchmark.

class Bench {
 public:
  Bench(const HloBenchOptions& options, std::ostream& out, std::ostream& err)
      : options_(options), out_(out), err_(err) {}

  int Run();

 private:
  // hloc's contenders for one compiled module and its inputs: Run, and the
  // kernels alone. Not movable: the functions point into it.
  struct Ours {
    Ours() = default;
    Ours(const Ours&) = delete;
    Ours& operator=(const Ours&) = delete;
    // What Run returned the first time.
    std::optional<Literal> result;
    std::unique_ptr<KernelRunner> runner;
    absl::StatusOr<TimedFn> run = absl::UnknownError("");
    absl::StatusOr<TimedFn> kernels = absl::UnknownError("");
  };

  bool Selected(absl::string_view name) const {
    if (options_.only.empty()) return true;
    for (const std::string& part : options_.only) {
      if (absl::StrContains(name, part)) return true;
    }
    return false;
  }
  void Fail(absl::string_view what) {
    failed_ = true;
    err_ << "hlo-bench: error: " << what << "\n";
  }
  std::string TempPath(absl::string_view name) const {
    return (fs::path(temp_dir_) / std::string(name)).string();
  }
  bool XlaAvailable() const { return xla_ != nullptr && xla_->available(); }
  std::string XlaMissingReason() const {
    if (options_.no_xla) return "--no-xla";
    return xla_ != nullptr ? xla_->reason() : xla_reason_;
  }

  absl::StatusOr<std::unique_ptr<CpuExecutable>> Compile(
      const HloModule& module);
  std::unique_ptr<Ours> MakeOurs(CpuExecutable& compiled,
                                 const std::vector<Literal>& inputs);
  // After measuring: a failed Run fails the bench, and the kernels alone
  // must have computed Run's bytes.
  void CheckOurs(absl::string_view name, const Ours& ours,
                 const absl::StatusOr<Stats>& run,
                 const absl::StatusOr<Stats>& kernels);
  // Hands XLA the module (its proto) and inputs; the function times one
  // run. `result` receives XLA's result, for the check.
  absl::StatusOr<TimedFn> LoadOnXla(const std::string& name,
                                    const HloModule& module,
                                    const std::vector<Literal>& inputs,
                                    std::optional<Literal>* result);
  void UnloadOnXla(const std::string& name);
  std::string Check(const HloModule& module, const std::optional<Literal>& ours,
                    const std::optional<Literal>& xla);
  void MemoryBoundTable();
  void DotTable();
  void OpsTable();
  void CompileTable();
  void WritePlot();

  HloBenchOptions options_;
  std::ostream& out_;
  std::ostream& err_;
  int threads_ = 1;
  std::string temp_dir_;
  std::unique_ptr<XlaBenchClient> xla_;
  std::string xla_reason_;
  // The CPU hloc's JIT compiles for (from the first compile).
  std::string cpu_name_;
  bool failed_ = false;
  // --plot: a group per memory-bound case and for the dot.
  BarChart chart_;
};

absl::StatusOr<std::unique_ptr<CpuExecutable>> Bench::Compile(
    const HloModule& module) {
  std::unique_ptr<HloModule> optimized = module.Clone();
  absl::StatusOr<HloPassPipeline> pipeline =
      MakePipeline("cpu", PipelineOptions());
  if (!pipeline.ok()) return pipeline.status();
  absl::StatusOr<bool> changed = pipeline->Run(optimized.get());
  if (!changed.ok()) return changed.status();
  CpuCompileOptions compile_options;
  compile_options.log_fallbacks = false;
  absl::StatusOr<std::unique_ptr<CpuExecutable>> compiled =
      CompileForCpu(*optimized, compile_options);
  if (compiled.ok() && cpu_name_.empty()) cpu_name_ = (*compiled)->cpu_name();
  return compiled;
}

std::unique_ptr<Bench::Ours> Bench::MakeOurs(
    CpuExecutable& compiled, const std::vector<Literal>& inputs) {
  auto ours = std::make_unique<Ours>();
  Ours* o = ours.get();
  o->run = Timed([o, &compiled, &inputs]() -> absl::Status {
    absl::StatusOr<Literal> result = compiled.Run(inputs);
    if (!result.ok()) return result.status();
    if (!o->result) o->result = *std::move(result);
    return absl::OkStatus();
  });
  absl::StatusOr<std::unique_ptr<KernelRunner>> runner =
      KernelRunner::Create(compiled, inputs);
  if (!runner.ok()) {
    o->kernels = runner.status();
    return ours;
  }
  o->runner = *std::move(runner);
  o->kernels = Timed([o] {
    o->runner->Run();
    return absl::OkStatus();
  });
  return ours;
}

void Bench::CheckOurs(absl::string_view name, const Ours& ours,
                      const absl::StatusOr<Stats>& run,
                      const absl::StatusOr<Stats>& kernels) {
  if (!run.ok()) {
    Fail(absl::StrCat(name, ": Run: ", run.status().message()));
    return;
  }
  if (kernels.ok() && ours.result &&
      !ours.runner->ResultMatches(*ours.result)) {
    Fail(absl::StrCat(name,
                      ": the kernels alone computed other bytes than "
                      "Run"));
  }
}

absl::StatusOr<TimedFn> Bench::LoadOnXla(const std::string& name,
                                         const HloModule& module,
                                         const std::vector<Literal>& inputs,
                                         std::optional<Literal>* result) {
  if (!XlaAvailable()) return absl::UnavailableError(XlaMissingReason());
  absl::StatusOr<xla::HloModuleProto> proto = ExportHloModuleProto(module);
  if (!proto.ok()) return proto.status();
  // XLA insists on one name per parameter; a module parsed from text has
  // none in its entry layout (hlo/proto exports what the layout holds).
  xla::ProgramShapeProto* signature = proto->mutable_host_program_shape();
  if (signature->parameter_names_size() != signature->parameters_size()) {
    signature->clear_parameter_names();
    for (const HloInstruction* p :
         module.entry_computation()->parameter_instructions()) {
      signature->add_parameter_names(p->name());
    }
  }
  const std::string module_path = TempPath(name + ".pb");
  {
    std::ofstream file(module_path, std::ios::binary);
    if (!proto->SerializeToOstream(&file) || !file.flush()) {
      return absl::InternalError("cannot write " + module_path);
    }
  }
  std::vector<std::string> input_paths;
  for (size_t i = 0; i < inputs.size(); ++i) {
    input_paths.push_back(TempPath(absl::StrCat(name, "_in", i, ".npy")));
    absl::Status status = WriteNpy(input_paths.back(), inputs[i]);
    if (!status.ok()) return status;
  }
  const std::string output_path = TempPath(name + "_out.npy");
  absl::StatusOr<JsonObject> answer = xla_->Request(
      absl::StrCat("{\"kind\": \"load\", \"name\": ", JsonQuote(name),
                   ", \"module\": ", JsonQuote(module_path),
                   ", \"inputs\": ", JsonQuote(absl::StrJoin(input_paths, ",")),
                   ", \"output\": ", JsonQuote(output_path), "}"));
  std::error_code ec;
  for (const std::string& path : input_paths) fs::remove(path, ec);
  fs::remove(module_path, ec);
  if (!answer.ok()) return answer.status();
  absl::StatusOr<Literal> literal = ReadNpy(output_path, NpyReadOptions());
  fs::remove(output_path, ec);
  if (!literal.ok()) return literal.status();
  *result = *std::move(literal);
  const std::string time_task =
      absl::StrCat("{\"kind\": \"time\", \"name\": ", JsonQuote(name), "}");
  XlaBenchClient* xla = xla_.get();
  return TimedFn([xla, time_task]() -> absl::StatusOr<double> {
    absl::StatusOr<JsonObject> answer = xla->Request(time_task);
    if (!answer.ok()) return answer.status();
    return SecondsFromAnswer(*answer);
  });
}

void Bench::UnloadOnXla(const std::string& name) {
  if (!XlaAvailable()) return;
  absl::StatusOr<JsonObject> answer = xla_->Request(
      absl::StrCat("{\"kind\": \"unload\", \"name\": ", JsonQuote(name), "}"));
  if (!answer.ok()) {
    err_ << "hlo-bench: XLA:CPU unload of " << name << ": "
         << answer.status().message() << "\n";
  }
}

std::string Bench::Check(const HloModule& module,
                         const std::optional<Literal>& ours,
                         const std::optional<Literal>& xla) {
  if (!ours || !xla) return "-";
  const ComparisonResult result =
      CompareLiterals(*ours, *xla, DefaultToleranceFor(module, *xla));
  if (result.ok()) return "ok";
  const std::string text = absl::StrCat(
      "MISMATCH (", result.mismatch_count, "/", result.element_count,
      ", max rel err ", absl::StrFormat("%.3g", result.max_rel_error), ")");
  Fail(absl::StrCat(module.name(),
                    ": hloc's result differs from XLA's: ", text));
  return text;
}

void Bench::MemoryBoundTable() {
  const int64_t n = options_.size;
  Table rows = {{"case", "impl", "best ms", "median ms", "reps", "GB/s",
                 "% copy", "speedup vs XLA", "check / note"}};
  std::vector<std::string> goals;
  for (const std::string& name : MemoryBoundCases()) {
    if (!Selected(name)) continue;
    const std::string label = absl::StrCat(name, " ", n, "x", n);
    absl::StatusOr<std::string> text = MemoryBoundModuleText(name, n, n);
    absl::StatusOr<std::unique_ptr<HloModule>> module =
        text.ok() ? ParseAndVerify(*text, name)
                  : absl::StatusOr<std::unique_ptr<HloModule>>(text.status());
    absl::StatusOr<std::vector<Literal>> inputs =
        module.ok() ? RandomInputs(**module, kInputSeed)
                    : absl::StatusOr<std::vector<Literal>>(module.status());
    absl::StatusOr<std::unique_ptr<CpuExecutable>> compiled =
        inputs.ok()
            ? Compile(**module)
            : absl::StatusOr<std::unique_ptr<CpuExecutable>>(inputs.status());
    if (!compiled.ok()) {
      Fail(absl::StrCat(name, ": ", compiled.status().message()));
      continue;
    }
    const HloComputation* entry = (*module)->entry_computation();
    int64_t bytes = ArrayBytes(entry->root_instruction()->shape());
    for (const HloInstruction* p : entry->parameter_instructions()) {
      bytes += ArrayBytes(p->shape());
    }

    // The copy of the same bytes: bytes/2 read, bytes/2 written.
    const int64_t half = bytes / 2;
    ByteBlock src = AllocateTouched(half), dst = AllocateTouched(half);
    const TimedFn copy_fn = Timed([&] {
      ParallelCopy(dst.data(), src.data(), half);
      return absl::OkStatus();
    });
    std::unique_ptr<Ours> ours = MakeOurs(**compiled, *inputs);
    std::optional<Literal> xla_result;
    const absl::StatusOr<TimedFn> xla_fn =
        LoadOnXla(name, **module, *inputs, &xla_result);
    if (!xla_fn.ok() && XlaAvailable()) {
      err_ << "hlo-bench: XLA:CPU on " << name << ": "
           << xla_fn.status().message() << "\n";
    }
    const std::vector<absl::StatusOr<Stats>> stats =
        MeasureInterleaved({copy_fn, ours->kernels, ours->run, xla_fn},
                           options_.reps, options_.budget_s);
    UnloadOnXla(name);
    const absl::StatusOr<Stats>& copy = stats[0];
    const absl::StatusOr<Stats>& kernels = stats[1];
    const absl::StatusOr<Stats>& run = stats[2];
    const absl::StatusOr<Stats>& xla = stats[3];
    CheckOurs(name, *ours, run, kernels);
    const std::string check = Check(**module, ours->result, xla_result);

    auto row = [&](const std::string& impl, const absl::StatusOr<Stats>& s,
                   const std::string& check_text) {
      if (!s.ok()) {
        rows.push_back(NotAvailable({label, impl}, s.status(), rows[0].size()));
        return;
      }
      const double gbs = bytes / s->best_s / 1e9;
      rows.push_back({label, impl, Ms(s->best_s), Ms(s->median_s),
                      absl::StrCat(s->reps), absl::StrFormat("%.1f", gbs),
                      copy.ok() ? Percent(copy->best_s / s->best_s) : "-",
                      xla.ok() ? Ratio(xla->best_s / s->best_s) : "-",
                      check_text});
    };
    row(absl::StrCat("copy (OpenMP memcpy, ", threads_, " thr)"), copy, "");
    row("hloc kernels", kernels, check);
    row("hloc Run", run, check);
    row("XLA:CPU", xla, "");
    auto gbs = [&](const absl::StatusOr<Stats>& s) -> std::optional<double> {
      if (!s.ok()) return std::nullopt;
      return bytes / s->best_s / 1e9;
    };
    chart_.groups.push_back({label,
                             "GB/s",
                             {{"copy bound", gbs(copy)},
                              {"hloc kernels", gbs(kernels)},
                              {"hloc Run", gbs(run)},
                              {"XLA:CPU", gbs(xla)}}});

    const double goal = name == "chain5" ? 0.8 : 0.6;
    std::string line = absl::StrCat(name, ": ");
    for (const auto& [impl, s] :
         {std::pair<std::string, const absl::StatusOr<Stats>*>{"kernels",
                                                               &kernels},
          {"Run", &run}}) {
      if (!s->ok() || !copy.ok()) continue;
      const double of_copy = copy->best_s / (*s)->best_s;
      absl::StrAppend(&line, impl, " ", Percent(of_copy),
                      " of copy (goal >=", Percent(goal), ") ",
                      MetText(of_copy >= goal));
      if (xla.ok()) {
        const double speedup = xla->best_s / (*s)->best_s;
        absl::StrAppend(&line, ", ", Ratio(speedup), " XLA's speed (goal >1) ",
                        MetText(speedup > 1));
      }
      absl::StrAppend(&line, "; ");
    }
    goals.push_back(std::string(absl::StripSuffix(line, "; ")));
  }
  if (rows.size() == 1) return;
  out_ << "\n== Memory-bound (f32; best/median of the reps, taken in "
          "rounds; GB/s = bytes of parameters + results / best time) ==\n";
  PrintTable(rows, out_);
  out_ << "hloc kernels: the compiled kernels on buffers allocated once; "
          "hloc Run: CpuExecutable::Run (a fresh arena/output block and a "
          "result Literal every call); XLA:CPU: execute_sharded + "
          "block_until_ready (a fresh output every call)\n";
  out_ << "goals (best times):\n";
  for (const std::string& goal : goals) out_ << "  " << goal << "\n";
}

// OpenBLAS's cblas_sgemm, found at run time.
struct OpenBlas {
  using Sgemm = void (*)(int, int, int, int, int, int, float, const float*, int,
                         const float*, int, float, float*, int);
  using SetThreads = void (*)(int);
  void* handle = nullptr;
  Sgemm sgemm = nullptr;
  SetThreads set_threads = nullptr;
  std::string error;

  OpenBlas() {
    // OpenBLAS's idle workers spin for 2^28 cycles (~0.1 s) after each call
    // by default, which would take the cores from whichever contender the
    // rounds time next; 2^4 cycles puts them to sleep at once. (Read when
    // the library loads; a value the user set wins.)
    setenv("OPENBLAS_THREAD_TIMEOUT", "4", /*overwrite=*/0);
    handle = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* message = dlerror();
      error = message != nullptr ? message : "dlopen failed";
      return;
    }
    sgemm = reinterpret_cast<Sgemm>(dlsym(handle, "cblas_sgemm"));
    set_threads =
        reinterpret_cast<SetThreads>(dlsym(handle, "openblas_set_num_threads"));
    if (sgemm == nullptr) error = "libopenblas.so.0 has no cblas_sgemm";
  }
  ~OpenBlas() {
    if (handle != nullptr) dlclose(handle);
  }
};

void Bench::OpsTable() {
  Table rows = {{"case", "impl", "best ms", "median ms", "reps",
                 "speedup vs XLA", "check / note"}};
  for (const OpCase& op : OpCases()) {
    if (!Selected(op.name)) continue;
    const int64_t r = op.rows(options_.size), c = op.cols(options_.size);
    const std::string label = absl::StrCat(op.name, " ", r, "x", c);
    absl::StatusOr<std::string> text = OpModuleText(op.name, options_.size);
    absl::StatusOr<std::unique_ptr<HloModule>> module =
        text.ok() ? ParseAndVerify(*text, op.name)
                  : absl::StatusOr<std::unique_ptr<HloModule>>(text.status());
    absl::StatusOr<std::vector<Literal>> inputs =
        module.ok() ? RandomInputs(**module, kInputSeed)
                    : absl::StatusOr<std::vector<Literal>>(module.status());
    absl::StatusOr<std::unique_ptr<CpuExecutable>> compiled =
        inputs.ok()
            ? Compile(**module)
            : absl::StatusOr<std::unique_ptr<CpuExecutable>>(inputs.status());
    if (!compiled.ok()) {
      Fail(absl::StrCat(op.name, ": ", compiled.status().message()));
      continue;
    }
    const std::vector<std::string> fallbacks =
        (*compiled)->fallback_instructions();
    std::unique_ptr<Ours> ours = MakeOurs(**compiled, *inputs);
    std::optional<Literal> xla_result;
    const absl::StatusOr<TimedFn> xla_fn =
        LoadOnXla(op.name, **module, *inputs, &xla_result);
    if (!xla_fn.ok() && XlaAvailable()) {
      err_ << "hlo-bench: XLA:CPU on " << op.name << ": "
           << xla_fn.status().message() << "\n";
    }
    const std::vector<absl::StatusOr<Stats>> stats = MeasureInterleaved(
        {ours->run, xla_fn}, options_.reps, options_.budget_s);
    UnloadOnXla(op.name);
    CheckOurs(op.name, *ours, stats[0], absl::UnknownError("not timed"));
    std::string check = Check(**module, ours->result, xla_result);
    if (!fallbacks.empty()) {
      absl::StrAppend(&check, "; evaluator: ", absl::StrJoin(fallbacks, ","));
    }
    for (const auto& [impl, s] :
         {std::pair<std::string, const absl::StatusOr<Stats>*>{"hloc Run",
                                                               &stats[0]},
          {"XLA:CPU", &stats[1]}}) {
      if (!s->ok()) {
        rows.push_back(
            NotAvailable({label, impl}, s->status(), rows[0].size()));
        continue;
      }
      const bool ours_row = impl == "hloc Run";
      rows.push_back({label, impl, Ms((*s)->best_s), Ms((*s)->median_s),
                      absl::StrCat((*s)->reps),
                      ours_row && stats[1].ok()
                          ? Ratio(stats[1]->best_s / (*s)->best_s)
                          : "-",
                      ours_row ? check : ""});
    }
  }
  if (rows.size() == 1) return;
  out_ << "\n== Operations (issue 16: as JAX lowers them; best/median of "
          "the reps, taken in rounds) ==\n";
  PrintTable(rows, out_);
  out_ << "hloc Run: CpuExecutable::Run after the cpu pipeline; "
          "\"evaluator:\" lists instructions that ran in the reference "
          "evaluator instead of generated code.\n";
}

void Bench::DotTable() {
  if (!Selected("dot")) return;
  const int64_t n = options_.dot_size;
  const double flops = 2.0 * n * n * n;
  const std::string label = absl::StrCat("dot ", n, "x", n, "x", n);
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseAndVerify(DotModuleText(n, n, n), "dot");
  absl::StatusOr<std::vector<Literal>> inputs =
      module.ok() ? RandomInputs(**module, kInputSeed)
                  : absl::StatusOr<std::vector<Literal>>(module.status());
  absl::StatusOr<std::unique_ptr<CpuExecutable>> compiled =
      inputs.ok()
          ? Compile(**module)
          : absl::StatusOr<std::unique_ptr<CpuExecutable>>(inputs.status());
  if (!compiled.ok()) {
    Fail(absl::StrCat("dot: ", compiled.status().message()));
    return;
  }
  const std::vector<std::string> fallbacks =
      (*compiled)->fallback_instructions();
  const std::string how =
      fallbacks.empty()
          ? absl::StrCat("generated code, ", (*compiled)->kernel_count(),
                         " kernel(s)")
          : absl::StrCat("EVALUATOR FALLBACK: ", absl::StrJoin(fallbacks, ","));

  std::unique_ptr<Ours> ours = MakeOurs(**compiled, *inputs);
  OpenBlas blas;
  ByteBlock c = AllocateTouched(n * n * sizeof(float));
  absl::StatusOr<TimedFn> sgemm_fn = absl::UnavailableError(blas.error);
  if (blas.sgemm != nullptr) {
    if (blas.set_threads != nullptr) blas.set_threads(threads_);
    const float* a = (*inputs)[0].data<float>().data();
    const float* b = (*inputs)[1].data<float>().data();
    float* out = reinterpret_cast<float*>(c.data());
    const int dim = static_cast<int>(n);
    sgemm_fn = Timed([&blas, a, b, out, dim] {
      constexpr int kRowMajor = 101, kNoTrans = 111;
      blas.sgemm(kRowMajor, kNoTrans, kNoTrans, dim, dim, dim, 1.0f, a, dim, b,
                 dim, 0.0f, out, dim);
      return absl::OkStatus();
    });
  }
  std::optional<Literal> xla_result;
  const absl::StatusOr<TimedFn> xla_fn =
      LoadOnXla("dot", **module, *inputs, &xla_result);
  if (!xla_fn.ok() && XlaAvailable()) {
    err_ << "hlo-bench: XLA:CPU on dot: " << xla_fn.status().message() << "\n";
  }
  const std::vector<absl::StatusOr<Stats>> stats =
      MeasureInterleaved({ours->kernels, ours->run, sgemm_fn, xla_fn},
                         options_.reps, options_.budget_s);
  UnloadOnXla("dot");
  const absl::StatusOr<Stats>& xla = stats[3];
  CheckOurs("dot", *ours, stats[1], stats[0]);
  const std::string check = Check(**module, ours->result, xla_result);

  Table rows = {{"case", "impl", "best ms", "median ms", "reps", "GFLOP/s",
                 "speedup vs XLA", "check / note"}};
  auto row = [&](const std::string& impl, const absl::StatusOr<Stats>& s,
                 const std::string& check_text) {
    if (!s.ok()) {
      rows.push_back(NotAvailable({label, impl}, s.status(), rows[0].size()));
      return;
    }
    rows.push_back(
        {label, impl, Ms(s->best_s), Ms(s->median_s), absl::StrCat(s->reps),
         absl::StrFormat("%.1f", flops / s->best_s / 1e9),
         xla.ok() ? Ratio(xla->best_s / s->best_s) : "-", check_text});
  };
  row("hloc kernels", stats[0], check);
  row("hloc Run", stats[1], check);
  row(absl::StrCat("OpenBLAS sgemm (", threads_, " thr)"), stats[2], "");
  row("XLA:CPU", xla, "");
  auto gflops = [&](const absl::StatusOr<Stats>& s) -> std::optional<double> {
    if (!s.ok()) return std::nullopt;
    return flops / s->best_s / 1e9;
  };
  chart_.groups.push_back({label,
                           "GFLOP/s",
                           {{"hloc kernels", gflops(stats[0])},
                            {"hloc Run", gflops(stats[1])},
                            {"OpenBLAS sgemm", gflops(stats[2])},
                            {"XLA:CPU", gflops(xla)}}});
  out_ << "\n== Dot (f32, GFLOP/s = 2*M*N*K / best time); hloc's dot: " << how
       << " ==\n";
  PrintTable(rows, out_);
}

void Bench::CompileTable() {
  const std::string corpus = CorpusDir();
  std::vector<std::string> cases;
  for (const std::string& name : CorpusCases()) {
    if (Selected(name)) cases.push_back(name);
  }
  if (cases.empty()) {
    if (corpus.empty()) {
      out_ << "\n== Compile time: n/a (shared/corpus/jax not found; set "
              "HLOC_CORPUS_DIR) ==\n";
    }
    return;
  }
  Table rows = {{"case", "hloc median ms", "best ms", "kernels", "fallbacks",
                 "XLA median ms", "best ms", "hloc/XLA time", "note"}};
  std::vector<double> ours_all, xla_all;
  int faster = 0, compared = 0;
  for (const std::string& name : cases) {
    int64_t kernels = 0, fallbacks = 0;
    const std::string hlo_path = CorpusFile(name, "module.hlo");
    const TimedFn ours_fn = Timed([&]() -> absl::Status {
      absl::StatusOr<std::unique_ptr<HloModule>> module = LoadModule(hlo_path);
      if (!module.ok()) return module.status();
      absl::StatusOr<std::unique_ptr<CpuExecutable>> compiled =
          Compile(**module);
      if (!compiled.ok()) return compiled.status();
      kernels = (*compiled)->kernel_count();
      fallbacks =
          static_cast<int64_t>((*compiled)->fallback_instructions().size());
      return absl::OkStatus();
    });
    absl::StatusOr<TimedFn> xla_fn = absl::UnavailableError(XlaMissingReason());
    if (XlaAvailable()) {
      const std::string task = absl::StrCat(
          "{\"kind\": \"compile\", \"name\": ", JsonQuote(name),
          ", \"module\": ", JsonQuote(CorpusFile(name, "module.pb")), "}");
      XlaBenchClient* xla = xla_.get();
      xla_fn = TimedFn([xla, task]() -> absl::StatusOr<double> {
        absl::StatusOr<JsonObject> answer = xla->Request(task);
        if (!answer.ok()) return answer.status();
        return SecondsFromAnswer(*answer);
      });
    }
    const std::vector<absl::StatusOr<Stats>> stats = MeasureInterleaved(
        {ours_fn, xla_fn}, options_.compile_reps, options_.budget_s);
    const absl::StatusOr<Stats>& ours = stats[0];
    const absl::StatusOr<Stats>& xla = stats[1];
    if (!ours.ok()) {
      Fail(absl::StrCat(name, ": compile: ", ours.status().message()));
      rows.push_back(NotAvailable({name}, ours.status(), rows[0].size()));
      continue;
    }
    if (!xla.ok() && XlaAvailable()) {
      err_ << "hlo-bench: XLA:CPU compile of " << name << ": "
           << xla.status().message() << "\n";
    }
    ours_all.push_back(ours->median_s);
    std::vector<std::string> row = {name, Ms(ours->median_s), Ms(ours->best_s),
                                    absl::StrCat(kernels),
                                    absl::StrCat(fallbacks)};
    if (xla.ok()) {
      xla_all.push_back(xla->median_s);
      ++compared;
      faster += ours->median_s < xla->median_s;
      row.insert(row.end(), {Ms(xla->median_s), Ms(xla->best_s),
                             Ratio(ours->median_s / xla->median_s)});
      rows.push_back(std::move(row));
    } else {
      rows.push_back(
          NotAvailable(std::move(row), xla.status(), rows[0].size()));
    }
  }
  if (ours_all.empty()) return;
  const Stats ours = Summarize(ours_all);
  const double ours_max = *std::max_element(ours_all.begin(), ours_all.end());
  std::vector<std::string> median_row = {"MEDIAN over cases", Ms(ours.median_s),
                                         "", "", ""};
  std::vector<std::string> max_row = {"MAX over cases", Ms(ours_max), "", "",
                                      ""};
  std::optional<double> xla_median;
  if (!xla_all.empty()) {
    xla_median = Summarize(xla_all).median_s;
    const double xla_max = *std::max_element(xla_all.begin(), xla_all.end());
    median_row.insert(median_row.end(), {Ms(*xla_median), "",
                                         Ratio(ours.median_s / *xla_median)});
    max_row.insert(max_row.end(), {Ms(xla_max), "", Ratio(ours_max / xla_max)});
  }
  rows.push_back(std::move(median_row));
  rows.push_back(std::move(max_row));
  out_ << "\n== Compile time (hloc: parse+verify module.hlo, cpu pipeline, "
          "LLVM O3, JIT; XLA:CPU: compile_and_load of module.pb); "
       << options_.compile_reps << " reps after a warm-up, in rounds ==\n";
  PrintTable(rows, out_);
  std::string goals =
      absl::StrCat("goals: median ", Ms(ours.median_s), " ms (goal <100) ",
                   MetText(ours.median_s < 0.1), "; max ", Ms(ours_max),
                   " ms (goal <500) ", MetText(ours_max < 0.5));
  if (xla_median) {
    absl::StrAppend(&goals, "; below XLA:CPU's median ", Ms(*xla_median),
                    " ms: ", MetText(ours.median_s < *xla_median),
                    " (faster on ", faster, "/", compared, " cases)");
  }
  out_ << goals << "\n";
}

void Bench::WritePlot() {
  char date[16];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof(date), "%Y-%m-%d", std::gmtime(&now));
  chart_.title =
      "hlo-bench (CPU): memory-bound modules in GB/s, the dot in "
      "GFLOP/s (longer is faster)";
  chart_.subtitle = absl::StrCat(date, ", ", CpuModel(), ", ", threads_,
                                 " threads; best of the reps");
  chart_.note =
      "Each case is scaled to its own longest bar. copy bound: an OpenMP "
      "memcpy of the same bytes; hloc Run includes the result's allocation.";
  chart_.shared_scale = false;
  std::ofstream file(options_.plot, std::ios::binary);
  file << WriteBarChartSvg(chart_);
  file.close();
  if (!file) {
    Fail(absl::StrCat("cannot write --plot ", options_.plot));
    return;
  }
  out_ << "chart: " << options_.plot << " (" << chart_.groups.size()
       << " cases)\n";
}

int Bench::Run() {
  if (options_.threads > 0) omp_set_num_threads(options_.threads);
  threads_ = omp_get_max_threads();
  std::error_code ec;
  const char* test_tmpdir = std::getenv("TEST_TMPDIR");
  std::string temp_template =
      ((test_tmpdir != nullptr ? fs::path(test_tmpdir)
                               : fs::temp_directory_path(ec)) /
       "hlo-bench.XXXXXX")
          .string();
  if (mkdtemp(temp_template.data()) == nullptr) {
    err_ << "hlo-bench: error: cannot create a temporary directory: "
         << std::strerror(errno) << "\n";
    return kHloBenchFailed;
  }
  temp_dir_ = temp_template;

  const Clock::time_point start = Clock::now();
  out_ << "hlo-bench: " << CpuModel() << ", "
       << std::thread::hardware_concurrency() << " CPUs, " << threads_
       << " OpenMP threads\n";
  out_ << "load average at start: " << LoadAverage() << "\n";
  if (!options_.no_xla) {
    const std::string helper = options_.xla_helper.empty()
                                   ? FindXlaBenchHelper()
                                   : options_.xla_helper;
    if (helper.empty()) {
      xla_reason_ = "tools/hlo_bench_xla.py not found; give --xla-helper";
    } else {
      xla_ = std::make_unique<XlaBenchClient>(
          options_.python, helper, threads_, TempPath("xla_helper_stderr.txt"));
    }
  }
  out_ << "XLA:CPU: "
       << (XlaAvailable() ? xla_->description()
                          : absl::StrCat("n/a (", XlaMissingReason(), ")"))
       << "\n";
  out_.flush();
  MemoryBoundTable();
  out_.flush();
  DotTable();
  out_.flush();
  OpsTable();
  out_.flush();
  CompileTable();
  if (!cpu_name_.empty()) out_ << "\nhloc compiled for: " << cpu_name_;
  out_ << "\nload average at end: " << LoadAverage() << "; took "
       << absl::StrFormat("%.0f", SecondsSince(start)) << " s\n";
  if (!options_.plot.empty()) WritePlot();
  xla_.reset();
  fs::remove_all(temp_dir_, ec);
  return failed_ ? kHloBenchFailed : kHloBenchOk;
}

}  // namespace

absl::StatusOr<std::string> MemoryBoundModuleText(absl::string_view name,
                                                  int64_t rows, int64_t cols) {
  const char* text = name == "chain5"      ? kChain5
                     : name == "softmax"   ? kSoftmax
                     : name == "layernorm" ? kLayernorm
                                           : nullptr;
  if (text == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown memory-bound case '", name, "'"));
  }
  return absl::StrReplaceAll(
      text, {{"$R", absl::StrCat(rows)}, {"$C", absl::StrCat(cols)}});
}

absl::StatusOr<std::string> OpModuleText(absl::string_view name, int64_t size) {
  for (const OpCase& op : OpCases()) {
    if (name != op.name) continue;
    const int64_t cols = op.cols(size);
    return absl::StrReplaceAll(op.text, {{"$R", absl::StrCat(op.rows(size))},
                                         {"$C", absl::StrCat(cols)},
                                         {"$P", absl::StrCat(cols - 1)}});
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown operation case '", name, "'"));
}

std::string DotModuleText(int64_t m, int64_t k, int64_t n) {
  return absl::StrReplaceAll(kDot, {{"$M", absl::StrCat(m)},
                                    {"$K", absl::StrCat(k)},
                                    {"$N", absl::StrCat(n)}});
}

absl::StatusOr<HloBenchOptions> ParseHloBenchOptions(
    const std::vector<std::string>& args) {
  std::vector<char*> argv = {const_cast<char*>("hlo-bench")};
  for (const std::string& arg : args)
    argv.push_back(const_cast<char*>(arg.c_str()));
  absl::StatusOr<ParsedFlags> parsed =
      ParseFlags(static_cast<int>(argv.size()), argv.data(), Specs());
  if (!parsed.ok()) return parsed.status();
  const ParsedFlags& flags = *parsed;
  HloBenchOptions options;
  if (flags.Has("help")) {
    options.help = true;
    return options;
  }
  if (!flags.positional.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("unexpected argument '", flags.positional[0], "'"));
  }
  int64_t reps = options.reps, compile_reps = options.compile_reps, threads = 0;
  absl::Status status = PositiveIntFlag(flags, "reps", &reps, 1000000);
  if (status.ok()) {
    status = PositiveIntFlag(flags, "compile-reps", &compile_reps, 1000);
  }
  if (status.ok()) status = PositiveIntFlag(flags, "threads", &threads, 4096);
  if (status.ok()) {
    status = PositiveIntFlag(flags, "size", &options.size, 1 << 16);
  }
  if (status.ok()) {
    status = PositiveIntFlag(flags, "dot-size", &options.dot_size, 1 << 14);
  }
  if (!status.ok()) return status;
  options.reps = static_cast<int>(reps);
  options.compile_reps = static_cast<int>(compile_reps);
  options.threads = static_cast<int>(threads);
  if (flags.Has("budget")) {
    if (!absl::SimpleAtod(flags.Get("budget"), &options.budget_s) ||
        !(options.budget_s > 0)) {
      return absl::InvalidArgumentError(
          absl::StrCat("flag --budget: '", flags.Get("budget"),
                       "' is not a positive number of seconds"));
    }
  }
  if (flags.Has("only")) {
    options.only = absl::StrSplit(flags.Get("only"), ',', absl::SkipEmpty());
    if (options.only.empty()) {
      return absl::InvalidArgumentError("flag --only: no case names given");
    }
  }
  options.no_xla = flags.Has("no-xla");
  options.python = flags.Get("python", options.python);
  options.xla_helper = flags.Get("xla-helper");
  options.plot = flags.Get("plot");
  if (flags.Has("plot") && options.plot.empty()) {
    return absl::InvalidArgumentError("flag --plot: give a file name");
  }
  return options;
}

std::string HloBenchUsage() { return FlagHelp("hlo-bench [flags]", Specs()); }

int HloBenchMain(const std::vector<std::string>& args, std::ostream& out,
                 std::ostream& err) {
  absl::StatusOr<HloBenchOptions> options = ParseHloBenchOptions(args);
  if (!options.ok()) {
    err << "hlo-bench: error: " << options.status().message()
        << "\n(hlo-bench --help lists the flags)\n";
    return kHloBenchBadFlags;
  }
  if (options->help) {
    out << HloBenchUsage();
    return kHloBenchOk;
  }
  return Bench(*options, out, err).Run();
}

}  // namespace hloc
