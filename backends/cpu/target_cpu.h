// The x86-64 CPU that host kernels are compiled for: by default this host's
// (the CPU name and features LLVM detects), or a named CPU ("x86-64-v2",
// "x86-64-v3", "znver4", ...) with that CPU's features, so that code can be
// built for a whole fleet of hosts, or checked against a baseline CPU on a
// newer one. Features may be added or removed on top ("-f16c,+avx2").
//
// HLOC_CPU (environment): when set and no CPU is named, kernels are
// compiled for that CPU instead of the host's, so a whole test suite can
// run again as if on a baseline CPU (HLOC_CPU=x86-64-v2).
//
// The resolved feature list names every ISA feature LLVM's host detection
// knows, each signed ("+avx2,-avx512f,..."), after LLVM's implications
// ("-avx2" also removes AVX-512). It is what a saved executable records and
// what its loader checks the host for (runtime/object_loader.h).
#ifndef BACKENDS_CPU_TARGET_CPU_H_
#define BACKENDS_CPU_TARGET_CPU_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace hloc {

struct TargetCpu {
  std::string name;      // "znver3"
  std::string features;  // "+adx,+aes,...,-avx512f,..." (sorted)
  // Whether `feature` ("avx512f") is on.
  bool Has(absl::string_view feature) const;
};

// This host's CPU and features as LLVM detects them (HLOC_CPU aside).
absl::StatusOr<TargetCpu> HostCpu();

// `cpu` empty: $HLOC_CPU if set, else the host's CPU. An unknown CPU or
// feature name, or a feature without its + or -, is InvalidArgument.
absl::StatusOr<TargetCpu> ResolveTargetCpu(absl::string_view cpu = "",
                                           absl::string_view features = "");

}  // namespace hloc

#endif  // BACKENDS_CPU_TARGET_CPU_H_
