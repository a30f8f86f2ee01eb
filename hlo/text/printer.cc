#include "hlo/text/printer.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hlo/text/lexer.h"
#include "hlo/text/names.h"

namespace hloc {
namespace {

using K = HloTokenKind;

// Shortest decimal text that parses back to exactly `value`.
std::string FloatToString(float value) {
  if (std::isnan(value)) return std::signbit(value) ? "-nan" : "nan";
  if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
  char buf[32];
  for (int digits = 1; digits <= 9; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, value);
    if (std::strtof(buf, nullptr) == value) break;
  }
  return buf;
}

std::string DoubleToString(double value) {
  char buf[40];
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, value);
    if (std::strtod(buf, nullptr) == value) break;
  }
  return buf;
}

// result_accuracy={mode=highest} or {tolerance={atol=0,rtol=0.001,ulps=0}},
// as XLA prints it.
std::string ResultAccuracyToString(const ResultAccuracy& r) {
  if (!r.has_tolerance) {
    return r.mode == ResultAccuracy::Mode::kHighest ? "{mode=highest}"
                                                    : "{mode=default}";
  }
  return absl::StrCat("{tolerance={atol=", DoubleToString(r.atol),
                      ",rtol=", DoubleToString(r.rtol), ",ulps=", r.ulps,
                      "}}");
}

// True when `text` is one balanced {...} group as the parser reads it (no
// stray whitespace around it, no bad tokens), so it can be printed unquoted
// and read back verbatim. XLA prints JSON backend configs this way.
bool LexesAsBalancedBraces(absl::string_view text) {
  HloLexer lexer(text);
  HloToken t = lexer.Next();
  if (t.kind != K::kLBrace || t.offset != 0) return false;
  std::vector<K> closers = {K::kRBrace};
  while (!closers.empty()) {
    t = lexer.Next();
    switch (t.kind) {
      case K::kLBrace:
        closers.push_back(K::kRBrace);
        break;
      case K::kLParen:
        closers.push_back(K::kRParen);
        break;
      case K::kLSquare:
        closers.push_back(K::kRSquare);
        break;
      case K::kRBrace:
      case K::kRParen:
      case K::kRSquare:
        if (closers.back() != t.kind) return false;
        closers.pop_back();
        break;
      case K::kEnd:
      case K::kError:
        return false;
      default:
        break;
    }
  }
  return t.end() == static_cast<int64_t>(text.size());
}

std::string Quoted(absl::string_view s) {
  return absl::StrCat("\"", absl::CEscape(s), "\"");
}

// A JSON-ish value verbatim, anything else as a quoted string.
std::string BracesOrQuoted(absl::string_view s) {
  return LexesAsBalancedBraces(s) ? std::string(s) : Quoted(s);
}

// A frontend-attribute key prints bare when it reads back as one word.
std::string KeyText(absl::string_view key) {
  bool word = !key.empty() && key[0] != '-' &&
              key.find("->") == absl::string_view::npos;
  for (char c : key) word = word && IsHloWordChar(c);
  return word ? std::string(key) : Quoted(key);
}

std::string IntList(const std::vector<int64_t>& values) {
  return absl::StrCat("{", absl::StrJoin(values, ","), "}");
}

std::string StringMap(const std::map<std::string, std::string>& map) {
  std::vector<std::string> items;
  for (const auto& [key, value] : map) {
    items.push_back(absl::StrCat(KeyText(key), "=", BracesOrQuoted(value)));
  }
  return absl::StrCat("{", absl::StrJoin(items, ","), "}");
}

