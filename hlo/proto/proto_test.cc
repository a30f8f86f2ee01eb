// Tests of the proto bridge on hand-built input: modules covering every
// attribute, literals of every element type, sharding text, and bad input
// (truncated or corrupted bytes, dangling ids, cycles, wrong operand counts,
// unknown opcodes, malformed shapes and literals). proto_corpus_test.cc runs
// the JAX corpus.
#include <cmath>
#include <random>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo/computation.h"
#include "hlo/module.h"
#include "hlo/proto/proto_export.h"
#include "hlo/proto/proto_import.h"
#include "hlo/proto/proto_test_util.h"
#include "hlo/proto/sharding_text.h"
#include "tests/corpus.h"

namespace hloc {
namespace {

using ::testing::HasSubstr;

HloInstruction* Find(const HloModule& module, absl::string_view name) {
  for (HloComputation* c : module.computations()) {
    if (HloInstruction* instr = c->GetInstructionWithName(name)) return instr;
  }
  return nullptr;
}

// ---- A hand-built module with (nearly) every attribute ---------------------

TEST(ProtoImportTest, KitchenSinkImportsEveryAttribute) {
  absl::StatusOr<std::unique_ptr<HloModule>> imported =
      ImportHloModuleProto(TextProto(KitchenSink()));
  ASSERT_TRUE(imported.ok()) << imported.status();
  const HloModule& m = **imported;
  EXPECT_EQ(m.name(), "kitchen_sink");
  EXPECT_EQ(m.unique_id(), 7);
  ASSERT_NE(m.entry_computation(), nullptr);
  EXPECT_EQ(m.entry_computation()->name(), "main");
  // Callee-first: "add" and "branch" move before "main".
  std::vector<std::string> names;
  for (HloComputation* c : m.computations()) names.push_back(c->name());
  EXPECT_EQ(names, (std::vector<std::string>{"cond", "body", "fused", "ge",
                                             "add", "branch", "main"}));

  HloInstruction* loop = Find(m, "loop");
  ASSERT_NE(loop, nullptr);
  EXPECT_EQ(loop->while_condition()->name(), "cond");
  EXPECT_EQ(loop->while_body()->name(), "body");
  EXPECT_EQ(loop->operand(0)->name(), "init");
  EXPECT_EQ(loop->backend_config(), "{\"known_trip_count\":{\"n\":\"10\"}}");
  EXPECT_EQ(loop->unique_id(), 604);

  HloInstruction* fusion = Find(m, "fusion");
  EXPECT_EQ(fusion->fused_computation()->name(), "fused");
  EXPECT_TRUE(fusion->fused_computation()->IsFusionComputation());
  EXPECT_EQ(fusion->fusion_kind(), FusionKind::kLoop);
  ASSERT_EQ(fusion->control_predecessors().size(), 1u);
  EXPECT_EQ(fusion->control_predecessors()[0]->name(), "init");

  EXPECT_EQ(Find(m, "sum")->dimensions(), std::vector<int64_t>{0});
  EXPECT_EQ(Find(m, "sum")->to_apply()->name(), "add");
  // Implied compare types and orders become kDefault, as the text has them.
  EXPECT_EQ(Find(m, "lt")->attrs().comparison_type, ComparisonType::kDefault);
  EXPECT_EQ(Find(m, "lt")->attrs().comparison_order, ComparisonOrder::kDefault);
  EXPECT_EQ(Find(m, "c.lt")->attrs().comparison_type, ComparisonType::kDefault);
  // A float total order is order=TOTAL in the text, its type implied.
  EXPECT_EQ(Find(m, "lt.total")->attrs().comparison_type,
            ComparisonType::kDefault);
  EXPECT_EQ(Find(m, "lt.total")->attrs().comparison_order,
            ComparisonOrder::kTotal);
  // Older protos give only the type.
  EXPECT_EQ(Find(m, "lt.old")->attrs().comparison_type,
            ComparisonType::kDefault);
  EXPECT_EQ(Find(m, "lt.old")->attrs().comparison_order,
            ComparisonOrder::kTotal);
  // Not implied by s32: kept.
  EXPECT_EQ(Find(m, "lt.u")->attrs().comparison_type,
            ComparisonType::kUnsigned);
  EXPECT_EQ(Find(m, "lt.u")->attrs().comparison_order,
            ComparisonOrder::kDefault);
  EXPECT_EQ(Find(m, "g.ge")->comparison_direction(), ComparisonDirection::kGe);

  const HloAttributes& cc = Find(m, "cc")->attrs();
  EXPECT_EQ(cc.custom_call_target, "my_target");
  EXPECT_EQ(cc.api_version, CustomCallApiVersion::kTypedFfi);
  EXPECT_TRUE(cc.custom_call_has_side_effect);
  EXPECT_EQ(cc.custom_call_schedule, CustomCallSchedule::kLatest);
  ASSERT_TRUE(cc.operand_layout_constraints.has_value());
  EXPECT_EQ(cc.operand_layout_constraints->size(), 1u);
  EXPECT_FALSE(cc.constrain_layout);
  EXPECT_EQ(cc.output_to_operand_aliasing.size(), 1u);

  const HloInstruction* ar = Find(m, "ar");
  EXPECT_EQ(ar->attrs().iota_replica_groups, "[2,4]<=[4,2]T(1,0)");
  EXPECT_EQ(ar->attrs().channel_id, 3);
  EXPECT_TRUE(ar->attrs().use_global_device_ids);
  EXPECT_EQ(ar->sharding(), "{devices=[2,1]0,1}");
  const HloInstruction* ag = Find(m, "ag");
  EXPECT_EQ(ag->attrs().replica_groups,
            (std::vector<std::vector<int64_t>>{{0, 1}, {2, 3}}));
  EXPECT_TRUE(ag->attrs().constrain_layout);
  EXPECT_EQ(ag->sharding(), "{{replicated}, {maximal device=1}}");
  EXPECT_EQ(Find(m, "cp")->attrs().source_target_pairs.size(), 2u);
  EXPECT_EQ(Find(m, "out")->sharding(), "{replicated}");

  const HloInstruction* sas = Find(m, "sas");
  EXPECT_EQ(sas->called_computations()[0]->name(), "ge");
  EXPECT_EQ(sas->called_computations()[1]->name(), "add");
  ASSERT_TRUE(sas->attrs().window.has_value());
  EXPECT_EQ(sas->attrs().window->dimensions[0].padding_low, 1);
  EXPECT_TRUE(Find(m, "sorted")->attrs().is_stable);
  EXPECT_EQ(Find(m, "io")->attrs().iota_dimension, 0);
  EXPECT_TRUE(Find(m, "io")->dimensions().empty());
  EXPECT_EQ(Find(m, "sl")->attrs().slice_strides, std::vector<int64_t>{2});
  ASSERT_TRUE(Find(m, "dt")->attrs().precision_config.has_value());
  EXPECT_EQ(Find(m, "dt")->attrs().precision_config->operand_precision[0],
            Precision::kHighest);
  // All-default precision is what the text leaves out.
  EXPECT_FALSE(Find(m, "dt2")->attrs().precision_config.has_value());
  ASSERT_EQ(Find(m, "rng.state")->raw_attributes().size(), 1u);
  EXPECT_EQ(Find(m, "rng.state")->raw_attributes()[0].value, "7");
  EXPECT_EQ(Find(m, "tk")->attrs().k, 2);
  // jax.lax.top_k's protos set is_stable (XLA's field 60, as on sort).
  EXPECT_TRUE(Find(m, "tk")->attrs().is_stable);
  EXPECT_EQ(Find(m, "rp")->attrs().mantissa_bits, 10);
  EXPECT_EQ(
      Find(m, "pd")->attrs().padding_config->dimensions[0].edge_padding_low,
      -1);
  EXPECT_TRUE(Find(m, "x")->attrs().largest);  // untouched default

  const Shape& tiled = Find(m, "tiled")->shape();
  EXPECT_TRUE(tiled.is_dynamic_dimension(0));
  ASSERT_EQ(tiled.layout().tiles.size(), 2u);
  EXPECT_EQ(tiled.layout().tiles[1].dimensions[0], Tile::kCombineDimension);
  EXPECT_EQ(tiled.layout().element_size_in_bits, 32);
  EXPECT_EQ(tiled.layout().memory_space, 1);
  EXPECT_EQ(tiled.layout().tail_padding_alignment_in_elements, 2);
  EXPECT_EQ(tiled.layout().index_primitive_type, S32);
  EXPECT_EQ(tiled.layout().pointer_primitive_type, U64);

  EXPECT_EQ(Find(m, "fft")->attrs().fft_type, FftType::kRfft);
  EXPECT_TRUE(Find(m, "chol")->attrs().cholesky_lower);
  EXPECT_EQ(Find(m, "tri")->attrs().triangular_solve_options->transpose_a, 3);
  EXPECT_FLOAT_EQ(Find(m, "bn")->attrs().epsilon, 0.001f);
  EXPECT_EQ(Find(m, "rbg")->attrs().rng_algorithm, RandomAlgorithm::kPhilox);
  EXPECT_EQ(Find(m, "rng")->attrs().distribution, RandomDistribution::kNormal);
  EXPECT_EQ(Find(m, "ifd")->attrs().infeed_config, "cfg");
  EXPECT_EQ(Find(m, "ofd")->attrs().outfeed_shape->dimensions(0), 4);
  EXPECT_TRUE(Find(m, "gth")->attrs().indices_are_sorted);
  EXPECT_TRUE(Find(m, "sct")->attrs().unique_indices);
  EXPECT_EQ(Find(m, "cv")->attrs().feature_group_count, 2);
  EXPECT_TRUE(Find(m, "cv")->attrs().window->dimensions[0].window_reversal);
  EXPECT_EQ(Find(m, "dus")->attrs().dynamic_slice_sizes,
            std::vector<int64_t>{2});
  EXPECT_EQ(Find(m, "calls")->raw_attributes()[0].name, "is_composite");
  EXPECT_EQ(Find(m, "branches")->called_computations().size(), 2u);

  const HloInstruction* x = Find(m, "x");
  EXPECT_EQ(x->metadata().op_name, "x");
  EXPECT_EQ(x->metadata().source_line, 3);
  EXPECT_EQ(x->metadata().stack_frame_id, 2);
  EXPECT_EQ(x->attrs().parameter_replication, std::vector<bool>{true});
  EXPECT_EQ(Find(m, "n")->frontend_attributes().at("k"), "v");

  const HloModuleConfig& config = m.config();
  ASSERT_TRUE(config.entry_computation_layout.has_value());
  EXPECT_EQ(config.entry_computation_layout->parameter_names[1], "p1");
  ASSERT_EQ(config.input_output_alias.size(), 1u);
  EXPECT_TRUE(config.input_output_alias[0].must_alias);
  EXPECT_EQ(config.input_output_alias[0].output_index, std::vector<int64_t>{1});
  ASSERT_EQ(config.buffer_donor.size(), 1u);
  EXPECT_EQ(config.buffer_donor[0].parameter_number, 1);
  EXPECT_EQ(config.frontend_attributes.at("mod"), "attr");
  EXPECT_TRUE(config.is_scheduled);
  EXPECT_EQ(m.schedule().size(), 1u);
  ASSERT_EQ(m.stack_frames().stack_frames.size(), 2u);
  EXPECT_EQ(m.stack_frames().stack_frames[1].parent_frame_id, 1);
  EXPECT_EQ(m.stack_frames().file_locations[0].end_column, 9);

  ExpectRoundTrips(m);
}

TEST(ProtoExportTest, KitchenSinkExportsXlaConventions) {
  absl::StatusOr<std::unique_ptr<HloModule>> m =
      ImportHloModuleProto(TextProto(KitchenSink()));
  ASSERT_TRUE(m.ok()) << m.status();
  absl::StatusOr<xla::HloModuleProto> p = ExportHloModuleProto(**m);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->entry_computation_id(), 6);
  EXPECT_EQ(p->entry_computation_name(), "main");
  const xla::HloComputationProto& main = p->computations(6);
  ASSERT_EQ(main.name(), "main");
  for (const xla::HloInstructionProto& instr : main.instructions()) {
    if (instr.name() == "loop") {
      // XLA's order: body, then condition.
      EXPECT_EQ(instr.called_computation_ids(0), 3);
      EXPECT_EQ(instr.called_computation_ids(1), 2);
    }
    if (instr.name() == "lt") {
      EXPECT_EQ(instr.comparison_type(), "FLOAT");
      EXPECT_EQ(instr.comparison_order(), "PARTIAL");
    }
    if (instr.name() == "lt.total") {
      EXPECT_EQ(instr.comparison_type(), "TOTALORDER");
      EXPECT_EQ(instr.comparison_order(), "TOTAL");
    }
    if (instr.name() == "lt.u") {
      EXPECT_EQ(instr.comparison_type(), "UNSIGNED");
      EXPECT_EQ(instr.comparison_order(), "TOTAL");
    }
    if (instr.name() == "dt2") {
      EXPECT_EQ(instr.precision_config().operand_precision_size(), 2);
    }
    if (instr.name() == "io") {
      ASSERT_EQ(instr.dimensions_size(), 1);
      EXPECT_EQ(instr.dimensions(0), 0);
    }
    if (instr.name() == "ar") {
      EXPECT_EQ(instr.iota_collective_device_list().iota_transpose_perm_size(),
                2);
      EXPECT_EQ(instr.sharding().tile_assignment_devices_size(), 2);
    }
  }
  // The stored order is def-before-use: "init" before "loop".
  int init = -1, loop = -1;
  for (int i = 0; i < main.instructions_size(); ++i) {
    if (main.instructions(i).name() == "init") init = i;
    if (main.instructions(i).name() == "loop") loop = i;
  }
  EXPECT_LT(init, loop);
}

// ---- replica_count / num_partitions ----------------------------------------

TEST(ProtoConfigTest, DeviceAssignmentCarriesReplicasAndPartitions) {
  // What XLA writes for a 4-device SPMD program.
  absl::StatusOr<std::unique_ptr<HloModule>> m = ImportHloModuleProto(TextProto(
      "name: \"m\" entry_computation_id: 1 computations { name: \"e\" id: 1 "
      "root_id: 1 instructions { name: \"p\" opcode: \"partition-id\" id: 1 "
      "shape { element_type: U32 } } } device_assignment { replica_count: 1 "
      "computation_count: 4 computation_devices { replica_device_ids: 0 } "
      "computation_devices { replica_device_ids: 1 } computation_devices { "
      "replica_device_ids: 2 } computation_devices { replica_device_ids: 3 } }"));
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ((*m)->config().replica_count, 1);
  EXPECT_EQ((*m)->config().num_partitions, 4);
  (*m)->mutable_config().replica_count = 2;
  absl::StatusOr<xla::HloModuleProto> p = ExportHloModuleProto(**m);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->device_assignment().replica_count(), 2);
  EXPECT_EQ(p->device_assignment().computation_count(), 4);
  ASSERT_EQ(p->device_assignment().computation_devices_size(), 4);
  EXPECT_EQ(p->device_assignment().computation_devices(3).replica_device_ids(1),
            7);
  absl::StatusOr<std::unique_ptr<HloModule>> back = ImportHloModuleProto(*p);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ((*back)->config().replica_count, 2);
  EXPECT_EQ((*back)->config().num_partitions, 4);

