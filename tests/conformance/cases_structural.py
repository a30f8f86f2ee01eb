"""Cases for the opcodes that are not elementwise: data movement, indexing,
reductions, sorting, contractions, control flow, random bits, FFT and
linear algebra. Fewer shapes than the elementwise sweep (each op's
attributes pick the shapes), every element type the evaluator takes for
data movement, the numeric types for arithmetic ones.

Accumulating ops (reduce add/multiply, reduce-window add, dot,
convolution, fft, linear algebra) carry a per-element error bound
computed here from the inputs: a sum of n terms computed in any order
differs from another order by at most (n-1) * eps * sum|terms| (the
classic bound for recursive summation), which is what a vectorised or
blocked target may legitimately do."""
import numpy as np

import values as V
from cases import Unit, rng_for, shape_text
from values import ALL, COMPLEX, FLOATS, INTS

NOT_COMPLEX = ["pred"] + INTS + FLOATS
NUMERIC = INTS + FLOATS + COMPLEX


def eps(t):
    r = {"c64": "f32", "c128": "f64"}.get(t, t)
    if r in FLOATS:
        return float(V.finfo(r).eps)
    return 0.0


def moderate(t, dims, rng, specials=True):
    """Values in [-4, 4) (integers: small), with a few NaN/Inf/-0 among
    the first elements of float arrays: sums stay far from overflow, so
    only rounding can differ between summation orders."""
    n = int(np.prod(dims)) if dims else 1
    dt = V.DTYPES[t]
    if t == "pred":
        x = rng.integers(0, 2, n).astype(dt)
    elif t in INTS:
        lo = 0 if t.startswith("u") else -8
        x = rng.integers(lo, 9, n).astype(dt)
    elif t in COMPLEX:
        x = V.make_complex(rng.uniform(-4, 4, n), rng.uniform(-4, 4, n), t)
    else:
        x = rng.uniform(-4, 4, n).astype(dt)
        if specials and n > 40:
            x[[3, 17, 29]] = np.array([-0.0, np.inf, np.nan]).astype(dt)
    return x.reshape(dims)


def integral(t, dims, rng):
    """Small integer values in any numeric type: sums are exact in every
    order, so accumulating ops compare bit for bit."""
    n = int(np.prod(dims)) if dims else 1
    lo = 0 if t.startswith("u") or t == "pred" else -4
    x = rng.integers(lo, 5, n)
    if t in COMPLEX:
        return V.make_complex(x, rng.integers(-4, 5, n), t).reshape(dims)
    return x.astype(V.DTYPES[t]).reshape(dims)


def unit(op, group, t, label, params, lines, out_shape, tol="exact",
         comps=(), bound=None, result="r"):
    return Unit(op, group, t, label, params, lines, result, out_shape, tol,
                comps, bound)


def scalar_comp(name, t, body):
    return ("{u}" + name + " {\n"
            f"  a = {t}[] parameter(0)\n  b = {t}[] parameter(1)\n"
            f"  ROOT r = {t}[] {body}\n}}\n")


