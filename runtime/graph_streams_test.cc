// Streams for a graph's steps (graph_streams.h), planned without a GPU:
// independent chains become branches, every read-after-write,
// write-after-write and write-after-read pair of steps (bytes shared
// through buffer reuse included) stays ordered, gemms never overlap,
// barriers order everything, and no wait is added that an earlier one
// implies. A randomized check replays the placements as a GPU would order
// them and tests every conflicting pair.
#include "runtime/graph_streams.h"

#include <random>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace hloc {
namespace {

using Kind = ExecutableStep::Kind;
using Placement = GraphStreams::Placement;

// The streams a placement waits for, in order.
std::vector<int> Streams(const Placement& p) {
  std::vector<int> streams;
  for (const GraphStreams::Position& w : p.waits) streams.push_back(w.stream);
  return streams;
}

// `sizes` slots laid end to end in one arena, plus `shared` extra slots
// reusing the bytes of the first ones (offset and size given).
Executable Plan(int slots,
                std::vector<std::pair<int64_t, int64_t>> shared = {}) {
  Executable e;
  e.platform = "cuda";
  e.allocations = {{BufferAllocation::Kind::kArena, 64 * slots}};
  for (int i = 0; i < slots; ++i) e.buffers.push_back({0, 64 * i, 64});
  for (const auto& [offset, size] : shared) {
    e.buffers.push_back({0, offset, size});
  }
  return e;
}

StepAccess Step(std::vector<int64_t> reads, std::vector<int64_t> writes) {
  StepAccess a;
  a.reads = std::move(reads);
  a.writes = std::move(writes);
  return a;
}

TEST(GraphStreamsTest, IndependentChainsAreBranchesJoinedWhereTheyMeet) {
  const Executable e = Plan(7);
  GraphStreams g(e, 4);
  // a0 -> a1 -> a2 and b0 -> b1 -> b2, interleaved, then c from a2 and b2.
  Placement p = g.Place(Step({0}, {1}));
  EXPECT_EQ(p.stream, 0);
  EXPECT_TRUE(p.waits.empty());
  p = g.Place(Step({3}, {4}));
  EXPECT_EQ(p.stream, 1);
  EXPECT_TRUE(p.waits.empty());
  p = g.Place(Step({1}, {2}));
  EXPECT_EQ(p.stream, 0);
  EXPECT_TRUE(p.waits.empty());
  p = g.Place(Step({4}, {5}));
  EXPECT_EQ(p.stream, 1);
  EXPECT_TRUE(p.waits.empty());
  p = g.Place(Step({2, 5}, {6}));
  EXPECT_EQ(p.stream, 1);  // the latest chain it needs
  EXPECT_EQ(Streams(p), std::vector<int>{0});
  EXPECT_TRUE(g.Used(0));
  EXPECT_TRUE(g.Used(1));
  EXPECT_FALSE(g.Used(2));
  EXPECT_TRUE(g.Branched());
}

TEST(GraphStreamsTest, ABranchFromAnEarlyStepWaitsForThatStepOnly) {
  const Executable e = Plan(5);
  GraphStreams g(e, 4);
  EXPECT_EQ(g.Place(Step({0}, {1})).stream, 0);  // a
  EXPECT_EQ(g.Place(Step({1}, {2})).stream, 0);  // after a
  EXPECT_EQ(g.Place(Step({2}, {3})).stream, 0);
  // Needs a only: a branch that waits for a, not for stream 0's end.
  const Placement p = g.Place(Step({1}, {4}));
  EXPECT_EQ(p.stream, 1);
  ASSERT_EQ(p.waits.size(), 1u);
  EXPECT_EQ(p.waits[0].stream, 0);
  EXPECT_EQ(p.waits[0].index, 1);
}

TEST(GraphStreamsTest, OneStreamIsOneChain) {
  const Executable e = Plan(4);
  GraphStreams g(e, 1);
  for (int i = 0; i < 3; ++i) {
    const Placement p = g.Place(Step({i}, {i + 1}));
    EXPECT_EQ(p.stream, 0);
    EXPECT_TRUE(p.waits.empty());
  }
}

TEST(GraphStreamsTest, WriteAfterReadOfSharedBytesWaits) {
  // Slot 5 reuses the bytes of slots 0 and 1 (the arena's first 128).
  const Executable e = Plan(5, {{32, 64}});
  GraphStreams g(e, 4);
  EXPECT_EQ(g.Place(Step({0}, {2})).stream, 0);  // reads slot 0
  EXPECT_EQ(g.Place(Step({}, {3})).stream, 1);
  // Continues stream 1's chain, and writes bytes stream 0's step reads.
  const Placement p = g.Place(Step({3}, {5}));
  EXPECT_EQ(p.stream, 1);
  EXPECT_EQ(Streams(p), std::vector<int>{0});
}

TEST(GraphStreamsTest, WriteAfterWriteWaits) {
  const Executable e = Plan(4);
  GraphStreams g(e, 4);
  EXPECT_EQ(g.Place(Step({0}, {2})).stream, 0);
  EXPECT_EQ(g.Place(Step({1}, {3})).stream, 1);
  // Writes slot 2 again, reading only slot 3: after both.
  const Placement p = g.Place(Step({3}, {2}));
  EXPECT_EQ(p.stream, 1);
  EXPECT_EQ(Streams(p), std::vector<int>{0});
}

TEST(GraphStreamsTest, ReadersShareTheirInputWithoutWaiting) {
  const Executable e = Plan(4);
  GraphStreams g(e, 4);
  EXPECT_EQ(g.Place(Step({0}, {1})).stream, 0);
  const Placement p = g.Place(Step({0}, {2}));
  EXPECT_EQ(p.stream, 1);
  EXPECT_TRUE(p.waits.empty());
  const Placement q = g.Place(Step({0}, {3}));
  EXPECT_EQ(q.stream, 2);
  EXPECT_TRUE(q.waits.empty());
}

TEST(GraphStreamsTest, GemmsNeverOverlapEachOther) {
  const Executable e = Plan(7);
  GraphStreams g(e, 4);
  StepAccess first = Step({0, 1}, {2});
  first.gemm_workspace = true;
  StepAccess second = Step({3, 4}, {5});
  second.gemm_workspace = true;
  EXPECT_EQ(g.Place(first).stream, 0);
  // Shares no slot with the first, but its workspace: the same chain.
  const Placement p = g.Place(second);
  EXPECT_EQ(p.stream, 0);
  EXPECT_TRUE(p.waits.empty());
  // A kernel beside them is free to branch.
  const Placement q = g.Place(Step({0}, {6}));
  EXPECT_EQ(q.stream, 1);
  EXPECT_TRUE(q.waits.empty());
}

TEST(GraphStreamsTest, BarriersOrderEverything) {
  const Executable e = Plan(8);
  GraphStreams g(e, 4);
  EXPECT_EQ(g.Place(Step({0}, {1})).stream, 0);
  EXPECT_EQ(g.Place(Step({2}, {3})).stream, 1);
  StepAccess barrier = Step({}, {4});
  barrier.barrier = true;
  const Placement b = g.Place(barrier);
  EXPECT_EQ(b.stream, 1);
  EXPECT_EQ(Streams(b), std::vector<int>{0});
  // Shares nothing with the barrier, but comes after it.
  const Placement p = g.Place(Step({5}, {6}));
  EXPECT_EQ(p.stream, 1);
  EXPECT_TRUE(p.waits.empty());
}

TEST(GraphStreamsTest, WaitsAnEarlierWaitImpliesAreLeftOut) {
  const Executable e = Plan(8);
  GraphStreams g(e, 4);
  EXPECT_EQ(g.Place(Step({0}, {1})).stream, 0);  // a
  EXPECT_EQ(g.Place(Step({}, {2})).stream, 1);   // b
  Placement p = g.Place(Step({1, 2}, {3}));      // c, after a and b
  EXPECT_EQ(p.stream, 1);
  EXPECT_EQ(Streams(p), std::vector<int>{0});
  EXPECT_EQ(g.Place(Step({}, {5})).stream, 2);  // d
  // After d, c and a: waiting for c (stream 1) orders it after a too.
  p = g.Place(Step({5, 3, 1}, {6}));
  EXPECT_EQ(p.stream, 2);
  EXPECT_EQ(Streams(p), std::vector<int>{1});
  // A chain's own earlier steps need no wait either.
  p = g.Place(Step({5, 6}, {7}));
  EXPECT_EQ(p.stream, 2);
  EXPECT_TRUE(p.waits.empty());
}

TEST(GraphStreamsTest, ResetStartsAFreshGraph) {
  const Executable e = Plan(4);
  GraphStreams g(e, 4);
  g.Place(Step({0}, {1}));
  g.Place(Step({2}, {3}));
  g.Reset();
  EXPECT_FALSE(g.Used(1));
  EXPECT_FALSE(g.Branched());
  const Placement p = g.Place(Step({1}, {2}));
  EXPECT_EQ(p.stream, 0);
  EXPECT_TRUE(p.waits.empty());
  EXPECT_FALSE(g.Branched());  // one chain so far
}

TEST(GraphStreamsTest, AccessOfEachKind) {
  ExecutableStep kernel;
  kernel.kind = Kind::kKernel;
  kernel.buffers = {4, 5, 6};
  kernel.output_buffers = 1;
  StepAccess a = AccessOf(kernel);
  EXPECT_EQ(a.reads, (std::vector<int64_t>{4, 5}));
  EXPECT_EQ(a.writes, std::vector<int64_t>{6});
  EXPECT_FALSE(a.barrier);
  // An executable saved before output_buffers: every buffer may be written.
  kernel.output_buffers = -1;
  a = AccessOf(kernel);
  EXPECT_TRUE(a.reads.empty());
  EXPECT_EQ(a.writes, (std::vector<int64_t>{4, 5, 6}));

  ExecutableStep copy;
  copy.kind = Kind::kCopy;
  copy.buffers = {1, 2};
  a = AccessOf(copy);
  EXPECT_EQ(a.reads, std::vector<int64_t>{1});
  EXPECT_EQ(a.writes, std::vector<int64_t>{2});

  ExecutableStep gemm;
  gemm.kind = Kind::kLibraryCall;
  gemm.library = "cublas.gemm";
  gemm.buffers = {1, 2, 3, 7};
  a = AccessOf(gemm);
  EXPECT_EQ(a.reads, (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(a.writes, std::vector<int64_t>{7});
  EXPECT_TRUE(a.gemm_workspace);

  ExecutableStep loop;
  loop.kind = Kind::kWhile;
  loop.buffers = {1};
  EXPECT_TRUE(AccessOf(loop).barrier);
  ExecutableStep solver;
  solver.kind = Kind::kLibraryCall;
  solver.library = "cusolver.potrf";
  solver.buffers = {1, 2};
  EXPECT_TRUE(AccessOf(solver).barrier);
}

// Random steps on slots that share bytes in random ways, placed on 1 to 5
// streams; the order a GPU keeps (each stream in order, a wait ordering a
// stream after another's latest step) is replayed with vector clocks of
// its own, and every pair of steps that touch common bytes, one of them
// writing (or both using the gemm workspace, or one a barrier), must be
// ordered.
TEST(GraphStreamsTest, RandomStepsKeepEveryConflictOrdered) {
  std::mt19937 random(12345);
  for (int trial = 0; trial < 200; ++trial) {
    const int streams = 1 + trial % 5;
    Executable e;
    e.platform = "cuda";
    e.allocations = {{BufferAllocation::Kind::kArena, 1024},
                     {BufferAllocation::Kind::kArena, 1024}};
    const int slots = 4 + static_cast<int>(random() % 12);
    for (int i = 0; i < slots; ++i) {
      const int64_t offset = static_cast<int64_t>(random() % 16) * 32;
      const int64_t size = static_cast<int64_t>(random() % 8) * 32;
      e.buffers.push_back({static_cast<int64_t>(random() % 2), offset, size});
    }
    auto overlap = [&](int64_t x, int64_t y) {
      if (x == y) return true;
      const ExecutableBuffer& a = e.buffers[x];
      const ExecutableBuffer& b = e.buffers[y];
      return a.allocation == b.allocation && a.size > 0 && b.size > 0 &&
             a.offset < b.offset + b.size && b.offset < a.offset + a.size;
    };
    GraphStreams g(e, streams);
    std::vector<StepAccess> steps;
    std::vector<std::pair<int, int64_t>> position;  // stream, 1-based index
    // Per stream, per step: how many of each stream's steps precede it.
    std::vector<std::vector<std::vector<int64_t>>> clocks(streams);
    std::vector<std::vector<int64_t>> step_clock;
    for (int i = 0; i < 40; ++i) {
      StepAccess a;
      const int reads = static_cast<int>(random() % 3);
      for (int r = 0; r < reads; ++r) a.reads.push_back(random() % slots);
      const int writes = static_cast<int>(random() % 3);
      for (int w = 0; w < writes; ++w) a.writes.push_back(random() % slots);
      a.gemm_workspace = random() % 8 == 0;
      a.barrier = random() % 16 == 0;
      const Placement p = g.Place(a);
      ASSERT_GE(p.stream, 0);
      ASSERT_LT(p.stream, streams);
      std::vector<int64_t> c = clocks[p.stream].empty()
                                   ? std::vector<int64_t>(streams, 0)
                                   : clocks[p.stream].back();
      for (const GraphStreams::Position& w : p.waits) {
        ASSERT_NE(w.stream, p.stream);
        ASSERT_GE(w.index, 1);
        ASSERT_LE(w.index, static_cast<int64_t>(clocks[w.stream].size()));
        const std::vector<int64_t>& other = clocks[w.stream][w.index - 1];
        for (int u = 0; u < streams; ++u) c[u] = std::max(c[u], other[u]);
      }
      c[p.stream] = static_cast<int64_t>(clocks[p.stream].size()) + 1;
      clocks[p.stream].push_back(c);
      position.push_back({p.stream, c[p.stream]});
      step_clock.push_back(c);
      steps.push_back(a);
    }
    for (size_t j = 0; j < steps.size(); ++j) {
      for (size_t i = 0; i < j; ++i) {
        const StepAccess& x = steps[i];
        const StepAccess& y = steps[j];
        bool conflict =
            x.barrier || y.barrier || (x.gemm_workspace && y.gemm_workspace);
        auto touches = [&](const std::vector<int64_t>& p,
                           const std::vector<int64_t>& q) {
          for (int64_t s : p) {
            for (int64_t t : q) {
              if (overlap(s, t)) return true;
            }
          }
          return false;
        };
        conflict = conflict || touches(x.writes, y.reads) ||
                   touches(x.writes, y.writes) || touches(x.reads, y.writes);
        if (!conflict) continue;
        const auto [stream, index] = position[i];
        EXPECT_GE(step_clock[j][stream], index)
            << "trial " << trial << ": step " << j << " is not ordered after "
            << "step " << i;
      }
    }
  }
}

}  // namespace
}  // namespace hloc
