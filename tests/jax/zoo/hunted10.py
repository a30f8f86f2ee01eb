"""Zoo: programs from the tenth bug hunt, the parts of JAX the zoo had
not reached: jax.random's remaining samplers (logistic, cauchy, pareto,
weibull_min, rademacher, maxwell, double_sided_maxwell,
generalized_normal, f, triangular, wald, multinomial, orthogonal),
implicit reparameterization gradients of gamma, beta and dirichlet
samples in a variational step, a bootstrap particle filter resampling
with categorical and multinomial draws in a scan, jax.scipy.special's
exp1, expn, hyp2f1 and sph_harm_y, jax.scipy.stats' rankdata (every
method), mode, sem, gaussian_kde and the distributions earlier hunts
left out (t, gumbel_r/l, gennorm, betabinom, wrapcauchy, multinomial),
Taylor-mode differentiation (jax.experimental.jet), the rarer autodiff
and batching transforms (jax.linear_transpose, jax.custom_gradient,
jax.custom_batching.custom_vmap, jax.closure_convert), im2col through
lax.conv_general_dilated_patches, jax.scipy.signal's n-d convolve and
correlate (direct and fft), jnp.unique_all / unique_inverse /
unique_counts with size and fill_value, a count-min sketch and
HyperLogLog over uint32 hashes, an fp8 delayed-scaling training step,
complex128 linear algebra with gradients (with expm_frechet and a
pivoted QR), NumPy's mixed advanced indexing as gathers and scatters
(under vmap and grad), the sketches, unique_counts, rankdata and im2col
past the CPU backend's parallel split, and correlations and FIR filters
at audio lengths.

Two bugs found, both where the evaluator could not follow the cpu on
long windows. It tabulated a reduce-window's input coordinate for every
(output, window position) pair, n^2 of them for the window JAX lowers a
cumulative sum of n elements to, so big_sketch_unique_rank's
unique_counts over 60000 tokens ran out of memory (29 GB) in the
evaluator while the cpu ran it; it finds them per output now, and folds
a cumulative window's output from the one before it (fbdb1ba;
reduce_test CumulativeSumWindowsAsLongAsTheInput,
PrefixWindowsFoldInOrder). Its convolutions did the same, 2n^2
coordinates for jnp.correlate(x, x, "full") of n samples (6.4 GB at
20000, out of memory past 35000; long_signal_correlations keeps 8192,
which took 1 GB), fixed the same way (ebf60ab; dot_conv_test
FullCorrelationOfALongKernel).

lax.DotAlgorithmPreset, left out here (its operand roundings are the
target's: XLA:CPU computes BF16_BF16_F32 in f32, XLA:GPU rounds the
operands to bf16), is numerics.py's dot_algorithm_presets, each target
checked against its own XLA.
"""

import functools

import jax
import jax.numpy as jnp
import jax.scipy as jsp
import numpy as np
from jax import lax

from jax_harness import complexes, floats, prng_key

_HI = lax.Precision.HIGHEST


# --- jax.random's remaining samplers -----------------------------------

def rare_random_samplers(key, loc, scale):
    # One draw of each sampler the zoo had not called, as a simulation
    # or an initializer calls them: shapes, per-element parameters
    # broadcast against the shape, f32 with one f64 and one bf16 sampler.
    ks = jax.random.split(key, 12)
    r = jax.random
    return (
        r.logistic(ks[0], (64,)) * scale + loc,
        r.cauchy(ks[1], (32, 2)),
        r.pareto(ks[2], jnp.array([1.5, 3.0, 5.0]), (40, 3)),
        r.weibull_min(ks[3], 2.0, jnp.array([0.5, 1.0, 4.0]), (30, 3)),
        r.rademacher(ks[4], (50,), dtype=jnp.int8),
        r.maxwell(ks[5], (25,), dtype=jnp.float64),
        r.double_sided_maxwell(ks[6], loc, scale, (64,)),
        r.generalized_normal(ks[7], 1.5, (40,)),
        r.f(ks[8], 4.0, 7.0, (30,)),
        r.triangular(ks[9], -1.0, 0.25, 2.0, (48,)),
        r.wald(ks[10], jnp.array([0.5, 1.0, 3.0]), (20, 3)),
        r.laplace(ks[11], (16,), dtype=jnp.bfloat16),
    )


def multinomial_and_orthogonal(key, probs):
    # Counts of n draws over categories (jax.random.multinomial, n per
    # row and a shape) and random orthogonal matrices as an initializer
    # draws them (jax.random.orthogonal: a QR of a normal matrix); the
    # matrices' products with their transposes are returned, with the
    # matrices.
    k1, k2, k3 = jax.random.split(key, 3)
    counts = jax.random.multinomial(k1, jnp.array([5.0, 20.0, 100.0, 1.0]),
                                    probs, shape=(4, probs.shape[-1]))
    more = jax.random.multinomial(k2, 50.0, probs[0], shape=(6, 5),
                                  dtype=jnp.int32)
    q = jax.random.orthogonal(k3, 5, shape=(3,))
    return counts, more, q, jnp.einsum("bij,bkj->bik", q, q, precision=_HI)


