// Import of xla.HloModuleProto. The module is built in three steps: every
// computation and instruction id is indexed (so references can point
// anywhere and duplicates are caught), each computation's instructions are
// created in a topological order of their operand and control edges (proto
// order when it already is one), and the computations are added to the module
// callee-first (proto order when it already is).
#include "hlo/proto/proto_import.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hlo/computation.h"
#include "hlo/instruction.h"
#include "hlo/mesh_replica_groups.h"
#include "hlo/proto/enum_map.h"
#include "hlo/proto/sharding_text.h"
#include "hlo/status_macros.h"
#include "hlo/sub_byte_int.h"

namespace hloc {
namespace {

absl::Status Invalid(absl::string_view message) {
  return absl::InvalidArgumentError(message);
}

// Prefixes `context` to an error's message.
absl::Status Annotate(const absl::Status& status, absl::string_view context) {
  if (status.ok()) return status;
  return absl::Status(status.code(),
                      absl::StrCat(context, ": ", status.message()));
}

// ---- Shapes and literals ---------------------------------------------------

absl::StatusOr<Layout> ImportLayout(const xla::LayoutProto& proto,
                                    int64_t rank) {
  Layout layout;
  if (proto.minor_to_major_size() != rank) {
    return Invalid(absl::StrCat("layout minor_to_major has ",
                                proto.minor_to_major_size(),
                                " entries for rank ", rank));
  }
  std::vector<bool> seen(rank, false);
  for (int64_t d : proto.minor_to_major()) {
    if (d < 0 || d >= rank || seen[d]) {
      return Invalid(absl::StrCat(
          "layout minor_to_major {", absl::StrJoin(proto.minor_to_major(), ","),
          "} is not a permutation of the ", rank, " dimensions"));
    }
    seen[d] = true;
    layout.minor_to_major.push_back(d);
  }
  for (int level : proto.dim_level_types()) {
    if (level != xla::DIM_DENSE) {
      return Invalid("sparse layouts (dim_level_types) are not supported");
    }
  }
  for (const xla::TileProto& tile_proto : proto.tiles()) {
    Tile tile;
    for (int64_t d : tile_proto.dimensions()) {
      if (d <= 0 && d != Tile::kCombineDimension) {
        return Invalid(
            absl::StrCat("layout tile dimension ", d, " is not positive"));
      }
      tile.dimensions.push_back(d);
    }
    layout.tiles.push_back(std::move(tile));
  }
  if (proto.element_size_in_bits() < 0 || proto.memory_space() < 0 ||
      proto.tail_padding_alignment_in_elements() < 0 ||
      proto.dynamic_shape_metadata_prefix_bytes() < 0) {
    return Invalid("layout has a negative size, memory space or alignment");
  }
  layout.element_size_in_bits = proto.element_size_in_bits();
  layout.memory_space = proto.memory_space();
  // XLA reads an unset (0) alignment as 1.
  layout.tail_padding_alignment_in_elements =
      std::max<int64_t>(proto.tail_padding_alignment_in_elements(), 1);
  layout.dynamic_shape_metadata_prefix_bytes =
      proto.dynamic_shape_metadata_prefix_bytes();
  if (proto.index_primitive_type() != xla::PRIMITIVE_TYPE_INVALID) {
    HLOC_ASSIGN_OR_RETURN(layout.index_primitive_type,
                     PrimitiveTypeFromProto(proto.index_primitive_type()));
  }
  if (proto.pointer_primitive_type() != xla::PRIMITIVE_TYPE_INVALID) {
    HLOC_ASSIGN_OR_RETURN(layout.pointer_primitive_type,
                     PrimitiveTypeFromProto(proto.pointer_primitive_type()));
  }
  return layout;
}

absl::StatusOr<Shape> ImportShape(const xla::ShapeProto& proto) {
  HLOC_ASSIGN_OR_RETURN(PrimitiveType type,
                   PrimitiveTypeFromProto(proto.element_type()));
  switch (type) {
    case PRIMITIVE_TYPE_INVALID:
      return Invalid("shape has no element type");
    case TUPLE: {
      std::vector<Shape> elements;
      for (const xla::ShapeProto& element : proto.tuple_shapes()) {
        HLOC_ASSIGN_OR_RETURN(Shape shape, ImportShape(element));
        elements.push_back(std::move(shape));
      }
      return Shape::Tuple(std::move(elements));
    }
    case TOKEN:
      return Shape::Token();
    case OPAQUE_TYPE: {
      Shape shape;
      shape.set_element_type(OPAQUE_TYPE);
      return shape;
    }
    default:
      break;
  }
  std::vector<int64_t> dims(proto.dimensions().begin(),
                            proto.dimensions().end());
  for (int64_t d : dims) {
    if (d < 0) {
      return Invalid(absl::StrCat("shape ", PrimitiveTypeName(type), "[",
                                  absl::StrJoin(dims, ","),
                                  "] has a negative dimension"));
    }
  }
  Shape shape(type, dims);
  if (proto.is_dynamic_dimension_size() != 0) {
    if (proto.is_dynamic_dimension_size() != shape.rank()) {
      return Invalid(absl::StrCat("shape ", shape.ToString(false), " has ",
                                  proto.is_dynamic_dimension_size(),
                                  " dynamic-dimension flags"));
    }
    for (int64_t i = 0; i < shape.rank(); ++i) {
      shape.set_dynamic_dimension(i, proto.is_dynamic_dimension(i));
    }
  }
  if (proto.has_layout()) {
    absl::StatusOr<Layout> layout = ImportLayout(proto.layout(), shape.rank());
    if (!layout.ok()) {
      return Annotate(layout.status(),
                      absl::StrCat("shape ", shape.ToString(false)));
    }
    shape.set_layout(*std::move(layout));
  } else {
    shape.clear_layout();
  }
  return shape;
}

absl::StatusOr<ProgramShape> ImportProgramShape(
    const xla::ProgramShapeProto& proto) {
  ProgramShape out;
  for (const xla::ShapeProto& p : proto.parameters()) {
    HLOC_ASSIGN_OR_RETURN(Shape shape, ImportShape(p));
    out.parameters.push_back(std::move(shape));
  }
  out.parameter_names.assign(proto.parameter_names().begin(),
                             proto.parameter_names().end());
  HLOC_ASSIGN_OR_RETURN(out.result, ImportShape(proto.result()));
  return out;
}

// Element count of an array shape, or an error if it overflows int64.
absl::StatusOr<int64_t> CheckedElementCount(const Shape& shape) {
  int64_t count = 1;
  for (int64_t d : shape.dimensions()) {
    if (d != 0 && count > std::numeric_limits<int64_t>::max() / d) {
      return Invalid(absl::StrCat("shape ", shape.ToString(false),
                                  " has too many elements"));
    }
    count *= d;
  }
  return count;
}

absl::Status CountMismatch(const Shape& shape, absl::string_view field,
                           int64_t got, int64_t expected) {
  return Invalid(absl::StrCat("literal of shape ", shape.ToString(false),
                              " has ", got, " ", field, " values, expected ",
                              expected));
}

// Copies a repeated numeric field into the literal's elements.
template <typename T, typename Field>
absl::Status CopyRepeated(const Field& field, absl::string_view name,
                          int64_t per_element, int64_t count,
                          Literal* literal) {
  if (field.size() != count * per_element) {
    return CountMismatch(literal->shape(), name, field.size(),
                         count * per_element);
  }
  T* out = reinterpret_cast<T*>(literal->untyped_data());
  for (int64_t i = 0; i < count * per_element; ++i) out[i] = field.Get(i);
  return absl::OkStatus();
}

// Copies a bytes field of `width`-byte little-endian elements.
absl::Status CopyBytes(const std::string& bytes, absl::string_view name,
                       int64_t width, int64_t count, Literal* literal) {
  if (static_cast<int64_t>(bytes.size()) != count * width) {
    return CountMismatch(literal->shape(), name,
                         static_cast<int64_t>(bytes.size()) / width, count);
  }
  uint8_t* out = literal->untyped_data();
  if (width == 2) {
    for (int64_t i = 0; i < count; ++i) {
      uint16_t v =
          static_cast<uint8_t>(bytes[2 * i]) |
          (static_cast<uint16_t>(static_cast<uint8_t>(bytes[2 * i + 1])) << 8);
      std::memcpy(out + 2 * i, &v, 2);
    }
  } else if (!bytes.empty()) {
    std::memcpy(out, bytes.data(), bytes.size());
  }
  return absl::OkStatus();
}

// The bytes field of an 8-bit-or-narrower type other than pred/s8/u8.
const std::string* NarrowField(const xla::LiteralProto& p, PrimitiveType type,
                               absl::string_view* name) {
  switch (type) {
#define HLOC_NARROW(T, field) \
  case T:                     \
    *name = #field;           \
    return &p.field();
    HLOC_NARROW(S1, s1s)
    HLOC_NARROW(S2, s2s)
    HLOC_NARROW(S4, s4s)
    HLOC_NARROW(U1, u1s)
    HLOC_NARROW(U2, u2s)
    HLOC_NARROW(U4, u4s)
    HLOC_NARROW(F8E5M2, f8e5m2s)
    HLOC_NARROW(F8E4M3, f8e4m3s)
    HLOC_NARROW(F8E4M3FN, f8e4m3fns)
    HLOC_NARROW(F8E4M3B11FNUZ, f8e4m3b11fnuzs)
    HLOC_NARROW(F8E3M4, f8e3m4s)
    HLOC_NARROW(F8E5M2FNUZ, f8e5m2fnuzs)
    HLOC_NARROW(F8E4M3FNUZ, f8e4m3fnuzs)
    HLOC_NARROW(F4E2M1FN, f4e2m1fns)
    HLOC_NARROW(F8E8M0FNU, f8e8m0fnus)
#undef HLOC_NARROW
    default:
      return nullptr;
  }
}

absl::StatusOr<Literal> ImportLiteral(const xla::LiteralProto& proto) {
  HLOC_ASSIGN_OR_RETURN(Shape shape, ImportShape(proto.shape()));
  if (shape.IsTuple()) {
    if (proto.tuple_literals_size() != shape.tuple_shapes_size()) {
      return Invalid(absl::StrCat("tuple literal of shape ",
                                  shape.ToString(false), " has ",
                                  proto.tuple_literals_size(), " elements"));
    }
    std::vector<Literal> elements;
    for (const xla::LiteralProto& element : proto.tuple_literals()) {
      HLOC_ASSIGN_OR_RETURN(Literal literal, ImportLiteral(element));
      elements.push_back(std::move(literal));
    }
    return Literal::MakeTuple(std::move(elements));
  }
  if (!shape.IsArray()) return Literal(shape);
  HLOC_ASSIGN_OR_RETURN(int64_t n, CheckedElementCount(shape));
  // Every payload takes at least one byte per element, so a count beyond the
  // message size cannot match: reject it before allocating.
  if (n > static_cast<int64_t>(proto.ByteSizeLong())) {
    return Invalid(absl::StrCat("literal of shape ", shape.ToString(false),
                                " has far fewer values than its ", n,
                                " elements"));
  }
  Literal literal(shape);
  absl::Status st;
  switch (shape.element_type()) {
    case PRED:
      if (proto.preds_size() != n) {
        return CountMismatch(shape, "preds", proto.preds_size(), n);
      }
      for (int64_t i = 0; i < n; ++i) {
        literal.data<bool>()[i] = proto.preds(i);
      }
      break;
    case S8:
      st = CopyBytes(proto.s8s(), "s8s", 1, n, &literal);
      break;
    case U8:
      st = CopyBytes(proto.u8s(), "u8s", 1, n, &literal);
      break;
    case S16:
      st = CopyBytes(proto.s16s(), "s16s", 2, n, &literal);
      break;
    case U16:
      st = CopyBytes(proto.u16s(), "u16s", 2, n, &literal);
      break;
    case F16:
      st = CopyBytes(proto.f16s(), "f16s", 2, n, &literal);
      break;
    case BF16:
      st = CopyBytes(proto.bf16s(), "bf16s", 2, n, &literal);
      break;
    case S32:
      st = CopyRepeated<int32_t>(proto.s32s(), "s32s", 1, n, &literal);
      break;
    case S64:
      st = CopyRepeated<int64_t>(proto.s64s(), "s64s", 1, n, &literal);
      break;
    case U32:
      st = CopyRepeated<uint32_t>(proto.u32s(), "u32s", 1, n, &literal);
      break;
    case U64:
      st = CopyRepeated<uint64_t>(proto.u64s(), "u64s", 1, n, &literal);
      break;
    case F32:
      st = CopyRepeated<float>(proto.f32s(), "f32s", 1, n, &literal);
      break;
    case F64:
      st = CopyRepeated<double>(proto.f64s(), "f64s", 1, n, &literal);
      break;
    case C64:
      st = CopyRepeated<float>(proto.c64s(), "c64s", 2, n, &literal);
      break;
    case C128:
      st = CopyRepeated<double>(proto.c128s(), "c128s", 2, n, &literal);
      break;
    default: {
      absl::string_view name;
      const std::string* bytes =
          NarrowField(proto, shape.element_type(), &name);
      if (bytes == nullptr || ByteWidth(shape.element_type()) != 1) {
        return Invalid(absl::StrCat("literals of type ",
                                    PrimitiveTypeName(shape.element_type()),
                                    " are not supported"));
      }
      st = CopyBytes(*bytes, name, 1, n, &literal);
      // JAX's protos hold a sub-byte integer's low bits (s4 -3 is 0x0d).
      CanonicalizeSubByteInts(shape.element_type(), literal.untyped_data(), n);
      break;
    }
  }
  if (!st.ok()) return st;
  return literal;
}

// ---- Attributes ------------------------------------------------------------

Window ImportWindow(const xla::Window& proto) {
  Window window;
  for (const xla::WindowDimension& d : proto.dimensions()) {
    WindowDimension dim;
    dim.size = d.size();
    dim.stride = d.stride();
    dim.padding_low = d.padding_low();
    dim.padding_high = d.padding_high();
    dim.window_dilation = d.window_dilation();
    dim.base_dilation = d.base_dilation();
    dim.window_reversal = d.window_reversal();
    window.dimensions.push_back(dim);
  }
  return window;
}

template <typename Field>
std::vector<int64_t> Vec(const Field& field) {
  return std::vector<int64_t>(field.begin(), field.end());
}

DotDimensionNumbers ImportDot(const xla::DotDimensionNumbers& p) {
  DotDimensionNumbers d;
  d.lhs_contracting_dimensions = Vec(p.lhs_contracting_dimensions());
  d.rhs_contracting_dimensions = Vec(p.rhs_contracting_dimensions());
  d.lhs_batch_dimensions = Vec(p.lhs_batch_dimensions());
  d.rhs_batch_dimensions = Vec(p.rhs_batch_dimensions());
  return d;
}

ConvolutionDimensionNumbers ImportConv(
    const xla::ConvolutionDimensionNumbers& p) {
  ConvolutionDimensionNumbers d;
  d.input_batch_dimension = p.input_batch_dimension();
  d.input_feature_dimension = p.input_feature_dimension();
  d.input_spatial_dimensions = Vec(p.input_spatial_dimensions());
  d.kernel_input_feature_dimension = p.kernel_input_feature_dimension();
  d.kernel_output_feature_dimension = p.kernel_output_feature_dimension();
  d.kernel_spatial_dimensions = Vec(p.kernel_spatial_dimensions());
  d.output_batch_dimension = p.output_batch_dimension();
  d.output_feature_dimension = p.output_feature_dimension();
  d.output_spatial_dimensions = Vec(p.output_spatial_dimensions());
  return d;
}

GatherDimensionNumbers ImportGather(const xla::GatherDimensionNumbers& p) {
  GatherDimensionNumbers d;
  d.offset_dims = Vec(p.offset_dims());
  d.collapsed_slice_dims = Vec(p.collapsed_slice_dims());
  d.start_index_map = Vec(p.start_index_map());
  d.index_vector_dim = p.index_vector_dim();
  d.operand_batching_dims = Vec(p.operand_batching_dims());
  d.start_indices_batching_dims = Vec(p.start_indices_batching_dims());
  return d;
}

ScatterDimensionNumbers ImportScatter(const xla::ScatterDimensionNumbers& p) {
  ScatterDimensionNumbers d;
  d.update_window_dims = Vec(p.update_window_dims());
  d.inserted_window_dims = Vec(p.inserted_window_dims());
  d.scatter_dims_to_operand_dims = Vec(p.scatter_dims_to_operand_dims());
  d.index_vector_dim = p.index_vector_dim();
  d.input_batching_dims = Vec(p.input_batching_dims());
  d.scatter_indices_batching_dims = Vec(p.scatter_indices_batching_dims());
  return d;
}

// compare's order when none is given: partial for floats, total otherwise.
ComparisonOrder DefaultComparisonOrder(PrimitiveType type) {
  return IsFloatingPointType(type) || IsComplexType(type)
             ? ComparisonOrder::kPartial
             : ComparisonOrder::kTotal;
}

// compare's type as implied by the element type and the order.
ComparisonType ImpliedComparisonType(PrimitiveType type,
                                     ComparisonOrder order) {
  if (IsFloatingPointType(type) || IsComplexType(type)) {
    return order == ComparisonOrder::kTotal ? ComparisonType::kTotalOrder
                                            : ComparisonType::kFloat;
  }
  return IsSignedIntegralType(type) ? ComparisonType::kSigned
                                    : ComparisonType::kUnsigned;
}

// XLA writes compare's type and order on every compare, but its text shows
// the order only when it is not the element type's default and the type only
// when the element type and order do not imply it (a float total order
// prints as order=TOTAL). The IR follows the text, kDefault standing for
// "implied", so protos and text import alike. Older protos give only a type.
absl::Status ImportCompare(const xla::HloInstructionProto& p,
                           PrimitiveType operand_type, HloAttributes* a) {
  HLOC_ASSIGN_OR_RETURN(a->comparison_direction,
                   ParseComparisonDirection(p.comparison_direction()));
  std::optional<ComparisonType> type;
  if (!p.comparison_type().empty()) {
    HLOC_ASSIGN_OR_RETURN(type, ParseComparisonType(p.comparison_type()));
  }
  ComparisonOrder order = DefaultComparisonOrder(operand_type);
  if (!p.comparison_order().empty()) {
    HLOC_ASSIGN_OR_RETURN(order, ParseComparisonOrder(p.comparison_order()));
  } else if (type == ComparisonType::kTotalOrder) {
    order = ComparisonOrder::kTotal;
  }
  if (order != DefaultComparisonOrder(operand_type)) {
    a->comparison_order = order;
  }
  if (type && *type != ImpliedComparisonType(operand_type, order)) {
    a->comparison_type = *type;
  }
  return absl::OkStatus();
}

absl::Status ImportCustomCall(const xla::HloInstructionProto& p,
                              HloAttributes* a) {
  int version = p.custom_call_api_version();
  if (version < 0 || version > 4) {
    return Invalid(absl::StrCat("unknown custom_call_api_version ", version));
  }
  a->api_version = static_cast<CustomCallApiVersion>(version);
  a->custom_call_has_side_effect = p.custom_call_has_side_effect();
  int schedule = p.custom_call_schedule();
  if (schedule < 0 || schedule > 2) {
    return Invalid(absl::StrCat("unknown custom_call_schedule ", schedule));
  }
  a->custom_call_schedule = static_cast<CustomCallSchedule>(schedule);
  // On a custom call, constrain_layout means "operand layouts are fixed".
  if (p.constrain_layout()) {
    std::vector<Shape> shapes;
    for (const xla::ShapeProto& s : p.operand_shapes_with_layout()) {
      HLOC_ASSIGN_OR_RETURN(Shape shape, ImportShape(s));
      shapes.push_back(std::move(shape));
    }
    a->operand_layout_constraints = std::move(shapes);
  }
  return absl::OkStatus();
}

absl::Status ImportCollective(const xla::HloInstructionProto& p,
                              HloAttributes* a) {
  if (p.channel_id() > 0) a->channel_id = p.channel_id();
  for (const xla::ReplicaGroup& g : p.replica_groups()) {
    a->replica_groups.push_back(Vec(g.replica_ids()));
  }
  switch (p.replica_group_list_case()) {
    case xla::HloInstructionProto::kCollectiveDeviceList:
      a->replica_groups.clear();
      for (const xla::ReplicaGroup& g :
           p.collective_device_list().replica_groups()) {
        a->replica_groups.push_back(Vec(g.replica_ids()));
      }
      break;
    case xla::HloInstructionProto::kIotaCollectiveDeviceList:
      a->iota_replica_groups =
          IotaReplicaGroupsToText(p.iota_collective_device_list());
      break;
    case xla::HloInstructionProto::kMeshAxesReplicaGroupList: {
      const xla::MeshAxesReplicaGroupListProto& list =
          p.mesh_axes_replica_group_list();
      DeviceMesh mesh;
      for (const auto& axis : list.mesh().axes()) {
        mesh.axis_sizes.push_back(axis.size());
      }
      mesh.device_ids = Vec(list.mesh().device_ids());
      if (list.mesh().has_iota_transform()) {
        mesh.iota_reshape_dims =
            Vec(list.mesh().iota_transform().reshape_dims());
        mesh.iota_transpose_perm =
            Vec(list.mesh().iota_transform().transpose_perm());
      }
      std::vector<MeshAxisRef> axes;
      for (const xla::AxisRefProto& ref : list.axes()) {
        MeshAxisRef axis;
        axis.axis = ref.mesh_axis_index();
        if (ref.has_sub_axis_info()) {
          axis.pre_size = ref.sub_axis_info().pre_size();
          axis.size = ref.sub_axis_info().size();
        }
        axes.push_back(axis);
      }
      absl::StatusOr<std::vector<std::vector<int64_t>>> groups =
          ExpandMeshAxesReplicaGroups(mesh, axes);
      if (!groups.ok()) return Invalid(groups.status().message());
      a->replica_groups = *std::move(groups);
      break;
    }
    default:
      break;
  }
  a->use_global_device_ids = p.use_global_device_ids();
  for (const xla::SourceTarget& st : p.source_target_pairs()) {
    a->source_target_pairs.emplace_back(st.source(), st.target());
  }
  return absl::OkStatus();
}

// Fills the typed attributes from every proto field the IR has a place for.
absl::Status ImportAttributes(const xla::HloInstructionProto& p,
                              HloInstruction* instr) {
  HloAttributes& a = instr->mutable_attrs();
  const HloOpcode opcode = instr->opcode();
  switch (opcode) {
    case HloOpcode::kIota:
      if (p.dimensions_size() != 1) {
        return Invalid(absl::StrCat("iota needs one dimension, has ",
                                    p.dimensions_size()));
      }
      a.iota_dimension = p.dimensions(0);
      break;
    case HloOpcode::kReshape:
      // XLA's optional "inferred dimension"; the IR has no use for it.
      break;
    default:
      a.dimensions = Vec(p.dimensions());
      break;
  }
  for (const auto& s : p.slice_dimensions()) {
    a.slice_starts.push_back(s.start());
    a.slice_limits.push_back(s.limit());
    a.slice_strides.push_back(s.stride());
  }
  a.dynamic_slice_sizes = Vec(p.dynamic_slice_sizes());
  // An empty window is what XLA's text omits; keep the IR's form canonical.
  if (p.has_window() && p.window().dimensions_size() > 0) {
    a.window = ImportWindow(p.window());
  }
  if (p.has_padding_config()) {
    PaddingConfig config;
    for (const auto& d : p.padding_config().dimensions()) {
      config.dimensions.push_back(
          {d.edge_padding_low(), d.edge_padding_high(), d.interior_padding()});
    }
    a.padding_config = std::move(config);
  }
  if (p.has_dot_dimension_numbers()) {
    a.dot_dimension_numbers = ImportDot(p.dot_dimension_numbers());
  }
  if (p.has_ragged_dot_dimension_numbers()) {
    const auto& r = p.ragged_dot_dimension_numbers();
    RaggedDotDimensionNumbers ragged;
    ragged.dot_dimension_numbers = ImportDot(r.dot_dimension_numbers());
    ragged.lhs_ragged_dimensions = Vec(r.lhs_ragged_dimensions());
    ragged.rhs_group_dimensions = Vec(r.rhs_group_dimensions());
    a.ragged_dot_dimension_numbers = std::move(ragged);
  }
  if (p.has_convolution_dimension_numbers()) {
    a.convolution_dimension_numbers =
        ImportConv(p.convolution_dimension_numbers());
  }
  a.feature_group_count = std::max<int64_t>(p.feature_group_count(), 1);
  a.batch_group_count = std::max<int64_t>(p.batch_group_count(), 1);
  if (p.has_precision_config()) {
    PrecisionConfig config;
    bool all_default = p.precision_config().algorithm() == 0;
    for (int precision : p.precision_config().operand_precision()) {
      if (precision < 0 || precision > 3) {
        return Invalid(absl::StrCat("unknown operand precision ", precision));
      }
      all_default &= precision == 0;
      config.operand_precision.push_back(static_cast<Precision>(precision));
    }
    config.algorithm = p.precision_config().algorithm();
    // XLA writes DEFAULT for every operand but prints nothing then.
    if (!all_default) a.precision_config = std::move(config);
  }
  if (p.has_result_accuracy() && HloOpcodeTakesResultAccuracy(opcode)) {
    const xla::ResultAccuracy& r = p.result_accuracy();
    ResultAccuracy accuracy;
    if (r.has_tolerance()) {
      accuracy.has_tolerance = true;
      accuracy.atol = r.tolerance().atol();
      accuracy.rtol = r.tolerance().rtol();
      accuracy.ulps = r.tolerance().ulps();
      if (!(accuracy.atol >= 0) || !(accuracy.rtol >= 0) || accuracy.ulps < 0) {
        return Invalid("result_accuracy's tolerance must be non-negative");
      }
    } else if (r.mode() == xla::ResultAccuracy::HIGHEST) {
      accuracy.mode = ResultAccuracy::Mode::kHighest;
    } else if (r.mode() != xla::ResultAccuracy::DEFAULT) {
      return Invalid(absl::StrCat("unknown result_accuracy mode ", r.mode()));
    }
    if (!accuracy.IsDefault()) a.result_accuracy = accuracy;
  }
  if (p.has_gather_dimension_numbers()) {
    a.gather_dimension_numbers = ImportGather(p.gather_dimension_numbers());
  }
  a.gather_slice_sizes = Vec(p.gather_slice_sizes());
  if (p.has_scatter_dimension_numbers()) {
    a.scatter_dimension_numbers = ImportScatter(p.scatter_dimension_numbers());
  }
  a.indices_are_sorted = p.indices_are_sorted();
  a.unique_indices = p.unique_indices();
  if (opcode == HloOpcode::kCompare) {
    HLOC_RETURN_IF_ERROR(
        ImportCompare(p, instr->operand(0)->shape().element_type(), &a));
  }
  if (opcode == HloOpcode::kFusion) {
    HLOC_ASSIGN_OR_RETURN(a.fusion_kind, ParseFusionKind(p.fusion_kind()));
  }
  a.tuple_index = p.tuple_index();
  a.parameter_number = p.parameter_number();
  if (opcode == HloOpcode::kConstant && !p.has_literal()) {
    return Invalid("constant has no literal");
  }
  if (p.has_literal()) {
    absl::StatusOr<Literal> literal = ImportLiteral(p.literal());
    if (!literal.ok()) return literal.status();
    if (opcode == HloOpcode::kConstant &&
        !literal->shape().Compatible(instr->shape())) {
      return Invalid(absl::StrCat("literal shape ",
                                  literal->shape().ToString(false),
                                  " does not match the instruction shape ",
                                  instr->shape().ToString(false)));
    }
    a.literal = *std::move(literal);
  }
  a.exponent_bits = p.exponent_bits();
  a.mantissa_bits = p.mantissa_bits();
  a.is_stable = p.is_stable();
  a.k = p.k();
  // The IR's default is true; proto3's unset false means "not given".
  if (opcode == HloOpcode::kTopK) a.largest = p.largest();
  a.num_carries = p.num_carries();
  a.is_reverse = p.is_reverse();
  a.is_associative = p.is_associative() == xla::TRI_STATE_TRUE;
  a.epsilon = p.epsilon();
  a.feature_index = p.feature_index();
  if (p.distribution() < 0 || p.distribution() > 2 || p.rng_algorithm() < 0 ||
      p.rng_algorithm() > 2 || p.fft_type() < 0 || p.fft_type() > 3) {
    return Invalid("unknown rng distribution, rng algorithm or fft type");
  }
  a.distribution = static_cast<RandomDistribution>(p.distribution());
  a.rng_algorithm = static_cast<RandomAlgorithm>(p.rng_algorithm());
  a.fft_type = static_cast<FftType>(p.fft_type());
  a.fft_length = Vec(p.fft_length());
  if (p.has_triangular_solve_options()) {
    const auto& t = p.triangular_solve_options();
    TriangularSolveOptions options;
    options.left_side = t.left_side();
    options.lower = t.lower();
    options.unit_diagonal = t.unit_diagonal();
    options.transpose_a = t.transpose_a();
    a.triangular_solve_options = options;
  } else if (opcode == HloOpcode::kTriangularSolve) {
    a.triangular_solve_options.emplace();
  }
  a.cholesky_lower = p.cholesky_options().lower();
  a.custom_call_target = p.custom_call_target();
  if (opcode == HloOpcode::kCustomCall) {
    HLOC_RETURN_IF_ERROR(ImportCustomCall(p, &a));
  } else {
    a.constrain_layout = p.constrain_layout();
  }
  for (const xla::OutputOperandAliasing& alias : p.output_operand_aliasing()) {
    a.output_to_operand_aliasing.push_back({Vec(alias.output_shape_index()),
                                            alias.operand_index(),
                                            Vec(alias.operand_shape_index())});
  }
  HLOC_RETURN_IF_ERROR(ImportCollective(p, &a));
  a.infeed_config = p.infeed_config();
  a.outfeed_config = p.outfeed_config();
  if (p.has_outfeed_shape()) {
    HLOC_ASSIGN_OR_RETURN(a.outfeed_shape, ImportShape(p.outfeed_shape()));
  }
  a.is_host_transfer = p.is_host_transfer();
  for (bool r : p.parameter_replication().replicated_at_leaf_buffers()) {
    a.parameter_replication.push_back(r);
  }
  // XLA's text leaves out the main thread; so does the IR.
  if (p.async_execution_thread() != "main") {
    a.async_execution_thread = p.async_execution_thread();
  }
  // Fields the IR has no slot for but XLA's text prints: kept as raw
  // attributes so they print and export back.
  if (opcode == HloOpcode::kRngGetAndUpdateState) {
    instr->mutable_raw_attributes()->push_back(
        {"delta", absl::StrCat(p.delta())});
  }
  if (p.is_composite()) {
    instr->mutable_raw_attributes()->push_back({"is_composite", "true"});
  }
  return absl::OkStatus();
}

void ImportMetadata(const xla::OpMetadata& p, OpMetadata* m) {
  m->op_type = p.op_type();
  m->op_name = p.op_name();
  m->source_file = p.source_file();
  m->source_line = p.source_line();
  m->source_end_line = p.source_end_line();
  m->source_column = p.source_column();
  m->source_end_column = p.source_end_column();
  m->deduplicated_name = p.deduplicated_name();
  m->stack_frame_id = p.stack_frame_id();
  m->scheduling_name = p.scheduling_name();
}

// Operand counts and called computations that later stages rely on.
absl::Status CheckArity(const xla::HloInstructionProto& p, HloOpcode opcode) {
  const int operands = p.operand_ids_size();
  const int calls = p.called_computation_ids_size();
  std::optional<int> arity = HloOpcodeArity(opcode);
  if (arity && operands != *arity) {
    return Invalid(absl::StrCat(HloOpcodeString(opcode), " takes ", *arity,
                                " operand", *arity == 1 ? "" : "s", ", has ",
                                operands));
  }
  int expected_calls = -1;
  switch (opcode) {
    case HloOpcode::kWhile:
    case HloOpcode::kSelectAndScatter:
      expected_calls = 2;
      break;
    case HloOpcode::kFusion:
    case HloOpcode::kCall:
    case HloOpcode::kMap:
    case HloOpcode::kReduce:
    case HloOpcode::kReduceWindow:
    case HloOpcode::kSort:
    case HloOpcode::kScatter:
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllReduceStart:
    case HloOpcode::kReduceScatter:
    case HloOpcode::kAsyncStart:
      expected_calls = 1;
      break;
    case HloOpcode::kConditional:
      if (calls < 1 || operands != calls + 1) {
        return Invalid(absl::StrCat(
            "conditional needs a branch index plus one operand per branch, "
            "has ",
            operands, " operands for ", calls, " branches"));
      }
      break;
    default:
      break;
  }
  if (expected_calls >= 0 && calls != expected_calls) {
    return Invalid(absl::StrCat(
        HloOpcodeString(opcode), " calls ", expected_calls, " computation",
        expected_calls == 1 ? "" : "s", ", has ", calls));
  }
  if ((opcode == HloOpcode::kReduce || opcode == HloOpcode::kReduceWindow) &&
      (operands == 0 || operands % 2 != 0)) {
    return Invalid(absl::StrCat(HloOpcodeString(opcode),
                                " needs inputs and as many init values, has ",
                                operands, " operands"));
  }
  if (opcode == HloOpcode::kScatter && (operands < 3 || operands % 2 == 0)) {
    return Invalid(absl::StrCat(
        "scatter needs inputs, indices and as many updates as inputs, has ",
        operands, " operands"));
  }
  return absl::OkStatus();
}

// ---- The module ------------------------------------------------------------

class Importer {
 public:
  explicit Importer(const xla::HloModuleProto& proto) : proto_(proto) {}
  absl::StatusOr<std::unique_ptr<HloModule>> Run();

