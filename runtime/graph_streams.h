// Which stream each step of a captured CUDA graph is issued on, so that
// steps that do not depend on each other become parallel branches of the
// graph instead of one chain.
//
// A graph captured from one stream is a chain: every kernel waits for the
// one before it, even where two chains of work share no buffer (the
// orthogonalisations of a matrix and of its transpose, the gradients of two
// weights, an optimizer's update beside the next layer's forward). Small
// kernels of one or a few blocks leave most of the GPU idle, so a program
// made of them takes the sum of its kernels' times. Captured on several
// streams that wait for each other's events only where the steps' buffers
// say they must, the graph's independent chains run side by side, as
// XLA's concurrent command buffers and PyTorch's multi-stream capture do.
//
// The ordering rule is the one every dependence analysis uses, on the
// bytes of the buffer plan: a step waits for the last step that wrote
// memory it reads or writes (read after write, write after write) and for
// the steps since that read memory it writes (write after read). Memory is
// compared as slots (ExecutableBuffer: allocation, offset, size), so two
// values that share bytes through buffer reuse or in-place updates are
// ordered like one. A step is placed on the stream of the latest step it
// waits for when that is the stream's last step (continuing that chain),
// or else on the stream least recently used (a new branch); it waits for
// the exact steps of other streams it needs, not for their streams' ends,
// so a chain that starts from an early step of another does not wait for
// that one's whole chain. Every step carries a vector clock (how many of
// each stream's steps are ordered before it), so a dependence already
// implied by an earlier wait adds no edge. Steps the analysis cannot see
// into (loops and conditionals as conditional nodes, whose bodies have
// their own memory) are barriers: they wait for everything before them and
// everything after waits for them.
#ifndef RUNTIME_GRAPH_STREAMS_H_
#define RUNTIME_GRAPH_STREAMS_H_

#include <cstdint>
#include <vector>

#include "runtime/executable.h"

namespace hloc {

// What a step reads and writes, as slots of the executable's plan.
struct StepAccess {
  std::vector<int64_t> reads, writes;
  // cuBLASLt's gemms share one workspace (cublas_gemm.h), so they must not
  // overlap each other.
  bool gemm_workspace = false;
  // Orders against every step before and after it.
  bool barrier = false;
};

// `step`'s access (a kernel with unknown outputs writes all its buffers;
// loops, conditionals and calls other than gemms are barriers).
StepAccess AccessOf(const ExecutableStep& step);

class GraphStreams {
 public:
  // `streams`: how many streams a graph may use (1: one chain, as a
  // single-stream capture).
  GraphStreams(const Executable& executable, int streams);

  // A step of the current graph: the `index`-th (from 1) on `stream`.
  struct Position {
    int stream = 0;
    int64_t index = 0;  // 0: none
  };
  struct Placement {
    int stream = 0;
    // Steps of other streams this one must wait for (an event recorded
    // after each, waited for on `stream`).
    std::vector<Position> waits;
  };

  // Starts a new graph: nothing issued yet.
  void Reset();
  // Where the next step, accessing `access`, is issued, and what it waits
  // for; the step is then taken as issued there.
  Placement Place(const StepAccess& access);
  // Whether stream `s` holds a step of the current graph (the origin, 0,
  // always takes part; the others must be joined back into it).
  bool Used(int s) const { return count_[s] > 0; }
  // Whether a stream besides the origin holds a step: the graph has
  // parallel branches rather than being one chain.
  bool Branched() const;
  int streams() const { return static_cast<int>(count_.size()); }

 private:
  // Per slot: the last writer, and per stream the latest reader since.
  struct SlotState {
    Position writer;
    std::vector<int64_t> readers;
  };
  void Need(const Position& p, std::vector<int64_t>* need) const;

  // Per slot, the slots whose bytes overlap it (itself included); the last
  // slot is the gemm workspace, which overlaps only itself.
  std::vector<std::vector<int64_t>> overlaps_;
  std::vector<SlotState> state_;
  // Steps issued per stream in the current graph, and when each stream
  // last took one (the step count at the time).
  std::vector<int64_t> count_, last_used_;
  // Per stream, per step: its vector clock (for each stream t, how many of
  // t's steps are ordered before it or are it), and when it was issued.
  std::vector<std::vector<std::vector<int64_t>>> clocks_;
  std::vector<std::vector<int64_t>> issued_at_;
  Position barrier_;
  int64_t issued_ = 0;
};

}  // namespace hloc

#endif  // RUNTIME_GRAPH_STREAMS_H_