def _multinomial_inputs(r):
    p = r.uniform(0.1, 1.0, (4, 5)).astype(np.float32)
    return [prng_key(r), p / p.sum(-1, keepdims=True)]


# --- implicit reparameterization ---------------------------------------

def gamma_reparam_vi_grad(log_alpha, log_rate, beta_ab, dir_conc, key,
                          counts):
    # A variational step for a Gamma-Poisson model with a Beta and a
    # Dirichlet factor: the ELBO is estimated with samples of
    # jax.random.gamma, beta and dirichlet (eight samples through vmap)
    # and differentiated through the samples themselves (JAX's implicit
    # reparameterization: random_gamma_grad), then one Adam-free gradient
    # step.
    def elbo(params, key):
        la, lr, ab, dc = params
        alpha, rate = jnp.exp(la), jnp.exp(lr)
        k1, k2, k3 = jax.random.split(key, 3)
        lam = jax.random.gamma(k1, alpha) / rate
        loglik = jnp.sum(jsp.stats.poisson.logpmf(counts, lam))
        prior = jnp.sum(jsp.stats.gamma.logpdf(lam, 2.0, scale=1.0))
        entropy = -jnp.sum(jsp.stats.gamma.logpdf(lam, alpha,
                                                  scale=1 / rate))
        a, b = jnp.exp(ab[0]), jnp.exp(ab[1])
        p = jax.random.beta(k2, a, b)
        beta_term = jnp.sum(jnp.log1p(-p) * 2 + jnp.log(p))
        w = jax.random.dirichlet(k3, jnp.exp(dc))
        dir_term = jnp.sum(w * jnp.log(w + 1e-6))
        return loglik + prior + entropy + beta_term - dir_term

    params = (log_alpha, log_rate, beta_ab, dir_conc)

    def mean_elbo(params):
        keys = jax.random.split(key, 8)
        return jnp.mean(jax.vmap(elbo, (None, 0))(params, keys))

    val, g = jax.value_and_grad(mean_elbo)(params)
    new = jax.tree_util.tree_map(lambda p, t: p + 0.01 * t, params, g)
    return val, g, new


def _gamma_vi_inputs(r):
    return [floats(r, (6,)) * 0.3 + 1.0, floats(r, (6,)) * 0.2,
            floats(r, (2, 5)) * 0.3 + 0.5, floats(r, (3, 4)) * 0.3 + 0.5,
            prng_key(r), r.poisson(3.0, (6,)).astype(np.float32)]


# --- a bootstrap particle filter ---------------------------------------

def particle_filter_resampling(key, obs, log_sigma):
    # A bootstrap particle filter for a nonlinear state-space model in a
    # scan over time: particles propagated with Gaussian noise, weighted by
    # the observation density, resampled multinomially (categorical draws
    # of ancestor indices), and, beside them, the children counts of each
    # particle as jax.random.multinomial gives them; the log marginal
    # likelihood estimate by logsumexp, and its gradient in the noise
    # scale through the reparameterized propagation (resampling held
    # fixed by stop_gradient, as in the biased estimator people use).
    n = 64

    def run(log_sigma):
        sigma = jnp.exp(log_sigma)

        def step(carry, inp):
            x, ll = carry
            y, k = inp
            k1, k2, k3 = jax.random.split(k, 3)
            x = 0.5 * x + 2.0 * jnp.sin(x) + sigma * jax.random.normal(
                k1, (n,))
            logw = jsp.stats.norm.logpdf(y, x ** 2 / 10, 1.0)
            ll = ll + jsp.special.logsumexp(logw) - jnp.log(n)
            idx = jax.random.categorical(k2, lax.stop_gradient(logw),
                                         shape=(n,))
            kids = jax.random.multinomial(
                k3, float(n), jax.nn.softmax(lax.stop_gradient(logw)))
            return (x[idx], ll), (jnp.mean(x), kids)

        keys = jax.random.split(key, obs.shape[0])
        x0 = jax.random.normal(jax.random.fold_in(key, 7), (n,))
        (xs, ll), (means, kids) = lax.scan(step, (x0, 0.0), (obs, keys))
        return ll, (means, kids)

    (ll, (means, kids)), g = jax.value_and_grad(run, has_aux=True)(
        log_sigma)
    return ll, means, kids, g


# --- jax.scipy.special's remaining functions ---------------------------

