#include "runtime/dense_buffer.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "hlo/primitive_type.h"

namespace hloc {

void CopyLiteralToBuffer(const Literal& literal, const Shape& shape,
                         uint8_t* buffer) {
  int64_t width = ByteWidth(shape.element_type());
  if (shape.HasDescendingLayout() || shape.rank() <= 1) {
    const int64_t bytes =
        std::min<int64_t>(literal.size_bytes(), shape.ElementCount() * width);
    if (bytes > 0) std::memcpy(buffer, literal.untyped_data(), bytes);
    return;
  }
  std::vector<int64_t> strides = LayoutStrides(shape);
  const uint8_t* src = literal.untyped_data();
  ForEachIndex(shape.dimensions(), [&](absl::Span<const int64_t> index) {
    int64_t offset = 0;
    for (size_t d = 0; d < index.size(); ++d) offset += index[d] * strides[d];
    std::memcpy(buffer + offset * width, src, width);
    src += width;
    return true;
  });
}

Literal BufferToLiteral(const uint8_t* buffer, const Shape& shape) {
  // Every byte is written below: no zero-filling pass first.
  Literal literal = Literal::CreateUninitialized(shape);
  CopyBufferToLiteral(buffer, shape, &literal);
  return literal;
}

void CopyBufferToLiteral(const uint8_t* buffer, const Shape& shape,
                         Literal* literal) {
  int64_t width = ByteWidth(shape.element_type());
  if (shape.HasDescendingLayout() || shape.rank() <= 1) {
    if (literal->size_bytes() > 0) {
      std::memcpy(literal->untyped_data(), buffer, literal->size_bytes());
    }
    return;
  }
  std::vector<int64_t> strides = LayoutStrides(shape);
  uint8_t* dst = literal->untyped_data();
  ForEachIndex(shape.dimensions(), [&](absl::Span<const int64_t> index) {
    int64_t offset = 0;
    for (size_t d = 0; d < index.size(); ++d) offset += index[d] * strides[d];
    std::memcpy(dst, buffer + offset * width, width);
    dst += width;
    return true;
  });
}

namespace {

template <typename L>
void AppendLeaves(L* literal, std::vector<L*>* out) {
  if (literal->shape().IsTuple()) {
    for (auto& element : literal->tuple_elements()) {
      AppendLeaves(&element, out);
    }
  } else {
    out->push_back(literal);
  }
}

}  // namespace

std::vector<const Literal*> LiteralLeaves(const Literal& literal) {
  std::vector<const Literal*> leaves;
  AppendLeaves(&literal, &leaves);
  return leaves;
}

std::vector<Literal*> MutableLiteralLeaves(Literal* literal) {
  std::vector<Literal*> leaves;
  AppendLeaves(literal, &leaves);
  return leaves;
}

}  // namespace hloc
