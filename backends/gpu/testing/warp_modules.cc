#include "backends/gpu/testing/warp_modules.h"

namespace hloc {

const std::vector<std::pair<std::string, std::string>>& WarpModules() {
  static const auto* modules =
      new std::vector<std::pair<std::string, std::string>>{
          {"short_rows", R"(
HloModule short_rows
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[37,300] parameter(0)
  zero = f32[] constant(0)
  ROOT r = f32[37] reduce(x, zero), dimensions={1}, to_apply=add
})"},
          // Rows of 16 runs: 16-lane groups, the last warp half past the
          // end on 32-lane warps (37 rows).
          {"short_rows_lane_groups", R"(
HloModule short_rows_lane_groups
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[37,64] parameter(0)
  zero = f32[] constant(0)
  ROOT r = f32[37] reduce(x, zero), dimensions={1}, to_apply=add
})"},
          // bf16 rows of 3 runs of 8 (4-lane groups), an odd row count of
          // 5 runs of one s32 (8-lane groups), and a variadic argmax over
          // rows of 3 runs (two accumulators shuffled per step).
          {"tiny_rows", R"(
HloModule tiny_rows
max {
  a = bf16[] parameter(0)
  b = bf16[] parameter(1)
  ROOT m = bf16[] maximum(a, b)
}
add {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] add(a, b)
}
argmax {
  av = f32[] parameter(0)
  ai = s32[] parameter(1)
  bv = f32[] parameter(2)
  bi = s32[] parameter(3)
  gt = pred[] compare(av, bv), direction=GT
  eq = pred[] compare(av, bv), direction=EQ
  lt = pred[] compare(ai, bi), direction=LT
  tie = pred[] and(eq, lt)
  take_a = pred[] or(gt, tie)
  v = f32[] select(take_a, av, bv)
  i = s32[] select(take_a, ai, bi)
  ROOT r = (f32[], s32[]) tuple(v, i)
}
ENTRY main {
  x = bf16[45,24] parameter(0)
  y = s32[33,5] parameter(1)
  z = f32[19,12] parameter(2)
  ninf = bf16[] constant(-inf)
  zero = s32[] constant(0)
  m = bf16[45] reduce(x, ninf), dimensions={1}, to_apply=max
  s = s32[33] reduce(y, zero), dimensions={1}, to_apply=add
  iota = s32[19,12] iota(), iota_dimension=1
  fninf = f32[] constant(-inf)
  am = (f32[19], s32[19]) reduce(z, iota, fninf, zero), dimensions={1}, to_apply=argmax
  v = f32[19] get-tuple-element(am), index=0
  i = s32[19] get-tuple-element(am), index=1
  ROOT r = (bf16[45], s32[33], f32[19], s32[19]) tuple(m, s, v, i)
})"},
          // 8-bit floats on the GPU: converts both ways (every format
          // kind: IEEE-like e5m2, e4m3fn, fnuz), arithmetic that
          // float8-normalization computes in f32, and a max reduction over
          // f8 rows (order-independent, so exact against the evaluator).
          {"float8", R"(
HloModule float8
max {
  a = f8e4m3fn[] parameter(0)
  b = f8e4m3fn[] parameter(1)
  ROOT m = f8e4m3fn[] maximum(a, b)
}
ENTRY main {
  x = f32[37,64] parameter(0)
  s = f32[] constant(300)
  sb = f32[37,64] broadcast(s), dimensions={}
  big = f32[37,64] multiply(x, sb)
  q = f8e4m3fn[37,64] convert(big)
  e = f8e5m2[37,64] convert(big)
  z = f8e4m3fnuz[37,64] convert(x)
  sum = f8e4m3fn[37,64] add(q, q)
  ninf = f8e4m3fn[] constant(-448)
  m = f8e4m3fn[37] reduce(q, ninf), dimensions={1}, to_apply=max
  back = f32[37,64] convert(e)
  ROOT r = (f8e4m3fn[37,64], f32[37,64], f8e4m3fnuz[37,64], f8e4m3fn[37,64], f8e4m3fn[37]) tuple(q, back, z, sum, m)
})"},
          {"long_rows", R"(
HloModule long_rows
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[3,5001] parameter(0)
  zero = f32[] constant(0)
  ROOT r = f32[3] reduce(x, zero), dimensions={1}, to_apply=add
})"},
          {"long_rows_f64_max", R"(
HloModule long_rows_f64_max
max {
  a = f64[] parameter(0)
  b = f64[] parameter(1)
  ROOT m = f64[] maximum(a, b)
}
ENTRY main {
  x = f64[2,3001] parameter(0)
  ninf = f64[] constant(-inf)
  ROOT r = f64[2] reduce(x, ninf), dimensions={1}, to_apply=max
})"},
          {"columns", R"(
HloModule columns
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[301,133] parameter(0)
  zero = f32[] constant(0)
  ROOT r = f32[133] reduce(x, zero), dimensions={0}, to_apply=add
})"},
          {"softmax", R"(
HloModule softmax
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[5,4096] parameter(0)
  ninf = f32[] constant(-inf)
  zero = f32[] constant(0)
  m = f32[5] reduce(x, ninf), dimensions={1}, to_apply=max
  mb = f32[5,4096] broadcast(m), dimensions={0}
  d = f32[5,4096] subtract(x, mb)
  e = f32[5,4096] exponential(d)
  s = f32[5] reduce(e, zero), dimensions={1}, to_apply=add
  sb = f32[5,4096] broadcast(s), dimensions={0}
  ROOT r = f32[5,4096] divide(e, sb)
})"},
          // RMSNorm then a rotary embedding (4 heads of 64), as JAX lowers
          // it: the halves of each head are sliced, rotated and
          // concatenated (by a loop fusion after the row fusion).
          {"rmsnorm_rotary", R"(
HloModule rmsnorm_rotary
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = bf16[2,5,256] parameter(0)
  w = f32[256] parameter(1)
  xf = f32[2,5,256] convert(x)
  sq = f32[2,5,256] multiply(xf, xf)
  zero = f32[] constant(0)
  ss = f32[2,5] reduce(sq, zero), dimensions={2}, to_apply=add
  n = f32[] constant(256)
  nb = f32[2,5] broadcast(n), dimensions={}
  mean = f32[2,5] divide(ss, nb)
  eps = f32[] constant(1e-06)
  eb = f32[2,5] broadcast(eps), dimensions={}
  me = f32[2,5] add(mean, eb)
  r = f32[2,5] rsqrt(me)
  rb = f32[2,5,256] broadcast(r), dimensions={0,1}
  xn = f32[2,5,256] multiply(xf, rb)
  wb = f32[2,5,256] broadcast(w), dimensions={2}
  y = f32[2,5,256] multiply(xn, wb)
  h = f32[2,5,4,64] reshape(y)
  x1 = f32[2,5,4,32] slice(h), slice={[0:2], [0:5], [0:4], [0:32]}
  x2 = f32[2,5,4,32] slice(h), slice={[0:2], [0:5], [0:4], [32:64]}
  pos = f32[5] iota(), iota_dimension=0
  k = f32[32] iota(), iota_dimension=0
  step = f32[] constant(-0.2878231)
  stepb = f32[32] broadcast(step), dimensions={}
  e = f32[32] multiply(k, stepb)
  freq = f32[32] exponential(e)
  posb = f32[5,32] broadcast(pos), dimensions={0}
  freqb = f32[5,32] broadcast(freq), dimensions={1}
  angle = f32[5,32] multiply(posb, freqb)
  c = f32[5,32] cosine(angle)
  sn = f32[5,32] sine(angle)
  cb = f32[2,5,4,32] broadcast(c), dimensions={1,3}
  sb = f32[2,5,4,32] broadcast(sn), dimensions={1,3}
  x1c = f32[2,5,4,32] multiply(x1, cb)
  x2s = f32[2,5,4,32] multiply(x2, sb)
  a1 = f32[2,5,4,32] subtract(x1c, x2s)
  x1s = f32[2,5,4,32] multiply(x1, sb)
  x2c = f32[2,5,4,32] multiply(x2, cb)
  a2 = f32[2,5,4,32] add(x1s, x2c)
  cat = f32[2,5,4,64] concatenate(a1, a2), dimensions={3}
  ROOT out = f32[2,5,256] reshape(cat)
})"},
          // A row fusion whose outputs read each row at other positions
          // through a transpose, a reverse and a pad within the rows.
          {"row_pieces", R"(
HloModule row_pieces
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
ENTRY main {
  x = f32[7,48] parameter(0)
  ninf = f32[] constant(-inf)
  m = f32[7] reduce(x, ninf), dimensions={1}, to_apply=max
  mb = f32[7,48] broadcast(m), dimensions={0}
  d = f32[7,48] subtract(x, mb)
  d3 = f32[7,6,8] reshape(d)
  t = f32[7,8,6] transpose(d3), dimensions={0,2,1}
  tf = f32[7,48] reshape(t)
  rv = f32[7,48] reverse(d), dimensions={1}
  sl = f32[7,40] slice(d), slice={[0:7], [4:44]}
  zero = f32[] constant(0)
  pd = f32[7,48] pad(sl, zero), padding=0_0x2_6
  s1 = f32[7,48] add(tf, rv)
  ROOT o = f32[7,48] add(s1, pd)
})"},
          // A row fusion reading parameters in layouts other than the
          // row-major one of its rows ({0,2,1}: rows strided, {0,1}: a
          // transposed matrix): each is read at its own offsets, not at
          // the rows' linear positions (the differential fuzzer's case
          // 109 read {0,2,1} as row-major on the H200).
          {"row_fusion_param_layouts", R"(
HloModule row_fusion_param_layouts
max {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT m = s32[] maximum(a, b)
}
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = s32[3,1,40]{0,2,1} parameter(0)
  y = s32[120] parameter(1)
  yr = s32[3,1,40] reshape(y)
  n = s32[3,1,40] not(yr)
  o = s32[3,1,40] or(x, n)
  a = s32[3,1,40] abs(o)
  low = s32[] constant(-2147483648)
  r = s32[3,1] reduce(a, low), dimensions={2}, to_apply=max
  t = f32[6,70]{0,1} parameter(2)
  e = f32[6,70] exponential(t)
  zero = f32[] constant(0)
  sum = f32[6] reduce(e, zero), dimensions={1}, to_apply=add
  sb = f32[6,70] broadcast(sum), dimensions={0}
  sm = f32[6,70] divide(e, sb)
  ROOT out = (s32[3,1], f32[6,70]) tuple(r, sm)
})"},
          // A row reduction's epilogue multiplied by a concatenate of one
          // value per row (an iota and a broadcast, fused in after the row
          // fusion formed): computed per row, not walked as a concatenate
          // hero of the rows' pieces, which wrote zeros (the differential
          // fuzzer's case diff-255 on the H100, session 32).
          {"row_fusion_per_row_concatenate", R"(
HloModule row_fusion_per_row_concatenate
max {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT m = s32[] maximum(a, b)
}
ENTRY main {
  x = s32[5,1,5] parameter(0)
  low = s32[] constant(-2147483648)
  r = s32[5] reduce(x, low), dimensions={1,2}, to_apply=max
  i = s32[2] iota(), iota_dimension=0
  seven = s32[] constant(7)
  b = s32[3] broadcast(seven), dimensions={}
  c = s32[5] concatenate(i, b), dimensions={0}
  ROOT out = s32[5] multiply(r, c)
})"},
          // Reductions tree-reduction splits though their inputs are under
          // 4 Mi elements (one block would read them all), their extents
          // padded with the init to a multiple of the split: a scalar sum
          // and max of 300007 values, a column sum of 8193 rows.
          {"odd_split_reductions", R"(
HloModule odd_split_reductions
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
ENTRY main {
  x = f32[300007] parameter(0)
  c = f32[8193,40] parameter(1)
  zero = f32[] constant(0)
  ninf = f32[] constant(-inf)
  sum = f32[] reduce(x, zero), dimensions={0}, to_apply=add
  top = f32[] reduce(x, ninf), dimensions={0}, to_apply=max
  cols = f32[40] reduce(c, zero), dimensions={0}, to_apply=add
  ROOT out = (f32[], f32[], f32[40]) tuple(sum, top, cols)
})"},
          // Triangular solves as the GPU pipelines expand them: the
          // triangle's inverse by recursive doubling (products of small
          // blocks as reductions, larger ones as dots) and one dot, no
          // loop. A dominant diagonal and small unit-triangular entries
          // keep the random systems well conditioned.
          {"triangular_solves", R"(
HloModule triangular_solves
ENTRY main {
  p = f32[40,40] parameter(0)
  b = f32[40,3] parameter(1)
  q = f32[2,20,20] parameter(2)
  c = f32[2,5,20] parameter(3)
  r = s32[40,40] iota(), iota_dimension=0
  k = s32[40,40] iota(), iota_dimension=1
  eye = pred[40,40] compare(r, k), direction=EQ
  eight = f32[] constant(8)
  eights = f32[40,40] broadcast(eight), dimensions={}
  zero = f32[] constant(0)
  zeros = f32[40,40] broadcast(zero), dimensions={}
  d = f32[40,40] select(eye, eights, zeros)
  a = f32[40,40] add(p, d)
  x = f32[40,3] triangular-solve(a, b), left_side=true, lower=true, transpose_a=NO_TRANSPOSE
  tenth = f32[] constant(0.1)
  tenths = f32[2,20,20] broadcast(tenth), dimensions={}
  u = f32[2,20,20] multiply(q, tenths)
  y = f32[2,5,20] triangular-solve(u, c), left_side=false, lower=false, unit_diagonal=true, transpose_a=TRANSPOSE
  ROOT out = (f32[40,3], f32[2,5,20]) tuple(x, y)
})"},
          // Column reductions of few columns, several rows packed into a
          // warp (launch_dims.h): 6 columns of 16 rows (fewer rows than
          // the packed row groups), 5 of 1000, and 3 of 100 per outer
          // index; an argmax over 7 columns.
          {"narrow_columns", R"(
HloModule narrow_columns
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[16,6] parameter(0)
  y = f32[1000,5] parameter(1)
  z = f32[3,100,3] parameter(2)
  zero = f32[] constant(0)
  rx = f32[6] reduce(x, zero), dimensions={0}, to_apply=add
  ry = f32[5] reduce(y, zero), dimensions={0}, to_apply=add
  rz = f32[3,3] reduce(z, zero), dimensions={1}, to_apply=add
  ROOT out = (f32[6], f32[5], f32[3,3]) tuple(rx, ry, rz)
})"},
          {"argmax", R"(
HloModule argmax
argmax {
  av = f32[] parameter(0)
  ai = s32[] parameter(1)
  bv = f32[] parameter(2)
  bi = s32[] parameter(3)
  gt = pred[] compare(av, bv), direction=GT
  eq = pred[] compare(av, bv), direction=EQ
  lt = pred[] compare(ai, bi), direction=LT
  tie = pred[] and(eq, lt)
  take_a = pred[] or(gt, tie)
  v = f32[] select(take_a, av, bv)
  i = s32[] select(take_a, ai, bi)
  ROOT r = (f32[], s32[]) tuple(v, i)
}
ENTRY main {
  x = f32[9,777] parameter(0)
  iota = s32[9,777] iota(), iota_dimension=1
  ninf = f32[] constant(-inf)
  zero = s32[] constant(0)
  ROOT r = (f32[9], s32[9]) reduce(x, iota, ninf, zero), dimensions={1}, to_apply=argmax
})"},
          {"cumsum", R"(
HloModule cumsum
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[6,1000] parameter(0)
  zero = f32[] constant(0)
  ROOT r = f32[6,1000] reduce-window(x, zero), window={size=1x1000 pad=0_0x999_0}, to_apply=add
})"},
          // Rows too few to keep the device's warps busy, cut into
          // segments of a warp each (launch_dims.h, RowScanLaunch): three
          // kernels per scan. Forward f32 and s32 sums, a reverse s64
          // maximum; every row's last segment is shorter. Also run for
          // cuda by row_scan_simt_test.
          {"split_row_scans", R"(
HloModule split_row_scans
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
imax {
  a = s64[] parameter(0)
  b = s64[] parameter(1)
  ROOT m = s64[] maximum(a, b)
}
iadd {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] add(a, b)
}
ENTRY main {
  x = f32[2,20000] parameter(0)
  y = s64[9001] parameter(1)
  z = s32[3,50001] parameter(2)
  zero = f32[] constant(0)
  lowest = s64[] constant(-9223372036854775808)
  izero = s32[] constant(0)
  sums = f32[2,20000] reduce-window(x, zero), window={size=1x20000 pad=0_0x19999_0}, to_apply=add
  maxes = s64[9001] reduce-window(y, lowest), window={size=9001 pad=0_9000}, to_apply=imax
  counts = s32[3,50001] reduce-window(z, izero), window={size=1x50001 pad=0_0x50000_0}, to_apply=iadd
  ROOT out = (f32[2,20000], s64[9001], s32[3,50001]) tuple(sums, maxes, counts)
})"},
          {"reverse_cumsum", R"(
HloModule reverse_cumsum
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[4,333] parameter(0)
  zero = f32[] constant(0)
  ROOT r = f32[4,333] reduce-window(x, zero), window={size=1x333 pad=0_0x0_332}, to_apply=add
})"},
          // lax.cumlogsumexp's reducer (a log-add-exp of several ops, NaN
          // guarded): reduce-window-to-scan makes it a scan not marked
          // associative, each row walked in order by one thread.
          {"cumlogsumexp", R"(
HloModule cumlogsumexp
logaddexp {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  d = f32[] subtract(a, b)
  nan = pred[] compare(d, d), direction=NE
  sum = f32[] add(a, b)
  m = f32[] maximum(a, b)
  ad = f32[] abs(d)
  nd = f32[] negate(ad)
  e = f32[] exponential(nd)
  l = f32[] log-plus-one(e)
  r = f32[] add(m, l)
  ROOT s = f32[] select(nan, sum, r)
}
ENTRY main {
  x = f32[5,300] parameter(0)
  ninf = f32[] constant(-inf)
  ROOT r = f32[5,300] reduce-window(x, ninf), window={size=1x300 pad=0_0x299_0}, to_apply=logaddexp
})"},
          // Scans down columns that a thread per column walks (its loads
          // issued a chunk at a time): a scan not marked associative (a
          // cumulative subtract) down 37 rows (two chunks of 16 and 5
          // more); a reverse sum down 24 rows and a maximum down 16 (one
          // whole chunk) with a doubling fused into its input, both too
          // short to split along their length (launch_dims.h:
          // ColumnScanLaunch).
          {"column_scans", R"(
HloModule column_scans
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
sub {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] subtract(a, b)
}
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
ENTRY main {
  x = f32[37,5] parameter(0)
  w = f32[24,5] parameter(1)
  y = f32[16,70] parameter(2)
  zero = f32[] constant(0)
  ninf = f32[] constant(-inf)
  two = f32[] constant(2)
  twos = f32[16,70] broadcast(two), dimensions={}
  y2 = f32[16,70] multiply(y, twos)
  down = f32[37,5] reduce-window(x, zero), window={size=37x1 pad=36_0x0_0}, to_apply=sub
  up = f32[24,5] reduce-window(w, zero), window={size=24x1 pad=0_23x0_0}, to_apply=add
  top = f32[16,70] reduce-window(y2, ninf), window={size=16x1 pad=15_0x0_0}, to_apply=max
  ROOT out = (f32[37,5], f32[24,5], f32[16,70]) tuple(down, up, top)
})"},
          // Scans down columns split along their length
          // (column_scan_emitter.cc): 300 rows are a whole chunk of 256
          // and 44 more (the last thread with rows holds 4 of its 8), 40
          // columns a whole tile and a partial one (8 of 32 or 64),
          // forward and reversed; a maximum along the middle dimension of
          // [3,100,20] (3 outer indices, 20 of a tile's columns, no whole
          // chunk); an s32 sum of a converted input down 64 rows (one whole
          // chunk, no partial one); a bf16 product; and a sum along the
          // major dimension of a column-major matrix. Two scans written as
          // such start from a carry other than the op's identity and
          // return their final carries (a reduce-window has neither).
          {"split_column_scans", R"(
HloModule split_column_scans
add_body {
  x = f32[40] parameter(0)
  c = f32[40] parameter(1)
  s = f32[40] add(c, x)
  ROOT t = (f32[40], f32[40]) tuple(s, s)
}
max_body {
  x = f32[3,20] parameter(0)
  c = f32[3,20] parameter(1)
  m = f32[3,20] maximum(x, c)
  ROOT t = (f32[3,20], f32[3,20]) tuple(m, m)
}
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
iadd {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] add(a, b)
}
bmul {
  a = bf16[] parameter(0)
  b = bf16[] parameter(1)
  ROOT m = bf16[] multiply(a, b)
}
ENTRY main {
  x = f32[300,40] parameter(0)
  y = f32[3,100,20] parameter(1)
  z = f32[64,7] parameter(2)
  p = bf16[50,9] parameter(3)
  t = f32[40,120]{0,1} parameter(4)
  c = f32[40] parameter(5)
  d = f32[3,20] parameter(6)
  zero = f32[] constant(0)
  ninf = f32[] constant(-inf)
  izero = s32[] constant(0)
  bone = bf16[] constant(1)
  down = f32[300,40] reduce-window(x, zero), window={size=300x1 pad=299_0x0_0}, to_apply=add
  up = f32[300,40] reduce-window(x, zero), window={size=300x1 pad=0_299x0_0}, to_apply=add
  mid = f32[3,100,20] reduce-window(y, ninf), window={size=1x100x1 pad=0_0x99_0x0_0}, to_apply=max
  zi = s32[64,7] convert(z)
  counts = s32[64,7] reduce-window(zi, izero), window={size=64x1 pad=63_0x0_0}, to_apply=iadd
  prod = bf16[50,9] reduce-window(p, bone), window={size=50x1 pad=49_0x0_0}, to_apply=bmul
  major = f32[40,120]{0,1} reduce-window(t, zero), window={size=1x120 pad=0_0x119_0}, to_apply=add
  sc = (f32[300,40], f32[40]) scan(x, c), dimensions={0}, num_carries=1, is_associative=true, to_apply=add_body
  sm = (f32[3,100,20], f32[3,20]) scan(y, d), dimensions={1}, num_carries=1, is_reverse=true, is_associative=true, to_apply=max_body
  ROOT out = (f32[300,40], f32[300,40], f32[3,100,20], s32[64,7], bf16[50,9], f32[40,120]{0,1}, (f32[300,40], f32[40]), (f32[3,100,20], f32[3,20])) tuple(down, up, mid, counts, prod, major, sc, sm)
})"},
          {"complex_rows_and_columns", R"(
HloModule complex_rows_and_columns
add64 {
  a = c64[] parameter(0)
  b = c64[] parameter(1)
  ROOT s = c64[] add(a, b)
}
mul128 {
  a = c128[] parameter(0)
  b = c128[] parameter(1)
  ROOT m = c128[] multiply(a, b)
}
ENTRY main {
  re = f32[5,1500] parameter(0)
  im = f32[5,1500] parameter(1)
  z = c64[5,1500] complex(re, im)
  zero = c64[] constant((0, 0))
  rows = c64[5] reduce(z, zero), dimensions={1}, to_apply=add64
  w = c128[5,1500] convert(z)
  one = c128[] constant((1, 0))
  cols = c128[1500] reduce(w, one), dimensions={0}, to_apply=mul128
  ROOT t = (c64[5], c128[1500]) tuple(rows, cols)
})"},
          // Transposes through shared tiles: 64-wide tiles of 2- and
          // 1-byte elements whose lanes take runs of two, with edge tiles
          // on both sides (70 and 130 are not multiples of 64), and a
          // full-tile bf16 case.
          {"transpose_bf16_edges", R"(
HloModule transpose_bf16_edges
ENTRY main {
  x = bf16[70,130] parameter(0)
  y = bf16[130,70] parameter(1)
  t = bf16[130,70] transpose(x), dimensions={1,0}
  ROOT r = bf16[130,70] add(t, y)
})"},
          {"transpose_bf16_full", R"(
HloModule transpose_bf16_full
ENTRY main {
  x = bf16[128,192] parameter(0)
  y = bf16[192,128] parameter(1)
  t = bf16[192,128] transpose(x), dimensions={1,0}
  ROOT r = bf16[192,128] multiply(t, y)
})"},
          // With one SM (wave_simt_test), the larger tiles large
          // transposes take (128 wide for bf16, 64 for f32), edges on both
          // sides: each side just past an odd multiple of the smaller
          // tile, so the larger pads the plane no more than it would.
          {"transpose_bf16_large_tiles", R"(
HloModule transpose_bf16_large_tiles
ENTRY main {
  x = bf16[250,500] parameter(0)
  y = bf16[500,250] parameter(1)
  t = bf16[500,250] transpose(x), dimensions={1,0}
  ROOT r = bf16[500,250] add(t, y)
})"},
          {"transpose_f32_large_tiles", R"(
HloModule transpose_f32_large_tiles
ENTRY main {
  x = f32[180,310] parameter(0)
  y = f32[310,180] parameter(1)
  t = f32[310,180] transpose(x), dimensions={1,0}
  ROOT r = f32[310,180] subtract(t, y)
})"},
          // A multi-output fusion whose transpose's source is an output
          // too (and an unrelated one of the source's shape): both written
          // in the tile's first walk, edges on both sides.
          {"transpose_with_source_outputs", R"(
HloModule transpose_with_source_outputs
fused {
  a = f32[130,70] parameter(0)
  b = f32[130,70] parameter(1)
  zero = f32[] constant(0)
  zeros = f32[130,70] broadcast(zero), dimensions={}
  gt = pred[130,70] compare(a, zeros), direction=GT
  s = f32[130,70] select(gt, b, zeros)
  t = f32[70,130] transpose(s), dimensions={1,0}
  n = f32[130,70] negate(a)
  ROOT r = (f32[130,70], f32[70,130], f32[130,70]) tuple(s, t, n)
}
ENTRY main {
  a = f32[130,70] parameter(0)
  b = f32[130,70] parameter(1)
  ROOT f = (f32[130,70], f32[70,130], f32[130,70]) fusion(a, b), kind=kLoop, calls=fused
})"},
          {"transpose_s8", R"(
HloModule transpose_s8
ENTRY main {
  x = s8[67,129] parameter(0)
  y = s8[129,67] parameter(1)
  t = s8[129,67] transpose(x), dimensions={1,0}
  ROOT r = s8[129,67] add(t, y)
})"},
      };
  return *modules;
}

