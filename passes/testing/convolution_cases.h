// One convolution as a test case, for the passes that rewrite convolutions
// (convolution-layout, convolution-to-gemm): the module, its name in gtest's
// output, and the random inputs that compare the evaluator's results
// before and after a pass.
#ifndef PASSES_TESTING_CONVOLUTION_CASES_H_
#define PASSES_TESTING_CONVOLUTION_CASES_H_

#include <ostream>
#include <string>
#include <vector>

#include "hlo/literal.h"
#include "hlo/module.h"

namespace hloc {

struct ConvolutionCase {
  std::string name;
  std::string x;      // the input's dimensions, "2,6,6,4"
  std::string w;      // the kernel's dimensions
  std::string type;   // the operands' type: f32, bf16, f16 or f64
  std::string out;    // the result's type and shape, "f32[2,6,6,5]"
  std::string attrs;  // window, dim_labels, feature_group_count
};

// gtest names a failing case by this, not by the struct's bytes.
void PrintTo(const ConvolutionCase& c, std::ostream* os);

// The module: f32 parameters x and w (random inputs are generated as f32)
// converted to the case's type, and the convolution as its root.
std::string ConvolutionModule(const ConvolutionCase& c);

// Uniform inputs in [-1, 1) for the module's two parameters.
std::vector<Literal> ConvolutionInputs(const HloModule& module);

}  // namespace hloc

#endif  // PASSES_TESTING_CONVOLUTION_CASES_H_
