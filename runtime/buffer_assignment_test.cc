// Buffer assignment: reuse where lifetimes allow it and never where they
// overlap (checked by VerifyBufferAssignment on every assignment made here,
// random modules and orders included), aliases, parameters and outputs in
// their own buffers, in-place dynamic-update-slice, and the peak-vs-sum
// table over the corpus.
#include "runtime/buffer_assignment.h"

#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "hlo/text/parser.h"
#include "passes/pipelines.h"
#include "tests/corpus.h"

namespace hloc {
namespace {

std::unique_ptr<HloModule> Parse(const std::string& text) {
  auto module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  return module.ok() ? std::move(*module) : nullptr;
}

BufferAssignment Assign(const HloModule& module,
                        const BufferAssignmentOptions& options = {}) {
  const HloComputation* entry = module.entry_computation();
  auto assignment =
      AssignBuffers(*entry, entry->MakeInstructionPostOrder(), options);
  EXPECT_TRUE(assignment.ok()) << assignment.status();
  absl::Status verified = VerifyBufferAssignment(*assignment);
  EXPECT_TRUE(verified.ok()) << verified << "\n" << assignment->ToString();
  return *std::move(assignment);
}

const BufferValue& ValueOf(const BufferAssignment& a, const HloModule& module,
                           const std::string& name, size_t leaf = 0) {
  const HloInstruction* instr =
      module.entry_computation()->GetInstructionWithName(name);
  EXPECT_NE(instr, nullptr) << name;
  return a.values.at(a.LeafValues(instr).at(leaf));
}

BufferAllocation::Kind KindOf(const BufferAssignment& a, const BufferValue& v) {
  return a.allocations[v.allocation].kind;
}

TEST(BufferAssignmentTest, ChainReusesMemory) {
  auto module = Parse(R"(
HloModule chain
ENTRY e {
  p = f32[256] parameter(0)
  a = f32[256] negate(p)
  b = f32[256] exponential(a)
  c = f32[256] negate(b)
  d = f32[256] exponential(c)
  ROOT r = f32[256] add(d, p)
})");
  BufferAssignment a = Assign(*module);
  EXPECT_EQ(a.total_intermediate_bytes(), 4 * 1024);
  EXPECT_EQ(a.arena_bytes(), 2 * 1024);
  EXPECT_EQ(a.live_peak_bytes(), 2 * 1024);
  // a dies at b, so c may take its place; b and d likewise.
  EXPECT_EQ(ValueOf(a, *module, "a").offset, ValueOf(a, *module, "c").offset);
  EXPECT_EQ(ValueOf(a, *module, "b").offset, ValueOf(a, *module, "d").offset);
  EXPECT_NE(ValueOf(a, *module, "a").offset, ValueOf(a, *module, "b").offset);
  EXPECT_EQ(ValueOf(a, *module, "a").defined_at, 1);
  EXPECT_EQ(ValueOf(a, *module, "a").last_use, 2);
  const std::string text = a.ToString();
  EXPECT_NE(text.find("total of all intermediates: 4096 bytes, arena (peak): "
                      "2048 bytes"),
            std::string::npos)
      << text;
}

TEST(BufferAssignmentTest, NoReuseWhenLifetimesOverlap) {
  auto module = Parse(R"(
HloModule overlap
ENTRY e {
  p = f32[100] parameter(0)
  a = f32[100] negate(p)
  b = f32[100] exponential(p)
  c = f32[100] add(a, b)
  ROOT r = f32[100] negate(c)
})");
  BufferAssignment a = Assign(*module);
  const BufferValue& va = ValueOf(a, *module, "a");
  const BufferValue& vb = ValueOf(a, *module, "b");
  const BufferValue& vc = ValueOf(a, *module, "c");
  // a, b and c are all live when c is computed (c reads a and b).
  EXPECT_NE(va.offset, vb.offset);
  EXPECT_NE(va.offset, vc.offset);
  EXPECT_NE(vb.offset, vc.offset);
  // Sizes are rounded up to the 64-byte alignment.
  EXPECT_EQ(a.arena_bytes(), 3 * 448);
  for (const BufferValue& v : a.values) EXPECT_EQ(v.offset % 64, 0);
}

// Two branches of the dataflow, listed one after the other: sequentially
// the second reuses the first's dead buffers (which would chain them on a
// GPU); in dataflow order it does not, while each branch still reuses its
// own.
TEST(BufferAssignmentTest, BranchesShareBytesOnlyInDataflowOrder) {
  auto module = Parse(R"(
HloModule branches
ENTRY e {
  p = f32[256] parameter(0)
  a1 = f32[256] negate(p)
  a2 = f32[256] exponential(a1)
  a3 = f32[256] negate(a2)
  b1 = f32[256] exponential(p)
  b2 = f32[256] negate(b1)
  b3 = f32[256] exponential(b2)
  ROOT r = f32[256] add(a3, b3)
})");
  auto shares = [&](const BufferAssignment& a, const std::string& x,
                    const std::string& y) {
    return ValueOf(a, *module, x).offset == ValueOf(a, *module, y).offset;
  };
  const BufferAssignment sequential = Assign(*module);
  EXPECT_TRUE(shares(sequential, "a1", "b1") || shares(sequential, "a2", "b1"))
      << sequential.ToString();
  BufferAssignmentOptions options;
  options.reuse_in_dataflow_order = true;
  const BufferAssignment dataflow = Assign(*module, options);
  for (const char* a : {"a1", "a2"}) {
    for (const char* b : {"b1", "b2", "b3"}) {
      EXPECT_FALSE(shares(dataflow, a, b)) << a << " " << b << "\n"
                                           << dataflow.ToString();
    }
  }
  EXPECT_TRUE(shares(dataflow, "a1", "a3")) << dataflow.ToString();
  EXPECT_TRUE(shares(dataflow, "b1", "b3")) << dataflow.ToString();
  EXPECT_GT(dataflow.arena_bytes(), sequential.arena_bytes());
}

TEST(BufferAssignmentTest, CheckerCatchesOverlap) {
  auto module = Parse(R"(
HloModule overlap
ENTRY e {
  p = f32[16] parameter(0)
  a = f32[16] negate(p)
  b = f32[16] exponential(p)
  c = f32[16] add(a, b)
  ROOT r = f32[16] negate(c)
})");
  BufferAssignment a = Assign(*module);
  const HloInstruction* b =
      module->entry_computation()->GetInstructionWithName("b");
  const HloInstruction* aa =
      module->entry_computation()->GetInstructionWithName("a");
  a.values[a.LeafValues(b)[0]].offset = a.values[a.LeafValues(aa)[0]].offset;
  absl::Status status = VerifyBufferAssignment(a);
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("overlap"), absl::string_view::npos)
      << status;

