"""Zoo: programs from the sixteenth bug hunt, aimed at the edges of
lax/HLO semantics that real JAX code reaches: every primitive at unusual
types. Integers of every width (s8 to u64) through div and rem of
negatives, by zero and MIN / -1 (lax's and jnp's floor forms), clz and
popcount, integer powers that wrap, bitwise reductions by ufuncs and
lax.reduce_and/or/xor over several axes; bitcast_convert_type between
widths (adding and consuming a minor dimension: f32 <-> u8[4], u16[2] ->
f32, f64 -> s32[2], s8[8] -> u64, u64 -> f16[4]); reduce_precision to
formats both narrower and wider than the source; nextafter across zero,
to inf and with NaN in f64, f32, f16 and bf16; conversions float -> int
at every pair (saturation, NaN, -0.5, 2^63, 2^64), int -> float at the
rounding points (2^24 + 1, 2^53 + 1, the top bit of u64, to f16 and the
f8 types), and next to half way points, bit for bit; arithmetic and
cross-conversions of all seven f8 formats and of s4/u4; NaN and -0.0
through max/min/fmax/fmin, reductions, cummax/cummin, argmax/argmin,
nanargmax, clip, sort and stable argsort (ascending and descending),
unique with size and counts, searchsorted, in f16, bf16, f32 and f64;
lax.sort of five operands by two keys, stable, along a leading axis;
top_k ties in s8, bf16 (zeros of both signs), u64 past s64 and f64 with
-inf; scatters with duplicate, negative and out-of-bounds indices under
clip, drop and promise_in_bounds with add, mul, min, max and set, of 2x2
windows hanging past the edge, vmapped (batching dims); gathers with
operand_batching_dims not leading and clamped or filled starts;
dynamic_slice and dynamic_update_slice with start indices of s8, u8,
s16, u32, s64 and u64 (past s64), direct and vmapped; pads with negative
and interior padding on u16, bool, f16 and size-0 dimensions; strided
slices past the size, reverses and concatenations of size-0 s4 pieces;
iota, broadcast_in_dim and transposes of rank 5 to 7; reduce_window with
base and window dilation, strides and padding on three dims at once and
inits that are not the identity (s16 products too); max- and min-pool
gradients with ties, in bf16; convolutions with lhs and rhs dilation,
negative padding, feature groups, batch groups, a 1-D window larger than
its input, s8 accumulated in s32, f16 in f32, c64 and f64; dot_general
with two batch and two contracting dims out of order in f32, s8 (into s32
and wrapping in s8), u8, bf16, c128, s16 into s64 and bool; mixed
precision matmuls; cumulative sums, products, maxima, minima and
logsumexp reversed along inner axes (u8 and s16 wrapping, NaN in bf16);
rng_bit_generator's algorithms at sizes 0 and 1 and u8 to u64; rbg and
unsafe_rbg keys made inside jit and threefry with either counter layout;
a fori_loop carrying eleven arrays of ten types (c64, s4, u64, bool...)
with loop invariants; lax.switch over eleven branches, scalar (clamped
indices) and vmapped; zero-sized arrays through sorts, scans, dots with
an empty contraction, reductions with initial=, gathers and scatters
without indices, top_k with k = 0, pads and convolutions of nothing, a
while loop; scalars of every type; a million bytes and a 257-wide
strided reduction past the cpu's parallel split; [1,1,1,1] shapes;
lax.reduce with three operands of three types; complex division by zero
and inf, branch cuts with signed zeros, sorting, expm1/log1p at tiny;
rounding where f16 and bf16 integers are 2 apart; special functions at
their poles and edges; clamp with lo > hi and NaN bounds; bool
arithmetic, sorts, scans and dots; iota past what its type holds (u8
past 256, bf16 past 256, f16 past 2048); an fp8 training step with a
straight-through estimator; f16 and bf16 softmax and logaddexp with -inf.

Two bugs found and fixed. hloc converted f64 to the 8-bit floats (and
f4e2m1fn and f8e8m0fnu) by rounding to f32 first, on the grounds that f32
has more than twice their mantissa bits plus two -- which makes the
double rounding harmless for the results of +, -, *, / and sqrt of f8
values, not for an arbitrary f64. An f64 just past a half way point of
the format rounded onto it in f32 and then to even: 1 + 2^-4 + 2^-40
became 1 in f8e4m3fn (XLA:CPU: 1.125), 464 + 2^-40 became 448 (XLA:CPU:
NaN, past the largest value), and 1.5 - 2^-40 became 2 in f8e8m0fnu
(XLA:CPU: 1). The evaluator did the same (Float8(double)), so only
comparing with XLA showed it (convert_double_rounding; the tolerances of
f8 outputs hid all but the NaN, so the program also compares the bits).
Both now round the f64 to f32 by rounding to odd, which keeps it on its
side of every half way point of a narrower format (hlo/float8.h
F64ToF32RoundToOdd, backends/common/float8_convert.cc
EmitF64ToF32RoundToOdd; narrow_types_test Float8Test.F64RoundsOnce
against XLA:CPU's bits, cpu_test CpuElementwiseTest.
NarrowFloatsFromF64RoundOnce, the code generators against the
evaluator). f64 -> f16 and f64 -> bf16 still go through f32, as XLA:CPU
converts them (1 + 2^-11 + 2^-40 is 1 in f16 on both; the nearest is
1 + 2^-10).

A random program (below) found the second: a bf16 computed in a kernel,
bitcast to f16 and computed on, aborted the cuda compile in NVPTX's
instruction selection (LLVM ERROR: Cannot select: f16 = bitcast of a
bf16 fp_round) -- LLVM folds any integer detour back into the one
bitcast, so the emitter takes the bits from the bf16's fpext to f32,
which it keeps (tests/lit/gpu/bitcast_bf16_to_f16.hlo).

Found and left (fixed in the seventeenth hunt): hlo-run flushed the
evaluator's f32/f64 inputs' denormals before it ran (runtime/denormals.h),
where XLA:CPU flushes only what arithmetic reads, so
bitcast_changing_widths' bytes of 1e-40 and 1e-310 were 0 on the
evaluator and their bits on XLA:CPU and hloc's cpu.

XLA's, seen and reshaped around: XLA:CPU's iota of s4 does not wrap: a
lax.iota(int4, 20) converted to s8 is 0..19 there (HLO's s4 holds -8..7,
so 8 is -8, as hloc gives); iota_past_exact takes 8. XLA:CPU contracts a
complex multiply into FMAs, so (1e20 + 1e20j)^2 in c64 is (-inf, inf)
there and (nan, inf) in IEEE arithmetic, as hloc computes it; and it
computes f16 chains in f32 without rounding between (log(exp(-30)) in f16
is -30 there, -inf by HLO's types); the programs keep away from both.
bool_arith's float -> bool leaves out denormals (1e-45 is true on the
AArch64 target, which keeps them, and false on x86 XLA:CPU and hloc).

Every program matches XLA:CPU on the evaluator (but the one above), the
cpu (x86) and AArch64, compiles for cuda (sm_90), and 23 of them matched
on the simulated GPU (simt-run; f8_arith_every_format's 86-parameter
kernel is past the simulator's 64).
The random programs (a generator of lax compositions over every integer
width, the four float types and bool, with special values in the
inputs: elementwise ops, shifts, div/rem, casts to every type and f8,
same-width bitcasts, reduce_precision, reductions, cumulative ops,
sorts, argsorts, top_k, transposes, reverses, pads with negative and
interior padding, strided slices, reduce-windows with dilations,
dynamic slices and updates with indices of seven types, gathers and
scatters with duplicates, dots with wider accumulation, clamps, iotas):
700 ran on the evaluator and the cpu against XLA:CPU, and 140 of them
compiled for cuda (one hit the bf16 -> f16 bitcast above); 2 differed
from XLA:CPU, both XLA's. XLA's constant folder computes clz of a negative s32 as -32
(jax.jit(lambda: lax.clz(jnp.int32(-2**31)))() is -32; 0 from a
parameter, and in hloc). And XLA:CPU miscomputes one chain on u32 (a
concatenation of shift_left(convert(x)) and shift_left(reverse(convert(
x))) plus an iota, concatenated with its reverse, clamped and shifted
again, from f16 x with inf): its first half comes out reversed, where
every piece alone jitted is right and hloc's answer is the one worked by
hand (the smaller programs tried did not reproduce it).
"""

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from jax_harness import complexes, floats, ints, prng_key

_INTS = (np.int8, np.int16, np.int32, np.int64,
         np.uint8, np.uint16, np.uint32, np.uint64)
_FLOATS = (np.float16, jnp.bfloat16, np.float32, np.float64)
_HI = lax.Precision.HIGHEST


def _wrap(vals, dtype):
    """vals (Python ints, any sign or size) as dtype, wrapped modulo 2^n."""
    bits = np.iinfo(dtype).bits
    mask = (1 << bits) - 1
    out = []
    for v in vals:
        v &= mask
        if np.iinfo(dtype).min < 0 and v >> (bits - 1):
            v -= 1 << bits
        out.append(v)
    return np.array(out, dtype=dtype)


def _edge_ints(dtype):
    info = np.iinfo(dtype)
    return [info.min, info.min + 1, info.max, info.max - 1, -7, 7, -1, 0, 1,
            2, 5, -3, 100, -100, 3, 6]


# --- Integers at every width -------------------------------------------------

def int_div_rem_every_width(*pairs):
    # lax.div and lax.rem truncate toward zero; by zero they give -1 (all
    # ones) and the dividend, and MIN / -1 wraps to MIN with remainder 0.
    # jnp's floor_divide and remainder add their sign fix-ups around them.
    out = []
    for a, b in pairs:
        out += [lax.div(a, b), lax.rem(a, b)]
        nz = jnp.where(b == 0, jnp.ones_like(b), b)
        out += [jnp.floor_divide(a, nz), jnp.remainder(a, nz)]
    return out


