// Unit tests of the HLO text parser: module structure, shapes, literals,
// every attribute family, and the exact text of errors.
#include "hlo/text/parser.h"

#include <cmath>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace hloc {
namespace {

std::unique_ptr<HloModule> Parse(absl::string_view text) {
  auto module = ParseHloModule(text, "m.hlo");
  EXPECT_TRUE(module.ok()) << module.status();
  return module.ok() ? std::move(*module) : nullptr;
}

std::string ParseError(absl::string_view text) {
  auto module = ParseHloModule(text, "m.hlo");
  EXPECT_FALSE(module.ok());
  return module.ok() ? "" : std::string(module.status().message());
}

// The single-instruction module "ENTRY e { p...; ROOT r = <line> }" and its
// root, for attribute tests. `params` declares the operands.
struct OneOp {
  std::unique_ptr<HloModule> module;
  const HloInstruction* root = nullptr;
};
OneOp ParseOp(absl::string_view params, absl::string_view line,
              absl::string_view extra_computations = "") {
  OneOp op;
  op.module = Parse(std::string(extra_computations) + "\nENTRY e {\n" +
                    std::string(params) + "\n  ROOT r = " + std::string(line) +
                    "\n}\n");
  if (op.module) op.root = op.module->entry_computation()->root_instruction();
  return op;
}

constexpr char kAdd[] =
    "add_f32 {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n"
    "  ROOT s = f32[] add(x, y)\n}\n";

TEST(ParserTest, ModuleStructure) {
  auto m = Parse(R"(
HloModule my_module, entry_computation_layout={(f32[4]{0}, f32[])->f32[4]{0}}

%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %sum = f32[] add(f32[] %a, f32[] %b)
}

ENTRY %main (x: f32[4], y: f32[]) -> f32[4] {
  %x = f32[4]{0} parameter(0)
  %y = f32[] parameter(1)
  %b = f32[4]{0} broadcast(%y), dimensions={}
  ROOT %r = f32[4]{0} add(%x, %b)
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->name(), "my_module");
  ASSERT_EQ(m->computation_count(), 2);
  EXPECT_EQ(m->computations()[0]->name(), "add");
  const HloComputation* entry = m->entry_computation();
  EXPECT_EQ(entry->name(), "main");
  EXPECT_EQ(entry->num_parameters(), 2);
  EXPECT_EQ(entry->parameter_instruction(1)->name(), "y");
  const HloInstruction* root = entry->root_instruction();
  EXPECT_EQ(root->name(), "r");
  EXPECT_EQ(root->opcode(), HloOpcode::kAdd);
  EXPECT_EQ(root->operand(0)->name(), "x");
  EXPECT_EQ(root->operand(1)->opcode(), HloOpcode::kBroadcast);
  EXPECT_TRUE(root->operand(1)->dimensions().empty());
  ASSERT_TRUE(m->config().entry_computation_layout.has_value());
  EXPECT_EQ(m->config().entry_computation_layout->ToString(),
            "(f32[4]{0}, f32[])->f32[4]{0}");
  // Instruction names are module-wide: the entry's "b" clashes with add's.
  EXPECT_EQ(m->computations()[0]->parameter_instruction(1)->name(), "b");
  EXPECT_EQ(root->operand(1)->name(), "b.1");
  // Ids are fresh and unique.
  EXPECT_NE(root->unique_id(), root->operand(0)->unique_id());
}

TEST(ParserTest, NoHeaderEntryIsLastOrMarked) {
  auto m = Parse(
      "a {\n ROOT x = f32[] constant(1)\n}\n"
      "b {\n ROOT y = f32[] constant(2)\n}\n");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->entry_computation()->name(), "b");
  auto m2 = Parse(
      "ENTRY a {\n ROOT x = f32[] constant(1)\n}\n"
      "b {\n ROOT y = f32[] constant(2)\n}\n");
  ASSERT_NE(m2, nullptr);
  EXPECT_EQ(m2->entry_computation()->name(), "a");
  // Without ROOT the last instruction is the root.
  auto m3 = Parse("e {\n x = f32[] constant(1)\n y = f32[] negate(x)\n}\n");
  ASSERT_NE(m3, nullptr);
  EXPECT_EQ(m3->entry_computation()->root_instruction()->name(), "y");
}

TEST(ParserTest, OperandsMayBeDefinedLater) {
  auto m = Parse(R"(
ENTRY e {
  ROOT r = f32[] add(n, p)
  n = f32[] negate(p)
  p = f32[] parameter(0)
}
)");
  ASSERT_NE(m, nullptr);
  std::vector<std::string> names;
  for (const HloInstruction* i : m->entry_computation()->instructions()) {
    names.push_back(i->name());
  }
  EXPECT_EQ(names, (std::vector<std::string>{"p", "n", "r"}));
  EXPECT_EQ(m->entry_computation()->root_instruction()->name(), "r");
}

TEST(ParserTest, TextOrderIsKeptWhenValid) {
  auto m = Parse(R"(
ENTRY e {
  p1 = f32[] parameter(1)
  c = f32[] constant(2)
  p0 = f32[] parameter(0)
  ROOT r = f32[] add(p0, p1)
}
)");
  ASSERT_NE(m, nullptr);
  std::vector<std::string> names;
  for (const HloInstruction* i : m->entry_computation()->instructions()) {
    names.push_back(i->name());
  }
  EXPECT_EQ(names, (std::vector<std::string>{"p1", "c", "p0", "r"}));
  EXPECT_EQ(m->entry_computation()->parameter_instruction(0)->name(), "p0");
}

