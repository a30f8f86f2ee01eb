"""Zoo: programs from the ninth bug hunt, the parts of JAX the zoo had
not reached: Krylov solvers (jax.scipy.sparse.linalg's cg, gmres and
bicgstab on matrix-free stencils), implicit differentiation
(lax.custom_root and lax.custom_linear_solve in a deep equilibrium
layer), lax.linalg.tridiagonal_solve (natural cubic splines) and its
gradient, jax.experimental.ode.odeint's adaptive Dormand-Prince and its
adjoint, jax.random.multivariate_normal and ball inside vmap with EM
steps of a Gaussian mixture, sparsemax and bisection entmax with
jnp.apply_along_axis, a VQ-VAE codebook step (straight-through
gradients, EMA updates through segment sums, jax.scipy.cluster.vq),
a complex diagonal state-space layer (S4D) through a complex
associative_scan, variadic lax.reduce and lax.reduce_window with
custom combiners (online softmax, Welford, max pooling with its
argmax), an int8 KV-cache decode loop with a carried PRNG key,
polynomial division and roots, Toeplitz/block-diagonal Gaussian
processes (jax.scipy.linalg.toeplitz, block_diag, solve with
assume_a='pos'), quantization-aware training with custom_vjp
straight-through estimators and lax.reduce_precision, and f16 training
with a dynamic loss scale (steps skipped by lax.cond on overflow).
"""

import functools

import jax
import jax.numpy as jnp
import jax.scipy as jsp
import numpy as np
from jax import lax

from jax_harness import complexes, floats, prng_key

_HI = lax.Precision.HIGHEST


# --- Krylov solvers ----------------------------------------------------

def _laplacian(u, c):
    # The 5-point Laplacian with Dirichlet boundaries plus a reaction
    # term c * u: symmetric positive definite for c >= 0.
    p = jnp.pad(u, 1)
    return (4 * u - p[:-2, 1:-1] - p[2:, 1:-1] - p[1:-1, :-2]
            - p[1:-1, 2:]) + c * u


def krylov_poisson_solvers(f, c, vel):
    # Matrix-free solves of a 2-D Poisson problem on a 12 x 12 grid the
    # way a PDE user writes them: cg with a Jacobi preconditioner (f64,
    # a fixed iteration count: tol=0), cg on a pytree right-hand side,
    # gmres (batched and incremental Arnoldi, f32) and bicgstab (f64) on a
    # convection-diffusion operator that is not symmetric; the residual
    # norm of the cg solve.
    A = functools.partial(_laplacian, c=c)
    jac = lambda r: r / (4.0 + c)
    x_cg, _ = jsp.sparse.linalg.cg(A, f, M=jac, tol=0.0, maxiter=25)
    tree_b = {"a": f, "b": 2 * f[::-1]}
    tree_A = lambda t: {"a": A(t["a"]), "b": A(t["b"])}
    x_tree, _ = jsp.sparse.linalg.cg(tree_A, tree_b, tol=0.0, maxiter=15)

    f32 = f.astype(jnp.float32)

    def conv_diff(u):
        p = jnp.pad(u, 1)
        adv = vel * (p[2:, 1:-1] - p[:-2, 1:-1]) * 0.5
        return _laplacian(u, 0.1) + adv

    x_gm, _ = jsp.sparse.linalg.gmres(conv_diff, f32, tol=0.0, restart=10,
                                      maxiter=2, solve_method="batched")
    x_gi, _ = jsp.sparse.linalg.gmres(conv_diff, f32, tol=0.0, restart=8,
                                      maxiter=2, solve_method="incremental")
    # bicgstab in f64: its f32 iterates wander with the rounding.
    x_bi, _ = jsp.sparse.linalg.bicgstab(conv_diff, f, tol=0.0, maxiter=12)
    # Only the f64 residual: an f32 solve's residual is rounding noise.
    return x_cg, x_tree, x_gm, x_gi, x_bi, jnp.linalg.norm(A(x_cg) - f)


# --- implicit differentiation ------------------------------------------