def _div_inputs(r):
    pairs = []
    for dt in _INTS:
        a = _edge_ints(dt)
        b = [-1, 0, 0, 1, 2, -2, 0, -1, 0, 3, -3, 2, 7, -7, 5, -128]
        pairs.append((_wrap(a, dt), _wrap(b, dt)))
    return pairs


def clz_popcnt_every_width(*xs):
    # clz of 0 is the width; popcount of -1 is the width; both per type.
    return [(lax.clz(x), lax.population_count(x),
             lax.population_count(~x), lax.clz(x >> 1)) for x in xs]


def _edge_int_inputs(r):
    return [_wrap(_edge_ints(dt) + [int(v) for v in r.integers(-300, 300, 4)],
                  dt) for dt in _INTS]


def integer_pow_and_wrap(s8, u16, s64, e):
    # Integer powers wrap (integer_pow by constants, jnp.power by a vector
    # of exponents, a square-and-multiply loop); integer_pow by 0 is 1.
    return (lax.integer_pow(s8, 3), lax.integer_pow(s8, 0),
            lax.integer_pow(u16, 5), lax.integer_pow(s64, 7),
            jnp.power(s64, jnp.abs(e) % 9), s8 * s8 * s8,
            jnp.prod(s8), jnp.prod(u16), jnp.sum(s8), -s8, jnp.abs(s8),
            lax.neg(u16), jnp.sign(s8), jnp.sign(u16))


def reduce_bitwise_every_width(u64, s8, b, u16):
    # Bitwise reductions of ufuncs (reduce with and / or / xor) by axis.
    return (jnp.bitwise_xor.reduce(u64, axis=0),
            jnp.bitwise_and.reduce(u64, axis=1),
            jnp.bitwise_or.reduce(s8, axis=0), jnp.bitwise_xor.reduce(s8),
            jnp.bitwise_and.reduce(b, axis=1), jnp.bitwise_xor.reduce(b),
            jnp.bitwise_or.reduce(u16, axis=(0, 1)),
            jnp.max(u64, axis=0), jnp.min(s8, axis=1), jnp.argmin(u64, axis=0),
            jnp.argmax(u16, axis=1))


# --- Bits of floats ----------------------------------------------------------

def bitcast_changing_widths(f32, u16, f64, s8, bf, u64):
    # bitcast_convert_type to a narrower type adds a minor dimension; to a
    # wider one consumes it.
    a = lax.bitcast_convert_type(f32, jnp.uint8)          # [3,4] -> [3,4,4]
    b = lax.bitcast_convert_type(a, jnp.float32)          # back
    c = lax.bitcast_convert_type(u16, jnp.float32)        # [5,2] -> [5]
    d = lax.bitcast_convert_type(f64, jnp.int32)          # [6] -> [6,2]
    e = lax.bitcast_convert_type(s8, jnp.uint64)          # [4,8] -> [4]
    g = lax.bitcast_convert_type(bf, jnp.uint32)          # [7,2] -> [7]
    h = lax.bitcast_convert_type(u64, jnp.float16)        # [3] -> [3,4]
    i = lax.bitcast_convert_type(h, jnp.int16)
    k = lax.bitcast_convert_type(f32.astype(jnp.float16), jnp.int8)
    m = lax.bitcast_convert_type(
        lax.bitcast_convert_type(f64, jnp.uint16), jnp.float64)
    return (a, b, lax.bitcast_convert_type(c, jnp.uint32), d, e, g, i, k,
            lax.bitcast_convert_type(m, jnp.uint64),
            jnp.sum(a.astype(jnp.int32), axis=-1), d[..., 1] >> 20)


def _bitcast_inputs(r):
    f32 = np.array([[0.0, -0.0, 1.0, -2.5], [np.inf, -np.inf, 1e-40, 3e38],
                    [0.1, -7.0, 65504.0, 1e-8]], np.float32)
    return [f32, ints(r, (5, 2), 0, 65536, np.uint16),
            np.array([0.0, -0.0, 1.0, np.inf, 1e-310, -3.5]),
            ints(r, (4, 8), -128, 128, np.int8),
            ints(r, (7, 2), 0, 65536, np.uint16).view(jnp.bfloat16),
            np.array([0, 2**64 - 1, 0x3C00BC007C00FC00], np.uint64)]


def reduce_precision_odd_formats(f64, f32, f16, bf):
    # reduce_precision to formats narrower and wider than the source:
    # exponent bits past the source's leave the exponent alone, mantissa
    # bits past it leave the mantissa alone; overflow goes to inf, NaN
    # stays NaN, values under the new minimum normal flush through the
    # denormals of the new format.
    return (lax.reduce_precision(f64, exponent_bits=5, mantissa_bits=2),
            lax.reduce_precision(f64, exponent_bits=8, mantissa_bits=23),
            lax.reduce_precision(f64, exponent_bits=2, mantissa_bits=0),
            lax.reduce_precision(f32, exponent_bits=4, mantissa_bits=3),
            lax.reduce_precision(f32, exponent_bits=11, mantissa_bits=30),
            lax.reduce_precision(f32, exponent_bits=1, mantissa_bits=1),
            lax.reduce_precision(f16, exponent_bits=8, mantissa_bits=7),
            lax.reduce_precision(f16, exponent_bits=3, mantissa_bits=12),
            lax.reduce_precision(bf, exponent_bits=5, mantissa_bits=10),
            lax.reduce_precision(bf, exponent_bits=4, mantissa_bits=1))


def _rp_inputs(r):
    v = [0.0, -0.0, 1.0, -1.0, 1.5, 1.75, 1.875, 0.1, 3.0, 7.0, 15.5, 65504.0,
         70000.0, 1e-5, 6e-8, 2e-8, 1e-40, 3.4e38, 1e300, -1e-300, np.inf,
         -np.inf, np.nan, 0.333, 240.0, 448.0, 57344.0, 2.0**-14, 2.0**-15]
    return [np.array(v, np.float64), np.array(v, np.float32),
            np.array(v, np.float16), np.array(v, np.float32).astype(
                jnp.bfloat16)]


def nextafter_every_float(a64, b64, a32, b32, a16, b16, abf, bbf):
    # nextafter across zero (to the smallest denormal of the right sign),
    # from the largest finite value to inf, from inf back, NaN in either
    # operand, and equal operands (y itself, so -0.0 towards +0.0 is +0.0).
    return (lax.nextafter(a64, b64), lax.nextafter(a32, b32),
            lax.nextafter(a16, b16), lax.nextafter(abf, bbf),
            lax.nextafter(b32, a32), lax.nextafter(b16, a16))


def _nextafter_inputs(r):
    a = [0.0, -0.0, 0.0, 1.0, 1.0, np.inf, -np.inf, np.nan, 1.0, 3.0, -0.0,
         1e-40, 65504.0, 2.0**-24, -1.0, 0.5]
    b = [1.0, -1.0, -0.0, np.inf, 0.0, 0.0, np.inf, 1.0, np.nan, 3.0, 0.0,
         0.0, np.inf, 0.0, -np.inf, 0.25]
    out = []
    for dt in (np.float64, np.float32, np.float16, jnp.bfloat16):
        out += [np.array(a, np.float64).astype(dt),
                np.array(b, np.float64).astype(dt)]
    return out


# --- Conversions -------------------------------------------------------------

def float_to_int_every_pair(*fs):
    # Float to integer conversions saturate at the type's bounds, NaN goes
    # to 0, negatives to an unsigned type to 0; fractions truncate.
    return [[lax.convert_element_type(f, dt) for dt in _INTS] for f in fs]


def _f2i_inputs(r):
    v = [np.nan, np.inf, -np.inf, 1e10, -1e10, 255.5, 256.0, -0.5, -1.0,
         2.0**31, 2.0**31 - 128, -2.0**31, 2.0**63, -2.0**63, 2.0**64, 127.9,
         -128.9, 32767.5, 65535.9, -0.0, 1e30, 4294967295.0, 65504.0, 3.7]
    return [np.array(v, np.float64).astype(dt) for dt in _FLOATS]


def int_to_float_rounding(s64, u64, u32, s8, s16):
    # Integers to floats round to nearest even (2^24 + 1 in f32, 2^53 + 1
    # in f64, the top bit of u64), overflow to inf in f16, and through the
    # f8 types (e4m3fn has no inf).
    out = []
    for x in (s64, u64, u32, s8, s16):
        out += [x.astype(dt) for dt in (jnp.float64, jnp.float32,
                                        jnp.float16, jnp.bfloat16)]
    out += [s8.astype(jnp.float8_e5m2), s16.astype(jnp.float8_e4m3fn),
            u32.astype(jnp.float8_e5m2), s8.astype(jnp.float8_e4m3fn)]
    out += [(x.astype(jnp.float32) == x.astype(jnp.float64)) for x in
            (s64, u64)]
    return out


def _i2f_inputs(r):
    s64 = [2**24 + 1, 2**24 + 3, 2**53 + 1, 2**53 + 3, -(2**63), 2**63 - 1,
           2**62 + 2**38 + 1, 65519, 65520, -65536, 0, -1, 257, 2**31 + 1]
    u64 = [2**64 - 1, 2**63, 2**63 + 2**39, 2**63 + 2**40 + 1, 2**53 + 1, 0,
           1, 65535, 2**32 + 1, 2**24 + 1, 2**40 + 2**16 + 1, 7, 3, 9]
    u32 = [2**32 - 1, 2**31, 2**24 + 1, 65535, 65520, 65519, 70000, 0, 1,
           448, 449, 464, 57344, 61440]
    s8 = [-128, 127, -1, 0, 1, 17, 33, -33, 100, -100, 65, 67, 69, 71]
    s16 = [-32768, 32767, 448, 449, 464, 480, 500, 2049, 4097, -4097, 1, 0,
           17, -17]
    return [np.array(s64, np.int64), np.array(u64, np.uint64),
            np.array(u32, np.uint32), np.array(s8, np.int8),
            np.array(s16, np.int16)]