def data_movement():
    out = []
    for t in ALL:
        rng = rng_for("move", t)
        f = lambda dims: V.fill(t, dims, rng)  # noqa: E731
        s = lambda dims, layout=None: shape_text(t, dims, layout)  # noqa: E731
        out.append(unit("broadcast", "broadcast", t, "5->3x5x4{0,2,1}",
                        [(s([5]), f((5,)))],
                        [f"{{u}}r = {s([3, 5, 4], [0, 2, 1])} broadcast({{p0}}), dimensions={{1}}"],
                        s([3, 5, 4], [0, 2, 1])))
        out.append(unit("broadcast", "broadcast", t, "scalar->7x0",
                        [(s([]), f(()))],
                        [f"{{u}}r = {s([7, 0])} broadcast({{p0}}), dimensions={{}}"],
                        s([7, 0])))
        out.append(unit("broadcast", "broadcast", t, "2x3->2x33x3{1,2,0}",
                        [(s([2, 3]), f((2, 3)))],
                        [f"{{u}}r = {s([2, 33, 3], [1, 2, 0])} broadcast({{p0}}), dimensions={{0,2}}"],
                        s([2, 33, 3], [1, 2, 0])))
        out.append(unit("reshape", "reshape", t, "4x6{0,1}->3x8",
                        [(s([4, 6], [0, 1]), f((4, 6)))],
                        [f"{{u}}r = {s([3, 8])} reshape({{p0}})"], s([3, 8])))
        out.append(unit("reshape", "reshape", t, "2x3x5{2,0,1}->30",
                        [(s([2, 3, 5], [2, 0, 1]), f((2, 3, 5)))],
                        [f"{{u}}r = {s([30])} reshape({{p0}})"], s([30])))
        out.append(unit("reshape", "reshape", t, "0x3->3x0",
                        [(s([0, 3]), f((0, 3)))],
                        [f"{{u}}r = {s([3, 0])} reshape({{p0}})"], s([3, 0])))
        out.append(unit("transpose", "transpose", t, "3x4x5{1,2,0}->5x3x4",
                        [(s([3, 4, 5], [1, 2, 0]), f((3, 4, 5)))],
                        [f"{{u}}r = {s([5, 3, 4])} transpose({{p0}}), dimensions={{2,0,1}}"],
                        s([5, 3, 4])))
        out.append(unit("transpose", "transpose", t, "17x33->33x17",
                        [(s([17, 33]), f((17, 33)))],
                        [f"{{u}}r = {s([33, 17])} transpose({{p0}}), dimensions={{1,0}}"],
                        s([33, 17])))
        out.append(unit("copy", "copy", t, "5x17{0,1}->{1,0}",
                        [(s([5, 17], [0, 1]), f((5, 17)))],
                        [f"{{u}}r = {s([5, 17], [1, 0])} copy({{p0}})"],
                        s([5, 17], [1, 0])))
        out.append(unit("slice", "slice", t, "20x9{0,1} strided",
                        [(s([20, 9], [0, 1]), f((20, 9)))],
                        [f"{{u}}r = {s([6, 5])} slice({{p0}}), slice={{[1:19:3], [0:9:2]}}"],
                        s([6, 5])))
        out.append(unit("slice", "slice", t, "7 empty",
                        [(s([7]), f((7,)))],
                        [f"{{u}}r = {s([0])} slice({{p0}}), slice={{[2:2]}}"], s([0])))
        out.append(unit("concatenate", "concatenate", t, "3x5,4x5{0,1},0x5",
                        [(s([3, 5]), f((3, 5))), (s([4, 5], [0, 1]), f((4, 5))),
                         (s([0, 5]), f((0, 5)))],
                        [f"{{u}}r = {s([7, 5])} concatenate({{p0}}, {{p1}}, {{p2}}), dimensions={{0}}"],
                        s([7, 5])))
        out.append(unit("concatenate", "concatenate", t, "2x3,2x7 dim1",
                        [(s([2, 3]), f((2, 3))), (s([2, 7]), f((2, 7)))],
                        [f"{{u}}r = {s([2, 10])} concatenate({{p0}}, {{p1}}), dimensions={{1}}"],
                        s([2, 10])))
        out.append(unit("pad", "pad", t, "5x7 edge+interior+negative",
                        [(s([5, 7], [0, 1]), f((5, 7))), (s([]), f(()))],
                        [f"{{u}}r = {s([8, 11])} pad({{p0}}, {{p1}}), padding=1_2x0_-2_1"],
                        s([8, 11])))
        out.append(unit("reverse", "reverse", t, "4x5x6{0,2,1} dims 0,2",
                        [(s([4, 5, 6], [0, 2, 1]), f((4, 5, 6)))],
                        [f"{{u}}r = {s([4, 5, 6], [0, 2, 1])} reverse({{p0}}), dimensions={{0,2}}"],
                        s([4, 5, 6], [0, 2, 1])))
        # Unsigned starts past their signed range (u8 255, u32 and u64 max)
        # must clamp to the far end, not wrap negative to 0.
        for it in ("s32", "s64", "u8", "u32", "u64"):
            idx = lambda v: np.array(v, dtype=V.DTYPES[it])  # noqa: E731
            st = shape_text(it, [])
            first = 7 if it.startswith("u") else -3
            out.append(unit("dynamic-slice", "dynamic-slice", t, f"10x8 {it} clamped",
                            [(s([10, 8]), f((10, 8))), (st, idx(first)),
                             (st, idx(np.iinfo(V.DTYPES[it]).max))],
                            [f"{{u}}r = {s([5, 4])} dynamic-slice({{p0}}, {{p1}}, {{p2}}), dynamic_slice_sizes={{5,4}}"],
                            s([5, 4])))
            out.append(unit("dynamic-update-slice", "dynamic-update-slice", t,
                            f"10x8 {it} clamped",
                            [(s([10, 8], [0, 1]), f((10, 8))), (s([4, 3]), f((4, 3))),
                             (st, idx(9)), (st, idx(np.iinfo(V.DTYPES[it]).min))],
                            [f"{{u}}r = {s([10, 8], [0, 1])} dynamic-update-slice({{p0}}, {{p1}}, {{p2}}, {{p3}})"],
                            s([10, 8], [0, 1])))
        gi = np.array([[3], [-2], [9], [100], [0]], dtype=np.int32)
        out.append(unit("gather", "gather", t, "10x7 rows, clamped",
                        [(s([10, 7]), f((10, 7))), ("s32[5,1]", gi)],
                        ["{u}r = " + s([5, 7]) + " gather({p0}, {p1}), offset_dims={1}, "
                         "collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, "
                         "slice_sizes={1,7}"], s([5, 7])))
        gi2 = np.array([[1, 2], [8, 5], [-1, 9], [4, 0]], dtype=np.int32)
        out.append(unit("gather", "gather", t, "10x7{0,1} 2x3 windows",
                        [(s([10, 7], [0, 1]), f((10, 7))), ("s32[4,2]", gi2)],
                        ["{u}r = " + s([4, 2, 3]) + " gather({p0}, {p1}), offset_dims={1,2}, "
                         "collapsed_slice_dims={}, start_index_map={0,1}, index_vector_dim=1, "
                         "slice_sizes={2,3}"], s([4, 2, 3])))
        if t not in ("pred",):
            out.append(unit("iota", "iota", t, "5x7{0,1} dim1", [],
                            [f"{{u}}r = {s([5, 7], [0, 1])} iota(), iota_dimension=1"],
                            s([5, 7], [0, 1])))
            out.append(unit("iota", "iota", t, "1000", [],
                            [f"{{u}}r = {s([1000])} iota(), iota_dimension=0"], s([1000])))
        out.append(unit("get-dimension-size", "get-dimension-size", t, "3x17 dim1",
                        [(s([3, 17]), f((3, 17)))],
                        ["{u}r = s32[] get-dimension-size({p0}), dimensions={1}"], "s32[]"))
    return out


