// Internal to the evaluator: the Evaluator class that walks computations, and
// the per-family operation handlers it dispatches to (one .cc per family).
#ifndef HLO_EVALUATOR_EVALUATOR_INTERNAL_H_
#define HLO_EVALUATOR_EVALUATOR_INTERNAL_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "hlo/evaluator/evaluator.h"
#include "hlo/computation.h"
#include "hlo/evaluator/parallel.h"
#include "hlo/evaluator/program.h"
#include "hlo/instruction.h"
#include "hlo/literal.h"

namespace hloc {
namespace eval {

// The operand values of the instruction being evaluated.
class OperandValues {
 public:
  virtual ~OperandValues() = default;
  virtual const Literal& Get(int64_t i) const = 0;
  // True if operand i's value is needed by nothing after this instruction,
  // so that TakeOrCopy moves it instead of copying.
  virtual bool CanTake(int64_t i) const = 0;
  virtual Literal TakeOrCopy(int64_t i) = 0;
};

class Rendezvous;

// Which device of a replicated run an evaluator computes for.
struct DeviceContext {
  // replica * num_partitions + partition.
  int64_t device = 0;
  int64_t replica_count = 1;
  int64_t num_partitions = 1;
  // Shared by the run's device threads; nullptr for a run of one device.
  Rendezvous* rendezvous = nullptr;
  // How often each collective has run on this device, so that the k-th run
  // of a collective in a loop meets the k-th run on its peers.
  absl::flat_hash_map<const HloInstruction*, int64_t> executions;
};

class Evaluator {
 public:
  explicit Evaluator(EvaluateOptions options = {},
                     DeviceContext* device = nullptr)
      : options_(options), device_(device ? device : &single_device_) {}
  Evaluator(const Evaluator&) = delete;
  Evaluator& operator=(const Evaluator&) = delete;

  // Evaluates `computation` on borrowed arguments.
  absl::StatusOr<Literal> Evaluate(const HloComputation& computation,
                                   absl::Span<const Literal* const> args);
  // Evaluates `computation` on arguments it may consume.
  absl::StatusOr<Literal> EvaluateOwned(const HloComputation& computation,
                                        std::vector<Literal> args);

  // Evaluates `computation` on the given operands of the instruction being
  // evaluated, in that order: those nothing else reads any more are moved
  // in (a called computation may then update them in place, as a loop
  // body does its state), the others borrowed.
  absl::StatusOr<Literal> EvaluateTaking(
      const HloComputation& computation, OperandValues& operands,
      absl::Span<const int64_t> operand_indices);

  // The lane-wise form of a scalar computation (cached per computation).
  ScalarFn& ScalarFnFor(const HloComputation& computation);

 private:
  struct Plan {
    std::vector<const HloInstruction*> order;
    std::vector<std::vector<int>> operand_slots;
    std::vector<int> uses;
    // Broadcasts of a single value read only by elementwise instructions:
    // kept as that value (the elementwise kernels splat it).
    std::vector<bool> lazy;
    // get-tuple-elements that are the only readers of their tuple element
    // (every user of the tuple is a get-tuple-element of a distinct index):
    // they may move the element out of a tuple the frame owns.
    std::vector<bool> moves_element;
    int root = -1;
  };
  const Plan& PlanFor(const HloComputation& computation);
  EvaluateOptions options_;
  absl::StatusOr<Literal> Run(const HloComputation& computation,
                              std::vector<Literal>* owned_args,
                              absl::Span<const Literal* const> borrowed_args);
  absl::StatusOr<Literal> EvaluateInstruction(const HloInstruction& instr,
                                              OperandValues& operands);
  absl::StatusOr<Literal> EvaluateWhile(const HloInstruction& instr,
                                        OperandValues& operands);
  absl::StatusOr<Literal> EvaluateConditional(const HloInstruction& instr,
                                              OperandValues& operands);
  absl::StatusOr<Literal> EvaluateCalled(const HloInstruction& instr,
                                         OperandValues& operands);
  absl::StatusOr<Literal> EvaluateScan(const HloInstruction& instr,
                                       OperandValues& operands);
  // all-reduce, all-gather, reduce-scatter, all-to-all, collective-permute
  // (collective_ops.cc).
  absl::StatusOr<Literal> EvaluateCollective(const HloInstruction& instr,
                                             OperandValues& operands);

  DeviceContext single_device_;
  DeviceContext* device_;