  absl::StatusOr<std::unique_ptr<HloModule>> bad = ImportHloModuleProto(
      TextProto("name: \"m\" entry_computation_id: 1 computations { name: "
                "\"e\" id: 1 root_id: 1 instructions { name: \"p\" opcode: "
                "\"partition-id\" id: 1 shape { element_type: U32 } } } "
                "device_assignment { replica_count: 0 computation_count: 1 }"));
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("replica_count 0"));
}

// ---- result_accuracy (lax.exp(x, accuracy=...)) ----------------------------

// A module of parameter p: f32[4] and ROOT `opcode`(p) with `accuracy`
// (ResultAccuracy's text form, or "" for none).
absl::StatusOr<std::unique_ptr<HloModule>> ImportUnary(
    const std::string& opcode, const std::string& accuracy) {
  const std::string f32x4 =
      "shape { element_type: F32 dimensions: 4 layout { minor_to_major: 0 } }";
  return ImportHloModuleProto(TextProto(absl::StrCat(
      "name: \"m\" entry_computation_id: 1 computations { name: \"e\" id: 1 "
      "root_id: 2 instructions { name: \"p\" opcode: \"parameter\" id: 1 ",
      f32x4, " } instructions { name: \"r\" opcode: \"", opcode,
      "\" id: 2 operand_ids: 1 ", f32x4, " ", accuracy, " } }")));
}