std::string WindowToString(const Window& window) {
  std::vector<std::string> fields;
  auto field = [&](const char* name, auto format) {
    std::vector<std::string> items;
    for (const WindowDimension& d : window.dimensions)
      items.push_back(format(d));
    fields.push_back(absl::StrCat(name, "=", absl::StrJoin(items, "x")));
  };
  bool stride = false, pad = false, lhs = false, rhs = false, rev = false;
  for (const WindowDimension& d : window.dimensions) {
    stride |= d.stride != 1;
    pad |= d.padding_low != 0 || d.padding_high != 0;
    lhs |= d.base_dilation != 1;
    rhs |= d.window_dilation != 1;
    rev |= d.window_reversal;
  }
  if (!window.dimensions.empty()) {
    field("size",
          [](const WindowDimension& d) { return absl::StrCat(d.size); });
  }
  if (stride) {
    field("stride",
          [](const WindowDimension& d) { return absl::StrCat(d.stride); });
  }
  if (pad) {
    field("pad", [](const WindowDimension& d) {
      return absl::StrCat(d.padding_low, "_", d.padding_high);
    });
  }
  if (lhs) {
    field("lhs_dilate", [](const WindowDimension& d) {
      return absl::StrCat(d.base_dilation);
    });
  }
  if (rhs) {
    field("rhs_dilate", [](const WindowDimension& d) {
      return absl::StrCat(d.window_dilation);
    });
  }
  if (rev) {
    field("rhs_reversal", [](const WindowDimension& d) {
      return std::string(d.window_reversal ? "1" : "0");
    });
  }
  return absl::StrCat("{", absl::StrJoin(fields, " "), "}");
}

std::string PaddingToString(const PaddingConfig& padding) {
  if (padding.dimensions.empty()) return "{}";
  bool interior = false;
  for (const PaddingDimension& d : padding.dimensions) {
    interior |= d.interior_padding != 0;
  }
  std::vector<std::string> items;
  for (const PaddingDimension& d : padding.dimensions) {
    items.push_back(
        absl::StrCat(d.edge_padding_low, "_", d.edge_padding_high,
                     interior ? absl::StrCat("_", d.interior_padding) : ""));
  }
  return absl::StrJoin(items, "x");
}

std::string DimLabels(const ConvolutionDimensionNumbers& d) {
  auto labels = [](size_t rank, int64_t a_dim, char a, int64_t b_dim, char b,
                   const std::vector<int64_t>& spatial) {
    std::string s(rank, '?');
    auto put = [&](int64_t dim, char c) {
      if (dim >= 0 && dim < static_cast<int64_t>(rank)) s[dim] = c;
    };
    put(a_dim, a);
    put(b_dim, b);
    for (size_t i = 0; i < spatial.size(); ++i) {
      put(spatial[i], static_cast<char>('0' + i));
    }
    return s;
  };
  return absl::StrCat(
      labels(d.input_spatial_dimensions.size() + 2, d.input_batch_dimension,
             'b', d.input_feature_dimension, 'f', d.input_spatial_dimensions),
      "_",
      labels(d.kernel_spatial_dimensions.size() + 2,
             d.kernel_input_feature_dimension, 'i',
             d.kernel_output_feature_dimension, 'o',
             d.kernel_spatial_dimensions),
      "->",
      labels(d.output_spatial_dimensions.size() + 2, d.output_batch_dimension,
             'b', d.output_feature_dimension, 'f',
             d.output_spatial_dimensions));
}

void AppendDotDims(const DotDimensionNumbers& d,
                   std::vector<std::string>* out) {
  if (!d.lhs_batch_dimensions.empty()) {
    out->push_back(
        absl::StrCat("lhs_batch_dims=", IntList(d.lhs_batch_dimensions)));
  }
  out->push_back(absl::StrCat("lhs_contracting_dims=",
                              IntList(d.lhs_contracting_dimensions)));
  if (!d.rhs_batch_dimensions.empty()) {
    out->push_back(
        absl::StrCat("rhs_batch_dims=", IntList(d.rhs_batch_dimensions)));
  }
  out->push_back(absl::StrCat("rhs_contracting_dims=",
                              IntList(d.rhs_contracting_dimensions)));
}

