#include "hlo/shape.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace hloc {

bool Layout::operator==(const Layout& o) const {
  return minor_to_major == o.minor_to_major && tiles == o.tiles &&
         tail_padding_alignment_in_elements ==
             o.tail_padding_alignment_in_elements &&
         index_primitive_type == o.index_primitive_type &&
         pointer_primitive_type == o.pointer_primitive_type &&
         element_size_in_bits == o.element_size_in_bits &&
         memory_space == o.memory_space &&
         dynamic_shape_metadata_prefix_bytes ==
             o.dynamic_shape_metadata_prefix_bytes;
}

bool Layout::IsPlain() const {
  Layout plain;
  plain.minor_to_major = minor_to_major;
  return *this == plain;
}

std::string Layout::ToString() const {
  std::string out = absl::StrCat("{", absl::StrJoin(minor_to_major, ","));
  if (!IsPlain()) {
    absl::StrAppend(&out, ":");
    // XLA writes the tile list as one T followed by each tile: T(8,128)(2,1).
    if (!tiles.empty()) absl::StrAppend(&out, "T");
    for (const Tile& tile : tiles) {
      absl::StrAppend(&out, "(");
      for (size_t i = 0; i < tile.dimensions.size(); ++i) {
        if (i) absl::StrAppend(&out, ",");
        if (tile.dimensions[i] == Tile::kCombineDimension) {
          absl::StrAppend(&out, "*");
        } else {
          absl::StrAppend(&out, tile.dimensions[i]);
        }
      }
      absl::StrAppend(&out, ")");
    }
    if (tail_padding_alignment_in_elements != 1) {
      absl::StrAppend(&out, "L(", tail_padding_alignment_in_elements, ")");
    }
    if (index_primitive_type != PRIMITIVE_TYPE_INVALID) {
      absl::StrAppend(&out, "#(", PrimitiveTypeName(index_primitive_type), ")");
    }
    if (pointer_primitive_type != PRIMITIVE_TYPE_INVALID) {
      absl::StrAppend(&out, "*(", PrimitiveTypeName(pointer_primitive_type),
                      ")");
    }
    if (element_size_in_bits != 0) {
      absl::StrAppend(&out, "E(", element_size_in_bits, ")");
    }
    if (memory_space != 0) absl::StrAppend(&out, "S(", memory_space, ")");
    if (dynamic_shape_metadata_prefix_bytes != 0) {
      absl::StrAppend(&out, "M(", dynamic_shape_metadata_prefix_bytes, ")");
    }
  }
  absl::StrAppend(&out, "}");
  return out;
}

std::vector<int64_t> DefaultMinorToMajor(int64_t rank) {
  std::vector<int64_t> m2m(rank);
  for (int64_t i = 0; i < rank; ++i) m2m[i] = rank - 1 - i;
  return m2m;
}

bool StoresInOrder(const Shape& shape,
                   const std::vector<int64_t>& minor_to_major) {
  auto significant = [&](const std::vector<int64_t>& order) {
    std::vector<int64_t> kept;
    for (int64_t d : order) {
      if (shape.dimensions(d) != 1) kept.push_back(d);
    }
    return kept;
  };
  return significant(shape.MinorToMajor()) == significant(minor_to_major);
}

std::vector<int64_t> ColumnMajorMatrixMinorToMajor(int64_t rank) {
  if (rank < 2) return DefaultMinorToMajor(rank);
  std::vector<int64_t> m2m = {rank - 2, rank - 1};
  for (int64_t d = rank - 3; d >= 0; --d) m2m.push_back(d);
  return m2m;
}

Shape::Shape(PrimitiveType type, std::vector<int64_t> dimensions)
    : element_type_(type),
      dimensions_(std::move(dimensions)),
      dynamic_(dimensions_.size(), false) {
  if (IsArray()) {
    Layout layout;
    layout.minor_to_major = DefaultMinorToMajor(rank());
    layout_ = std::move(layout);
  }
}

Shape Shape::Array(PrimitiveType type, std::vector<int64_t> dimensions) {
  return Shape(type, std::move(dimensions));
}

Shape Shape::ArrayWithLayout(PrimitiveType type,
                             std::vector<int64_t> dimensions,
                             std::vector<int64_t> minor_to_major) {
  Shape shape(type, std::move(dimensions));
  shape.layout_->minor_to_major = std::move(minor_to_major);
  return shape;
}