def convert_double_rounding(f64, f32):
    # Narrowing conversions next to half way points, compared bit for bit:
    # f64 to the 8-bit floats and f4e2m1fn rounds once (1 + 2^-4 + 2^-40
    # is 1.125 in f8e4m3fn, not 1, and 464 + 2^-40 is NaN, not 448); f64
    # to f16 and bf16 goes through f32 on XLA:CPU, so 1 + 2^-11 + 2^-40 is
    # 1 in f16 there (not the nearest, 1 + 2^-10), and in hloc alike.
    narrow = (jnp.float8_e4m3fn, jnp.float8_e5m2, jnp.float8_e4m3fnuz,
              jnp.float8_e5m2fnuz, jnp.float8_e4m3b11fnuz, jnp.float8_e3m4,
              jnp.float8_e4m3, jnp.float8_e8m0fnu)
    bits8 = [lax.bitcast_convert_type(v.astype(t), jnp.uint8)
             for t in narrow for v in (f64, f32)]
    return (f64.astype(jnp.float16), f64.astype(jnp.bfloat16),
            f64.astype(jnp.float32).astype(jnp.float16),
            f64.astype(jnp.float8_e4m3fn), f64.astype(jnp.float8_e5m2),
            f32.astype(jnp.float8_e4m3fn), f32.astype(jnp.float8_e5m2),
            f32.astype(jnp.float16).astype(jnp.float8_e5m2),
            f32.astype(jnp.float8_e4m3fnuz), f32.astype(jnp.float8_e3m4),
            f64.astype(jnp.float8_e4m3b11fnuz),
            f64.astype(jnp.float4_e2m1fn).astype(jnp.float32),
            lax.bitcast_convert_type(f64.astype(jnp.float16), jnp.uint16),
            lax.bitcast_convert_type(f64.astype(jnp.bfloat16), jnp.uint16),
            bits8)


def _double_rounding_inputs(r):
    e = 2.0**-40
    f64 = [1 + 2**-8 + e, 1 + 2**-2 + e, 1.5 - e, 1 + 2**-5 - e, 4.5 + e,
           1 + 2**-11 + e, 1 + 2**-11 - e, 1 + 2**-11, 1 + 3 * 2**-11,
           1 + 2**-8 + e, 1 + 2**-9 + e, 65520 - e, 65520.0, 1 + 2**-4 + e,
           1 + 2**-3 + e, 2.0**-25 + e, 2.0**-25, 1 + 2**-3 + 2**-30,
           1 + 2**-4 + 2**-30, 464.0 + e, 464.0, 1 + 2**-5 + e, 2**-17 + e,
           2**-10 + e, 1e300, -1e-300, np.nan, -np.inf]
    f32 = [1 + 2**-4 + 2**-12, 1 + 2**-3 + 2**-12, 1 + 2**-4, 1 + 2**-3,
           1 + 2**-3 + 2**-20, 1 + 2**-2 + 2**-20, 464.0, 465.0, 480.0,
           57344.0, 61440.0, 61439.0, 1e-9, 2**-10 + 2**-22, 240.0, 248.0,
           -0.0, np.nan, 1.5, 3.0, 0.75, 6.5, -0.1, 1e38, 5.0]
    return [np.array(f64, np.float64), np.array(f32, np.float32)]


def f8_arith_every_format(x, y):
    # Arithmetic in each f8 format (computed through f32 and rounded back),
    # overflow (to NaN where there is no inf), conversions from one f8
    # format to another (rounded once), comparisons, max and sums.
    out = []
    fmts = (jnp.float8_e4m3fn, jnp.float8_e5m2, jnp.float8_e4m3fnuz,
            jnp.float8_e5m2fnuz, jnp.float8_e4m3b11fnuz, jnp.float8_e3m4,
            jnp.float8_e4m3)
    for dt in fmts:
        a, b = x.astype(dt), y.astype(dt)
        out += [a + b, a * b, a - b, jnp.maximum(a, b), a < b,
                (a * 16).astype(jnp.float32)]
    for src in fmts:
        for dst in fmts:
            if src != dst:
                out.append((x * 37).astype(src).astype(dst))
    return out


def _f8_inputs(r):
    x = np.concatenate([r.integers(-32, 33, 20) / 8,
                        [0.0, -0.0, 448.0, 240.0, 15.5, 1e-3, 0.0625]])
    y = np.concatenate([r.integers(-32, 33, 20) / 8,
                        [-0.0, -0.0, 64.0, 30.0, 2.0, 1e-3, 0.00390625]])
    return [x.astype(np.float32), y.astype(np.float32)]


def int4_arith(x, y, f):
    # s4 and u4: wrapping arithmetic, shifts, conversions that saturate
    # from floats and wrap from wider integers, sums in s32.
    a, b = x.astype(jnp.int4), y.astype(jnp.int4)
    ua, ub = x.astype(jnp.uint4), y.astype(jnp.uint4)
    return (a + b, a * b, a - b, -a, lax.div(a, jnp.where(b == 0, 1, b)),
            ua + ub, ua * ub, ua - ub, a >> 1, ua >> 1, a << 2,
            jnp.maximum(a, b), jnp.minimum(ua, ub), (a < b),
            f.astype(jnp.int4), f.astype(jnp.uint4),
            a.astype(jnp.int32), ua.astype(jnp.float32),
            jnp.sum(a.astype(jnp.int32)), jnp.sort(a), jnp.argmax(ua),
            jnp.concatenate([a, b]), jnp.where(x > 0, a, b))


def _int4_inputs(r):
    return [ints(r, (16,), -8, 8, np.int8), ints(r, (16,), -8, 8, np.int8),
            np.array([np.nan, 9.7, -9.7, 7.5, -8.5, 15.9, 16.0, -0.5, 3.2,
                      -1.0, np.inf, -np.inf, 0.0, 5.5, -3.5, 100.0],
                     np.float32)]


# --- NaN, -0.0 and total order -----------------------------------------------

def minmax_nan_negzero(*xs):
    # max and min propagate NaN; fmax and fmin drop it; sign of zero
    # through maxima seen by 1 / x; reductions and cummax with NaN.
    out = []
    for x in xs:
        y = x[::-1]
        out += [jnp.maximum(x, y), jnp.minimum(x, y), jnp.fmax(x, y),
                jnp.fmin(x, y), jnp.max(x), jnp.min(x), jnp.nanmax(x),
                jnp.nanmin(x), lax.cummax(x), lax.cummin(x, reverse=True),
                jnp.argmax(x), jnp.argmin(x), jnp.nanargmax(x),
                jnp.nanargmin(x), jnp.clip(x, -1.0, 1.0)]
    return out


def _nan_inputs(r):
    v = [1.0, np.nan, -0.0, 0.0, -1.0, 2.0, -np.inf, np.inf, 0.0, -0.0, 3.0,
         np.nan, -2.0]
    return [np.array(v).astype(dt) for dt in _FLOATS]


def sort_total_order_floats(*xs):
    # jnp.sort orders -inf < ... < -0.0 == 0.0 < ... < inf < NaN; a stable
    # argsort keeps the zeros' and NaNs' order; descending flips it.
    out = []
    for x in xs:
        out += [jnp.sort(x), jnp.argsort(x, stable=True),
                jnp.argsort(x, stable=True, descending=True),
                jnp.sort(x.reshape(3, 6), axis=0),
                lax.sort(x.reshape(3, 6), dimension=1, is_stable=True)]
    return out


def _sort_inputs(r):
    v = [np.nan, 1.0, -0.0, 0.0, -1.0, np.inf, -np.inf, 0.0, -0.0, np.nan,
         2.0, 1.0, 1e-30, -1e-30, 3.0, -0.0, 5.0, 0.5]
    return [np.array(v).astype(dt) for dt in _FLOATS]


def sort_multi_operand_keys(k1, k2, v1, v2, v3):
    # lax.sort of five operands by the first two (bf16 with ties, u16),
    # stable, along the leading axis of a matrix, and by one key unstable
    # where the key has no ties; the payloads ride along.
    a = lax.sort((k1, k2, v1, v2, v3), dimension=0, num_keys=2,
                 is_stable=True)
    b = lax.sort((k2[:, 0], v1[:, 0], v3[:, 0]), num_keys=3)
    c = lax.sort((v2, k1, v3), dimension=1, num_keys=1, is_stable=True)
    return a, b, c


def _sort_multi_inputs(r):
    return [(r.integers(-2, 3, (12, 3)) / 2).astype(jnp.bfloat16),
            ints(r, (12, 3), 0, 3, np.uint16),
            ints(r, (12, 3), -128, 128, np.int8),
            np.tile(np.arange(12.0)[:, None] * 1.5, (1, 3)) % 4,
            floats(r, (12, 3), np.float64)]


def topk_ties_dtypes(s8, bf, u64, f64):
    # top_k keeps the lower index first among equal values (the stable
    # order), for s8, bf16 with ties and zeros of both signs, u64 past the
    # s64 range, and f64 with -inf; k equal to the size and k = 1.
    return (lax.top_k(s8, 5), lax.top_k(bf, 6), lax.top_k(u64, 4),
            lax.top_k(f64, f64.shape[-1]), lax.top_k(s8, 1),
            lax.top_k(-s8.astype(jnp.int32), 3))


def _topk_inputs(r):
    return [ints(r, (3, 10), -3, 4, np.int8),
            np.array([[1, 2, 2, -0.0, 0.0, 0.0, -0.0, 1, 2, -1]] * 2,
                     np.float32).astype(jnp.bfloat16),
            np.array([2**63, 1, 2**63, 2**64 - 1, 5, 2**63 - 1, 0, 2**64 - 1],
                     np.uint64),
            np.array([[-np.inf, 1.0, -np.inf, 2.0, 1.0, 0.0]] * 2)]


# --- Scatter and gather ------------------------------------------------------