def scatter_units():
    out = []
    for t in ALL:
        rng = rng_for("scatter", t)
        s = lambda dims, layout=None: shape_text(t, dims, layout)  # noqa: E731
        # Duplicate rows combine with add (small integers: exact in any
        # order); row 12 and -1 are out of bounds and skipped.
        idx = np.array([[2], [7], [2], [12], [-1], [0]], dtype=np.int32)
        comp = scalar_comp("add", t, "add(a, b)" if t != "pred" else "or(a, b)")
        out.append(unit("scatter", "scatter", t, "10x7 add, duplicates, OOB",
                        [(s([10, 7], [0, 1]), integral(t, (10, 7), rng)), ("s32[6,1]", idx),
                         (s([6, 7]), integral(t, (6, 7), rng))],
                        ["{u}r = " + s([10, 7], [0, 1]) + " scatter({p0}, {p1}, {p2}), "
                         "update_window_dims={1}, inserted_window_dims={0}, "
                         "scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply={u}add"],
                        s([10, 7], [0, 1]), comps=[comp]))
        idx2 = np.array([[1, 2], [8, 5], [4, 0]], dtype=np.int32)
        assign = ("{u}assign {\n" f"  a = {t}[] parameter(0)\n  ROOT b = {t}[] parameter(1)\n}}\n")
        out.append(unit("scatter", "scatter", t, "10x7 assign 2x3 windows",
                        [(s([10, 7]), V.fill(t, (10, 7), rng)), ("s32[3,2]", idx2),
                         (s([3, 2, 3]), V.fill(t, (3, 2, 3), rng))],
                        ["{u}r = " + s([10, 7]) + " scatter({p0}, {p1}, {p2}), "
                         "update_window_dims={1,2}, inserted_window_dims={}, "
                         "scatter_dims_to_operand_dims={0,1}, index_vector_dim=1, to_apply={u}assign"],
                        s([10, 7]), comps=[assign]))
    return out