Shape Shape::Tuple(std::vector<Shape> elements) {
  Shape shape;
  shape.element_type_ = TUPLE;
  shape.tuple_shapes_ = std::move(elements);
  return shape;
}

Shape Shape::Token() {
  Shape shape;
  shape.element_type_ = TOKEN;
  return shape;
}

void Shape::set_dimensions(std::vector<int64_t> dims) {
  dimensions_ = std::move(dims);
  dynamic_.assign(dimensions_.size(), false);
}

bool Shape::is_static() const {
  for (bool d : dynamic_) {
    if (d) return false;
  }
  for (const Shape& s : tuple_shapes_) {
    if (!s.is_static()) return false;
  }
  return true;
}

Layout* Shape::mutable_layout() {
  if (!layout_) {
    layout_ = Layout();
    layout_->minor_to_major = DefaultMinorToMajor(rank());
  }
  return &*layout_;
}

void Shape::SetDefaultLayoutIfMissing() {
  if (IsArray() && !layout_) mutable_layout();
  for (Shape& s : tuple_shapes_) s.SetDefaultLayoutIfMissing();
}

std::vector<int64_t> Shape::MinorToMajor() const {
  if (layout_) return layout_->minor_to_major;
  return DefaultMinorToMajor(rank());
}

bool Shape::HasDescendingLayout() const {
  return !layout_ || layout_->minor_to_major == DefaultMinorToMajor(rank());
}

int64_t Shape::ElementCount() const {
  int64_t n = 1;
  for (int64_t d : dimensions_) n *= d;
  return n;
}

int64_t Shape::ByteSize() const {
  if (IsTuple()) {
    int64_t total = 0;
    for (const Shape& s : tuple_shapes_) total += s.ByteSize();
    return total;
  }
  if (!IsArray()) return 0;
  return ElementCount() * ByteWidth(element_type_);
}

bool Shape::Equal(const Shape& o, bool compare_layouts) const {
  if (element_type_ != o.element_type_) return false;
  if (IsTuple()) {
    if (tuple_shapes_.size() != o.tuple_shapes_.size()) return false;
    for (size_t i = 0; i < tuple_shapes_.size(); ++i) {
      if (!tuple_shapes_[i].Equal(o.tuple_shapes_[i], compare_layouts)) {
        return false;
      }
    }
    return true;
  }
  if (dimensions_ != o.dimensions_ || dynamic_ != o.dynamic_) return false;
  if (compare_layouts && IsArray()) {
    // A missing layout means the default one.
    if (MinorToMajor() != o.MinorToMajor()) return false;
    if (layout_.has_value() && o.layout_.has_value() && *layout_ != *o.layout_) {
      return false;
    }
  }
  return true;
}

std::string Shape::ToString(bool print_layout) const {
  if (IsTuple()) {
    std::string out = "(";
    for (size_t i = 0; i < tuple_shapes_.size(); ++i) {
      if (i) absl::StrAppend(&out, ", ");
      absl::StrAppend(&out, tuple_shapes_[i].ToString(print_layout));
    }
    return out + ")";
  }
  std::string out = absl::StrCat(PrimitiveTypeName(element_type_), "[");
  for (size_t i = 0; i < dimensions_.size(); ++i) {
    if (i) absl::StrAppend(&out, ",");
    if (dynamic_[i]) absl::StrAppend(&out, "<=");
    absl::StrAppend(&out, dimensions_[i]);
  }
  absl::StrAppend(&out, "]");
  if (print_layout && IsArray() && layout_ && !dimensions_.empty()) {
    absl::StrAppend(&out, layout_->ToString());
  } else if (print_layout && IsArray() && layout_ && dimensions_.empty() &&
             !layout_->IsPlain()) {
    absl::StrAppend(&out, layout_->ToString());
  }
  return out;
}

std::string ProgramShape::ToString(bool print_layout) const {
  std::string out = "(";
  for (size_t i = 0; i < parameters.size(); ++i) {
    if (i) absl::StrAppend(&out, ", ");
    absl::StrAppend(&out, parameters[i].ToString(print_layout));
  }
  absl::StrAppend(&out, ")->", result.ToString(print_layout));
  return out;
}

std::vector<int64_t> LayoutStrides(const Shape& shape) {
  std::vector<int64_t> strides(shape.rank(), 1);
  int64_t stride = 1;
  for (int64_t dim : shape.MinorToMajor()) {
    strides[dim] = stride;
    stride *= shape.dimensions(dim);
  }
  return strides;
}

}  // namespace hloc