def scatter_duplicates_every_mode(x_u8, x_f16, x_s64, x_bf, idx, v):
    # Duplicate indices (negative ones wrap, others past either end) under
    # clip, drop and promise_in_bounds (in-bounds indices only there), with
    # add, mul, min, max and set (set's duplicates write equal values).
    inb = jnp.abs(idx) % x_u8.shape[0]
    out = []
    for mode in ("clip", "drop"):
        out += [x_u8.at[idx].add(v.astype(jnp.uint8), mode=mode),
                x_u8.at[idx].mul(v.astype(jnp.uint8), mode=mode),
                x_f16.at[idx].add(v.astype(jnp.float16), mode=mode),
                x_f16.at[idx].min(v.astype(jnp.float16), mode=mode),
                x_s64.at[idx].max(v.astype(jnp.int64), mode=mode),
                x_s64.at[idx].mul(v.astype(jnp.int64), mode=mode),
                x_bf.at[idx].set(jnp.bfloat16(2.5), mode=mode)]
    out += [x_u8.at[inb].add(v.astype(jnp.uint8), mode="promise_in_bounds"),
            x_f16.at[inb].max(v.astype(jnp.float16),
                              mode="promise_in_bounds"),
            x_s64.at[inb].min(v.astype(jnp.int64), mode="promise_in_bounds"),
            x_bf.at[inb].mul(v.astype(jnp.bfloat16),
                             mode="promise_in_bounds")]
    out += [x_f16.at[idx].get(mode="fill", fill_value=-7),
            x_s64.at[idx].get(mode="clip"), x_u8.at[inb].get()]
    return out


def _scatter_inputs(r):
    return [ints(r, (7,), 0, 256, np.uint8),
            floats(r, (7,), np.float16), ints(r, (7,), -9, 9, np.int64),
            floats(r, (7,)).astype(jnp.bfloat16),
            np.array([0, 3, 3, -1, -1, 9, -9, 6, 3, 100, -100, 0], np.int32),
            np.array([3, 5, 7, 2, 11, 13, 4, 250, 1, 6, 9, 255], np.int32)]


def scatter_2d_windows_modes(x, idx, u):
    # Scatter of 2x2 windows into a matrix at pairs of indices, duplicates
    # overlapping, some windows hanging past the edge: clip moves them in,
    # drop drops the whole window. And the same vmapped over a batch
    # (operand and indices batching dims).
    def put(x, idx, u, mode):
        dn = lax.ScatterDimensionNumbers(
            update_window_dims=(1, 2), inserted_window_dims=(),
            scatter_dims_to_operand_dims=(0, 1))
        return lax.scatter_add(x, idx, u, dn, mode=mode)

    def put_min(x, idx, u, mode):
        dn = lax.ScatterDimensionNumbers(
            update_window_dims=(1, 2), inserted_window_dims=(),
            scatter_dims_to_operand_dims=(0, 1))
        return lax.scatter_min(x, idx, u, dn, mode=mode)

    outs = []
    for mode in (lax.GatherScatterMode.CLIP,
                 lax.GatherScatterMode.FILL_OR_DROP):
        outs += [put(x[0], idx[0], u[0], mode),
                 put_min(x[0], idx[0], u[0], mode),
                 jax.vmap(lambda a, b, c: put(a, b, c, mode))(x, idx, u)]
    return outs


def _scatter2d_inputs(r):
    return [floats(r, (3, 5, 6)),
            np.array([[[0, 0], [0, 0], [4, 5], [3, 4], [-1, 2], [2, 2]],
                      [[1, 1], [4, 4], [4, 4], [0, 5], [0, 6], [5, 0]],
                      [[2, 3], [2, 3], [2, 3], [3, 3], [0, -3], [4, 0]]],
                     np.int32),
            (r.integers(-4, 5, (3, 6, 2, 2)) / 4).astype(np.float32)]


def gather_batching_dims(x, idx, bidx):
    # Gathers with operand_batching_dims (not leading), collapsed and
    # offset dims mixed, index batch dims in the middle, out-of-bounds
    # starts clamped or filled.
    dn = lax.GatherDimensionNumbers(
        offset_dims=(2,), collapsed_slice_dims=(0,), start_index_map=(0,),
        operand_batching_dims=(2,), start_indices_batching_dims=(1,))
    a = lax.gather(x, idx, dn, slice_sizes=(1, 3, 1),
                   mode=lax.GatherScatterMode.CLIP)
    b = lax.gather(x, idx, dn, slice_sizes=(1, 3, 1),
                   mode=lax.GatherScatterMode.FILL_OR_DROP, fill_value=-1.0)
    dn2 = lax.GatherDimensionNumbers(
        offset_dims=(1, 2), collapsed_slice_dims=(2,), start_index_map=(2, 0),
        operand_batching_dims=(), start_indices_batching_dims=())
    c = lax.gather(x, bidx, dn2, slice_sizes=(2, 4, 1),
                   mode=lax.GatherScatterMode.CLIP)
    d = lax.gather(x, bidx, dn2, slice_sizes=(2, 4, 1),
                   mode=lax.GatherScatterMode.FILL_OR_DROP, fill_value=9.0)
    return a, b, c, d


def _gather_inputs(r):
    return [floats(r, (5, 4, 3)),
            np.array([[[0], [4], [7]], [[-1], [2], [3]]], np.int32),
            np.array([[0, 0], [2, 4], [3, 1], [-1, 2], [1, 3], [2, 5]],
                     np.int32)]


def dynamic_slice_index_types(x, i8, u8, i16, u32, i64, u64):
    # dynamic_slice and dynamic_update_slice clamp starts into
    # [0, dim - size]: u8 255, s8 -128 (wrapped by JAX to -128 + dim, still
    # negative), s16 -300, u32 past s32, s64 -2^62, and u64 past s64 (an
    # unsigned start must not clamp as a negative one).
    out = []
    for i in (i8, u8, i16, u32, i64, u64):
        out.append(lax.dynamic_slice(x, (i, i), (3, 2)))
        out.append(lax.dynamic_update_slice(x, jnp.full((2, 3), -1.0, x.dtype),
                                            (i, i)))
        out.append(lax.dynamic_slice_in_dim(x, i, 4, axis=1))
        out.append(lax.dynamic_index_in_dim(x, i, axis=0, keepdims=False))
    return out


def _ds_inputs(r):
    x = np.arange(35, dtype=np.float32).reshape(5, 7)
    return [x, np.int8(-128), np.uint8(255), np.int16(-300),
            np.uint32(4_000_000_000), np.int64(-(2**62)),
            np.uint64(2**63 + 5)]


def dynamic_slice_vmapped_indices(x, i_s8, i_u16, i_u64):
    # vmapped dynamic slices (gathers) with start indices of each type.
    return (jax.vmap(lambda i: lax.dynamic_slice_in_dim(x, i, 3))(i_s8),
            jax.vmap(lambda i: lax.dynamic_slice_in_dim(x, i, 3))(i_u16),
            jax.vmap(lambda i: lax.dynamic_slice_in_dim(x, i, 3))(i_u64),
            jax.vmap(lambda i: lax.dynamic_update_slice_in_dim(
                x, jnp.zeros(2, x.dtype), i, 0))(i_u64))


# --- Data movement -----------------------------------------------------------

def pad_cut_spread_dtypes(u16, b, f16, z):
    # Negative low/high padding cuts, interior padding spreads; a dimension
    # cut to nothing; interior padding of a size-0 or size-1 dimension adds
    # nothing.
    return (lax.pad(u16, jnp.uint16(9), [(-2, 3, 2), (1, -4, 1)]),
            lax.pad(b, True, [(0, -1, 3), (-2, -3, 0)]),
            lax.pad(f16, jnp.float16(-0.0), [(-5, 2, 1), (2, 2, 0)]),
            lax.pad(z, np.float32(1.5), [(1, 2, 3), (0, 0, 5)]),
            lax.pad(f16, jnp.float16(np.nan), [(-2, -2, 0), (0, 0, 0)]),
            lax.pad(u16[:1], jnp.uint16(1), [(2, 1, 4), (-1, 0, 2)]))


def slices_strides_rev(x, u4):
    # Slices with a stride past the size, reverses of several dims of a
    # rank-5 array, concatenation with zero-sized operands of u4.
    return (lax.slice(x, (0, 1, 0, 0, 2), (2, 3, 3, 4, 3), (5, 1, 7, 2, 1)),
            lax.rev(x, (0, 2, 4)), lax.rev(x, (1, 3)),
            x[::-2, ::3, :, ::-1, 1:],
            jnp.concatenate([u4[:0], u4, u4[2:2], u4[::-1]]),
            jnp.concatenate([x[:, :0], x[:, 1:], x[:, :1]], axis=1))


def high_rank_shapes(x, c, b):
    # iota, broadcast_in_dim, reshapes and transposes of rank 5 to 7 of
    # u16, c64 and bool with sizes 1 among them.
    io = lax.broadcasted_iota(jnp.uint16, (2, 1, 3, 2, 2, 1, 3), 2)
    io2 = lax.broadcasted_iota(jnp.int8, (3, 2, 2, 1, 2, 2), 4)
    bx = lax.broadcast_in_dim(x, (2, 3, 4, 2, 3, 5), (0, 2, 5))
    t = jnp.transpose(bx, (5, 3, 0, 4, 1, 2))
    ct = jnp.transpose(c, (4, 0, 3, 1, 2))
    bt = jnp.transpose(b, (6, 5, 4, 3, 2, 1, 0))
    return (io + jnp.uint16(60000), io2 * 127, t, t.reshape(10, 18, 4), ct,
            jnp.conj(ct).sum(axis=(1, 3)), bt, bt.sum(axis=(0, 6)),
            jnp.expand_dims(x, (0, 2, 4, 6)).shape)


# --- Windows, convolutions and dots ------------------------------------------

def reduce_window_dilated_init(x, s16):
    # reduce_window with base and window dilation, strides and padding on
    # several dims at once, and inits that are not the identity: windows
    # wholly in the padding give the init.
    a = lax.reduce_window(x, np.float32(1.5), lax.add, (2, 3, 1), (1, 2, 1),
                          ((1, 2), (3, 0), (0, 1)), base_dilation=(2, 1, 1),
                          window_dilation=(1, 2, 1))
    b = lax.reduce_window(x, np.float32(0), lax.max, (3, 2, 2), (2, 1, 2),
                          ((2, 2), (0, 3), (1, 1)), window_dilation=(2, 1, 1))
    c = lax.reduce_window(x, np.float32(-np.inf), lax.max, (1, 2, 2), (1, 1, 1),
                          ((4, 4), (0, 0), (0, 0)), base_dilation=(1, 3, 2))
    d = lax.reduce_window(s16, jnp.int16(3), lax.mul, (2, 2), (1, 3),
                          ((0, 1), (2, 2)), window_dilation=(2, 1))
    e = lax.reduce_window(s16, jnp.int16(0), lax.min, (3, 1), (2, 2),
                          ((5, 5), (0, 0)))
    return a, b, c, d, e


