// Buffer assignment: where every value of a sequentially executed
// computation lives, with memory reused between values whose lifetimes do
// not overlap.
//
// Values. Every array leaf an instruction defines is one value (a
// multi-output fusion or a tuple-shaped fallback defines one per leaf, in
// depth-first order of its shape). Instructions that only rename buffers
// (IsBufferAlias: tuple, get-tuple-element, opt-barrier, add-dependency and
// same-size bitcast) define no value: their leaves are their operands'.
//
// Liveness, over the given order (position i = the i-th instruction): a
// value is live from the position of its defining instruction to the last
// position of an instruction that reads it, through any chain of aliases,
// both ends included, so an instruction's outputs never share memory with
// its own operands. Leaves of the root are live to the end.
//
// Allocations. Entry parameters are caller-provided, one allocation per
// parameter leaf; constants get one read-only allocation each; the values
// the computation returns get one allocation each, which nothing else
// overwrites. Every other value (the intermediates) gets an offset in one
// arena (allocation 0). Offsets and sizes in the arena are multiples of the
// alignment (64 bytes).
//
// Packing (greedy by size, best fit, as TFLite's arena planner and XLA's
// heap simulator do): values, largest first, each take the smallest gap
// between the already placed values whose live ranges overlap theirs, or
// go on top. A second pass in order of definition (first fit) also runs,
// and the smaller arena wins. The live peak (the most bytes live at any
// one position) is a lower bound on any packing; ToString prints it.
//
// Reuse in dataflow order (reuse_in_dataflow_order, for GPUs, whose runtime
// runs steps that share no memory side by side: runtime/graph_streams.h):
// sharing bytes orders the later value's writer after every reader of the
// earlier one, which is no order at all when those readers are the later
// writer's dataflow ancestors anyway, but chains two independent branches
// of the computation where they are not (the order lists one branch after
// the other, and the second reuses the first's dead buffers). With the
// option two values also conflict where any reader (or, unread, the
// writer) of the earlier one is not an ancestor of the later one's writer;
// that packing is kept where its arena is at most kDataflowReuseSlackBytes
// or kDataflowReuseSlackRatio larger (small programs, where the branches'
// kernels are small enough to run side by side), else the sequential one.
//
// In place: a dynamic-update-slice (unfused, or the root of a fusion whose
// operand is a fused parameter read only by that dynamic-update-slice)
// writes into its operand's buffer when that operand is an intermediate
// read for the last time there. The kernels read the operand only at the
// output element's own index, so this is safe; the pair shares one arena
// range and is marked (in_place_of). With in_place_scatter, so does a
// scatter of one operand (likewise unfused or a fusion's root): its
// kernels then apply the updates to the operand's buffer instead of
// copying it first. So does a while's state leaf with its
// init leaf, where the init value is an intermediate that the while reads
// last (the first such leaf where it is several): the state starts where
// the init was made, no copy.
//
// Loop state in place (loop_state_in_place, for a while body: one
// parameter, the loop state, whose leaf j the runtime refills from root
// leaf j after every iteration): root leaf j is written straight into
// parameter leaf j's buffer where nothing reads the old state leaf after
// it is defined (or only the dynamic-update-slice that defines it, in
// place as above, or an elementwise op or loop fusion that reads it only
// at the index it writes), so the iteration needs no copy back. A root leaf
// that is a parameter or constant, a state leaf the root also returns elsewhere
// (a swap), and a later read of the old leaf keep the copy.
#ifndef RUNTIME_BUFFER_ASSIGNMENT_H_
#define RUNTIME_BUFFER_ASSIGNMENT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "hlo/computation.h"
#include "hlo/instruction.h"
#include "hlo/shape.h"

