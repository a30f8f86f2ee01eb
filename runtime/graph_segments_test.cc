// The CUDA runtime's graph segments (graph_segments.h), planned without a
// GPU: capturable stretches, counted loops unrolled into them up to the
// node bound, loops and conditionals as conditional nodes, and what breaks
// a stretch.
#include "runtime/graph_segments.h"

#include <string>
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

ExecutableStep Library(const std::string& library) {
  ExecutableStep step;
  step.kind = Kind::kLibraryCall;
  step.library = library;
  step.buffers = {0, 1};
  return step;
}

// A library call that runs on its own, outside graphs.
ExecutableStep Fft() { return Library("cufft"); }

TEST(GraphSegmentsTest, CountedLoopsJoinTheGraphAroundThem) {
  const Executable e = Plan();
  const std::vector<ExecutableStep> steps = {
      Kernel({0, 1}), Loop(10, {Kernel({0, 1}), Kernel({1, 0}), Copy(1, 0)}),
      Kernel({1, 0}), Fft(),
      Kernel({2, 0}), Kernel({0, 3}),
  };
  EXPECT_EQ(GraphNodes(steps[1], false), 30);
  EXPECT_EQ(GraphKernels(steps[1], false), 20);
  const std::vector<GraphSegment> s =
      PlanGraphSegments(e, steps, true, 2, false);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].begin, 0u);
  EXPECT_EQ(s[0].end, 3u);
  EXPECT_TRUE(s[0].graph);
  EXPECT_FALSE(s[0].touches_entry_io);
  EXPECT_EQ(s[1].begin, 3u);  // the FFT alone
  EXPECT_EQ(s[1].end, 4u);
  EXPECT_FALSE(s[1].graph);
  EXPECT_TRUE(s[2].graph);  // reads the parameter, writes the output
  EXPECT_TRUE(s[2].touches_entry_io);
  // Without graphs, the same stretches, none a graph.
  for (const GraphSegment& g : PlanGraphSegments(e, steps, false, 2, false)) {
    EXPECT_FALSE(g.graph);
  }
}

TEST(GraphSegmentsTest, WhatCannotBeCaptured) {
  const Executable e = Plan();
  // No count: the condition decides on the host.
  EXPECT_EQ(GraphNodes(Loop(-1, {Kernel({0, 1})}), false), -1);
  // A library call in the body.
  EXPECT_EQ(GraphNodes(Loop(3, {Kernel({0, 1}), Fft()}), false), -1);
  // Past the bound, and exactly at it.
  EXPECT_EQ(
      GraphNodes(Loop(kMaxUnrolledGraphNodes + 1, {Kernel({0, 1})}), false),
      -1);
  EXPECT_EQ(
      GraphNodes(Loop(kMaxUnrolledGraphNodes / 2, {Kernel({0, 1}), Copy(1, 0)}),
                 false),
      kMaxUnrolledGraphNodes);
  // A huge count does not overflow into a small product.
  EXPECT_EQ(GraphNodes(Loop(int64_t{1} << 62, {Kernel({0, 1})}), false), -1);
  // Nested counted loops multiply; an empty loop records nothing.
  EXPECT_EQ(GraphNodes(Loop(4, {Loop(5, {Kernel({0, 1})}), Copy(0, 1)}), false),
            24);
  EXPECT_EQ(
      GraphKernels(Loop(4, {Loop(5, {Kernel({0, 1})}), Copy(0, 1)}), false),
      20);
  EXPECT_EQ(GraphNodes(Loop(0, {Kernel({0, 1})}), false), 0);
  // A loop with no count splits the stretch around it, and a stretch of
  // one kernel is no graph.
  const std::vector<ExecutableStep> steps = {Kernel({0, 1}),
                                             Loop(-1, {Kernel({0, 1})}),
                                             Kernel({1, 0}), Kernel({0, 1})};
  const std::vector<GraphSegment> s =
      PlanGraphSegments(e, steps, true, 2, false);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_FALSE(s[0].graph);
  EXPECT_FALSE(s[1].graph);
  EXPECT_TRUE(s[2].graph);
  EXPECT_EQ(s[2].begin, 2u);
}

// cuBLASLt gemms are recorded (tuned before the capture), in loops too;
// cuDNN, cuFFT and cuSOLVER calls are not.
TEST(GraphSegmentsTest, GemmsAreRecorded) {
  const Executable e = Plan();
  EXPECT_EQ(GraphNodes(Library("cublas.gemm"), false), 2);
  EXPECT_EQ(GraphKernels(Library("cublas.gemm"), false), 1);
  for (const char* library : {"cudnn.conv", "cufft", "cusolver.potrf"}) {
    EXPECT_EQ(GraphNodes(Library(library), false), -1) << library;
  }
  EXPECT_EQ(
      GraphNodes(Loop(3, {Kernel({0, 1}), Library("cublas.gemm")}), false), 9);
  const std::vector<ExecutableStep> steps = {
      Kernel({0, 1}), Library("cublas.gemm"), Kernel({1, 0})};
  const std::vector<GraphSegment> s =
      PlanGraphSegments(e, steps, true, 2, false);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_TRUE(s[0].graph);
}