def reduce_units():
    out = []
    kinds = [("add", NUMERIC + ["pred"]), ("multiply", NUMERIC), ("maximum", NOT_COMPLEX),
             ("minimum", NOT_COMPLEX), ("and", ["pred"] + INTS), ("or", ["pred"] + INTS)]
    shapes = [((33, 17), (0, 1), (1,)), ((33, 17), (0, 1), (0,)), ((3, 4, 9), (1, 0, 2), (0, 2)),
              ((1000,), None, (0,)), ((0, 5), None, (0,)), ((7,), None, (0,))]
    inits = {"add": 0, "multiply": 1, "maximum": -np.inf, "minimum": np.inf, "and": -1, "or": 0}
    for kind, types in kinds:
        op = f"reduce {kind}"
        for t in types:
            body = kind if not (t == "pred" and kind in ("add", "multiply")) else (
                "or" if kind == "add" else "and")
            comp = scalar_comp("red", t, f"{body}(a, b)")
            for dims, layout, rdims in shapes:
                rng = rng_for(op, t, dims, rdims)
                if kind == "multiply" and t in FLOATS + COMPLEX:
                    x = moderate(t, dims, rng) / 4 + (1 if t not in COMPLEX else 0)
                    x = x.astype(V.DTYPES[t])
                elif t in INTS or t == "pred" or kind in ("maximum", "minimum"):
                    x = V.fill(t, dims, rng)
                else:
                    x = moderate(t, dims, rng)
                init = inits[kind]
                if t == "pred":
                    init = {"add": 0, "and": 1, "or": 0, "maximum": 0, "minimum": 1}.get(kind, 0)
                elif t in INTS and kind in ("maximum", "minimum"):
                    info = np.iinfo(V.DTYPES[t])
                    init = info.min if kind == "maximum" else info.max
                elif t in INTS and kind == "and":
                    init = np.array(-1).astype(V.DTYPES[t]) if t.startswith("s") else np.iinfo(V.DTYPES[t]).max
                init_arr = np.array(init).astype(V.DTYPES[t])
                odims = [d for i, d in enumerate(dims) if i not in rdims]
                tol, bound = "exact", None
                if t in FLOATS + COMPLEX and kind in ("add", "multiply"):
                    tol = "accumulate"
                    a = np.abs(x.astype(np.complex128 if t in COMPLEX else np.float64))
                    a = np.where(np.isfinite(a), a, 0)
                    n = int(np.prod([dims[i] for i in rdims]))
                    if kind == "add":
                        total = a.sum(axis=rdims)
                    else:
                        total = np.prod(a, axis=rdims)
                    # Complex products: each step rounds both parts.
                    factor = 4 if t in COMPLEX else 1
                    bound = np.asarray(factor * max(n - 1, 0) * eps(t) * total)
                label = f"{'x'.join(map(str, dims))} dims {','.join(map(str, rdims))}"
                out.append(unit(op, f"reduce.{t}", t, label,
                                [(shape_text(t, dims, layout), x), (shape_text(t, []), init_arr)],
                                [f"{{u}}r = {shape_text(t, odims)} reduce({{p0}}, {{p1}}), "
                                 f"dimensions={{{','.join(map(str, rdims))}}}, to_apply={{u}}red"],
                                shape_text(t, odims), tol, comps=[comp], bound=bound))
    # Variadic reduce: the argmax pattern (value, index) with ties to the
    # lower index, as JAX lowers argmax.
    for t in ["f32", "bf16", "s32", "f64", "u8"]:
        rng = rng_for("argmax", t)
        x = V.fill(t, (9, 33), rng) if t in INTS else integral(t, (9, 33), rng)
        if t in FLOATS:
            x[2, 5] = np.nan
        cmp_type = ", type=TOTALORDER" if t in FLOATS else ""
        comp = ("{u}argmax {\n"
                f"  av = {t}[] parameter(0)\n  ai = s32[] parameter(1)\n"
                f"  bv = {t}[] parameter(2)\n  bi = s32[] parameter(3)\n"
                f"  gt = pred[] compare(av, bv), direction=GT{cmp_type}\n"
                f"  eq = pred[] compare(av, bv), direction=EQ{cmp_type}\n"
                "  lt = pred[] compare(ai, bi), direction=LT\n"
                "  tie = pred[] and(eq, lt)\n  take = pred[] or(gt, tie)\n"
                f"  v = {t}[] select(take, av, bv)\n  i = s32[] select(take, ai, bi)\n"
                f"  ROOT r = ({t}[], s32[]) tuple(v, i)\n}}\n")
        lowest = np.array(-np.inf if t in FLOATS else np.iinfo(V.DTYPES[t]).min).astype(V.DTYPES[t])
        lines = [f"{{u}}io = s32[9,33] iota(), iota_dimension=1",
                 f"{{u}}t = ({t}[9], s32[9]) reduce({{p0}}, {{u}}io, {{p1}}, {{p2}}), dimensions={{1}}, to_apply={{u}}argmax",
                 "{u}r = s32[9] get-tuple-element({u}t), index=1"]
        out.append(unit("reduce variadic argmax", "reduce.variadic", t, "9x33",
                        [(shape_text(t, [9, 33]), x), (shape_text(t, []), lowest),
                         ("s32[]", np.array(0, dtype=np.int32))],
                        lines, "s32[9]", comps=[comp]))
    return out