TEST(ParserTest, CalleeAfterCallerIsReordered) {
  auto m = Parse(R"(
ENTRY e {
  p = f32[2] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[] reduce(p, z), dimensions={0}, to_apply=add_f32
}
add_f32 {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->computations()[0]->name(), "add_f32");
  EXPECT_EQ(m->entry_computation()->name(), "e");
  EXPECT_EQ(m->entry_computation()->root_instruction()->to_apply()->name(),
            "add_f32");
}

TEST(ParserTest, ScheduledModuleGetsASchedule) {
  auto m = Parse(R"(
HloModule s, is_scheduled=true
ENTRY e {
  b = f32[] parameter(1)
  a = f32[] parameter(0)
  ROOT r = f32[] add(a, b)
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(m->config().is_scheduled);
  const auto& seq = m->schedule().at(m->entry_computation());
  ASSERT_EQ(seq.size(), 3u);
  EXPECT_EQ(seq[0]->name(), "b");
  EXPECT_EQ(seq[2]->name(), "r");
}

TEST(ParserTest, HeaderAttributes) {
  auto m = Parse(R"(
HloModule h, is_scheduled=false, input_output_alias={ {0}: (1, {}, may-alias), {1}: (0, {2}, must-alias) }, buffer_donor={ (0, {}), (1, {1}) }, replica_count=2, num_partitions=4, allow_spmd_sharding_propagation_to_output={true}, frontend_attributes={fingerprint="abc",k2="v"}, spmd_output_sharding={replicated}
ENTRY e {
  ROOT p = f32[] parameter(0)
}
)");
  ASSERT_NE(m, nullptr);
  const HloModuleConfig& c = m->config();
  EXPECT_FALSE(c.is_scheduled);
  ASSERT_EQ(c.input_output_alias.size(), 2u);
  EXPECT_EQ(c.input_output_alias[0].output_index, std::vector<int64_t>{0});
  EXPECT_EQ(c.input_output_alias[0].parameter_number, 1);
  EXPECT_FALSE(c.input_output_alias[0].must_alias);
  EXPECT_EQ(c.input_output_alias[1].parameter_index, std::vector<int64_t>{2});
  EXPECT_TRUE(c.input_output_alias[1].must_alias);
  ASSERT_EQ(c.buffer_donor.size(), 2u);
  EXPECT_EQ(c.buffer_donor[1].parameter_number, 1);
  EXPECT_EQ(c.buffer_donor[1].parameter_index, std::vector<int64_t>{1});
  EXPECT_EQ(c.replica_count, 2);
  EXPECT_EQ(c.num_partitions, 4);
  EXPECT_EQ(c.frontend_attributes.at("fingerprint"), "abc");
  ASSERT_EQ(c.raw_attributes.size(), 2u);
  EXPECT_EQ(c.raw_attributes[0].name,
            "allow_spmd_sharding_propagation_to_output");
  EXPECT_EQ(c.raw_attributes[0].value, "{true}");
  EXPECT_EQ(c.raw_attributes[1].value, "{replicated}");
}

TEST(ParserTest, StackFrameTables) {
  auto m = Parse(R"(HloModule t

FileNames
1 "a.py"
2 "b.py"

FunctionNames
1 "<module>"

FileLocations
1 {file_name_id=1 function_name_id=1 line=3 end_line=4 column=5 end_column=6}

StackFrames
1 {file_location_id=1 parent_frame_id=1}

ENTRY e {
  ROOT p = f32[] parameter(0), metadata={op_name="x" stack_frame_id=1}
}
)");
  ASSERT_NE(m, nullptr);
  const StackFrameIndex& s = m->stack_frames();
  EXPECT_EQ(s.file_names, (std::vector<std::string>{"a.py", "b.py"}));
  EXPECT_EQ(s.function_names, std::vector<std::string>{"<module>"});
  ASSERT_EQ(s.file_locations.size(), 1u);
  EXPECT_EQ(s.file_locations[0].end_column, 6);
  ASSERT_EQ(s.stack_frames.size(), 1u);
  EXPECT_EQ(s.stack_frames[0].file_location_id, 1);
  // The text's parent 1 is XLA's stored 0: no parent.
  EXPECT_EQ(s.stack_frames[0].parent_frame_id, 0);
}

TEST(ParserTest, Shapes) {
  auto s = ParseShape("f32[2,3]{0,1}");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->MinorToMajor(), (std::vector<int64_t>{0, 1}));
  // No layout: the default one.
  s = ParseShape("s32[2,3]");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->ToString(), "s32[2,3]{1,0}");
  s = ParseShape("f32[<=8,4]");
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(s->is_dynamic_dimension(0));
  EXPECT_FALSE(s->is_dynamic_dimension(1));
  EXPECT_EQ(s->ToString(), "f32[<=8,4]{1,0}");
  s = ParseShape("(f32[], (s32[2]{0}, token[]), ())");
  ASSERT_TRUE(s.ok());
  ASSERT_EQ(s->tuple_shapes_size(), 3);
  EXPECT_TRUE(s->tuple_shapes(1).tuple_shapes(1).IsToken());
  EXPECT_EQ(s->tuple_shapes(2).tuple_shapes_size(), 0);
  s = ParseShape("bf16[8,128]{1,0:T(8,128)(2,1)L(2)#(s32)*(u32)E(16)S(1)M(4)}");
  ASSERT_TRUE(s.ok()) << s.status();
  const Layout& l = s->layout();
  ASSERT_EQ(l.tiles.size(), 2u);
  EXPECT_EQ(l.tiles[0].dimensions, (std::vector<int64_t>{8, 128}));
  EXPECT_EQ(l.tail_padding_alignment_in_elements, 2);
  EXPECT_EQ(l.index_primitive_type, S32);
  EXPECT_EQ(l.pointer_primitive_type, U32);
  EXPECT_EQ(l.element_size_in_bits, 16);
  EXPECT_EQ(l.memory_space, 1);
  EXPECT_EQ(l.dynamic_shape_metadata_prefix_bytes, 4);
  EXPECT_EQ(s->ToString(),
            "bf16[8,128]{1,0:T(8,128)(2,1)L(2)#(s32)*(u32)E(16)S(1)M(4)}");
  s = ParseShape("f32[]{:S(1)}");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->layout().memory_space, 1);
  s = ParseShape("u8[4]{0:T(*,2)}");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->layout().tiles[0].dimensions[0], Tile::kCombineDimension);
}

TEST(ParserTest, ShapeErrors) {
  EXPECT_EQ(ParseShape("f32[2,3]{0}").status().message(),
            "<shape>:1:9: layout {0} is not a permutation of the 2 dimensions "
            "of the shape");
  EXPECT_EQ(ParseShape("f33[2]").status().message(),
            "<shape>:1:1: expected a shape but found 'f33'");
  EXPECT_EQ(ParseShape("f32[99999999999,99999999999]").status().message(),
            "<shape>:1:1: shape has too many elements (its byte size "
            "overflows 64 bits)");
  EXPECT_EQ(ParseShape("f32[-1]").status().message(),
            "<shape>:1:5: expected a dimension size but found '-1'");
  EXPECT_EQ(ParseShape("f32[2] x").status().message(),
            "<shape>:1:8: expected end of input after the shape but found 'x'");
  EXPECT_EQ(ParseShape("f32[?]").status().message(),
            "<shape>:1:5: unbounded dynamic dimensions ('?') are not "
            "supported");
  EXPECT_EQ(ParseShape("f32[99999999999999999999]").status().message(),
            "<shape>:1:5: integer '99999999999999999999' is out of range");
  EXPECT_EQ(ParseShape(std::string(1000, '(')).status().message(),
            "<shape>:1:201: nesting deeper than 200 levels");
}

