// How many times a while loop's body runs, when the loop itself says so.
//
// ComputeWhileTripCount recognises the counted loop every front end
// writes (JAX's scan and fori_loop, the linalg expanders' row loops):
//   init:      tuple(..., constant(a), ...)              element k
//   body root: tuple(..., add(gte(p, k), constant(s)), ...)
//   condition: compare(gte(p, k), N) direction LT, LE, GT, GE or NE
//              (either operand order), where N is a constant or an element
//              the body passes through unchanged from a constant init
// and counts its iterations exactly, in the counter's own integer type: a
// counter that would wrap before the condition fails makes the count
// unknown, as does anything else in the condition. A loop whose
// condition is false at its init runs zero times whatever its step.
//
// The count is carried as XLA writes it, in the while's backend_config:
//   {"known_trip_count":{"n":"10"}}
// passes/while_trip_count_annotator.h puts it there before fusion (which
// hides the counter inside fused computations), and a runtime that drives
// a loop from the host then runs the body that many times without running
// the condition or reading its predicate back: on a GPU the iterations are
// enqueued without waiting for each other (backends/common/
// control_flow_steps.cc).
#ifndef HLO_WHILE_TRIP_COUNT_H_
#define HLO_WHILE_TRIP_COUNT_H_

#include <cstdint>
#include <optional>
#include <string>

#include "hlo/instruction.h"

namespace hloc {

// The number of body runs of the while `loop`, or nullopt where the loop
// is not of the form above.
std::optional<int64_t> ComputeWhileTripCount(const HloInstruction& loop);

// The count in `loop`'s backend_config (known_trip_count.n), or nullopt
// where it has none or the config is not of that form.
std::optional<int64_t> KnownTripCount(const HloInstruction& loop);

// The backend_config that records `n` as the known trip count.
std::string KnownTripCountConfig(int64_t n);

}  // namespace hloc

#endif  // HLO_WHILE_TRIP_COUNT_H_
