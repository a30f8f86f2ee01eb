// Export of the IR as xla.HloModuleProto: the inverse of proto_import.cc,
// writing fields the way XLA does (compare's type and order, dot and
// convolution precision configs, a while's {body, condition}) so XLA reads
// the result as its own.
#include "hlo/proto/proto_export.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "hlo/computation.h"
#include "hlo/instruction.h"
#include "hlo/proto/enum_map.h"
#include "hlo/proto/sharding_text.h"
#include "hlo/status_macros.h"

namespace hloc {
namespace {

void ExportLayout(const Layout& layout, xla::LayoutProto* p) {
  for (int64_t d : layout.minor_to_major) p->add_minor_to_major(d);
  for (const Tile& tile : layout.tiles) {
    xla::TileProto* t = p->add_tiles();
    for (int64_t d : tile.dimensions) t->add_dimensions(d);
  }
  p->set_element_size_in_bits(layout.element_size_in_bits);
  p->set_memory_space(layout.memory_space);
  p->set_tail_padding_alignment_in_elements(
      layout.tail_padding_alignment_in_elements);
  p->set_dynamic_shape_metadata_prefix_bytes(
      layout.dynamic_shape_metadata_prefix_bytes);
  if (layout.index_primitive_type != PRIMITIVE_TYPE_INVALID) {
    p->set_index_primitive_type(
        PrimitiveTypeToProto(layout.index_primitive_type));
  }
  if (layout.pointer_primitive_type != PRIMITIVE_TYPE_INVALID) {
    p->set_pointer_primitive_type(
        PrimitiveTypeToProto(layout.pointer_primitive_type));
  }
}

void ExportShape(const Shape& shape, xla::ShapeProto* p) {
  p->set_element_type(PrimitiveTypeToProto(shape.element_type()));
  if (shape.IsTuple()) {
    for (const Shape& element : shape.tuple_shapes()) {
      ExportShape(element, p->add_tuple_shapes());
    }
    return;
  }
  if (!shape.IsArray()) return;
  for (int64_t i = 0; i < shape.rank(); ++i) {
    p->add_dimensions(shape.dimensions(i));
    p->add_is_dynamic_dimension(shape.is_dynamic_dimension(i));
  }
  if (shape.has_layout()) ExportLayout(shape.layout(), p->mutable_layout());
}

void ExportProgramShape(const ProgramShape& shape, xla::ProgramShapeProto* p) {
  for (const Shape& param : shape.parameters) {
    ExportShape(param, p->add_parameters());
  }
  ExportShape(shape.result, p->mutable_result());
  for (const std::string& name : shape.parameter_names) {
    p->add_parameter_names(name);
  }
}

template <typename T, typename Field>
void AppendRepeated(const Literal& literal, int64_t values, Field* field) {
  const T* data = reinterpret_cast<const T*>(literal.untyped_data());
  field->Reserve(static_cast<int>(values));
  for (int64_t i = 0; i < values; ++i) field->Add(data[i]);
}

// Little-endian bytes of `width`-byte elements.
std::string Bytes(const Literal& literal, int64_t width) {
  const int64_t n = literal.element_count();
  std::string out(n * width, '\0');
  if (width == 2) {
    for (int64_t i = 0; i < n; ++i) {
      uint16_t v;
      std::memcpy(&v, literal.untyped_data() + 2 * i, 2);
      out[2 * i] = static_cast<char>(v & 0xff);
      out[2 * i + 1] = static_cast<char>(v >> 8);
    }
  } else if (n > 0) {
    std::memcpy(out.data(), literal.untyped_data(), n * width);
  }
  return out;
}

absl::Status ExportLiteral(const Literal& literal, xla::LiteralProto* p) {
  ExportShape(literal.shape(), p->mutable_shape());
  if (literal.shape().IsTuple()) {
    for (const Literal& element : literal.tuple_elements()) {
      HLOC_RETURN_IF_ERROR(ExportLiteral(element, p->add_tuple_literals()));
    }
    return absl::OkStatus();
  }
  if (!literal.shape().IsArray()) return absl::OkStatus();
  const int64_t n = literal.element_count();
  switch (literal.element_type()) {
    case PRED:
      for (int64_t i = 0; i < n; ++i) {
        p->add_preds(literal.data<bool>()[i]);
      }
      break;
    case S8:
      p->set_s8s(Bytes(literal, 1));
      break;
    case U8:
      p->set_u8s(Bytes(literal, 1));
      break;
    case S16:
      p->set_s16s(Bytes(literal, 2));
      break;
    case U16:
      p->set_u16s(Bytes(literal, 2));
      break;
    case F16:
      p->set_f16s(Bytes(literal, 2));
      break;
    case BF16:
      p->set_bf16s(Bytes(literal, 2));
      break;
    case S32:
      AppendRepeated<int32_t>(literal, n, p->mutable_s32s());
      break;
    case S64:
      AppendRepeated<int64_t>(literal, n, p->mutable_s64s());
      break;
    case U32:
      AppendRepeated<uint32_t>(literal, n, p->mutable_u32s());
      break;
    case U64:
      AppendRepeated<uint64_t>(literal, n, p->mutable_u64s());
      break;
    case F32:
      AppendRepeated<float>(literal, n, p->mutable_f32s());
      break;
    case F64:
      AppendRepeated<double>(literal, n, p->mutable_f64s());
      break;
    case C64:
      AppendRepeated<float>(literal, 2 * n, p->mutable_c64s());
      break;
    case C128:
      AppendRepeated<double>(literal, 2 * n, p->mutable_c128s());
      break;
#define HLOC_NARROW(T, field)          \
  case T:                              \
    p->set_##field(Bytes(literal, 1)); \
    break;
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
      return absl::InvalidArgumentError(
          absl::StrCat("cannot export a literal of type ",
                       PrimitiveTypeName(literal.element_type())));
  }
  return absl::OkStatus();
}

template <typename Field>
void SetRepeated(const std::vector<int64_t>& values, Field* field) {
  for (int64_t v : values) field->Add(v);
}

void ExportDot(const DotDimensionNumbers& d, xla::DotDimensionNumbers* p) {
  SetRepeated(d.lhs_contracting_dimensions,
              p->mutable_lhs_contracting_dimensions());
  SetRepeated(d.rhs_contracting_dimensions,
              p->mutable_rhs_contracting_dimensions());
  SetRepeated(d.lhs_batch_dimensions, p->mutable_lhs_batch_dimensions());
  SetRepeated(d.rhs_batch_dimensions, p->mutable_rhs_batch_dimensions());
}

void ExportWindow(const Window& window, xla::Window* p) {
  for (const WindowDimension& d : window.dimensions) {
    xla::WindowDimension* w = p->add_dimensions();
    w->set_size(d.size);
    w->set_stride(d.stride);
    w->set_padding_low(d.padding_low);
    w->set_padding_high(d.padding_high);
    w->set_window_dilation(d.window_dilation);
    w->set_base_dilation(d.base_dilation);
    w->set_window_reversal(d.window_reversal);
  }
}

void ExportConv(const ConvolutionDimensionNumbers& d,
                xla::ConvolutionDimensionNumbers* p) {
  p->set_input_batch_dimension(d.input_batch_dimension);
  p->set_input_feature_dimension(d.input_feature_dimension);
  SetRepeated(d.input_spatial_dimensions,
              p->mutable_input_spatial_dimensions());
  p->set_kernel_input_feature_dimension(d.kernel_input_feature_dimension);
  p->set_kernel_output_feature_dimension(d.kernel_output_feature_dimension);
  SetRepeated(d.kernel_spatial_dimensions,
              p->mutable_kernel_spatial_dimensions());
  p->set_output_batch_dimension(d.output_batch_dimension);
  p->set_output_feature_dimension(d.output_feature_dimension);
  SetRepeated(d.output_spatial_dimensions,
              p->mutable_output_spatial_dimensions());
}

void ExportGather(const GatherDimensionNumbers& d,
                  xla::GatherDimensionNumbers* p) {
  SetRepeated(d.offset_dims, p->mutable_offset_dims());
  SetRepeated(d.collapsed_slice_dims, p->mutable_collapsed_slice_dims());
  SetRepeated(d.start_index_map, p->mutable_start_index_map());
  p->set_index_vector_dim(d.index_vector_dim);
  SetRepeated(d.operand_batching_dims, p->mutable_operand_batching_dims());
  SetRepeated(d.start_indices_batching_dims,
              p->mutable_start_indices_batching_dims());
}

void ExportScatter(const ScatterDimensionNumbers& d,
                   xla::ScatterDimensionNumbers* p) {
  SetRepeated(d.update_window_dims, p->mutable_update_window_dims());
  SetRepeated(d.inserted_window_dims, p->mutable_inserted_window_dims());
  SetRepeated(d.scatter_dims_to_operand_dims,
              p->mutable_scatter_dims_to_operand_dims());
  p->set_index_vector_dim(d.index_vector_dim);
  SetRepeated(d.input_batching_dims, p->mutable_input_batching_dims());
  SetRepeated(d.scatter_indices_batching_dims,
              p->mutable_scatter_indices_batching_dims());
}

// Writes compare's type and order explicitly, as XLA does; kDefault means
// implied by the element type (see ImportCompare in proto_import.cc).
void ExportCompare(const HloInstruction& instr, xla::HloInstructionProto* p) {
  const HloAttributes& a = instr.attrs();
  const PrimitiveType element = instr.operand_count() > 0
                                    ? instr.operand(0)->shape().element_type()
                                    : PRIMITIVE_TYPE_INVALID;
  const bool is_float = IsFloatingPointType(element) || IsComplexType(element);
  p->set_comparison_direction(
      std::string(ComparisonDirectionString(a.comparison_direction)));
  ComparisonOrder order = a.comparison_order;
  if (order == ComparisonOrder::kDefault) {
    order = a.comparison_type == ComparisonType::kTotalOrder || !is_float
                ? ComparisonOrder::kTotal
                : ComparisonOrder::kPartial;
  }
  ComparisonType type = a.comparison_type;
  if (type == ComparisonType::kDefault) {
    if (is_float) {
      type = order == ComparisonOrder::kTotal ? ComparisonType::kTotalOrder
                                              : ComparisonType::kFloat;
    } else {
      type = IsSignedIntegralType(element) ? ComparisonType::kSigned
                                           : ComparisonType::kUnsigned;
    }
  }
  p->set_comparison_type(std::string(ComparisonTypeString(type)));
  p->set_comparison_order(std::string(ComparisonOrderString(order)));
}

bool UsesPrecisionConfig(HloOpcode opcode) {
  return opcode == HloOpcode::kDot || opcode == HloOpcode::kConvolution ||
         opcode == HloOpcode::kRaggedDot || opcode == HloOpcode::kScaledDot;
}

bool UsesWindow(HloOpcode opcode) {
  return opcode == HloOpcode::kConvolution ||
         opcode == HloOpcode::kReduceWindow ||
         opcode == HloOpcode::kSelectAndScatter;
}

bool IsAsync(HloOpcode opcode) {
  return opcode == HloOpcode::kAsyncStart ||
         opcode == HloOpcode::kAsyncUpdate || opcode == HloOpcode::kAsyncDone;
}

absl::Status ExportAttributes(const HloInstruction& instr,
                              xla::HloInstructionProto* p) {
  const HloAttributes& a = instr.attrs();
  const HloOpcode opcode = instr.opcode();
  if (opcode == HloOpcode::kIota) {
    p->add_dimensions(a.iota_dimension);
  } else {
    SetRepeated(a.dimensions, p->mutable_dimensions());
  }
  for (size_t i = 0; i < a.slice_starts.size(); ++i) {
    auto* s = p->add_slice_dimensions();
    s->set_start(a.slice_starts[i]);
    if (i < a.slice_limits.size()) s->set_limit(a.slice_limits[i]);
    s->set_stride(i < a.slice_strides.size() ? a.slice_strides[i] : 1);
  }
  SetRepeated(a.dynamic_slice_sizes, p->mutable_dynamic_slice_sizes());
  if (a.window) {
    ExportWindow(*a.window, p->mutable_window());
  } else if (UsesWindow(opcode)) {
    p->mutable_window();
  }
  if (a.padding_config) {
    auto* config = p->mutable_padding_config();
    for (const PaddingDimension& d : a.padding_config->dimensions) {
      auto* dim = config->add_dimensions();
      dim->set_edge_padding_low(d.edge_padding_low);
      dim->set_edge_padding_high(d.edge_padding_high);
      dim->set_interior_padding(d.interior_padding);
    }
  } else if (opcode == HloOpcode::kPad) {
    p->mutable_padding_config();
  }
  if (a.dot_dimension_numbers) {
    ExportDot(*a.dot_dimension_numbers, p->mutable_dot_dimension_numbers());
  } else if (opcode == HloOpcode::kDot) {
    p->mutable_dot_dimension_numbers();
  }
  if (a.ragged_dot_dimension_numbers) {
    auto* r = p->mutable_ragged_dot_dimension_numbers();
    ExportDot(a.ragged_dot_dimension_numbers->dot_dimension_numbers,
              r->mutable_dot_dimension_numbers());
    SetRepeated(a.ragged_dot_dimension_numbers->lhs_ragged_dimensions,
                r->mutable_lhs_ragged_dimensions());
    SetRepeated(a.ragged_dot_dimension_numbers->rhs_group_dimensions,
                r->mutable_rhs_group_dimensions());
  }
  if (a.convolution_dimension_numbers) {
    ExportConv(*a.convolution_dimension_numbers,
               p->mutable_convolution_dimension_numbers());
  } else if (opcode == HloOpcode::kConvolution) {
    p->mutable_convolution_dimension_numbers();
  }
  if (opcode == HloOpcode::kConvolution || a.feature_group_count != 1) {
    p->set_feature_group_count(a.feature_group_count);
  }
  if (opcode == HloOpcode::kConvolution || a.batch_group_count != 1) {
    p->set_batch_group_count(a.batch_group_count);
  }
  if (a.result_accuracy) {
    xla::ResultAccuracy* r = p->mutable_result_accuracy();
    if (a.result_accuracy->has_tolerance) {
      r->mutable_tolerance()->set_atol(a.result_accuracy->atol);
      r->mutable_tolerance()->set_rtol(a.result_accuracy->rtol);
      r->mutable_tolerance()->set_ulps(a.result_accuracy->ulps);
    } else {
      r->set_mode(a.result_accuracy->mode == ResultAccuracy::Mode::kHighest
                      ? xla::ResultAccuracy::HIGHEST
                      : xla::ResultAccuracy::DEFAULT);
    }
  }
  if (a.precision_config || UsesPrecisionConfig(opcode)) {
    auto* config = p->mutable_precision_config();
    if (a.precision_config) {
      for (Precision precision : a.precision_config->operand_precision) {
        config->add_operand_precision(
            static_cast<xla::PrecisionConfig::Precision>(precision));
      }
      config->set_algorithm(static_cast<xla::PrecisionConfig::Algorithm>(
          a.precision_config->algorithm));
    }
    // XLA gives every operand a precision.
    while (UsesPrecisionConfig(opcode) &&
           config->operand_precision_size() < instr.operand_count()) {
      config->add_operand_precision(xla::PrecisionConfig::DEFAULT);
    }
  }
  if (a.gather_dimension_numbers) {
    ExportGather(*a.gather_dimension_numbers,
                 p->mutable_gather_dimension_numbers());
  }
  SetRepeated(a.gather_slice_sizes, p->mutable_gather_slice_sizes());
  if (a.scatter_dimension_numbers) {
    ExportScatter(*a.scatter_dimension_numbers,
                  p->mutable_scatter_dimension_numbers());
  }
  p->set_indices_are_sorted(a.indices_are_sorted);
  p->set_unique_indices(a.unique_indices);
  if (opcode == HloOpcode::kCompare) ExportCompare(instr, p);
  if (opcode == HloOpcode::kFusion) {
    p->set_fusion_kind(std::string(FusionKindString(a.fusion_kind)));
  }
  p->set_tuple_index(a.tuple_index);
  p->set_parameter_number(a.parameter_number);
  if (a.literal)
    HLOC_RETURN_IF_ERROR(ExportLiteral(*a.literal, p->mutable_literal()));
  p->set_exponent_bits(static_cast<int32_t>(a.exponent_bits));
  p->set_mantissa_bits(static_cast<int32_t>(a.mantissa_bits));
  p->set_is_stable(a.is_stable);
  p->set_k(a.k);
  if (opcode == HloOpcode::kTopK) p->set_largest(a.largest);
  p->set_num_carries(a.num_carries);
  p->set_is_reverse(a.is_reverse);
  if (a.is_associative) p->set_is_associative(xla::TRI_STATE_TRUE);
  p->set_epsilon(a.epsilon);
  p->set_feature_index(a.feature_index);
  p->set_distribution(static_cast<xla::RandomDistribution>(a.distribution));
  p->set_rng_algorithm(static_cast<xla::RandomAlgorithm>(a.rng_algorithm));
  p->set_fft_type(static_cast<xla::FftType>(a.fft_type));
  SetRepeated(a.fft_length, p->mutable_fft_length());
  if (a.triangular_solve_options) {
    auto* t = p->mutable_triangular_solve_options();
    t->set_left_side(a.triangular_solve_options->left_side);
    t->set_lower(a.triangular_solve_options->lower);
    t->set_unit_diagonal(a.triangular_solve_options->unit_diagonal);
    t->set_transpose_a(static_cast<xla::TriangularSolveOptions::Transpose>(
        a.triangular_solve_options->transpose_a));
  }
  if (a.cholesky_lower || opcode == HloOpcode::kCholesky) {
    p->mutable_cholesky_options()->set_lower(a.cholesky_lower);
  }
  p->set_custom_call_target(a.custom_call_target);
  if (opcode == HloOpcode::kCustomCall) {
    p->set_custom_call_api_version(
        static_cast<xla::CustomCallApiVersion>(a.api_version));
    p->set_custom_call_has_side_effect(a.custom_call_has_side_effect);
    p->set_custom_call_schedule(
        static_cast<xla::CustomCallSchedule>(a.custom_call_schedule));
    if (a.operand_layout_constraints) {
      p->set_constrain_layout(true);
      for (const Shape& shape : *a.operand_layout_constraints) {
        ExportShape(shape, p->add_operand_shapes_with_layout());
      }
    }
  } else {
    p->set_constrain_layout(a.constrain_layout);
  }
  for (const OutputOperandAlias& alias : a.output_to_operand_aliasing) {
    auto* out = p->add_output_operand_aliasing();
    SetRepeated(alias.output_shape_index, out->mutable_output_shape_index());
    out->set_operand_index(alias.operand_index);
    SetRepeated(alias.operand_shape_index, out->mutable_operand_shape_index());
  }
  if (a.channel_id) p->set_channel_id(*a.channel_id);
  if (!a.iota_replica_groups.empty()) {
    HLOC_ASSIGN_OR_RETURN(*p->mutable_iota_collective_device_list(),
                     IotaReplicaGroupsFromText(a.iota_replica_groups));
  } else if (!a.replica_groups.empty()) {
    auto* list = p->mutable_collective_device_list();
    for (const std::vector<int64_t>& group : a.replica_groups) {
      SetRepeated(group, list->add_replica_groups()->mutable_replica_ids());
    }
  }
  p->set_use_global_device_ids(a.use_global_device_ids);
  for (const auto& [source, target] : a.source_target_pairs) {
    auto* pair = p->add_source_target_pairs();
    pair->set_source(source);
    pair->set_target(target);
  }
  p->set_infeed_config(a.infeed_config);
  p->set_outfeed_config(a.outfeed_config);
  if (a.outfeed_shape)
    ExportShape(*a.outfeed_shape, p->mutable_outfeed_shape());
  p->set_is_host_transfer(a.is_host_transfer);
  if (!a.parameter_replication.empty()) {
    auto* replication = p->mutable_parameter_replication();
    for (bool r : a.parameter_replication) {
      replication->add_replicated_at_leaf_buffers(r);
    }
  }
  if (!a.async_execution_thread.empty()) {
    p->set_async_execution_thread(a.async_execution_thread);
  } else if (IsAsync(opcode)) {
    p->set_async_execution_thread("main");
  }
  for (const RawAttribute& raw : instr.raw_attributes()) {
    if (raw.name == "delta") {
      int64_t delta;
      if (!absl::SimpleAtoi(raw.value, &delta)) {
        return absl::InvalidArgumentError(
            absl::StrCat("bad delta '", raw.value, "'"));
      }
      p->set_delta(delta);
    } else if (raw.name == "is_composite") {
      p->set_is_composite(raw.value == "true");
    }
  }
  return absl::OkStatus();
}

void ExportMetadata(const OpMetadata& m, xla::OpMetadata* p) {
  p->set_op_type(m.op_type);
  p->set_op_name(m.op_name);
  p->set_source_file(m.source_file);
  p->set_source_line(static_cast<int32_t>(m.source_line));
  p->set_source_end_line(static_cast<int32_t>(m.source_end_line));
  p->set_source_column(static_cast<int32_t>(m.source_column));
  p->set_source_end_column(static_cast<int32_t>(m.source_end_column));
  p->set_deduplicated_name(m.deduplicated_name);
  p->set_stack_frame_id(static_cast<int32_t>(m.stack_frame_id));
  p->set_scheduling_name(m.scheduling_name);
}

// Proto ids: the IR's unique ids where they are non-negative and distinct,
// fresh ones (above every kept id) for the rest, in a deterministic order.
class IdAssigner {
 public:
  void Propose(const void* key, int64_t id) {
    order_.push_back(key);
    if (id >= 0 && used_.insert(id).second) {
      ids_[key] = id;
      next_ = std::max(next_, id + 1);
    }
  }
  void Finish() {
    for (const void* key : order_) {
      if (!ids_.contains(key)) ids_[key] = next_++;
    }
  }
  std::optional<int64_t> Find(const void* key) const {
    auto it = ids_.find(key);
    if (it == ids_.end()) return std::nullopt;
    return it->second;
  }

