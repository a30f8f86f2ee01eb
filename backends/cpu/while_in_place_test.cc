// Loop state kept in place in the CPU's while kernels
// (control_flow_emitter.cc): results against the evaluator for scans that
// stack outputs, loops that still read the old buffer after the update
// (these must copy), nested loops, tuple state whose leaves alias, a fused
// dynamic-update-slice, a conditional whose branch updates its operand
// and an update in the entry computation; and, from the kernels' LLVM IR
// or the steps' kernels, that the in-place path is taken (an in-place
// update kernel, no copy of the stacked array in the loop's body) or,
// where the old value is read, not taken.
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "backends/cpu/cpu_compiler.h"
#include "backends/cpu/op_test_util.h"
#include "gtest/gtest.h"
#include "hlo/text/parser.h"

namespace hloc {
namespace {

using testing_util::CheckAgainstEvaluator;

// The kernels of `text` as emitted.
std::string Ir(const std::string& text) {
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseHloModule(text, "test");
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return "";
  absl::StatusOr<std::string> ir = EmitCpuLlvmIr(**module, {});
  EXPECT_TRUE(ir.ok()) << ir.status();
  return ir.ok() ? *ir : "";
}

// How many copies of `bytes` bytes the body of while kernel `symbol` makes
// each iteration (between its body and exit blocks).
int BodyCopies(const std::string& ir, const std::string& symbol,
               int64_t bytes) {
  const size_t kernel = ir.find(absl::StrCat("define void @", symbol, "("));
  if (kernel == std::string::npos) return -1;
  const size_t body = ir.find("\nbody:", kernel);
  const size_t exit = ir.find("\nexit:", body);
  if (body == std::string::npos || exit == std::string::npos) return -1;
  const std::string copy = absl::StrCat("i64 ", bytes, ", i1 false)");
  int copies = 0;
  for (size_t at = ir.find(copy, body); at < exit; at = ir.find(copy, at + 1)) {
    ++copies;
  }
  return copies;
}

// A scan of 50 steps stacking one f32[1,8] row per step, the counter
// incremented before the update reads it (post order), as JAX lowers
// lax.scan.
const char kScan[] = R"(
HloModule scan
scan_cond {
  cs = (s32[], f32[8], f32[50,8]) parameter(0)
  ci = s32[] get-tuple-element(cs), index=0
  cn = s32[] constant(50)
  ROOT clt = pred[] compare(ci, cn), direction=LT
}
scan_body {
  bs = (s32[], f32[8], f32[50,8]) parameter(0)
  bi = s32[] get-tuple-element(bs), index=0
  bc = f32[8] get-tuple-element(bs), index=1
  bys = f32[50,8] get-tuple-element(bs), index=2
  bone = s32[] constant(1)
  bi1 = s32[] add(bi, bone)
  bh = f32[] constant(0.5)
  bhb = f32[8] broadcast(bh), dimensions={}
  bm = f32[8] multiply(bc, bhb)
  bsin = f32[8] sine(bm)
  brow = f32[1,8] reshape(bsin)
  bzero = s32[] constant(0)
  bys1 = f32[50,8] dynamic-update-slice(bys, brow, bi, bzero)
  ROOT bt = (s32[], f32[8], f32[50,8]) tuple(bi1, bsin, bys1)
}
ENTRY main {
  x = f32[8] parameter(0)
  zero = s32[] constant(0)
  fz = f32[] constant(0)
  ys = f32[50,8] broadcast(fz), dimensions={}
  init = (s32[], f32[8], f32[50,8]) tuple(zero, x, ys)
  ROOT w = (s32[], f32[8], f32[50,8]) while(init), condition=scan_cond, body=scan_body
}
)";

TEST(WhileInPlaceTest, ScanStacksRowsInPlace) {
  EXPECT_TRUE(CheckAgainstEvaluator(kScan).empty());
  const std::string ir = Ir(kScan);
  EXPECT_TRUE(absl::StrContains(ir, "@hloc.w.body.bys1.in_place("));
  // The stacked array (50 * 8 * 4 bytes) is not copied back.
  EXPECT_EQ(BodyCopies(ir, "hloc.w", 1600), 0) << ir;
}

// The old array is read after the update, by the op that also reads the
// new one: the update must go to a buffer of its own.
TEST(WhileInPlaceTest, OldArrayReadAfterUpdateCopies) {
  const std::string text = R"(
HloModule old_read
or_cond {
  cs = (s32[], f32[6,4]) parameter(0)
  ci = s32[] get-tuple-element(cs), index=0
  cn = s32[] constant(6)
  ROOT clt = pred[] compare(ci, cn), direction=LT
}
or_body {
  bs = (s32[], f32[6,4]) parameter(0)
  bi = s32[] get-tuple-element(bs), index=0
  bys = f32[6,4] get-tuple-element(bs), index=1
  bone = s32[] constant(1)
  bi1 = s32[] add(bi, bone)
  bf = f32[] convert(bi1)
  brow = f32[1,4] broadcast(bf), dimensions={}
  bzero = s32[] constant(0)
  bys1 = f32[6,4] dynamic-update-slice(bys, brow, bi, bzero)
  bsum = f32[6,4] add(bys1, bys)
  ROOT bt = (s32[], f32[6,4]) tuple(bi1, bsum)
}
ENTRY main {
  x = f32[6,4] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[6,4]) tuple(zero, x)
  ROOT w = (s32[], f32[6,4]) while(init), condition=or_cond, body=or_body
}
)";
  EXPECT_TRUE(CheckAgainstEvaluator(text).empty());
  EXPECT_FALSE(absl::StrContains(Ir(text), ".in_place("));
}

