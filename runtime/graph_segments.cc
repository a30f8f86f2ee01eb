#include "runtime/graph_segments.h"

#include <algorithm>

namespace hloc {
namespace {

// Nodes and kernels of a captured step, or nodes -1.
struct GraphCount {
  int64_t nodes = -1;
  int64_t kernels = 0;
};

GraphCount Count(const ExecutableStep& step, bool conditional_nodes);

// Steps one after another (a body, a condition, a branch).
GraphCount ListCount(const std::vector<ExecutableStep>& steps,
                     bool conditional_nodes) {
  GraphCount list{0, 0};
  for (const ExecutableStep& s : steps) {
    const GraphCount c = Count(s, conditional_nodes);
    if (c.nodes < 0) return {};
    list.nodes += c.nodes;
    list.kernels += c.kernels;
  }
  return list;
}

// A loop or conditional as conditional nodes (cuda_conditional_nodes.h):
// a loop is its condition, a set kernel and the node, whose body graph
// holds the body, the condition again and a set kernel; a conditional is
// a set kernel and the node with a graph per branch. Every node the graph
// instantiates counts, nested graphs' included, so that an unrolled loop
// around one stays within kMaxUnrolledGraphNodes.
GraphCount ConditionalNodeCount(const ExecutableStep& step) {
  GraphCount total{2, 1};
  auto add = [&](const std::vector<ExecutableStep>& steps) {
    const GraphCount c = ListCount(steps, true);
    if (c.nodes < 0 || total.nodes < 0) {
      total = {};
      return;
    }
    total.nodes += c.nodes;
    total.kernels += c.kernels;
  };
  if (step.kind == ExecutableStep::Kind::kWhile) {
    add(step.condition);
    add(step.body);
    add(step.condition);
    if (total.nodes >= 0) {
      total.nodes += 1;
      total.kernels += 1;
    }
  } else {
    for (const std::vector<ExecutableStep>& branch : step.branches) add(branch);
  }
  if (total.nodes > kMaxUnrolledGraphNodes) return {};
  return total;
}

GraphCount Count(const ExecutableStep& step, bool conditional_nodes) {
  using Kind = ExecutableStep::Kind;
  switch (step.kind) {
    case Kind::kKernel:
      return {1, 1};
    case Kind::kCopy:
      return {1, 0};
    case Kind::kLibraryCall:
      // A cuBLASLt matmul is recorded like a kernel (it may launch two: a
      // split-K reduction), once tuned: the runtime tunes every call a
      // capture will meet before it begins. cuDNN, cuFFT and cuSOLVER
      // calls run on their own.
      if (step.library == "cublas.gemm") return {2, 1};
      return {};
    case Kind::kWhile: {
      if (step.trip_count < 0) {
        return conditional_nodes ? ConditionalNodeCount(step) : GraphCount{};
      }
      const GraphCount body = ListCount(step.body, conditional_nodes);
      if (body.nodes < 0) return {};
      // Bounded before multiplying: no overflow.
      if (body.nodes > 0 &&
          step.trip_count > kMaxUnrolledGraphNodes / body.nodes) {
        return {};
      }
      return {body.nodes * step.trip_count, body.kernels * step.trip_count};
    }
    case Kind::kConditional:
      return conditional_nodes ? ConditionalNodeCount(step) : GraphCount{};
    default:
      return {};
  }
}

}  // namespace

int64_t GraphNodes(const ExecutableStep& step, bool conditional_nodes) {
  return Count(step, conditional_nodes).nodes;
}

bool TouchesEntryIo(const Executable& executable, const ExecutableStep& step) {
  std::vector<int64_t> slots = step.buffers;
  if (step.predicate_buffer >= 0) slots.push_back(step.predicate_buffer);
  for (int64_t slot : slots) {
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

int64_t GraphKernels(const ExecutableStep& step, bool conditional_nodes) {
  const GraphCount c = Count(step, conditional_nodes);
  return c.nodes < 0 ? 0 : c.kernels;
}

int64_t LoopIterationsPerGraph(const ExecutableStep& loop,
                               bool conditional_nodes) {
  if (loop.kind != ExecutableStep::Kind::kWhile || loop.trip_count <= 0) {
    return 0;
  }
  const GraphCount body = ListCount(loop.body, conditional_nodes);
  if (body.nodes < 0) return 0;
  return std::min(loop.trip_count,
                  std::max<int64_t>(1, kMaxUnrolledGraphNodes /
                                           std::max<int64_t>(1, body.nodes)));
}

std::vector<GraphSegment> PlanGraphSegments(
    const Executable& executable, const std::vector<ExecutableStep>& steps,
    bool use_graphs, int64_t min_kernels, bool conditional_nodes) {
  std::vector<GraphSegment> segments;
  for (size_t begin = 0; begin < steps.size();) {
    GraphSegment segment;
    segment.begin = begin;
    segment.end = begin + 1;
    // A step that cannot be captured is a segment alone; a capturable one
    // begins a stretch of them.
    int64_t kernels = 0;
    for (size_t i = begin; i < steps.size(); ++i) {
      const GraphCount c = Count(steps[i], conditional_nodes);
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