  BufferAssignment shorter = Assign(*module);
  shorter.values[shorter.LeafValues(aa)[0]].last_use = 1;
  EXPECT_FALSE(VerifyBufferAssignment(shorter).ok());

  BufferAssignment output_in_arena = Assign(*module);
  const HloInstruction* r =
      module->entry_computation()->GetInstructionWithName("r");
  output_in_arena.values[output_in_arena.LeafValues(r)[0]].allocation = 0;
  output_in_arena.values[output_in_arena.LeafValues(r)[0]].offset = 0;
  EXPECT_FALSE(VerifyBufferAssignment(output_in_arena).ok());
}

TEST(BufferAssignmentTest, AliasesShareTheirOperandsBuffers) {
  auto module = Parse(R"(
HloModule aliases
ENTRY e {
  p = f32[4,4] parameter(0)
  a = f32[4,4] negate(p)
  bc = f32[16] bitcast(a)
  q = f32[16] exponential(bc)
  t = (f32[16], f32[16]) tuple(bc, q)
  ob = (f32[16], f32[16]) opt-barrier(t)
  g0 = f32[16] get-tuple-element(ob), index=0
  g1 = f32[16] get-tuple-element(ob), index=1
  s = f32[16] sine(g1)
  x = f32[16] add(g0, s)
  ROOT y = f32[16] negate(x)
})");
  BufferAssignment a = Assign(*module);
  const HloComputation* entry = module->entry_computation();
  auto leaves = [&](const char* name) {
    return a.LeafValues(entry->GetInstructionWithName(name));
  };
  EXPECT_EQ(leaves("bc"), leaves("a"));
  EXPECT_EQ(leaves("g0"), leaves("a"));
  EXPECT_EQ(leaves("g1"), leaves("q"));
  EXPECT_EQ(leaves("t"),
            (std::vector<int64_t>{leaves("a")[0], leaves("q")[0]}));
  // Aliases define no values: p, a, q, s, x, y.
  EXPECT_EQ(a.values.size(), 6u);
  // a is read through bc -> t -> ob -> g0 by x, so it lives until x.
  const BufferValue& va = ValueOf(a, *module, "a");
  const BufferValue& vx = ValueOf(a, *module, "x");
  EXPECT_EQ(va.last_use, vx.defined_at);
  EXPECT_NE(va.offset, ValueOf(a, *module, "s").offset);
}

TEST(BufferAssignmentTest, ParametersConstantsAndOutputsHaveTheirOwn) {
  auto module = Parse(R"(
HloModule outputs
ENTRY e {
  p0 = f32[64] parameter(0)
  p1 = (f32[8], s32[]) parameter(1)
  k = f32[] constant(2)
  kb = f32[64] broadcast(k), dimensions={}
  a = f32[64] add(p0, kb)
  b = f32[64] exponential(a)
  c = f32[64] negate(b)
  d = f32[64] sine(c)
  g = s32[] get-tuple-element(p1), index=1
  ROOT t = (f32[64], f32[64], f32[64], s32[]) tuple(a, d, p0, g)
})");
  ASSERT_NE(module, nullptr);
  BufferAssignment a = Assign(*module);
  // a is returned: although nothing reads it after b, it is an output and
  // nothing may take its place.
  EXPECT_EQ(KindOf(a, ValueOf(a, *module, "a")),
            BufferAllocation::Kind::kOutput);
  EXPECT_EQ(KindOf(a, ValueOf(a, *module, "d")),
            BufferAllocation::Kind::kOutput);
  EXPECT_NE(ValueOf(a, *module, "a").allocation,
            ValueOf(a, *module, "d").allocation);
  EXPECT_EQ(KindOf(a, ValueOf(a, *module, "p0")),
            BufferAllocation::Kind::kParameter);
  EXPECT_EQ(KindOf(a, ValueOf(a, *module, "k")),
            BufferAllocation::Kind::kConstant);
  const BufferValue& p1_leaf1 = ValueOf(a, *module, "p1", 1);
  EXPECT_EQ(KindOf(a, p1_leaf1), BufferAllocation::Kind::kParameter);
  EXPECT_EQ(a.allocations[p1_leaf1.allocation].parameter_number, 1);
  EXPECT_EQ(a.allocations[p1_leaf1.allocation].parameter_leaf, 1);
  EXPECT_EQ(p1_leaf1.Name(), "p1{1}");
  EXPECT_EQ(KindOf(a, ValueOf(a, *module, "b")),
            BufferAllocation::Kind::kArena);
  // Only kb, b and c are intermediates; b and c overlap at c, kb is dead
  // by then.
  EXPECT_EQ(a.total_intermediate_bytes(), 768);
  EXPECT_EQ(a.arena_bytes(), 512);
  for (const BufferValue& v : a.values) {
    if (v.live_out || v.instruction->opcode() == HloOpcode::kParameter) {
      EXPECT_NE(v.allocation, 0) << v.Name();
    }
  }
}

TEST(BufferAssignmentTest, MultiOutputFusionLeavesAreSeparateValues) {
  auto module = Parse(R"(
HloModule mof
fused {
  fp = f32[32] parameter(0)
  s = f32[32] sine(fp)
  c = f32[32] cosine(fp)
  ROOT t = (f32[32], f32[32]) tuple(s, c)
}
ENTRY e {
  p = f32[32] parameter(0)
  f = (f32[32], f32[32]) fusion(p), kind=kLoop, calls=fused
  g0 = f32[32] get-tuple-element(f), index=0
  g1 = f32[32] get-tuple-element(f), index=1
  n = f32[32] negate(g0)
  ROOT m = f32[32] multiply(n, g1)
})");
  BufferAssignment a = Assign(*module);
  const BufferValue& f0 = ValueOf(a, *module, "f", 0);
  const BufferValue& f1 = ValueOf(a, *module, "f", 1);
  EXPECT_EQ(f0.Name(), "f{0}");
  EXPECT_EQ(f1.Name(), "f{1}");
  EXPECT_NE(f0.offset, f1.offset);
  EXPECT_EQ(f0.last_use, ValueOf(a, *module, "n").defined_at);
  EXPECT_EQ(f1.last_use, ValueOf(a, *module, "m").defined_at);
  // n may reuse f{0} only if f{0} died before n was defined: it did not.
  EXPECT_NE(ValueOf(a, *module, "n").offset, f0.offset);
}

TEST(BufferAssignmentTest, DynamicUpdateSliceInPlace) {
  const std::string text = R"(
HloModule dus
ENTRY e {
  p = f32[64] parameter(0)
  u = f32[8] parameter(1)
  i = s32[] parameter(2)
  a = f32[64] exponential(p)
  d = f32[64] dynamic-update-slice(a, u, i)
  ROOT r = f32[64] REST
})";
  auto in_place = Parse(absl::StrReplaceAll(text, {{"REST", "negate(d)"}}));
  BufferAssignment a = Assign(*in_place);
  const BufferValue& va = ValueOf(a, *in_place, "a");
  const BufferValue& vd = ValueOf(a, *in_place, "d");
  EXPECT_EQ(vd.in_place_of,
            a.LeafValues(
                in_place->entry_computation()->GetInstructionWithName("a"))[0]);
  EXPECT_EQ(va.offset, vd.offset);
  EXPECT_EQ(a.arena_bytes(), 256);
  EXPECT_NE(a.ToString().find("in place of a"), std::string::npos);