// The old array is also returned (as another state leaf): the update must
// not overwrite it, and the new state is copied back.
TEST(WhileInPlaceTest, OldArrayReturnedCopies) {
  const std::string text = R"(
HloModule old_returned
rt_cond {
  cs = (s32[], f32[6,4], f32[6,4]) parameter(0)
  ci = s32[] get-tuple-element(cs), index=0
  cn = s32[] constant(6)
  ROOT clt = pred[] compare(ci, cn), direction=LT
}
rt_body {
  bs = (s32[], f32[6,4], f32[6,4]) parameter(0)
  bi = s32[] get-tuple-element(bs), index=0
  bys = f32[6,4] get-tuple-element(bs), index=1
  bone = s32[] constant(1)
  bi1 = s32[] add(bi, bone)
  bf = f32[] convert(bi1)
  brow = f32[1,4] broadcast(bf), dimensions={}
  bzero = s32[] constant(0)
  bys1 = f32[6,4] dynamic-update-slice(bys, brow, bi, bzero)
  ROOT bt = (s32[], f32[6,4], f32[6,4]) tuple(bi1, bys1, bys)
}
ENTRY main {
  x = f32[6,4] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[6,4], f32[6,4]) tuple(zero, x, x)
  ROOT w = (s32[], f32[6,4], f32[6,4]) while(init), condition=rt_cond, body=rt_body
}
)";
  EXPECT_TRUE(CheckAgainstEvaluator(text).empty());
  const std::string ir = Ir(text);
  EXPECT_FALSE(absl::StrContains(ir, ".in_place("));
  EXPECT_GT(BodyCopies(ir, "hloc.w", 96), 0) << ir;
}