def minmax_pool_grad_ties_bf16(x, bf):
    # Max- and min-pool gradients by select_and_scatter where windows
    # overlap and hold ties (the first maximum in the window takes it),
    # with padding and 3-D windows; bf16 alike.
    def pool(x, op, init):
        return lax.reduce_window(x, init, op, (1, 3, 3, 1), (1, 2, 1, 1),
                                 ((0, 0), (1, 1), (0, 2), (0, 0)))

    def loss(x, w):
        return jnp.sum(pool(x, lax.max, -jnp.inf) * w) + jnp.sum(
            pool(x, lax.min, jnp.inf) * w * 2)

    w = jnp.arange(1.0, 1.0 + 2 * 4 * 6 * 2).reshape(2, 4, 6, 2)
    gb = jax.grad(lambda x: jnp.sum(pool(x, lax.max, -jnp.inf).astype(
        jnp.float32) * w))(bf)
    return loss(x, w), jax.grad(loss)(x, w), gb


def conv_dilations_groups(x, w, xb, wb, x1, w1):
    # Convolutions with lhs and rhs dilation, negative padding, feature
    # groups; batch groups (a weight gradient's shape) with strides; 1-D
    # with both dilations and a window larger than the input.
    a = lax.conv_general_dilated(
        x, w, window_strides=(1, 2), padding=((-1, 2), (3, -1)),
        lhs_dilation=(2, 1), rhs_dilation=(1, 3), feature_group_count=2,
        dimension_numbers=("NCHW", "OIHW", "NCHW"), precision=_HI)
    b = lax.conv_general_dilated(
        xb, wb, window_strides=(2, 1), padding=((1, 1), (0, 2)),
        rhs_dilation=(2, 1), batch_group_count=3,
        dimension_numbers=("NHWC", "HWIO", "NHWC"), precision=_HI)
    c = lax.conv_general_dilated(
        x1, w1, window_strides=(3,), padding=((4, 4),), lhs_dilation=(3,),
        rhs_dilation=(2,), dimension_numbers=("NWC", "WIO", "NWC"),
        precision=_HI)
    return a, b, c


def _conv_inputs(r):
    q = lambda s: (r.integers(-4, 5, s) / 4).astype(np.float32)  # noqa
    return [q((2, 4, 5, 6)), q((6, 2, 2, 3)), q((6, 7, 5, 2)), q((3, 2, 2, 3)),
            q((2, 4, 3)), q((3, 3, 2))]


def conv_int_and_half(xi, wi, xh, wh, xc, wc):
    # s8 convolution accumulated in s32, f16 accumulated in f32 with
    # feature groups, c64 and f64 convolutions.
    a = lax.conv_general_dilated(xi, wi, (1, 1), "SAME",
                                 dimension_numbers=("NHWC", "HWIO", "NHWC"),
                                 preferred_element_type=jnp.int32)
    b = lax.conv_general_dilated(xh, wh, (2, 1), ((1, 0), (2, 2)),
                                 feature_group_count=3,
                                 dimension_numbers=("NCHW", "OIHW", "NCHW"),
                                 preferred_element_type=jnp.float32)
    c = lax.conv_general_dilated(xc, wc, (1,), "VALID", rhs_dilation=(2,),
                                 dimension_numbers=("NCW", "OIW", "NCW"),
                                 precision=_HI)
    d = lax.conv_general_dilated(xc.real.astype(jnp.float64),
                                 wc.imag.astype(jnp.float64), (1,), "SAME",
                                 dimension_numbers=("NCW", "OIW", "NCW"),
                                 precision=_HI)
    return a, b, c, d


def _conv_int_inputs(r):
    return [ints(r, (2, 5, 5, 3), -128, 128, np.int8),
            ints(r, (3, 3, 3, 4), -128, 128, np.int8),
            (r.integers(-4, 5, (2, 6, 5, 4)) / 4).astype(np.float16),
            (r.integers(-4, 5, (9, 2, 3, 2)) / 4).astype(np.float16),
            complexes(r, (2, 3, 9)), complexes(r, (4, 3, 3))]


def dot_general_many_dims(a, b, s8a, s8b, u8a, u8b, bfa, bfb, ca, cb):
    # dot_general with two batch dims and two contracting dims in orders
    # other than the operands' (batch dims not leading), integer dots
    # accumulated wider, u8 wrapping in u8, bf16 into f32, c128.
    dn = (((1, 4), (1, 4)), ((0, 2), (3, 0)))
    return (lax.dot_general(a, b, dn, precision=_HI),
            lax.dot_general(s8a, s8b, dn, preferred_element_type=jnp.int32),
            lax.dot_general(s8a, s8b, dn),
            lax.dot_general(u8a, u8b, dn),
            lax.dot_general(u8a, u8b, dn, preferred_element_type=jnp.uint32),
            lax.dot_general(bfa, bfb, dn, preferred_element_type=jnp.float32),
            lax.dot_general(ca, cb, dn, precision=_HI),
            lax.dot_general(s8a.astype(jnp.int16), s8b.astype(jnp.int16), dn,
                            preferred_element_type=jnp.int64),
            lax.dot_general(s8a > 0, s8b > 0, dn))


def _dot_inputs(r):
    sa, sb = (2, 3, 4, 5, 2), (4, 3, 7, 2, 2)
    q = lambda s: (r.integers(-4, 5, s) / 4).astype(np.float32)  # noqa
    return [q(sa), q(sb), ints(r, sa, -128, 128, np.int8),
            ints(r, sb, -128, 128, np.int8), ints(r, sa, 0, 256, np.uint8),
            ints(r, sb, 0, 256, np.uint8), q(sa).astype(jnp.bfloat16),
            q(sb).astype(jnp.bfloat16), complexes(r, sa, np.complex128),
            complexes(r, sb, np.complex128)]


def mixed_precision_dots(h1, h2, b1, b2, i1, i2):
    # f16 and bf16 matmuls at default precision into their own type and into
    # f32, s16 into s32, u16 into u64, s32 wrapping.
    return (jnp.matmul(h1, h2, preferred_element_type=jnp.float32),
            jnp.matmul(b1, b2, preferred_element_type=jnp.float32),
            jnp.einsum("ij,jk->ik", h1, h2),
            jnp.einsum("ij,jk->ik", b1, b2),
            jnp.matmul(i1, i2, preferred_element_type=jnp.int32),
            jnp.matmul(i1.astype(jnp.uint16), i2.astype(jnp.uint16),
                       preferred_element_type=jnp.uint64),
            jnp.matmul(i1.astype(jnp.int32) * 40000, i2.astype(jnp.int32)),
            jnp.einsum("ij,ij->i", i1, i1, preferred_element_type=jnp.int64))


def _mixed_dot_inputs(r):
    q = lambda s: (r.integers(-8, 9, s) / 8)  # noqa
    return [q((5, 33)).astype(np.float16), q((33, 4)).astype(np.float16),
            q((5, 33)).astype(jnp.bfloat16), q((33, 4)).astype(jnp.bfloat16),
            ints(r, (5, 33), -32768, 32768, np.int16),
            ints(r, (33, 4), -32768, 32768, np.int16)]


def cumulative_reverse_inner(u8, s16, bf, u64, h):
    # Cumulative sums, products, maxima, minima and logsumexp along inner
    # axes of rank-3 and rank-4 arrays, reversed and not, wrapping in u8
    # and s16, NaN in bf16 cummax.
    return (lax.cumsum(u8, axis=1, reverse=True), lax.cumsum(u8, axis=3),
            lax.cumprod(s16, axis=2, reverse=True), lax.cumprod(s16, axis=0),
            lax.cummax(bf, axis=1, reverse=True), lax.cummin(bf, axis=2),
            lax.cummin(u64, axis=1, reverse=True), lax.cummax(u64, axis=0),
            lax.cumlogsumexp(h, axis=0, reverse=True),
            lax.cumlogsumexp(h.astype(jnp.float32), axis=2),
            jnp.cumsum(u8, axis=2, dtype=jnp.uint8),
            jnp.cumsum(u8 > 100, axis=1))


def _cum_inputs(r):
    bf = (r.integers(-4, 5, (3, 5, 4)) / 2).astype(np.float32)
    bf[1, 2, 1] = np.nan
    bf[2, 0, 3] = np.nan
    return [ints(r, (2, 6, 3, 5), 0, 256, np.uint8),
            ints(r, (3, 4, 5), -7, 8, np.int16),
            bf.astype(jnp.bfloat16),
            ints(r, (3, 6, 2), 0, 2**63, np.int64).astype(np.uint64) * 2,
            floats(r, (4, 3, 5), np.float16)]


# --- Random numbers ----------------------------------------------------------

def rng_bits_odd_sizes(key):
    # rng_bit_generator with each algorithm, u8 to u64 outputs, odd and
    # zero sizes, and the new state.
    out = []
    for alg in (lax.RandomAlgorithm.RNG_THREE_FRY,
                lax.RandomAlgorithm.RNG_PHILOX,
                lax.RandomAlgorithm.RNG_DEFAULT):
        for shape, dt in (((7,), jnp.uint8), ((3, 5), jnp.uint16),
                          ((1,), jnp.uint32), ((3,), jnp.uint64),
                          ((0, 4), jnp.uint32), ((1,), jnp.uint8),
                          ((2, 0), jnp.uint64), ((1, 1, 3), jnp.uint16)):
            out.append(lax.rng_bit_generator(key, shape, dtype=dt,
                                             algorithm=alg))
    return out


