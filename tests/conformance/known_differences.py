"""Differences between a target and the evaluator that are understood and
accepted for now, each with its reason. An entry matches a case by column,
op, type and shape label (shell patterns) and by how it failed ("fail": a
wrong value; "unsupported": the strict compiler declines it, so the x86
host would run it in the evaluator with --fallback and AArch64 and the
GPUs cannot run it at all). run.py --check fails on any mismatch not
listed here, and (on an unsharded run) on an entry that no longer matches
anything, so that a fixed difference leaves this list."""
import fnmatch

CPU = "x86*"  # x86 and x86-64-v2 (the same code generator and runtime).
COMPILED = "[xarc]*"  # x86, x86-64-v2, aarch64, rocm, cuda.
GPU = "[rc][ou][cd]*"  # rocm and cuda (one GPU backend).

COMPLEX_NOT_COMPILED = ("acos", "acosh", "asin", "asinh", "atan", "atanh",
                        "cosh", "sinh", "logistic", "power", "atan2")

KNOWN = [
    *[{"column": COMPILED, "op": op, "type": "c*", "status": ("unsupported",),
       "reason": "The elemental emitter has no complex formula for acos, "
                 "acosh, asin, asinh, atan, atanh, cosh, sinh, logistic, "
                 "power and atan2 (XLA has one for each): the x86 host runs "
                 "them in the evaluator (--fallback), the other targets "
                 "refuse them. A gap to close, not a wrong answer."}
      for op in COMPLEX_NOT_COMPILED],
    {"column": COMPILED, "op": "convert", "type": "c*->[!c]*",
     "status": ("unsupported",),
     "reason": "Convert from a complex to a real type: XLA's shape inference "
               "rejects it (real() is the way), the backends decline it, but "
               "hloc's verifier accepts it and the evaluator takes the real "
               "part. The verifier should reject it as XLA does."},
    {"column": COMPILED, "op": "get-dimension-size", "type": "*",
     "status": ("unsupported",),
     "reason": "get-dimension-size of a static shape is a constant, but no "
               "pass folds it and no backend emits it: the x86 host runs it "
               "in the evaluator, the other targets refuse it."},
    {"column": "rocm", "op": "fft", "type": "*", "status": ("unsupported",),
     "reason": "The rocm backend has no FFT library to call (Debian has no "
               "rocFFT; cuda calls cuFFT)."},
    {"column": "aarch64", "op": "fft", "type": "*", "status": ("unsupported",),
     "reason": "The CPU backend runs fft as a host library call, which the "
               "AArch64 AOT target (no evaluator, no host library) cannot "
               "make."},
    {"column": GPU, "op": "dot", "type": "pred", "status": ("unsupported",),
     "reason": "The GPU backend does not compile pred contractions."},
    # Complex functions at non-finite, extreme or denormal parts.
    *[{"column": COMPILED, "op": op, "type": "c*", "shape": "specials",
       "reason": "Complex values with NaN/Inf, extreme (near overflow) or "
                 "denormal parts: the evaluator follows C99 Annex G "
                 "(libstdc++: exp(-inf+nan i) = -0, sin(x+inf i) = inf i), "
                 "the backends XLA's textbook formulas (sin(a)cosh(b) + "
                 "i cos(a)sinh(b), products without inf recovery), which "
                 "give NaN or overflow there; XLA does not define these "
                 "values. The specials case also shows two real bugs of the "
                 "complex emitter, listed below for expm1 and log1p."}
      for op in ("exponential", "log", "sine", "cosine", "multiply", "divide",
                 "sqrt", "rsqrt")],
    *[{"column": COMPILED, "op": op, "type": "c*",
       "reason": "Bug, not fixed yet: the complex emitter computes expm1(z) "
                 "as exp(z) - 1 and log1p(z) as log(1 + z), losing the "
                 "small results to cancellation (expm1(0.001) = "
                 "0.0010005002 in c64, 300 ulps off; c128 6 ulps at |z| "
                 "about 0.08) and log1p(-1) = 0 instead of -inf. XLA uses "
                 "expm1/log1p of the real part."}
      for op in ("exponential-minus-one", "log-plus-one")],
    # libm under the x86 runtime's DAZ.
    *[{"column": CPU, "op": op, "type": t,
       "reason": "x86 runtime runs the kernels with DAZ|FTZ (as XLA:CPU), and "
                 "these calls go to glibc, whose routines assume IEEE mode "
                 "and misread a denormal argument: log(5e-324) = -745.13 "
                 "(IEEE -744.44, flushed -inf), atan2f(d, d) = NaN, "
                 "pow(d, 0.5) off by a factor. Only denormal inputs are "
                 "affected. Fix: rescale or flush denormal arguments before "
                 "the call, as cbrt now does (math_library.cc)."}
      for op, t in (("log", "f64"), ("power", "f32"), ("power", "f64"),
                    ("atan2", "f32"), ("atan2", "f64"))],
]


def match(column, op, type_label, shape_label, status):
    for entry in KNOWN:
        if (fnmatch.fnmatch(column, entry["column"]) and
                fnmatch.fnmatch(op, entry["op"]) and
                fnmatch.fnmatch(type_label, entry["type"]) and
                fnmatch.fnmatch(shape_label, entry.get("shape", "*")) and
                status in entry.get("status", ("fail",))):
            return entry
    return None