// A reduction of the old array that post order puts after the update: the
// body's order moves the update after it, and the update stays in place.
TEST(WhileInPlaceTest, EarlierReaderOfOldArrayKeepsUpdateInPlace) {
  const std::string text = R"(
HloModule reader
rd_cond {
  cs = (s32[], f32[], f32[6,4]) parameter(0)
  ci = s32[] get-tuple-element(cs), index=0
  cn = s32[] constant(6)
  ROOT clt = pred[] compare(ci, cn), direction=LT
}
rd_add {
  ra = f32[] parameter(0)
  rb = f32[] parameter(1)
  ROOT rs = f32[] add(ra, rb)
}
rd_body {
  bs = (s32[], f32[], f32[6,4]) parameter(0)
  bi = s32[] get-tuple-element(bs), index=0
  bys = f32[6,4] get-tuple-element(bs), index=2
  bone = s32[] constant(1)
  bi1 = s32[] add(bi, bone)
  bf = f32[] convert(bi1)
  brow = f32[1,4] broadcast(bf), dimensions={}
  bzero = s32[] constant(0)
  bys1 = f32[6,4] dynamic-update-slice(bys, brow, bi, bzero)
  bfz = f32[] constant(0)
  btotal = f32[] reduce(bys, bfz), dimensions={0,1}, to_apply=rd_add
  ROOT bt = (s32[], f32[], f32[6,4]) tuple(bi1, btotal, bys1)
}
ENTRY main {
  x = f32[6,4] parameter(0)
  zero = s32[] constant(0)
  fz = f32[] constant(0)
  init = (s32[], f32[], f32[6,4]) tuple(zero, fz, x)
  ROOT w = (s32[], f32[], f32[6,4]) while(init), condition=rd_cond, body=rd_body
}
)";
  EXPECT_TRUE(CheckAgainstEvaluator(text).empty());
  const std::string ir = Ir(text);
  EXPECT_TRUE(absl::StrContains(ir, "@hloc.w.body.bys1.in_place("));
  EXPECT_EQ(BodyCopies(ir, "hloc.w", 96), 0) << ir;
}

// An inner scan stacks rows into its own array; the outer loop stacks
// the inner results into its array. Both updates are in place.
TEST(WhileInPlaceTest, NestedScans) {
  const std::string text = R"(
HloModule nested
in_cond {
  ics = (s32[], f32[4], f32[5,4]) parameter(0)
  ici = s32[] get-tuple-element(ics), index=0
  icn = s32[] constant(5)
  ROOT iclt = pred[] compare(ici, icn), direction=LT
}
in_body {
  ibs = (s32[], f32[4], f32[5,4]) parameter(0)
  ibi = s32[] get-tuple-element(ibs), index=0
  ibc = f32[4] get-tuple-element(ibs), index=1
  ibys = f32[5,4] get-tuple-element(ibs), index=2
  ibone = s32[] constant(1)
  ibi1 = s32[] add(ibi, ibone)
  ibc1 = f32[4] cosine(ibc)
  ibrow = f32[1,4] reshape(ibc1)
  ibzero = s32[] constant(0)
  ibys1 = f32[5,4] dynamic-update-slice(ibys, ibrow, ibi, ibzero)
  ROOT ibt = (s32[], f32[4], f32[5,4]) tuple(ibi1, ibc1, ibys1)
}
out_cond {
  ocs = (s32[], f32[4], f32[3,5,4]) parameter(0)
  oci = s32[] get-tuple-element(ocs), index=0
  ocn = s32[] constant(3)
  ROOT oclt = pred[] compare(oci, ocn), direction=LT
}
out_body {
  obs = (s32[], f32[4], f32[3,5,4]) parameter(0)
  obi = s32[] get-tuple-element(obs), index=0
  obc = f32[4] get-tuple-element(obs), index=1
  obys = f32[3,5,4] get-tuple-element(obs), index=2
  obone = s32[] constant(1)
  obi1 = s32[] add(obi, obone)
  obzero = s32[] constant(0)
  ofz = f32[] constant(0)
  oinner_ys = f32[5,4] broadcast(ofz), dimensions={}
  oinit = (s32[], f32[4], f32[5,4]) tuple(obzero, obc, oinner_ys)
  inner = (s32[], f32[4], f32[5,4]) while(oinit), condition=in_cond, body=in_body
  oc1 = f32[4] get-tuple-element(inner), index=1
  oys = f32[5,4] get-tuple-element(inner), index=2
  oblock = f32[1,5,4] reshape(oys)
  obys1 = f32[3,5,4] dynamic-update-slice(obys, oblock, obi, obzero, obzero)
  ROOT obt = (s32[], f32[4], f32[3,5,4]) tuple(obi1, oc1, obys1)
}
ENTRY main {
  x = f32[4] parameter(0)
  zero = s32[] constant(0)
  fz = f32[] constant(0)
  ys = f32[3,5,4] broadcast(fz), dimensions={}
  init = (s32[], f32[4], f32[3,5,4]) tuple(zero, x, ys)
  ROOT w = (s32[], f32[4], f32[3,5,4]) while(init), condition=out_cond, body=out_body
}
)";
  EXPECT_TRUE(CheckAgainstEvaluator(text).empty());
  const std::string ir = Ir(text);
  EXPECT_TRUE(absl::StrContains(ir, ".inner.body.ibys1.in_place("));
  EXPECT_TRUE(absl::StrContains(ir, "@hloc.w.body.obys1.in_place("));
  EXPECT_EQ(BodyCopies(ir, "hloc.w", 240), 0) << ir;
}