namespace hloc {

// True for instructions that need no code and no memory of their own: their
// result is (part of) their operands' buffers.
bool IsBufferAlias(const HloInstruction& instruction);

// The operand a dynamic-update-slice (or a fusion rooted at one whose
// updated array is a fused parameter read by nothing else) may overwrite in
// place, or -1; with `scatter`, a scatter's of one operand too. A kernel
// whose output is in that operand's buffer need only store the update
// (backends/common/in_place_update.h).
int64_t InPlaceOperand(const HloInstruction& instr, bool scatter);

struct BufferAssignmentOptions {
  int64_t alignment = 64;
  // Let dynamic-update-slice overwrite its operand (see above).
  bool in_place_dynamic_update_slice = true;
  // Let a scatter of one operand overwrite it (see above): only where the
  // scatter's kernels expect it (the GPU's, scatter_emitter.cc); the CPU's
  // scatter loop copies its operand through noalias pointers.
  bool in_place_scatter = false;
  // Let a while's state leaf take over its init leaf's buffer (see above).
  bool in_place_while_state = true;
  // The computation is a while body: root leaves may take over their
  // state leaves (see above).
  bool loop_state_in_place = false;
  // Share bytes only along the dataflow (see above).
  bool reuse_in_dataflow_order = false;
};

// How much larger than the sequential packing's an arena packed in dataflow
// order may be (the larger of the two): 16 MiB is nothing beside a GPU's
// memory and holds the intermediates of programs of small kernels, the
// ones that gain from running branches side by side; a quarter more
// bounds what a large program pays for kernels that fill the GPU alone.
inline constexpr int64_t kDataflowReuseSlackBytes = int64_t{16} << 20;
inline constexpr double kDataflowReuseSlackRatio = 0.25;
// Past this many instructions the ancestor sets (a bit per pair) are not
// built and the packing is sequential.
inline constexpr int64_t kMaxDataflowReuseInstructions = 8192;

struct BufferAllocation {
  enum class Kind { kArena, kParameter, kConstant, kOutput };
  Kind kind = Kind::kArena;
  int64_t size = 0;
  // kParameter: the entry parameter and its leaf (depth-first).
  int64_t parameter_number = -1;
  int64_t parameter_leaf = -1;
};

// "arena", "parameter", "constant", "output".
absl::string_view AllocationKindName(BufferAllocation::Kind kind);

struct BufferValue {
  const HloInstruction* instruction = nullptr;
  // Which leaf of the instruction's shape: its tuple index path and its
  // depth-first number.
  std::vector<int64_t> index;
  int64_t leaf = 0;
  Shape shape;
  // Dense bytes of the leaf (0 for tokens and empty arrays).
  int64_t size = 0;
  // Live range, positions in the order, both ends included. Values the
  // computation returns have last_use == the order's length.
  int64_t defined_at = 0;
  int64_t last_use = 0;
  bool live_out = false;
  int64_t allocation = -1;
  int64_t offset = 0;
  // The value whose buffer this one overwrites in place, or -1.
  int64_t in_place_of = -1;
  // A root leaf in its loop state leaf's parameter allocation
  // (loop_state_in_place): that parameter value, or -1.
  int64_t state_of = -1;

  // "add.3", or "fusion.2{1}" for a leaf of a tuple.
  std::string Name() const;
};

struct BufferAssignment {
  int64_t alignment = 64;
  // The order the positions refer to.
  std::vector<const HloInstruction*> order;
  std::vector<BufferValue> values;
  // Allocation 0 is the arena; its size is the peak.
  std::vector<BufferAllocation> allocations;
  // The values of every instruction's array leaves, depth-first (aliases
  // resolved to the values they name).
  absl::flat_hash_map<const HloInstruction*, std::vector<int64_t>> leaf_values;

  // Empty if the instruction is unknown.
  const std::vector<int64_t>& LeafValues(const HloInstruction* instr) const;
  // The arena's size: the peak memory of the intermediates.
  int64_t arena_bytes() const { return allocations.at(0).size; }
  // What the intermediates would take without reuse (sizes rounded up to
  // the alignment).
  int64_t total_intermediate_bytes() const;
  // The most bytes of intermediates live at one position: no packing of
  // this order can have a smaller arena.
  int64_t live_peak_bytes() const;
  // Bytes of parameters, constants and outputs.
  int64_t AllocationBytes(BufferAllocation::Kind kind) const;

  // The plan: allocations, then per value its size, live range and
  // offset, then "total of all intermediates: N bytes, arena (peak): M
  // bytes".
  std::string ToString() const;
};

// Whether `instr`'s output is in the buffer of the operand it may update
// in place (InPlaceOperand, scatters aside), as `assignment` placed it: a
// kernel for it then need store only the update.
bool UpdatesOperandInPlace(const HloInstruction& instr,
                           const BufferAssignment& assignment);

// Assigns buffers for `computation` run in `order`, which must list each of
// its instructions once, operands first.
absl::StatusOr<BufferAssignment> AssignBuffers(
    const HloComputation& computation, absl::Span<HloInstruction* const> order,
    const BufferAssignmentOptions& options = {});

// A while body's order (its post order to begin with) in which each new
// state leaf is made after the last read of the old one, where none of
// its readers needs it earlier, so that loop_state_in_place can write it
// into the state leaf's buffer: post order makes a scan's new counter
// first, before the updates that index with the old one, which would cost
// a copy back every iteration.
// `options` as the body's assignment will have them (loop_state_in_place
// is implied).
absl::StatusOr<std::vector<HloInstruction*>> LoopBodyOrder(
    const HloComputation& body, const BufferAssignmentOptions& options = {});

// The interference checker: recomputes the leaves and live ranges from the
// instructions and checks, for every pair of values, that values whose
// bytes overlap in one allocation are never live at the same position
// (except a marked in-place pair, which meets at exactly one position);
// that parameters, constants and outputs sit alone in allocations of their
// kind (except a root leaf j in parameter 0's leaf j, after the last read
// of that parameter: a loop state taken over); and that every value fits its
// allocation, aligned. The first violation comes back as an Internal error
// naming both values.
absl::Status VerifyBufferAssignment(const BufferAssignment& assignment);

}  // namespace hloc

#endif  // RUNTIME_BUFFER_ASSIGNMENT_H_