void AppendPrecision(const HloAttributes& a, std::vector<std::string>* out) {
  if (!a.precision_config) return;
  const PrecisionConfig& p = *a.precision_config;
  if (!p.operand_precision.empty()) {
    std::vector<std::string> items;
    for (Precision precision : p.operand_precision) {
      items.push_back(absl::AsciiStrToLower(PrecisionString(precision)));
    }
    out->push_back(
        absl::StrCat("operand_precision={", absl::StrJoin(items, ","), "}"));
  }
  if (p.algorithm != 0) {
    out->push_back(absl::StrCat("algorithm=", DotAlgorithmName(p.algorithm)));
  }
}

std::string MetadataToString(const OpMetadata& m) {
  std::vector<std::string> items;
  if (!m.op_type.empty()) items.push_back("op_type=" + Quoted(m.op_type));
  if (!m.op_name.empty()) items.push_back("op_name=" + Quoted(m.op_name));
  if (!m.source_file.empty()) {
    items.push_back("source_file=" + Quoted(m.source_file));
  }
  if (m.source_line != 0) {
    items.push_back(absl::StrCat("source_line=", m.source_line));
  }
  if (m.source_end_line != 0) {
    items.push_back(absl::StrCat("source_end_line=", m.source_end_line));
  }
  if (m.source_column != 0) {
    items.push_back(absl::StrCat("source_column=", m.source_column));
  }
  if (m.source_end_column != 0) {
    items.push_back(absl::StrCat("source_end_column=", m.source_end_column));
  }
  if (!m.deduplicated_name.empty()) {
    items.push_back("deduplicated_name=" + Quoted(m.deduplicated_name));
  }
  if (m.preserve_layout) items.push_back("preserve_layout=true");
  if (!m.scheduling_name.empty()) {
    items.push_back("scheduling_name=" + Quoted(m.scheduling_name));
  }
  if (m.stack_frame_id != 0) {
    items.push_back(absl::StrCat("stack_frame_id=", m.stack_frame_id));
  }
  return absl::StrCat("{", absl::StrJoin(items, " "), "}");
}

bool AlwaysHasReplicaGroups(HloOpcode op) {
  switch (op) {
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllReduceStart:
    case HloOpcode::kAllGather:
    case HloOpcode::kAllGatherStart:
    case HloOpcode::kAllToAll:
    case HloOpcode::kReduceScatter:
    case HloOpcode::kCollectiveBroadcast:
    case HloOpcode::kCollectiveReduce:
    case HloOpcode::kRaggedAllToAll:
      return true;
    default:
      return false;
  }
}

class Printer {
 public:
  explicit Printer(const PrintOptions& options) : options_(options) {}

  std::string Name(absl::string_view name) const {
    return options_.print_percent ? absl::StrCat("%", name) : std::string(name);
  }

  void AppendInstruction(const HloInstruction& instr, std::string* out) const;
  void AppendComputation(const HloComputation& computation,
                         std::string* out) const;
  void AppendModule(const HloModule& module, std::string* out) const;

 private:
  void OpcodeAttributes(const HloInstruction& instr,
                        std::vector<std::string>* out) const;
  void CalledComputations(const HloInstruction& instr,
                          std::vector<std::string>* out) const;
  std::string NameList(const std::vector<std::string>& names) const {
    std::vector<std::string> items;
    for (const std::string& n : names) items.push_back(Name(n));
    return absl::StrCat("{", absl::StrJoin(items, ", "), "}");
  }

  const PrintOptions& options_;
};

