// Direct host loops for the convolutions of ConvTestShape
// (cuda_test_executables.h), to check what cuDNN computes.
#ifndef RUNTIME_TESTING_CONV_REFERENCE_H_
#define RUNTIME_TESTING_CONV_REFERENCE_H_

#include "hlo/literal.h"
#include "runtime/testing/cuda_test_executables.h"

namespace hloc {
namespace testing {

// The largest absolute difference between `result` and what `t`
// computes from `input` and `second` by direct loops, in double: the
// convolution out[n, y, x, k] (second the filter) or, for
// t.backward_filter, the filter gradient filter[k, r, s, c] = sum over
// n, y, x of input[n, iy, ix, channel] * out_gradient[n, y, x, k] (second
// the output's gradient), channel being c of k's group. Tensors are in
// t's order (channels last, or first with t.channels_first).
double ConvReferenceError(const ConvTestShape& t, const Literal& input,
                          const Literal& second, const Literal& result);

}  // namespace testing
}  // namespace hloc

#endif  // RUNTIME_TESTING_CONV_REFERENCE_H_
