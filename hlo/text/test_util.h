// Test helpers for the HLO text format: comparing two modules field by field,
// including what HloModule::StructurallyEqual ignores (names, metadata,
// backend_config, frontend attributes, sharding, raw attributes, schedules,
// stack frames, module config).
#ifndef HLO_TEXT_TEST_UTIL_H_
#define HLO_TEXT_TEST_UTIL_H_

#include <string>

#include "absl/strings/str_cat.h"
#include "hlo/module.h"

namespace hloc {

// "" if `a` and `b` are identical in everything the text format carries,
// else a description of the first difference.
inline std::string DiffModules(const HloModule& a, const HloModule& b) {
  if (!a.StructurallyEqual(b)) return "not structurally equal";
  if (a.name() != b.name())
    return absl::StrCat("module name ", a.name(), " vs ", b.name());
  const HloModuleConfig& ca = a.config();
  const HloModuleConfig& cb = b.config();
  if (!(ca.buffer_donor == cb.buffer_donor) ||
      ca.replica_count != cb.replica_count ||
      ca.num_partitions != cb.num_partitions ||
      !(ca.raw_attributes == cb.raw_attributes) ||
      a.EntryComputationLayout().ToString() !=
          b.EntryComputationLayout().ToString()) {
    return "module config differs";
  }
  if (!(a.stack_frames() == b.stack_frames())) return "stack frames differ";
  if (a.has_schedule() != b.has_schedule()) return "schedule presence differs";
  auto ac = a.computations();
  auto bc = b.computations();
  for (size_t c = 0; c < ac.size(); ++c) {
    if (ac[c]->name() != bc[c]->name()) {
      return absl::StrCat("computation name ", ac[c]->name(), " vs ",
                          bc[c]->name());
    }
    auto ai = ac[c]->instructions();
    auto bi = bc[c]->instructions();
    if (ai.size() != bi.size()) return "instruction counts differ";
    for (size_t i = 0; i < ai.size(); ++i) {
      const HloInstruction& x = *ai[i];
      const HloInstruction& y = *bi[i];
      const std::string where = absl::StrCat(ac[c]->name(), "/", x.name());
      if (x.name() != y.name()) return absl::StrCat(where, ": name ", y.name());
      if (!(x.metadata() == y.metadata())) return where + ": metadata";
      if (x.backend_config() != y.backend_config()) {
        return where + ": backend_config";
      }
      if (x.frontend_attributes() != y.frontend_attributes()) {
        return where + ": frontend_attributes";
      }
      if (x.sharding() != y.sharding()) return where + ": sharding";
      if (!(x.raw_attributes() == y.raw_attributes())) {
        return where + ": raw attributes";
      }
      if (x.control_predecessors().size() != y.control_predecessors().size()) {
        return where + ": control predecessors";
      }
      for (size_t p = 0; p < x.control_predecessors().size(); ++p) {
        if (x.control_predecessors()[p]->name() !=
            y.control_predecessors()[p]->name()) {
          return where + ": control predecessors";
        }
      }
    }
    if (a.has_schedule()) {
      auto sa = a.schedule().find(ac[c]);
      auto sb = b.schedule().find(bc[c]);
      if ((sa == a.schedule().end()) != (sb == b.schedule().end())) {
        return absl::StrCat(ac[c]->name(), ": schedule presence");
      }
      if (sa != a.schedule().end()) {
        if (sa->second.size() != sb->second.size()) {
          return absl::StrCat(ac[c]->name(), ": schedule length");
        }
        for (size_t i = 0; i < sa->second.size(); ++i) {
          if (sa->second[i]->name() != sb->second[i]->name()) {
            return absl::StrCat(ac[c]->name(), ": schedule order");
          }
        }
      }
    }
  }
  return "";
}

// A module using every attribute family, written exactly as the printer
// prints it, so it must print back byte for byte.
inline constexpr char kCanonicalModule[] =
    R"(HloModule canonical, is_scheduled=true, input_output_alias={ {0}: (0, {}, may-alias), {1}: (1, {1}, must-alias) }, buffer_donor={ (1, {0}) }, entry_computation_layout={(f32[8,8]{1,0}, (s32[], f32[4]{0}))->(f32[8,8]{1,0}, f32[4]{0})}, allow_spmd_sharding_propagation_to_output={true,false}, replica_count=2, num_partitions=2, frontend_attributes={"a key"="x",k={"json":1}}

FileNames
1 "f.py"

FunctionNames
1 "fn"

FileLocations
1 {file_name_id=1 function_name_id=1 line=2 end_line=3 column=4 end_column=5}

StackFrames
1 {file_location_id=1 parent_frame_id=1}


%add (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %sum = f32[] add(%x, %y)
}

%lt (l: f32[], r: f32[]) -> pred[] {
  %l = f32[] parameter(0)
  %r = f32[] parameter(1)
  ROOT %cmp = pred[] compare(%l, %r), direction=LT, type=TOTALORDER, order=TOTAL
}

%fused (f0: f32[8,8]) -> f32[8,8] {
  %f0 = f32[8,8]{1,0} parameter(0)
  ROOT %neg = f32[8,8]{1,0} negate(%f0)
}

%cond (c0: (s32[], f32[4])) -> pred[] {
  %c0 = (s32[], f32[4]{0}) parameter(0)
  %i = s32[] get-tuple-element(%c0), index=0
  %ten = s32[] constant(10)
  ROOT %less = pred[] compare(%i, %ten), direction=LT
}

%body (b0: (s32[], f32[4])) -> (s32[], f32[4]) {
  %b0 = (s32[], f32[4]{0}) parameter(0)
  ROOT %same = (s32[], f32[4]{0}) tuple(%b0), sharding={{replicated}, {maximal device=0}}
}

ENTRY %main (p0: f32[8,8], p1: (s32[], f32[4])) -> (f32[8,8], f32[4]) {
  %p0 = f32[8,8]{1,0} parameter(0), parameter_replication={true}
  %p1 = (s32[], f32[4]{0}) parameter(1)
  %c = f32[2,2]{1,0} constant({ { 1.5, -inf }, { nan, 1.4013e-45 } })
  %ci = s32[3]{0} constant({-1, 0, 2147483647})
  %cb = pred[] constant(true)
  %cc = c64[2]{0} constant({(1, 2), (-0.5, 0)})
  %ch = f16[] constant(0.33325)
  %ct = (f32[], s32[]) constant((f32[] 1, s32[] 2))
  %t = f32[8,8]{0,1} transpose(%p0), dimensions={1,0}
  %s = f32[4,2]{1,0} slice(%t), slice={[0:8:2], [1:3]}
  %pd = f32[9,4]{1,0} pad(%s, %c), padding=0_1_1x1_1_0
  %dot = f32[8,8]{1,0} dot(%p0, %t), lhs_batch_dims={0}, lhs_contracting_dims={1}, rhs_batch_dims={0}, rhs_contracting_dims={1}, operand_precision={high,default}, algorithm=dot_f32_f32_f32
  %conv = f32[1,4,4,2]{3,2,1,0} convolution(%p0, %p0), window={size=3x3 stride=2x2 pad=0_1x1_0 lhs_dilate=1x2 rhs_dilate=2x1 rhs_reversal=0x1}, dim_labels=b01f_01io->b01f, feature_group_count=2, batch_group_count=3
  %rw = f32[4,4]{1,0} reduce-window(%p0, %c), window={size=2x2 stride=2x2}, to_apply=%add
  %g = f32[3,8]{1,0} gather(%p0, %ci), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, operand_batching_dims={2}, start_indices_batching_dims={1}, index_vector_dim=1, slice_sizes={1,8}, indices_are_sorted=true
  %sc = f32[8,8]{1,0} scatter(%p0, %ci, %g), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, input_batching_dims={1}, scatter_indices_batching_dims={0}, index_vector_dim=1, indices_are_sorted=true, unique_indices=true, to_apply=%add
  %srt = f32[8,8]{1,0} sort(%p0), dimensions={1}, is_stable=true, to_apply=%lt
  %f = f32[8,8]{1,0} fusion(%p0), kind=kLoop, calls=%fused, control-predecessors={%srt}
  %w = (s32[], f32[4]{0}) while(%p1), condition=%cond, body=%body, backend_config={"known_trip_count":{"n":"10"}}
  %cnd = (s32[], f32[4]{0}) conditional(%cb, %p1, %p1), true_computation=%body, false_computation=%body
  %cnd2 = (s32[], f32[4]{0}) conditional(%ci, %p1), branch_computations={%body}
  %cl = f32[] call(%ch), to_apply=%add, is_composite=true
  %cu = (f32[8,8]{1,0}, s8[16]{0}) custom-call(%p0, %t), window={size=3x3}, dim_labels=bf01_oi01->bf01, custom_call_target="target$x", operand_layout_constraints={f32[8,8]{0,1}, f32[8,8]{1,0}}, custom_call_has_side_effect=true, output_to_operand_aliasing={{0}: (0, {})}, schedule=SCHEDULE_EARLIEST, api_version=API_VERSION_STATUS_RETURNING, called_computations={%add, %lt}, padding_type=PADDING_SAME
  %ar = f32[8,8]{1,0} all-reduce(%p0), channel_id=5, replica_groups={{0,1}}, constrain_layout=true, use_global_device_ids=true, to_apply=%add
  %ag = f32[16,8]{1,0} all-gather(%p0), replica_groups=[1,2]<=[2], dimensions={0}
  %a2a = f32[8,8]{1,0} all-to-all(%p0), replica_groups={}
  %cp = f32[8,8]{1,0} collective-permute(%p0), channel_id=1, source_target_pairs={{0,1},{1,0}}
  %io = s32[4,8]{1,0} iota(), iota_dimension=1
  %rp = f32[8,8]{1,0} reduce-precision(%p0), exponent_bits=5, mantissa_bits=10
  %ex = f32[8,8]{1,0} exponential(%p0), result_accuracy={tolerance={atol=0,rtol=0.001,ulps=0}}
  %tnh = f32[8,8]{1,0} tanh(%p0), result_accuracy={mode=highest}
  %tk = (f32[8,2]{1,0}, s32[8,2]{1,0}) topk(%p0), k=2, largest=true, is_stable=true
  %bn = (f32[8,8]{1,0}, f32[8]{0}, f32[8]{0}) batch-norm-training(%p0, %ch, %ch), epsilon=0.001, feature_index=1
  %rng = f32[4]{0} rng(%ch, %ch), distribution=rng_uniform
  %rbg = (u64[2]{0}, u32[4]{0}) rng-bit-generator(%ci), algorithm=rng_three_fry
  %fft = c64[8]{0} fft(%cc), fft_type=RFFT, fft_length={8}
  %ts = f32[8,8]{1,0} triangular-solve(%p0, %p0), left_side=true, lower=false, unit_diagonal=true, transpose_a=NO_TRANSPOSE
  %ch2 = f32[8,8]{1,0} cholesky(%p0), lower=true
  %ds = f32[2,2]{1,0} dynamic-slice(%p0, %ci, %ci), dynamic_slice_sizes={2,2}
  %gte = f32[4]{0} get-tuple-element(%p1), index=1, sharding={replicated}, frontend_attributes={_xla="1",z="2"}, metadata={op_type="t" op_name="n" source_file="f.py" source_line=1 source_end_line=2 source_column=3 source_end_column=4 deduplicated_name="d" preserve_layout=true scheduling_name="s" stack_frame_id=1}
  ROOT %out = (f32[8,8]{1,0}, f32[4]{0}) tuple(%f, %gte), statistics={visualizing_index=1,stat-0=0.5}
}

)";

}  // namespace hloc

#endif  // HLO_TEXT_TEST_UTIL_H_