def special_exp1_expn_hyp2f1(x, z, a, b, c, theta, phi):
    # The exponential integrals E1 and E_n (n = 0..4, series and continued
    # fraction branches on both sides of x = 1), Gauss's hypergeometric
    # 2F1 inside its disc, the spherical harmonics Y_n^m for n <= 3 (every
    # order m), and the gradient of E1 (a custom JVP).
    sp = jsp.special
    e1 = sp.exp1(x)
    en = jnp.stack([sp.expn(n, x) for n in range(5)])
    h = sp.hyp2f1(a, b, c, z)
    ns = jnp.array([0, 1, 1, 2, 2, 2, 3, 3])
    ms = jnp.array([0, 0, 1, -1, 0, 2, -3, 1])
    grid = (len(ns), theta.shape[0])
    flat = lambda v: jnp.broadcast_to(v, grid).ravel()
    y = sp.sph_harm_y(flat(ns[:, None]), flat(ms[:, None]),
                      flat(theta[None, :]), flat(phi[None, :]), n_max=3)
    ge1 = jax.grad(lambda t: jnp.sum(sp.exp1(t)))(x)
    return e1, en, h, y, ge1


def _special_inputs(r):
    x = np.concatenate([r.uniform(0.05, 1.0, 8),
                        r.uniform(1.0, 12.0, 8)]).astype(np.float32)
    z = r.uniform(-0.8, 0.8, 10).astype(np.float32)
    return [x, z, np.float32(0.5), np.float32(1.5), np.float32(2.25),
            r.uniform(0.1, 3.0, 7).astype(np.float32),
            r.uniform(0, 2 * np.pi, 7).astype(np.float32)]


# --- jax.scipy.stats ---------------------------------------------------

def stats_rank_mode_densities(x, xi, k, df):
    # Rank transforms as nonparametric statistics use them (rankdata with
    # each tie method along an axis, on data with ties), mode and sem,
    # and the densities and distribution functions earlier hunts left
    # out, with a gradient through the Student-t log-likelihood.
    st = jsp.stats
    ranks = [st.rankdata(xi, method=m, axis=1)
             for m in ("average", "min", "max", "dense", "ordinal")]
    mode = st.mode(xi, axis=0)
    sem = st.sem(x, axis=1, ddof=1)
    dens = (
        st.t.logpdf(x, df, loc=0.5, scale=2.0),
        st.gumbel_r.logpdf(x, loc=0.2), st.gumbel_r.cdf(x),
        st.gumbel_l.logpdf(x), st.gumbel_l.sf(x, scale=1.5),
        st.gennorm.logpdf(x, 1.5), st.gennorm.cdf(x, 0.8),
        st.betabinom.logpmf(k, 10, 2.0, 3.5),
        st.wrapcauchy.logpdf(jnp.abs(x) % (2 * jnp.pi), 0.6),
        st.multinomial.logpmf(jnp.array([2, 3, 5]), 10,
                              jax.nn.softmax(x[0, :3])),
        st.chi2.logpdf(jnp.abs(x) + 0.1, df),
        st.pareto.logpdf(jnp.abs(x) + 1.0, 2.5),
    )
    g = jax.grad(lambda d: jnp.sum(st.t.logpdf(x, d, loc=0.3)))(df)
    return ranks, mode, sem, dens, g


def _stats_inputs(r):
    xi = r.integers(0, 5, (6, 9)).astype(np.float32)
    return [floats(r, (6, 9)), xi, r.integers(0, 11, (12,)).astype(
        np.float32), np.float32(4.5)]


def kde_density_grad(data, weights, pts):
    # A weighted Gaussian kernel density estimate in two dimensions
    # (jax.scipy.stats.gaussian_kde: Scott's bandwidth, the data's
    # weighted covariance), evaluated and log-evaluated at query points,
    # a 1-D estimate with Silverman's bandwidth, and the gradient of the
    # log-density (the score) at the query points.
    kde = jsp.stats.gaussian_kde(data, weights=weights)
    dens = kde.evaluate(pts)
    logd = kde.logpdf(pts)
    kde1 = jsp.stats.gaussian_kde(data[0], bw_method="silverman")
    d1 = kde1(pts[0])
    score = jax.grad(lambda p: jnp.sum(
        jsp.stats.gaussian_kde(data, weights=weights).logpdf(p)))(pts)
    return dens, logd, d1, score


def _kde_inputs(r):
    w = r.uniform(0.5, 1.5, 40).astype(np.float32)
    return [floats(r, (2, 40)), w / w.sum(), floats(r, (2, 12)) * 1.5]


# --- Taylor mode -------------------------------------------------------