  // a is still read after the update: no sharing.
  auto still_live = Parse(absl::StrReplaceAll(text, {{"REST", "add(d, a)"}}));
  BufferAssignment b = Assign(*still_live);
  EXPECT_EQ(ValueOf(b, *still_live, "d").in_place_of, -1);
  EXPECT_NE(ValueOf(b, *still_live, "a").offset,
            ValueOf(b, *still_live, "d").offset);

  // Turned off.
  BufferAssignmentOptions options;
  options.in_place_dynamic_update_slice = false;
  BufferAssignment c = Assign(*in_place, options);
  EXPECT_EQ(ValueOf(c, *in_place, "d").in_place_of, -1);
  EXPECT_EQ(c.arena_bytes(), 512);
}

TEST(BufferAssignmentTest, FusedDynamicUpdateSliceInPlace) {
  const std::string text = R"(
HloModule dus
fused {
  x = f32[64] parameter(0)
  v = f32[8] parameter(1)
  j = s32[] parameter(2)
  w = f32[8] sine(v)
  ROOT d = f32[64] dynamic-update-slice(TARGET, w, j)
}
ENTRY e {
  p = f32[64] parameter(0)
  u = f32[8] parameter(1)
  i = s32[] parameter(2)
  a = f32[64] exponential(p)
  f = f32[64] fusion(a, u, i), kind=kLoop, calls=fused
  ROOT r = f32[64] negate(f)
})";
  auto direct = Parse(absl::StrReplaceAll(text, {{"TARGET", "x"}}));
  BufferAssignment a = Assign(*direct);
  EXPECT_GE(ValueOf(a, *direct, "f").in_place_of, 0);
  EXPECT_EQ(a.arena_bytes(), 256);

  // The fused operand is transformed before the update: its elements are
  // read at other indices, so the output must not overwrite it.
  auto transformed = Parse(absl::StrReplaceAll(
      text, {{"TARGET", "rev"},
             {"w = f32[8] sine(v)",
              "w = f32[8] sine(v)\n  rev = f32[64] reverse(x), "
              "dimensions={0}"}}));
  ASSERT_NE(transformed, nullptr);
  BufferAssignment b = Assign(*transformed);
  EXPECT_EQ(ValueOf(b, *transformed, "f").in_place_of, -1);
  EXPECT_EQ(b.arena_bytes(), 512);
}

// A while body's plan with loop_state_in_place, checked.
BufferAssignment AssignBody(const HloModule& module,
                            const std::string& computation) {
  const HloComputation* body = module.GetComputationWithName(computation);
  EXPECT_NE(body, nullptr) << computation;
  BufferAssignmentOptions options;
  options.loop_state_in_place = true;
  auto assignment =
      AssignBuffers(*body, body->MakeInstructionPostOrder(), options);
  EXPECT_TRUE(assignment.ok()) << assignment.status();
  absl::Status verified = VerifyBufferAssignment(*assignment);
  EXPECT_TRUE(verified.ok()) << verified << "\n" << assignment->ToString();
  return *std::move(assignment);
}

// Root leaf `j` of `computation`'s plan: the parameter leaf whose buffer it
// took over, or -1.
int64_t StateOf(const BufferAssignment& a, const HloComputation& computation,
                int64_t j) {
  const BufferValue& v =
      a.values[a.LeafValues(computation.root_instruction()).at(j)];
  if (v.state_of < 0) return -1;
  EXPECT_EQ(a.allocations[v.allocation].kind,
            BufferAllocation::Kind::kParameter);
  return a.values[v.state_of].leaf;
}

