"""The conformance cases: every opcode the reference evaluator implements
(hlo/evaluator/evaluator.cc, EvaluateInstruction, and the kernels'
type predicates in hlo/evaluator/kernels_*.cc), on every element type it
accepts, over a spread of shapes.

A case ("unit") is one instruction (or a few, for ops that need a
computation) on its own parameters; units are packed many to a module by
the runner (one process per module and platform, not per case) and
compared one output each. Everything here is deterministic: each unit's
random values are seeded from its name."""
import zlib

import numpy as np

import values as V
from values import ALL, COMPLEX, FLOATS, INTS


class Unit:
    """One case. `lines` are HLO instructions with {u} (the unit's unique
    prefix) and {p0}, {p1}, ... (its parameters); `result` is the
    instruction the module returns; `comps` are computations it calls,
    also written with {u}. `tol` names the comparison rule (compare.py)."""

    def __init__(self, op, group, type_label, shape_label, params, lines,
                 result, out_shape, tol, comps=(), bound=None):
        self.op = op
        self.group = group
        self.type = type_label
        self.shape = shape_label
        self.params = params  # [(shape text, ndarray)]
        self.lines = lines
        self.result = result
        self.out_shape = out_shape
        self.tol = tol
        self.comps = list(comps)
        self.bound = bound  # Per-element error bound (accumulating ops).
        # The bound on a GPU column where the op may use TF32 (an f32 dot at
        # default precision: XLA:GPU's default, and cuBLAS's in hloc's
        # cuda backend); None: `bound` everywhere.
        self.tf32_bound = None

    @property
    def name(self):
        return f"{self.op} {self.type} {self.shape}"


def rng_for(*key):
    return np.random.default_rng(zlib.crc32("/".join(map(str, key)).encode()))


def shape_text(t, dims, layout=None):
    s = f"{t}[{','.join(map(str, dims))}]"
    if layout is not None:
        s += "{" + ",".join(map(str, layout)) + "}"
    return s


# (dims, layout, label): scalar, odd 1-D lengths (not multiples of vector
# widths 4/8/16 or the 32-lane warp), 2-D and 3-D with non-default layouts,
# size-0 dimensions. The specials and large shapes are added per op.
SHAPES = [
    ((), None, "scalar"),
    ((33,), None, "33"),
    ((5, 17), (0, 1), "5x17{0,1}"),
    ((3, 4, 9), (1, 0, 2), "3x4x9{1,0,2}"),
    ((4, 0, 3), (0, 2, 1), "4x0x3{0,2,1}"),
]
# One large case per op (on its first accepted type): past the OpenMP
# split and the vector loops' remainder handling.
LARGE = ((257, 263), None, "257x263")

# --- Elementwise ops and the types their kernels accept ---------------------

FC = FLOATS + COMPLEX
NOT_PRED = INTS + FLOATS + COMPLEX
SIGNED = ["s8", "s16", "s32", "s64"] + FLOATS + COMPLEX  # The verifier's abs/sign.
# Unary: op -> (types, tolerance rule, result type map)
UNARY = {
    "abs": (SIGNED, "exact", "real"),
    "negate": (NOT_PRED, "exact", None),
    "sign": (SIGNED, "exact", None),
    "not": (["pred"] + INTS, "exact", None),
    "popcnt": (INTS, "exact", None),
    "count-leading-zeros": (INTS, "exact", None),
    "ceil": (FLOATS, "exact", None),
    "floor": (FLOATS, "exact", None),
    "round-nearest-afz": (FLOATS, "exact", None),
    "round-nearest-even": (FLOATS, "exact", None),
    "is-finite": (FLOATS, "exact", "pred"),
    "real": (FC, "exact", "real"),
    "imag": (FC, "exact", "real"),
    "sqrt": (FC, "sqrt", None),
    "rsqrt": (FC, "ulp", None),
    "cbrt": (FLOATS, "ulp", None),
    "exponential": (FC, "ulp", None),
    "exponential-minus-one": (FC, "ulp", None),
    "log": (FC, "ulp", None),
    "log-plus-one": (FC, "ulp", None),
    "logistic": (FC, "ulp", None),
    "sine": (FC, "trig", None),
    "cosine": (FC, "trig", None),
    "tan": (FC, "trig", None),
    "tanh": (FC, "ulp", None),
    "acos": (FC, "ulp", None),
    "acosh": (FC, "ulp", None),
    "asin": (FC, "ulp", None),
    "asinh": (FC, "ulp", None),
    "atan": (FC, "ulp", None),
    "atanh": (FC, "ulp", None),
    "cosh": (FC, "ulp", None),
    "sinh": (FC, "ulp", None),
    "erf": (FLOATS, "ulp", None),
}
BINARY = {
    "add": (ALL, "exact"),
    "subtract": (NOT_PRED, "exact"),
    "multiply": (ALL, "exact"),
    "divide": (NOT_PRED, "exact"),
    "remainder": (INTS + FLOATS, "exact"),
    "maximum": (["pred"] + INTS + FLOATS, "exact"),
    "minimum": (["pred"] + INTS + FLOATS, "exact"),
    "power": (NOT_PRED, "ulp"),
    "atan2": (FC, "trig"),
    "and": (["pred"] + INTS, "exact"),
    "or": (["pred"] + INTS, "exact"),
    "xor": (["pred"] + INTS, "exact"),
    "shift-left": (INTS, "exact"),
    "shift-right-arithmetic": (INTS, "exact"),
    "shift-right-logical": (INTS, "exact"),
    "complex": (["f32", "f64"], "exact"),
}
# Where a target computes an op to a looser rule than the IEEE one: f32
# division on cuda is div.full.f32 (within 2 ulps), as XLA:GPU compiles it
# (backends/gpu/nvptx_target.cc); f16 and bf16 divide in f32 and round
# once, so within one of their ulps. f64 division stays exactly rounded.
COLUMN_TOL = {("cuda", "divide", t): "ulp" for t in ("f16", "bf16", "f32")}


