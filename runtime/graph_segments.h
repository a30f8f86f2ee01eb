// How the CUDA runtime (cuda_executor.h) cuts a list of steps into CUDA
// graphs: maximal stretches of steps that stream capture can record, a
// graph where a stretch holds at least a few kernels.
//
// Kernels, copies and cuBLASLt gemms (tuned when the executor is made) are
// recorded as they are. A while loop with a known trip count
// (ExecutableStep::trip_count) whose body is itself all such steps is
// recorded unrolled, its body that many times over, when that stays under
// kMaxUnrolledGraphNodes: the whole loop is then one graph launch (with the
// kernels around it) instead of a graph launch, with the host's
// microseconds of work, per iteration. Where the driver has
// conditional nodes (`conditional_nodes` below; cuda_conditional_nodes.h),
// a loop without a count and a conditional whose nested steps are all such
// steps are recorded too, as nodes that decide on the device. Other
// library calls (cuDNN, cuFFT, cuSOLVER), collectives, evaluator steps,
// and loops and conditionals that cannot be recorded run step by step
// between graphs, their predicates read on the host.
#ifndef RUNTIME_GRAPH_SEGMENTS_H_
#define RUNTIME_GRAPH_SEGMENTS_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "runtime/executable.h"

namespace hloc {

// The most kernel and copy nodes an unrolled loop may add to a graph:
// instantiating a graph costs the first run about a microsecond a node.
inline constexpr int64_t kMaxUnrolledGraphNodes = 2048;

// The graph nodes `step` records when captured (kernels and copies one
// each, a capturable counted loop its body's times its trip count, a
// conditional node its set kernels and every node of its bodies), or -1
// where it cannot be captured. `conditional_nodes`: whether loops without
// a count and conditionals may be captured as conditional nodes.
int64_t GraphNodes(const ExecutableStep& step, bool conditional_nodes);

// The kernels among them (0 where it cannot be captured).
int64_t GraphKernels(const ExecutableStep& step, bool conditional_nodes);

// A counted loop that does not fit one graph whole (or runs outside
// one) still runs as graphs of whole iterations: how many iterations one
// such graph holds (at most its trip count, at least 1, within
// kMaxUnrolledGraphNodes where an iteration fits), or 0 where the loop has
// no count or its body cannot be captured.
int64_t LoopIterationsPerGraph(const ExecutableStep& loop,
                               bool conditional_nodes);

// Whether `step`, or a step nested in it, names a parameter's or an
// output's allocation of `executable` (among its buffers or as its
// predicate).
bool TouchesEntryIo(const Executable& executable, const ExecutableStep& step);

struct GraphSegment {
  size_t begin = 0, end = 0;  // steps [begin, end)
  bool graph = false;
  // Whether a step of it (nested ones included) reads a parameter's or
  // writes an output's allocation: a graph bakes in their plan addresses,
  // so a run on the caller's memory issues such a segment step by step.
  bool touches_entry_io = false;
};

// `steps` (of `executable`) cut into segments: each capturable stretch
// one segment, a graph if `use_graphs` and it holds at least
// `min_kernels` kernels; every other step a segment of its own.
std::vector<GraphSegment> PlanGraphSegments(
    const Executable& executable, const std::vector<ExecutableStep>& steps,
    bool use_graphs, int64_t min_kernels, bool conditional_nodes);

}  // namespace hloc

#endif  // RUNTIME_GRAPH_SEGMENTS_H_