void Printer::OpcodeAttributes(const HloInstruction& instr,
                               std::vector<std::string>* out) const {
  using O = HloOpcode;
  const HloAttributes& a = instr.attrs();
  auto add = [&](auto&&... pieces) { out->push_back(absl::StrCat(pieces...)); };
  auto dims = [&] { add("dimensions=", IntList(a.dimensions)); };
  auto window = [&] {
    if (a.window) add("window=", WindowToString(*a.window));
  };
  auto conv = [&] {
    window();
    if (a.convolution_dimension_numbers) {
      add("dim_labels=", DimLabels(*a.convolution_dimension_numbers));
    }
    if (a.feature_group_count != 1) {
      add("feature_group_count=", a.feature_group_count);
    }
    if (a.batch_group_count != 1)
      add("batch_group_count=", a.batch_group_count);
    AppendPrecision(a, out);
  };
  const O op = instr.opcode();
  switch (op) {
    case O::kBroadcast:
    case O::kTranspose:
    case O::kReverse:
    case O::kConcatenate:
    case O::kReduce:
    case O::kMap:
    case O::kGetDimensionSize:
    case O::kSetDimensionSize:
      dims();
      return;
    case O::kSort:
      dims();
      if (a.is_stable) add("is_stable=true");
      return;
    case O::kScan:
      dims();
      add("num_carries=", a.num_carries);
      if (a.is_reverse) add("is_reverse=true");
      if (a.is_associative) add("is_associative=true");
      return;
    case O::kSlice: {
      std::vector<std::string> ranges;
      for (size_t i = 0; i < a.slice_starts.size(); ++i) {
        const int64_t stride =
            i < a.slice_strides.size() ? a.slice_strides[i] : 1;
        const int64_t limit = i < a.slice_limits.size() ? a.slice_limits[i] : 0;
        ranges.push_back(
            stride == 1 ? absl::StrCat("[", a.slice_starts[i], ":", limit, "]")
                        : absl::StrCat("[", a.slice_starts[i], ":", limit, ":",
                                       stride, "]"));
      }
      add("slice={", absl::StrJoin(ranges, ", "), "}");
      return;
    }
    case O::kDynamicSlice:
      add("dynamic_slice_sizes=", IntList(a.dynamic_slice_sizes));
      return;
    case O::kPad:
      add("padding=", a.padding_config ? PaddingToString(*a.padding_config)
                                       : std::string("{}"));
      return;
    case O::kReduceWindow:
    case O::kSelectAndScatter:
      window();
      return;
    case O::kConvolution:
      conv();
      return;
    case O::kDot:
    case O::kScaledDot:
      if (a.dot_dimension_numbers) AppendDotDims(*a.dot_dimension_numbers, out);
      AppendPrecision(a, out);
      return;
    case O::kRaggedDot:
      if (a.ragged_dot_dimension_numbers) {
        const RaggedDotDimensionNumbers& r = *a.ragged_dot_dimension_numbers;
        AppendDotDims(r.dot_dimension_numbers, out);
        add("lhs_ragged_dims=", IntList(r.lhs_ragged_dimensions));
        add("rhs_group_dims=", IntList(r.rhs_group_dimensions));
      }
      AppendPrecision(a, out);
      return;
    case O::kGather:
      if (a.gather_dimension_numbers) {
        const GatherDimensionNumbers& g = *a.gather_dimension_numbers;
        add("offset_dims=", IntList(g.offset_dims));
        add("collapsed_slice_dims=", IntList(g.collapsed_slice_dims));
        add("start_index_map=", IntList(g.start_index_map));
        if (!g.operand_batching_dims.empty()) {
          add("operand_batching_dims=", IntList(g.operand_batching_dims));
        }
        if (!g.start_indices_batching_dims.empty()) {
          add("start_indices_batching_dims=",
              IntList(g.start_indices_batching_dims));
        }
        add("index_vector_dim=", g.index_vector_dim);
      }
      add("slice_sizes=", IntList(a.gather_slice_sizes));
      if (a.indices_are_sorted) add("indices_are_sorted=true");
      return;
    case O::kScatter:
      if (a.scatter_dimension_numbers) {
        const ScatterDimensionNumbers& s = *a.scatter_dimension_numbers;
        add("update_window_dims=", IntList(s.update_window_dims));
        add("inserted_window_dims=", IntList(s.inserted_window_dims));
        add("scatter_dims_to_operand_dims=",
            IntList(s.scatter_dims_to_operand_dims));
        if (!s.input_batching_dims.empty()) {
          add("input_batching_dims=", IntList(s.input_batching_dims));
        }
        if (!s.scatter_indices_batching_dims.empty()) {
          add("scatter_indices_batching_dims=",
              IntList(s.scatter_indices_batching_dims));
        }
        add("index_vector_dim=", s.index_vector_dim);
      }
      if (a.indices_are_sorted) add("indices_are_sorted=true");
      if (a.unique_indices) add("unique_indices=true");
      return;
    case O::kCompare:
      add("direction=", ComparisonDirectionString(a.comparison_direction));
      if (a.comparison_type != ComparisonType::kDefault) {
        add("type=", ComparisonTypeString(a.comparison_type));
      }
      if (a.comparison_order != ComparisonOrder::kDefault) {
        add("order=", ComparisonOrderString(a.comparison_order));
      }
      return;
    case O::kFusion:
      add("kind=", FusionKindString(a.fusion_kind));
      return;
    case O::kGetTupleElement:
      add("index=", a.tuple_index);
      return;
    case O::kIota:
      add("iota_dimension=", a.iota_dimension);
      return;
    case O::kReducePrecision:
      add("exponent_bits=", a.exponent_bits);
      add("mantissa_bits=", a.mantissa_bits);
      return;
    case O::kTopK:
      add("k=", a.k);
      add("largest=", a.largest ? "true" : "false");
      if (a.is_stable) add("is_stable=true");
      return;
    case O::kBatchNormGrad:
    case O::kBatchNormInference:
    case O::kBatchNormTraining:
      add("epsilon=", FloatToString(a.epsilon));
      add("feature_index=", a.feature_index);
      return;
    case O::kRng:
      add("distribution=", RandomDistributionString(a.distribution));
      return;
    case O::kRngBitGenerator:
      add("algorithm=", RandomAlgorithmString(a.rng_algorithm));
      return;
    case O::kFft:
      add("fft_type=", FftTypeString(a.fft_type));
      add("fft_length=", IntList(a.fft_length));
      return;
    case O::kTriangularSolve:
      if (a.triangular_solve_options) {
        const TriangularSolveOptions& t = *a.triangular_solve_options;
        add("left_side=", t.left_side ? "true" : "false");
        add("lower=", t.lower ? "true" : "false");
        add("unit_diagonal=", t.unit_diagonal ? "true" : "false");
        add("transpose_a=", TransposeName(t.transpose_a));
      }
      return;
    case O::kCholesky:
      if (a.cholesky_lower) add("lower=true");
      return;
    case O::kCustomCall:
      conv();
      add("custom_call_target=", Quoted(a.custom_call_target));
      if (a.operand_layout_constraints) {
        std::vector<std::string> shapes;
        for (const Shape& s : *a.operand_layout_constraints) {
          shapes.push_back(s.ToString(true));
        }
        add("operand_layout_constraints={", absl::StrJoin(shapes, ", "), "}");
      }
      if (a.custom_call_has_side_effect)
        add("custom_call_has_side_effect=true");
      if (!a.output_to_operand_aliasing.empty()) {
        std::vector<std::string> items;
        for (const OutputOperandAlias& alias : a.output_to_operand_aliasing) {
          items.push_back(absl::StrCat(
              IntList(alias.output_shape_index), ": (", alias.operand_index,
              ", ", IntList(alias.operand_shape_index), ")"));
        }
        add("output_to_operand_aliasing={", absl::StrJoin(items, ", "), "}");
      }
      if (a.custom_call_schedule != CustomCallSchedule::kNone) {
        add("schedule=", CustomCallScheduleString(a.custom_call_schedule));
      }
      if (a.api_version != CustomCallApiVersion::kOriginal) {
        add("api_version=", CustomCallApiVersionString(a.api_version));
      }
      return;
    case O::kParameter:
      if (!a.parameter_replication.empty()) {
        std::vector<std::string> items;
        for (bool b : a.parameter_replication)
          items.push_back(b ? "true" : "false");
        add("parameter_replication={", absl::StrJoin(items, ","), "}");
      }
      return;
    case O::kInfeed:
      if (!a.infeed_config.empty())
        add("infeed_config=", Quoted(a.infeed_config));
      return;
    case O::kOutfeed:
      if (a.outfeed_shape)
        add("outfeed_shape=", a.outfeed_shape->ToString(true));
      if (!a.outfeed_config.empty()) {
        add("outfeed_config=", Quoted(a.outfeed_config));
      }
      return;
    case O::kSend:
    case O::kRecv:
    case O::kSendDone:
    case O::kRecvDone:
      if (a.channel_id) add("channel_id=", *a.channel_id);
      if (a.is_host_transfer) add("is_host_transfer=true");
      return;
    case O::kAsyncStart:
    case O::kAsyncUpdate:
    case O::kAsyncDone:
      if (!a.async_execution_thread.empty()) {
        add("async_execution_thread=", Quoted(a.async_execution_thread));
      }
      return;
    default:
      break;
  }
  if (a.result_accuracy) {
    add("result_accuracy=", ResultAccuracyToString(*a.result_accuracy));
  }
  if (HloOpcodeIsCollective(op)) {
    if (a.channel_id) add("channel_id=", *a.channel_id);
    if (!a.iota_replica_groups.empty()) {
      add("replica_groups=", a.iota_replica_groups);
    } else if (AlwaysHasReplicaGroups(op) || !a.replica_groups.empty()) {
      std::vector<std::string> groups;
      for (const auto& g : a.replica_groups) groups.push_back(IntList(g));
      add("replica_groups={", absl::StrJoin(groups, ","), "}");
    }
    if (a.constrain_layout) add("constrain_layout=true");
    if (!a.dimensions.empty()) dims();
    if (a.use_global_device_ids) add("use_global_device_ids=true");
    if (op == O::kCollectivePermute || op == O::kCollectivePermuteStart) {
      std::vector<std::string> pairs;
      for (const auto& [s, t] : a.source_target_pairs) {
        pairs.push_back(absl::StrCat("{", s, ",", t, "}"));
      }
      add("source_target_pairs={", absl::StrJoin(pairs, ","), "}");
    }
  }
}