def taylor_mode_jet(x, w1, b1, w2, t):
    # Taylor-mode differentiation (jax.experimental.jet) as TayNODE-style
    # regularisers use it: the Taylor coefficients of an ODE solution
    # z' = f(z, t) obtained by recursively jetting the dynamics (an MLP
    # with tanh), the third-order coefficient's norm as a regulariser,
    # and a jet of a scalar function through exp, log1p, sin, erf, pow
    # and a division.
    from jax.experimental import jet

    def f(z, t):
        return jnp.tanh(z @ w1 + b1 * t) @ w2

    def taylor_coeffs(z0, t0, order):
        # z_{k+1} = f's k-th coefficient / (k+1), as in the recursion
        # of Kelly et al. (Learning differential equations that are easy
        # to solve).
        zs = [f(z0, t0)]
        for k in range(1, order):
            _, ys = jet.jet(lambda z, tt: f(z, tt), (z0, t0),
                            (zs, [jnp.ones_like(t0)] +
                             [jnp.zeros_like(t0)] * (k - 1)))
            zs = zs + [ys[-1] / (k + 1)]
        return zs

    coeffs = taylor_coeffs(x, t, 4)
    reg = jnp.sum(coeffs[-1] ** 2)

    def g(u):
        return jnp.exp(0.3 * u) * jnp.log1p(u * u) + jnp.sin(u) / (
            2.0 + jnp.cos(u)) + jsp.special.erf(u) * u ** 3

    u0 = x[0, :4]
    prim, series = jet.jet(g, (u0,), ([jnp.ones_like(u0),
                                       jnp.zeros_like(u0),
                                       jnp.zeros_like(u0)],))
    return coeffs, reg, prim, series


def _jet_inputs(r):
    return [floats(r, (3, 4)) * 0.5, floats(r, (4, 8)) * 0.4,
            floats(r, (8,)) * 0.1, floats(r, (8, 4)) * 0.4,
            np.float32(0.3)]


# --- rarer transforms --------------------------------------------------

def custom_transform_zoo(x, w, k, y0):
    # The transforms people reach for less often: jax.linear_transpose of
    # a strided 1-D convolution (its transpose, as a decoder uses it),
    # jax.custom_gradient clipping a gradient in the middle of a network,
    # a custom_vmap function whose batching rule calls a batched matmul
    # instead of the per-example loop, and jax.closure_convert feeding a
    # fixed-point solver's closure to custom_vjp (the implicit gradient).
    conv = lambda v: lax.conv_general_dilated(
        v[None, None], k[None, None], (2,), [(1, 1)],
        precision=_HI)[0, 0]
    conv_t = jax.linear_transpose(conv, x[0])
    up = jax.vmap(lambda v: conv_t(v)[0])(jax.vmap(conv)(x))

    @jax.custom_gradient
    def clip_grad(h):
        return h, lambda g: (jnp.clip(g, -0.05, 0.05),)

    def net(w, xb):
        h = jnp.tanh(xb @ w)
        return jnp.sum(jnp.sin(clip_grad(h) * 3.0))

    gw = jax.grad(net)(w, x[:, :w.shape[0]])

    @jax.custom_batching.custom_vmap
    def row_norm_solve(v):
        return v / jnp.sqrt(jnp.sum(v * v) + 1.0)

    @row_norm_solve.def_vmap
    def _(axis_size, in_batched, v):
        del axis_size, in_batched
        return v / jnp.sqrt(jnp.sum(v * v, -1, keepdims=True) + 1.0), True

    normed = jax.vmap(row_norm_solve)(x)

    def fixed_point(f, a, z0):
        return lax.fori_loop(0, 50, lambda i, z: f(a, z), z0)

    @functools.partial(jax.custom_vjp, nondiff_argnums=(0,))
    def fp(f, a, z0):
        return fixed_point(f, a, z0)

    def fp_fwd(f, a, z0):
        z = fixed_point(f, a, z0)
        return z, (a, z)

    def fp_bwd(f, res, g):
        a, z = res
        _, vjp_a = jax.vjp(lambda a: f(a, z), a)
        _, vjp_z = jax.vjp(lambda z: f(a, z), z)
        u = lax.fori_loop(0, 50, lambda i, u: g + vjp_z(u)[0], g)
        return vjp_a(u)[0], jnp.zeros_like(z)

    fp.defvjp(fp_fwd, fp_bwd)

    def solve(a):
        f = lambda a, z: 0.5 * jnp.tanh(z @ a) + y0
        # closure_convert hoists y0 (a tracer here) out of f's closure
        # into consts, which custom_vjp then sees as a differentiable
        # argument rather than a captured value.
        f_conv, consts = jax.closure_convert(f, a, y0)
        g = lambda p, z: f_conv(p[0], z, *p[1])
        return fp(g, (a, tuple(consts)), jnp.zeros_like(y0))

    z = solve(w * 0.5)
    gz = jax.grad(lambda a: jnp.sum(solve(a) ** 2))(w * 0.5)
    return up, gw, normed, z, gz


