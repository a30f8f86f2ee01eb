#include "hlo/proto/proto_test_util.h"

#include "absl/strings/str_replace.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "hlo/computation.h"
#include "hlo/proto/proto_export.h"
#include "hlo/proto/proto_import.h"

namespace hloc {
namespace {

constexpr char kScalarF32[] =
    "shape { element_type: F32 layout { tail_padding_alignment_in_elements: 1 "
    "} }";

}  // namespace

std::string KitchenSink() {
  const std::string f32 = kScalarF32;
  const std::string vec4 =
      "shape { element_type: F32 dimensions: 4 is_dynamic_dimension: false "
      "layout { minor_to_major: 0 } }";
  const std::string s32 = "shape { element_type: S32 layout { } }";
  const std::string pred = "shape { element_type: PRED layout { } }";
  const std::string state =
      "shape { element_type: TUPLE tuple_shapes { element_type: S32 } "
      "tuple_shapes { element_type: F32 dimensions: 4 layout { minor_to_major: "
      "0 } } }";
  std::string text = R"pb(
    name: "kitchen_sink"
    id: 7
    entry_computation_name: "main"
    entry_computation_id: 6
    computations {
      name: "cond"
      id: 2
      root_id: 204
      instructions { name: "c.p" opcode: "parameter" id: 201 $SSTATE }
      instructions {
        name: "c.i"
        opcode: "get-tuple-element"
        id: 202
        operand_ids: 201 $SS32
      }
      instructions {
        name: "c.limit"
        opcode: "constant"
        id: 203 $SS32
        literal {
          shape { element_type: S32 }
          s32s: 10
        }
      }
      instructions {
        name: "c.lt"
        opcode: "compare"
        id: 204
        operand_ids: 202
        operand_ids: 203 $SPRED
        comparison_direction: "LT"
        comparison_type: "SIGNED"
        comparison_order: "TOTAL"
      }
    }
    computations {
      name: "body"
      id: 3
      root_id: 306
      instructions { name: "b.p" opcode: "parameter" id: 301 $SSTATE }
      instructions {
        name: "b.i"
        opcode: "get-tuple-element"
        id: 302
        operand_ids: 301 $SS32
      }
      instructions {
        name: "b.v"
        opcode: "get-tuple-element"
        id: 303
        operand_ids: 301
        tuple_index: 1 $SVEC4
      }
      instructions {
        name: "b.one"
        opcode: "constant"
        id: 304 $SS32
        literal {
          shape { element_type: S32 }
          s32s: 1
        }
      }
      instructions {
        name: "b.next"
        opcode: "add"
        id: 305
        operand_ids: 302
        operand_ids: 304 $SS32
      }
      instructions {
        name: "b.t"
        opcode: "tuple"
        id: 306
        operand_ids: 305
        operand_ids: 303 $SSTATE
      }
    }
    computations {
      name: "fused"
      id: 4
      root_id: 402
      is_fusion_computation: true
      instructions { name: "f.p" opcode: "parameter" id: 401 $SVEC4 }
      instructions {
        name: "f.neg"
        opcode: "negate"
        id: 402
        operand_ids: 401 $SVEC4
      }
    }
    computations {
      name: "ge"
      id: 5
      root_id: 503
      instructions { name: "g.a" opcode: "parameter" id: 501 $SF32 }
      instructions {
        name: "g.b"
        opcode: "parameter"
        id: 502
        parameter_number: 1 $SF32
      }
      instructions {
        name: "g.ge"
        opcode: "compare"
        id: 503
        operand_ids: 501
        operand_ids: 502 $SPRED
        comparison_direction: "GE"
        comparison_type: "TOTALORDER"
        comparison_order: "TOTAL"
      }
    }
    computations {
      name: "main"
      id: 6
      root_id: 699
      instructions {
        name: "x"
        opcode: "parameter"
        id: 601 $SVEC4
        metadata {
          op_type: "arg"
          op_name: "x"
          source_file: "a.py"
          source_line: 3
          stack_frame_id: 2
        }
        parameter_replication { replicated_at_leaf_buffers: true }
      }
      instructions {
        name: "n"
        opcode: "parameter"
        id: 602
        parameter_number: 1 $SS32
        frontend_attributes { map { key: "k" value: "v" } }
      }
      # Uses an instruction that comes later in the proto.
      instructions {
        name: "loop"
        opcode: "while"
        id: 604
        operand_ids: 603 $SSTATE
        called_computation_ids: 3
        called_computation_ids: 2
        backend_config: "{\"known_trip_count\":{\"n\":\"10\"}}"
      }
      instructions {
        name: "init"
        opcode: "tuple"
        id: 603
        operand_ids: 602
        operand_ids: 601 $SSTATE
      }
      instructions {
        name: "v"
        opcode: "get-tuple-element"
        id: 605
        operand_ids: 604
        tuple_index: 1 $SVEC4
      }
      instructions {
        name: "fusion"
        opcode: "fusion"
        id: 606
        operand_ids: 605 $SVEC4
        fusion_kind: "kLoop"
        called_computation_ids: 4
        control_predecessor_ids: 603
      }
      instructions {
        name: "zero"
        opcode: "constant"
        id: 607 $SF32
        literal {
          shape { element_type: F32 }
          f32s: 0
        }
      }
      instructions {
        name: "sum"
        opcode: "reduce"
        id: 608
        operand_ids: 606
        operand_ids: 607 $SF32
        dimensions: 0
        called_computation_ids: 1
      }
      instructions {
        name: "lt"
        opcode: "compare"
        id: 609
        operand_ids: 601
        operand_ids: 606
        shape {
          element_type: PRED
          dimensions: 4
          layout { minor_to_major: 0 }
        }
        comparison_direction: "LT"
        comparison_type: "FLOAT"
        comparison_order: "PARTIAL"
      }
      instructions {
        name: "lt.total"
        opcode: "compare"
        id: 610
        operand_ids: 601
        operand_ids: 606
        shape {
          element_type: PRED
          dimensions: 4
          layout { minor_to_major: 0 }
        }
        comparison_direction: "LT"
        comparison_type: "TOTALORDER"
        comparison_order: "TOTAL"
      }
      instructions {
        name: "lt.old"
        opcode: "compare"
        id: 642
        operand_ids: 601
        operand_ids: 606
        shape {
          element_type: PRED
          dimensions: 4
          layout { minor_to_major: 0 }
        }
        comparison_direction: "LT"
        comparison_type: "TOTALORDER"
      }
      instructions {
        name: "lt.u"
        opcode: "compare"
        id: 643
        operand_ids: 602
        operand_ids: 602 $SPRED
        comparison_direction: "LT"
        comparison_type: "UNSIGNED"
        comparison_order: "TOTAL"
      }
      instructions {
        name: "cc"
        opcode: "custom-call"
        id: 611
        operand_ids: 601 $SVEC4
        custom_call_target: "my_target"
        custom_call_api_version: API_VERSION_TYPED_FFI
        custom_call_has_side_effect: true
        custom_call_schedule: SCHEDULE_LATEST
        constrain_layout: true
        operand_shapes_with_layout {
          element_type: F32
          dimensions: 4
          layout { minor_to_major: 0 }
        }
        output_operand_aliasing { operand_index: 0 }
        backend_config: "opaque"
      }
      instructions {
        name: "ar"
        opcode: "all-reduce"
        id: 612
        operand_ids: 601 $SVEC4
        called_computation_ids: 1
        channel_id: 3
        use_global_device_ids: true
        iota_collective_device_list {
          num_replica_groups: 2
          num_devices_per_group: 4
          iota_reshape_dims: [ 4, 2 ]
          iota_transpose_perm: [ 1, 0 ]
        }
        sharding {
          type: OTHER
          tile_assignment_dimensions: [ 2, 1 ]
          tile_assignment_devices: [ 0, 1 ]
        }
      }
      instructions {
        name: "ag"
        opcode: "all-gather"
        id: 613
        operand_ids: 601
        shape {
          element_type: F32
          dimensions: 8
          layout { minor_to_major: 0 }
        }
        dimensions: 0
        replica_groups { replica_ids: [ 0, 1 ] }
        replica_groups { replica_ids: [ 2, 3 ] }
        constrain_layout: true
        sharding {
          type: TUPLE
          tuple_shardings { type: REPLICATED }
          tuple_shardings { type: MAXIMAL tile_assignment_devices: 1 }
        }
      }
      instructions {
        name: "cp"
        opcode: "collective-permute"
        id: 614
        operand_ids: 601 $SVEC4
        source_target_pairs { source: 0 target: 1 }
        source_target_pairs { source: 1 target: 0 }
        channel_id: 4
      }
      instructions {
        name: "sas"
        opcode: "select-and-scatter"
        id: 615
        operand_ids: 601
        operand_ids: 601
        operand_ids: 607 $SVEC4
        called_computation_ids: 5
        called_computation_ids: 1
        window {
          dimensions {
            size: 2
            stride: 2
            window_dilation: 1
            base_dilation: 1
            padding_low: 1
          }
        }
      }
      instructions {
        name: "sorted"
        opcode: "sort"
        id: 616
        operand_ids: 601 $SVEC4
        dimensions: 0
        is_stable: true
        called_computation_ids: 5
      }
      instructions {
        name: "io"
        opcode: "iota"
        id: 617
        dimensions: 0
        shape {
          element_type: S32
          dimensions: 4
          layout { minor_to_major: 0 }
        }
      }
      instructions {
        name: "sl"
        opcode: "slice"
        id: 618
        operand_ids: 601
        shape {
          element_type: F32
          dimensions: 2
          layout { minor_to_major: 0 }
        }
        slice_dimensions { start: 1 limit: 4 stride: 2 }
      }
      instructions {
        name: "dt"
        opcode: "dot"
        id: 619
        operand_ids: 601
        operand_ids: 601 $SF32
        dot_dimension_numbers {
          lhs_contracting_dimensions: 0
          rhs_contracting_dimensions: 0
        }
        precision_config { operand_precision: [ HIGHEST, DEFAULT ] }
      }
      instructions {
        name: "dt2"
        opcode: "dot"
        id: 620
        operand_ids: 601
        operand_ids: 601 $SF32
        dot_dimension_numbers {
          lhs_contracting_dimensions: 0
          rhs_contracting_dimensions: 0
        }
        precision_config { operand_precision: [ DEFAULT, DEFAULT ] }
      }
      instructions {
        name: "rng.state"
        opcode: "rng-get-and-update-state"
        id: 621
        delta: 7
        shape {
          element_type: U64
          dimensions: 2
          layout { minor_to_major: 0 }
        }
      }
      instructions {
        name: "tk"
        opcode: "topk"
        id: 622
        operand_ids: 601
        k: 2
        largest: true
        is_stable: true
        shape {
          element_type: TUPLE
          tuple_shapes {
            element_type: F32
            dimensions: 2
            layout { minor_to_major: 0 }
          }
          tuple_shapes {
            element_type: S32
            dimensions: 2
            layout { minor_to_major: 0 }
          }
        }
      }
      instructions {
        name: "rp"
        opcode: "reduce-precision"
        id: 623
        operand_ids: 601 $SVEC4
        exponent_bits: 5
        mantissa_bits: 10
      }
      instructions {
        name: "pd"
        opcode: "pad"
        id: 624
        operand_ids: 601
        operand_ids: 607
        shape {
          element_type: F32
          dimensions: 9
          layout { minor_to_major: 0 }
        }
        padding_config {
          dimensions {
            edge_padding_low: -1
            edge_padding_high: 2
            interior_padding: 1
          }
        }
      }
      instructions {
        name: "tiled"
        opcode: "copy"
        id: 625
        operand_ids: 601
        shape {
          element_type: F32
          dimensions: 4
          is_dynamic_dimension: true
          layout {
            minor_to_major: 0
            tiles { dimensions: [ 2 ] }
            tiles { dimensions: [ -9223372036854775808, 1 ] }
            element_size_in_bits: 32
            memory_space: 1
            tail_padding_alignment_in_elements: 2
            index_primitive_type: S32
            pointer_primitive_type: U64
          }
        }
      }
      instructions {
        name: "fft"
        opcode: "fft"
        id: 626
        operand_ids: 601
        shape {
          element_type: C64
          dimensions: 4
          layout { minor_to_major: 0 }
        }
        fft_type: RFFT
        fft_length: 4
      }
      instructions {
        name: "chol"
        opcode: "cholesky"
        id: 627
        operand_ids: 601 $SVEC4
        cholesky_options { lower: true }
      }
      instructions {
        name: "tri"
        opcode: "triangular-solve"
        id: 628
        operand_ids: 601
        operand_ids: 601 $SVEC4
        triangular_solve_options {
          left_side: true
          lower: true
          unit_diagonal: true
          transpose_a: ADJOINT
        }
      }
      instructions {
        name: "bn"
        opcode: "batch-norm-training"
        id: 629
        operand_ids: 601
        operand_ids: 601
        operand_ids: 601 $SVEC4
        epsilon: 0.001
        feature_index: 0
      }
      instructions {
        name: "rbg"
        opcode: "rng-bit-generator"
        id: 630
        operand_ids: 621
        shape {
          element_type: U32
          dimensions: 4
          layout { minor_to_major: 0 }
        }
        rng_algorithm: RNG_PHILOX
      }
      instructions {
        name: "rng"
        opcode: "rng"
        id: 631
        operand_ids: 607
        operand_ids: 607 $SVEC4
        distribution: RNG_NORMAL
      }
      instructions {
        name: "ifd"
        opcode: "infeed"
        id: 632
        operand_ids: 633
        infeed_config: "cfg"
        shape {
          element_type: TUPLE
          tuple_shapes { element_type: F32 }
          tuple_shapes { element_type: TOKEN }
        }
      }
      instructions {
        name: "tok"
        opcode: "after-all"
        id: 633
        shape { element_type: TOKEN }
      }
      instructions {
        name: "ofd"
        opcode: "outfeed"
        id: 634
        operand_ids: 601
        operand_ids: 633
        shape { element_type: TOKEN }
        outfeed_config: "ocfg"
        outfeed_shape {
          element_type: F32
          dimensions: 4
          layout { minor_to_major: 0 }
        }
      }
      instructions {
        name: "gth"
        opcode: "gather"
        id: 635
        operand_ids: 601
        operand_ids: 617 $SVEC4
        gather_dimension_numbers {
          collapsed_slice_dims: 0
          start_index_map: 0
          index_vector_dim: 1
        }
        gather_slice_sizes: 1
        indices_are_sorted: true
      }
      instructions {
        name: "sct"
        opcode: "scatter"
        id: 636
        operand_ids: 601
        operand_ids: 617
        operand_ids: 601 $SVEC4
        called_computation_ids: 1
        unique_indices: true
        scatter_dimension_numbers {
          inserted_window_dims: 0
          scatter_dims_to_operand_dims: 0
          index_vector_dim: 1
        }
      }
      instructions {
        name: "x3"
        opcode: "reshape"
        id: 644
        operand_ids: 601
        shape {
          element_type: F32
          dimensions: [ 1, 2, 2 ]
          layout { minor_to_major: [ 2, 1, 0 ] }
        }
      }
      instructions {
        name: "k3"
        opcode: "reshape"
        id: 645
        operand_ids: 601
        shape {
          element_type: F32
          dimensions: [ 2, 1, 2 ]
          layout { minor_to_major: [ 2, 1, 0 ] }
        }
      }
      instructions {
        name: "cv"
        opcode: "convolution"
        id: 637
        operand_ids: 644
        operand_ids: 645
        shape {
          element_type: F32
          dimensions: [ 1, 2, 1 ]
          layout { minor_to_major: [ 2, 1, 0 ] }
        }
        window {
          dimensions {
            size: 2
            stride: 1
            window_dilation: 1
            base_dilation: 1
            window_reversal: true
          }
        }
        convolution_dimension_numbers {
          input_batch_dimension: 0
          input_feature_dimension: 1
          input_spatial_dimensions: 2
          kernel_output_feature_dimension: 0
          kernel_input_feature_dimension: 1
          kernel_spatial_dimensions: 2
          output_batch_dimension: 0
          output_feature_dimension: 1
          output_spatial_dimensions: 2
        }
        feature_group_count: 2
        batch_group_count: 1
      }
      instructions {
        name: "dus"
        opcode: "dynamic-slice"
        id: 638
        operand_ids: 601
        operand_ids: 602
        shape {
          element_type: F32
          dimensions: 2
          layout { minor_to_major: 0 }
        }
        dynamic_slice_sizes: 2
      }
      instructions {
        name: "calls"
        opcode: "call"
        id: 639
        operand_ids: 607
        operand_ids: 607 $SF32
        called_computation_ids: 1
        is_composite: true
      }
      instructions {
        name: "cond.idx"
        opcode: "constant"
        id: 640 $SS32
        literal {
          shape { element_type: S32 }
          s32s: 1
        }
      }
      instructions {
        name: "branches"
        opcode: "conditional"
        id: 641
        operand_ids: 640
        operand_ids: 607
        operand_ids: 607 $SF32
        called_computation_ids: 8
        called_computation_ids: 8
      }
      instructions {
        name: "out"
        opcode: "tuple"
        id: 699
        operand_ids: 608
        operand_ids: 612 $SOUT
        operand_ids: 641
        sharding { type: REPLICATED }
      }
    }
    # Callees after their caller: the importer reorders.
    computations {
      name: "add"
      id: 1
      root_id: 103
      instructions { name: "a.x" opcode: "parameter" id: 101 $SF32 }
      instructions {
        name: "a.y"
        opcode: "parameter"
        id: 102
        parameter_number: 1 $SF32
      }
      instructions {
        name: "a.sum"
        opcode: "add"
        id: 103
        operand_ids: 101
        operand_ids: 102 $SF32
      }
    }
    computations {
      name: "branch"
      id: 8
      root_id: 801
      instructions { name: "br.p" opcode: "parameter" id: 801 $SF32 }
    }
    host_program_shape {
      parameters {
        element_type: F32
        dimensions: 4
        layout { minor_to_major: 0 }
      }
      parameters {
        element_type: S32
        layout {}
      }
      result {
        element_type: TUPLE
        tuple_shapes { element_type: F32 }
        tuple_shapes {
          element_type: F32
          dimensions: 4
          layout { minor_to_major: 0 }
        }
        tuple_shapes { element_type: F32 }
      }
      parameter_names: "p0"
      parameter_names: "p1"
    }
    input_output_alias {
      entries { output_shape_index: 1 parameter_number: 0 kind: MUST_ALIAS }
    }
    buffer_donor { entries { parameter_number: 1 } }
    frontend_attributes { map { key: "mod" value: "attr" } }
    stack_frame_index {
      file_names: "a.py"
      function_names: "f"
      function_names: "g"
      file_locations {
        file_name_id: 1
        function_name_id: 1
        line: 3
        column: 4
        end_line: 3
        end_column: 9
      }
      file_locations { file_name_id: 1 function_name_id: 2 line: 7 }
      stack_frames { file_location_id: 1 }
      stack_frames { file_location_id: 2 parent_frame_id: 1 }
    }
    schedule {
      sequences {
        key: 8
        value { instruction_ids: 801 }
      }
    }
  )pb";
  text = absl::StrReplaceAll(
      text, {{"$SF32", f32},
             {"$SVEC4", vec4},
             {"$SS32", s32},
             {"$SPRED", pred},
             {"$SSTATE", state},
             {"$SOUT",
              "shape { element_type: TUPLE tuple_shapes { element_type: F32 } "
              "tuple_shapes { element_type: F32 dimensions: 4 layout { "
              "minor_to_major: 0 } } tuple_shapes { element_type: F32 } }"}});
  return text;
}