TEST(ProtoImportTest, ResultAccuracyImportsAndRoundTrips) {
  auto tol = ImportUnary(
      "exponential",
      "result_accuracy { tolerance { atol: 0 rtol: 0.001 ulps: 2 } }");
  ASSERT_TRUE(tol.ok()) << tol.status();
  const HloInstruction* root = (*tol)->entry_computation()->root_instruction();
  ASSERT_TRUE(root->attrs().result_accuracy.has_value());
  EXPECT_TRUE(root->attrs().result_accuracy->has_tolerance);
  EXPECT_EQ(root->attrs().result_accuracy->rtol, 0.001);
  EXPECT_EQ(root->attrs().result_accuracy->ulps, 2);
  ExpectRoundTrips(**tol);

  auto highest = ImportUnary("tanh", "result_accuracy { mode: HIGHEST }");
  ASSERT_TRUE(highest.ok()) << highest.status();
  root = (*highest)->entry_computation()->root_instruction();
  EXPECT_EQ(root->attrs().result_accuracy->mode,
            ResultAccuracy::Mode::kHighest);
  ExpectRoundTrips(**highest);

  // DEFAULT is no request, as the text form prints it.
  auto plain = ImportUnary("log", "result_accuracy { mode: DEFAULT }");
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_FALSE((*plain)
                   ->entry_computation()
                   ->root_instruction()
                   ->attrs()
                   .result_accuracy.has_value());

  auto negative = ImportUnary(
      "exponential", "result_accuracy { tolerance { rtol: -0.5 } }");
  ASSERT_FALSE(negative.ok());
  EXPECT_THAT(negative.status().message(), HasSubstr("non-negative"));
}