TEST(BufferAssignmentTest, LoopStateInPlace) {
  // A scan step: the counter and the carry are recomputed after their last
  // reads; ys is updated at i in place; w is passed through; the old carry
  // is read again after the new one exists (no takeover for it would be
  // wrong, so the new counter must not wait on it); swapped leaves copy.
  const std::string text = R"(
HloModule scan
body {
  s = (s32[], f32[8], f32[16,8], f32[8], f32[4], f32[4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  c = f32[8] get-tuple-element(s), index=1
  ys = f32[16,8] get-tuple-element(s), index=2
  w = f32[8] get-tuple-element(s), index=3
  a = f32[4] get-tuple-element(s), index=4
  b = f32[4] get-tuple-element(s), index=5
  one = s32[] constant(1)
  next = s32[] add(i, one)
  cw = f32[8] multiply(c, w)
  c2 = f32[8] tanh(cw)
  row = f32[1,8] reshape(c2)
  zero = s32[] constant(0)
  ys2 = f32[16,8] dynamic-update-slice(ys, row, i, zero)
  ROOT r = (s32[], f32[8], f32[16,8], f32[8], f32[4], f32[4]) tuple(next, c2, ys2, w, b, a)
}
cond {
  s = (s32[], f32[8], f32[16,8], f32[8], f32[4], f32[4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(16)
  ROOT lt = pred[] compare(i, n), direction=LT
}
ENTRY e {
  init = (s32[], f32[8], f32[16,8], f32[8], f32[4], f32[4]) parameter(0)
  ROOT loop = (s32[], f32[8], f32[16,8], f32[8], f32[4], f32[4]) while(init), condition=cond, body=body
})";
  auto module = Parse(text);
  ASSERT_NE(module, nullptr);
  const HloComputation& body = *module->GetComputationWithName("body");
  BufferAssignment a = AssignBody(*module, "body");
  // next is defined before ys2 reads i for the last time (post order puts
  // it first): it keeps its own buffer and the copy back.
  const BufferValue& next =
      a.values[a.LeafValues(body.GetInstructionWithName("next"))[0]];
  const BufferValue& i =
      a.values[a.LeafValues(body.GetInstructionWithName("i"))[0]];
  EXPECT_EQ(StateOf(a, body, 0), next.defined_at > i.last_use ? 0 : -1);
  EXPECT_EQ(StateOf(a, body, 1), 1);
  // The update reads ys for the last time and writes it in place.
  EXPECT_EQ(StateOf(a, body, 2), 2);
  const BufferValue& ys2 =
      a.values[a.LeafValues(body.GetInstructionWithName("ys2"))[0]];
  EXPECT_EQ(ys2.in_place_of, a.LeafValues(body.parameter_instruction(0))[2]);
  EXPECT_NE(a.ToString().find("in place of s{2}"), std::string::npos)
      << a.ToString();
  EXPECT_EQ(StateOf(a, body, 3), -1);  // passed through: no copy at all
  EXPECT_EQ(StateOf(a, body, 4), -1);  // swapped: copied
  EXPECT_EQ(StateOf(a, body, 5), -1);
  // Only the counter (if anything) is an output of its own.
  EXPECT_LE(a.AllocationBytes(BufferAllocation::Kind::kOutput), 64);

  // The old carry read after the new one is made: no takeover.
  auto late = Parse(absl::StrReplaceAll(
      text,
      {{"tuple(next, c2, ys2, w, b, a)", "tuple(next, c2, ys2, late, b, a)"},
       {"ROOT r =", "late = f32[8] add(c, c2)\n  ROOT r ="}}));
  ASSERT_NE(late, nullptr);
  BufferAssignment b = AssignBody(*late, "body");
  EXPECT_EQ(StateOf(b, *late->GetComputationWithName("body"), 1), -1);
  EXPECT_EQ(StateOf(b, *late->GetComputationWithName("body"), 3), 3);

  // LoopBodyOrder makes the new counter after the update's last read of
  // the old one; it then overwrites the old counter in place.
  auto reordered = LoopBodyOrder(body);
  ASSERT_TRUE(reordered.ok()) << reordered.status();
  BufferAssignmentOptions options;
  options.loop_state_in_place = true;
  auto r = AssignBuffers(body, *reordered, options);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_TRUE(VerifyBufferAssignment(*r).ok()) << r->ToString();
  EXPECT_EQ(StateOf(*r, body, 0), 0) << r->ToString();
  EXPECT_EQ(StateOf(*r, body, 1), 1);
  EXPECT_EQ(StateOf(*r, body, 2), 2);
  EXPECT_EQ(r->AllocationBytes(BufferAllocation::Kind::kOutput), 0);

  // Without the option, every recomputed leaf is an output of its own.
  const HloComputation* plain_body = module->GetComputationWithName("body");
  auto plain =
      AssignBuffers(*plain_body, plain_body->MakeInstructionPostOrder());
  ASSERT_TRUE(plain.ok());
  for (const BufferValue& v : plain->values) EXPECT_EQ(v.state_of, -1);
}

// in_place_scatter (the GPU's): a scatter of one operand writes into its
// operand's buffer where the operand dies there, unfused or as a fusion's
// root over a parameter read only by the scatter; and a scatter on a loop
// state leaf updates the state in place. Not by default (the CPU's).
TEST(BufferAssignmentTest, ScatterInPlace) {
  const std::string text = R"(
HloModule scatters
add {
  lhs = f32[] parameter(0)
  rhs = f32[] parameter(1)
  ROOT sum = f32[] add(lhs, rhs)
}
fused {
  o = f32[64,4] parameter(0)
  j = s32[3,1] parameter(1)
  w = f32[3,4] parameter(2)
  two = f32[] constant(2)
  twos = f32[3,4] broadcast(two), dimensions={}
  w2 = f32[3,4] multiply(w, twos)
  ROOT t = f32[64,4] scatter(o, j, w2), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
}
ENTRY e {
  p = f32[64,4] parameter(0)
  i = s32[5,1] parameter(1)
  u = f32[5,4] parameter(2)
  a = f32[64,4] exponential(p)
  s = f32[64,4] scatter(a, i, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
  f = f32[64,4] fusion(s, i, u), kind=kCustom, calls=fused, backend_config={"fusion_backend_config":{"kind":"__hloc_scatter"}}
  ROOT r = f32[64,4] REST
})";
  auto module = Parse(absl::StrReplaceAll(text, {{"REST", "negate(f)"}}));
  ASSERT_NE(module, nullptr);
  BufferAssignmentOptions options;
  options.in_place_scatter = true;
  const HloComputation& entry = *module->entry_computation();
  BufferAssignment a = Assign(*module, options);
  auto value = [&](const BufferAssignment& x, const std::string& name) {
    return x.LeafValues(entry.GetInstructionWithName(name))[0];
  };
  EXPECT_EQ(ValueOf(a, *module, "s").in_place_of, value(a, "a"));
  EXPECT_EQ(ValueOf(a, *module, "f").in_place_of, value(a, "s"));
  EXPECT_EQ(ValueOf(a, *module, "a").offset, ValueOf(a, *module, "f").offset);
  // Not by default.
  BufferAssignment plain = Assign(*module);
  EXPECT_EQ(ValueOf(plain, *module, "s").in_place_of, -1);
  EXPECT_EQ(ValueOf(plain, *module, "f").in_place_of, -1);
  // s read again after the fusion: the fusion makes a new buffer.
  auto still_live = Parse(absl::StrReplaceAll(text, {{"REST", "add(f, s)"}}));
  ASSERT_NE(still_live, nullptr);
  BufferAssignment b = Assign(*still_live, options);
  EXPECT_EQ(ValueOf(b, *still_live, "f").in_place_of, -1);

  // A scatter on a loop's state leaf writes the state in place.
  auto loop = Parse(R"(
HloModule loop
add {
  lhs = f32[] parameter(0)
  rhs = f32[] parameter(1)
  ROOT sum = f32[] add(lhs, rhs)
}
body {
  st = (s32[], f32[64,4]) parameter(0)
  i = s32[] get-tuple-element(st), index=0
  x = f32[64,4] get-tuple-element(st), index=1
  idx = s32[1,1] reshape(i)
  fi = f32[] convert(i)
  u = f32[1,4] broadcast(fi), dimensions={}
  x2 = f32[64,4] scatter(x, idx, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  ROOT r = (s32[], f32[64,4]) tuple(i2, x2)
}
cond {
  st = (s32[], f32[64,4]) parameter(0)
  i = s32[] get-tuple-element(st), index=0
  n = s32[] constant(9)
  ROOT lt = pred[] compare(i, n), direction=LT
}
ENTRY e {
  init = (s32[], f32[64,4]) parameter(0)
  ROOT w = (s32[], f32[64,4]) while(init), condition=cond, body=body
})");
  ASSERT_NE(loop, nullptr);
  const HloComputation& body = *loop->GetComputationWithName("body");
  options.loop_state_in_place = true;
  auto order = LoopBodyOrder(body, options);
  ASSERT_TRUE(order.ok()) << order.status();
  auto in_loop = AssignBuffers(body, *order, options);
  ASSERT_TRUE(in_loop.ok()) << in_loop.status();
  ASSERT_TRUE(VerifyBufferAssignment(*in_loop).ok()) << in_loop->ToString();
  EXPECT_EQ(StateOf(*in_loop, body, 1), 1) << in_loop->ToString();
  const BufferValue& x2 =
      in_loop
          ->values[in_loop->LeafValues(body.GetInstructionWithName("x2"))[0]];
  EXPECT_EQ(x2.in_place_of,
            in_loop->LeafValues(body.parameter_instruction(0))[1]);
  // Without in_place_scatter the new state is a buffer of its own, copied
  // back each iteration.
  EXPECT_EQ(StateOf(AssignBody(*loop, "body"), body, 1), -1);
}

TEST(BufferAssignmentTest, LoopStateOverwrittenElementwise) {
  // Each new leaf reads its old one last, in the instruction that makes
  // it: an elementwise op and an elementwise loop fusion may overwrite it;
  // a fusion that reads it through a reverse (another index) or a
  // broadcast may not; one that transposes another operand may.
  const std::string text = R"(
HloModule m
elementwise {
  a = f32[8] parameter(0)
  b = f32[8] parameter(1)
  k = f32[] constant(2)
  kb = f32[8] broadcast(k), dimensions={}
  ab = f32[8] multiply(a, kb)
  ROOT s = f32[8] add(ab, b)
}
reversed {
  a = f32[8] parameter(0)
  b = f32[8] parameter(1)
  ar = f32[8] reverse(a), dimensions={0}
  ROOT s = f32[8] add(ar, b)
}
transposing {
  a = f32[8,8] parameter(0)
  b = f32[8,8] parameter(1)
  bt = f32[8,8] transpose(b), dimensions={1,0}
  ROOT s = f32[8,8] add(a, bt)
}
broadcasting {
  a = f32[8] parameter(0)
  b = f32[8,8] parameter(1)
  ab = f32[8,8] broadcast(a), dimensions={0}
  ROOT s = f32[8,8] add(ab, b)
}
body {
  s = (f32[8], f32[8], f32[8], f32[8,8], f32[8], f32[8,8]) parameter(0)
  x = f32[8] get-tuple-element(s), index=0
  y = f32[8] get-tuple-element(s), index=1
  z = f32[8] get-tuple-element(s), index=2
  w = f32[8,8] get-tuple-element(s), index=3
  u = f32[8] get-tuple-element(s), index=4
  q = f32[8,8] get-tuple-element(s), index=5
  x2 = f32[8] tanh(x)
  y2 = f32[8] fusion(y, x2), kind=kLoop, calls=elementwise
  z2 = f32[8] fusion(z, x2), kind=kLoop, calls=reversed
  w2 = f32[8,8] fusion(u, w), kind=kLoop, calls=broadcasting
  u2 = f32[8] fusion(u, x2), kind=kLoop, calls=elementwise
  m = f32[8,8] broadcast(x2), dimensions={0}
  q2 = f32[8,8] fusion(q, m), kind=kLoop, calls=transposing
  ROOT r = (f32[8], f32[8], f32[8], f32[8,8], f32[8], f32[8,8]) tuple(x2, y2, z2, w2, u2, q2)
})";
  auto module = Parse(text);
  ASSERT_NE(module, nullptr);
  const HloComputation& body = *module->GetComputationWithName("body");
  BufferAssignment a = AssignBody(*module, "body");
  const std::vector<int64_t>& params =
      a.LeafValues(body.parameter_instruction(0));
  auto in_place_of = [&](int64_t j) {
    return a.values[a.LeafValues(body.root_instruction()).at(j)].in_place_of;
  };
  EXPECT_EQ(StateOf(a, body, 0), 0);
  EXPECT_EQ(in_place_of(0), params[0]);
  EXPECT_EQ(StateOf(a, body, 1), 1);
  EXPECT_EQ(in_place_of(1), params[1]);
  EXPECT_EQ(StateOf(a, body, 2), -1);
  // w2 reads w elementwise, but u through a broadcast: w is overwritten in
  // place; u2 comes after w2, u's last read, and takes u over.
  EXPECT_EQ(StateOf(a, body, 3), 3);
  EXPECT_EQ(in_place_of(3), params[3]);
  const BufferValue& u = a.values[params[4]];
  const BufferValue& u2 = a.values[a.LeafValues(body.root_instruction())[4]];
  EXPECT_EQ(StateOf(a, body, 4), u.last_use <= u2.defined_at ? 4 : -1);
  EXPECT_EQ(StateOf(a, body, 5), 5);
  EXPECT_EQ(in_place_of(5), params[5]);
}

TEST(BufferAssignmentTest, WhileStateOverItsInit) {
  // The loop's state starts where its init leaves were made, when the
  // while reads them last: a (made for the loop), c, and d's first leaf
  // (d is two; the second is copied from it before the loop runs); not p
  // (a parameter), not b (read again after the loop).
  const std::string text = R"(
HloModule m
body {
  s = (f32[8], f32[8], f32[8], f32[8], f32[8], f32[8]) parameter(0)
  x = f32[8] get-tuple-element(s), index=0
  y = f32[8] negate(x)
  ROOT r = (f32[8], f32[8], f32[8], f32[8], f32[8], f32[8]) tuple(y, y, y, y, y, y)
}
cond {
  s = (f32[8], f32[8], f32[8], f32[8], f32[8], f32[8]) parameter(0)
  ROOT f = pred[] constant(false)
}
ENTRY e {
  p = f32[8] parameter(0)
  a = f32[8] exponential(p)
  b = f32[8] sine(p)
  c = f32[8] cosine(p)
  d = f32[8] tanh(p)
  t = (f32[8], f32[8], f32[8], f32[8], f32[8], f32[8]) tuple(a, b, c, d, d, p)
  w = (f32[8], f32[8], f32[8], f32[8], f32[8], f32[8]) while(t), condition=cond, body=body
  w0 = f32[8] get-tuple-element(w), index=0
  w1 = f32[8] get-tuple-element(w), index=1
  w2 = f32[8] get-tuple-element(w), index=2
  w3 = f32[8] get-tuple-element(w), index=3
  w4 = f32[8] get-tuple-element(w), index=4
  w5 = f32[8] get-tuple-element(w), index=5
  s0 = f32[8] add(w0, w1)
  s1 = f32[8] add(w2, w3)
  s2 = f32[8] add(w4, w5)
  s3 = f32[8] add(s0, s1)
  s4 = f32[8] add(s2, b)
  ROOT o = f32[8] add(s3, s4)
})";
  auto module = Parse(text);
  ASSERT_NE(module, nullptr);
  BufferAssignment a = Assign(*module);
  const HloComputation* entry = module->entry_computation();
  const std::vector<int64_t>& w =
      a.LeafValues(entry->GetInstructionWithName("w"));
  auto value_of = [&](const std::string& name) {
    return a.LeafValues(entry->GetInstructionWithName(name))[0];
  };
  EXPECT_EQ(a.values[w[0]].in_place_of, value_of("a"));
  EXPECT_EQ(a.values[w[0]].offset, a.values[value_of("a")].offset);
  EXPECT_EQ(a.values[w[1]].in_place_of, -1);
  EXPECT_EQ(a.values[w[2]].in_place_of, value_of("c"));
  EXPECT_EQ(a.values[w[3]].in_place_of, value_of("d"));
  EXPECT_EQ(a.values[w[4]].in_place_of, -1);
  EXPECT_EQ(a.values[w[5]].in_place_of, -1);
  // Turned off.
  BufferAssignmentOptions options;
  options.in_place_while_state = false;
  BufferAssignment off = Assign(*module, options);
  for (int64_t v : off.LeafValues(entry->GetInstructionWithName("w"))) {
    EXPECT_EQ(off.values[v].in_place_of, -1);
  }
}

TEST(BufferAssignmentTest, CheckerCatchesABadLoopStateTakeover) {
  auto module = Parse(R"(
HloModule m
body {
  s = (f32[8], f32[8]) parameter(0)
  x = f32[8] get-tuple-element(s), index=0
  y = f32[8] get-tuple-element(s), index=1
  x2 = f32[8] exponential(x)
  yn = f32[8] negate(y)
  y2 = f32[8] add(yn, x)
  ROOT r = (f32[8], f32[8]) tuple(x2, y2)
})");
  ASSERT_NE(module, nullptr);
  const HloComputation& body = *module->GetComputationWithName("body");
  BufferAssignment a = AssignBody(*module, "body");
  const std::vector<int64_t>& roots = a.LeafValues(body.root_instruction());
  const std::vector<int64_t>& params =
      a.LeafValues(body.parameter_instruction(0));
  // y2 takes over y; x2 cannot, as y2 reads x after it.
  EXPECT_EQ(StateOf(a, body, 0), -1);
  EXPECT_EQ(StateOf(a, body, 1), 1);
  // Forced onto x's buffer, x2 would overwrite x before y2 reads it.
  BufferAssignment bad = a;
  bad.values[roots[0]].state_of = params[0];
  bad.values[roots[0]].allocation = a.values[params[0]].allocation;
  bad.values[roots[0]].offset = 0;
  absl::Status status = VerifyBufferAssignment(bad);
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("overlap"), std::string::npos) << status;
  // Onto the other leaf's buffer: not its own state leaf.
  BufferAssignment crossed = a;
  crossed.values[roots[0]].state_of = params[1];
  crossed.values[roots[0]].allocation = a.values[params[1]].allocation;
  crossed.values[roots[0]].offset = 0;
  status = VerifyBufferAssignment(crossed);
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("not the root leaf in its buffer"),
            std::string::npos)
      << status;
}