def window_units():
    out = []
    for t in ["f32", "f64", "bf16", "f16", "s32", "u8", "s64"]:
        rng = rng_for("window", t)
        dt = V.DTYPES[t]
        low = np.array(-np.inf if t in FLOATS else np.iinfo(dt).min).astype(dt)
        maxc = scalar_comp("max", t, "maximum(a, b)")
        addc = scalar_comp("add", t, "add(a, b)")
        x = V.fill(t, (9, 13), rng)
        out.append(unit("reduce-window max", "reduce-window", t, "9x13 3x2 s2x1 pad",
                        [(shape_text(t, [9, 13], [0, 1]), x), (shape_text(t, []), low)],
                        ["{u}r = " + shape_text(t, [5, 13]) + " reduce-window({p0}, {p1}), "
                         "window={size=3x2 stride=2x1 pad=1_1x0_1}, to_apply={u}max"],
                        shape_text(t, [5, 13]), comps=[maxc]))
        y = integral(t, (12, 11), rng)
        out.append(unit("reduce-window add", "reduce-window", t, "12x11 dilated",
                        [(shape_text(t, [12, 11]), y), (shape_text(t, []), np.array(0).astype(dt))],
                        ["{u}r = " + shape_text(t, [6, 10]) + " reduce-window({p0}, {p1}), "
                         "window={size=2x3 stride=2x1 rhs_dilate=1x2 lhs_dilate=1x1 pad=0_0x1_2}, to_apply={u}add"],
                        shape_text(t, [6, 10]), comps=[addc]))
        # select-and-scatter: small integers so ties (first in window wins)
        # and sums are exact on every target.
        operand = integral(t, (8, 9), rng)
        source = integral(t, (4, 4), rng)
        gec = ("{u}ge {\n" f"  a = {t}[] parameter(0)\n  b = {t}[] parameter(1)\n"
               "  ROOT r = pred[] compare(a, b), direction=GE\n}\n")
        out.append(unit("select-and-scatter", "select-and-scatter", t, "8x9 3x3 s2",
                        [(shape_text(t, [8, 9]), operand), (shape_text(t, [4, 4]), source),
                         (shape_text(t, []), np.array(0).astype(dt))],
                        ["{u}r = " + shape_text(t, [8, 9]) + " select-and-scatter({p0}, {p1}, {p2}), "
                         "window={size=3x3 stride=2x2 pad=0_1x0_0}, select={u}ge, scatter={u}add"],
                        shape_text(t, [8, 9]), comps=[gec, addc]))
    return out


def sort_units():
    out = []
    for t in NOT_COMPLEX:
        rng = rng_for("sort", t)
        total = ", type=TOTALORDER" if t in FLOATS else ""
        lt = ("{u}lt {\n" f"  a = {t}[] parameter(0)\n  b = {t}[] parameter(1)\n"
              f"  ROOT r = pred[] compare(a, b), direction=LT{total}\n}}\n")
        x = V.fill(t, (200,), rng)
        out.append(unit("sort", "sort", t, "200 ascending",
                        [(shape_text(t, [200]), x)],
                        [f"{{u}}r = {shape_text(t, [200])} sort({{p0}}), dimensions={{0}}, to_apply={{u}}lt"],
                        shape_text(t, [200]), comps=[lt]))
        y = V.fill(t, (5, 17), rng)
        out.append(unit("sort", "sort", t, "5x17{0,1} rows",
                        [(shape_text(t, [5, 17], [0, 1]), y)],
                        [f"{{u}}r = {shape_text(t, [5, 17], [0, 1])} sort({{p0}}), dimensions={{1}}, to_apply={{u}}lt"],
                        shape_text(t, [5, 17], [0, 1]), comps=[lt]))
        # Stable key/value sort: equal keys keep their order.
        keys = integral(t, (7, 33), rng)
        kv = ("{u}kv {\n" f"  a = {t}[] parameter(0)\n  b = {t}[] parameter(1)\n"
              "  c = s32[] parameter(2)\n  d = s32[] parameter(3)\n"
              f"  ROOT r = pred[] compare(a, b), direction=LT{total}\n}}\n")
        out.append(unit("sort stable key-value", "sort", t, "7x33 dim1",
                        [(shape_text(t, [7, 33]), keys)],
                        ["{u}io = s32[7,33] iota(), iota_dimension=1",
                         f"{{u}}s = ({shape_text(t, [7, 33])}, s32[7,33]) sort({{p0}}, {{u}}io), dimensions={{1}}, is_stable=true, to_apply={{u}}kv",
                         "{u}r = s32[7,33] get-tuple-element({u}s), index=1"],
                        "s32[7,33]", comps=[kv]))
        if t != "pred":
            z = V.fill(t, (5, 33), rng)
            out.append(unit("topk", "topk", t, "5x33 k=4",
                            [(shape_text(t, [5, 33]), z)],
                            [f"{{u}}t = ({shape_text(t, [5, 4])}, s32[5,4]) topk({{p0}}), k=4, largest=true",
                             f"{{u}}r = {shape_text(t, [5, 4])} get-tuple-element({{u}}t), index=0"],
                            shape_text(t, [5, 4])))
    return out