 private:
  std::vector<const void*> order_;
  absl::flat_hash_set<int64_t> used_;
  absl::flat_hash_map<const void*, int64_t> ids_;
  int64_t next_ = 0;
};

// The ids of a module's instructions and computations; references to
// anything outside the module are errors rather than dangling ids.
struct Ids {
  IdAssigner instructions;
  IdAssigner computations;

  absl::StatusOr<int64_t> Of(const HloInstruction* instr,
                             absl::string_view role) const {
    std::optional<int64_t> id = instr ? instructions.Find(instr) : std::nullopt;
    if (!id) {
      return absl::FailedPreconditionError(
          absl::StrCat(role, " '", instr ? instr->name() : "<null>",
                       "' is not an instruction of the module"));
    }
    return *id;
  }
  absl::StatusOr<int64_t> Of(const HloComputation* computation,
                             absl::string_view role) const {
    std::optional<int64_t> id =
        computation ? computations.Find(computation) : std::nullopt;
    if (!id) {
      return absl::FailedPreconditionError(
          absl::StrCat(role, " '", computation ? computation->name() : "<null>",
                       "' is not a computation of the module"));
    }
    return *id;
  }
};

absl::StatusOr<xla::HloInstructionProto> ExportInstruction(
    const HloInstruction& instr, const Ids& ids) {
  xla::HloInstructionProto p;
  p.set_name(instr.name());
  p.set_opcode(std::string(HloOpcodeString(instr.opcode())));
  ExportShape(instr.shape(), p.mutable_shape());
  HLOC_ASSIGN_OR_RETURN(int64_t id, ids.Of(&instr, "instruction"));
  p.set_id(id);
  for (const HloInstruction* operand : instr.operands()) {
    HLOC_ASSIGN_OR_RETURN(int64_t operand_id, ids.Of(operand, "operand"));
    p.add_operand_ids(operand_id);
  }
  for (const HloInstruction* pred : instr.control_predecessors()) {
    HLOC_ASSIGN_OR_RETURN(int64_t pred_id, ids.Of(pred, "control predecessor"));
    p.add_control_predecessor_ids(pred_id);
  }
  std::vector<HloComputation*> called = instr.called_computations();
  // XLA's while calls {body, condition}; the IR keeps {condition, body}.
  if (instr.opcode() == HloOpcode::kWhile && called.size() == 2) {
    std::swap(called[0], called[1]);
  }
  for (const HloComputation* computation : called) {
    HLOC_ASSIGN_OR_RETURN(int64_t callee, ids.Of(computation, "called computation"));
    p.add_called_computation_ids(callee);
  }
  HLOC_RETURN_IF_ERROR(ExportAttributes(instr, &p));
  if (!instr.metadata().empty()) {
    ExportMetadata(instr.metadata(), p.mutable_metadata());
  }
  auto* attributes = p.mutable_frontend_attributes()->mutable_map();
  for (const auto& [key, value] : instr.frontend_attributes()) {
    (*attributes)[key] = value;
  }
  p.set_backend_config(instr.backend_config());
  if (!instr.sharding().empty()) {
    HLOC_ASSIGN_OR_RETURN(*p.mutable_sharding(), ShardingFromText(instr.sharding()));
  }
  return p;
}

absl::Status ExportConfig(const HloModule& module, const Ids& ids,
                          xla::HloModuleProto* p) {
  const HloModuleConfig& config = module.config();
  ExportProgramShape(module.EntryComputationLayout(),
                     p->mutable_host_program_shape());
  auto* aliases = p->mutable_input_output_alias();
  for (const InputOutputAlias& alias : config.input_output_alias) {
    auto* entry = aliases->add_entries();
    SetRepeated(alias.output_index, entry->mutable_output_shape_index());
    entry->set_parameter_number(alias.parameter_number);
    SetRepeated(alias.parameter_index, entry->mutable_parameter_shape_index());
    entry->set_kind(alias.must_alias ? xla::MUST_ALIAS : xla::MAY_ALIAS);
  }
  auto* donors = p->mutable_buffer_donor();
  for (const BufferDonor& donor : config.buffer_donor) {
    auto* entry = donors->add_entries();
    entry->set_parameter_number(donor.parameter_number);
    SetRepeated(donor.parameter_index, entry->mutable_parameter_shape_index());
  }
  auto* attributes = p->mutable_frontend_attributes()->mutable_map();
  for (const auto& [key, value] : config.frontend_attributes) {
    (*attributes)[key] = value;
  }
  // The device assignment carries replica_count and num_partitions (see the
  // importer); devices are placed as XLA's default placer does,
  // computation-major.
  if (config.replica_count != 1 || config.num_partitions != 1) {
    auto* da = p->mutable_device_assignment();
    da->set_replica_count(config.replica_count);
    da->set_computation_count(config.num_partitions);
    for (int64_t c = 0; c < config.num_partitions; ++c) {
      auto* devices = da->add_computation_devices();
      for (int64_t r = 0; r < config.replica_count; ++r) {
        devices->add_replica_device_ids(c * config.replica_count + r);
      }
    }
  }
  if (module.has_schedule() || config.is_scheduled) {
    auto* sequences = p->mutable_schedule()->mutable_sequences();
    for (const HloComputation* computation : module.computations()) {
      auto it = module.schedule().find(computation);
      std::vector<HloInstruction*> order;
      if (it != module.schedule().end()) {
        order = it->second;
      } else if (!module.has_schedule() &&
                 !computation->IsFusionComputation()) {
        // Scheduled without an explicit schedule: the stored order is it.
        order = computation->instructions();
      } else {
        continue;
      }
      HLOC_ASSIGN_OR_RETURN(int64_t computation_id,
                       ids.Of(computation, "scheduled computation"));
      auto& seq = (*sequences)[computation_id];
      for (const HloInstruction* instr : order) {
        HLOC_ASSIGN_OR_RETURN(int64_t id, ids.Of(instr, "scheduled instruction"));
        seq.add_instruction_ids(id);
      }
    }
  }
  const StackFrameIndex& frames = module.stack_frames();
  auto* index = p->mutable_stack_frame_index();
  for (const std::string& name : frames.file_names) index->add_file_names(name);
  for (const std::string& name : frames.function_names) {
    index->add_function_names(name);
  }
  for (const auto& loc : frames.file_locations) {
    auto* l = index->add_file_locations();
    l->set_file_name_id(static_cast<int32_t>(loc.file_name_id));
    l->set_function_name_id(static_cast<int32_t>(loc.function_name_id));
    l->set_line(static_cast<int32_t>(loc.line));
    l->set_end_line(static_cast<int32_t>(loc.end_line));
    l->set_column(static_cast<int32_t>(loc.column));
    l->set_end_column(static_cast<int32_t>(loc.end_column));
  }
  for (const auto& frame : frames.stack_frames) {
    auto* f = index->add_stack_frames();
    f->set_file_location_id(static_cast<int32_t>(frame.file_location_id));
    f->set_parent_frame_id(static_cast<int32_t>(frame.parent_frame_id));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<xla::HloModuleProto> ExportHloModuleProto(
    const HloModule& module) {
  if (module.entry_computation() == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("module '", module.name(), "' has no entry computation"));
  }
  Ids ids;
  const std::vector<HloComputation*> computations = module.computations();
  for (const HloComputation* computation : computations) {
    ids.computations.Propose(computation, computation->unique_id());
    for (const HloInstruction* instr : computation->instructions()) {
      ids.instructions.Propose(instr, instr->unique_id());
    }
  }
  ids.computations.Finish();
  ids.instructions.Finish();

  xla::HloModuleProto p;
  p.set_name(module.name());
  p.set_id(module.unique_id());
  p.set_entry_computation_name(module.entry_computation()->name());
  HLOC_ASSIGN_OR_RETURN(int64_t entry_id,
                   ids.Of(module.entry_computation(), "entry computation"));
  p.set_entry_computation_id(entry_id);
  for (const HloComputation* computation : computations) {
    xla::HloComputationProto* c = p.add_computations();
    c->set_name(computation->name());
    c->set_id(*ids.computations.Find(computation));
    for (const HloInstruction* instr : computation->instructions()) {
      absl::StatusOr<xla::HloInstructionProto> proto =
          ExportInstruction(*instr, ids);
      if (!proto.ok()) {
        return absl::Status(
            proto.status().code(),
            absl::StrCat("instruction '", instr->name(), "' in computation '",
                         computation->name(), "': ", proto.status().message()));
      }
      *c->add_instructions() = *std::move(proto);
    }
    absl::StatusOr<int64_t> root =
        ids.Of(computation->root_instruction(), "root");
    if (!root.ok() ||
        computation->root_instruction()->parent() != computation) {
      return absl::FailedPreconditionError(absl::StrCat(
          "computation '", computation->name(), "' has no root of its own"));
    }
    c->set_root_id(*root);
    ExportProgramShape(computation->ComputeProgramShape(),
                       c->mutable_program_shape());
    c->set_is_fusion_computation(computation->IsFusionComputation());
  }
  HLOC_RETURN_IF_ERROR(ExportConfig(module, ids, &p));
  return p;
}

absl::StatusOr<std::string> SerializeHloModule(const HloModule& module) {
  HLOC_ASSIGN_OR_RETURN(xla::HloModuleProto proto, ExportHloModuleProto(module));
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream coded(&stream);
    // Map fields (frontend attributes, the schedule) in key order, so equal
    // modules give identical bytes.
    coded.SetSerializationDeterministic(true);
    if (!proto.SerializeToCodedStream(&coded)) {
      return absl::InternalError(absl::StrCat(
          "cannot serialize module '", module.name(), "' (",
          proto.ByteSizeLong(), " bytes; protobuf's limit is 2 GiB)"));
    }
  }
  return bytes;
}

}  // namespace hloc