void Printer::CalledComputations(const HloInstruction& instr,
                                 std::vector<std::string>* out) const {
  const auto& called = instr.called_computations();
  if (called.empty()) return;
  std::vector<std::string> names;
  for (const HloComputation* c : called) {
    names.push_back(c != nullptr ? c->name() : std::string("<null>"));
  }
  switch (instr.opcode()) {
    case HloOpcode::kWhile:
      if (names.size() == 2) {
        out->push_back(absl::StrCat("condition=", Name(names[0])));
        out->push_back(absl::StrCat("body=", Name(names[1])));
        return;
      }
      break;
    case HloOpcode::kSelectAndScatter:
      if (names.size() == 2) {
        out->push_back(absl::StrCat("select=", Name(names[0])));
        out->push_back(absl::StrCat("scatter=", Name(names[1])));
        return;
      }
      break;
    case HloOpcode::kConditional:
      if (names.size() == 2 && instr.operand_count() > 0 &&
          instr.operand(0)->shape().element_type() == PRED) {
        out->push_back(absl::StrCat("true_computation=", Name(names[0])));
        out->push_back(absl::StrCat("false_computation=", Name(names[1])));
      } else {
        out->push_back(absl::StrCat("branch_computations=", NameList(names)));
      }
      return;
    case HloOpcode::kCustomCall:
      out->push_back(absl::StrCat("called_computations=", NameList(names)));
      return;
    case HloOpcode::kFusion:
    case HloOpcode::kAsyncStart:
    case HloOpcode::kAsyncUpdate:
    case HloOpcode::kAsyncDone:
      out->push_back(absl::StrCat("calls=", Name(names[0])));
      return;
    default:
      break;
  }
  out->push_back(absl::StrCat("to_apply=", Name(names[0])));
}