// ---- Literals of every element type ----------------------------------------

// A module whose root is a constant of `shape` holding `values`.
absl::StatusOr<std::unique_ptr<HloModule>> ImportConstant(
    const std::string& shape, const std::string& values) {
  std::string text = absl::StrCat(
      "name: \"lit\" entry_computation_id: 1 computations { name: \"e\" id: 1 "
      "root_id: 1 instructions { name: \"c\" opcode: \"constant\" id: 1 "
      "shape ",
      shape, " literal { shape ", shape, " ", values, " } } }");
  return ImportHloModuleProto(TextProto(text));
}

const Literal& ConstantOf(const HloModule& m) {
  return m.entry_computation()->root_instruction()->literal();
}

void ClearShapes(xla::LiteralProto* literal) {
  literal->clear_shape();
  for (auto& element : *literal->mutable_tuple_literals()) {
    ClearShapes(&element);
  }
}

TEST(ProtoLiteralTest, EveryElementTypeImportsAndRoundTrips) {
  struct Case {
    std::string shape;
    std::string values;
  };
  const Case cases[] = {
      {"{ element_type: PRED dimensions: 3 }", "preds: [true, false, true]"},
      {"{ element_type: S8 dimensions: 2 }", R"(s8s: "\377\001")"},
      {"{ element_type: U8 dimensions: 2 }", R"(u8s: "\377\001")"},
      {"{ element_type: S16 dimensions: 2 }", R"(s16s: "\001\200\377\377")"},
      {"{ element_type: U16 dimensions: 1 }", R"(u16s: "\064\022")"},
      {"{ element_type: S32 dimensions: 2 }", "s32s: [-5, 7]"},
      {"{ element_type: S64 dimensions: 1 }", "s64s: -9000000000"},
      {"{ element_type: U32 dimensions: 1 }", "u32s: 4000000000"},
      {"{ element_type: U64 dimensions: 1 }", "u64s: 18000000000000000000"},
      {"{ element_type: F16 dimensions: 2 }", R"(f16s: "\000\074\000\300")"},
      {"{ element_type: BF16 dimensions: 1 }", R"(bf16s: "\200\077")"},
      {"{ element_type: F32 dimensions: 2 dimensions: 2 }",
       "f32s: [1, -2.5, inf, nan]"},
      {"{ element_type: F64 dimensions: 1 }", "f64s: 0.1"},
      {"{ element_type: C64 dimensions: 1 }", "c64s: [1, 2]"},
      {"{ element_type: C128 dimensions: 1 }", "c128s: [3, -4]"},
      {"{ element_type: F8E4M3FN dimensions: 2 }", R"(f8e4m3fns: "\070\300")"},
      {"{ element_type: S4 dimensions: 2 }", R"(s4s: "\007\370")"},
      {"{ element_type: F32 }", "f32s: 42"},
      {"{ element_type: F32 dimensions: 0 }", ""},
      {"{ element_type: TUPLE tuple_shapes { element_type: S32 } "
       "tuple_shapes { element_type: PRED } }",
       "tuple_literals { shape { element_type: S32 } s32s: 9 } "
       "tuple_literals { shape { element_type: PRED } preds: true }"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.shape);
    absl::StatusOr<std::unique_ptr<HloModule>> m =
        ImportConstant(c.shape, c.values);
    ASSERT_TRUE(m.ok()) << m.status();
    ExpectRoundTrips(**m);
    absl::StatusOr<xla::HloModuleProto> p = ExportHloModuleProto(**m);
    ASSERT_TRUE(p.ok());
    // The exported literal carries exactly the values given.
    xla::LiteralProto expected =
        TextProto(absl::StrCat("computations { instructions { literal { ",
                               c.values, " } } }"))
            .computations(0)
            .instructions(0)
            .literal();
    xla::LiteralProto got = p->computations(0).instructions(0).literal();
    ClearShapes(&got);
    ClearShapes(&expected);
    EXPECT_EQ(got.SerializeAsString(), expected.SerializeAsString());
  }
}