def _transform_inputs(r):
    return [floats(r, (4, 12)), floats(r, (6, 6)) * 0.4,
            floats(r, (3,)), floats(r, (6,)) * 0.3]


# --- im2col ------------------------------------------------------------

def im2col_patches_conv(x, w):
    # im2col as people write convolutions by hand:
    # lax.conv_general_dilated_patches extracts every (stride 2, dilation
    # 2, SAME and explicit padding) patch of an NHWC image, a matmul
    # applies the filter, and the result is checked against the
    # convolution itself; unfold-style local attention over 3x3
    # neighbourhoods; and the gradient through the patches to the image.
    dn = ("NHWC", "HWIO", "NHWC")
    cin, cout = x.shape[-1], w.shape[-1]

    def by_patches(x, w):
        p = lax.conv_general_dilated_patches(
            x, (3, 3), (2, 1), [(2, 1), (1, 2)], rhs_dilation=(2, 1),
            dimension_numbers=dn, precision=_HI)
        # The patches' features are ordered (channel, kh, kw).
        wf = jnp.transpose(w, (2, 0, 1, 3)).reshape(cin * 9, cout)
        return jnp.einsum("nhwk,ko->nhwo", p, wf, precision=_HI)

    direct = lax.conv_general_dilated(
        x, w, (2, 1), [(2, 1), (1, 2)], rhs_dilation=(2, 1),
        dimension_numbers=dn, precision=_HI)
    via = by_patches(x, w)

    q = x @ jnp.ones((cin, cin), x.dtype) * 0.1
    nb = lax.conv_general_dilated_patches(
        x, (3, 3), (1, 1), "SAME", dimension_numbers=dn)
    nb = nb.reshape(nb.shape[:3] + (cin, 9))
    att = jax.nn.softmax(jnp.einsum("nhwc,nhwck->nhwk", q, nb), -1)
    local = jnp.einsum("nhwk,nhwck->nhwc", att, nb)
    g = jax.grad(lambda x: jnp.sum(jnp.tanh(by_patches(x, w))))(x)
    return direct, via, local, g


# --- scipy.signal in n dimensions --------------------------------------

def signal_nd_convolve_correlate(vol, ker, img, ker2):
    # jax.scipy.signal.convolve and correlate on 3-D volumes and 2-D
    # images in every mode, by direct convolution and by FFT (method=),
    # an f64 correlation, and the gradient of a smoothed volume's energy
    # through the direct method.
    sig = jsp.signal
    out = []
    for mode in ("full", "same", "valid"):
        out.append(sig.convolve(vol, ker, mode=mode, method="direct",
                                precision=_HI))
        out.append(sig.correlate(img, ker2, mode=mode, method="fft"))
    out.append(sig.convolve(img, ker2, mode="same", method="fft"))
    out.append(sig.correlate(vol.astype(jnp.float64),
                             ker.astype(jnp.float64), mode="same"))
    g = jax.grad(lambda v: jnp.sum(sig.convolve(
        v, ker, mode="same", precision=_HI) ** 2))(vol)
    return out, g


# --- unique with size --------------------------------------------------

def unique_all_vocab(tokens, feats, rows):
    # Building a vocabulary inside jit: jnp.unique_all / unique_inverse /
    # unique_counts / unique_values with a static size and fill_value
    # (fewer and more distinct values than the size), the inverse indices
    # mapping tokens to their ids, counts feeding a bincount with length,
    # unique rows of a matrix with return_inverse, and int16 / f32 keys.
    ua = jnp.unique_all(tokens, size=12, fill_value=-1)
    ui = jnp.unique_inverse(tokens.astype(jnp.int16), size=20,
                            fill_value=jnp.int16(99))
    uc = jnp.unique_counts(feats, size=6, fill_value=0.0)
    uv = jnp.unique_values(feats, size=16, fill_value=jnp.nan)
    ids = ua.inverse_indices
    freq = jnp.bincount(ids.ravel(), weights=jnp.ones(ids.size), length=12)
    ur, inv_r = jnp.unique(rows, axis=0, return_inverse=True, size=5,
                           fill_value=0)
    emb = jnp.take(jnp.arange(12.0)[:, None] * jnp.ones((1, 3)), ids,
                   axis=0)
    return ua, ui, uc, uv, freq, ur, inv_r, emb


def _unique_inputs(r):
    rows = r.integers(0, 2, (10, 3)).astype(np.int32)
    return [r.integers(0, 9, (4, 6)).astype(np.int32),
            np.round(floats(r, (15,)) * 2) / 2,
            rows]


# --- sketches over uint32 hashes ---------------------------------------