// Tuple state whose leaves alias: one array given as two state leaves,
// one updated in place and returned twice, the other passed through; and
// two arrays swapped around an update.
TEST(WhileInPlaceTest, TupleStateWithAliasingLeaves) {
  const std::string text = R"(
HloModule aliasing
al_cond {
  cs = (s32[], f32[6,4], f32[6,4], f32[6,4], f32[6,4]) parameter(0)
  ci = s32[] get-tuple-element(cs), index=0
  cn = s32[] constant(5)
  ROOT clt = pred[] compare(ci, cn), direction=LT
}
al_body {
  bs = (s32[], f32[6,4], f32[6,4], f32[6,4], f32[6,4]) parameter(0)
  bi = s32[] get-tuple-element(bs), index=0
  ba = f32[6,4] get-tuple-element(bs), index=1
  bb = f32[6,4] get-tuple-element(bs), index=2
  bc = f32[6,4] get-tuple-element(bs), index=3
  bd = f32[6,4] get-tuple-element(bs), index=4
  bone = s32[] constant(1)
  bi1 = s32[] add(bi, bone)
  bf = f32[] convert(bi1)
  brow = f32[1,4] broadcast(bf), dimensions={}
  bzero = s32[] constant(0)
  ba1 = f32[6,4] dynamic-update-slice(ba, brow, bi, bzero)
  bc1 = f32[6,4] dynamic-update-slice(bc, brow, bzero, bzero)
  ROOT bt = (s32[], f32[6,4], f32[6,4], f32[6,4], f32[6,4]) tuple(bi1, ba1, ba1, bd, bc1)
}
ENTRY main {
  x = f32[6,4] parameter(0)
  y = f32[6,4] parameter(1)
  zero = s32[] constant(0)
  init = (s32[], f32[6,4], f32[6,4], f32[6,4], f32[6,4]) tuple(zero, x, x, y, x)
  ROOT w = (s32[], f32[6,4], f32[6,4], f32[6,4], f32[6,4]) while(init), condition=al_cond, body=al_body
}
)";
  EXPECT_TRUE(CheckAgainstEvaluator(text).empty());
}

