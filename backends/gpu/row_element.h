// Rows along one dimension of an array: the kernels that sort (the
// bitonic sort and top-k kernel, the radix sort's) number an array's rows
// along the sorted dimension row-major over the other dimensions.
#ifndef BACKENDS_GPU_ROW_ELEMENT_H_
#define BACKENDS_GPU_ROW_ELEMENT_H_

#include <cstdint>

#include "backends/common/ir_array.h"
#include "hlo/shape.h"

namespace llvm {
class IRBuilderBase;
class Value;
}  // namespace llvm

namespace hloc {

// The index of position `pos` of row `row` in an array of `shape` with
// rows along `dim`.
IrIndex RowElement(const Shape& shape, int64_t dim, llvm::Value* row,
                   llvm::Value* pos, llvm::IRBuilderBase* b);

}  // namespace hloc

#endif  // BACKENDS_GPU_ROW_ELEMENT_H_