void Printer::AppendInstruction(const HloInstruction& instr,
                                std::string* out) const {
  absl::StrAppend(out, Name(instr.name()), " = ", instr.shape().ToString(true),
                  " ", HloOpcodeString(instr.opcode()), "(");
  if (instr.opcode() == HloOpcode::kParameter) {
    absl::StrAppend(out, instr.parameter_number());
  } else if (instr.opcode() == HloOpcode::kConstant) {
    if (instr.attrs().literal) {
      absl::StrAppend(out, instr.attrs().literal->ValuesToString());
    }
  } else {
    for (int64_t i = 0; i < instr.operand_count(); ++i) {
      if (i > 0) absl::StrAppend(out, ", ");
      const HloInstruction* operand = instr.operand(i);
      if (options_.print_operand_shape) {
        absl::StrAppend(out, operand->shape().ToString(true), " ");
      }
      absl::StrAppend(out, Name(operand->name()));
    }
  }
  absl::StrAppend(out, ")");

  std::vector<std::string> attrs;
  OpcodeAttributes(instr, &attrs);
  CalledComputations(instr, &attrs);
  for (const RawAttribute& raw : instr.raw_attributes()) {
    attrs.push_back(absl::StrCat(raw.name, "=", raw.value));
  }
  if (!instr.sharding().empty()) {
    attrs.push_back(absl::StrCat("sharding=", instr.sharding()));
  }
  if (!instr.frontend_attributes().empty()) {
    attrs.push_back(absl::StrCat("frontend_attributes=",
                                 StringMap(instr.frontend_attributes())));
  }
  if (!instr.control_predecessors().empty()) {
    std::vector<std::string> names;
    for (const HloInstruction* p : instr.control_predecessors()) {
      names.push_back(p->name());
    }
    attrs.push_back(absl::StrCat("control-predecessors=", NameList(names)));
  }
  if (options_.print_metadata && !instr.metadata().empty()) {
    attrs.push_back(
        absl::StrCat("metadata=", MetadataToString(instr.metadata())));
  }
  if (options_.print_backend_config && !instr.backend_config().empty()) {
    attrs.push_back(absl::StrCat("backend_config=",
                                 BracesOrQuoted(instr.backend_config())));
  }
  for (const std::string& attr : attrs) absl::StrAppend(out, ", ", attr);
}

