"""One small program per jax.lax (and jax.lax.linalg) primitive.

CASES maps a primitive's attribute name (add_p, scan_p, ...) to a function
that uses it, ideally alone, and an input maker. NOT_LOWERED lists the
primitives that never reach the CPU as an HLO program of their own, with
the reason. lax_coverage.py checks that together they name every *_p that
jax.lax and jax.lax.linalg export, so a new JAX's new primitive shows.
"""

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.lax import linalg
from jax.sharding import NamedSharding, PartitionSpec

from jax_harness import complexes, floats, ints


def _pos(rng, shape, lo=0.1, hi=3.0):
    return rng.uniform(lo, hi, shape).astype(np.float32)


def _unit(rng, shape):
    return rng.uniform(-0.95, 0.95, shape).astype(np.float32)


def _f(shape=(13,)):
    return lambda r: [floats(r, shape)]


def _ff(shape=(13,)):
    return lambda r: [floats(r, shape), floats(r, shape)]


def _ii(shape=(13,), lo=-100, hi=100):
    return lambda r: [ints(r, shape, lo, hi), ints(r, shape, lo, hi)]


def _spd(rng, n=4):
    a = rng.standard_normal((n, n))
    return (a @ a.T + n * np.eye(n)).astype(np.float32)


CASES = {
    # Elementwise, one float operand.
    "abs_p": (lax.abs, _f()),
    "acos_p": (lax.acos, lambda r: [_unit(r, (13,))]),
    "acosh_p": (lax.acosh, lambda r: [_pos(r, (13,), 1.0, 5.0)]),
    "asin_p": (lax.asin, lambda r: [_unit(r, (13,))]),
    "asinh_p": (lax.asinh, _f()),
    "atan_p": (lax.atan, _f()),
    "atanh_p": (lax.atanh, lambda r: [_unit(r, (13,))]),
    "bessel_i0e_p": (lax.bessel_i0e, _f()),
    "bessel_i1e_p": (lax.bessel_i1e, _f()),
    "cbrt_p": (lax.cbrt, _f()),
    "ceil_p": (lax.ceil, _f()),
    "cos_p": (lax.cos, _f()),
    "cosh_p": (lax.cosh, _f()),
    "digamma_p": (lax.digamma, lambda r: [_pos(r, (13,))]),
    "erf_inv_p": (lax.erf_inv, lambda r: [_unit(r, (13,))]),
    "erf_p": (lax.erf, _f()),
    "erfc_p": (lax.erfc, _f()),
    "exp2_p": (lax.exp2, _f()),
    "exp_p": (lax.exp, _f()),
    "expm1_p": (lax.expm1, _f()),
    "floor_p": (lax.floor, _f()),
    "is_finite_p": (lax.is_finite, lambda r: [np.array(
        [1.0, np.inf, -np.inf, np.nan, 0.0], np.float32)]),
    "lgamma_p": (lax.lgamma, lambda r: [_pos(r, (13,))]),
    "log1p_p": (lax.log1p, lambda r: [_pos(r, (13,), -0.9, 3.0)]),
    "log_p": (lax.log, lambda r: [_pos(r, (13,))]),
    "logistic_p": (lax.logistic, _f()),
    "neg_p": (lax.neg, _f()),
    "round_p": (lambda x: (lax.round(x), lax.round(
        x, lax.RoundingMethod.TO_NEAREST_EVEN)),
        lambda r: [np.array([0.5, 1.5, 2.5, -0.5, -1.5, 0.49, 3.7],
                            np.float32)]),
    "rsqrt_p": (lax.rsqrt, lambda r: [_pos(r, (13,))]),
    "sign_p": (lax.sign, _f()),
    "sin_p": (lax.sin, _f()),
    "sinh_p": (lax.sinh, _f()),
    "sqrt_p": (lax.sqrt, lambda r: [_pos(r, (13,))]),
    "square_p": (lax.square, _f()),
    "tan_p": (lax.tan, lambda r: [_unit(r, (13,))]),
    "tanh_p": (lax.tanh, _f()),
    "integer_pow_p": (lambda x: (lax.integer_pow(x, 3),
                                 lax.integer_pow(x, -2)), _f()),
    "reduce_precision_p": (
        lambda x: lax.reduce_precision(x, exponent_bits=5, mantissa_bits=10),
        lambda r: [floats(r, (13,)) * 1e4]),
    "copy_p": (lambda x: lax.copy_p.bind(x), _f()),
    # Elementwise, two operands.
    "add_p": (lax.add, _ff()),
    "sub_p": (lax.sub, _ff()),
    "mul_p": (lax.mul, _ff()),
    "div_p": (lambda a, b: (lax.div(a, b), lax.div(
        a.astype(jnp.int32), b.astype(jnp.int32) + 7)), _ff()),
    "rem_p": (lambda a, b: (lax.rem(a, b), lax.rem(
        a.astype(jnp.int32), b.astype(jnp.int32) + 7)), _ff()),
    "pow_p": (lax.pow, lambda r: [_pos(r, (13,)), floats(r, (13,))]),
    "atan2_p": (lax.atan2, _ff()),
    "max_p": (lax.max, _ff()),
    "min_p": (lax.min, _ff()),
    "nextafter_p": (lax.nextafter, _ff()),
    "igamma_p": (lax.igamma, lambda r: [_pos(r, (13,)), _pos(r, (13,))]),
    "igammac_p": (lax.igammac, lambda r: [_pos(r, (13,)), _pos(r, (13,))]),
    "igamma_grad_a_p": (lax.igamma_grad_a,
                        lambda r: [_pos(r, (13,)), _pos(r, (13,))]),
    "random_gamma_grad_p": (lax.random_gamma_grad,
                            lambda r: [_pos(r, (13,)), _pos(r, (13,))]),
    "polygamma_p": (lax.polygamma, lambda r: [
        np.float32(r.integers(1, 3)) * np.ones(13, np.float32),
        _pos(r, (13,), 0.5, 3.0)]),
    "zeta_p": (lax.zeta, lambda r: [_pos(r, (13,), 1.5, 4.0),
                                    _pos(r, (13,), 0.5, 3.0)]),
    "regularized_incomplete_beta_p": (
        lax.betainc, lambda r: [_pos(r, (13,), 0.5, 3.0),
                                _pos(r, (13,), 0.5, 3.0),
                                _pos(r, (13,), 0.05, 0.95)]),
    "clamp_p": (lambda x: lax.clamp(np.float32(-0.5), x, np.float32(0.5)),
                _f()),
    "select_n_p": (lambda p, a, b: lax.select_n(p, a, b),
                   lambda r: [r.integers(0, 2, 13).astype(bool),
                              floats(r, (13,)), floats(r, (13,))]),
    # Comparisons.
    "eq_p": (lax.eq, _ii(lo=-3, hi=3)),
    "ne_p": (lax.ne, _ii(lo=-3, hi=3)),
    "lt_p": (lax.lt, _ff()),
    "le_p": (lax.le, _ii(lo=-3, hi=3)),
    "gt_p": (lax.gt, _ff()),
    "ge_p": (lax.ge, _ii(lo=-3, hi=3)),
    "eq_to_p": (lambda a, b: lax.eq_to_p.bind(a, b), _ii(lo=-3, hi=3)),
    "le_to_p": (lambda a, b: lax.le_to_p.bind(a, b), _ii(lo=-3, hi=3)),
    "lt_to_p": (lambda a, b: lax.lt_to_p.bind(a, b), _ii(lo=-3, hi=3)),
    # Integer and bit operations.
    "and_p": (lax.bitwise_and, _ii()),
    "or_p": (lax.bitwise_or, _ii()),
    "xor_p": (lax.bitwise_xor, _ii()),
    "not_p": (lambda a, b: (lax.bitwise_not(a), lax.bitwise_not(a > b)),
              _ii()),
    "shift_left_p": (lax.shift_left, _ii(lo=0, hi=40)),
    "shift_right_arithmetic_p": (lax.shift_right_arithmetic,
                                 _ii(lo=-40, hi=40)),
    "shift_right_logical_p": (lax.shift_right_logical, _ii(lo=-40, hi=40)),
    "population_count_p": (lax.population_count,
                           lambda r: [ints(r, (13,), -2**31, 2**31 - 1)]),
    "clz_p": (lax.clz, lambda r: [ints(r, (13,), -2**31, 2**31 - 1)]),
    "mulhi_p": (lax.mulhi, lambda r: [ints(r, (13,), -2**31, 2**31 - 1),
                                      ints(r, (13,), -2**31, 2**31 - 1)]),
    # Types.
    "convert_element_type_p": (
        lambda x: (x.astype(jnp.int32), x.astype(jnp.float16),
                   x.astype(jnp.bfloat16), x.astype(jnp.float64),
                   x.astype(jnp.uint8), x.astype(jnp.bool_)),
        lambda r: [floats(r, (13,)) * 50]),
    "bitcast_convert_type_p": (
        lambda x: (lax.bitcast_convert_type(x, jnp.int32),
                   lax.bitcast_convert_type(x, jnp.uint16)), _f()),
    # Complex numbers.
    "complex_p": (lax.complex, _ff()),
    "conj_p": (lax.conj, lambda r: [complexes(r, (13,))]),
    "real_p": (lax.real, lambda r: [complexes(r, (13,))]),
    "imag_p": (lax.imag, lambda r: [complexes(r, (13,))]),
    # Shapes and data movement.
    "broadcast_in_dim_p": (
        lambda x: lax.broadcast_in_dim(x, (3, 4, 5), (1,)),
        lambda r: [floats(r, (4,))]),
    "concatenate_p": (lambda a, b: lax.concatenate([a, b, a], 1),
                      lambda r: [floats(r, (3, 2)), floats(r, (3, 5))]),
    "iota_p": (lambda x: x + lax.iota(jnp.float32, 13), _f()),
    "pad_p": (lambda x: lax.pad(x, np.float32(-1), ((1, 2, 1), (-1, 0, 0))),
              lambda r: [floats(r, (4, 5))]),
    "reshape_p": (lambda x: lax.reshape(x, (10, 2)),
                  lambda r: [floats(r, (4, 5))]),
    "rev_p": (lambda x: lax.rev(x, (0, 1)), lambda r: [floats(r, (4, 5))]),
    "slice_p": (lambda x: lax.slice(x, (1, 0), (4, 5), (2, 2)),
                lambda r: [floats(r, (4, 5))]),
    "squeeze_p": (lambda x: lax.squeeze(x, (1,)),
                  lambda r: [floats(r, (4, 1, 5))]),
    "transpose_p": (lambda x: lax.transpose(x, (2, 0, 1)),
                    lambda r: [floats(r, (2, 3, 4))]),
    "split_p": (lambda x: lax.split(x, (2, 3), axis=1),
                lambda r: [floats(r, (4, 5))]),
    "tile_p": (lambda x: lax.tile(x, (2, 3)), lambda r: [floats(r, (2, 3))]),
    "stack_p": (lambda a, b: lax.stack_p.bind(a, b, axis=1),
                _ff((3, 4))),
    "unstack_p": (lambda x: lax.unstack(x, axis=1),
                  lambda r: [floats(r, (2, 3, 4))]),
    "dynamic_slice_p": (lambda x, i: lax.dynamic_slice(x, (i, i), (2, 3)),
                        lambda r: [floats(r, (5, 6)),
                                   np.int32(r.integers(-1, 6))]),
    "dynamic_update_slice_p": (
        lambda x, u, i: lax.dynamic_update_slice(x, u, (i, i)),
        lambda r: [floats(r, (5, 6)), floats(r, (2, 3)),
                   np.int32(r.integers(-1, 6))]),
    "gather_p": (lambda x, i: x[i, 1:3],
                 lambda r: [floats(r, (6, 4)), ints(r, (5,), 0, 6)]),
    "scatter_p": (lambda x, i, u: x.at[i].set(u),
                  lambda r: [floats(r, (6,)), ints(r, (4,), 0, 6),
                             floats(r, (4,))]),
    "scatter_add_p": (lambda x, i, u: x.at[i].add(u),
                      lambda r: [floats(r, (6,)), ints(r, (9,), 0, 6),
                                 floats(r, (9,))]),
    "scatter_sub_p": (lambda x, i, u: x.at[i].subtract(u),
                      lambda r: [floats(r, (6,)), ints(r, (9,), 0, 6),
                                 floats(r, (9,))]),
    "scatter_mul_p": (lambda x, i, u: x.at[i].mul(u),
                      lambda r: [floats(r, (6,)), ints(r, (4,), 0, 6),
                                 floats(r, (4,))]),
    "scatter_min_p": (lambda x, i, u: x.at[i].min(u),
                      lambda r: [floats(r, (6,)), ints(r, (9,), 0, 6),
                                 floats(r, (9,))]),
    "scatter_max_p": (lambda x, i, u: x.at[i].max(u),
                      lambda r: [floats(r, (6,)), ints(r, (9,), 0, 6),
                                 floats(r, (9,))]),
    # Reductions.
    "reduce_sum_p": (lambda x: lax.reduce_sum_p.bind(x, axes=(1,),
                                                     out_sharding=None),
                     lambda r: [floats(r, (4, 9))]),
    "reduce_prod_p": (lambda x: jnp.prod(x, axis=0),
                      lambda r: [_pos(r, (4, 9), 0.5, 1.5)]),
    "reduce_max_p": (lambda x: jnp.max(x, axis=1), _f((4, 9))),
    "reduce_min_p": (lambda x: jnp.min(x, axis=0), _f((4, 9))),
    "reduce_and_p": (lambda x: jnp.all(x > -1, axis=1), _f((4, 9))),
    "reduce_or_p": (lambda x: jnp.any(x > 1, axis=1), _f((4, 9))),
    "reduce_xor_p": (lambda x: lax.reduce_xor_p.bind(x, axes=(0,)),
                     lambda r: [ints(r, (4, 9), 0, 1000)]),
    "reduce_p": (lambda x, y: lax.reduce(
        (x, y), (np.float32(0), np.float32(1)),
        lambda a, b: (a[0] + b[0], a[1] * b[1]), (1,)),
        lambda r: [floats(r, (3, 5)), _pos(r, (3, 5), 0.5, 1.5)]),
    "argmax_p": (lambda x: lax.argmax(x, 1, jnp.int32),
                 lambda r: [np.round(floats(r, (4, 9)), 1)]),
    "argmin_p": (lambda x: lax.argmin(x, 0, jnp.int32),
                 lambda r: [np.round(floats(r, (4, 9)), 1)]),
    "reduce_window_sum_p": (
        lambda x: lax.reduce_window(x, 0.0, lax.add, (2, 2), (1, 2), "SAME"),
        _f((5, 6))),
    "reduce_window_max_p": (
        lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (3, 2), (2, 1),
                                    "VALID"), _f((5, 6))),
    "reduce_window_min_p": (
        lambda x: lax.reduce_window(x, jnp.inf, lax.min, (2, 3), (1, 1),
                                    ((1, 0), (0, 2))), _f((5, 6))),
    "reduce_window_p": (
        lambda x: lax.reduce_window(x, np.float32(1), lax.mul, (2, 2),
                                    (1, 1), "VALID"),
        lambda r: [_pos(r, (4, 5), 0.5, 1.5)]),
    "select_and_scatter_add_p": (
        lambda x, g: jax.vjp(lambda x: lax.reduce_window(
            x, -jnp.inf, lax.max, (2, 2), (2, 2), "VALID"), x)[1](g)[0],
        lambda r: [floats(r, (4, 6)), floats(r, (2, 3))]),
    "select_and_gather_add_p": (
        lambda x, t: jax.jvp(lambda x: lax.reduce_window(
            x, -jnp.inf, lax.max, (2, 2), (2, 2), "VALID"), (x,), (t,)),
        lambda r: [floats(r, (4, 6)), floats(r, (4, 6))]),
    "select_and_scatter_p": (
        lambda x, s: lax.select_and_scatter_p.bind(
            x, s, np.float32(0),
            select_jaxpr=jax.make_jaxpr(lax.ge)(np.float32(0),
                                                np.float32(0)).jaxpr,
            select_consts=(),
            scatter_jaxpr=jax.make_jaxpr(lax.add)(np.float32(0),
                                                  np.float32(0)).jaxpr,
            scatter_consts=(), window_dimensions=(2, 2),
            window_strides=(2, 2), padding=((0, 0), (0, 0))),
        lambda r: [floats(r, (4, 6)), floats(r, (2, 3))]),
    # Cumulative.
    "cumsum_p": (lambda x: lax.cumsum(x, 1), _f((4, 7))),
    "cumprod_p": (lambda x: lax.cumprod(x, 0),
                  lambda r: [_pos(r, (4, 7), 0.5, 1.5)]),
    "cummax_p": (lambda x: lax.cummax(x, 1, reverse=True), _f((4, 7))),
    "cummin_p": (lambda x: lax.cummin(x, 0), _f((4, 7))),
    "cumlogsumexp_p": (lambda x: lax.cumlogsumexp(x, 1), _f((4, 7))),
    # Contractions, convolutions, fft.
    "dot_general_p": (lambda a, b: lax.dot_general(
        a, b, (((2,), (1,)), ((0,), (0,)))),
        lambda r: [floats(r, (2, 3, 4)), floats(r, (2, 4, 5))]),
    "conv_general_dilated_p": (
        lambda x, w: lax.conv_general_dilated(
            x, w, (1, 2), "SAME", rhs_dilation=(2, 1),
            dimension_numbers=("NCHW", "OIHW", "NCHW")),
        lambda r: [floats(r, (1, 2, 6, 7)), floats(r, (3, 2, 2, 3))]),
    "fft_p": (lambda x: lax.fft(x, lax.FftType.FFT, (8,)),
              lambda r: [complexes(r, (3, 8))]),
    # Sorting and selection.
    "sort_p": (lambda k, v: lax.sort((k, v), dimension=0, num_keys=1),
               lambda r: [np.round(floats(r, (7, 3)), 1), floats(r, (7, 3))]),
    "top_k_p": (lambda x: lax.top_k(x, 3),
                lambda r: [np.round(floats(r, (4, 9)), 1)]),
    "approx_top_k_p": (lambda x: lax.approx_max_k(x, 3),
                       lambda r: [np.round(floats(r, (4, 9)), 1)]),
    # Control flow.
    "cond_p": (lambda p, x: lax.cond(p, jnp.sin, jnp.cos, x),
               lambda r: [np.bool_(r.integers(0, 2)), floats(r, (5,))]),
    "while_p": (lambda x: lax.while_loop(lambda c: c[1] < 5,
                                         lambda c: (c[0] * 1.5, c[1] + 1),
                                         (x, 0))[0], _f((5,))),
    "scan_p": (lambda xs: lax.scan(lambda c, x: (c + x, c * x), 0.0, xs),
               _f((9,))),
    "linear_solve_p": (
        lambda a, b: lax.custom_linear_solve(
            lambda x: a @ x, b, lambda mv, b: jnp.linalg.solve(a, b)),
        lambda r: [_spd(r), floats(r, (4,))]),
    # Random numbers.
    "rng_bit_generator_p": (
        lambda k: lax.rng_bit_generator(k, (3, 4), jnp.uint32)[1],
        lambda r: [ints(r, (4,), 0, 2**32, np.uint32)]),
    "rng_uniform_p": (lambda a: lax.rng_uniform(a, a + 1.0, (4,)),
                      lambda r: [np.float32(0)]),
    # Program structure.
    "stop_gradient_p": (lambda x: lax.stop_gradient(x) * 2, _f()),
    "device_put_p": (lambda x: jax.device_put(x) + 1, _f()),
    "sharding_constraint_p": (
        lambda x: lax.with_sharding_constraint(x * 2, NamedSharding(
            jax.make_mesh((1,), ("x",),
                          axis_types=(jax.sharding.AxisType.Auto,)),
            PartitionSpec("x"))), _f()),
    "dce_sink_p": (lambda x: (lax.dce_sink_p.bind(
        x, prevent_mlir_dce=True), x * 2)[1], _f()),
    "optimization_barrier_p": (
        lambda x, y: lax.optimization_barrier((x * 2, y)), _ff()),
    "create_token_p": (lambda x: (lax.create_token(), x)[1] * 2, _f()),
    "after_all_p": (lambda x: (lax.after_all(lax.create_token(),
                                              lax.create_token()), x)[1] + 1,
                    _f()),
    # Linear algebra (LAPACK custom calls on the CPU, or their expansion).
    "cholesky_p": (linalg.cholesky, lambda r: [_spd(r)]),
    "triangular_solve_p": (
        lambda a, b: linalg.triangular_solve(a, b, left_side=True,
                                             lower=True),
        lambda r: [np.tril(_spd(r)), floats(r, (4, 3))]),
    "lu_p": (lambda a: linalg.lu(a), lambda r: [_spd(r) + floats(r, (4, 4))]),
    "lu_pivots_to_permutation_p": (
        lambda p: linalg.lu_pivots_to_permutation(p, 5),
        lambda r: [np.array([2, 2, 4, 3], np.int32)]),
    "qr_p": (lambda a: linalg.qr(a, full_matrices=False),
             lambda r: [floats(r, (5, 3))]),
    "eigh_p": (lambda a: linalg.eigh(a)[1], lambda r: [_spd(r)]),
    "svd_p": (lambda a: linalg.svd(a, compute_uv=False),
              lambda r: [floats(r, (4, 3))]),
    "eig_p": (lambda a: linalg.eig(a, compute_left_eigenvectors=False,
                                   compute_right_eigenvectors=False)[0],
              lambda r: [_spd(r)]),
    "schur_p": (lambda a: linalg.schur(a, compute_schur_vectors=False)[0],
                lambda r: [_spd(r)]),
    "hessenberg_p": (lambda a: linalg.hessenberg(a)[0],
                     lambda r: [_spd(r)]),
    "householder_product_p": (
        lambda a, t: linalg.householder_product(a, t),
        lambda r: [floats(r, (5, 3)), floats(r, (3,))]),
    "tridiagonal_p": (lambda a: linalg.tridiagonal(a)[1],
                      lambda r: [_spd(r)]),
    "tridiagonal_solve_p": (
        lambda dl, d, du, b: linalg.tridiagonal_solve(dl, d, du, b),
        lambda r: [np.concatenate([[0], floats(r, (4,))]).astype(np.float32),
                   (floats(r, (5,)) + 5).astype(np.float32),
                   np.concatenate([floats(r, (4,)), [0]]).astype(np.float32),
                   floats(r, (5, 2))]),
    "cholesky_update_p": (
        lambda r_, w: linalg.cholesky_update(r_, w),
        lambda r: [np.linalg.cholesky(_spd(r)).T.astype(np.float32),
                   floats(r, (4,))]),
    "symmetric_product_p": (
        lambda a, c: linalg.symmetric_product(a, c),
        lambda r: [floats(r, (4, 3)), _spd(r)]),
    "ormqr_p": (
        lambda a, t, c: linalg.ormqr(a, t, c, left=True, transpose=False),
        lambda r: [floats(r, (5, 3)), floats(r, (3,)), floats(r, (5, 2))]),
}

_COLLECTIVE = ("collective: binds only under pmap/shard_map over a named "
               "axis; not attempted here")

# Primitives that never reach the CPU as an HLO program of their own.
NOT_LOWERED = {
    "all_gather_p": _COLLECTIVE,
    "all_to_all_p": _COLLECTIVE,
    "axis_index_p": _COLLECTIVE,
    "pmax_p": _COLLECTIVE,
    "pmin_p": _COLLECTIVE,
    "ppermute_p": _COLLECTIVE,
    "psum_p": _COLLECTIVE,
    "ragged_all_to_all_p": _COLLECTIVE,
    "stage_p": "pipeline-parallel staging: needs several devices and a "
               "pipeline schedule, nothing one CPU program holds",
}