TEST(ProtoLiteralTest, ValuesAreDecodedLittleEndian) {
  auto m = ImportConstant("{ element_type: F16 dimensions: 2 }",
                          R"(f16s: "\000\074\000\300")");
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(ConstantOf(**m).GetAsDouble(0), 1.0);
  EXPECT_EQ(ConstantOf(**m).GetAsDouble(1), -2.0);
  m = ImportConstant("{ element_type: BF16 dimensions: 1 }",
                     R"(bf16s: "\200\077")");
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(ConstantOf(**m).GetAsDouble(0), 1.0);
  m = ImportConstant("{ element_type: S16 dimensions: 2 }",
                     R"(s16s: "\001\200\377\377")");
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(ConstantOf(**m).GetAsInt64(0), -32767);
  EXPECT_EQ(ConstantOf(**m).GetAsInt64(1), -1);
  m = ImportConstant("{ element_type: C64 dimensions: 1 }", "c64s: [1, 2]");
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(ConstantOf(**m).GetAsComplex(0), complex128(1, 2));
  m = ImportConstant("{ element_type: F32 dimensions: 2 dimensions: 2 }",
                     "f32s: [1, -2.5, inf, nan]");
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(ConstantOf(**m).GetAsDouble(1), -2.5);
  EXPECT_TRUE(std::isinf(ConstantOf(**m).GetAsDouble(2)));
  EXPECT_TRUE(std::isnan(ConstantOf(**m).GetAsDouble(3)));
}