void Printer::AppendComputation(const HloComputation& computation,
                                std::string* out) const {
  absl::StrAppend(out, Name(computation.name()), " ");
  if (options_.print_program_shape) {
    std::vector<std::string> params;
    for (const HloInstruction* p : computation.parameter_instructions()) {
      if (p == nullptr) continue;
      params.push_back(
          absl::StrCat(p->name(), ": ", p->shape().ToString(false)));
    }
    absl::StrAppend(
        out, "(", absl::StrJoin(params, ", "), ") -> ",
        computation.root_instruction() != nullptr
            ? computation.root_instruction()->shape().ToString(false)
            : std::string("()"),
        " ");
  }
  absl::StrAppend(out, "{\n");
  std::vector<HloInstruction*> order = computation.instructions();
  const HloModule* module = computation.parent();
  if (module != nullptr) {
    auto it = module->schedule().find(&computation);
    if (it != module->schedule().end() && it->second.size() == order.size()) {
      order = it->second;
    }
  }
  for (const HloInstruction* instr : order) {
    absl::StrAppend(out, "  ",
                    instr == computation.root_instruction() ? "ROOT " : "");
    AppendInstruction(*instr, out);
    absl::StrAppend(out, "\n");
  }
  absl::StrAppend(out, "}");
}

void Printer::AppendModule(const HloModule& module, std::string* out) const {
  const HloModuleConfig& config = module.config();
  absl::StrAppend(out, "HloModule ", module.name());
  if (config.is_scheduled || module.has_schedule()) {
    absl::StrAppend(out, ", is_scheduled=true");
  }
  if (!config.input_output_alias.empty()) {
    std::vector<std::string> items;
    for (const InputOutputAlias& alias : config.input_output_alias) {
      items.push_back(absl::StrCat(
          IntList(alias.output_index), ": (", alias.parameter_number, ", ",
          IntList(alias.parameter_index), ", ",
          alias.must_alias ? "must-alias" : "may-alias", ")"));
    }
    absl::StrAppend(out, ", input_output_alias={ ", absl::StrJoin(items, ", "),
                    " }");
  }
  if (!config.buffer_donor.empty()) {
    std::vector<std::string> items;
    for (const BufferDonor& donor : config.buffer_donor) {
      items.push_back(absl::StrCat("(", donor.parameter_number, ", ",
                                   IntList(donor.parameter_index), ")"));
    }
    absl::StrAppend(out, ", buffer_donor={ ", absl::StrJoin(items, ", "), " }");
  }
  // XLA prints alias_passthrough_params before the layout, the rest of what
  // this IR keeps raw after it.
  for (const RawAttribute& raw : config.raw_attributes) {
    if (raw.name == "alias_passthrough_params") {
      absl::StrAppend(out, ", ", raw.name, "=", raw.value);
    }
  }
  if (config.entry_computation_layout ||
      module.entry_computation() != nullptr) {
    absl::StrAppend(out, ", entry_computation_layout={",
                    module.EntryComputationLayout().ToString(true), "}");
  }
  for (const RawAttribute& raw : config.raw_attributes) {
    if (raw.name != "alias_passthrough_params") {
      absl::StrAppend(out, ", ", raw.name, "=", raw.value);
    }
  }
  if (config.replica_count != 1) {
    absl::StrAppend(out, ", replica_count=", config.replica_count);
  }
  if (config.num_partitions != 1) {
    absl::StrAppend(out, ", num_partitions=", config.num_partitions);
  }
  if (!config.frontend_attributes.empty()) {
    absl::StrAppend(
        out, ", frontend_attributes=", StringMap(config.frontend_attributes));
  }
  absl::StrAppend(out, "\n\n");

  const StackFrameIndex& frames = module.stack_frames();
  if (options_.print_metadata && !frames.empty()) {
    auto names = [&](const char* title, const std::vector<std::string>& rows) {
      if (rows.empty()) return;
      absl::StrAppend(out, title, "\n");
      for (size_t i = 0; i < rows.size(); ++i) {
        absl::StrAppend(out, i + 1, " ", Quoted(rows[i]), "\n");
      }
      absl::StrAppend(out, "\n");
    };
    names("FileNames", frames.file_names);
    names("FunctionNames", frames.function_names);
    if (!frames.file_locations.empty()) {
      absl::StrAppend(out, "FileLocations\n");
      for (size_t i = 0; i < frames.file_locations.size(); ++i) {
        const auto& l = frames.file_locations[i];
        absl::StrAppend(out, i + 1, " {file_name_id=", l.file_name_id,
                        " function_name_id=", l.function_name_id,
                        " line=", l.line, " end_line=", l.end_line,
                        " column=", l.column, " end_column=", l.end_column,
                        "}\n");
      }
      absl::StrAppend(out, "\n");
    }
    if (!frames.stack_frames.empty()) {
      absl::StrAppend(out, "StackFrames\n");
      for (size_t i = 0; i < frames.stack_frames.size(); ++i) {
        const auto& f = frames.stack_frames[i];
        // XLA's text shows the stored parent id plus one (1 = no parent).
        absl::StrAppend(out, i + 1, " {file_location_id=", f.file_location_id,
                        " parent_frame_id=", f.parent_frame_id + 1, "}\n");
      }
      absl::StrAppend(out, "\n");
    }
    absl::StrAppend(out, "\n");
  }

  for (const HloComputation* computation : module.computations()) {
    if (computation == module.entry_computation()) {
      absl::StrAppend(out, "ENTRY ");
    }
    AppendComputation(*computation, out);
    absl::StrAppend(out, "\n\n");
  }
}

}  // namespace

std::string PrintModule(const HloModule& module, const PrintOptions& options) {
  std::string out;
  Printer(options).AppendModule(module, &out);
  return out;
}

std::string PrintComputation(const HloComputation& computation,
                             const PrintOptions& options) {
  std::string out;
  Printer(options).AppendComputation(computation, &out);
  return out;
}

std::string PrintInstruction(const HloInstruction& instruction,
                             const PrintOptions& options) {
  std::string out;
  Printer(options).AppendInstruction(instruction, &out);
  return out;
}

}  // namespace hloc