Literal RootLiteral(absl::string_view line) {
  auto m = Parse(absl::StrCat("ENTRY e {\n  ROOT c = ", line, "\n}\n"));
  if (m == nullptr) return Literal();
  return m->entry_computation()->root_instruction()->literal();
}

TEST(ParserTest, Constants) {
  EXPECT_EQ(RootLiteral("f32[] constant(1.5)").GetAsDouble(0), 1.5);
  EXPECT_EQ(RootLiteral("f32[] constant(-inf)").GetAsDouble(0), -INFINITY);
  EXPECT_TRUE(std::isnan(RootLiteral("f32[] constant(nan)").GetAsDouble(0)));
  EXPECT_TRUE(std::signbit(RootLiteral("f64[] constant(-nan)").GetAsDouble(0)));
  EXPECT_EQ(RootLiteral("pred[2] constant({true, false})").GetAsInt64(0), 1);
  EXPECT_EQ(RootLiteral("s32[] constant(-0x10)").GetAsInt64(0), -16);
  EXPECT_EQ(RootLiteral("s8[] constant(-128)").GetAsInt64(0), -128);
  EXPECT_EQ(
      RootLiteral("u64[] constant(18446744073709551615)").data<uint64_t>()[0],
      18446744073709551615ull);
  const Literal nested =
      RootLiteral("s32[2,3] constant({ { 1, 2, 3 }, {4,5,6} })");
  EXPECT_EQ(nested.GetAsInt64(5), 6);
  EXPECT_EQ(nested.Get<int32_t>({1, 0}), 4);
  const Literal c = RootLiteral("c64[2] constant({(1, 2), (-3.5, inf)})");
  EXPECT_EQ(c.GetAsComplex(1), complex128(-3.5, INFINITY));
  // f16/bf16 round to nearest even: 1 + 2^-11 is a tie between 1 and the
  // next half, and 1 + 2^-8 between 1 and the next bf16.
  EXPECT_EQ(RootLiteral("f16[] constant(1.00048828125)").data<Half>()[0].bits,
            0x3c00);
  EXPECT_EQ(RootLiteral("f16[] constant(1.00146484375)").data<Half>()[0].bits,
            0x3c02);
  EXPECT_EQ(RootLiteral("bf16[] constant(1.00390625)").data<BFloat16>()[0].bits,
            0x3f80);
  const Literal empty = RootLiteral("f32[0,3] constant({})");
  EXPECT_EQ(empty.element_count(), 0);
  const Literal tuple =
      RootLiteral("(f32[], s32[2]) constant((1, s32[2] {3, 4}))");
  ASSERT_EQ(tuple.tuple_elements().size(), 2u);
  EXPECT_EQ(tuple.tuple_elements()[1].GetAsInt64(1), 4);
  // Older XLA repeated the shape inside the parentheses.
  EXPECT_EQ(RootLiteral("f32[2] constant(f32[2] {7, 8})").GetAsDouble(1), 8);
}

TEST(ParserTest, ConstantErrors) {
  // Every message ends by naming the instruction.
  auto err = [](absl::string_view line) {
    std::string e =
        ParseError(absl::StrCat("ENTRY e {\n  ROOT c = ", line, "\n}\n"));
    const std::string suffix = " (in instruction 'c')";
    EXPECT_TRUE(absl::EndsWith(e, suffix)) << e;
    return e.substr(0, e.size() - std::min(e.size(), suffix.size()));
  };
  EXPECT_EQ(err("f32[3] constant({1, 2})"),
            "m.hlo:2:33: dimension 0 of the constant has 2 elements but its "
            "shape f32[3] needs 3");
  EXPECT_EQ(err("f32[1] constant({1, 2})"),
            "m.hlo:2:32: too many elements in dimension 0 of the constant: "
            "its shape f32[1] has 1");
  // A huge shape with a tiny text is rejected without allocating.
  EXPECT_EQ(err("f32[99999999999,9999999] constant({{1}})"),
            "m.hlo:2:49: dimension 1 of the constant has 1 elements but its "
            "shape f32[99999999999,9999999] needs 9999999");
  EXPECT_EQ(err("s8[] constant(128)"),
            "m.hlo:2:26: value '128' is out of range for s8");
  EXPECT_EQ(err("u32[] constant(-1)"),
            "m.hlo:2:27: value '-1' is out of range for u32");
  EXPECT_EQ(err("f32[] constant(1e39)"),
            "m.hlo:2:27: value '1e39' is out of range for f32");
  EXPECT_EQ(err("s32[] constant(1.5)"),
            "m.hlo:2:27: expected an integer but found '1.5'");
  EXPECT_EQ(err("pred[] constant(2)"),
            "m.hlo:2:28: expected 'true' or 'false' but found '2'");
  EXPECT_EQ(err("f32[] constant(abc)"),
            "m.hlo:2:27: expected a value of type f32 but found 'abc'");
  EXPECT_EQ(err("f32[2] constant({...})"),
            "m.hlo:2:28: constant values were elided as '{...}' when this "
            "module was printed; print it with large constants included");
  EXPECT_EQ(err("token[] constant(1)"),
            "m.hlo:2:29: constants of type token are not supported");
}

TEST(ParserTest, CommonAttributes) {
  auto op = ParseOp(
      "  p = f32[] parameter(0)\n  q = f32[] parameter(1)",
      "f32[] add(p, q), control-predecessors={q}, sharding={devices=[2]0,1}, "
      "frontend_attributes={_xla_x=\"1\", b=\"two\"}, "
      "metadata={op_type=\"Add\" op_name=\"jit(f)/add\" source_file=\"f.py\" "
      "source_line=3 source_end_line=4 source_column=5 source_end_column=6 "
      "deduplicated_name=\"d\" preserve_layout=true stack_frame_id=7 "
      "scheduling_name=\"s\"}, backend_config={\"a\":{\"b\":[1,2]}}, "
      "statistics={visualizing_index=1,stat-0=0.5}, origin=[2,2]<=[4]");
  ASSERT_NE(op.root, nullptr);
  const HloInstruction& r = *op.root;
  ASSERT_EQ(r.control_predecessors().size(), 1u);
  EXPECT_EQ(r.control_predecessors()[0]->name(), "q");
  EXPECT_EQ(r.sharding(), "{devices=[2]0,1}");
  EXPECT_EQ(r.frontend_attributes().at("b"), "two");
  const OpMetadata& m = r.metadata();
  EXPECT_EQ(m.op_type, "Add");
  EXPECT_EQ(m.op_name, "jit(f)/add");
  EXPECT_EQ(m.source_file, "f.py");
  EXPECT_EQ(m.source_line, 3);
  EXPECT_EQ(m.source_end_line, 4);
  EXPECT_EQ(m.source_column, 5);
  EXPECT_EQ(m.source_end_column, 6);
  EXPECT_EQ(m.deduplicated_name, "d");
  EXPECT_TRUE(m.preserve_layout);
  EXPECT_EQ(m.stack_frame_id, 7);
  EXPECT_EQ(m.scheduling_name, "s");
  EXPECT_EQ(r.backend_config(), "{\"a\":{\"b\":[1,2]}}");
  ASSERT_EQ(r.raw_attributes().size(), 2u);
  EXPECT_EQ(r.raw_attributes()[0].name, "statistics");
  EXPECT_EQ(r.raw_attributes()[0].value, "{visualizing_index=1,stat-0=0.5}");
  EXPECT_EQ(r.raw_attributes()[1].value, "[2,2]<=[4]");

  auto quoted = ParseOp("  p = f32[] parameter(0)",
                        "f32[] negate(p), backend_config=\"x\\\"y\"");
  ASSERT_NE(quoted.root, nullptr);
  EXPECT_EQ(quoted.root->backend_config(), "x\"y");
}