// A loop fusion rooted at the update, as the cpu pipeline makes them (the
// row computed inside the fusion).
TEST(WhileInPlaceTest, FusedUpdateInPlace) {
  const std::string text = R"(
HloModule fused
fu_fused {
  fp0 = f32[8] parameter(0)
  fp1 = f32[50,8] parameter(1)
  fp2 = s32[] parameter(2)
  fneg = f32[8] negate(fp0)
  frow = f32[1,8] reshape(fneg)
  fzero = s32[] constant(0)
  ROOT fdus = f32[50,8] dynamic-update-slice(fp1, frow, fp2, fzero)
}
fu_cond {
  cs = (s32[], f32[8], f32[50,8]) parameter(0)
  ci = s32[] get-tuple-element(cs), index=0
  cn = s32[] constant(50)
  ROOT clt = pred[] compare(ci, cn), direction=LT
}
fu_body {
  bs = (s32[], f32[8], f32[50,8]) parameter(0)
  bi = s32[] get-tuple-element(bs), index=0
  bc = f32[8] get-tuple-element(bs), index=1
  bys = f32[50,8] get-tuple-element(bs), index=2
  bone = s32[] constant(1)
  bi1 = s32[] add(bi, bone)
  bc1 = f32[8] sine(bc)
  bys1 = f32[50,8] fusion(bc1, bys, bi), kind=kLoop, calls=fu_fused
  ROOT bt = (s32[], f32[8], f32[50,8]) tuple(bi1, bc1, bys1)
}
ENTRY main {
  x = f32[8] parameter(0)
  ys = f32[50,8] parameter(1)
  zero = s32[] constant(0)
  init = (s32[], f32[8], f32[50,8]) tuple(zero, x, ys)
  ROOT w = (s32[], f32[8], f32[50,8]) while(init), condition=fu_cond, body=fu_body
}
)";
  EXPECT_TRUE(CheckAgainstEvaluator(text).empty());
  const std::string ir = Ir(text);
  EXPECT_TRUE(absl::StrContains(ir, "@hloc.w.body.bys1.in_place("));
  EXPECT_EQ(BodyCopies(ir, "hloc.w", 1600), 0) << ir;
}

// A branch updates its parameter, which the caller still reads: the
// branch's operand is not the conditional's to overwrite.
TEST(WhileInPlaceTest, ConditionalBranchDoesNotUpdateItsOperand) {
  const std::string text = R"(
HloModule branch
br0 {
  p0 = f32[6,4] parameter(0)
  r0 = f32[1,4] constant({{1, 2, 3, 4}})
  z0 = s32[] constant(2)
  ROOT u0 = f32[6,4] dynamic-update-slice(p0, r0, z0, z0)
}
br1 {
  p1 = f32[6,4] parameter(0)
  ROOT n1 = f32[6,4] negate(p1)
}
ENTRY main {
  i = s32[] parameter(0)
  x = f32[6,4] parameter(1)
  c = f32[6,4] conditional(i, x, x), branch_computations={br0, br1}
  ROOT t = (f32[6,4], f32[6,4]) tuple(c, x)
}
)";
  for (int32_t index : {0, 1}) {
    std::vector<Literal> args;
    args.push_back(Literal::CreateR0<int32_t>(S32, index));
    args.push_back(testing_util::MakeOpInput(Shape::Array(F32, {6, 4}), 3));
    EXPECT_TRUE(CheckAgainstEvaluator(text, std::move(args)).empty());
  }
}

// Outside a loop too: an update of an intermediate that dies there is
// placed in it by the entry's buffer plan, and its step's kernel stores
// only the row.
TEST(WhileInPlaceTest, EntryUpdateOfIntermediateInPlace) {
  const std::string text = R"(
HloModule entry_update
ENTRY main {
  x = f32[40,16] parameter(0)
  r = f32[1,16] parameter(1)
  i = s32[] parameter(2)
  z = s32[] constant(0)
  e = f32[40,16] exponential(x)
  d = f32[40,16] dynamic-update-slice(e, r, i, z)
  ROOT n = f32[40,16] negate(d)
}
)";
  for (int32_t row : {0, 17, 39, 100, -3}) {
    std::vector<Literal> args;
    args.push_back(testing_util::MakeOpInput(Shape::Array(F32, {40, 16}), 1));
    args.push_back(testing_util::MakeOpInput(Shape::Array(F32, {1, 16}), 2));
    args.push_back(Literal::CreateR0<int32_t>(S32, row));
    EXPECT_TRUE(CheckAgainstEvaluator(text, std::move(args)).empty());
  }
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseHloModule(text, "test");
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<std::unique_ptr<CpuExecutable>> executable =
      CompileForCpu(**module);
  ASSERT_TRUE(executable.ok()) << executable.status();
  int in_place = 0;
  for (const CpuStep& step : (*executable)->steps()) {
    in_place += step.kernel_name == "hloc.d.in_place";
  }
  EXPECT_EQ(in_place, 1);
}

}  // namespace
}  // namespace hloc