xla::HloModuleProto TextProto(const std::string& text) {
  xla::HloModuleProto proto;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &proto))
      << text;
  return proto;
}

void ExpectRoundTrips(const HloModule& module) {
  absl::StatusOr<std::string> bytes = SerializeHloModule(module);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  absl::StatusOr<std::unique_ptr<HloModule>> copy =
      ParseHloModuleProtoBytes(*bytes, "roundtrip");
  ASSERT_TRUE(copy.ok()) << copy.status();
  EXPECT_TRUE(module.StructurallyEqual(**copy));
  EXPECT_EQ((*copy)->name(), module.name());
  ASSERT_EQ((*copy)->computation_count(), module.computation_count());
  for (int64_t c = 0; c < module.computation_count(); ++c) {
    HloComputation* a = module.computations()[c];
    HloComputation* b = (*copy)->computations()[c];
    EXPECT_EQ(a->name(), b->name());
    EXPECT_EQ(a->root_instruction()->name(), b->root_instruction()->name());
    for (HloInstruction* x : a->instructions()) {
      HloInstruction* y = b->GetInstructionWithName(x->name());
      ASSERT_NE(y, nullptr) << x->name();
      EXPECT_TRUE(x->metadata() == y->metadata()) << x->name();
      EXPECT_EQ(x->frontend_attributes(), y->frontend_attributes());
      EXPECT_EQ(x->backend_config(), y->backend_config());
      EXPECT_EQ(x->sharding(), y->sharding());
      EXPECT_EQ(x->control_predecessors().size(),
                y->control_predecessors().size());
    }
  }
  EXPECT_EQ((*copy)->entry_computation()->name(),
            module.entry_computation()->name());
  EXPECT_TRUE((*copy)->stack_frames() == module.stack_frames());
  EXPECT_EQ((*copy)->config().buffer_donor, module.config().buffer_donor);
  if (module.has_schedule()) {
    EXPECT_EQ((*copy)->schedule().size(), module.schedule().size());
  }
  absl::StatusOr<std::string> again = SerializeHloModule(**copy);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(*again, *bytes);
}

}  // namespace hloc