TEST(ProtoLiteralTest, SizeMismatchesAreErrors) {
  auto m =
      ImportConstant("{ element_type: F32 dimensions: 3 }", "f32s: [1, 2]");
  ASSERT_FALSE(m.ok());
  EXPECT_THAT(std::string(m.status().message()),
              HasSubstr("has 2 f32s values, expected 3"));
  EXPECT_THAT(std::string(m.status().message()), HasSubstr("'c'"));
  m = ImportConstant("{ element_type: F32 dimensions: 1 }", "f32s: [1, 2]");
  EXPECT_FALSE(m.ok());
  m = ImportConstant("{ element_type: F16 dimensions: 2 }", R"(f16s: "\000")");
  EXPECT_FALSE(m.ok());
  // A huge shape with no data is refused before anything is allocated.
  m = ImportConstant(
      "{ element_type: F64 dimensions: 1000000000 dimensions: 1000000000 }",
      "");
  ASSERT_FALSE(m.ok());
  m = ImportConstant(
      "{ element_type: F64 dimensions: 4611686018427387904 dimensions: 4 }",
      "");
  ASSERT_FALSE(m.ok());
  EXPECT_THAT(std::string(m.status().message()), HasSubstr("too many"));
}

// ---- Sharding text ---------------------------------------------------------

TEST(ShardingTextTest, RoundTripsXlaForms) {
  for (const char* text : {
           "{replicated}",
           "{manual}",
           "{maximal device=3}",
           "{devices=[2,1]0,1}",
           "{devices=[2,1,2]0,1,2,3 last_tile_dim_replicate}",
           "{devices=[2,2]<=[4]}",
           "{devices=[2,2,2]<=[2,2,2]T(0,2,1) last_tile_dim_replicate}",
           "{devices=[2,1,2]0,1,2,3 last_tile_dims={manual, replicated}}",
           "{{replicated}, {maximal device=0}, {devices=[2]1,0}}",
           "{replicated shard_as 2}",
           "{devices=[2]0,1 shard_like 1}",
       }) {
    absl::StatusOr<xla::OpSharding> proto = ShardingFromText(text);
    ASSERT_TRUE(proto.ok()) << text << ": " << proto.status();
    absl::StatusOr<std::string> back = ShardingToText(*proto);
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(*back, text);
  }
  EXPECT_FALSE(ShardingFromText("{bogus}").ok());
  EXPECT_FALSE(ShardingFromText("{devices=[2}").ok());
  EXPECT_FALSE(ShardingFromText("{replicated").ok());
  EXPECT_FALSE(ShardingFromText(std::string(200, '{')).ok());
  EXPECT_TRUE(ShardingFromText("{replicated metadata={op_name=\"x\"}}").ok());
}

// ---- Bad input -------------------------------------------------------------

TEST(ProtoErrorTest, TruncatedAndCorruptedBytesNeverCrash) {
  std::vector<std::string> cases = CorpusCases();
  ASSERT_FALSE(cases.empty()) << "corpus not found (set HLOC_CORPUS_DIR)";
  std::string contents;
  ASSERT_TRUE(
      ReadFileToString(CorpusFile("cross_entropy", "module.pb"), &contents));
  const std::string* bytes = &contents;
  int errors = 0;
  for (size_t n = 0; n < bytes->size(); ++n) {
    absl::StatusOr<std::unique_ptr<HloModule>> m =
        ParseHloModuleProtoBytes(bytes->substr(0, n), "cut.pb");
    if (!m.ok()) {
      ++errors;
      EXPECT_THAT(std::string(m.status().message()), HasSubstr("cut.pb"));
    }
  }
  EXPECT_GT(errors, 0);
  // Random byte corruptions: an error or a module, never a crash.
  std::mt19937 rng(1234);
  for (int trial = 0; trial < 3000; ++trial) {
    std::string corrupt = *bytes;
    for (int k = 0; k < 1 + trial % 4; ++k) {
      corrupt[rng() % corrupt.size()] = static_cast<char>(rng());
    }
    absl::StatusOr<std::unique_ptr<HloModule>> m =
        ParseHloModuleProtoBytes(corrupt, "corrupt.pb");
    if (m.ok()) {
      absl::StatusOr<std::string> again = SerializeHloModule(**m);
      (void)again;
    }
  }
  absl::StatusOr<std::unique_ptr<HloModule>> garbage =
      ParseHloModuleProtoBytes("\xff\xff\xff garbage", "garbage.pb");
  ASSERT_FALSE(garbage.ok());
  EXPECT_THAT(std::string(garbage.status().message()),
              HasSubstr("garbage.pb: not a valid serialized HloModuleProto"));
  EXPECT_FALSE(ParseHloModuleProtoBytes("", "empty.pb").ok());
}