 private:
  struct Location {
    int computation;
    int instruction;
  };

  std::string InstrContext(int c, int i) const {
    const auto& comp = proto_.computations(c);
    return absl::StrCat("instruction '", comp.instructions(i).name(),
                        "' in computation '", comp.name(), "'");
  }
  absl::Status IndexIds();
  absl::StatusOr<std::vector<int>> InstructionOrder(int c) const;
  absl::Status BuildComputation(int c);
  absl::StatusOr<std::unique_ptr<HloInstruction>> BuildInstruction(int c,
                                                                   int i);
  absl::StatusOr<std::vector<int>> ComputationOrder() const;
  absl::Status ImportConfig(HloModule* module);
  absl::StatusOr<HloComputation*> FindEntry() const;
  absl::StatusOr<HloInstruction*> FindInstruction(int c, int64_t id,
                                                  absl::string_view what,
                                                  int user) const;

  const xla::HloModuleProto& proto_;
  absl::flat_hash_map<int64_t, int> computation_index_;
  absl::flat_hash_map<int64_t, Location> instruction_location_;
  std::vector<std::unique_ptr<HloComputation>> computations_;
  std::vector<HloComputation*> raw_computations_;
  // Per computation, per proto index: the created instruction.
  std::vector<std::vector<HloInstruction*>> instructions_;
};

absl::Status Importer::IndexIds() {
  for (int c = 0; c < proto_.computations_size(); ++c) {
    const xla::HloComputationProto& comp = proto_.computations(c);
    if (comp.name().empty()) {
      return Invalid(
          absl::StrCat("computation with id ", comp.id(), " has no name"));
    }
    auto [it, inserted] = computation_index_.emplace(comp.id(), c);
    if (!inserted) {
      return Invalid(
          absl::StrCat("computations '", proto_.computations(it->second).name(),
                       "' and '", comp.name(), "' share id ", comp.id()));
    }
    if (comp.instructions_size() == 0) {
      return Invalid(
          absl::StrCat("computation '", comp.name(), "' has no instructions"));
    }
    for (int i = 0; i < comp.instructions_size(); ++i) {
      const xla::HloInstructionProto& instr = comp.instructions(i);
      if (instr.name().empty()) {
        return Invalid(absl::StrCat("instruction with id ", instr.id(),
                                    " in computation '", comp.name(),
                                    "' has no name"));
      }
      if (instr.id() < 0) {
        return Invalid(
            absl::StrCat(InstrContext(c, i), " has negative id ", instr.id()));
      }
      auto [pos, fresh] =
          instruction_location_.emplace(instr.id(), Location{c, i});
      if (!fresh) {
        return Invalid(absl::StrCat(
            InstrContext(c, i), " has id ", instr.id(), ", already used by ",
            InstrContext(pos->second.computation, pos->second.instruction)));
      }
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<HloInstruction*> Importer::FindInstruction(
    int c, int64_t id, absl::string_view what, int user) const {
  auto it = instruction_location_.find(id);
  if (it == instruction_location_.end()) {
    return Invalid(absl::StrCat(InstrContext(c, user), ": ", what,
                                " refers to unknown instruction id ", id));
  }
  if (it->second.computation != c) {
    return Invalid(absl::StrCat(
        InstrContext(c, user), ": ", what, " refers to ",
        InstrContext(it->second.computation, it->second.instruction)));
  }
  return instructions_[c][it->second.instruction];
}

// Depth-first post-order over operand and control edges, starting from the
// instructions in proto order, so an already topological proto keeps its
// order. Also checks that every edge stays inside the computation.
absl::StatusOr<std::vector<int>> Importer::InstructionOrder(int c) const {
  const xla::HloComputationProto& comp = proto_.computations(c);
  const int n = comp.instructions_size();
  // Edges as proto indices.
  std::vector<std::vector<int>> deps(n);
  for (int i = 0; i < n; ++i) {
    const xla::HloInstructionProto& instr = comp.instructions(i);
    auto add = [&](int64_t id, absl::string_view what) -> absl::Status {
      auto it = instruction_location_.find(id);
      if (it == instruction_location_.end()) {
        return Invalid(absl::StrCat(InstrContext(c, i), ": ", what,
                                    " refers to unknown instruction id ", id));
      }
      if (it->second.computation != c) {
        return Invalid(absl::StrCat(
            InstrContext(c, i), ": ", what, " refers to ",
            InstrContext(it->second.computation, it->second.instruction)));
      }
      deps[i].push_back(it->second.instruction);
      return absl::OkStatus();
    };
    for (int k = 0; k < instr.operand_ids_size(); ++k) {
      HLOC_RETURN_IF_ERROR(add(instr.operand_ids(k), absl::StrCat("operand ", k)));
    }
    for (int64_t id : instr.control_predecessor_ids()) {
      HLOC_RETURN_IF_ERROR(add(id, "control predecessor"));
    }
  }
  enum State : uint8_t { kNew, kActive, kDone };
  std::vector<State> state(n, kNew);
  std::vector<int> order;
  order.reserve(n);
  for (int start = 0; start < n; ++start) {
    if (state[start] != kNew) continue;
    std::vector<std::pair<int, size_t>> stack = {{start, 0}};
    state[start] = kActive;
    while (!stack.empty()) {
      auto& [node, next] = stack.back();
      if (next < deps[node].size()) {
        int dep = deps[node][next++];
        if (state[dep] == kActive) {
          return Invalid(absl::StrCat("cycle through ", InstrContext(c, dep),
                                      " and ", InstrContext(c, node)));
        }
        if (state[dep] == kNew) {
          state[dep] = kActive;
          stack.push_back({dep, 0});
        }
        continue;
      }
      state[node] = kDone;
      order.push_back(node);
      stack.pop_back();
    }
  }
  return order;
}

absl::StatusOr<std::unique_ptr<HloInstruction>> Importer::BuildInstruction(
    int c, int i) {
  const xla::HloInstructionProto& p = proto_.computations(c).instructions(i);
  absl::StatusOr<HloOpcode> opcode = StringToHloOpcode(p.opcode());
  if (!opcode.ok()) {
    return Invalid(absl::StrCat("unknown opcode '", p.opcode(), "'"));
  }
  HLOC_RETURN_IF_ERROR(CheckArity(p, *opcode));
  if (!p.has_shape()) return Invalid("instruction has no shape");
  HLOC_ASSIGN_OR_RETURN(Shape shape, ImportShape(p.shape()));

  std::vector<HloInstruction*> operands;
  for (int k = 0; k < p.operand_ids_size(); ++k) {
    HLOC_ASSIGN_OR_RETURN(
        HloInstruction * operand,
        FindInstruction(c, p.operand_ids(k), absl::StrCat("operand ", k), i));
    operands.push_back(operand);
  }
  std::vector<HloComputation*> called;
  for (int64_t id : p.called_computation_ids()) {
    auto it = computation_index_.find(id);
    if (it == computation_index_.end()) {
      return Invalid(absl::StrCat("calls unknown computation id ", id));
    }
    called.push_back(raw_computations_[it->second]);
  }
  // XLA keeps a while's computations as {body, condition}; the IR as
  // {condition, body}.
  if (*opcode == HloOpcode::kWhile) std::swap(called[0], called[1]);

  std::unique_ptr<HloInstruction> instr =
      HloInstruction::Create(*opcode, shape, operands);
  instr->SetName(p.name());
  instr->SetUniqueId(p.id());
  instr->set_called_computations(std::move(called));
  HLOC_RETURN_IF_ERROR(ImportAttributes(p, instr.get()));
  ImportMetadata(p.metadata(), instr->mutable_metadata());
  for (const auto& [key, value] : p.frontend_attributes().map()) {
    (*instr->mutable_frontend_attributes())[key] = value;
  }
  std::string backend_config = p.backend_config();
  if (backend_config.empty() && p.has_backend_config_payload()) {
    const xla::Payload& payload = p.backend_config_payload();
    if (payload.has_id()) {
      if (payload.id() < 0 || payload.id() >= proto_.payloads_size()) {
        return Invalid(absl::StrCat("backend_config payload id ", payload.id(),
                                    " is out of range"));
      }
      backend_config = proto_.payloads(payload.id());
    } else {
      backend_config = payload.value();
    }
  }
  instr->set_backend_config(std::move(backend_config));
  if (p.has_sharding()) {
    HLOC_ASSIGN_OR_RETURN(std::string sharding, ShardingToText(p.sharding()));
    instr->set_sharding(std::move(sharding));
  }
  return instr;
}

absl::Status Importer::BuildComputation(int c) {
  const xla::HloComputationProto& comp = proto_.computations(c);
  HloComputation* computation = raw_computations_[c];
  HLOC_ASSIGN_OR_RETURN(std::vector<int> order, InstructionOrder(c));
  instructions_[c].assign(comp.instructions_size(), nullptr);
  std::vector<HloInstruction*> parameters;
  for (int i : order) {
    absl::StatusOr<std::unique_ptr<HloInstruction>> instr =
        BuildInstruction(c, i);
    if (!instr.ok()) return Annotate(instr.status(), InstrContext(c, i));
    HloInstruction* raw;
    if ((*instr)->opcode() == HloOpcode::kParameter) {
      int64_t number = (*instr)->parameter_number();
      if (number < 0 || number >= comp.instructions_size()) {
        return Invalid(absl::StrCat(InstrContext(c, i), ": parameter number ",
                                    number, " is out of range"));
      }
      if (static_cast<int64_t>(parameters.size()) <= number) {
        parameters.resize(number + 1, nullptr);
      }
      if (parameters[number] != nullptr) {
        return Invalid(absl::StrCat(InstrContext(c, i), ": parameter number ",
                                    number, " is also used by '",
                                    parameters[number]->name(), "'"));
      }
      raw = computation->AddParameter(*std::move(instr));
      parameters[number] = raw;
    } else {
      raw = computation->AddInstruction(*std::move(instr));
    }
    instructions_[c][i] = raw;
  }
  for (size_t number = 0; number < parameters.size(); ++number) {
    if (parameters[number] == nullptr) {
      return Invalid(absl::StrCat("computation '", comp.name(),
                                  "' has no parameter ", number, " but has ",
                                  parameters.size() - 1));
    }
  }
  for (int i = 0; i < comp.instructions_size(); ++i) {
    for (int64_t id : comp.instructions(i).control_predecessor_ids()) {
      HLOC_ASSIGN_OR_RETURN(HloInstruction * pred,
                       FindInstruction(c, id, "control predecessor", i));
      absl::Status st = pred->AddControlDependencyTo(instructions_[c][i]);
      if (!st.ok()) return Annotate(st, InstrContext(c, i));
    }
  }
  auto root = instruction_location_.find(comp.root_id());
  if (root != instruction_location_.end() && root->second.computation == c) {
    computation->set_root_instruction(
        instructions_[c][root->second.instruction]);
  } else if (comp.root_id() == 0) {
    // No root given: XLA's convention is the last instruction.
    computation->set_root_instruction(
        instructions_[c][comp.instructions_size() - 1]);
  } else {
    return Invalid(absl::StrCat("computation '", comp.name(), "': root id ",
                                comp.root_id(),
                                " is not an instruction of it"));
  }
  return absl::OkStatus();
}

// Callee-first order of the computations: depth-first post-order over the
// call graph, starting from the computations in proto order. Recursion (a
// computation reaching itself) is an error.
absl::StatusOr<std::vector<int>> Importer::ComputationOrder() const {
  const int n = proto_.computations_size();
  std::vector<std::vector<int>> callees(n);
  for (int c = 0; c < n; ++c) {
    for (const auto& instr : proto_.computations(c).instructions()) {
      for (int64_t id : instr.called_computation_ids()) {
        callees[c].push_back(computation_index_.at(id));
      }
    }
  }
  enum State : uint8_t { kNew, kActive, kDone };
  std::vector<State> state(n, kNew);
  std::vector<int> order;
  for (int start = 0; start < n; ++start) {
    if (state[start] != kNew) continue;
    std::vector<std::pair<int, size_t>> stack = {{start, 0}};
    state[start] = kActive;
    while (!stack.empty()) {
      auto& [node, next] = stack.back();
      if (next < callees[node].size()) {
        int callee = callees[node][next++];
        if (state[callee] == kActive) {
          return Invalid(
              absl::StrCat("computation '", proto_.computations(node).name(),
                           "' calls '", proto_.computations(callee).name(),
                           "', which (directly or not) calls it back"));
        }
        if (state[callee] == kNew) {
          state[callee] = kActive;
          stack.push_back({callee, 0});
        }
        continue;
      }
      state[node] = kDone;
      order.push_back(node);
      stack.pop_back();
    }
  }
  return order;
}

absl::StatusOr<HloComputation*> Importer::FindEntry() const {
  auto it = computation_index_.find(proto_.entry_computation_id());
  if (it != computation_index_.end()) return raw_computations_[it->second];
  if (!proto_.entry_computation_name().empty()) {
    for (int c = 0; c < proto_.computations_size(); ++c) {
      if (proto_.computations(c).name() == proto_.entry_computation_name()) {
        return raw_computations_[c];
      }
    }
    return Invalid(absl::StrCat(
        "entry computation '", proto_.entry_computation_name(), "' (id ",
        proto_.entry_computation_id(), ") is not in the module"));
  }
  if (proto_.entry_computation_id() != 0) {
    return Invalid(absl::StrCat("entry computation id ",
                                proto_.entry_computation_id(),
                                " is not in the module"));
  }
  // Neither given: XLA lists the entry last.
  return raw_computations_.back();
}

absl::Status Importer::ImportConfig(HloModule* module) {
  HloModuleConfig& config = module->mutable_config();
  HloComputation* entry = module->entry_computation();
  if (proto_.has_host_program_shape()) {
    absl::StatusOr<ProgramShape> layout =
        ImportProgramShape(proto_.host_program_shape());
    if (!layout.ok()) return Annotate(layout.status(), "host_program_shape");
    if (static_cast<int64_t>(layout->parameters.size()) !=
        entry->num_parameters()) {
      return Invalid(
          absl::StrCat("host_program_shape has ", layout->parameters.size(),
                       " parameters, the entry computation '", entry->name(),
                       "' has ", entry->num_parameters()));
    }
    for (int64_t i = 0; i < entry->num_parameters(); ++i) {
      if (!layout->parameters[i].Compatible(
              entry->parameter_instruction(i)->shape())) {
        return Invalid(
            absl::StrCat("host_program_shape parameter ", i, " is ",
                         layout->parameters[i].ToString(), ", the entry's is ",
                         entry->parameter_instruction(i)->shape().ToString()));
      }
    }
    if (!layout->result.Compatible(entry->root_instruction()->shape())) {
      return Invalid(absl::StrCat(
          "host_program_shape result is ", layout->result.ToString(),
          ", the entry's is ", entry->root_instruction()->shape().ToString()));
    }
    config.entry_computation_layout = *std::move(layout);
  }
  for (const auto& e : proto_.input_output_alias().entries()) {
    InputOutputAlias alias;
    alias.output_index = Vec(e.output_shape_index());
    alias.parameter_number = e.parameter_number();
    alias.parameter_index = Vec(e.parameter_shape_index());
    alias.must_alias = e.kind() == xla::MUST_ALIAS;
    config.input_output_alias.push_back(std::move(alias));
  }
  for (const auto& e : proto_.buffer_donor().entries()) {
    config.buffer_donor.push_back(
        {e.parameter_number(), Vec(e.parameter_shape_index())});
  }
  for (const auto& [key, value] : proto_.frontend_attributes().map()) {
    config.frontend_attributes[key] = value;
  }
  // HloModuleProto has no replica_count/num_partitions; XLA writes the
  // device assignment it compiled for, whose shape is exactly those.
  if (proto_.has_device_assignment()) {
    const xla::DeviceAssignmentProto& da = proto_.device_assignment();
    if (da.replica_count() < 1 || da.computation_count() < 1) {
      return Invalid(absl::StrCat(
          "device_assignment has replica_count ", da.replica_count(),
          " and computation_count ", da.computation_count(),
          "; both must be at least 1"));
    }
    config.replica_count = da.replica_count();
    config.num_partitions = da.computation_count();
  }
  if (proto_.has_schedule()) {
    config.is_scheduled = true;
    // Sequences in computation order, for a deterministic walk of the map.
    for (int c = 0; c < proto_.computations_size(); ++c) {
      auto seq =
          proto_.schedule().sequences().find(proto_.computations(c).id());
      if (seq == proto_.schedule().sequences().end()) continue;
      std::vector<HloInstruction*> order;
      for (int64_t id : seq->second.instruction_ids()) {
        auto it = instruction_location_.find(id);
        if (it == instruction_location_.end() || it->second.computation != c) {
          return Invalid(absl::StrCat(
              "schedule of computation '", proto_.computations(c).name(),
              "' lists id ", id, ", not an instruction of it"));
        }
        order.push_back(instructions_[c][it->second.instruction]);
      }
      module->mutable_schedule()[raw_computations_[c]] = std::move(order);
    }
    for (const auto& [id, seq] : proto_.schedule().sequences()) {
      if (!computation_index_.contains(id)) {
        return Invalid(
            absl::StrCat("schedule names unknown computation id ", id));
      }
    }
  }

  const xla::StackFrameIndexProto& frames = proto_.stack_frame_index();
  StackFrameIndex& index = module->mutable_stack_frames();
  index.file_names.assign(frames.file_names().begin(),
                          frames.file_names().end());
  index.function_names.assign(frames.function_names().begin(),
                              frames.function_names().end());
  auto in_range = [](int64_t id, int size) { return id >= 0 && id <= size; };
  for (const auto& loc : frames.file_locations()) {
    if (!in_range(loc.file_name_id(), frames.file_names_size()) ||
        !in_range(loc.function_name_id(), frames.function_names_size())) {
      return Invalid(
          "stack_frame_index: file location refers to a missing "
          "file or function name");
    }
    StackFrameIndex::FileLocation l;
    l.file_name_id = loc.file_name_id();
    l.function_name_id = loc.function_name_id();
    l.line = loc.line();
    l.end_line = loc.end_line();
    l.column = loc.column();
    l.end_column = loc.end_column();
    index.file_locations.push_back(l);
  }
  for (int f = 0; f < frames.stack_frames_size(); ++f) {
    const auto& frame = frames.stack_frames(f);
    if (!in_range(frame.file_location_id(), frames.file_locations_size()) ||
        !in_range(frame.parent_frame_id(), frames.stack_frames_size())) {
      return Invalid(absl::StrCat("stack_frame_index: stack frame ", f + 1,
                                  " refers to a missing location or parent"));
    }
    index.stack_frames.push_back(
        {frame.file_location_id(), frame.parent_frame_id()});
  }
  for (HloComputation* computation : module->computations()) {
    for (HloInstruction* instr : computation->instructions()) {
      int64_t frame = instr->metadata().stack_frame_id;
      if (frame < 0 || frame > frames.stack_frames_size()) {
        return Invalid(absl::StrCat("instruction '", instr->name(),
                                    "': metadata stack_frame_id ", frame,
                                    " is out of range"));
      }
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<HloModule>> Importer::Run() {
  if (proto_.computations_size() == 0) {
    return Invalid("module has no computations");
  }
  HLOC_RETURN_IF_ERROR(IndexIds());
  for (const auto& comp : proto_.computations()) {
    auto computation = std::make_unique<HloComputation>(comp.name());
    computation->SetUniqueId(comp.id());
    raw_computations_.push_back(computation.get());
    computations_.push_back(std::move(computation));
  }
  instructions_.resize(proto_.computations_size());
  for (int c = 0; c < proto_.computations_size(); ++c) {
    HLOC_RETURN_IF_ERROR(BuildComputation(c));
  }
  HLOC_ASSIGN_OR_RETURN(std::vector<int> order, ComputationOrder());
  HLOC_ASSIGN_OR_RETURN(HloComputation * entry, FindEntry());

  auto module = std::make_unique<HloModule>(proto_.name());
  module->set_unique_id(proto_.id());
  for (const auto& [id, location] : instruction_location_) {
    module->RegisterUniqueId(id);
  }
  for (int c : order) {
    module->AddEmbeddedComputation(std::move(computations_[c]));
  }
  module->set_entry_computation(entry);
  HLOC_RETURN_IF_ERROR(ImportConfig(module.get()));
  return module;
}

}  // namespace

absl::StatusOr<std::unique_ptr<HloModule>> ImportHloModuleProto(
    const xla::HloModuleProto& proto) {
  Importer importer(proto);
  absl::StatusOr<std::unique_ptr<HloModule>> module = importer.Run();
  if (!module.ok()) {
    return Annotate(module.status(),
                    absl::StrCat("HloModuleProto '", proto.name(), "'"));
  }
  return module;
}

absl::StatusOr<std::unique_ptr<HloModule>> ParseHloModuleProtoBytes(
    absl::string_view bytes, absl::string_view filename) {
  if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max())) {
    return Invalid(absl::StrCat(filename, ": ", bytes.size(),
                                " bytes is too large for a protobuf message"));
  }
  const int size = static_cast<int>(bytes.size());
  xla::HloModuleProto proto;
  bool parsed = proto.ParseFromArray(bytes.data(), size);
  if (!parsed || proto.computations_size() == 0) {
    // XLA's dump files wrap the module in an HloProto.
    xla::HloProto wrapper;
    if (wrapper.ParseFromArray(bytes.data(), size) &&
        wrapper.hlo_module().computations_size() > 0) {
      proto = std::move(*wrapper.mutable_hlo_module());
      parsed = true;
    }
  }
  if (!parsed) {
    return Invalid(
        absl::StrCat(filename, ": not a valid serialized HloModuleProto (",
                     bytes.size(), " bytes; truncated or corrupt?)"));
  }
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ImportHloModuleProto(proto);
  if (!module.ok()) return Annotate(module.status(), filename);
  return module;
}

}  // namespace hloc