TEST(ParserTest, ShapeAndIndexingAttributes) {
  auto slice = ParseOp("  p = f32[8,8] parameter(0)",
                       "f32[2,3] slice(p), slice={[0:2], [1:7:2]}");
  ASSERT_NE(slice.root, nullptr);
  EXPECT_EQ(slice.root->attrs().slice_starts, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(slice.root->attrs().slice_limits, (std::vector<int64_t>{2, 7}));
  EXPECT_EQ(slice.root->attrs().slice_strides, (std::vector<int64_t>{1, 2}));

  auto ds = ParseOp("  p = f32[8] parameter(0)\n  i = s32[] parameter(1)",
                    "f32[2] dynamic-slice(p, i), dynamic_slice_sizes={2}");
  ASSERT_NE(ds.root, nullptr);
  EXPECT_EQ(ds.root->attrs().dynamic_slice_sizes, std::vector<int64_t>{2});

  auto pad = ParseOp("  p = f32[2,2] parameter(0)\n  z = f32[] parameter(1)",
                     "f32[3,8] pad(p, z), padding=0_1x-1_2_3");
  ASSERT_NE(pad.root, nullptr);
  const PaddingConfig& pc = *pad.root->attrs().padding_config;
  ASSERT_EQ(pc.dimensions.size(), 2u);
  EXPECT_EQ(pc.dimensions[0].edge_padding_high, 1);
  EXPECT_EQ(pc.dimensions[1].edge_padding_low, -1);
  EXPECT_EQ(pc.dimensions[1].interior_padding, 3);

  auto iota = ParseOp("", "s32[4,2] iota(), iota_dimension=1");
  ASSERT_NE(iota.root, nullptr);
  EXPECT_EQ(iota.root->attrs().iota_dimension, 1);

  auto gte = ParseOp("  p = (f32[], s32[]) parameter(0)",
                     "s32[] get-tuple-element(p), index=1");
  ASSERT_NE(gte.root, nullptr);
  EXPECT_EQ(gte.root->tuple_index(), 1);

  auto rp = ParseOp("  p = f32[] parameter(0)",
                    "f32[] reduce-precision(p), exponent_bits=5, "
                    "mantissa_bits=10");
  ASSERT_NE(rp.root, nullptr);
  EXPECT_EQ(rp.root->attrs().exponent_bits, 5);
  EXPECT_EQ(rp.root->attrs().mantissa_bits, 10);

  auto param = ParseOp("", "f32[] parameter(0), parameter_replication={true}");
  ASSERT_NE(param.root, nullptr);
  EXPECT_EQ(param.root->attrs().parameter_replication, std::vector<bool>{true});
}

TEST(ParserTest, WindowConvolutionAndDot) {
  auto conv = ParseOp(
      "  x = f32[1,8,8,3] parameter(0)\n  w = f32[3,3,3,4] parameter(1)",
      "f32[1,4,4,4] convolution(x, w), window={size=3x3 stride=2x2 "
      "pad=0_1x1_0 lhs_dilate=1x2 rhs_dilate=2x1 rhs_reversal=0x1}, "
      "dim_labels=b01f_01io->b01f, feature_group_count=1, "
      "batch_group_count=1, operand_precision={high,HIGHEST}");
  ASSERT_NE(conv.root, nullptr);
  const HloAttributes& a = conv.root->attrs();
  ASSERT_EQ(a.window->dimensions.size(), 2u);
  const WindowDimension& w1 = a.window->dimensions[1];
  EXPECT_EQ(w1.size, 3);
  EXPECT_EQ(w1.stride, 2);
  EXPECT_EQ(w1.padding_low, 1);
  EXPECT_EQ(w1.padding_high, 0);
  EXPECT_EQ(w1.base_dilation, 2);
  EXPECT_EQ(w1.window_dilation, 1);
  EXPECT_TRUE(w1.window_reversal);
  const ConvolutionDimensionNumbers& d = *a.convolution_dimension_numbers;
  EXPECT_EQ(d.input_batch_dimension, 0);
  EXPECT_EQ(d.input_feature_dimension, 3);
  EXPECT_EQ(d.input_spatial_dimensions, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(d.kernel_input_feature_dimension, 2);
  EXPECT_EQ(d.kernel_output_feature_dimension, 3);
  EXPECT_EQ(d.output_feature_dimension, 3);
  EXPECT_EQ(a.precision_config->operand_precision,
            (std::vector<Precision>{Precision::kHigh, Precision::kHighest}));

  auto dot = ParseOp(
      "  a = f32[2,3,4] parameter(0)\n  b = f32[2,4,5] parameter(1)",
      "f32[2,3,5] dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={2}, "
      "rhs_batch_dims={0}, rhs_contracting_dims={1}, "
      "algorithm=dot_bf16_bf16_f32");
  ASSERT_NE(dot.root, nullptr);
  const DotDimensionNumbers& dd = *dot.root->attrs().dot_dimension_numbers;
  EXPECT_EQ(dd.lhs_batch_dimensions, std::vector<int64_t>{0});
  EXPECT_EQ(dd.lhs_contracting_dimensions, std::vector<int64_t>{2});
  EXPECT_EQ(dd.rhs_contracting_dimensions, std::vector<int64_t>{1});
  EXPECT_EQ(dot.root->attrs().precision_config->algorithm, 6);

  auto rw = ParseOp("  p = f32[4] parameter(0)\n  z = f32[] parameter(1)",
                    "f32[2] reduce-window(p, z), window={size=2 stride=2}, "
                    "to_apply=add_f32",
                    kAdd);
  ASSERT_NE(rw.root, nullptr);
  EXPECT_EQ(rw.root->attrs().window->dimensions[0].stride, 2);
  EXPECT_EQ(rw.root->to_apply()->name(), "add_f32");
}

TEST(ParserTest, GatherAndScatter) {
  auto g = ParseOp(
      "  p = f32[4,5] parameter(0)\n  i = s32[3,1] parameter(1)",
      "f32[3,5] gather(p, i), offset_dims={1}, collapsed_slice_dims={0}, "
      "start_index_map={0}, operand_batching_dims={}, "
      "start_indices_batching_dims={}, index_vector_dim=1, "
      "slice_sizes={1,5}, indices_are_sorted=true");
  ASSERT_NE(g.root, nullptr);
  const GatherDimensionNumbers& gd = *g.root->attrs().gather_dimension_numbers;
  EXPECT_EQ(gd.offset_dims, std::vector<int64_t>{1});
  EXPECT_EQ(gd.index_vector_dim, 1);
  EXPECT_EQ(g.root->attrs().gather_slice_sizes, (std::vector<int64_t>{1, 5}));
  EXPECT_TRUE(g.root->attrs().indices_are_sorted);

  auto s = ParseOp(
      "  p = f32[4] parameter(0)\n  i = s32[2,1] parameter(1)\n"
      "  u = f32[2] parameter(2)",
      "f32[4] scatter(p, i, u), update_window_dims={}, "
      "inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, "
      "input_batching_dims={}, scatter_indices_batching_dims={}, "
      "index_vector_dim=1, unique_indices=true, to_apply=add_f32",
      kAdd);
  ASSERT_NE(s.root, nullptr);
  const ScatterDimensionNumbers& sd =
      *s.root->attrs().scatter_dimension_numbers;
  EXPECT_EQ(sd.inserted_window_dims, std::vector<int64_t>{0});
  EXPECT_TRUE(s.root->attrs().unique_indices);
  EXPECT_EQ(s.root->to_apply()->name(), "add_f32");
}

TEST(ParserTest, EnumsAndFlags) {
  auto cmp = ParseOp("  a = f32[] parameter(0)\n  b = f32[] parameter(1)",
                     "pred[] compare(a, b), direction=GE, type=TOTALORDER, "
                     "order=TOTAL");
  ASSERT_NE(cmp.root, nullptr);
  EXPECT_EQ(cmp.root->comparison_direction(), ComparisonDirection::kGe);
  EXPECT_EQ(cmp.root->attrs().comparison_type, ComparisonType::kTotalOrder);
  EXPECT_EQ(cmp.root->attrs().comparison_order, ComparisonOrder::kTotal);

  auto sort = ParseOp("  a = f32[4] parameter(0)",
                      "f32[4] sort(a), dimensions={0}, is_stable=true, "
                      "to_apply=lt",
                      "lt {\n x = f32[] parameter(0)\n y = f32[] parameter(1)\n"
                      " ROOT r = pred[] compare(x, y), direction=LT\n}\n");
  ASSERT_NE(sort.root, nullptr);
  EXPECT_TRUE(sort.root->attrs().is_stable);

  auto topk = ParseOp("  a = f32[8] parameter(0)",
                      "(f32[2], s32[2]) topk(a), k=2, largest=false");
  ASSERT_NE(topk.root, nullptr);
  EXPECT_EQ(topk.root->attrs().k, 2);
  EXPECT_FALSE(topk.root->attrs().largest);
  EXPECT_FALSE(topk.root->attrs().is_stable);

  // Current JAX (jax.lax.top_k) prints is_stable on topk too.
  auto stable_topk =
      ParseOp("  a = f32[8] parameter(0)",
              "(f32[2], s32[2]) topk(a), k=2, largest=true, is_stable=true");
  ASSERT_NE(stable_topk.root, nullptr);
  EXPECT_TRUE(stable_topk.root->attrs().is_stable);
  EXPECT_TRUE(stable_topk.root->attrs().largest);

  auto bn = ParseOp(
      "  a = f32[2,4] parameter(0)\n  s = f32[4] parameter(1)\n"
      "  o = f32[4] parameter(2)",
      "(f32[2,4], f32[4], f32[4]) batch-norm-training(a, s, o), "
      "epsilon=0.001, feature_index=1");
  ASSERT_NE(bn.root, nullptr);
  EXPECT_FLOAT_EQ(bn.root->attrs().epsilon, 0.001f);
  EXPECT_EQ(bn.root->attrs().feature_index, 1);

  auto rng = ParseOp("  a = f32[] parameter(0)\n  b = f32[] parameter(1)",
                     "f32[4] rng(a, b), distribution=rng_normal");
  ASSERT_NE(rng.root, nullptr);
  EXPECT_EQ(rng.root->attrs().distribution, RandomDistribution::kNormal);

  auto rbg = ParseOp("  s = u64[2] parameter(0)",
                     "(u64[2], u32[4]) rng-bit-generator(s), "
                     "algorithm=rng_philox");
  ASSERT_NE(rbg.root, nullptr);
  EXPECT_EQ(rbg.root->attrs().rng_algorithm, RandomAlgorithm::kPhilox);

  auto fft = ParseOp("  a = c64[8] parameter(0)",
                     "c64[8] fft(a), fft_type=IFFT, fft_length={8}");
  ASSERT_NE(fft.root, nullptr);
  EXPECT_EQ(fft.root->attrs().fft_type, FftType::kIfft);
  EXPECT_EQ(fft.root->attrs().fft_length, std::vector<int64_t>{8});

  auto ts = ParseOp("  a = f32[4,4] parameter(0)\n  b = f32[4,2] parameter(1)",
                    "f32[4,2] triangular-solve(a, b), left_side=true, "
                    "lower=true, unit_diagonal=false, transpose_a=ADJOINT");
  ASSERT_NE(ts.root, nullptr);
  const TriangularSolveOptions& t = *ts.root->attrs().triangular_solve_options;
  EXPECT_TRUE(t.left_side);
  EXPECT_TRUE(t.lower);
  EXPECT_EQ(t.transpose_a, 3);

  auto chol = ParseOp("  a = f32[4,4] parameter(0)",
                      "f32[4,4] cholesky(a), lower=true");
  ASSERT_NE(chol.root, nullptr);
  EXPECT_TRUE(chol.root->attrs().cholesky_lower);
}

TEST(ParserTest, ResultAccuracy) {
  // As JAX prints lax.exp(x, accuracy=lax.Tolerance(rtol=1e-3)).
  auto tol = ParseOp("  a = f32[4] parameter(0)",
                     "f32[4] exponential(a), "
                     "result_accuracy={tolerance={atol=0,rtol=0.001,ulps=0}}");
  ASSERT_NE(tol.root, nullptr);
  ASSERT_TRUE(tol.root->attrs().result_accuracy.has_value());
  const ResultAccuracy& t = *tol.root->attrs().result_accuracy;
  EXPECT_TRUE(t.has_tolerance);
  EXPECT_EQ(t.atol, 0);
  EXPECT_EQ(t.rtol, 0.001);
  EXPECT_EQ(t.ulps, 0);

  auto ulps = ParseOp("  a = f32[4] parameter(0)",
                      "f32[4] tanh(a), result_accuracy={tolerance={ulps=4}}");
  ASSERT_NE(ulps.root, nullptr);
  EXPECT_EQ(ulps.root->attrs().result_accuracy->ulps, 4);
  EXPECT_EQ(ulps.root->attrs().result_accuracy->rtol, 0);

  auto highest = ParseOp("  a = f32[4] parameter(0)",
                         "f32[4] log(a), result_accuracy={mode=highest}");
  ASSERT_NE(highest.root, nullptr);
  EXPECT_FALSE(highest.root->attrs().result_accuracy->has_tolerance);
  EXPECT_EQ(highest.root->attrs().result_accuracy->mode,
            ResultAccuracy::Mode::kHighest);

  // mode=default asks for nothing, as if absent.
  auto plain = ParseOp("  a = f32[4] parameter(0)",
                       "f32[4] sqrt(a), result_accuracy={mode=default}");
  ASSERT_NE(plain.root, nullptr);
  EXPECT_FALSE(plain.root->attrs().result_accuracy.has_value());

  const std::string head = "ENTRY e {\n  a = f32[4] parameter(0)\n  ROOT r = ";
  EXPECT_NE(ParseError(head + "f32[4] add(a, a), result_accuracy={mode=highest}\n}")
                .find("attribute 'result_accuracy' is not valid for add"),
            std::string::npos);
  EXPECT_NE(ParseError(head + "f32[4] exponential(a), result_accuracy={mode=best}\n}")
                .find("unknown accuracy mode 'best'"),
            std::string::npos);
  EXPECT_NE(ParseError(head + "f32[4] exponential(a), "
                              "result_accuracy={tolerance={rtol=-1}}\n}")
                .find("rtol must be a non-negative number"),
            std::string::npos);
  EXPECT_NE(ParseError(head + "f32[4] exponential(a), "
                              "result_accuracy={tolerance={eps=1}}\n}")
                .find("unknown tolerance field 'eps'"),
            std::string::npos);
}

TEST(ParserTest, CustomCall) {
  auto cc = ParseOp(
      "  a = f32[2] parameter(0)\n  b = f32[2] parameter(1)",
      "(f32[2], s8[4]) custom-call(a, b), custom_call_target=\"my$target\", "
      "api_version=API_VERSION_TYPED_FFI, custom_call_has_side_effect=true, "
      "operand_layout_constraints={f32[2]{0}, f32[2]{0}}, "
      "output_to_operand_aliasing={{0}: (1, {})}, schedule=SCHEDULE_LATEST, "
      "called_computations={add_f32}, padding_type=PADDING_VALID",
      kAdd);
  ASSERT_NE(cc.root, nullptr);
  const HloAttributes& a = cc.root->attrs();
  EXPECT_EQ(a.custom_call_target, "my$target");
  EXPECT_EQ(a.api_version, CustomCallApiVersion::kTypedFfi);
  EXPECT_TRUE(a.custom_call_has_side_effect);
  EXPECT_EQ(a.operand_layout_constraints->size(), 2u);
  ASSERT_EQ(a.output_to_operand_aliasing.size(), 1u);
  EXPECT_EQ(a.output_to_operand_aliasing[0].operand_index, 1);
  EXPECT_EQ(a.custom_call_schedule, CustomCallSchedule::kLatest);
  EXPECT_EQ(cc.root->called_computations().size(), 1u);
  ASSERT_EQ(cc.root->raw_attributes().size(), 1u);
  EXPECT_EQ(cc.root->raw_attributes()[0].value, "PADDING_VALID");
}

TEST(ParserTest, Collectives) {
  auto ar = ParseOp("  a = f32[4] parameter(0)",
                    "f32[4] all-reduce(a), channel_id=3, "
                    "replica_groups={{0,1},{2,3}}, use_global_device_ids=true, "
                    "constrain_layout=true, to_apply=add_f32",
                    kAdd);
  ASSERT_NE(ar.root, nullptr);
  EXPECT_EQ(*ar.root->attrs().channel_id, 3);
  EXPECT_EQ(ar.root->attrs().replica_groups,
            (std::vector<std::vector<int64_t>>{{0, 1}, {2, 3}}));
  EXPECT_TRUE(ar.root->attrs().use_global_device_ids);
  EXPECT_TRUE(ar.root->attrs().constrain_layout);

  auto ag =
      ParseOp("  a = f32[4] parameter(0)",
              "f32[16] all-gather(a), replica_groups=[2, 2]<=[2,2]T(1,0), "
              "dimensions={0}");
  ASSERT_NE(ag.root, nullptr);
  EXPECT_EQ(ag.root->attrs().iota_replica_groups, "[2,2]<=[2,2]T(1,0)");
  EXPECT_EQ(ag.root->dimensions(), std::vector<int64_t>{0});

  // XLA's mesh-axes form (GSPMD-partitioned modules), expanded.
  auto mesh = ParseOp("  a = f32[4] parameter(0)",
                      "f32[4] all-reduce(a), channel_id=1, "
                      "replica_groups=mesh['x'=2,'y'=2] {'y'}, "
                      "use_global_device_ids=true, to_apply=add_f32",
                      kAdd);
  ASSERT_NE(mesh.root, nullptr);
  EXPECT_EQ(mesh.root->attrs().replica_groups,
            (std::vector<std::vector<int64_t>>{{0, 1}, {2, 3}}));
  auto sub = ParseOp("  a = f32[4] parameter(0)",
                     "f32[4] all-reduce(a), channel_id=1, "
                     "replica_groups=mesh['x'=8] {'x':(2)2}, "
                     "use_global_device_ids=true, to_apply=add_f32",
                     kAdd);
  ASSERT_NE(sub.root, nullptr);
  EXPECT_EQ(sub.root->attrs().replica_groups,
            (std::vector<std::vector<int64_t>>{{0, 2}, {1, 3}, {4, 6},
                                               {5, 7}}));
  EXPECT_NE(ParseError(absl::StrCat(kAdd,
                                    "ENTRY e {\n  a = f32[4] parameter(0)\n"
                                    "  ROOT r = f32[4] all-reduce(a), "
                                    "replica_groups=mesh['x'=2] {'z'}, "
                                    "to_apply=add_f32\n}\n"))
                .find("no mesh axis 'z'"),
            std::string::npos);

  auto cp = ParseOp("  a = f32[4] parameter(0)",
                    "f32[4] collective-permute(a), channel_id=1, "
                    "source_target_pairs={{0,1},{1,0}}");
  ASSERT_NE(cp.root, nullptr);
  EXPECT_EQ(cp.root->attrs().source_target_pairs.size(), 2u);
  EXPECT_EQ(cp.root->attrs().source_target_pairs[0].second, 1);

  auto send = ParseOp("  a = f32[4] parameter(0)\n  t = token[] after-all()",
                      "(f32[4], u32[], token[]) send(a, t), channel_id=2, "
                      "is_host_transfer=true");
  ASSERT_NE(send.root, nullptr);
  EXPECT_TRUE(send.root->attrs().is_host_transfer);

  auto infeed = ParseOp("  t = token[] after-all()",
                        "((f32[2]), token[]) infeed(t), infeed_config=\"cfg\"");
  ASSERT_NE(infeed.root, nullptr);
  EXPECT_EQ(infeed.root->attrs().infeed_config, "cfg");

  auto outfeed = ParseOp("  a = f32[2] parameter(0)\n  t = token[] after-all()",
                         "token[] outfeed(a, t), outfeed_shape=f32[2]{0}, "
                         "outfeed_config=\"o\"");
  ASSERT_NE(outfeed.root, nullptr);
  EXPECT_EQ(outfeed.root->attrs().outfeed_shape->ToString(), "f32[2]{0}");
}

TEST(ParserTest, ControlFlowAndCalls) {
  constexpr char kComps[] = R"(
cond {
  c = (s32[]) parameter(0)
  i = s32[] get-tuple-element(c), index=0
  n = s32[] constant(10)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  b = (s32[]) parameter(0)
  ROOT t = (s32[]) tuple(b)
}
)";
  auto w = ParseOp("  init = (s32[]) parameter(0)",
                   "(s32[]) while(init), condition=cond, body=body", kComps);
  ASSERT_NE(w.root, nullptr);
  EXPECT_EQ(w.root->while_condition()->name(), "cond");
  EXPECT_EQ(w.root->while_body()->name(), "body");

  auto c = ParseOp("  p = pred[] parameter(0)\n  a = (s32[]) parameter(1)",
                   "(s32[]) conditional(p, a, a), true_computation=body, "
                   "false_computation=body",
                   kComps);
  ASSERT_NE(c.root, nullptr);
  EXPECT_EQ(c.root->called_computations().size(), 2u);
  auto b = ParseOp("  p = s32[] parameter(0)\n  a = (s32[]) parameter(1)",
                   "(s32[]) conditional(p, a, a, a), "
                   "branch_computations={body, body, body}",
                   kComps);
  ASSERT_NE(b.root, nullptr);
  EXPECT_EQ(b.root->called_computations().size(), 3u);

  auto f = ParseOp("  p = f32[] parameter(0)\n  q = f32[] parameter(1)",
                   "f32[] fusion(p, q), kind=kOutput, calls=add_f32", kAdd);
  ASSERT_NE(f.root, nullptr);
  EXPECT_EQ(f.root->fusion_kind(), FusionKind::kOutput);
  EXPECT_EQ(f.root->fused_computation()->FusionInstruction(), f.root);

  auto s = ParseOp(
      "  p = f32[4] parameter(0)\n  src = f32[2] parameter(1)\n"
      "  z = f32[] parameter(2)",
      "f32[4] select-and-scatter(p, src, z), window={size=2 stride=2}, "
      "select=ge, scatter=add_f32",
      std::string(kAdd) +
          "ge {\n x = f32[] parameter(0)\n y = f32[] "
          "parameter(1)\n ROOT r = pred[] compare(x, y), "
          "direction=GE\n}\n");
  ASSERT_NE(s.root, nullptr);
  EXPECT_EQ(s.root->called_computations()[0]->name(), "ge");
  EXPECT_EQ(s.root->called_computations()[1]->name(), "add_f32");

  auto async = ParseOp("  p = f32[] parameter(0)\n  q = f32[] parameter(1)",
                       "((f32[], f32[]), f32[], u32[]) async-start(p, q), "
                       "calls=add_f32, async_execution_thread=\"t\"",
                       kAdd);
  ASSERT_NE(async.root, nullptr);
  EXPECT_EQ(async.root->attrs().async_execution_thread, "t");
}

TEST(ParserTest, ErrorMessages) {
  EXPECT_EQ(ParseError(""),
            "m.hlo:1:1: expected a computation but found end of input");
  EXPECT_EQ(ParseError("HloModule m\nENTRY e {\n  ROOT p = f32[] parameter(0"),
            "m.hlo:3:29: expected ',' or ')' but found end of input (in "
            "instruction 'p')");
  EXPECT_EQ(ParseError("ENTRY e {\n  p = f32[] parameter(0)\n"
                       "  ROOT r = f32[] add(p foo)\n}"),
            "m.hlo:3:24: expected ',' or ')' but found 'foo' (in instruction "
            "'r')");
  EXPECT_EQ(ParseError("ENTRY e {\n  ROOT r = f32[] frobnicate()\n}"),
            "m.hlo:2:18: unknown opcode 'frobnicate' (in instruction 'r')");
  EXPECT_EQ(ParseError("ENTRY e {\n  p = f32[] parameter(0)\n"
                       "  ROOT r = f32[] add(p, q)\n}"),
            "m.hlo:3:25: instruction 'r' uses undefined operand 'q' "
            "(computation 'e')");
  EXPECT_EQ(ParseError("ENTRY e {\n  p = f32[] parameter(0)\n"
                       "  ROOT r = f32[] negate(p), dimensions={0}\n}"),
            "m.hlo:3:29: attribute 'dimensions' is not valid for negate (in "
            "instruction 'r')");
  EXPECT_EQ(ParseError("ENTRY e {\n  p = f32[] parameter(0)\n"
                       "  ROOT r = f32[2] broadcast(p)\n}"),
            "m.hlo:3:19: broadcast is missing required attribute "
            "'dimensions' (in instruction 'r')");
  EXPECT_EQ(ParseError("ENTRY e {\n  p = f32[2] parameter(0)\n"
                       "  z = f32[] constant(0)\n"
                       "  ROOT r = f32[] reduce(p, z), dimensions={0}\n}"),
            "m.hlo:4:18: reduce is missing required attribute 'to_apply' (in "
            "instruction 'r')");
  EXPECT_EQ(ParseError("ENTRY e {\n  p = f32[] parameter(0)\n"
                       "  ROOT r = f32[] add(p)\n}"),
            "m.hlo:3:18: add takes 2 operands but 1 were given (in "
            "instruction 'r')");
  EXPECT_EQ(ParseError("ENTRY e {\n  p = f32[] parameter(0)\n"
                       "  p = f32[] parameter(1)\n}"),
            "m.hlo:3:3: duplicate instruction name 'p' in computation 'e'");
  EXPECT_EQ(ParseError("ENTRY e {\n  p = f32[] parameter(0)\n"
                       "  ROOT r = f32[] call(p), to_apply=nowhere\n}"),
            "m.hlo:3:36: instruction 'r' calls undefined computation "
            "'nowhere'");
  EXPECT_EQ(ParseError("ENTRY e {\n  ROOT p = f32[] parameter(3)\n}"),
            "m.hlo:2:18: parameter number 3 of 'p' is out of range: 'e' has 1 "
            "parameters");
  EXPECT_EQ(ParseError("ENTRY e {\n  a = f32[] negate(b)\n"
                       "  ROOT b = f32[] negate(a)\n}"),
            "m.hlo:2:3: instruction 'a' depends on itself (through 'b')");
  EXPECT_EQ(ParseError("c {\n  ROOT r = f32[] call(), to_apply=c\n}"),
            "m.hlo:1:1: computation 'c' calls itself (through 'c')");
  EXPECT_EQ(ParseError("ENTRY e {\n  ROOT s = f32[] constant(1), "
                       "metadata={op_name=\"x}\n}"),
            "m.hlo:2:49: expected a string but found unterminated string '\"' "
            "(in instruction 's')");
  EXPECT_EQ(ParseError("ENTRY e {\n  /* oops\n  ROOT s = f32[] constant(1)\n}"),
            "m.hlo:2:3: expected an instruction or '}' but found unterminated "
            "comment '/*'");
  EXPECT_EQ(ParseError("ENTRY e {\n  ROOT r = f32[] constant(1), "
                       "direction=LT\n}"),
            "m.hlo:2:31: attribute 'direction' is not valid for constant (in "
            "instruction 'r')");
  EXPECT_EQ(ParseError("ENTRY e {\n  a = f32[] parameter(0)\n"
                       "  ROOT r = pred[] compare(a, a), direction=XX\n}"),
            "m.hlo:3:44: unknown comparison direction 'XX', expected one of "
            "EQ, NE, GE, GT, LE, LT (in instruction 'r')");
  EXPECT_EQ(ParseError("HloModule m, entry_computation_layout={(f32[])->f32[]}"
                       "\nENTRY e {\n  ROOT p = s32[] parameter(0)\n}"),
            "m.hlo:1:14: entry_computation_layout (f32[])->f32[] does not "
            "match entry computation 'e' (s32[])->s32[]");
  EXPECT_EQ(ParseError("e (x: f32[]) -> s32[] {\n  ROOT p = f32[] parameter(0)"
                       "\n}"),
            "m.hlo:1:3: signature (f32[])->s32[] of computation 'e' does not "
            "match its parameters and root (f32[])->f32[]");
  EXPECT_EQ(ParseError("ENTRY e {\n  a = f32[] parameter(0)\n"
                       "  ROOT r = f32[] add(s32[] a, a)\n}"),
            "m.hlo:3:28: operand 'a' of 'r' is written as s32[] but has shape "
            "f32[]");
  EXPECT_EQ(ParseError("ENTRY e {\n  ROOT c = s32[] constant(1), "
                       "control-predecessors={nope}\n}"),
            "m.hlo:2:53: control predecessor 'nope' of 'c' is not defined in "
            "'e'");
  EXPECT_EQ(ParseError("ENTRY e {\n}"),
            "m.hlo:2:1: computation 'e' has no instructions");
}

TEST(ParserTest, HugeParameterNumberDoesNotAllocate) {
  EXPECT_EQ(ParseError("ENTRY e {\n  ROOT p = f32[] "
                       "parameter(9223372036854775807)\n}"),
            "m.hlo:2:18: parameter number 9223372036854775807 of 'p' is out "
            "of range: 'e' has 1 parameters");
}

}  // namespace
}  // namespace hloc

