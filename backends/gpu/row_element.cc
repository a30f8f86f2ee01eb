#include "backends/gpu/row_element.h"

#include <utility>
#include <vector>

#include "llvm/IR/IRBuilder.h"

namespace hloc {

IrIndex RowElement(const Shape& shape, int64_t dim, llvm::Value* row,
                   llvm::Value* pos, llvm::IRBuilderBase* b) {
  std::vector<int64_t> dims = shape.dimensions();
  dims.erase(dims.begin() + dim);
  IrIndex r = IrIndex::FromLinear(
      row, Shape::Array(shape.element_type(), std::move(dims)), b);
  std::vector<llvm::Value*> multidim = r.multidim();
  multidim.insert(multidim.begin() + dim, pos);
  return IrIndex(std::move(multidim), row->getType());
}

}  // namespace hloc
