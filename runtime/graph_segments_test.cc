// The CUDA runtime's graph segments (graph_segments.h), planned without a
// GPU: capturable stretches, counted loops unrolled into them up to the
// node bound, and what breaks a stretch.
#include "runtime/graph_segments.h"

#include <vector>

#include "gtest/gtest.h"

namespace hloc {
namespace {

using Kind = ExecutableStep::Kind;

// Slots: 0 and 1 in the arena, 2 a parameter, 3 an output.
Executable Plan() {
  Executable e;
  e.platform = "cuda";
  e.allocations = {{BufferAllocation::Kind::kArena, 256},
                   {BufferAllocation::Kind::kParameter, 64, 0, 0},
                   {BufferAllocation::Kind::kOutput, 64}};
  e.buffers = {{0, 0, 64}, {0, 64, 64}, {1, 0, 64}, {2, 0, 64}};
  return e;
}

ExecutableStep Kernel(std::vector<int64_t> buffers) {
  ExecutableStep step;
  step.kind = Kind::kKernel;
  step.kernel_name = "k";
  step.buffers = std::move(buffers);
  return step;
}

ExecutableStep Copy(int64_t from, int64_t to) {
  ExecutableStep step;
  step.kind = Kind::kCopy;
  step.buffers = {from, to};
  return step;
}

ExecutableStep Loop(int64_t trip_count, std::vector<ExecutableStep> body) {
  ExecutableStep step;
  step.kind = Kind::kWhile;
  step.buffers = {0};
  step.predicate_buffer = 1;
  step.condition = {Kernel({0, 1})};
  step.body = std::move(body);
  step.trip_count = trip_count;
  return step;
}

ExecutableStep Gemm() {
  ExecutableStep step;
  step.kind = Kind::kLibraryCall;
  step.library = "cublas.gemm";
  step.buffers = {0, 1};
  return step;
}

TEST(GraphSegmentsTest, CountedLoopsJoinTheGraphAroundThem) {
  const Executable e = Plan();
  const std::vector<ExecutableStep> steps = {
      Kernel({0, 1}), Loop(10, {Kernel({0, 1}), Kernel({1, 0}), Copy(1, 0)}),
      Kernel({1, 0}), Gemm(),
      Kernel({2, 0}), Kernel({0, 3}),
  };
  EXPECT_EQ(GraphNodes(steps[1]), 30);
  EXPECT_EQ(GraphKernels(steps[1]), 20);
  const std::vector<GraphSegment> s = PlanGraphSegments(e, steps, true, 2);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].begin, 0u);
  EXPECT_EQ(s[0].end, 3u);
  EXPECT_TRUE(s[0].graph);
  EXPECT_FALSE(s[0].touches_entry_io);
  EXPECT_EQ(s[1].begin, 3u);  // the gemm alone
  EXPECT_EQ(s[1].end, 4u);
  EXPECT_FALSE(s[1].graph);
  EXPECT_TRUE(s[2].graph);  // reads the parameter, writes the output
  EXPECT_TRUE(s[2].touches_entry_io);
  // Without graphs, the same stretches, none a graph.
  for (const GraphSegment& g : PlanGraphSegments(e, steps, false, 2)) {
    EXPECT_FALSE(g.graph);
  }
}

TEST(GraphSegmentsTest, WhatCannotBeCaptured) {
  const Executable e = Plan();
  // No count: the condition decides on the host.
  EXPECT_EQ(GraphNodes(Loop(-1, {Kernel({0, 1})})), -1);
  // A library call in the body.
  EXPECT_EQ(GraphNodes(Loop(3, {Kernel({0, 1}), Gemm()})), -1);
  // Past the bound, and exactly at it.
  EXPECT_EQ(GraphNodes(Loop(kMaxUnrolledGraphNodes + 1, {Kernel({0, 1})})), -1);
  EXPECT_EQ(GraphNodes(
                Loop(kMaxUnrolledGraphNodes / 2, {Kernel({0, 1}), Copy(1, 0)})),
            kMaxUnrolledGraphNodes);
  // A huge count does not overflow into a small product.
  EXPECT_EQ(GraphNodes(Loop(int64_t{1} << 62, {Kernel({0, 1})})), -1);
  // Nested counted loops multiply; an empty loop records nothing.
  EXPECT_EQ(GraphNodes(Loop(4, {Loop(5, {Kernel({0, 1})}), Copy(0, 1)})), 24);
  EXPECT_EQ(GraphKernels(Loop(4, {Loop(5, {Kernel({0, 1})}), Copy(0, 1)})), 20);
  EXPECT_EQ(GraphNodes(Loop(0, {Kernel({0, 1})})), 0);
  // A loop with no count splits the stretch around it, and a stretch of
  // one kernel is no graph.
  const std::vector<ExecutableStep> steps = {Kernel({0, 1}),
                                             Loop(-1, {Kernel({0, 1})}),
                                             Kernel({1, 0}), Kernel({0, 1})};
  const std::vector<GraphSegment> s = PlanGraphSegments(e, steps, true, 2);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_FALSE(s[0].graph);
  EXPECT_FALSE(s[1].graph);
  EXPECT_TRUE(s[2].graph);
  EXPECT_EQ(s[2].begin, 2u);
}

TEST(GraphSegmentsTest, IterationsPerGraph) {
  // 3 nodes an iteration: 682 iterations fit 2048 nodes.
  const std::vector<ExecutableStep> body = {Kernel({0, 1}), Kernel({1, 0}),
                                            Copy(1, 0)};
  EXPECT_EQ(LoopIterationsPerGraph(Loop(5000, body)),
            kMaxUnrolledGraphNodes / 3);
  EXPECT_EQ(LoopIterationsPerGraph(Loop(7, body)), 7);
  EXPECT_EQ(LoopIterationsPerGraph(Loop(0, body)), 0);
  EXPECT_EQ(LoopIterationsPerGraph(Loop(-1, body)), 0);
  EXPECT_EQ(LoopIterationsPerGraph(Loop(9, {Kernel({0, 1}), Gemm()})), 0);
  // An iteration past the bound alone: one an iteration.
  EXPECT_EQ(
      LoopIterationsPerGraph(Loop(9, {Loop(kMaxUnrolledGraphNodes, body)})), 0);
  EXPECT_EQ(
      LoopIterationsPerGraph(Loop(9, {Loop(kMaxUnrolledGraphNodes / 3, body)})),
      1);
  // What a loop's steps name, nested ones included.
  const Executable e = Plan();
  EXPECT_FALSE(TouchesEntryIo(e, Loop(3, body)));
  EXPECT_TRUE(TouchesEntryIo(e, Loop(3, {Kernel({0, 1}), Kernel({2, 0})})));
}

}  // namespace
}  // namespace hloc