def dot_units():
    out = []
    dims_list = [((5, 7), (7, 3), "5x7 . 7x3", "lhs_contracting_dims={1}, rhs_contracting_dims={0}", (5, 3)),
                 ((2, 5, 7), (2, 7, 3), "batch 2x5x7 . 2x7x3",
                  "lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}",
                  (2, 5, 3)),
                 ((33,), (33,), "33 . 33", "lhs_contracting_dims={0}, rhs_contracting_dims={0}", ()),
                 ((65, 130), (130, 33), "65x130 . 130x33",
                  "lhs_contracting_dims={1}, rhs_contracting_dims={0}", (65, 33)),
                 ((4, 0), (0, 3), "4x0 . 0x3", "lhs_contracting_dims={1}, rhs_contracting_dims={0}", (4, 3))]
    for t in ["f32", "f64", "bf16", "f16", "s32", "s64", "u8", "s8", "c64", "c128", "pred"]:
        for ld, rd, label, attr, od in dims_list:
            rng = rng_for("dot", t, label)
            a, b = moderate(t, ld, rng, specials=False), moderate(t, rd, rng, specials=False)
            tol, bound = "exact", None
            if t in FLOATS + COMPLEX:
                tol = "accumulate"
                wide = np.complex128 if t in COMPLEX else np.float64
                A, B = np.abs(a.astype(wide)), np.abs(b.astype(wide))
                k = ld[-1] if label != "33 . 33" else 33
                if label.startswith("batch"):
                    prod = np.einsum("bik,bkj->bij", A, B)
                elif label == "33 . 33":
                    prod = np.array((A * B).sum())
                else:
                    prod = A @ B
                bound = np.asarray(4 * max(k, 1) * eps(t) * prod)
            lay = (0, 1) if len(ld) == 2 else None
            out.append(unit("dot", f"dot.{t}", t, label,
                            [(shape_text(t, ld, lay), a), (shape_text(t, rd), b)],
                            [f"{{u}}r = {shape_text(t, od)} dot({{p0}}, {{p1}}), {attr}"],
                            shape_text(t, od), tol, bound=bound))
            if t == "f32":
                # TF32 rounds each operand to 10 mantissa bits (2^-11
                # relative), so each product is off by up to 2^-10 of
                # itself; the f32 sum's own bound comes on top. A dropped
                # term or a wrong index is still far outside it.
                out[-1].tf32_bound = bound + 2.0 ** -10 * prod
    # Mixed precision: s8 x s8 -> s32 and bf16 x bf16 -> f32.
    for src, dst in [("s8", "s32"), ("bf16", "f32"), ("f16", "f32")]:
        rng = rng_for("dot-mixed", src)
        a = V.fill(src, (6, 40), rng) if src == "s8" else moderate(src, (6, 40), rng, False)
        b = V.fill(src, (40, 5), rng) if src == "s8" else moderate(src, (40, 5), rng, False)
        tol, bound = "exact", None
        if dst == "f32":
            tol = "accumulate"
            bound = 4 * 40 * eps("f32") * (np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64)))
        out.append(unit("dot mixed", "dot.mixed", f"{src}->{dst}", "6x40 . 40x5",
                        [(shape_text(src, [6, 40]), a), (shape_text(src, [40, 5]), b)],
                        [f"{{u}}r = {shape_text(dst, [6, 5])} dot({{p0}}, {{p1}}), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}"],
                        shape_text(dst, [6, 5]), tol, bound=bound))
    return out


def conv_bound(x, w, stride, pad):
    """|x| convolved with |w| (b01f input, 01io kernel), the magnitude the
    rounding error of each output scales with."""
    x = np.abs(x.astype(np.float64))
    w = np.abs(w.astype(np.float64))
    x = np.pad(x, ((0, 0), (pad, pad), (pad, pad), (0, 0)))
    kh, kw = w.shape[:2]
    oh = (x.shape[1] - kh) // stride + 1
    ow = (x.shape[2] - kw) // stride + 1
    out = np.zeros((x.shape[0], oh, ow, w.shape[3]))
    for i in range(oh):
        for j in range(ow):
            patch = x[:, i * stride:i * stride + kh, j * stride:j * stride + kw, :]
            out[:, i, j, :] = np.einsum("bhwc,hwco->bo", patch, w)
    return out