TEST(BufferAssignmentTest, RejectsBadOrders) {
  auto module = Parse(R"(
HloModule m
ENTRY e {
  p = f32[4] parameter(0)
  a = f32[4] negate(p)
  ROOT b = f32[4] exponential(a)
})");
  const HloComputation* entry = module->entry_computation();
  std::vector<HloInstruction*> order = entry->MakeInstructionPostOrder();
  std::swap(order[1], order[2]);
  EXPECT_FALSE(AssignBuffers(*entry, order).ok());
  order.pop_back();
  EXPECT_FALSE(AssignBuffers(*entry, order).ok());
  BufferAssignmentOptions options;
  options.alignment = 48;
  EXPECT_FALSE(
      AssignBuffers(*entry, entry->MakeInstructionPostOrder(), options).ok());
}

// Random DAGs of elementwise ops (a few shapes), with tuples, gtes and
// bitcasts in between, run in random topological orders.
std::string RandomModule(std::mt19937* rng) {
  const int64_t sizes[] = {16, 48, 100, 1000};
  struct Def {
    std::string name;
    int64_t size;
  };
  std::vector<Def> defs;
  std::string body;
  for (int i = 0; i < 3; ++i) {
    const int64_t size = sizes[(*rng)() % 4];
    defs.push_back({absl::StrCat("p", i), size});
    absl::StrAppend(&body, "  p", i, " = f32[", size, "] parameter(", i, ")\n");
  }
  const int n = 10 + (*rng)() % 30;
  for (int i = 0; i < n; ++i) {
    const Def& x = defs[(*rng)() % defs.size()];
    const std::string name = absl::StrCat("v", i);
    const int kind = (*rng)() % 6;
    if (kind == 0) {
      absl::StrAppend(&body, "  ", name, " = f32[", x.size, "] negate(", x.name,
                      ")\n");
    } else if (kind == 1) {
      absl::StrAppend(&body, "  ", name, ".t = (f32[", x.size, "]) tuple(",
                      x.name, ")\n  ", name, " = f32[", x.size,
                      "] get-tuple-element(", name, ".t), index=0\n");
    } else if (kind == 2) {
      absl::StrAppend(&body, "  ", name, " = f32[1,", x.size, "] bitcast(",
                      x.name, ")\n  ", name, ".r = f32[", x.size, "] bitcast(",
                      name, ")\n");
      defs.push_back({name + ".r", x.size});
      continue;
    } else {
      // A binary op with another value of the same size, if there is one.
      std::vector<const Def*> same;
      for (const Def& d : defs) {
        if (d.size == x.size) same.push_back(&d);
      }
      const Def& y = *same[(*rng)() % same.size()];
      absl::StrAppend(&body, "  ", name, " = f32[", x.size, "] add(", x.name,
                      ", ", y.name, ")\n");
    }
    defs.push_back({name, x.size});
  }
  std::string root = "  ROOT out = (";
  std::string operands;
  for (int i = 0; i < 3; ++i) {
    const Def& d = defs[defs.size() - 1 - (*rng)() % (defs.size() / 2)];
    absl::StrAppend(&root, i ? ", " : "", "f32[", d.size, "]");
    absl::StrAppend(&operands, i ? ", " : "", d.name);
  }
  absl::StrAppend(&body, root, ") tuple(", operands, ")\n");
  return absl::StrCat("HloModule random\nENTRY e {\n", body, "}\n");
}