def deq_implicit_grad(w, b, x, spd):
    # A deep equilibrium layer: z* = tanh(W z* + U x + b) found by a
    # fixed-point iteration inside lax.custom_root, whose gradient is the
    # implicit one (a linear solve by custom_linear_solve with a
    # fixed-count Richardson iteration); and a symmetric
    # custom_linear_solve (cg-like, solved by Cholesky) differentiated
    # through both its matrix and right-hand side.
    def layer(params, x):
        w, b = params
        u = x @ w[1]

        def f(z):
            return z - jnp.tanh(z @ w[0] + u + b)

        def solve(f, z0):
            return lax.fori_loop(0, 60, lambda i, z: z - f(z), z0)

        def tangent_solve(g, y):
            # y = g(v) for linear g: Richardson iteration v <- v + (y -
            # g(v)), which converges since g is close to the identity.
            return lax.fori_loop(0, 60, lambda i, v: v + (y - g(v)),
                                 jnp.zeros_like(y))

        return lax.custom_root(f, jnp.zeros_like(u), solve, tangent_solve)

    def loss(params, x):
        z = layer(params, x)
        return jnp.sum(z * z) + jnp.sum(jnp.sin(z[:, :3])), z

    (l, z), g = jax.value_and_grad(loss, has_aux=True)(
        (w, b), x)

    def spd_solve(m, rhs):
        mv = lambda v: jnp.dot(m, v, precision=_HI)

        def chol_solve(matvec, r):
            return jsp.linalg.cho_solve(jsp.linalg.cho_factor(m), r)

        return lax.custom_linear_solve(mv, rhs, chol_solve, symmetric=True)

    def spd_loss(s, rhs):
        m = s @ s.T + 4 * jnp.eye(s.shape[0], dtype=s.dtype)
        return jnp.sum(jnp.cos(spd_solve(m, rhs)))

    gs, grhs = jax.grad(spd_loss, (0, 1))(spd, x[0, :spd.shape[0]])
    return l, z, g, gs, grhs


# --- tridiagonal splines -----------------------------------------------

def natural_spline_tridiagonal(xk, yk, xq):
    # Natural cubic splines through a batch of curves: the second
    # derivatives solve a tridiagonal system (lax.linalg.tridiagonal_solve,
    # batched, f32 and f64), the query points find their interval with
    # searchsorted, and the gradient of the interpolated values flows
    # back through the tridiagonal solve to the knot values.
    def spline(yk, xk, xq):
        h = jnp.diff(xk)                                    # [n-1]
        n = xk.shape[0]
        rhs = 6 * (jnp.diff(yk[..., 1:], axis=-1) / h[1:]
                   - jnp.diff(yk[..., :-1], axis=-1) / h[:-1])  # [.., n-2]
        dl = jnp.concatenate([jnp.zeros((1,), h.dtype), h[1:-1]])
        d = 2 * (h[:-1] + h[1:])
        du = jnp.concatenate([h[1:-1], jnp.zeros((1,), h.dtype)])
        batch = yk.shape[:-1]
        bc = lambda v: jnp.broadcast_to(v, batch + v.shape)
        m = lax.linalg.tridiagonal_solve(bc(dl), bc(d), bc(du),
                                         rhs[..., None])[..., 0]
        z = jnp.zeros(batch + (1,), yk.dtype)
        m = jnp.concatenate([z, m, z], -1)                  # [.., n]
        i = jnp.clip(jnp.searchsorted(xk, xq, side="right") - 1, 0, n - 2)
        t0, t1 = xk[i], xk[i + 1]
        hh = t1 - t0
        a, bb = (t1 - xq) / hh, (xq - t0) / hh
        y0, y1 = yk[..., i], yk[..., i + 1]
        m0, m1 = m[..., i], m[..., i + 1]
        return (a * y0 + bb * y1
                + ((a ** 3 - a) * m0 + (bb ** 3 - bb) * m1) * hh * hh / 6)

    v32 = spline(yk, xk, xq)
    v64 = spline(yk.astype(jnp.float64), xk.astype(jnp.float64),
                 xq.astype(jnp.float64))
    g = jax.grad(lambda y: jnp.sum(jnp.sin(spline(y, xk, xq))))(yk)
    return v32, v64, g


def _spline_inputs(r):
    xk = np.sort(r.uniform(0, 10, 16)).astype(np.float32)
    xk[0], xk[-1] = 0.0, 10.0
    return [xk, floats(r, (5, 16)), r.uniform(0, 10, 40).astype(np.float32)]


# --- neural ODE --------------------------------------------------------

def neural_ode_adjoint(y0, w1, b1, w2, t):
    # A neural ODE: odeint's adaptive Dormand-Prince (a while loop whose
    # step size depends on the error estimate) through an MLP vector
    # field, in f64, and the gradient of a loss on the trajectory by the
    # adjoint method (odeint run backwards). The loss and the final state
    # are returned (the step count is kept out).
    from jax.experimental.ode import odeint

    def field(y, t, w1, b1, w2):
        h = jnp.tanh(y @ w1 + b1 + jnp.sin(t))
        return h @ w2 - 0.1 * y

    def loss(y0, w1, b1, w2):
        ys = odeint(field, y0, t, w1, b1, w2, rtol=1e-7, atol=1e-9)
        return jnp.sum(ys[-1] ** 2) + 0.1 * jnp.sum(ys), ys

    (l, ys), g = jax.value_and_grad(loss, (0, 1, 2, 3), has_aux=True)(
        y0, w1, b1, w2)
    return l, ys, g