def rule_for(unit, column):
    """The comparison rule of `unit` on `column`."""
    return COLUMN_TOL.get((column, unit.op, unit.type), unit.tol)


# Complex arithmetic is not exactly rounded (no IEEE rule for it); complex
# power's error grows with |w log z| (compare.py, rule "power").
COMPLEX_TOL = {"multiply": "ulp", "divide": "ulp", "sqrt": "ulp",
               "abs": "ulp", "sign": "ulp", "power": "power"}


def power_condition(z, w):
    """|w log z| per element: how much z^w = exp(w log z) magnifies the
    rounding of w log z (0 where that is not finite: the specials)."""
    with np.errstate(all="ignore"):
        z = np.asarray(z).astype(np.complex128)
        k = np.abs(np.asarray(w).astype(np.complex128) * np.log(z))
    return np.where(np.isfinite(k), k, 0.0)


def complex_values(t, dims, rng, label, offset=0):
    """Inputs of complex functions that are not exactly rounded: moderate
    magnitudes on the regular shapes; NaN, infinities and extremes only in
    the "specials" case (see known_differences.py: the evaluator follows
    C99 Annex G there, the backends XLA's formulas)."""
    if label == "specials":
        return V.specials(t) if offset == 0 else np.roll(V.specials(t), offset)
    n = int(np.prod(dims)) if len(dims) else 1
    return V.make_complex(rng.uniform(-4, 4, n), rng.uniform(-4, 4, n), t).reshape(dims)


def real_of(t):
    return {"c64": "f32", "c128": "f64"}.get(t, t)


def complex_of(t):
    return {"f32": "c64", "f64": "c128"}[t]


def shapes_for(op, t, first_type):
    out = list(SHAPES)
    if t == first_type:
        out.append(LARGE)
    return out


def elementwise_units():
    units = []
    for op, (types, tol, result_map) in UNARY.items():
        for t in types:
            rt = {"real": real_of(t), "pred": "pred", None: t}[result_map]
            rule = COMPLEX_TOL.get(op, tol) if t in COMPLEX else tol
            for dims, layout, label in shapes_for(op, t, types[0]):
                rng = rng_for(op, t, label)
                x = V.fill(t, dims, rng)
                if t in COMPLEX and rule != "exact":
                    x = complex_values(t, dims, rng, label)
                units.append(Unit(
                    op, op, t, label, [(shape_text(t, dims, layout), x)],
                    [f"{{u}}r = {shape_text(rt, dims, layout)} {op}({{p0}})"],
                    "r", shape_text(rt, dims, layout), rule))
            x = V.specials(t)
            n = len(x)
            units.append(Unit(
                op, op, t, "specials", [(shape_text(t, [n]), x)],
                [f"{{u}}r = {shape_text(rt, [n])} {op}({{p0}})"], "r",
                shape_text(rt, [n]), rule))
    for op, (types, tol) in BINARY.items():
        for t in types:
            rt = complex_of(t) if op == "complex" else t
            rule = COMPLEX_TOL.get(op, tol) if t in COMPLEX else tol
            cases = []
            for dims, layout, label in shapes_for(op, t, types[0]):
                rng = rng_for(op, t, label)
                a = V.fill(t, dims, rng)
                b = V.fill(t, dims, rng, offset=5)
                if op.startswith("shift") and label != "scalar":
                    # Mostly in-range amounts, some past the width.
                    bits = V.DTYPES[t].itemsize * 8
                    b = rng.integers(-2, bits + 3, b.shape).astype(V.DTYPES[t])
                if t in COMPLEX and rule != "exact":
                    a = complex_values(t, dims, rng, label)
                    b = complex_values(t, dims, rng, label, 1)
                cases.append((dims, layout, label, a, b))
            a, b = V.cross(t)
            cases.append(((len(a),), None, "specials", a, b))
            for dims, layout, label, a, b in cases:
                st = shape_text(t, dims, layout)
                bound = None
                if rule == "power":
                    bound = power_condition(a, b)
                units.append(Unit(
                    op, op, t, label, [(st, a), (st, b)],
                    [f"{{u}}r = {shape_text(rt, dims, layout)} {op}({{p0}}, {{p1}})"],
                    "r", shape_text(rt, dims, layout), rule, bound=bound))
    units += compare_units() + select_clamp_units() + convert_units()
    units += reduce_precision_units() + bitcast_convert_units()
    return units