std::vector<HloInstruction*> RandomTopologicalOrder(
    const HloComputation& computation, std::mt19937* rng) {
  std::vector<HloInstruction*> all = computation.MakeInstructionPostOrder();
  absl::flat_hash_map<const HloInstruction*, int64_t> pending;
  std::vector<HloInstruction*> ready;
  for (HloInstruction* instr : all) {
    int64_t distinct = 0;
    for (size_t i = 0; i < instr->operands().size(); ++i) {
      bool seen = false;
      for (size_t j = 0; j < i; ++j)
        seen |= instr->operand(j) == instr->operand(i);
      distinct += !seen;
    }
    pending[instr] = distinct;
    if (distinct == 0) ready.push_back(instr);
  }
  std::vector<HloInstruction*> order;
  while (!ready.empty()) {
    const size_t pick = (*rng)() % ready.size();
    HloInstruction* instr = ready[pick];
    ready.erase(ready.begin() + pick);
    order.push_back(instr);
    for (HloInstruction* user : instr->users()) {
      if (--pending[user] == 0) ready.push_back(user);
    }
  }
  return order;
}

// Every two arena values sharing bytes: each reader of the earlier one
// (or its writer, unread) is a dataflow ancestor of the later one's writer.
void ExpectReuseInDataflowOrder(const BufferAssignment& a,
                                const std::string& text) {
  const std::vector<const HloInstruction*>& order = a.order;
  absl::flat_hash_map<const HloInstruction*, size_t> position;
  for (size_t i = 0; i < order.size(); ++i) position[order[i]] = i;
  // reaches[i][j]: position j is position i or one of its ancestors.
  std::vector<std::vector<bool>> reaches(order.size(),
                                         std::vector<bool>(order.size()));
  for (size_t i = 0; i < order.size(); ++i) {
    reaches[i][i] = true;
    for (const HloInstruction* operand : order[i]->operands()) {
      const std::vector<bool>& from = reaches[position.at(operand)];
      for (size_t j = 0; j < order.size(); ++j) {
        if (from[j]) reaches[i][j] = true;
      }
    }
  }
  std::vector<std::vector<size_t>> touches(a.values.size());
  for (size_t v = 0; v < a.values.size(); ++v) {
    touches[v].push_back(static_cast<size_t>(a.values[v].defined_at));
  }
  for (size_t i = 0; i < order.size(); ++i) {
    if (IsBufferAlias(*order[i])) continue;
    for (const HloInstruction* operand : order[i]->operands()) {
      for (int64_t v : a.LeafValues(operand)) touches[v].push_back(i);
    }
  }
  for (size_t u = 0; u < a.values.size(); ++u) {
    for (size_t v = 0; v < a.values.size(); ++v) {
      const BufferValue& x = a.values[u];
      const BufferValue& y = a.values[v];
      if (x.allocation != 0 || y.allocation != 0 || x.size == 0 ||
          y.size == 0 || x.defined_at >= y.defined_at || y.in_place_of >= 0 ||
          x.offset >= y.offset + y.size || y.offset >= x.offset + x.size) {
        continue;
      }
      for (size_t t : touches[u]) {
        EXPECT_TRUE(reaches[y.defined_at][t])
            << x.Name() << " and " << y.Name() << " share bytes, but "
            << order[t]->name() << " is not before " << y.Name() << "\n"
            << text << a.ToString();
      }
    }
  }
}