def _ode_inputs(r):
    d, h = 4, 8
    return [floats(r, (3, d), np.float64),
            floats(r, (d, h), np.float64) / 2, floats(r, (h,), np.float64)
            * 0.1, floats(r, (h, d), np.float64) / 3,
            np.array([0.0, 0.3, 0.9, 1.5])]


# --- Gaussian mixtures ---------------------------------------------------

def gmm_mvn_sampling_em(key, means, chol_raw, x):
    # Sampling from a Gaussian mixture the way probabilistic code does:
    # per-component multivariate_normal draws inside vmap over split keys
    # (method='cholesky'), points drawn uniformly in the unit ball, and
    # two EM steps: responsibilities from Cholesky log densities
    # (solve_triangular, log-determinants from the diagonal), weighted
    # means and covariances re-factored by cho_factor.
    k, d = means.shape
    tri = jnp.tril(chol_raw) * 0.3 + jnp.eye(d) * 1.0
    covs = tri @ jnp.swapaxes(tri, -1, -2)
    keys = jax.random.split(key, k + 1)
    draws = jax.vmap(lambda kk, m, c: jax.random.multivariate_normal(
        kk, m, c, (6,), method="cholesky"))(keys[:k], means, covs)
    ball = jax.random.ball(keys[k], d, p=2, shape=(10,))

    def log_dens(x, m, c):
        l_ = jnp.linalg.cholesky(c)
        z = jsp.linalg.solve_triangular(l_, (x - m).T, lower=True)
        return (-0.5 * jnp.sum(z * z, 0) - jnp.sum(jnp.log(jnp.diag(l_)))
                - 0.5 * d * jnp.log(2 * jnp.pi))

    def em(carry, _):
        m, c, logw = carry
        lp = jax.vmap(log_dens, (None, 0, 0))(x, m, c) + logw[:, None]
        resp = jax.nn.softmax(lp, 0)                       # [k, n]
        nk = resp.sum(1) + 1e-6
        m_new = (resp @ x) / nk[:, None]
        diff = x[None] - m_new[:, None]                    # [k, n, d]
        c_new = jnp.einsum("kn,kni,knj->kij", resp, diff, diff) / nk[
            :, None, None] + 1e-3 * jnp.eye(d)
        ll = jnp.sum(jax.nn.logsumexp(lp, 0))
        return (m_new, c_new, jnp.log(nk / nk.sum())), ll

    (m, c, logw), lls = lax.scan(em, (means, covs, jnp.full((k,), -jnp.log(
        k))), None, length=2)
    cf = jax.vmap(lambda c: jsp.linalg.cho_factor(c, lower=True)[0])(c)
    return draws, ball, jnp.linalg.norm(ball, axis=-1), m, jnp.tril(cf), \
        logw, lls


