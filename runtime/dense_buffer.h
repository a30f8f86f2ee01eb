// Array values in the runtime's buffers: dense bytes laid out as the
// buffer's shape says (its layout's minor_to_major), while literals are
// always row-major.
#ifndef RUNTIME_DENSE_BUFFER_H_
#define RUNTIME_DENSE_BUFFER_H_

#include <cstdint>
#include <vector>

#include "hlo/literal.h"
#include "hlo/shape.h"

namespace hloc {

// Dense bytes of a row-major array literal laid out as `shape` says, and
// back.
void CopyLiteralToBuffer(const Literal& literal, const Shape& shape,
                         uint8_t* buffer);
Literal BufferToLiteral(const uint8_t* buffer, const Shape& shape);
// The same into an existing array literal of `shape`'s dimensions (every
// byte of it is written).
void CopyBufferToLiteral(const uint8_t* buffer, const Shape& shape,
                         Literal* literal);

// The array (and token) leaves of a literal, depth-first: the literal
// itself when it is not a tuple.
std::vector<const Literal*> LiteralLeaves(const Literal& literal);
std::vector<Literal*> MutableLiteralLeaves(Literal* literal);

}  // namespace hloc

#endif  // RUNTIME_DENSE_BUFFER_H_
