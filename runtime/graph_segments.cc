#include "runtime/graph_segments.h"

#include <algorithm>

namespace hloc {
namespace {

// Nodes and kernels of a captured step, or nodes -1.
struct GraphCount {
  int64_t nodes = -1;
  int64_t kernels = 0;
};

GraphCount Count(const ExecutableStep& step);

// One iteration of a loop's body.
GraphCount BodyCount(const ExecutableStep& loop) {
  GraphCount body{0, 0};
  for (const ExecutableStep& s : loop.body) {
    const GraphCount c = Count(s);
    if (c.nodes < 0) return {};
    body.nodes += c.nodes;
    body.kernels += c.kernels;
  }
  return body;
}

GraphCount Count(const ExecutableStep& step) {
  using Kind = ExecutableStep::Kind;
  switch (step.kind) {
    case Kind::kKernel:
      return {1, 1};
    case Kind::kCopy:
      return {1, 0};
    case Kind::kWhile: {
      if (step.trip_count < 0) return {};
      const GraphCount body = BodyCount(step);
      if (body.nodes < 0) return {};
      // Bounded before multiplying: no overflow.
      if (body.nodes > 0 &&
          step.trip_count > kMaxUnrolledGraphNodes / body.nodes) {
        return {};
      }
      return {body.nodes * step.trip_count, body.kernels * step.trip_count};
    }
    default:
      return {};
  }
}

}  // namespace

int64_t GraphNodes(const ExecutableStep& step) { return Count(step).nodes; }

bool TouchesEntryIo(const Executable& executable, const ExecutableStep& step) {
  for (int64_t slot : step.buffers) {
    const BufferAllocation::Kind kind =
        executable.allocations[executable.buffers[slot].allocation].kind;
    if (kind == BufferAllocation::Kind::kParameter ||
        kind == BufferAllocation::Kind::kOutput) {
      return true;
    }
  }
  for (const std::vector<ExecutableStep>* nested :
       {&step.condition, &step.body}) {
    for (const ExecutableStep& s : *nested) {
      if (TouchesEntryIo(executable, s)) return true;
    }
  }
  for (const std::vector<ExecutableStep>& branch : step.branches) {
    for (const ExecutableStep& s : branch) {
      if (TouchesEntryIo(executable, s)) return true;
    }
  }
  return false;
}

int64_t GraphKernels(const ExecutableStep& step) {
  const GraphCount c = Count(step);
  return c.nodes < 0 ? 0 : c.kernels;
}

int64_t LoopIterationsPerGraph(const ExecutableStep& loop) {
  if (loop.kind != ExecutableStep::Kind::kWhile || loop.trip_count <= 0) {
    return 0;
  }
  const GraphCount body = BodyCount(loop);
  if (body.nodes < 0) return 0;
  return std::min(loop.trip_count,
                  std::max<int64_t>(1, kMaxUnrolledGraphNodes /
                                           std::max<int64_t>(1, body.nodes)));
}

std::vector<GraphSegment> PlanGraphSegments(
    const Executable& executable, const std::vector<ExecutableStep>& steps,
    bool use_graphs, int64_t min_kernels) {
  std::vector<GraphSegment> segments;
  for (size_t begin = 0; begin < steps.size();) {
    GraphSegment segment;
    segment.begin = begin;
    segment.end = begin + 1;
    // A step that cannot be captured is a segment alone; a capturable one
    // begins a stretch of them.
    int64_t kernels = 0;
    for (size_t i = begin; i < steps.size(); ++i) {
      const GraphCount c = Count(steps[i]);
      if (c.nodes < 0) break;
      kernels += c.kernels;
      segment.end = i + 1;
    }
    for (size_t i = segment.begin; i < segment.end; ++i) {
      segment.touches_entry_io |= TouchesEntryIo(executable, steps[i]);
    }
    segment.graph = use_graphs && kernels >= min_kernels;
    segments.push_back(segment);
    begin = segment.end;
  }
  return segments;
}

}  // namespace hloc