def _gmm_inputs(r):
    k, d, n = 3, 3, 60
    means = floats(r, (k, d)) * 3
    x = np.concatenate([means[i] + floats(r, (n // k, d)) for i in range(k)])
    return [prng_key(r), means.astype(np.float64),
            floats(r, (k, d, d), np.float64), x.astype(np.float64)]


# --- sparse attention normalizers --------------------------------------

def sparsemax(z, axis=-1):
    z_sorted = -jnp.sort(-z, axis=axis)
    k = jnp.arange(1, z.shape[axis] + 1, dtype=z.dtype)
    shape = [1] * z.ndim
    shape[axis] = -1
    k = k.reshape(shape)
    cssv = jnp.cumsum(z_sorted, axis) - 1
    support = (k * z_sorted > cssv)
    kz = jnp.sum(support, axis, keepdims=True)
    tau = jnp.take_along_axis(cssv, kz - 1, axis) / kz.astype(z.dtype)
    return jnp.maximum(z - tau, 0)


def sparsemax_entmax_attention(q, k, v, logits):
    # Sparse attention normalizers: sparsemax (sort descending, cumsum,
    # the support size by a comparison count, a take_along_axis of the
    # threshold) over attention scores and its gradient through the
    # sort, entmax-1.5 by 30 bisection steps in a fori_loop, and
    # jnp.apply_along_axis of a row function (a vmap in disguise).
    s = jnp.einsum("hqd,hkd->hqk", q, k, precision=_HI) / 4.0
    p_sm = sparsemax(s)
    out = jnp.einsum("hqk,hkd->hqd", p_sm, v, precision=_HI)
    g = jax.grad(lambda s: jnp.sum(sparsemax(s) * jnp.cos(s)))(s)

    def entmax15(z):
        z = z / 2
        lo = jnp.max(z, -1, keepdims=True) - 1
        hi = jnp.max(z, -1, keepdims=True)

        def body(_, lh):
            lo, hi = lh
            mid = (lo + hi) / 2
            mass = jnp.sum(jnp.maximum(z - mid, 0) ** 2, -1, keepdims=True)
            lo = jnp.where(mass > 1, mid, lo)
            hi = jnp.where(mass > 1, hi, mid)
            return lo, hi

        lo, hi = lax.fori_loop(0, 30, body, (lo, hi))
        p = jnp.maximum(z - (lo + hi) / 2, 0) ** 2
        return p / p.sum(-1, keepdims=True)

    p_ent = entmax15(logits)
    row = jnp.apply_along_axis(lambda r: sparsemax(r) @ jnp.arange(
        r.shape[0], dtype=r.dtype), 1, logits)
    return p_sm, out, g, p_ent, row, jnp.sum(p_sm > 0, -1)


# --- VQ-VAE ------------------------------------------------------------

def vq_vae_codebook_step(z_e, codebook, ema_count, ema_sum, w_dec):
    # A VQ-VAE quantizer step: nearest codes by squared distances
    # (||z||^2 - 2 z.c + ||c||^2) and argmin, jax.scipy.cluster.vq.vq for
    # the same assignment, the straight-through estimator
    # (z + stop_gradient(q - z)), codebook and commitment losses and
    # their gradients to the encoder output and the decoder, and the
    # codebook's EMA update through segment sums with Laplace smoothing;
    # the perplexity of the code usage.
    n_codes, d = codebook.shape
    flat = z_e.reshape(-1, d)
    dist = (jnp.sum(flat ** 2, 1, keepdims=True)
            - 2 * jnp.dot(flat, codebook.T, precision=_HI)
            + jnp.sum(codebook ** 2, 1))
    idx = jnp.argmin(dist, 1)
    idx_vq, dist_vq = jsp.cluster.vq.vq(flat, codebook)

    def loss(z_e, w_dec, codebook):
        q = codebook[idx].reshape(z_e.shape)
        st = z_e + lax.stop_gradient(q - z_e)
        recon = jnp.tanh(st @ w_dec)
        commit = jnp.mean((z_e - lax.stop_gradient(q)) ** 2)
        cb = jnp.mean((lax.stop_gradient(z_e) - q) ** 2)
        return jnp.mean(recon ** 2) + cb + 0.25 * commit

    l, grads = jax.value_and_grad(loss, (0, 1, 2))(z_e, w_dec, codebook)
    onehot = jax.nn.one_hot(idx, n_codes, dtype=flat.dtype)
    counts = jax.ops.segment_sum(jnp.ones_like(idx, jnp.float32), idx,
                                 n_codes)
    sums = jax.ops.segment_sum(flat, idx, n_codes)
    decay = 0.99
    ema_count = decay * ema_count + (1 - decay) * counts
    ema_sum = decay * ema_sum + (1 - decay) * sums
    n = ema_count.sum()
    smoothed = (ema_count + 1e-5) / (n + n_codes * 1e-5) * n
    new_cb = ema_sum / smoothed[:, None]
    avg = onehot.mean(0)
    perplexity = jnp.exp(-jnp.sum(avg * jnp.log(avg + 1e-10)))
    return idx, idx_vq, dist_vq, l, grads, new_cb, ema_count, perplexity


def _vq_inputs(r):
    codebook = floats(r, (12, 6))
    idx = r.integers(0, 12, (4, 10))
    z = codebook[idx] + floats(r, (4, 10, 6)) * 0.2
    return [z, codebook, np.abs(floats(r, (12,))) + 1,
            floats(r, (12, 6)), floats(r, (6, 5)) * 0.4]


# --- complex state-space layer -----------------------------------------

def s4d_complex_scan(u, log_neg_re, im, b, c, log_dt):
    # S4D: a diagonal state-space layer with complex eigenvalues
    # A = -exp(log_neg_re) + i*im, zero-order-hold discretization
    # (exp(dt*A), (exp(dt*A)-1)/A * B), the linear recurrence
    # x_t = a x_{t-1} + b u_t as a complex associative_scan over time,
    # y = 2 Re(C x); the same recurrence as a lax.scan for reference, and
    # the gradient of a loss to the real parameters through the complex
    # scan.
    def forward(log_neg_re, im, b, c, log_dt):
        a = (-jnp.exp(log_neg_re) + 1j * im).astype(jnp.complex64)  # [H, N]
        dt = jnp.exp(log_dt)[:, None]                                # [H, 1]
        da = jnp.exp(dt * a)
        db = (da - 1) / a * b
        bu = db[None] * u[:, :, None].astype(jnp.complex64)       # [T, H, N]
        aa = jnp.broadcast_to(da, bu.shape)

        def combine(x, y):
            a1, b1 = x
            a2, b2 = y
            return a2 * a1, a2 * b1 + b2

        _, xs = lax.associative_scan(combine, (aa, bu), axis=0)
        y = 2 * jnp.real(jnp.einsum("hn,thn->th", c, xs))
        return y, xs, da, db, bu

    y, xs, da, db, bu = forward(log_neg_re, im, b, c, log_dt)

    def step(x, inp):
        x = da * x + inp
        return x, x

    _, xs_ref = lax.scan(step, jnp.zeros_like(da), bu)
    g = jax.grad(lambda *p: jnp.sum(jnp.tanh(forward(*p)[0])), (0, 1, 4))(
        log_neg_re, im, b, c, log_dt)
    return y, xs, jnp.abs(xs - xs_ref).max() < 1e-3, g


def _s4d_inputs(r):
    t, h, n = 33, 4, 8
    return [floats(r, (t, h)), np.log(0.5 * np.ones((h, n), np.float32)),
            np.tile(np.pi * np.arange(n, dtype=np.float32), (h, 1)),
            complexes(r, (h, n)) * 0.5, complexes(r, (h, n)) * 0.3,
            np.log(np.linspace(0.01, 0.1, h)).astype(np.float32)]


# --- variadic reductions with custom combiners -------------------------

def variadic_reduce_combiners(x, img):
    # Reductions whose combiner carries several values: the online
    # softmax's (max, scaled sum) pair merged as flash attention merges
    # blocks, Welford's (count, mean, M2) triple for a one-pass variance,
    # a (value, index) max pooling by a variadic reduce_window (the
    # argmax a max-unpooling layer keeps) and the unpooling scatter.
    f32 = jnp.float32

    def softmax_merge(a, b):
        m1, s1 = a
        m2, s2 = b
        m = jnp.maximum(m1, m2)
        return m, s1 * jnp.exp(m1 - m) + s2 * jnp.exp(m2 - m)

    m, s = lax.reduce((x, jnp.ones_like(x)), (f32(-jnp.inf), f32(0)),
                      softmax_merge, (1,))
    lse = m + jnp.log(s)

    def welford(a, b):
        n1, mu1, q1 = a
        n2, mu2, q2 = b
        n = n1 + n2
        delta = mu2 - mu1
        safe = jnp.where(n > 0, n, 1)
        return (n, mu1 + delta * n2 / safe,
                q1 + q2 + delta * delta * n1 * n2 / safe)

    cnt, mu, m2 = lax.reduce((jnp.ones_like(x), x, jnp.zeros_like(x)),
                             (f32(0), f32(0), f32(0)), welford, (1,))
    var = m2 / cnt

    idx = lax.broadcasted_iota(jnp.int32, img.shape, 1) * img.shape[2] + \
        lax.broadcasted_iota(jnp.int32, img.shape, 2)

    def argmax_pair(a, b):
        va, ia = a
        vb, ib = b
        take_b = (vb > va) | ((vb == va) & (ib < ia))
        return jnp.where(take_b, vb, va), jnp.where(take_b, ib, ia)

    pv, pi = lax.reduce_window((img, idx), (f32(-jnp.inf), jnp.int32(2**30)),
                               argmax_pair, (1, 2, 2, 1), (1, 2, 2, 1),
                               "VALID")
    bsz, hh, ww, ch = img.shape
    flat_pos = pi.reshape(bsz, -1, ch)
    unpool = jnp.zeros((bsz, hh * ww, ch), f32)
    unpool = jax.vmap(jax.vmap(lambda u, p, v: u.at[p].set(v), (1, 1, 1), 1))(
        unpool, flat_pos, pv.reshape(bsz, -1, ch)).reshape(img.shape)
    return lse, jax.nn.logsumexp(x, 1), mu, var, pv, pi, unpool


def _variadic_inputs(r):
    img = np.round(floats(r, (2, 6, 8, 3)) * 2) / 2   # ties in windows
    return [floats(r, (7, 45)) * 3, img.astype(np.float32)]


# --- int8 KV-cache decode ----------------------------------------------

def int8_kv_cache_decode(x0, wq, wk, wv, wo, w_vocab, emb, key):
    # Autoregressive decoding with an int8 KV cache: each step projects
    # the current token, quantizes the new key and value rows per head
    # (absmax scales, round, clip to int8), writes them and their scales
    # in place with dynamic_update_slice, attends over the dequantized
    # cache with a length mask, and samples the next token from bf16
    # logits (top_k 5, categorical with a key carried and split in the
    # loop); a lax.cond picks greedy decoding on even steps.
    steps, h, hd = 10, 2, 8
    d = x0.shape[-1]
    b = x0.shape[0]
    kc = jnp.zeros((b, steps, h, hd), jnp.int8)
    vc = jnp.zeros((b, steps, h, hd), jnp.int8)
    ks = jnp.ones((b, steps, h, 1), jnp.float32)
    vs = jnp.ones((b, steps, h, 1), jnp.float32)

    def quant(t):
        scale = jnp.max(jnp.abs(t), -1, keepdims=True) / 127 + 1e-8
        q = jnp.clip(jnp.round(t / scale), -127, 127).astype(jnp.int8)
        return q, scale

    def body(i, carry):
        x, kc, vc, ks, vs, key, toks = carry
        q = (x @ wq).reshape(b, h, hd)
        kq, ksc = quant((x @ wk).reshape(b, 1, h, hd))
        vq, vsc = quant((x @ wv).reshape(b, 1, h, hd))
        kc = lax.dynamic_update_slice(kc, kq, (0, i, 0, 0))
        vc = lax.dynamic_update_slice(vc, vq, (0, i, 0, 0))
        ks = lax.dynamic_update_slice(ks, ksc, (0, i, 0, 0))
        vs = lax.dynamic_update_slice(vs, vsc, (0, i, 0, 0))
        kf = kc.astype(jnp.float32) * ks
        vf = vc.astype(jnp.float32) * vs
        sc = jnp.einsum("bhd,bshd->bhs", q, kf) / np.sqrt(hd)
        sc = jnp.where(jnp.arange(steps) <= i, sc, -jnp.inf)
        att = jnp.einsum("bhs,bshd->bhd", jax.nn.softmax(sc, -1), vf)
        hid = x + att.reshape(b, d) @ wo
        logits = (hid @ w_vocab).astype(jnp.bfloat16)
        top_v, top_i = lax.top_k(logits, 5)
        key, sub = jax.random.split(key)
        tok = lax.cond(
            i % 2 == 0,
            lambda: top_i[:, 0],
            lambda: jnp.take_along_axis(top_i, jax.random.categorical(
                sub, top_v.astype(jnp.float32), -1)[:, None], 1)[:, 0])
        toks = toks.at[:, i].set(tok)
        return emb[tok], kc, vc, ks, vs, key, toks

    toks = jnp.zeros((b, steps), jnp.int32)
    x, kc, vc, ks, vs, key, toks = lax.fori_loop(
        0, steps, body, (x0, kc, vc, ks, vs, key, toks))
    return toks, kc, vc, ks, vs, x


def _kv_inputs(r):
    d, vocab = 16, 40
    return [floats(r, (3, d)), _w(r, d, d), _w(r, d, d), _w(r, d, d),
            _w(r, d, d), _w(r, d, vocab) * 3, floats(r, (vocab, d)),
            prng_key(r)]


def _w(r, *shape, scale=1.0):
    return (floats(r, shape) * scale / np.sqrt(shape[0])).astype(np.float32)


# --- polynomials -------------------------------------------------------

def polynomial_division_roots(num, den, coeffs):
    # Polynomial algebra a signal-processing user writes: polydiv (a
    # quotient and remainder by long division), the roots of a batch of
    # cubics by the companion matrix's eigenvalues (jnp.roots with
    # strip_zeros=False), sorted by real then imaginary part, the
    # polynomial rebuilt from its roots (jnp.poly), and polyval at the
    # roots (residuals near zero).
    q, rem = jnp.polydiv(num, den)
    roots = jax.vmap(lambda c: jnp.sort_complex(jnp.roots(
        c, strip_zeros=False)))(coeffs)
    rebuilt = jax.vmap(jnp.poly)(roots)
    resid = jax.vmap(lambda c, z: jnp.abs(jnp.polyval(c.astype(
        z.dtype), z)))(coeffs, roots)
    return q, rem, roots, jnp.real(rebuilt), resid < 1e-6


def _poly_inputs(r):
    # Cubics with well-separated real roots and complex pairs, in f64.
    cs = []
    for _ in range(4):
        rr = r.uniform(-3, 3)
        re_, im_ = r.uniform(-2, 2), r.uniform(0.5, 2)
        cs.append(np.poly([rr, re_ + 1j * im_, re_ - 1j * im_]).real)
    cs.append(np.poly([-2.0, 0.5, 3.0]))
    return [floats(r, (7,), np.float64), np.array([1.0, -0.5, 2.0]),
            np.array(cs)]


# --- structured Gaussian processes -------------------------------------

def toeplitz_gp_marginal(y, phi, sigma, blocks):
    # A Gaussian-process model of stationary series: the AR(1)
    # covariance as a symmetric Toeplitz matrix (jax.scipy.linalg.toeplitz)
    # of phi^|i-j|, a block-diagonal covariance of independent series
    # (block_diag), solves with assume_a='pos', the log marginal
    # likelihood from a Cholesky factor, and its gradient to phi and
    # sigma; the Kronecker product of two small covariances.
    n = y.shape[0]

    def nll(phi, sigma):
        col = sigma ** 2 * phi ** jnp.arange(n, dtype=y.dtype)
        k = jsp.linalg.toeplitz(col) + 1e-3 * jnp.eye(n)
        alpha = jsp.linalg.solve(k, y, assume_a="pos")
        l_ = jnp.linalg.cholesky(k)
        return 0.5 * y @ alpha + jnp.sum(jnp.log(jnp.diag(l_))), alpha

    (val, alpha), g = jax.value_and_grad(nll, (0, 1), has_aux=True)(phi,
                                                                   sigma)
    bd = jsp.linalg.block_diag(*[b @ b.T + jnp.eye(b.shape[0])
                                 for b in blocks])
    z = jsp.linalg.solve(bd, jnp.arange(bd.shape[0], dtype=bd.dtype),
                         assume_a="pos")
    asym = jsp.linalg.toeplitz(y[:4], y[::-1][:5])
    kr = jnp.kron(bd[:3, :3], jsp.linalg.toeplitz(y[:2]))
    return val, alpha, g, bd, z, asym, kr


def _gp_inputs(r):
    return [floats(r, (24,), np.float64), np.float64(0.7), np.float64(1.3),
            [floats(r, (2, 2), np.float64), floats(r, (3, 3), np.float64),
             floats(r, (1, 1), np.float64)]]


# --- quantization-aware training ---------------------------------------

@jax.custom_vjp
def _fake_quant(x, scale):
    q = jnp.clip(jnp.round(x / scale), -128, 127)
    return q * scale


def _fq_fwd(x, scale):
    return _fake_quant(x, scale), (x, scale)


def _fq_bwd(res, g):
    # LSQ: the straight-through estimator inside the clipping range, and
    # the learned step size's gradient (round(x/s) - x/s inside, the
    # clip bound outside), summed over the broadcast axis.
    x, scale = res
    v = x / scale
    inside = (v >= -128) & (v <= 127)
    gx = jnp.where(inside, g, 0.0)
    gs = jnp.where(inside, jnp.round(v) - v, jnp.clip(v, -128, 127)) * g
    gs = jnp.sum(gs, axis=tuple(range(x.ndim - scale.ndim)) or None,
                 keepdims=False).reshape(scale.shape)
    return gx, gs


_fake_quant.defvjp(_fq_fwd, _fq_bwd)


def qat_fake_quant_step(w1, s1, w2, s2, x, y):
    # Quantization-aware training of a two-layer MLP: per-channel int8
    # fake quantization of weights with learned step sizes (custom_vjp
    # implementing LSQ), activations rounded to bf16 and to e4m3's
    # precision with lax.reduce_precision (exponent and mantissa bits),
    # a custom_jvp softplus, and one SGD step on weights and scales.
    @jax.custom_jvp
    def softplus(z):
        return jnp.logaddexp(z, 0.0)

    @softplus.defjvp
    def _sp_jvp(primals, tangents):
        (z,), (dz,) = primals, tangents
        return softplus(z), dz * jax.nn.sigmoid(z)

    def loss(params):
        w1, s1, w2, s2 = params
        h = x @ _fake_quant(w1, s1)
        h = lax.reduce_precision(h, exponent_bits=8, mantissa_bits=7)
        h = softplus(h)
        h = lax.reduce_precision(h, exponent_bits=4, mantissa_bits=3)
        out = h @ _fake_quant(w2, s2)
        return jnp.mean((out - y) ** 2)

    params = (w1, s1, w2, s2)
    l, g = jax.value_and_grad(loss)(params)
    new = jax.tree_util.tree_map(lambda p, gp: p - 0.01 * gp, params, g)
    return l, g, new


def _qat_inputs(r):
    w1 = floats(r, (8, 16)) * 0.5
    w2 = floats(r, (16, 4)) * 0.5
    s1 = (np.abs(w1).max(0) / 20).astype(np.float32)   # some clip
    s2 = (np.abs(w2).max(0) / 100).astype(np.float32)
    return [w1, s1, w2, s2, floats(r, (32, 8)), floats(r, (32, 4))]


# --- f16 training with a dynamic loss scale ----------------------------

def f16_dynamic_loss_scale_loop(w1, w2, xs, ys):
    # Mixed-precision training as jmp/optax write it: f32 master weights
    # cast to f16 for the forward and backward passes, the loss scaled
    # before differentiation and the f16 gradients unscaled in f32, a
    # finiteness check of every gradient leaf, the step skipped by
    # lax.cond on overflow (the scale halved) and the scale doubled after
    # two good steps; twelve steps in a scan from a scale of 2**17, which
    # overflows f16 at first.
    def loss(params, x, y, scale):
        w1, w2 = params
        h = jax.nn.gelu(x.astype(jnp.float16) @ w1.astype(jnp.float16))
        out = h @ w2.astype(jnp.float16)
        l = jnp.mean((out.astype(jnp.float32) - y) ** 2)
        return (l * scale).astype(jnp.float16), l

    def step(carry, batch):
        params, scale, good = carry
        x, y = batch
        g, l = jax.grad(loss, has_aux=True)(params, x, y, scale)
        g = jax.tree_util.tree_map(lambda t: t.astype(jnp.float32) / scale,
                                   g)
        finite = jnp.all(jnp.array([jnp.all(jnp.isfinite(t))
                                    for t in jax.tree_util.tree_leaves(g)]))
        params = lax.cond(finite, lambda: jax.tree_util.tree_map(
            lambda p, t: p - 0.05 * t, params, g), lambda: params)
        good = jnp.where(finite, good + 1, 0)
        scale = jnp.where(finite, jnp.where(good >= 2, scale * 2, scale),
                          scale / 2)
        good = jnp.where(good >= 2, 0, good)
        return (params, scale, good), (l, finite, scale)

    (params, scale, _), hist = lax.scan(
        step, ((w1, w2), jnp.float32(2.0 ** 17), jnp.int32(0)), (xs, ys))
    return params, scale, hist


PROGRAMS = {
    "krylov_poisson_solvers": (krylov_poisson_solvers, lambda r: [
        floats(r, (12, 12), np.float64), np.float64(0.5),
        np.float32(1.5)]),
    "deq_implicit_grad": (deq_implicit_grad, lambda r: [
        np.stack([_w(r, 10, 10, scale=0.3), _w(r, 10, 10)]),
        floats(r, (10,)) * 0.1, floats(r, (5, 10)),
        floats(r, (6, 6))]),
    "natural_spline_tridiagonal": (natural_spline_tridiagonal,
                                   _spline_inputs),
    "neural_ode_adjoint": (neural_ode_adjoint, _ode_inputs),
    "gmm_mvn_sampling_em": (gmm_mvn_sampling_em, _gmm_inputs),
    "sparsemax_entmax_attention": (sparsemax_entmax_attention, lambda r: [
        floats(r, (2, 7, 8)), floats(r, (2, 9, 8)), floats(r, (2, 9, 5)),
        floats(r, (6, 11)) * 2]),
    "vq_vae_codebook_step": (vq_vae_codebook_step, _vq_inputs),
    "s4d_complex_scan": (s4d_complex_scan, _s4d_inputs),
    "variadic_reduce_combiners": (variadic_reduce_combiners,
                                  _variadic_inputs),
    "int8_kv_cache_decode": (int8_kv_cache_decode, _kv_inputs),
    "polynomial_division_roots": (polynomial_division_roots, _poly_inputs),
    "toeplitz_gp_marginal": (toeplitz_gp_marginal, _gp_inputs),
    "qat_fake_quant_step": (qat_fake_quant_step, _qat_inputs),
    "f16_dynamic_loss_scale_loop": (f16_dynamic_loss_scale_loop, lambda r: [
        _w(r, 8, 16), _w(r, 16, 4), floats(r, (12, 16, 8)),
        floats(r, (12, 16, 4))]),
}
