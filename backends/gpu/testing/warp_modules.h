// HLO modules whose GPU kernels depend on the warp (wavefront) size: warp
// reductions by butterfly shuffles (row reductions with a warp per row or
// a block per row, the row fusions' groups of more than one warp, column
// reductions' per-warp partials), variadic reductions (two values per
// shuffle), 64-bit values (two 32-bit shuffles), and the row scans'
// shuffles up and broadcasts. Shapes are odd on purpose (partial warps,
// partial chunks) and small, so that a simulation of every thread stays
// quick. Shared by the tests that run the emitters with 32- and 64-wide
// warps: on the CPU (wave_simt_test) and on AMD GPUs (tools/hlo_run_rocm_test).
#ifndef BACKENDS_GPU_TESTING_WARP_MODULES_H_
#define BACKENDS_GPU_TESTING_WARP_MODULES_H_

#include <string>
#include <utility>
#include <vector>

namespace hloc {

// (name, HLO text) pairs.
const std::vector<std::pair<std::string, std::string>>& WarpModules();

// Sorts of rows that the cuda pipeline radix-sorts: its kernels rank
// digits with 32-lane ballots, so only 32-lane warps run them (the rocm
// pipeline sorts these rows with the bitonic kernel, and a 64-wide
// logical NVIDIA warp has no such ballot). wave_simt_test runs them.
const std::vector<std::pair<std::string, std::string>>& RadixSortModules();

}  // namespace hloc

#endif  // BACKENDS_GPU_TESTING_WARP_MODULES_H_
