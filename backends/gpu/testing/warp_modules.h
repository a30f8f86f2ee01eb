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

// Sorts of rows that the GPU pipelines radix-sort: the kernels rank
// digits with ballots of the warp's width, which a 64-wide logical NVIDIA
// warp (nvptx_wide_warp_test) does not have. wave_simt_test runs them.
const std::vector<std::pair<std::string, std::string>>& RadixSortModules();

}  // namespace hloc

#endif  // BACKENDS_GPU_TESTING_WARP_MODULES_H_