def prng_impls_inside(seed, key):
    # jax.random keys of the rbg and unsafe_rbg implementations made
    # inside jit from a seed, and threefry draws with the non-partitionable
    # counter layout, bits of 8 to 64 bits, floats of every width.
    out = []
    for impl in ("rbg", "unsafe_rbg"):
        k = jax.random.key(seed, impl=impl)
        k1, k2 = jax.random.split(k)
        out += [jax.random.bits(k1, (5,), jnp.uint8),
                jax.random.bits(k2, (3, 2), jnp.uint64),
                jax.random.uniform(k1, (4,), jnp.float16),
                jax.random.randint(k2, (6,), -5, 5, jnp.int8)]
    tk = jax.random.wrap_key_data(key)
    with jax.threefry_partitionable(False):
        out += [jax.random.bits(tk, (7,), jnp.uint16),
                jax.random.bits(tk, (3,), jnp.uint64),
                jax.random.normal(tk, (5,), jnp.bfloat16),
                jax.random.uniform(tk, (2, 3), jnp.float64)]
    with jax.threefry_partitionable(True):
        out += [jax.random.bits(tk, (7,), jnp.uint8),
                jax.random.uniform(jax.random.fold_in(tk, 3), (5,),
                                   jnp.float16)]
    return out


# --- Control flow ------------------------------------------------------------

def while_big_tuple_carry(b, u8, s16, h, bf, c, d, u64, s4src, inv):
    # A fori_loop whose carry holds eleven arrays of ten types, some passed
    # through unchanged, reading two loop invariants.
    s4 = s4src.astype(jnp.int4)

    def body(i, carry):
        b, u8, s16, h, bf, c, d, u64, s4, same, cnt = carry
        return (~b, u8 * 3 + 1, s16 - u8.astype(jnp.int16),
                h * 0.5 + inv.astype(jnp.float16), bf + jnp.bfloat16(0.25),
                c * (1 + 0.5j), d + jnp.sin(inv.astype(jnp.float64)),
                (u64 << 3) ^ (u64 >> 5), s4 + jnp.int4(3), same,
                cnt + jnp.sum(b, dtype=jnp.int32))

    carry = lax.fori_loop(0, 13, body, (b, u8, s16, h, bf, c, d, u64, s4,
                                        inv, jnp.int32(0)))
    return carry[:8] + (carry[8].astype(jnp.int8),) + carry[9:]


def _while_inputs(r):
    return [r.integers(0, 2, 6).astype(bool), ints(r, (6,), 0, 256, np.uint8),
            ints(r, (6,), -300, 300, np.int16), floats(r, (6,), np.float16),
            floats(r, (6,)).astype(jnp.bfloat16), complexes(r, (6,)),
            floats(r, (6,), np.float64),
            ints(r, (6,), 0, 2**62, np.int64).astype(np.uint64),
            ints(r, (6,), -8, 8, np.int8), floats(r, (6,)) * 0.1]


def switch_many_branches(i, iv, x, u):
    # lax.switch over eleven branches of different ops, by a scalar index
    # (clamped by JAX into range from -3 and 20) and vmapped over a vector
    # of indices (a select over every branch).
    branches = [lambda x, u, k=k: (x * k + jnp.float32(k),
                                   u + jnp.uint8(k)) for k in range(5)]
    branches += [lambda x, u: (jnp.sin(x), u * u),
                 lambda x, u: (jnp.sort(x), jnp.sort(u)),
                 lambda x, u: (jnp.cumsum(x), jnp.cumsum(u, dtype=jnp.uint8)),
                 lambda x, u: (x[::-1], u >> 1),
                 lambda x, u: (jnp.full_like(x, jnp.nan), ~u),
                 lambda x, u: (x @ jnp.ones((x.shape[0], x.shape[0]), x.dtype), u)]
    return ([lax.switch(k, branches, x, u) for k in (i, i - 20, i + 20)],
            jax.vmap(lambda k, x, u: lax.switch(k, branches, x, u))(
                iv, jnp.tile(x, (iv.shape[0], 1)),
                jnp.tile(u, (iv.shape[0], 1))))


# --- Sizes: zero, scalar, huge, tiny -----------------------------------------

def zero_sized_every_op(z, zi, x, e):
    # Zero-sized arrays through sorts, scans, dots with an empty contraction
    # (zeros), reductions (their inits), gathers and scatters with no
    # indices, top_k with k = 0, pads out of nothing, convolutions with an
    # empty batch, cumulative ops, reduce_window, argsort, while loops.
    w = jnp.ones((3, 2, 2, 2))
    conv = lax.conv_general_dilated(jnp.zeros((0, 2, 4, 4)), w, (1, 1),
                                    "SAME")
    return (jnp.sort(z), jnp.cumsum(z, axis=1), jnp.cumprod(zi, axis=0),
            z.T @ z, e @ e.T, jnp.sum(z), jnp.prod(zi), jnp.max(z, initial=-3.0),
            jnp.min(zi, axis=0, initial=7), jnp.argsort(zi, axis=0),
            x[jnp.zeros((0,), jnp.int32)],
            x.at[jnp.zeros((0,), jnp.int32)].add(jnp.zeros((0, 4))),
            lax.top_k(x, 0), lax.pad(z, np.float32(2), [(1, 1, 2), (0, 3, 1)]),
            conv, lax.reduce_window(z, np.float32(0), lax.add, (1, 1), (1, 1), "VALID"),
            jnp.concatenate([z, z]), jnp.any(zi > 0), jnp.all(zi > 0),
            lax.fori_loop(0, 3, lambda i, a: a * 2, z),
            jnp.einsum("ij,jk->ik", x[:, :0], jnp.ones((0, 5))),
            jnp.mean(z, axis=0), jnp.linalg.norm(e, axis=1),
            lax.dynamic_slice(x, (1, 2), (0, 2)),
            lax.dynamic_update_slice(x, jnp.zeros((0, 3), x.dtype), (5, 5)),
            jnp.unique(zi, size=2, fill_value=-1))


def _zero_inputs(r):
    return [np.zeros((0, 3), np.float32), np.zeros((0, 2), np.int16),
            floats(r, (3, 4)), np.zeros((4, 0), np.float32)]


def scalar_only_every_type(b, u8, s16, u32, s64, h, bf, f, d, c):
    # Scalars of every type through arithmetic, casts, compares, selects,
    # bit ops and a scalar while loop.
    def body(carry):
        i, acc = carry
        return i + 1, acc * jnp.float64(1.5) - i

    n = lax.while_loop(lambda c: c[0] < 7, body, (jnp.int32(0), d))
    return (b & (u8 > 3), u8 * u8, u8 // jnp.uint8(7), s16 % jnp.int16(-5),
            u32 - jnp.uint32(5), s64 * s64, -s64 >> 3, h * h, bf * bf + bf,
            jnp.exp(h), jnp.sqrt(bf), f / d, c * c, jnp.abs(c), c.conj(),
            jnp.where(b, h, h * 2), lax.clz(u32), lax.population_count(u8),
            u8.astype(jnp.bfloat16), bf.astype(jnp.uint8), n,
            jnp.arctan2(f, h.astype(jnp.float32)), lax.nextafter(f, d.astype(
                jnp.float32)), d.astype(jnp.int16), jnp.real(c))


def big_u8_bit_histogram(u8, f):
    # Past the cpu's parallel split: popcounts of a million bytes, a
    # 256-bin histogram, its u32 cumulative sum and an argmax, byte-wise
    # shifts and xor, a bitcast to u32 words, and an f16 sum.
    pc = lax.population_count(u8)
    hist = jnp.bincount(u8, length=256)
    words = lax.bitcast_convert_type(u8.reshape(-1, 4), jnp.uint32)
    return (jnp.sum(pc.astype(jnp.uint32)), hist, jnp.cumsum(
        hist.astype(jnp.uint32)), jnp.argmax(hist), (u8 << 3) ^ (u8 >> 2),
            jnp.bitwise_xor.reduce(words), jnp.max(words),
            jnp.sum(f.astype(jnp.float16), dtype=jnp.float32),
            jnp.argmin(f), jnp.max(f.reshape(1024, -1), axis=0))


def big_strided_reductions(x, i):
    # Past the parallel split: reductions over non-minor axes, multiple
    # outputs (argmax's variadic reduce) over a big axis, a big cumsum of
    # s64, and a big reverse-and-sort of s16.
    return (jnp.sum(x, axis=0), jnp.max(x, axis=(0, 2)),
            jnp.argmax(x, axis=1), jnp.argmin(x.reshape(-1)),
            jnp.cumsum(i.astype(jnp.int64)), jnp.sort(i[::-1]),
            jnp.mean(x.astype(jnp.float64), axis=(1, 2)))


def tiny_shapes(a, b, c, d):
    # Size-1 dimensions everywhere: dots, convolutions, reduce-windows,
    # sorts, gathers, scans and transposes of [1,1,1,1].
    conv = lax.conv_general_dilated(a, b, (1, 1), "SAME")
    return (conv, jnp.einsum("abcd,dcba->", a, b), jnp.sort(a, axis=3),
            lax.reduce_window(a, 0.0, lax.add, (1, 1, 1, 1), (1, 1, 1, 1),
                              "SAME"),
            jnp.transpose(a, (3, 1, 2, 0)), a[0, 0, c], jnp.cumsum(a, axis=2),
            lax.top_k(a, 1), jnp.argmax(a), d[jnp.newaxis] * a,
            jnp.squeeze(a), jnp.linalg.norm(a), jax.nn.softmax(a, axis=0))


# --- Variadic reductions -----------------------------------------------------

