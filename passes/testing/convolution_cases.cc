#include "passes/testing/convolution_cases.h"

#include "absl/strings/str_cat.h"
#include "hlo/computation.h"
#include "passes/test_util.h"

namespace hloc {

void PrintTo(const ConvolutionCase& c, std::ostream* os) { *os << c.name; }

std::string ConvolutionModule(const ConvolutionCase& c) {
  return absl::StrCat("HloModule ", c.name, "\n\nENTRY main {\n  x = f32[", c.x,
                      "] parameter(0)\n  w = f32[", c.w,
                      "] parameter(1)\n  xc = ", c.type, "[", c.x,
                      "] convert(x)\n  wc = ", c.type, "[", c.w,
                      "] convert(w)\n  ROOT conv = ", c.out,
                      " convolution(xc, wc), ", c.attrs, "\n}\n");
}

std::vector<Literal> ConvolutionInputs(const HloModule& module) {
  const HloComputation* entry = module.entry_computation();
  std::vector<Literal> inputs;
  inputs.push_back(
      MakeUniformInput(entry->parameter_instruction(0)->shape(), 1));
  inputs.push_back(
      MakeUniformInput(entry->parameter_instruction(1)->shape(), 2));
  return inputs;
}

}  // namespace hloc
