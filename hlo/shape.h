// Shapes of HLO values: an array (element type, dimensions, optional layout,
// dynamic-dimension flags) or a tuple of shapes; also TOKEN.
#ifndef HLO_SHAPE_H_
#define HLO_SHAPE_H_

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hlo/primitive_type.h"

namespace hloc {

// One tile of a tiled layout, e.g. T(8,128). A dimension of
// kCombineDimension prints as '*'.
struct Tile {
  static constexpr int64_t kCombineDimension =
      std::numeric_limits<int64_t>::min();
  std::vector<int64_t> dimensions;
  bool operator==(const Tile& o) const { return dimensions == o.dimensions; }
};

// Physical layout of an array: minor_to_major is a permutation of the
// dimensions listing the fastest varying first. The extras (tiles, element
// size, memory space, ...) are kept so modules round-trip; the compiler's
// own stages use only minor_to_major and reject what they cannot honour.
struct Layout {
  std::vector<int64_t> minor_to_major;
  std::vector<Tile> tiles;
  int64_t tail_padding_alignment_in_elements = 1;
  PrimitiveType index_primitive_type = PRIMITIVE_TYPE_INVALID;
  PrimitiveType pointer_primitive_type = PRIMITIVE_TYPE_INVALID;
  int64_t element_size_in_bits = 0;
  int64_t memory_space = 0;
  int64_t dynamic_shape_metadata_prefix_bytes = 0;

  bool operator==(const Layout& o) const;
  bool operator!=(const Layout& o) const { return !(*this == o); }
  // True when only minor_to_major is set (no tiling or other extras).
  bool IsPlain() const;
  // "{1,0:T(8,128)E(16)S(1)}" as XLA prints it.
  std::string ToString() const;
};

class Shape {
 public:
  Shape() = default;
  // An array shape with the default (descending, row-major) layout.
  Shape(PrimitiveType type, std::vector<int64_t> dimensions);
  static Shape Array(PrimitiveType type, std::vector<int64_t> dimensions);
  static Shape ArrayWithLayout(PrimitiveType type,
                               std::vector<int64_t> dimensions,
                               std::vector<int64_t> minor_to_major);
  static Shape Scalar(PrimitiveType type) { return Array(type, {}); }
  static Shape Tuple(std::vector<Shape> elements);
  static Shape Token();

  PrimitiveType element_type() const { return element_type_; }
  void set_element_type(PrimitiveType t) { element_type_ = t; }

  bool IsArray() const { return IsArrayType(element_type_); }
  bool IsTuple() const { return element_type_ == TUPLE; }
  bool IsToken() const { return element_type_ == TOKEN; }
  bool IsScalar() const { return IsArray() && dimensions_.empty(); }

  int64_t rank() const { return static_cast<int64_t>(dimensions_.size()); }
  const std::vector<int64_t>& dimensions() const { return dimensions_; }
  int64_t dimensions(int64_t i) const { return dimensions_[i]; }
  void set_dimensions(std::vector<int64_t> dims);
  std::vector<int64_t>* mutable_dimensions() { return &dimensions_; }

  // Dynamic dimensions ("f32[<=8]"): the bound is in dimensions().
  bool is_dynamic_dimension(int64_t i) const { return dynamic_[i]; }
  void set_dynamic_dimension(int64_t i, bool dynamic) { dynamic_[i] = dynamic; }
  bool is_static() const;
  const std::vector<bool>& dynamic_dimensions() const { return dynamic_; }

  const std::vector<Shape>& tuple_shapes() const { return tuple_shapes_; }
  const Shape& tuple_shapes(int64_t i) const { return tuple_shapes_[i]; }
  std::vector<Shape>* mutable_tuple_shapes() { return &tuple_shapes_; }
  int64_t tuple_shapes_size() const {
    return static_cast<int64_t>(tuple_shapes_.size());
  }

  bool has_layout() const { return layout_.has_value(); }
  const Layout& layout() const { return *layout_; }
  Layout* mutable_layout();  // Creates the default layout if absent.
  void set_layout(Layout layout) { layout_ = std::move(layout); }
  void clear_layout() { layout_.reset(); }
  // Gives this array shape (and every tuple element) the descending layout
  // where it has none.
  void SetDefaultLayoutIfMissing();
  // minor_to_major of this array shape; the default when no layout is set.
  std::vector<int64_t> MinorToMajor() const;
  // True if the layout (or its absence) means row-major dense storage.
  bool HasDescendingLayout() const;

  // Number of elements of an array (1 for a scalar).
  int64_t ElementCount() const;
  // Dense bytes of an array, or the sum over a tuple's leaves.
  int64_t ByteSize() const;

  // Structural equality: element types, dimensions, dynamic flags and tuple
  // structure; layouts compared only when `compare_layouts` is set.
  bool Equal(const Shape& o, bool compare_layouts) const;
  bool operator==(const Shape& o) const { return Equal(o, true); }
  bool operator!=(const Shape& o) const { return !Equal(o, true); }
  // Same element type and dimensions, ignoring layout.
  bool Compatible(const Shape& o) const { return Equal(o, false); }
  bool SameDimensions(const Shape& o) const {
    return dimensions_ == o.dimensions_;
  }

  // "f32[2,3]{1,0}", "(f32[], s32[4]{0})", "token[]". The layout is printed
  // for arrays of rank >= 1 that have one, when `print_layout` is set.
  std::string ToString(bool print_layout = true) const;

 private:
  PrimitiveType element_type_ = PRIMITIVE_TYPE_INVALID;
  std::vector<int64_t> dimensions_;
  std::vector<bool> dynamic_;
  std::vector<Shape> tuple_shapes_;
  std::optional<Layout> layout_;
};

// Computation signature: parameter shapes and result shape.
struct ProgramShape {
  std::vector<Shape> parameters;
  std::vector<std::string> parameter_names;
  Shape result;
  // "(f32[2]{0}, s32[]) -> f32[2]{0}"
  std::string ToString(bool print_layout = true) const;
};

// Row-major (descending) minor_to_major for `rank` dimensions: {rank-1,...,0}.
std::vector<int64_t> DefaultMinorToMajor(int64_t rank);

// Column-major matrices, one after another: minor_to_major {rank-2, rank-1,
// rank-3, ..., 0}, as LAPACK, cuSOLVER and cuBLAS store a batch of them
// (row-major below rank 2).
std::vector<int64_t> ColumnMajorMatrixMinorToMajor(int64_t rank);

// Whether array `shape` stores its elements in the order `minor_to_major`
// (one of its rank) would: its dimensions of more than one element come in
// the same order (a column of one is both row- and column-major).
bool StoresInOrder(const Shape& shape,
                   const std::vector<int64_t>& minor_to_major);

// Linear element strides of an array shape under its layout (element units):
// stride[d] is how far index d moves in the dense buffer.
std::vector<int64_t> LayoutStrides(const Shape& shape);

// Walks every index of `dims` in row-major order; `fn` returns false to stop.
template <typename Fn>
void ForEachIndex(absl::Span<const int64_t> dims, Fn fn) {
  for (int64_t d : dims) {
    if (d == 0) return;
  }
  std::vector<int64_t> index(dims.size(), 0);
  while (true) {
    if (!fn(absl::Span<const int64_t>(index))) return;
    int64_t d = static_cast<int64_t>(dims.size()) - 1;
    for (; d >= 0; --d) {
      if (++index[d] < dims[d]) break;
      index[d] = 0;
    }
    if (d < 0) return;
  }
}

}  // namespace hloc

#endif  // HLO_SHAPE_H_