def variadic_reduce_custom(x, h, u8):
    # lax.reduce with three operands of three types (a value, its index and
    # a count of NaNs), argmax/argmin of bf16 and f64 with NaN and zeros of
    # both signs, over inner and outer axes of rank 3.
    idx = lax.broadcasted_iota(jnp.int32, x.shape, 1)

    def comp(a, b):
        av, ai, an = a
        bv, bi, bn = b
        take_b = (bv > av) | ((bv == av) & (bi < ai))
        return (jnp.where(take_b, bv, av), jnp.where(take_b, bi, ai),
                an + bn)

    v, i, n = lax.reduce((h, idx, u8), (jnp.float16(-jnp.inf), jnp.int32(0),
                                        jnp.uint8(0)), comp, (1,))
    xb = x.astype(jnp.bfloat16)
    return (v, i, n, jnp.argmax(xb, axis=1), jnp.argmin(xb, axis=0),
            jnp.argmax(x, axis=2), jnp.argmin(x, axis=1),
            jnp.argmax(x.reshape(-1, x.shape[-1]), axis=0))


def _variadic_inputs(r):
    x = (r.integers(-2, 3, (3, 5, 4)) / 2).astype(np.float64)
    x[0, 1, 2] = np.nan
    x[1, 3, 0] = np.nan
    x[2, :, 1] = -0.0
    x[2, 2, 1] = 0.0
    h = (r.integers(-2, 3, (3, 5, 4)) / 2).astype(np.float16)
    return [x, h, ints(r, (3, 5, 4), 0, 3, np.uint8)]


# --- Complex numbers ---------------------------------------------------------

def complex_edges(c64, c128, z):
    # Division by zero and by inf, abs at inf and NaN, sqrt and log on the
    # branch cut (signed zeros), sign, exp of large parts, powers, sorting
    # (lexicographic), cumulative sums reversed, expm1/log1p at tiny.
    out = []
    for c in (c64, c128):
        out += [c / z.astype(c.dtype), c / (c + 1e30), jnp.abs(c),
                jnp.sqrt(c), jnp.log(c), jnp.sign(c), jnp.exp(c * 0.01),
                c ** 2, c ** 0.5, jnp.sort(c), lax.cumsum(c, reverse=True),
                jnp.conj(c) * c,
                jnp.expm1(c * 1e-8), jnp.log1p(c * 1e-8), jnp.tanh(c * 0.1),
                jnp.isfinite(c), jnp.isnan(c)]
    return out


def _complex_inputs(r):
    re = [1.0, -4.0, -4.0, 0.0, -0.0, np.inf, -np.inf, np.nan, 3.0, -1.0,
          -1.0, 0.0, 2.0, 1e15]
    im = [2.0, 0.0, -0.0, 0.0, -0.0, 1.0, np.nan, 2.0, -np.inf, 0.0, -0.0,
          -3.0, 2.0, 1e15]
    c = np.array([complex(a, b) for a, b in zip(re, im)])
    zr = [0.0, 0.0, 1.0, 0.0, 2.0, 1.0, 1.0, 0.0, 1.0, -0.0, 1.0, 1.0, 0.0,
          1.0]
    return [c.astype(np.complex64), c.astype(np.complex128),
            np.array(zr, np.float32)]


# --- Floating-point corners --------------------------------------------------

def rounding_half_and_bf16(h, bf, f):
    # round (half away from zero and half to even), floor, ceil, sign and
    # trunc where f16 integers are 2 apart (past 2048) and bf16 ones past
    # 256; is_finite, and float -> bool (NaN is true, -0.0 false).
    out = []
    for x in (h, bf, f):
        out += [lax.round(x, lax.RoundingMethod.AWAY_FROM_ZERO),
                lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN),
                jnp.floor(x), jnp.ceil(x), jnp.sign(x), jnp.trunc(x),
                jnp.isfinite(x), x.astype(bool), jnp.rint(x), x % 2,
                jnp.fmod(x, -3), jnp.copysign(1, x)]
    return out


def _round_inputs(r):
    v = [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 2049.0, 2051.0, 4097.0, 257.0,
         258.0, 0.49999997, -0.0, np.nan, np.inf, -np.inf, 1e-8, 8191.5,
         -7.5, 3.5]
    return [np.array(v, np.float16), np.array(v, np.float32).astype(
        jnp.bfloat16), np.array(v, np.float32)]


def special_function_edges(d, h, p, x):
    # atan2 over signed zeros and infinities (f64 and f16), expm1 and log1p
    # at tiny arguments, erf_inv at and past +-1, lgamma and digamma at
    # non-positive integers, pow's corners (0^0, 0^-1, (-8)^(1/3), inf^0),
    # lax.pow with an integer exponent, logistic at extremes.
    s = jnp.array([0.0, -0.0, 0.0, -0.0, jnp.inf, -jnp.inf, 1.0, -1.0])
    t = jnp.array([0.0, 0.0, -0.0, -0.0, jnp.inf, jnp.inf, -jnp.inf, 0.0])
    return (jnp.arctan2(s, t), jnp.arctan2(s.astype(jnp.float16),
                                           t.astype(jnp.float16)),
            jnp.arctan2(d, d[::-1]), jnp.expm1(h), jnp.log1p(h),
            jnp.expm1(d * 1e-12), jnp.log1p(d * 1e-12),
            lax.erf_inv(p), lax.lgamma(x), lax.digamma(x + 0.5),
            jnp.power(jnp.array([0.0, 0.0, -8.0, jnp.inf, -0.0, 1.0]),
                      jnp.array([0.0, -1.0, 1 / 3, 0.0, -1.0, jnp.nan])),
            lax.pow(d, jnp.arange(d.shape[0], dtype=jnp.int32) - 3),
            jax.nn.sigmoid(d * 1e3), jax.nn.sigmoid(h * 1e3),
            jnp.log(jnp.abs(s)), jnp.sqrt(-s), 1 / s)


def _special_inputs(r):
    return [np.array([1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 1e-300, -1e300]),
            np.array([1e-4, -1e-4, 1e-7, 6e-8, -0.0, 0.5, 1e-3, -0.9],
                     np.float16),
            np.array([-1.0, 1.0, 0.999, -0.999, 1.5, 0.0, -0.0, 0.5],
                     np.float32),
            np.array([0.0, -1.0, -2.0, -3.5, 1.0, 2.0, 0.5, -0.5],
                     np.float32)]


def clamp_select_edges(u8, lo, hi, h, bmask, u64):
    # clamp with lo > hi (hi wins), NaN operand or bounds, u8 and bool
    # clamps; select of u64 and f16 by a broadcast bool; where with
    # scalars of other types (weak types).
    return (lax.clamp(lo, u8, hi), lax.clamp(hi, u8, lo),
            lax.clamp(jnp.float16(-1), h, jnp.float16(1)),
            lax.clamp(jnp.float16(1), h, jnp.float16(-1)),
            lax.clamp(jnp.float16(np.nan), h, jnp.float16(1)),
            jnp.clip(h, jnp.float16(0.5), None),
            jnp.where(bmask[:, None], u64[None, :], jnp.uint64(2**64 - 1)),
            jnp.where(bmask, h, 3), jnp.where(bmask, u8, -1),
            lax.select(bmask, u8, jnp.full_like(u8, 255)),
            lax.clamp(False, bmask, True))


def bool_arith(a, b, f):
    # bool arithmetic: add is or, mul is and, max and min, sorts, cumulative
    # sums and argmax of bool, a bool dot (or of ands), bool from float.
    return (a + b, a * b, jnp.maximum(a, b), jnp.minimum(a, b), a ^ b, ~a,
            jnp.sort(a), jnp.argsort(a, stable=True), jnp.cumsum(a),
            lax.cummax(a.astype(jnp.uint8)), jnp.argmax(a), jnp.argmin(a),
            jnp.dot(a.reshape(4, 3), b.reshape(3, 4)), f.astype(bool),
            jnp.sum(a), jnp.prod(a), a.astype(jnp.float16) - b,
            jnp.unique(a, size=3, fill_value=False), jnp.count_nonzero(a),
            lax.sort((a, b), num_keys=2))


def iota_past_exact(x):
    # iota of u8 past 256 (it wraps), of bf16 past 256 and f16 past 2048
    # (values round to the nearest representable), of s4 and f8, along an
    # inner dimension; arange of bf16 (computed in f32 then rounded).
    return (lax.iota(jnp.uint8, 300), lax.iota(jnp.int8, 260),
            lax.iota(jnp.bfloat16, 600), lax.iota(jnp.float16, 5000),
            lax.iota(jnp.int4, 8).astype(jnp.int8),
            lax.iota(jnp.float8_e4m3fn, 40).astype(jnp.float32),
            lax.broadcasted_iota(jnp.uint8, (2, 270, 3), 1),
            lax.broadcasted_iota(jnp.bfloat16, (3, 300), 1) + x,
            jnp.arange(250, 270, dtype=jnp.bfloat16),
            lax.iota(jnp.uint16, 70000)[-5:])


def unique_argmax_nan_dtypes(h, bf, d):
    # jnp.unique with size over f16 / bf16 / f64 holding NaNs and zeros of
    # both signs; argmax that finds the first NaN; searchsorted on f16.
    out = []
    for x in (h, bf, d):
        out += [jnp.unique(x, size=8, fill_value=0),
                jnp.unique(x, size=8, return_counts=True, fill_value=0),
                jnp.argmax(x), jnp.argmin(x),
                jnp.searchsorted(jnp.sort(x), jnp.array([0, 1, -0.0, np.inf],
                                                        x.dtype))]
    return out


def _unique_inputs(r):
    v = [1.0, np.nan, -0.0, 0.0, 2.0, np.nan, -1.0, 1.0, 0.0, np.inf, -0.0,
         2.0]
    return [np.array(v, np.float16), np.array(v, np.float32).astype(
        jnp.bfloat16), np.array(v, np.float64)]


def convert_to_f8_and_back_grads(x, w):
    # An fp8 training-step pattern: scale by amax, cast to e4m3fn (saturate
    # by clip first), dot in f32, gradient through the casts (a
    # straight-through estimator), e5m2 for the gradient cast.
    def q(x, dt, maxv):
        s = maxv / jnp.maximum(jnp.max(jnp.abs(x)), 1e-6)
        return (jnp.clip(x * s, -maxv, maxv).astype(dt).astype(jnp.float32)
                / s)

    def ste(x, dt, maxv):
        return x + lax.stop_gradient(q(x, dt, maxv) - x)

    def loss(w):
        y = ste(x, jnp.float8_e4m3fn, 448.0) @ ste(w, jnp.float8_e4m3fn,
                                                   448.0)
        return jnp.sum(ste(y, jnp.float8_e5m2, 57344.0) ** 2)

    return loss(w), jax.grad(loss)(w)