def count_min_hyperloglog(items, weights):
    # Streaming sketches as data pipelines write them in JAX: a count-min
    # sketch (four rows of multiply-shift hashes in uint32 arithmetic that
    # wraps, scatter-adds of uint32 counts, queries by the minimum over
    # rows), a HyperLogLog register file (the leading zeros of the hash
    # past the bucket bits through lax.clz, a scatter-max into uint8
    # registers, the harmonic-mean estimate) and a uint64 FNV-1a hash of
    # each item's bytes.
    a = jnp.array([0x9E3779B1, 0x85EBCA77, 0xC2B2AE3D, 0x27D4EB2F],
                  jnp.uint32)
    b = jnp.array([0x165667B1, 0xD3A2646C, 0xFD7046C5, 0xB55A4F09],
                  jnp.uint32)
    u = items.astype(jnp.uint32)
    h = a[:, None] * u[None, :] + b[:, None]           # wraps mod 2**32
    cols = (h >> 26).astype(jnp.int32)                  # 64 columns
    table = jnp.zeros((4, 64), jnp.uint32)
    table = table.at[jnp.arange(4)[:, None], cols].add(weights[None, :])
    est = jnp.min(table[jnp.arange(4)[:, None], cols], axis=0)

    x = u * jnp.uint32(0xCC9E2D51)
    x = (x << 15) | (x >> 17)
    x = x * jnp.uint32(0x1B873593)
    x = x ^ (x >> 16)
    bucket = (x >> 28).astype(jnp.int32)               # 16 registers
    rank = lax.clz((x << 4) | jnp.uint32(0x8)) + 1
    regs = jnp.zeros((16,), jnp.uint8).at[bucket].max(
        rank.astype(jnp.uint8))
    alpha = 0.673
    card = alpha * 16 * 16 / jnp.sum(2.0 ** -regs.astype(jnp.float32))

    bytes_ = jnp.stack([(u >> s) & 0xFF for s in (0, 8, 16, 24)], -1)
    fnv = jnp.full(u.shape, 0xCBF29CE484222325, jnp.uint64)
    for i in range(4):
        fnv = (fnv ^ bytes_[:, i].astype(jnp.uint64)) * jnp.uint64(
            0x100000001B3)
    return h, table, est, regs, card, fnv


# --- fp8 training with delayed scaling ---------------------------------

def fp8_delayed_scaling_steps(w, xs, ys):
    # fp8 training as Transformer Engine does it, in a scan of steps: the
    # forward matmul's operands cast to float8_e4m3fn with scales from an
    # amax history (rolled each step), saturated to the format's range;
    # the backward pass's output gradient cast to float8_e5m2 (a
    # custom_vjp); products in f32 (preferred_element_type); the amax
    # history and scales carried through the loop.
    e4, e5 = jnp.float8_e4m3fn, jnp.float8_e5m2
    e4max = float(jnp.finfo(e4).max)
    e5max = float(jnp.finfo(e5).max)

    def q(v, scale, dt, vmax):
        return jnp.clip(v * scale, -vmax, vmax).astype(dt)

    @jax.custom_vjp
    def fp8_dot(x, w, sx, sw, sg):
        xq, wq = q(x, sx, e4, e4max), q(w, sw, e4, e4max)
        return lax.dot(xq, wq, preferred_element_type=jnp.float32) / (
            sx * sw)

    def fwd(x, w, sx, sw, sg):
        return fp8_dot(x, w, sx, sw, sg), (x, w, sx, sw, sg)

    def bwd(res, g):
        x, w, sx, sw, sg = res
        gq = q(g, sg, e5, e5max).astype(jnp.float32) / sg
        xq = q(x, sx, e4, e4max).astype(jnp.float32) / sx
        wq = q(w, sw, e4, e4max).astype(jnp.float32) / sw
        return (gq @ wq.T, xq.T @ gq, jnp.zeros_like(sx),
                jnp.zeros_like(sw), jnp.zeros_like(sg))

    fp8_dot.defvjp(fwd, bwd)

    def step(carry, batch):
        w, hist = carry
        x, y = batch
        amax = hist.max(axis=1)                   # [3]: x, w, grad
        fmax = jnp.array([e4max, e4max, e5max], jnp.float32)
        scales = jnp.where(amax > 0, fmax / (2.0 * amax), 1.0)

        def loss(w):
            out = fp8_dot(x, w, scales[0], scales[1], scales[2])
            return jnp.mean((out - y) ** 2), out

        (l, out), g = jax.value_and_grad(loss, has_aux=True)(w)
        gout = 2 * (out - y) / out.size
        new_amax = jnp.stack([jnp.max(jnp.abs(x)), jnp.max(jnp.abs(w)),
                              jnp.max(jnp.abs(gout))])
        hist = jnp.roll(hist, 1, axis=1).at[:, 0].set(new_amax)
        return (w - 0.1 * g, hist), (l, scales)

    hist0 = jnp.zeros((3, 4), jnp.float32)
    (w, hist), (ls, scales) = lax.scan(step, (w, hist0), (xs, ys))
    return w, hist, ls, scales