  absl::flat_hash_map<const HloComputation*, std::unique_ptr<Plan>> plans_;
  absl::flat_hash_map<const HloComputation*, std::unique_ptr<ScalarFn>>
      scalar_fns_;
};

// An error naming the instruction: "<message> (<instruction name>)".
absl::Status InstructionError(const HloInstruction& instr,
                              absl::string_view message);
// "not supported by the evaluator: <opcode> (<instruction name>)".
absl::Status Unsupported(const HloInstruction& instr);

// An array literal of `shape` whose every element is `scalar`'s.
Literal BroadcastScalar(const Literal& scalar, const Shape& shape);

// True if every entry of `dims` is a dimension number below `rank`, with no
// repeats.
bool ValidDimensions(absl::Span<const int64_t> dims, int64_t rank);

// Reads element `i` of an integer (or pred) array literal as int64.
int64_t IndexValue(const Literal& literal, int64_t i);

// Elementwise operations (elementwise.cc).
absl::StatusOr<Literal> EvaluateElementwise(const HloInstruction& instr,
                                            OperandValues& operands);
absl::StatusOr<Literal> EvaluateMap(const HloInstruction& instr,
                                    OperandValues& operands,
                                    Evaluator& evaluator);

// Shape and data movement (shape_ops.cc).
absl::StatusOr<Literal> EvaluateBroadcast(const HloInstruction& instr,
                                          OperandValues& operands);
absl::StatusOr<Literal> EvaluateReshape(const HloInstruction& instr,
                                        OperandValues& operands);
absl::StatusOr<Literal> EvaluateBitcast(const HloInstruction& instr,
                                        OperandValues& operands);
absl::StatusOr<Literal> EvaluateBitcastConvert(const HloInstruction& instr,
                                               OperandValues& operands);
absl::StatusOr<Literal> EvaluateTranspose(const HloInstruction& instr,
                                          OperandValues& operands);
absl::StatusOr<Literal> EvaluateSlice(const HloInstruction& instr,
                                      OperandValues& operands);
absl::StatusOr<Literal> EvaluateDynamicSlice(const HloInstruction& instr,
                                             OperandValues& operands);
absl::StatusOr<Literal> EvaluateDynamicUpdateSlice(const HloInstruction& instr,
                                                   OperandValues& operands);
absl::StatusOr<Literal> EvaluateConcatenate(const HloInstruction& instr,
                                            OperandValues& operands);
absl::StatusOr<Literal> EvaluatePad(const HloInstruction& instr,
                                    OperandValues& operands);
absl::StatusOr<Literal> EvaluateReverse(const HloInstruction& instr,
                                        OperandValues& operands);
absl::StatusOr<Literal> EvaluateIota(const HloInstruction& instr);

// Gather and scatter (indexing.cc).
absl::StatusOr<Literal> EvaluateGather(const HloInstruction& instr,
                                       OperandValues& operands);
absl::StatusOr<Literal> EvaluateScatter(const HloInstruction& instr,
                                        OperandValues& operands,
                                        Evaluator& evaluator);

// Reductions (reduce_ops.cc).
absl::StatusOr<Literal> EvaluateReduce(const HloInstruction& instr,
                                       OperandValues& operands,
                                       Evaluator& evaluator);
absl::StatusOr<Literal> EvaluateReduceWindow(const HloInstruction& instr,
                                             OperandValues& operands,
                                             Evaluator& evaluator);
absl::StatusOr<Literal> EvaluateSelectAndScatter(const HloInstruction& instr,
                                                 OperandValues& operands,
                                                 Evaluator& evaluator);

// Sorting (sort.cc).
absl::StatusOr<Literal> EvaluateSort(const HloInstruction& instr,
                                     OperandValues& operands,
                                     Evaluator& evaluator);
absl::StatusOr<Literal> EvaluateTopK(const HloInstruction& instr,
                                     OperandValues& operands);

// Contractions (dot_conv.cc).
absl::StatusOr<Literal> EvaluateDot(const HloInstruction& instr,
                                    OperandValues& operands);
absl::StatusOr<Literal> EvaluateRaggedDot(const HloInstruction& instr,
                                          OperandValues& operands);
absl::StatusOr<Literal> EvaluateConvolution(const HloInstruction& instr,
                                            OperandValues& operands);

// Fourier transforms (fft.cc).
absl::StatusOr<Literal> EvaluateFft(const HloInstruction& instr,
                                    OperandValues& operands);

// Linear algebra (linalg.cc): cholesky, triangular-solve, and the LAPACK
// custom calls of hlo/lapack_custom_call.h (other custom-calls are
// unsupported, the error naming the target).
absl::StatusOr<Literal> EvaluateCholesky(const HloInstruction& instr,
                                         OperandValues& operands);
absl::StatusOr<Literal> EvaluateTriangularSolve(const HloInstruction& instr,
                                                OperandValues& operands);
absl::StatusOr<Literal> EvaluateCustomCall(const HloInstruction& instr,
                                           OperandValues& operands);

// jaxlib's CPU sparse-dense product, cpu_csr_sparse_dense_ffi (sparse.cc).
absl::StatusOr<Literal> EvaluateCsrSparseDense(const HloInstruction& instr,
                                               OperandValues& operands);

// rng_bit_generator.cc
absl::StatusOr<Literal> EvaluateRngBitGenerator(const HloInstruction& instr,
                                                OperandValues& operands);

}  // namespace eval
}  // namespace hloc

#endif  // HLO_EVALUATOR_EVALUATOR_INTERNAL_H_