# --- Lax primitives users reach directly -------------------------------------

def reduce_and_or_xor_bool_axes(b, u32):
    # lax.reduce_and / reduce_or / reduce_xor on bool and u32 over several
    # axes at once (JAX's reduce_*_p), and jnp.all / any on integers.
    return (lax.reduce_and_p.bind(b, axes=(0, 2)),
            lax.reduce_or_p.bind(b, axes=(1,)),
            lax.reduce_xor_p.bind(b, axes=(0, 1, 2)),
            lax.reduce_and_p.bind(u32, axes=(1, 2)),
            lax.reduce_or_p.bind(u32, axes=(0,)),
            lax.reduce_xor_p.bind(u32, axes=(2,)),
            jnp.all(u32, axis=1), jnp.any(u32 & 1, axis=(0, 2)))


def expm_and_logaddexp_half(h, bf):
    # logaddexp, logsumexp and softmax in f16 and bf16 with -inf and large
    # entries, where the upcasts JAX inserts (and does not) matter.
    return (jnp.logaddexp(h, h[::-1]), jnp.logaddexp(bf, bf[::-1]),
            jax.nn.logsumexp(h), jax.nn.logsumexp(bf),
            jax.nn.softmax(h), jax.nn.softmax(bf), jax.nn.log_softmax(h),
            jnp.exp2(bf), jnp.log2(h), jnp.cbrt(bf),
            jax.nn.gelu(h), jax.nn.silu(bf), jnp.tanh(h), lax.rsqrt(bf))


def _half_inputs(r):
    v = [-np.inf, 0.0, 1.0, -1.0, 10.0, 11.0, -30.0, 5.5, 2.0, -0.0, 0.1,
         8.0, 3.0, -2.5]
    return [np.array(v, np.float16), np.array(v, np.float32).astype(
        jnp.bfloat16)]


PROGRAMS = {
    "int_div_rem_every_width": (int_div_rem_every_width, _div_inputs),
    "clz_popcnt_every_width": (clz_popcnt_every_width, _edge_int_inputs),
    "integer_pow_and_wrap": (integer_pow_and_wrap, lambda r: [
        ints(r, (9,), -128, 128, np.int8), ints(r, (9,), 0, 65536, np.uint16),
        ints(r, (9,), -2**40, 2**40, np.int64),
        np.array([-1, -2, 0, 1, 2, 3, 63, 64, -5], np.int32)]),
    "reduce_bitwise_every_width": (reduce_bitwise_every_width, lambda r: [
        ints(r, (5, 6), 0, 2**63, np.int64).astype(np.uint64) * 2 + 1,
        ints(r, (5, 6), -128, 128, np.int8), r.integers(0, 2, (5, 6)) > 0,
        ints(r, (5, 6), 0, 65536, np.uint16)]),
    "bitcast_changing_widths": (bitcast_changing_widths, _bitcast_inputs),
    "reduce_precision_odd_formats": (reduce_precision_odd_formats,
                                     _rp_inputs),
    "nextafter_every_float": (nextafter_every_float, _nextafter_inputs),
    "float_to_int_every_pair": (float_to_int_every_pair, _f2i_inputs),
    "int_to_float_rounding": (int_to_float_rounding, _i2f_inputs),
    "convert_double_rounding": (convert_double_rounding,
                                _double_rounding_inputs),
    "f8_arith_every_format": (f8_arith_every_format, _f8_inputs),
    "int4_arith": (int4_arith, _int4_inputs),
    "minmax_nan_negzero": (minmax_nan_negzero, _nan_inputs),
    "sort_total_order_floats": (sort_total_order_floats, _sort_inputs),
    "sort_multi_operand_keys": (sort_multi_operand_keys, _sort_multi_inputs),
    "topk_ties_dtypes": (topk_ties_dtypes, _topk_inputs),
    "scatter_duplicates_every_mode": (scatter_duplicates_every_mode,
                                      _scatter_inputs),
    "scatter_2d_windows_modes": (scatter_2d_windows_modes, _scatter2d_inputs),
    "gather_batching_dims": (gather_batching_dims, _gather_inputs),
    "dynamic_slice_index_types": (dynamic_slice_index_types, _ds_inputs),
    "dynamic_slice_vmapped_indices": (dynamic_slice_vmapped_indices,
                                      lambda r: [
        floats(r, (9,)), np.array([-128, -9, -1, 0, 6, 7, 127], np.int8),
        np.array([0, 5, 6, 7, 65535, 300, 8], np.uint16),
        np.array([0, 6, 2**63, 2**64 - 1, 7, 1, 2**32], np.uint64)]),
    "pad_cut_spread_dtypes": (pad_cut_spread_dtypes, lambda r: [
        ints(r, (6, 7), 0, 65536, np.uint16), r.integers(0, 2, (5, 8)) > 0,
        floats(r, (4, 3), np.float16), np.zeros((0, 1), np.float32)]),
    "slices_strides_rev": (slices_strides_rev, lambda r: [
        floats(r, (2, 3, 4, 5, 3)),
        ints(r, (6,), -8, 8, np.int8).astype(jnp.int4)]),
    "high_rank_shapes": (high_rank_shapes, lambda r: [
        floats(r, (2, 4, 5)), complexes(r, (2, 1, 3, 2, 4)),
        r.integers(0, 2, (2, 1, 3, 1, 2, 2, 3)) > 0]),
    "reduce_window_dilated_init": (reduce_window_dilated_init, lambda r: [
        (r.integers(-4, 5, (5, 7, 3)) / 4).astype(np.float32),
        ints(r, (6, 7), -5, 6, np.int16)]),
    "minmax_pool_grad_ties_bf16": (minmax_pool_grad_ties_bf16, lambda r: [
        (r.integers(0, 3, (2, 7, 6, 2)) / 2).astype(np.float32),
        (r.integers(0, 3, (2, 7, 6, 2)) / 2).astype(jnp.bfloat16)]),
    "conv_dilations_groups": (conv_dilations_groups, _conv_inputs),
    "conv_int_and_half": (conv_int_and_half, _conv_int_inputs),
    "dot_general_many_dims": (dot_general_many_dims, _dot_inputs),
    "mixed_precision_dots": (mixed_precision_dots, _mixed_dot_inputs),
    "cumulative_reverse_inner": (cumulative_reverse_inner, _cum_inputs),
    "rng_bits_odd_sizes": (rng_bits_odd_sizes, lambda r: [
        ints(r, (2,), 0, 2**62, np.int64).astype(np.uint64) * 3]),
    "prng_impls_inside": (prng_impls_inside, lambda r: [
        np.uint32(r.integers(0, 2**31)), prng_key(r)]),
    "while_big_tuple_carry": (while_big_tuple_carry, _while_inputs),
    "switch_many_branches": (switch_many_branches, lambda r: [
        np.int32(4), np.array([0, 3, 5, 6, 7, 8, 9, 10, 10, 2], np.int32),
        floats(r, (5,)), ints(r, (5,), 0, 256, np.uint8)]),
    "zero_sized_every_op": (zero_sized_every_op, _zero_inputs),
    "scalar_only_every_type": (scalar_only_every_type, lambda r: [
        np.bool_(True), np.uint8(200), np.int16(-32768), np.uint32(3),
        np.int64(-(2**40) - 3), np.float16(3.5), jnp.bfloat16(1.25),
        np.float32(-0.0), np.float64(2.5), np.complex64(1 - 2j)]),
    "big_u8_bit_histogram": (big_u8_bit_histogram, lambda r: [
        ints(r, (1 << 20,), 0, 256, np.uint8), floats(r, (1 << 18,))]),
    "big_strided_reductions": (big_strided_reductions, lambda r: [
        floats(r, (300, 257, 5)), ints(r, (70001,), -32768, 32768,
                                        np.int16)]),
    "tiny_shapes": (tiny_shapes, lambda r: [
        floats(r, (1, 1, 1, 1)), floats(r, (1, 1, 1, 1)), np.int32(0),
        np.float32(2.0)]),
    "variadic_reduce_custom": (variadic_reduce_custom, _variadic_inputs),
    "complex_edges": (complex_edges, _complex_inputs),
    "rounding_half_and_bf16": (rounding_half_and_bf16, _round_inputs),
    "special_function_edges": (special_function_edges, _special_inputs),
    "clamp_select_edges": (clamp_select_edges, lambda r: [
        ints(r, (6,), 0, 256, np.uint8), np.uint8(50), np.uint8(20),
        np.array([np.nan, -2, -0.0, 0.7, 3, np.inf], np.float16),
        np.array([True, False, True, True, False, False]),
        np.array([0, 2**63, 2**64 - 1, 5, 6, 7], np.uint64)]),
    "bool_arith": (bool_arith, lambda r: [
        r.integers(0, 2, 12) > 0, r.integers(0, 2, 12) > 0,
        np.array([np.nan, -0.0, 0.0, 1e-30, -np.inf, 2.0], np.float32)]),
    "iota_past_exact": (iota_past_exact, lambda r: [
        floats(r, (3, 1)).astype(jnp.bfloat16)]),
    "unique_argmax_nan_dtypes": (unique_argmax_nan_dtypes, _unique_inputs),
    "convert_to_f8_and_back_grads": (convert_to_f8_and_back_grads, lambda r: [
        floats(r, (4, 6)), floats(r, (6, 3))]),
    "reduce_and_or_xor_bool_axes": (reduce_and_or_xor_bool_axes, lambda r: [
        r.integers(0, 2, (3, 4, 5)) > 0,
        ints(r, (3, 4, 5), 0, 2**32, np.int64).astype(np.uint32)]),
    "expm_and_logaddexp_half": (expm_and_logaddexp_half, _half_inputs),
}