TEST(BufferAssignmentTest, RandomModulesNeverInterfere) {
  std::mt19937 rng(1234);
  int64_t reused = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const std::string text = RandomModule(&rng);
    auto module = ParseHloModule(text);
    ASSERT_TRUE(module.ok()) << module.status() << "\n" << text;
    const HloComputation* entry = (*module)->entry_computation();
    for (int o = 0; o < 3; ++o) {
      std::vector<HloInstruction*> order =
          o == 0 ? entry->MakeInstructionPostOrder()
                 : RandomTopologicalOrder(*entry, &rng);
      ASSERT_EQ(static_cast<int64_t>(order.size()), entry->instruction_count());
      auto a = AssignBuffers(*entry, order);
      ASSERT_TRUE(a.ok()) << a.status() << "\n" << text;
      absl::Status verified = VerifyBufferAssignment(*a);
      ASSERT_TRUE(verified.ok()) << verified << "\n" << text << a->ToString();
      EXPECT_LE(a->arena_bytes(), a->total_intermediate_bytes());
      EXPECT_GE(a->arena_bytes(), a->live_peak_bytes());
      reused += a->arena_bytes() < a->total_intermediate_bytes();
      BufferAssignmentOptions dataflow_options;
      dataflow_options.reuse_in_dataflow_order = true;
      auto d = AssignBuffers(*entry, order, dataflow_options);
      ASSERT_TRUE(d.ok()) << d.status() << "\n" << text;
      verified = VerifyBufferAssignment(*d);
      ASSERT_TRUE(verified.ok()) << verified << "\n" << text << d->ToString();
      ExpectReuseInDataflowOrder(*d, text);
    }
  }
  EXPECT_GT(reused, 300);
}