namespace hloc {
namespace {

// JAX's default lowered.as_text() is StableHLO: refused with what to give
// instead, not with the parser's complaint about '@'.
TEST(ParserTest, StableHloTextGetsAHint) {
  const char* kStableHlo =
      R"(module @jit_f attributes {mhlo.num_partitions = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>) -> (tensor<4xf32>) {
    %0 = stablehlo.add %arg0, %arg0 : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
)";
  for (const char* text :
       {kStableHlo, "#loc1 = loc(\"x\")\nmodule @jit_g {\n}\n",
        "// a comment\nmodule {\n  func.func @main() {\n  }\n}\n"}) {
    absl::StatusOr<std::unique_ptr<HloModule>> module =
        ParseHloModule(text, "f.hlo");
    ASSERT_FALSE(module.ok()) << text;
    EXPECT_EQ(module.status().code(), absl::StatusCode::kInvalidArgument);
    const std::string message(module.status().message());
    EXPECT_TRUE(absl::StartsWith(message, "f.hlo: this is MLIR text"))
        << message;
    EXPECT_TRUE(absl::StrContains(message, "as_text(dialect=\"hlo\")"))
        << message;
    EXPECT_TRUE(absl::StrContains(message, "as_serialized_hlo_module_proto"))
        << message;
  }
}

// Other bad text keeps the parser's own located error; HLO that mentions
// stablehlo in metadata still parses.
TEST(ParserTest, MlirHintOnlyForMlir) {
  absl::StatusOr<std::unique_ptr<HloModule>> bad = ParseHloModule(
      "HloModule m\nENTRY e {\n  ROOT x = f32[] bogus()\n}\n", "bad.hlo");
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(absl::StartsWith(bad.status().message(), "bad.hlo:3:"))
      << bad.status();
  EXPECT_FALSE(absl::StrContains(bad.status().message(), "MLIR"));
  absl::StatusOr<std::unique_ptr<HloModule>> good = ParseHloModule(
      "HloModule m\nENTRY e {\n  ROOT x = f32[] parameter(0), "
      "metadata={op_name=\"stablehlo.add\"}\n}\n",
      "good.hlo");
  EXPECT_TRUE(good.ok()) << good.status();
}

}  // namespace
}  // namespace hloc