# --- complex128 linear algebra -----------------------------------------

def complex128_linalg_grads(a, b, h):
    # complex128 linear algebra with gradients, as quantum-chemistry and
    # signal-processing code does it: a Hermitian positive definite
    # matrix's Cholesky factor and solve, slogdet (sign and log modulus)
    # and the gradient of a real loss through them (the conjugate
    # cotangent convention), a general complex solve and its gradient,
    # the Frechet derivative of expm (jax.scipy.linalg.expm_frechet, f64)
    # and a pivoted QR's |R| diagonal and column permutation (f64, geqp3;
    # a random matrix has no ties among its column norms).
    hpd = h @ jnp.conj(h).T + 3 * jnp.eye(h.shape[0], dtype=h.dtype)
    l = jnp.linalg.cholesky(hpd)
    sol = jsp.linalg.cho_solve((l, True), b)
    sign, logdet = jnp.linalg.slogdet(hpd)

    def loss(h, b):
        m = h @ jnp.conj(h).T + 3 * jnp.eye(h.shape[0], dtype=h.dtype)
        x = jnp.linalg.solve(m, b)
        return jnp.linalg.slogdet(m)[1] + jnp.sum(jnp.abs(x) ** 2)

    gh, gb = jax.grad(loss, (0, 1))(h, b)
    ga = jax.grad(lambda a: jnp.sum(jnp.real(
        jnp.linalg.solve(a, b)) ** 2))(a)
    re = jnp.real(a)
    ex, fr = jsp.linalg.expm_frechet(re * 0.3, jnp.imag(a) * 0.3)
    r, piv = jsp.linalg.qr(re, mode="r", pivoting=True)
    return (l, sol, sign, logdet, gh, gb, ga, ex, fr, jnp.abs(jnp.diag(r)),
            piv)


def _c128_inputs(r):
    return [complexes(r, (5, 5), np.complex128),
            complexes(r, (5, 2), np.complex128),
            complexes(r, (5, 5), np.complex128) * 0.5]


# --- mixed advanced indexing -------------------------------------------

def mixed_advanced_indexing(x, ia, ib, upd, w):
    # NumPy indexing as array code mixes it: advanced indices separated by
    # a slice (the indexed dimensions move to the front), next to each
    # other (they stay in place), with Ellipsis, None and negative
    # indices; the same patterns as scatters (.at[].add with duplicate
    # indices, .at[].set, .at[].mul) and under vmap along a middle axis
    # (gathers and scatters with batching dimensions), and the gradient
    # through the gathers (scatter-adds of the cotangents).
    g1 = x[ia, :, ib]                       # [5, 4]: advanced dims first
    g2 = x[:, ia[:, None], ib[None, :3]]    # [3, 5, 3]
    g3 = x[..., -1][ia % 3, None]           # [5, 1, 4]
    g4 = x[1:, ::-1][:, ia[:2], 1:]         # [2, 2, 5]
    s1 = x.at[ia % 3, :, ib].add(upd)       # duplicates accumulate
    s2 = x.at[-1, :, ib[:3]].set(upd[:3])   # [3, 4]: -1 is advanced too
    s3 = x.at[:, 1:3, ib[:2]].mul(2.5)

    def per_col(xc, i):
        # xc: [3, 6] (x with axis 1 mapped away), i: scalar index.
        return xc[:, i], xc.at[i % 3, i].add(1.0)

    vg, vs = jax.vmap(per_col, in_axes=(1, 0), out_axes=(1, 0))(
        x, ia[:4] % 6)

    def loss(x, w):
        return jnp.sum(jnp.tanh(x[ia, :, ib] @ w[:4]) ** 2) + jnp.sum(
            x[:, ia[:, None], ib[None, :3]] * w[4, :3])

    gx, gw = jax.grad(loss, (0, 1))(x, w)
    return g1, g2, g3, g4, s1, s2, s3, vg, vs, gx, gw


def _indexing_inputs(r):
    ia = np.array([0, 2, -1, 1, 2], np.int32)
    ib = np.array([5, 0, 5, -2, 3], np.int32)
    return [floats(r, (3, 4, 6)), ia, ib, floats(r, (5, 4)),
            floats(r, (5, 4))]