const std::vector<std::pair<std::string, std::string>>& RadixSortModules() {
  static const auto* modules =
      new std::vector<std::pair<std::string, std::string>>{
          {"radix_sort_one_tile", R"(
HloModule radix_sort_one_tile
lt {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  c = s32[] parameter(2)
  d = s32[] parameter(3)
  ROOT lt = pred[] compare(a, b), direction=LT, type=TOTALORDER
}
ENTRY main {
  x = f32[3,1500] parameter(0)
  iota = s32[3,1500] iota(), iota_dimension=1
  s = (f32[3,1500], s32[3,1500]) sort(x, iota), dimensions={1}, is_stable=true, to_apply=lt
  k = f32[3,1500] get-tuple-element(s), index=0
  i = s32[3,1500] get-tuple-element(s), index=1
  ROOT t = (f32[3,1500], s32[3,1500]) tuple(k, i)
})"},
          {"radix_sort_two_tiles", R"(
HloModule radix_sort_two_tiles
gt {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  c = f32[] parameter(2)
  d = f32[] parameter(3)
  ROOT gt = pred[] compare(a, b), direction=GT
}
ENTRY main {
  x = s32[2,5000] parameter(0)
  y = f32[2,5000] parameter(1)
  s = (s32[2,5000], f32[2,5000]) sort(x, y), dimensions={1}, is_stable=true, to_apply=gt
  k = s32[2,5000] get-tuple-element(s), index=0
  v = f32[2,5000] get-tuple-element(s), index=1
  ROOT t = (s32[2,5000], f32[2,5000]) tuple(k, v)
})"},
      };
  return *modules;
}

}  // namespace hloc