TEST(GraphSegmentsTest, IterationsPerGraph) {
  // 3 nodes an iteration: 682 iterations fit 2048 nodes.
  const std::vector<ExecutableStep> body = {Kernel({0, 1}), Kernel({1, 0}),
                                            Copy(1, 0)};
  EXPECT_EQ(LoopIterationsPerGraph(Loop(5000, body), false),
            kMaxUnrolledGraphNodes / 3);
  EXPECT_EQ(LoopIterationsPerGraph(Loop(7, body), false), 7);
  EXPECT_EQ(LoopIterationsPerGraph(Loop(0, body), false), 0);
  EXPECT_EQ(LoopIterationsPerGraph(Loop(-1, body), false), 0);
  EXPECT_EQ(LoopIterationsPerGraph(Loop(9, {Kernel({0, 1}), Fft()}), false), 0);
  // An iteration past the bound alone: one an iteration.
  EXPECT_EQ(LoopIterationsPerGraph(
                Loop(9, {Loop(kMaxUnrolledGraphNodes, body)}), false),
            0);
  EXPECT_EQ(LoopIterationsPerGraph(
                Loop(9, {Loop(kMaxUnrolledGraphNodes / 3, body)}), false),
            1);
  // What a loop's steps name, nested ones included.
  const Executable e = Plan();
  EXPECT_FALSE(TouchesEntryIo(e, Loop(3, body)));
  EXPECT_TRUE(TouchesEntryIo(e, Loop(3, {Kernel({0, 1}), Kernel({2, 0})})));
}

ExecutableStep Conditional(std::vector<std::vector<ExecutableStep>> branches) {
  ExecutableStep step;
  step.kind = Kind::kConditional;
  step.predicate_buffer = 1;
  step.branches = std::move(branches);
  return step;
}

TEST(GraphSegmentsTest, ConditionalNodes) {
  const Executable e = Plan();
  const std::vector<ExecutableStep> body = {Kernel({0, 1}), Copy(1, 0)};
  // A loop without a count: its condition (1 kernel) and a set kernel,
  // the node, and in the node's graph the body (2 nodes), the condition
  // and a set kernel.
  EXPECT_EQ(GraphNodes(Loop(-1, body), true), 1 + 1 + 1 + 2 + 1 + 1);
  EXPECT_EQ(GraphKernels(Loop(-1, body), true), 1 + 1 + 1 + 1 + 1);
  // A conditional: a set kernel, the node, every branch.
  EXPECT_EQ(GraphNodes(Conditional({body, {Copy(0, 1)}}), true), 2 + 2 + 1);
  EXPECT_EQ(GraphNodes(Conditional({body, {Copy(0, 1)}}), false), -1);
  // Nested in each other and in counted loops, every instantiated node
  // counts: 3 trips of a loop whose body is a 7-node loop.
  EXPECT_EQ(GraphNodes(Loop(3, {Loop(-1, body)}), true), 21);
  EXPECT_EQ(LoopIterationsPerGraph(Loop(5000, {Loop(-1, body)}), true),
            kMaxUnrolledGraphNodes / 7);
  EXPECT_EQ(GraphNodes(Loop(-1, {Conditional({body, {}})}), true), 3 + 4 + 2);
  // What cannot be recorded still cannot: a library call in a body or a
  // branch, a body past the bound.
  EXPECT_EQ(GraphNodes(Loop(-1, {Kernel({0, 1}), Fft()}), true), -1);
  EXPECT_EQ(GraphNodes(Conditional({body, {Fft()}}), true), -1);
  EXPECT_EQ(
      GraphNodes(Loop(-1, {Loop(kMaxUnrolledGraphNodes / 2, body)}), true), -1);
  // The stretch runs through the loop and the conditional; a predicate
  // that is a parameter touches the entry's memory.
  const std::vector<ExecutableStep> steps = {Kernel({0, 1}), Loop(-1, body),
                                             Conditional({body, {Copy(0, 1)}}),
                                             Fft(), Loop(-1, body)};
  const std::vector<GraphSegment> s =
      PlanGraphSegments(e, steps, true, 2, true);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].end, 3u);
  EXPECT_TRUE(s[0].graph);
  EXPECT_FALSE(s[0].touches_entry_io);
  EXPECT_FALSE(s[1].graph);  // the FFT
  EXPECT_TRUE(s[2].graph);   // a loop alone is a graph
  ExecutableStep on_parameter = Conditional({body, {}});
  on_parameter.predicate_buffer = 2;
  EXPECT_TRUE(TouchesEntryIo(e, on_parameter));
}

}  // namespace
}  // namespace hloc