// The corpus, as JAX wrote it and after the CPU pipeline: every assignment
// checked, and the peak-vs-sum table printed.
TEST(BufferAssignmentTest, CorpusPeakBelowSum) {
  const std::vector<std::string> cases = CorpusCases();
  if (cases.empty()) GTEST_SKIP() << "corpus not found";
  std::printf("%-16s %-6s %6s %10s %10s %10s %7s\n", "case", "form", "values",
              "sum", "arena", "live-peak", "saved");
  int64_t total_sum = 0, total_arena = 0, cases_with_reuse = 0;
  for (const std::string& name : cases) {
    std::string text;
    ASSERT_TRUE(ReadFileToString(CorpusFile(name, "module.hlo"), &text));
    auto module = ParseHloModule(text, name);
    ASSERT_TRUE(module.ok()) << module.status();
    std::unique_ptr<HloModule> fused = (*module)->Clone();
    auto pipeline = MakePipeline("cpu", PipelineOptions{});
    ASSERT_TRUE(pipeline.ok());
    ASSERT_TRUE(pipeline->Run(fused.get()).ok()) << name;
    for (const auto& [form, m] :
         {std::pair<const char*, const HloModule*>{"jax", module->get()},
          {"fused", fused.get()}}) {
      BufferAssignment a = Assign(*m);
      const int64_t sum = a.total_intermediate_bytes();
      const int64_t arena = a.arena_bytes();
      EXPECT_LE(arena, sum) << name << " " << form;
      EXPECT_GE(arena, a.live_peak_bytes()) << name << " " << form;
      // Whenever two intermediates are never live together, memory is
      // reused.
      bool reuse_possible = false;
      for (const BufferValue& x : a.values) {
        for (const BufferValue& y : a.values) {
          reuse_possible |= x.allocation == 0 && y.allocation == 0 &&
                            x.size > 0 && y.size > 0 &&
                            x.last_use < y.defined_at;
        }
      }
      if (reuse_possible) {
        EXPECT_LT(arena, sum) << name << " " << form;
      }
      total_sum += sum;
      total_arena += arena;
      cases_with_reuse += arena < sum;
      std::printf("%-16s %-6s %6zu %10lld %10lld %10lld %6.1f%%\n",
                  name.c_str(), form, a.values.size(),
                  static_cast<long long>(sum), static_cast<long long>(arena),
                  static_cast<long long>(a.live_peak_bytes()),
                  sum ? 100.0 * (sum - arena) / sum : 0.0);
    }
  }
  std::printf("%-23s %17lld %10lld %18.1f%%\n", "total",
              static_cast<long long>(total_sum),
              static_cast<long long>(total_arena),
              100.0 * (total_sum - total_arena) / total_sum);
  EXPECT_LT(total_arena, total_sum);
  EXPECT_GT(cases_with_reuse, 0);
}

}  // namespace
}  // namespace hloc
