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

KNOWN = [
    {"column": "rocm", "op": "fft", "type": "*", "status": ("unsupported",),
     "reason": "The rocm backend has no FFT library to call (Debian has no "
               "rocFFT; cuda calls cuFFT)."},
    {"column": "aarch64", "op": "fft", "type": "*", "status": ("unsupported",),
     "reason": "The CPU backend runs fft as a host library call, which the "
               "AArch64 AOT target (no evaluator, no host library) cannot "
               "make."},
    # Complex functions at non-finite, extreme or denormal parts.
    *[{"column": COMPILED, "op": op, "type": "c*", "shape": "specials",
       "reason": "Complex values with NaN/Inf, extreme (near overflow) or "
                 "denormal parts: the evaluator follows C99 Annex G "
                 "(libstdc++: exp(-inf+nan i) = -0, sin(x+inf i) = inf i), "
                 "the backends XLA's textbook formulas (sin(a)cosh(b) + "
                 "i cos(a)sinh(b), products without inf recovery), which "
                 "give NaN or overflow there; XLA does not define these "
                 "values."}
      for op in ("exponential", "log", "sine", "cosine", "multiply", "divide",
                 "sqrt", "rsqrt")],
    {"column": COMPILED, "op": "exponential-minus-one", "type": "c*",
     "shape": "specials",
     "reason": "expm1 at infinite and near-overflow parts: the evaluator "
               "keeps C99's exp(z) - 1 there (expm1(-inf - inf i) = -1), the "
               "backends XLA's expm1(a) cos b - 2 sin^2(b/2) + i e^a sin b, "
               "which gives NaN (inf * 0) or overflows an intermediate "
               "product (89 + 89i in c64). XLA:CPU (jax 0.10.2) gives the "
               "backends' values at 159 of these 160 inputs."},
    {"column": CPU, "op": "log-plus-one", "type": "c128", "shape": "specials",
     "reason": "x86 flushes a denormal imaginary part to zero (DAZ, as "
               "XLA:CPU), which turns the angle atan2(b, 1 + a) of a point "
               "left of -1 from +pi to -pi; XLA:CPU gives -pi too. AArch64 "
               "keeps denormals and matches."},
    {"column": COMPILED, "op": "logistic", "type": "c*", "shape": "specials",
     "reason": "logistic(+-inf +- inf i): 1 / (1 + exp(-z)) is NaN there "
               "(exp of an infinite real and imaginary part), as XLA's "
               "logistic expander gives (XLA:CPU agrees with the backends "
               "at all 160 inputs); the evaluator's libstdc++ division "
               "recovers 1 and 0."},
    {"column": "cuda", "op": "logistic", "type": "c64", "shape": "3x4x9*",
     "reason": "Two elements near a pole of logistic (1 + exp(-z) small: "
               "results of magnitude 4 to 9) differ by up to 10 ulps: "
               "libdevice's exp, sin and cos round differently from the "
               "host's by an ulp, and the division amplifies that by "
               "|z (1 - logistic(z))|, about 10 there. The ulp rule has no "
               "condition-number term for logistic yet (power has one)."},
    {"column": COMPILED, "op": "atan2", "type": "c*", "shape": "specials",
     "reason": "Complex atan2 is XLA's -i log((x + iy) / sqrt(x^2 + y^2)), "
               "which is NaN or infinite wherever x^2 + y^2 is 0 or "
               "overflows: XLA:CPU itself gives NaN at 182 (c128) to 232 "
               "(c64) of these 1280 pairs, and the evaluator (the same "
               "formula in glibc's complex functions) and the backends "
               "recover different parts of them."},
    {"column": COMPILED, "op": "power", "type": "c*", "shape": "specials",
     "reason": "Complex power at zero, infinite, denormal or huge parts: "
               "XLA's polar formula (the backends') gives NaN where "
               "log|z| or the angle is infinite, glibc's cpow (the "
               "evaluator's) follows C99 and often recovers 0 or inf; "
               "XLA:CPU itself gives NaN at 45 of these 1280 pairs and "
               "differs from both elsewhere. Both agree with XLA on 0, 1 and "
               "+inf bases with real exponents."},
    # libm under the x86 runtime's DAZ.
    *[{"column": CPU, "op": op, "type": t,
       "reason": "x86 runtime runs the kernels with DAZ|FTZ (as XLA:CPU), and "
                 "these calls go to glibc, whose routines assume IEEE mode "
                 "and misread a denormal argument: log(5e-324) = -745.13 "
                 "(IEEE -744.44, flushed -inf), atan2f(d, d) = NaN, "
                 "pow(d, 0.5) off by a factor. Only denormal inputs are "
                 "affected (bf16 ones too: they widen to f32 denormals, and "
                 "the evaluator's bf16 inputs are flushed as f32 ones). Fix: "
                 "rescale or flush denormal arguments before the call, as "
                 "cbrt now does (math_library.cc)."}
      for op, t in (("log", "f64"), ("power", "f32"), ("power", "f64"),
                    ("power", "bf16"), ("atan2", "f32"), ("atan2", "f64"),
                    ("atan2", "bf16"))],
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