def compare_units():
    units = []
    for direction in ["EQ", "NE", "LT", "LE", "GT", "GE"]:
        for total in [False, True]:
            types = FLOATS if total else (
                ALL if direction in ("EQ", "NE") else ["pred"] + INTS + FLOATS)
            op = f"compare {direction}" + (" TOTALORDER" if total else "")
            attr = f"direction={direction}" + (", type=TOTALORDER" if total else "")
            for t in types:
                cases = []
                for dims, layout, label in SHAPES[:4]:
                    rng = rng_for(op, t, label)
                    cases.append((dims, layout, label, V.fill(t, dims, rng),
                                  V.fill(t, dims, rng, offset=3)))
                a, b = V.cross(t)
                cases.append(((len(a),), None, "specials", a, b))
                for dims, layout, label, a, b in cases:
                    st = shape_text(t, dims, layout)
                    units.append(Unit(
                        op, "compare", t, label, [(st, a), (st, b)],
                        [f"{{u}}r = {shape_text('pred', dims, layout)} compare({{p0}}, {{p1}}), {attr}"],
                        "r", shape_text("pred", dims, layout), "exact"))
    return units


def select_clamp_units():
    units = []
    for t in ALL:
        for dims, layout, label in SHAPES + [((len(V.specials(t)),), None, "specials")]:
            rng = rng_for("select", t, label)
            p = V.fill("pred", dims, rng)
            a, b = V.fill(t, dims, rng), V.fill(t, dims, rng, offset=7)
            st = shape_text(t, dims, layout)
            units.append(Unit(
                "select", "select", t, label,
                [(shape_text("pred", dims, layout), p), (st, a), (st, b)],
                [f"{{u}}r = {st} select({{p0}}, {{p1}}, {{p2}})"], "r", st,
                "exact"))
            if t in COMPLEX:
                continue
            lo = V.fill(t, dims, rng, offset=11)
            hi = V.fill(t, dims, rng, offset=13)
            units.append(Unit(
                "clamp", "clamp", t, label, [(st, lo), (st, a), (st, hi)],
                [f"{{u}}r = {st} clamp({{p0}}, {{p1}}, {{p2}})"], "r", st,
                "exact"))
    return units


def convert_units():
    units = []
    for src in ALL:
        for dst in ALL:
            if src == dst:
                continue
            if src in COMPLEX and dst not in COMPLEX:
                # Not an HLO conversion: the verifier rejects it, as XLA's
                # shape inference does (real() is the way).
                continue
            op = "convert"
            shapes = SHAPES[1:4] + [((len(V.specials(src)),), None, "specials")]
            for dims, layout, label in shapes:
                rng = rng_for(op, src, dst, label)
                x = V.specials(src) if label == "specials" else V.fill(src, dims, rng)
                rule = "exact"
                units.append(Unit(
                    op, f"convert.{src}", f"{src}->{dst}", label,
                    [(shape_text(src, dims, layout), x)],
                    [f"{{u}}r = {shape_text(dst, dims, layout)} convert({{p0}})"],
                    "r", shape_text(dst, dims, layout), rule))
    return units


def reduce_precision_units():
    units = []
    for e, m in [(5, 10), (8, 7), (4, 3), (5, 2), (11, 52)]:
        op = f"reduce-precision e{e}m{m}"
        for t in FLOATS:
            for dims, layout, label in SHAPES[1:4] + [((40,), None, "specials")]:
                rng = rng_for(op, t, label)
                x = V.specials(t) if label == "specials" else V.fill(t, dims, rng)
                st = shape_text(t, dims, layout)
                units.append(Unit(
                    op, "reduce-precision", t, label, [(st, x)],
                    [f"{{u}}r = {st} reduce-precision({{p0}}), exponent_bits={e}, mantissa_bits={m}"],
                    "r", st, "exact"))
    return units


def bitcast_convert_units():
    units = []
    pairs = [("f32", "s32"), ("s32", "f32"), ("f32", "u32"), ("u32", "f32"),
             ("f64", "s64"), ("u64", "f64"), ("f16", "s16"), ("u16", "f16"),
             ("bf16", "u16"), ("s16", "bf16"), ("f16", "bf16"), ("s8", "u8"),
             ("u16", "s16")]
    # Not pred <-> s8/u8: pred is one bit wide for bitcast-convert, so
    # those are width-changing (the backends decline them).
    for src, dst in pairs:
        for dims, layout, label in SHAPES[1:4] + [((len(V.specials(src)),), None, "specials")]:
            rng = rng_for("bitcast-convert", src, dst, label)
            x = V.specials(src) if label == "specials" else V.fill(src, dims, rng)
            units.append(Unit(
                "bitcast-convert", "bitcast-convert", f"{src}->{dst}", label,
                [(shape_text(src, dims, layout), x)],
                [f"{{u}}r = {shape_text(dst, dims, layout)} bitcast-convert({{p0}})"],
                "r", shape_text(dst, dims, layout), "exact"))
    return units