// A small valid module to break in one place at a time.
constexpr char kSmall[] = R"txt(
name: "small" entry_computation_id: 1
computations { name: "e" id: 1 root_id: 3
  instructions { name: "a" opcode: "parameter" id: 1
    shape { element_type: F32 dimensions: 2 layout { minor_to_major: 0 } } }
  instructions { name: "b" opcode: "negate" id: 2 operand_ids: 1
    shape { element_type: F32 dimensions: 2 layout { minor_to_major: 0 } } }
  instructions { name: "c" opcode: "add" id: 3 operand_ids: 1 operand_ids: 2
    shape { element_type: F32 dimensions: 2 layout { minor_to_major: 0 } } }
}
)txt";

std::string ImportError(const std::string& text) {
  absl::StatusOr<std::unique_ptr<HloModule>> m =
      ImportHloModuleProto(TextProto(text));
  return m.ok() ? "OK" : std::string(m.status().message());
}

std::string Broken(const std::string& from, const std::string& to) {
  std::string text = kSmall;
  size_t pos = text.find(from);
  EXPECT_NE(pos, std::string::npos) << from;
  return text.replace(pos, from.size(), to);
}

TEST(ProtoErrorTest, BadGraphsNameTheInstructionAndReason) {
  EXPECT_EQ(ImportError(kSmall), "OK");
  EXPECT_THAT(ImportError(Broken("operand_ids: 1 operand_ids: 2",
                                 "operand_ids: 1 operand_ids: 99")),
              HasSubstr("instruction 'c' in computation 'e': operand 1 "
                        "refers to unknown instruction id 99"));
  EXPECT_THAT(
      ImportError(Broken("id: 2 operand_ids: 1", "id: 2 operand_ids: 3")),
      HasSubstr("cycle through"));
  EXPECT_THAT(ImportError(Broken("id: 2 operand_ids: 1",
                                 "id: 2 operand_ids: 1 operand_ids: 1")),
              HasSubstr("instruction 'b' in computation 'e': negate takes 1 "
                        "operand, has 2"));
  EXPECT_THAT(ImportError(Broken("\"negate\"", "\"frobnicate\"")),
              HasSubstr("instruction 'b' in computation 'e': unknown opcode "
                        "'frobnicate'"));
  EXPECT_THAT(
      ImportError(Broken("id: 2 operand_ids: 1",
                         "id: 2 operand_ids: 1 control_predecessor_ids: 3")),
      HasSubstr("cycle"));
  EXPECT_THAT(
      ImportError(Broken("dimensions: 2 layout { minor_to_major: 0 } } }\n"
                         "  instructions { name: \"c\"",
                         "dimensions: -2 } }\n  instructions { name: \"c\"")),
      HasSubstr("negative dimension"));
  EXPECT_THAT(
      ImportError(Broken(
          "layout { minor_to_major: 0 } } }\n  instructions { name: \"b\"",
          "layout { minor_to_major: 1 } } }\n  instructions { name: \"b\"")),
      HasSubstr("not a permutation"));
  EXPECT_THAT(ImportError(Broken("\"negate\"", "\"constant\"")),
              HasSubstr("constant takes 0 operands"));
  EXPECT_THAT(
      ImportError(Broken("name: \"b\" opcode: \"negate\" id: 2 operand_ids: 1",
                         "name: \"b\" opcode: \"constant\" id: 2")),
      HasSubstr("instruction 'b' in computation 'e': constant has no "
                "literal"));
  EXPECT_THAT(ImportError(Broken("id: 2 operand_ids", "id: 1 operand_ids")),
              HasSubstr("already used by"));
  EXPECT_THAT(ImportError(Broken("root_id: 3", "root_id: 77")),
              HasSubstr("root id 77"));
  EXPECT_THAT(
      ImportError(Broken("entry_computation_id: 1", "entry_computation_id: 5")),
      HasSubstr("entry computation id 5"));
  EXPECT_THAT(ImportError(Broken("opcode: \"negate\" id: 2 operand_ids: 1",
                                 "opcode: \"call\" id: 2 operand_ids: 1 "
                                 "called_computation_ids: 9")),
              HasSubstr("calls unknown computation id 9"));
  EXPECT_THAT(ImportError(Broken("opcode: \"negate\" id: 2 operand_ids: 1",
                                 "opcode: \"call\" id: 2 operand_ids: 1 "
                                 "called_computation_ids: 1")),
              HasSubstr("calls it back"));
  EXPECT_THAT(ImportError(Broken("opcode: \"negate\" id: 2 operand_ids: 1",
                                 "opcode: \"while\" id: 2 operand_ids: 1 "
                                 "called_computation_ids: 1")),
              HasSubstr("while calls 2 computations, has 1"));
  EXPECT_THAT(ImportError(Broken("name: \"a\" opcode: \"parameter\" id: 1",
                                 "name: \"a\" opcode: \"parameter\" id: 1 "
                                 "parameter_number: 1")),
              HasSubstr("has no parameter 0"));
  EXPECT_THAT(
      ImportError(Broken("opcode: \"negate\"", "opcode: \"parameter\"")),
      HasSubstr("parameter takes 0 operands"));
  EXPECT_THAT(ImportError(Broken("    shape { element_type: F32 dimensions: 2 "
                                 "layout { minor_to_major: 0 } } }\n  "
                                 "instructions { name: \"c\"",
                                 "  }\n  instructions { name: \"c\"")),
              HasSubstr("'b' in computation 'e': instruction has no shape"));
  EXPECT_THAT(ImportError("name: \"empty\""), HasSubstr("no computations"));
}