def conv_units():
    out = []
    for t in ["f32", "f64", "bf16", "f16", "s32"]:
        rng = rng_for("conv", t)
        x = moderate(t, (2, 9, 9, 3), rng, specials=False)
        w = moderate(t, (3, 3, 3, 4), rng, specials=False)
        tol, bound = "exact", None
        if t in FLOATS:
            tol = "accumulate"
            bound = 4 * 27 * eps(t) * conv_bound(x, w, 2, 1)
        out.append(unit("convolution", "convolution", t, "2x9x9x3 * 3x3x3x4 s2 pad1",
                        [(shape_text(t, [2, 9, 9, 3]), x), (shape_text(t, [3, 3, 3, 4]), w)],
                        ["{u}r = " + shape_text(t, [2, 5, 5, 4]) + " convolution({p0}, {p1}), "
                         "window={size=3x3 stride=2x2 pad=1_1x1_1}, dim_labels=b01f_01io->b01f"],
                        shape_text(t, [2, 5, 5, 4]), tol, bound=bound))
        # Grouped (depthwise-style) 1-D convolution.
        y = integral(t, (1, 17, 4), rng)
        k = integral(t, (3, 2, 4), rng)
        out.append(unit("convolution", "convolution", t, "1x17x4 groups=2 dilated",
                        [(shape_text(t, [1, 17, 4]), y), (shape_text(t, [3, 2, 4]), k)],
                        ["{u}r = " + shape_text(t, [1, 13, 4]) + " convolution({p0}, {p1}), "
                         "window={size=3 rhs_dilate=2}, dim_labels=b0f_0io->b0f, feature_group_count=2"],
                        shape_text(t, [1, 13, 4])))
    return out


def control_units():
    out = []
    for t in ["f32", "s32", "bf16", "u64", "c64"]:
        rng = rng_for("control", t)
        x = V.fill(t, (7,), rng)
        s = shape_text(t, [7])
        # while: adds x to an accumulator 5 times (exact for these inputs
        # in every type: integers wrap, floats see the same operations).
        cond = ("{u}cond {\n" f"  p = (s32[], {s}, {s}) parameter(0)\n"
                "  i = s32[] get-tuple-element(p), index=0\n  n = s32[] constant(5)\n"
                "  ROOT c = pred[] compare(i, n), direction=LT\n}\n")
        body = ("{u}body {\n" f"  p = (s32[], {s}, {s}) parameter(0)\n"
                "  i = s32[] get-tuple-element(p), index=0\n  one = s32[] constant(1)\n"
                "  j = s32[] add(i, one)\n"
                f"  a = {s} get-tuple-element(p), index=1\n  x = {s} get-tuple-element(p), index=2\n"
                f"  b = {s} add(a, x)\n  ROOT r = (s32[], {s}, {s}) tuple(j, b, x)\n}}\n")
        out.append(unit("while", "control", t, "5 iterations",
                        [(s, x), (s, V.fill(t, (7,), rng, 3))],
                        ["{u}z = s32[] constant(0)",
                         f"{{u}}init = (s32[], {s}, {s}) tuple({{u}}z, {{p1}}, {{p0}})",
                         f"{{u}}w = (s32[], {s}, {s}) while({{u}}init), condition={{u}}cond, body={{u}}body",
                         f"{{u}}r = {s} get-tuple-element({{u}}w), index=1"],
                        s, comps=[cond, body]))
        neg = ("{u}neg {\n" f"  p = {s} parameter(0)\n  ROOT r = {s} negate(p)\n}}\n")
        same = ("{u}same {\n" f"  p = {s} parameter(0)\n  ROOT r = {s} copy(p)\n}}\n")
        sq = ("{u}sq {\n" f"  p = {s} parameter(0)\n  ROOT r = {s} multiply(p, p)\n}}\n")
        for sel in (0, 1, 2, 7, -1):
            out.append(unit("conditional", "control", t, f"index {sel}",
                            [("s32[]", np.array(sel, dtype=np.int32)), (s, x), (s, x), (s, x)],
                            [f"{{u}}r = {s} conditional({{p0}}, {{p1}}, {{p2}}, {{p3}}), "
                             "branch_computations={{u}neg, {u}same, {u}sq}"],
                            s, comps=[neg, same, sq]))
        for sel in (True, False):
            out.append(unit("conditional", "control", t, f"pred {sel}",
                            [("pred[]", np.array(sel)), (s, x), (s, x)],
                            [f"{{u}}r = {s} conditional({{p0}}, {{p1}}, {{p2}}), "
                             "true_computation={u}neg, false_computation={u}sq"],
                            s, comps=[neg, sq]))
        out.append(unit("call", "control", t, "7",
                        [(s, x)], [f"{{u}}r = {s} call({{p0}}), to_apply={{u}}sq"], s, comps=[sq]))
        fma = ("{u}fma {\n" f"  a = {t}[] parameter(0)\n  b = {t}[] parameter(1)\n"
               f"  m = {t}[] multiply(a, b)\n  ROOT r = {t}[] add(m, a)\n}}\n")
        y = V.fill(t, (7,), rng, 5)
        out.append(unit("map", "control", t, "7 a*b+a",
                        [(s, x), (s, y)],
                        [f"{{u}}r = {s} map({{p0}}, {{p1}}), dimensions={{0}}, to_apply={{u}}fma"],
                        s, comps=[fma]))
    return out