def big_sketch_unique_rank(items, weights, x, img, w):
    # The surfaces above past the CPU backend's parallel split (32768
    # elements): count_min_hyperloglog's sketches over 60000 hashed
    # items, unique_counts of 60000 tokens with size (cumulative sums of
    # 60000 elements, whose window coordinates, 29 GB, the evaluator
    # could not hold, and whose windows, once it could, took it 36 s),
    # rankdata of 40000 values with ties (every method), and im2col of a
    # 64 x 64 image.
    sk = count_min_hyperloglog(items, weights)
    tokens = items % 997
    uc = jnp.unique_counts(tokens, size=1000, fill_value=-1)
    ranks = [jsp.stats.rankdata(x, method=m)
             for m in ("average", "min", "max", "dense", "ordinal")]
    p = lax.conv_general_dilated_patches(
        img, (3, 3), (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO",
                                                        "NHWC"))
    conv = jnp.einsum("nhwk,ko->nhwo", p, w, precision=_HI)
    return sk, uc, ranks, conv


def _big_inputs(r):
    return [r.integers(0, 2**31 - 1, 60000).astype(np.int32),
            r.integers(1, 5, 60000).astype(np.uint32),
            np.round(floats(r, (40000,)) * 64) / 64,
            floats(r, (2, 64, 64, 4)), floats(r, (36, 8)) * 0.2]


def long_signal_correlations(x, taps, chirp):
    # Signal processing at audio lengths, by direct convolution as
    # jnp.correlate and jnp.convolve compute it: the full autocorrelation
    # of 8192 samples (a window as long as the signal, padded by its
    # length on both sides: the evaluator tabulated 2n^2 window
    # coordinates for it, 1 GB here and out of memory past 35000
    # samples), a 1025-tap FIR filter over 40000 samples (mode "same"), a
    # matched filter locating a chirp, and the normalised autocorrelation's
    # first peak after lag 0.
    hi = lax.Precision.HIGHEST
    ac = jnp.correlate(x, x, "full", precision=hi)
    filtered = jnp.convolve(jnp.tile(x, 5)[:40000], taps, "same",
                            precision=hi)
    mf = jnp.correlate(filtered, chirp, "valid", precision=hi)
    acn = ac[x.shape[0] - 1:] / ac[x.shape[0] - 1]
    lag = jnp.argmax(jnp.where(jnp.arange(acn.shape[0]) > 20, acn, -1.0))
    return ac, filtered, mf, jnp.argmax(jnp.abs(mf)), lag


def _signal_inputs(r):
    # Quarter-grid values and taps keep every sum exact, so that any
    # summation order gives the same bits.
    t = np.arange(8192)
    x = np.round(4 * (np.sin(2 * np.pi * t / 97.0)
                      + 0.5 * r.standard_normal(8192))) / 4
    taps = np.round(8 * np.hanning(1025)) / 8
    chirp = np.round(4 * np.sin(2 * np.pi * (np.arange(256) / 64.0) ** 2)) / 4
    return [x.astype(np.float32), taps.astype(np.float32),
            chirp.astype(np.float32)]


PROGRAMS = {
    "rare_random_samplers": (rare_random_samplers, lambda r: [
        prng_key(r), np.float32(0.5), np.float32(1.5)]),
    "multinomial_and_orthogonal": (multinomial_and_orthogonal,
                                   _multinomial_inputs),
    "gamma_reparam_vi_grad": (gamma_reparam_vi_grad, _gamma_vi_inputs),
    "particle_filter_resampling": (particle_filter_resampling, lambda r: [
        prng_key(r), floats(r, (10,)) * 2, np.float32(-0.5)]),
    "special_exp1_expn_hyp2f1": (special_exp1_expn_hyp2f1,
                                 _special_inputs),
    "stats_rank_mode_densities": (stats_rank_mode_densities,
                                  _stats_inputs),
    "kde_density_grad": (kde_density_grad, _kde_inputs),
    "taylor_mode_jet": (taylor_mode_jet, _jet_inputs),
    "custom_transform_zoo": (custom_transform_zoo, _transform_inputs),
    "im2col_patches_conv": (im2col_patches_conv, lambda r: [
        floats(r, (2, 9, 8, 3)), floats(r, (3, 3, 3, 4)) * 0.3]),
    "signal_nd_convolve_correlate": (signal_nd_convolve_correlate,
                                     lambda r: [
        floats(r, (6, 7, 5)), floats(r, (3, 2, 3)), floats(r, (12, 10)),
        floats(r, (4, 3))]),
    "unique_all_vocab": (unique_all_vocab, _unique_inputs),
    "fp8_delayed_scaling_steps": (fp8_delayed_scaling_steps, lambda r: [
        floats(r, (16, 8)) * 0.3, floats(r, (6, 12, 16)),
        floats(r, (6, 12, 8))]),
    "complex128_linalg_grads": (complex128_linalg_grads, _c128_inputs),
    "mixed_advanced_indexing": (mixed_advanced_indexing, _indexing_inputs),
    "big_sketch_unique_rank": (big_sketch_unique_rank, _big_inputs),
    "long_signal_correlations": (long_signal_correlations, _signal_inputs),
}