TEST(ProtoErrorTest, CrossComputationOperandsAreErrors) {
  std::string text = std::string(kSmall) + R"pb(
    computations {
      name: "other"
      id: 2
      root_id: 10
      instructions {
        name: "o"
        opcode: "negate"
        id: 10
        operand_ids: 1
        shape {
          element_type: F32
          dimensions: 2
          layout { minor_to_major: 0 }
        }
      }
    }
  )pb";
  EXPECT_THAT(ImportError(text),
              HasSubstr("instruction 'o' in computation 'other': operand 0 "
                        "refers to instruction 'a' in computation 'e'"));
}

// ---- Hand-built IR ---------------------------------------------------------

TEST(ProtoExportTest, BuiltModuleRoundTripsWithFreshIds) {
  auto module = std::make_unique<HloModule>("built");
  auto add = std::make_unique<HloComputation>("add");
  HloInstruction* x = add->AddParameter(
      HloInstruction::CreateParameter(0, Shape::Scalar(F32), "x"));
  HloInstruction* y = add->AddParameter(
      HloInstruction::CreateParameter(1, Shape::Scalar(F32), "y"));
  add->set_root_instruction(add->AddInstruction(
      HloInstruction::CreateBinary(Shape::Scalar(F32), HloOpcode::kAdd, x, y)));
  HloComputation* add_raw = module->AddEmbeddedComputation(std::move(add));

  auto entry = std::make_unique<HloComputation>("entry");
  HloInstruction* p = entry->AddParameter(
      HloInstruction::CreateParameter(0, Shape(F32, {8}), "p"));
  HloInstruction* zero = entry->AddInstruction(
      HloInstruction::CreateConstant(Literal::CreateR0<float>(F32, 0.0f)));
  HloInstruction* reduce = entry->AddInstruction(HloInstruction::CreateReduce(
      Shape::Scalar(F32), {p, zero}, {0}, add_raw));
  entry->set_root_instruction(reduce);
  HloComputation* entry_raw = module->AddEntryComputation(std::move(entry));
  module->mutable_config().is_scheduled = true;
  // Ids as a pass might leave them: repeated, or never assigned.
  add_raw->SetUniqueId(5);
  entry_raw->SetUniqueId(5);
  reduce->SetUniqueId(zero->unique_id());
  p->SetUniqueId(-1);
  ExpectRoundTrips(*module);

  absl::StatusOr<xla::HloModuleProto> proto = ExportHloModuleProto(*module);
  ASSERT_TRUE(proto.ok()) << proto.status();
  EXPECT_EQ(proto->computations(0).id(), 5);
  EXPECT_NE(proto->computations(1).id(), 5);
  const auto& instrs = proto->computations(1).instructions();
  EXPECT_NE(instrs[1].id(), instrs[2].id());
  EXPECT_GE(instrs[0].id(), 0);
  // Scheduled without an explicit schedule: the stored order is exported.
  EXPECT_EQ(proto->schedule().sequences().size(), 2u);
}

TEST(ProtoExportTest, BadShardingTextIsAnError) {
  absl::StatusOr<std::unique_ptr<HloModule>> m =
      ImportHloModuleProto(TextProto(kSmall));
  ASSERT_TRUE(m.ok());
  Find(**m, "b")->set_sharding("{not a sharding}");
  absl::StatusOr<xla::HloModuleProto> p = ExportHloModuleProto(**m);
  ASSERT_FALSE(p.ok());
  EXPECT_THAT(std::string(p.status().message()), HasSubstr("instruction 'b'"));
}

TEST(ProtoExportTest, ReferencesOutsideTheModuleAreErrors) {
  absl::StatusOr<std::unique_ptr<HloModule>> m =
      ImportHloModuleProto(TextProto(kSmall));
  ASSERT_TRUE(m.ok());
  HloComputation stray("stray");
  Find(**m, "b")->set_called_computations({&stray});
  absl::StatusOr<xla::HloModuleProto> p = ExportHloModuleProto(**m);
  ASSERT_FALSE(p.ok());
  EXPECT_THAT(std::string(p.status().message()),
              HasSubstr("instruction 'b' in computation 'e': called "
                        "computation 'stray' is not a computation of the "
                        "module"));
  Find(**m, "b")->set_called_computations({});
  EXPECT_TRUE(ExportHloModuleProto(**m).ok());
}

}  // namespace
}  // namespace hloc
