// A GPU simulated on this CPU, to run the shared GPU kernel emitters with
// any warp size where no such GPU is: the kernels are compiled for the
// host (a GpuTarget whose thread ids, barrier and warp shuffles call into
// the simulator), and every GPU thread of a block runs as an OS thread.
// A block barrier waits for every live thread of the block; a shuffle
// waits for every thread of its warp, as the hardware's lockstep warp
// would, and reads the source lane's value. Blocks run one after another,
// so the kernels' shared-memory arrays (ordinary globals here) belong to
// the running block.
//
// With the device facts of gfx942 (wavefront 64) or gfx1100 (32), the
// kernels are exactly those AMD GPUs get from the emitters, except that
// each shuffle is a simulator call instead of a ds_bpermute: the emitters'
// warp-size-dependent algorithms (butterfly reductions, shuffles up and
// broadcasts, per-warp partials in shared memory) run and are checked.
// With gfx90a's or gfx942's facts, dots take the MFMA path of the tiled
// dot kernel and each MFMA instruction is executed by the model of
// testing/matrix_model.h (AMD's documented lane layout), every lane of the
// wave taking part as on the hardware. With sm_80's or sm_90's facts the
// tiled dot kernel's asynchronous copies (cp.async) and matrix loads
// (ldmatrix) run too: a copy lands only at the wait that retires its
// group (the latest the hardware may), a matrix load is a warp collective
// with the documented lane layout.
// Slow (a thread per GPU thread): for small test shapes only.
#ifndef BACKENDS_GPU_TESTING_HOST_SIMT_H_
#define BACKENDS_GPU_TESTING_HOST_SIMT_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "backends/gpu/device_info.h"
#include "backends/gpu/gpu_target.h"
#include "hlo/literal.h"
#include "hlo/module.h"
#include "runtime/executable.h"

namespace hloc {

// The target: the host's triple, device facts `device` (warp size, block
// and shared memory limits), platform "host-simt", code format "object"
// (an x86 relocatable object).
absl::StatusOr<std::unique_ptr<GpuTarget>> CreateHostSimtTarget(
    const GpuDeviceInfo& device);

// `module`, already through `platform`'s pipeline, compiled by the GPU
// compiler for such a target with `device`'s facts, as it would be for
// `platform` ("cuda" or "rocm") and `arch`.
absl::StatusOr<Executable> CompileForHostSimt(const HloModule& module,
                                              const std::string& platform,
                                              const std::string& arch,
                                              const GpuDeviceInfo& device);

// Runs an executable compiled for such a target (GpuCompileOptions::target)
// on `arguments`; the warp size is the one it was compiled with.
absl::StatusOr<Literal> RunOnHostSimt(const Executable& executable,
                                      const GpuDeviceInfo& device,
                                      absl::Span<const Literal> arguments);

}  // namespace hloc

#endif  // BACKENDS_GPU_TESTING_HOST_SIMT_H_