def rng_units():
    out = []
    for alg in ("rng_three_fry", "rng_philox", "rng_default"):
        for st, data in (("u64[2]", "u32[5,7]"), ("u64[3]", "u64[33]"), ("u64[2]", "f32[9]"),
                         ("u64[3]", "u8[17]")):
            if alg == "rng_three_fry" and st == "u64[3]":
                continue
            if alg == "rng_philox" and st == "u64[2]":
                continue
            if data.startswith("f32"):
                continue  # rng-bit-generator produces unsigned integers only.
            rng = rng_for("rng", alg, st, data)
            n = 2 if st == "u64[2]" else 3
            state = rng.integers(0, 2**63, n, dtype=np.uint64)
            for index, shape in ((0, st), (1, data)):
                out.append(unit(f"rng-bit-generator {alg}", "rng-bit-generator",
                                data.split("[")[0], f"{data} output {index}",
                                [(st, state)],
                                [f"{{u}}g = ({st}, {data}) rng-bit-generator({{p0}}), algorithm={alg}",
                                 f"{{u}}r = {shape} get-tuple-element({{u}}g), index={index}"],
                                shape))
    return out


def fft_units():
    out = []
    for ct, rt in (("c64", "f32"), ("c128", "f64")):
        for kind, n, ins, outs in (("FFT", 8, ct, ct), ("IFFT", 12, ct, ct),
                                   ("RFFT", 16, rt, ct), ("IRFFT", 10, ct, rt)):
            rng = rng_for("fft", kind, ct)
            in_n = n // 2 + 1 if kind == "IRFFT" else n
            out_n = n // 2 + 1 if kind == "RFFT" else n
            x = moderate(ins, (3, in_n), rng, specials=False)
            mag = np.abs(x.astype(np.complex128)).sum(axis=1, keepdims=True)
            if kind in ("IFFT", "IRFFT"):
                mag = mag / n * 2  # IRFFT counts the mirrored half twice.
            bound = np.broadcast_to(4 * n * eps(ct) * mag, (3, out_n)).copy()
            out.append(unit("fft", "fft", f"{ins}->{outs}", f"{kind} 3x{n}",
                            [(shape_text(ins, [3, in_n]), x)],
                            [f"{{u}}r = {shape_text(outs, [3, out_n])} fft({{p0}}), fft_type={kind}, fft_length={{{n}}}"],
                            shape_text(outs, [3, out_n]), "accumulate", bound=bound))
    return out


def linalg_units():
    out = []
    for t in ["f32", "f64"]:
        rng = rng_for("linalg", t)
        n = 6
        m = rng.uniform(-1, 1, (2, n, n))
        spd = (m @ np.swapaxes(m, 1, 2) + n * np.eye(n)).astype(V.DTYPES[t])
        # Backward-stable factorisations: error about n * eps * ||A||
        # (here ||A|| <= 2n), with a factor for the condition (well
        # conditioned by construction).
        bound = np.full((2, n, n), 16 * n * n * eps(t) * 2 * n)
        for lower in ("true", "false"):
            out.append(unit("cholesky", "linalg", t, f"2x{n}x{n} lower={lower}",
                            [(shape_text(t, [2, n, n]), spd)],
                            [f"{{u}}r = {shape_text(t, [2, n, n])} cholesky({{p0}}), lower={lower}"],
                            shape_text(t, [2, n, n]), "accumulate", bound=bound))
        a = (np.tril(rng.uniform(-1, 1, (n, n))) + 3 * np.eye(n)).astype(V.DTYPES[t])
        b = rng.uniform(-1, 1, (n, 4)).astype(V.DTYPES[t])
        for transpose in ("NO_TRANSPOSE", "TRANSPOSE"):
            out.append(unit("triangular-solve", "linalg", t, f"{n}x{n} left lower {transpose}",
                            [(shape_text(t, [n, n]), a), (shape_text(t, [n, 4]), b)],
                            [f"{{u}}r = {shape_text(t, [n, 4])} triangular-solve({{p0}}, {{p1}}), "
                             f"left_side=true, lower=true, unit_diagonal=false, transpose_a={transpose}"],
                            shape_text(t, [n, 4]), "accumulate",
                            bound=np.full((n, 4), 16 * n * n * eps(t))))
    return out


def units():
    return (data_movement() + scatter_units() + reduce_units() + window_units() +
            sort_units() + dot_units() + conv_units() + control_units() +
            rng_units() + fft_units() + linalg_units())
