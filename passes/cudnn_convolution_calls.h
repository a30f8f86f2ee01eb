// XLA:GPU's cuDNN forward convolutions back as HLO convolutions
// ("cudnn-convolution-calls", every pipeline).
//
// A module XLA:GPU has optimised (xla_gpu_opt.hlo, a dumped
// after_optimizations module) holds its convolutions as
//   (f32[...], u8[scratch]) custom-call(x, w),
//       custom_call_target="__cudnn$convForward", window=..., dim_labels=...
// with the convolution's own window, dimension numbers and groups; the u8
// array is cuDNN's workspace, whose contents nothing reads. This pass
// turns each such call back into the convolution it computes and a zero
// u8 array, so every backend compiles it its own way (the cuda pipeline
// hands it to cuDNN again through convolution-layout). Calls that fuse more
// (a bias, side input, activation or a result scale other than 1: the
// backend_config says so) and XLA's backward-data/filter calls are left to
// the custom-call check, which names them.
#ifndef PASSES_CUDNN_CONVOLUTION_CALLS_H_
#define PASSES_CUDNN_CONVOLUTION_CALLS_H_

#include "passes/pass.h"

namespace hloc {

class CudnnConvolutionCalls : public HloPass {
 public:
  absl::string_view name() const override {
    return "cudnn-convolution-calls";
  }
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace hloc

#endif  // PASSES_CUDNN_CONVOLUTION_CALLS_H_
