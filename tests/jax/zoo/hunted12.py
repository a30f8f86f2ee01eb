"""Zoo: programs from the twelfth bug hunt, aimed at what the CPU backend
had most recently gained (loop state kept in place, the GEMV engine) and at
what the zoo had not reached. Algorithms whose loops update arrays in
place, as people write them in JAX: edit distance and LCS rows filled from
the cell just written, 0/1 and unbounded knapsacks (capacities descending
and ascending), union-find with path halving, a Fenwick tree (s64 and
f32), heapsort and insertion sort by hand (swaps read both elements before
writing either; vmapped rows with per-row trip counts), LU with partial
pivoting by row swaps, Conway's life with two swapped boards and a history
written in place, a sieve and u64 Collatz runs, Floyd-Warshall with paths
rebuilt into buffers, dynamic time warping with its path traced back; loop
states whose leaves alias (one input carried twice, pure swaps, rotations,
two updates of one old leaf, conditionals and switches returning their
operands reordered), outputs that share buffers, the same at 100000 values
past the parallel split, and loops the CPU drives from the host (FFTs or
LAPACK solves in the body, writing snapshots in place). Vector-matrix
products in every spelling the GEMV engine takes: both layouts, rank-1
vectors, batch in front and in the middle, f64, bf16/f16 matrices, integer
fallbacks, odd K and N from 1 to 129, broadcast/reversed/strided/sliced
matrix views, per-layer weights sliced in a scan, 9 MB matrices on
threads, an RNN over a scan with its gradient, Lanczos writing its basis
in place; and integer dots whose operands JAX widens (u8 x s8, u16, u32 to
u64, wrapping s16 and u8 sums). Cumulative windows written by hand
(non-identity inits, non-associative reducers, reversed, one short of the
axis) and at length (cumsums, cummax, cumlogsumexp, a running argmax over
50000-60000, gradients through cumsum, bf16 and f16 sums over 1000 to
32000), a Cox partial likelihood and ListMLE over reverse cumlogsumexps
with their gradients. jax.random's key
machinery (threefry2x32, rbg and unsafe_rbg keys, key_data and
wrap_key_data, clone, bits of every width, loggamma, lognormal,
independent permutations, weighted choice without replacement); top_k
with ties, NaN and +-0 in f32, s32, u8, s64 and bf16; 1-D and 3-D
convolutions combining lhs and window dilation, negative padding, feature
and batch groups; max pooling's gradient over ties and its jvp; integer
powers that wrap and division by negatives and INT_MIN; CRC-32, ChaCha20
and multi-limb arithmetic in u32/u64; a bitonic network; run-length
encoding and a CSR product; NeRF's hierarchical sampling.

Four bugs found, all fixed. The evaluator computed a reverse cumulative
window (lax.cumsum/cummax(reverse=True), and the transpose of every cumsum
in a gradient) and a cumulative window of any reducer but one binary op
(cumlogsumexp's, a running argmax) window by window, O(n^2):
long_cumulative_grads took it 143 s, the cpu under one. It folds suffixes
from the end (one-op reducers) and prefixes of any reducer in order now,
0.08 s (b6f3d04; reduce_test SuffixWindowsFoldFromTheEnd,
GenericPrefixWindowsFoldInOrder). row-reduction-fusion formed a kernel of
an associative scan's levels (jax.grad through lax.cumlogsumexp over
20000, survival_and_listwise_losses), whose elemental code doubled with
every level: the cpu compiled it for over five minutes (no result in
300 s); a row fusion now keeps every member's code emitted at most 15
times, instruction-fusion's limit, or is left to instruction-fusion: 13 s
to compile, 9 ms to run (6971d02; fusion_test
RowReductionFusion.LaddersOfMovesKeepTheirCodeBounded). And
lax.cumlogsumexp(reverse=True), a suffix window of log-add-exp, stayed a
reduce-window (only one-op reducers were rewritten in reverse): 8.4 s on
the cpu for 20000 risk sets against XLA:CPU's 9 ms, 24 s in the
evaluator. JAX's log-add-exp reducer is recognised
(hlo/reducer_patterns.h) and, associative in real arithmetic as a float
sum is, becomes a scan both ways: 0.09 s (57f2b5d; reducer_patterns_test,
reduce_window_to_scan_test ReverseCumLogSumExpBecomesAReverseScan,
reduce_test SuffixLogAddExpFoldsFromTheEnd; survival_and_listwise_losses'
risk_sets). And cumulative sums of bf16 and f16 over long lines stalled on
every target, the evaluator included: folded in order, each add rounded
to bf16, jnp.cumsum(jnp.ones(1000, bf16)) stopped at 256 and a top-p
CDF of sorted bf16 probabilities over 32000 words at 0.25, where XLA:CPU
(its ReduceWindowRewriter scans blocks of 16, then the blocks' totals)
gives 1000 and 1.0. Such sums and log-add-exps are scanned in f32 where
excess precision is allowed, each output rounded once, and the evaluator
folds them in f32 likewise (93ec2cb; reduce_window_to_scan_test
NarrowSumsAreScannedInF32, reduce_test
NarrowCumulativeSumsAccumulateInF32; narrow_long_cumsums).

Reshaped to leave out XLA:CPU's own choices, which XLA's semantics allow:
maxpool_grad_ties' jvp (a variadic reduce-window carrying the tangent)
has no ties, as XLA:CPU picks neither the first nor the last of three
tied maxima; big_cumulative_scans' 3000-long hand-written window takes a
max with -inf, not a sum with a non-identity init, which XLA:CPU's
rewrite of long windows applies twice (short windows apply it once, as
hloc does: cumulative_windows_by_hand).

Found and left: x / 2^-127 in f32 (a denormal power of two) is inf in
XLA:CPU (its kernels read the divisor as zero) and finite on the cpu,
whose algebraic simplifier and LLVM's DAG combiner both multiply by the
exact reciprocal; x / 2^127 is 0 in both (a multiply by the flushed
2^-127) where the quotient may be normal. Exact in IEEE arithmetic (the
AArch64 target), rare in programs, and LLVM's rewrite would need a fence
too; not changed. jax.debug.print and jax.debug.callback
(xla_ffi_python_cpu_callback) ran in the evaluator, which never evaluates
an unused side-effecting call, and were refused by name on x86 and
AArch64; since then every platform refuses them, naming each, and
--drop-debug-callbacks drops them (passes/host_callbacks.h). The host-driven loops have
FFTs and LAPACK, which the AArch64 target lacks (known_failures.py).
"""

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from jax_harness import floats, ints

_HI = lax.Precision.HIGHEST


def _quarters(r, shape, lo=-4, hi=5, dtype=np.float32):
    # Values on a grid of quarters: products and their sums stay exact in
    # f32, so any summation order gives the same bits.
    return (r.integers(lo, hi, size=shape) / 4).astype(dtype)


# --- Algorithms that update arrays in place inside loops -------------------

def _levenshtein(a, b):
    m = b.shape[0]

    def row(prev, ai):
        cur = jnp.zeros_like(prev).at[0].set(prev[0] + 1)

        def col(j, cur):
            cost = (ai != b[j - 1]).astype(jnp.int32)
            v = jnp.minimum(jnp.minimum(cur[j - 1] + 1, prev[j] + 1),
                            prev[j - 1] + cost)
            return cur.at[j].set(v)

        cur = lax.fori_loop(1, m + 1, col, cur)
        return cur, cur

    last, rows = lax.scan(row, jnp.arange(m + 1, dtype=jnp.int32), a)
    return last[m], rows


def _lcs(a, b):
    # The longest common subsequence with one row kept, updated left to
    # right: each cell reads the cell just written and the old diagonal.
    m = b.shape[0]

    def row(dp, ai):
        def col(j, st):
            dp, diag = st
            up = dp[j]
            v = jnp.where(ai == b[j - 1], diag + 1,
                          jnp.maximum(up, dp[j - 1]))
            return dp.at[j].set(v), up

        dp, _ = lax.fori_loop(1, m + 1, col, (dp, dp[0]))
        return dp, None

    dp, _ = lax.scan(row, jnp.zeros(m + 1, jnp.int32), a)
    return dp[m]


def string_dynamic_programs(a, b, ab, bb):
    # Edit distance and LCS as dynamic programs over a row updated in place
    # (the cell left of each one was written in the same loop), one pair
    # and vmapped over a batch (the updates become scatters).
    d, rows = _levenshtein(a, b)
    return (d, rows, _lcs(a, b), jax.vmap(_levenshtein)(ab, bb)[0],
            jax.vmap(_lcs)(ab, bb))


def _strings_inputs(r):
    return [ints(r, (13,), 0, 4), ints(r, (11,), 0, 4),
            ints(r, (5, 9), 0, 3), ints(r, (5, 7), 0, 3)]


def knapsack_dynamic_programs(wts, vals, cap_w):
    # 0/1 knapsack: capacities descending, so dp[w - wt] is still the last
    # item's row; the unbounded one ascending, so it is this item's. Both
    # in place; the decision table is the scan's stacked output; the
    # chosen items are recovered by walking the table backwards.
    cap = 40

    def item01(dp, wv):
        wt, v = wv

        def body(t, st):
            dp, take = st
            w = cap - t
            cand = jnp.where(w >= wt, dp[jnp.maximum(w - wt, 0)] + v, -1)
            better = cand > dp[w]
            return (dp.at[w].set(jnp.maximum(dp[w], cand)),
                    take.at[w].set(better))

        dp, take = lax.fori_loop(0, cap + 1, body,
                                 (dp, jnp.zeros(cap + 1, bool)))
        return dp, take

    dp01, takes = lax.scan(item01, jnp.zeros(cap + 1, jnp.int32),
                           (wts, vals))

    def unbounded(w, dp):
        def per_item(i, best):
            wt = wts[i]
            return jnp.where(wt <= w,
                             jnp.maximum(best, dp[jnp.maximum(w - wt, 0)]
                                         + vals[i]), best)

        return dp.at[w].set(lax.fori_loop(0, wts.shape[0], per_item, dp[w]))

    dpu = lax.fori_loop(1, cap + 1, unbounded, jnp.zeros(cap + 1, jnp.int32))

    def back(st, i):
        w = st
        t = takes[i, w]
        return jnp.where(t, w - wts[i], w), t

    w_left, chosen = lax.scan(back, jnp.minimum(cap_w, cap),
                              jnp.arange(wts.shape[0] - 1, -1, -1))
    return dp01, dpu, takes, chosen[::-1], w_left


def union_find_components(edges, n_nodes):
    # Union-find with path halving (a while loop rewriting the parent
    # array as it walks) and union by the smaller root, over a fori_loop of
    # edges; then every node's root found again (a vmapped while loop with
    # per-node trip counts over the final array).
    n = 48

    def find(parent, x):
        def cond(st):
            parent, x = st
            return parent[x] != x

        def body(st):
            parent, x = st
            gp = parent[parent[x]]
            return parent.at[x].set(gp), gp

        return lax.while_loop(cond, body, (parent, x))

    def union(i, st):
        parent, merges = st
        a, b = edges[i, 0], edges[i, 1]
        parent, ra = find(parent, a)
        parent, rb = find(parent, b)
        lo, hi = jnp.minimum(ra, rb), jnp.maximum(ra, rb)
        parent = parent.at[hi].set(lo)
        return parent, merges + (ra != rb)

    parent, merges = lax.fori_loop(
        0, edges.shape[0], union, (jnp.arange(n, dtype=jnp.int32), 0))

    def root(x):
        return lax.while_loop(lambda y: parent[y] != y,
                              lambda y: parent[y], x)

    roots = jax.vmap(root)(jnp.arange(n, dtype=jnp.int32))
    valid = jnp.arange(n) < n_nodes
    sizes = jax.ops.segment_sum(valid.astype(jnp.int32), roots,
                                num_segments=n)
    return roots, merges, sizes, jnp.sum((roots == jnp.arange(n)) & valid)


def fenwick_tree_queries(vals, upd_idx, upd_val, q_lo, q_hi):
    # A binary indexed tree built by point updates (inner while loops
    # climbing i += i & -i) and queried by prefix sums (i -= i & -i), in
    # s64 and in f32 on a grid of quarters, against cumsum.
    n = vals.shape[0]

    def add(tree, i, v):
        def body(st):
            tree, j = st
            return tree.at[j].add(v), j + (j & -j)

        return lax.while_loop(lambda st: st[1] <= n, body, (tree, i + 1))[0]

    def prefix(tree, i):
        def body(st):
            s, j = st
            return s + tree[j], j - (j & -j)

        return lax.while_loop(lambda st: st[1] > 0, body,
                              (jnp.zeros((), tree.dtype), i))[0]

    def build(v):
        tree = jnp.zeros(n + 1, v.dtype)
        return lax.fori_loop(0, n, lambda i, t: add(t, i, v[i]), tree)

    outs = []
    for v in (vals.astype(jnp.int64), vals.astype(jnp.float32) / 4):
        tree = build(v)
        tree = lax.fori_loop(
            0, upd_idx.shape[0],
            lambda i, t: add(t, upd_idx[i], upd_val[i].astype(v.dtype)), tree)
        sums = jax.vmap(lambda lo, hi: prefix(tree, hi) - prefix(tree, lo))(
            q_lo, q_hi)
        dense = v.at[upd_idx].add(upd_val.astype(v.dtype))
        c = jnp.concatenate([jnp.zeros(1, v.dtype), jnp.cumsum(dense)])
        outs += [tree, sums, c[q_hi] - c[q_lo]]
    return outs


def _fenwick_inputs(r):
    n = 37
    lo = ints(r, (20,), 0, n)
    hi = np.minimum(lo + ints(r, (20,), 0, n), n).astype(np.int32)
    return [ints(r, (n,), -20, 20), ints(r, (9,), 0, n), ints(r, (9,), -5, 6),
            lo, hi]


def heapsort_by_hand(x, k):
    # Heapsort as written from a textbook: sift-down in a while loop whose
    # swaps read both elements and then write both (two chained updates of
    # the carried array), a heap built by a fori_loop down from n/2 and
    # the sorted tail grown in place; f32 with ties and s32, vmapped rows.
    def sift(h, start, end):
        def cond(st):
            h, i, done = st
            return (~done) & (2 * i + 1 < end)

        def body(st):
            h, i, _ = st
            c = 2 * i + 1
            c = jnp.where((c + 1 < end) & (h[c + 1] > h[c]), c + 1, c)
            swap = h[c] > h[i]
            a, b = h[i], h[c]
            h = jnp.where(swap, h.at[i].set(b).at[c].set(a), h)
            return h, c, ~swap

        return lax.while_loop(cond, body, (h, start, False))[0]

    def hsort(h):
        n = h.shape[0]
        h = lax.fori_loop(0, n // 2, lambda t, h: sift(h, n // 2 - 1 - t, n),
                          h)

        def pop(t, h):
            end = n - 1 - t
            a, b = h[0], h[end]
            h = h.at[0].set(b).at[end].set(a)
            return sift(h, 0, end)

        return lax.fori_loop(0, n - 1, pop, h)

    return hsort(x), jax.vmap(hsort)(k), jnp.sort(x)


def insertion_sort_vmapped(x, keys):
    # Insertion sort: an inner while loop shifting elements right one at a
    # time (x.at[j + 1].set(x[j])) until the key's place, its trip count
    # per row under vmap; and a stable argsort the same way, carrying the
    # permutation beside the keys.
    def isort(row):
        n = row.shape[0]

        def outer(i, row):
            key = row[i]

            def cond(st):
                row, j = st
                return (j >= 0) & (row[jnp.maximum(j, 0)] > key)

            def body(st):
                row, j = st
                return row.at[j + 1].set(row[j]), j - 1

            row, j = lax.while_loop(cond, body, (row, i - 1))
            return row.at[j + 1].set(key)

        return lax.fori_loop(1, n, outer, row)

    def iargsort(ks):
        n = ks.shape[0]

        def outer(i, st):
            ks, perm = st
            key, p = ks[i], perm[i]

            def cond(s):
                ks, perm, j = s
                return (j >= 0) & (ks[jnp.maximum(j, 0)] > key)

            def body(s):
                ks, perm, j = s
                return ks.at[j + 1].set(ks[j]), perm.at[j + 1].set(perm[j]), j - 1

            ks, perm, j = lax.while_loop(cond, body, (ks, perm, i - 1))
            return ks.at[j + 1].set(key), perm.at[j + 1].set(p)

        return lax.fori_loop(1, n, outer, (ks, jnp.arange(n, dtype=jnp.int32)))

    sk, perm = jax.vmap(iargsort)(keys)
    return (jax.vmap(isort)(x), sk, perm,
            jnp.argsort(keys, axis=1, stable=True).astype(jnp.int32))


def gaussian_elimination_pivoting(a, b):
    # LU with partial pivoting by hand, f64: the pivot row found by argmax
    # over the rows not yet eliminated, rows k and p swapped by two
    # updates of the carried matrix (both read first), the rows below
    # eliminated with a masked rank-1 update; the permutation carried too;
    # then forward and back substitution writing x in place.
    n = a.shape[0]
    rows = jnp.arange(n)

    def step(k, st):
        a, b, perm = st
        col = jnp.where(rows >= k, jnp.abs(a[:, k]), -1.0)
        p = jnp.argmax(col)
        ak, ap = a[k], a[p]
        a = a.at[k].set(ap).at[p].set(ak)
        bk, bp = b[k], b[p]
        b = b.at[k].set(bp).at[p].set(bk)
        pk, pp = perm[k], perm[p]
        perm = perm.at[k].set(pp).at[p].set(pk)
        f = jnp.where(rows > k, a[:, k] / a[k, k], 0.0)
        a = a - f[:, None] * a[k][None, :]
        b = b - f * b[k]
        a = a.at[:, k].set(jnp.where(rows > k, f, a[:, k]))
        return a, b, perm

    lu, y, perm = lax.fori_loop(0, n, step, (a, b, jnp.arange(n)))
    upper = jnp.triu(lu)

    def back(t, x):
        i = n - 1 - t
        s = jnp.dot(upper[i], x, precision=_HI) - upper[i, i] * x[i]
        return x.at[i].set((y[i] - s) / upper[i, i])

    x = lax.fori_loop(0, n, back, jnp.zeros_like(b))
    return x, perm, jnp.abs(jnp.diag(upper)), a @ x - b


def _gauss_inputs(r):
    a = r.standard_normal((9, 9)) + 3 * np.eye(9)[::-1]
    return [a, r.standard_normal(9)]


def game_of_life_history(board):
    # Conway's game of life with two boards swapped every step (each made
    # from the other), every board kept in a [T, H, W] history by an update
    # in place, and a period check reading the history two steps back.
    steps = 12

    def life(b):
        p = jnp.pad(b, 1, mode="wrap").astype(jnp.int32)
        n = sum(p[1 + di:p.shape[0] - 1 + di, 1 + dj:p.shape[1] - 1 + dj]
                for di in (-1, 0, 1) for dj in (-1, 0, 1)
                if (di, dj) != (0, 0))
        return ((n == 3) | ((b == 1) & (n == 2))).astype(jnp.uint8)

    def body(t, st):
        cur, other, hist, period2 = st
        other = life(cur)
        hist = lax.dynamic_update_slice(hist, other[None], (t + 1, 0, 0))
        back2 = lax.dynamic_index_in_dim(hist, jnp.maximum(t - 1, 0), 0,
                                         keepdims=False)
        period2 = period2 + jnp.all(back2 == other).astype(jnp.int32)
        return other, cur, hist, period2

    hist = jnp.zeros((steps + 1,) + board.shape, jnp.uint8).at[0].set(board)
    cur, prev, hist, period2 = lax.fori_loop(
        0, steps, body, (board, jnp.zeros_like(board), hist, 0))
    return cur, prev, hist, period2, hist.sum(axis=(1, 2), dtype=jnp.int32)


def _life_inputs(r):
    b = (r.random((14, 17)) < 0.35).astype(np.uint8)
    b[1:4, 1:4] = [[0, 1, 0], [0, 0, 1], [1, 1, 1]]  # a glider
    return [b]


def sieve_and_collatz(limit, starts):
    # A sieve of Eratosthenes: a while loop over i, an inner one striking
    # i*i, i*i+i, ... in place; the primes compacted by nonzero(size=);
    # Collatz trajectories in u64 under vmap (per-start trip counts), with
    # each trajectory's peak.
    n = 400
    is_p = (jnp.arange(n) >= 2) & (jnp.arange(n) < limit)

    def outer(st):
        is_p, i = st

        def strike(s):
            is_p, j = s
            return is_p.at[j].set(False), j + i

        is_p, _ = lax.while_loop(lambda s: s[1] < n, strike,
                                 (is_p, jnp.where(is_p[i], i * i, n)))
        return is_p, i + 1

    is_p, _ = lax.while_loop(lambda st: st[1] * st[1] < n, outer, (is_p, 2))
    primes = jnp.nonzero(is_p, size=90, fill_value=-1)[0]

    def collatz(x):
        def body(st):
            x, steps, peak = st
            x = jnp.where(x % 2 == 0, x // 2, 3 * x + 1)
            return x, steps + 1, jnp.maximum(peak, x)

        return lax.while_loop(lambda st: st[0] != 1, body,
                              (x, 0, x))[1:]

    steps, peaks = jax.vmap(collatz)(starts.astype(jnp.uint64))
    return is_p, primes, is_p.sum(), steps, peaks


def floyd_warshall_paths(w, src, dst):
    # All-pairs shortest paths with a next-hop matrix (fori over k, whole
    # arrays), then paths rebuilt by a while loop following next hops and
    # writing each node into a path buffer in place, vmapped over queries.
    n = w.shape[0]
    ids = jnp.arange(n, dtype=jnp.int32)
    nxt = jnp.where(jnp.isfinite(w), ids[None, :], -1)
    nxt = jnp.where(jnp.eye(n, dtype=bool), ids[:, None], nxt)
    d = jnp.where(jnp.eye(n, dtype=bool), 0.0, w)

    def relax(k, st):
        d, nxt = st
        via = d[:, k][:, None] + d[k, :][None, :]
        better = via < d
        return (jnp.where(better, via, d),
                jnp.where(better, nxt[:, k][:, None], nxt))

    d, nxt = lax.fori_loop(0, n, relax, (d, nxt))

    def path(s, t):
        buf = jnp.full(n + 1, -1, jnp.int32).at[0].set(s)

        def cond(st):
            u, buf, i = st
            return (u != t) & (u >= 0) & (i < n)

        def body(st):
            u, buf, i = st
            u = nxt[u, t]
            return u, buf.at[i].set(u), i + 1

        return lax.while_loop(cond, body, (s, buf, 1))[1:]

    paths, lengths = jax.vmap(path)(src, dst)
    return d, nxt, paths, lengths


def _fw_inputs(r):
    n = 11
    w = r.integers(1, 9, (n, n)).astype(np.float32)
    w[r.random((n, n)) < 0.6] = np.inf
    return [w, ints(r, (7,), 0, n), ints(r, (7,), 0, n)]


def loop_state_aliasing(x, y, idx):
    # Loop carries the in-place loop state must keep apart: the same input
    # carried twice (one copy updated), two buffers swapped every trip with
    # one updated, an update whose new row is read from the same array
    # (shifting rows up), a conditional that updates its operand in one
    # branch only, a nested loop updating the outer loop's array, and the
    # initial array returned beside the final one.
    def body(i, st):
        a, a_same, p, q, s, acc = st
        a = a.at[idx[i % idx.shape[0]]].add(1.0)
        p, q = q.at[i % q.shape[0]].set(p[(i + 1) % p.shape[0]]), p
        s = lax.dynamic_update_slice(s, lax.dynamic_slice_in_dim(s, 1, 5, 0),
                                     (0, 0))
        acc = lax.cond(i % 3 == 0,
                       lambda acc: acc.at[i % acc.shape[0]].multiply(-1.0),
                       lambda acc: acc, acc)

        def inner(j, a_same):
            return a_same.at[(i + j) % a_same.shape[0]].add(
                a_same[(i + 2 * j) % a_same.shape[0]] * 0.5)

        a_same = lax.fori_loop(0, 3, inner, a_same)
        return a, a_same, p, q, s, acc

    final = lax.fori_loop(0, 7, body, (x, x, x, y, y[:6], y[:5]))
    return final + (x, y)


# --- Matrix-vector products ------------------------------------------------

def gemv_shapes_dtypes(h, w, v, wb, wh, wi, hi, bw, bh, t3, bias):
    # Dots with a vector side in every spelling: a row times a matrix (both
    # matrix layouts, through a transpose), a matrix times a column, a
    # rank-1 vector with no M dimension, batched ones with the batch in
    # front and in the middle, f64, bf16/f16 matrices accumulated in f32,
    # integers, K = 1, N = 1 and 17, and fused epilogues (bias, tanh, relu,
    # a bf16 convert).
    f = jnp.float32
    outs = [
        jnp.tanh(jnp.dot(h, w, precision=_HI) + bias),           # [1,K]x[K,N]
        jnp.dot(w.T, h[0], precision=_HI),                       # along K
        jnp.dot(h[0], w, precision=_HI),                         # rank-1
        jnp.dot(v, w.T, precision=_HI),                          # v @ W^T
        jnp.maximum(jnp.einsum("k,nk->n", h[0], w.T, precision=_HI), 0.0),
        jnp.dot(h.astype(jnp.float64), w.astype(jnp.float64)),
        jnp.dot(w.T.astype(jnp.float64), v[:w.shape[0]].astype(jnp.float64)),
        lax.dot_general(h.astype(jnp.bfloat16), wb,
                        (((1,), (0,)), ((), ())),
                        preferred_element_type=f),
        lax.dot_general(wh, h[0].astype(jnp.float16), (((0,), (0,)), ((), ())),
                        preferred_element_type=f),
        jnp.dot(hi, wi),                                          # integers
        jnp.dot(h[:, :1], w[:1, :], precision=_HI),              # K = 1
        jnp.dot(w[:, :1].T, w, precision=_HI),                   # N rows, 1
        jnp.dot(h, w[:, :17], precision=_HI).astype(jnp.bfloat16),
        jnp.einsum("bk,bkn->bn", bh, bw, precision=_HI),         # batch front
        jnp.einsum("bkn,bn->bk", bw, bh[:, :bw.shape[2]], precision=_HI),
        jnp.einsum("kbn,bk->bn", t3, bh, precision=_HI),         # batch middle
        jnp.einsum("bk,kbn->nb", bh, t3, precision=_HI),
    ]
    return outs


def _gemv_inputs(r):
    k, n = 24, 40
    return [_quarters(r, (1, k)), _quarters(r, (k, n)), _quarters(r, (k + 16,)),
            _quarters(r, (k, n)).astype(jnp.bfloat16),
            _quarters(r, (k, 33)).astype(np.float16),
            ints(r, (k, n), -50, 50), ints(r, (1, k), -50, 50),
            _quarters(r, (3, k, 19)), _quarters(r, (3, k)),
            _quarters(r, (k, 3, 21)), _quarters(r, (n,))]


def gemv_large_threaded(x, w, a, v, wb, bw, bx):
    # Matrix-vector products past the size where the CPU splits them over
    # threads and streams the matrix: [1,2048]x[2048,1100] f32 (9 MB),
    # a [1200,900] matrix times a column, a bf16 [2048,1024] matrix, a
    # batched [3,512,800] one; quarter-grid values, so the sums are exact
    # in any order.
    return (jnp.dot(x, w, precision=_HI),
            jnp.dot(a, v, precision=_HI) * 2.0 + 1.0,
            lax.dot_general(x[:, :wb.shape[0]].astype(jnp.bfloat16), wb,
                            (((1,), (0,)), ((), ())),
                            preferred_element_type=jnp.float32),
            jnp.einsum("bk,bkn->bn", bx, bw, precision=_HI),
            jnp.einsum("bkn,k->bn", bw, bx[0], precision=_HI))


def _gemv_large_inputs(r):
    return [_quarters(r, (1, 2048)), _quarters(r, (2048, 1100)),
            _quarters(r, (1200, 900)), _quarters(r, (900,)),
            _quarters(r, (2048, 1024)).astype(jnp.bfloat16),
            _quarters(r, (3, 512, 800)), _quarters(r, (3, 512))]


def rnn_step_scan_grad(w, u, b, xs, h0):
    # An Elman RNN over a scan, h = tanh(h @ W + x_t @ U + b), with a batch
    # of one, as decode loops run it, and its gradient: the backward pass
    # multiplies by W^T (a vector times a transposed matrix) and builds the
    # weight gradients from outer products accumulated over the steps.
    def loss(w, u, b):
        def step(h, x):
            h = jnp.tanh(jnp.dot(h, w, precision=_HI)
                         + jnp.dot(x, u, precision=_HI) + b)
            return h, h

        h, hs = lax.scan(step, h0, xs)
        return jnp.sum(hs[:, 0, ::3] ** 2) + jnp.sum(h), hs

    (val, hs), grads = jax.value_and_grad(loss, argnums=(0, 1, 2),
                                          has_aux=True)(w, u, b)
    return val, hs[-1], grads


def _rnn_inputs(r):
    hdim, xdim, steps = 96, 20, 40
    return [floats(r, (hdim, hdim)) * 0.1, floats(r, (xdim, hdim)) * 0.2,
            floats(r, (hdim,)) * 0.1, floats(r, (steps, 1, xdim)),
            floats(r, (1, hdim)) * 0.5]


def lanczos_power_iteration(a0, v0):
    # Krylov loops in f64 on a symmetric matrix: power iteration in a while
    # loop (A v along K, v A along N, a Rayleigh quotient) to a tolerance,
    # and Lanczos with full reorthogonalisation, writing each basis vector
    # into a column of the carried basis (a strided update in place) and
    # multiplying by the basis it is updating (Q^T w and Q c).
    a = (a0 + a0.T) / 2 + jnp.diag(jnp.arange(a0.shape[0], dtype=a0.dtype))
    n = a.shape[0]

    def p_cond(st):
        v, lam, it, delta = st
        return (delta > 1e-10) & (it < 500)

    def p_body(st):
        v, lam, it, _ = st
        w = a @ v
        v2 = w / jnp.linalg.norm(w)
        lam2 = (v2 @ a) @ v2
        return v2, lam2, it + 1, jnp.abs(lam2 - lam)

    v, lam, iters, _ = lax.while_loop(
        p_cond, p_body, (v0 / jnp.linalg.norm(v0), 0.0, 0, 1.0))

    m = 12

    def l_body(j, st):
        q, alpha, beta = st
        qj = q[:, j]
        w = a @ qj
        alpha = alpha.at[j].set(qj @ w)
        w = w - q @ (q.T @ w)
        w = w - q @ (q.T @ w)
        bj = jnp.linalg.norm(w)
        beta = beta.at[j].set(bj)
        q = lax.dynamic_update_slice(q, (w / bj)[:, None], (0, j + 1))
        return q, alpha, beta

    q0 = jnp.zeros((n, m + 1)).at[:, 0].set(v0 / jnp.linalg.norm(v0))
    q, alpha, beta = lax.fori_loop(0, m, l_body,
                                   (q0, jnp.zeros(m), jnp.zeros(m)))
    return (jnp.abs(v), lam, alpha, beta, jnp.abs(q.T @ q),
            jnp.abs(q[:, :m].T @ a @ q[:, :m]))


# --- jax.random's key machinery -------------------------------------------

def prng_impls_key_data(seed, raw):
    # Typed keys of each implementation (threefry2x32, rbg, unsafe_rbg),
    # key_data and wrap_key_data round trips, fold_in, split, clone, bits of
    # every width, and the samplers the zoo had not called: loggamma and
    # lognormal; permutation of rows and independent permutations; choice
    # without replacement with weights.
    outs = []
    for impl in ("threefry2x32", "rbg", "unsafe_rbg"):
        k = jax.random.key(seed, impl=impl)
        k = jax.random.fold_in(k, 7)
        k1, k2, k3 = jax.random.split(k, 3)
        outs += [jax.random.key_data(k1),
                 jax.random.bits(k1, (5,), jnp.uint8),
                 jax.random.bits(k2, (4,), jnp.uint16),
                 jax.random.bits(k3, (3,), jnp.uint64),
                 jax.random.uniform(jax.random.clone(k2), (4,), jnp.float16),
                 jax.random.normal(k3, (3, 2), jnp.bfloat16)]
    k = jax.random.wrap_key_data(raw, impl="threefry2x32")
    ka, kb, kc, kd, ke = jax.random.split(k, 5)
    x = jnp.arange(24.0).reshape(4, 6)
    outs += [jax.random.key_data(ka),
             jax.random.loggamma(ka, jnp.array([0.1, 0.5, 2.0, 9.0])),
             jax.random.lognormal(kb, 0.5, (5,)),
             jax.random.permutation(kc, x, axis=0),
             jax.random.permutation(kc, x, axis=1, independent=True),
             jax.random.choice(kd, 10, (4,), replace=False,
                               p=jnp.linspace(0.1, 1.0, 10)),
             jax.random.choice(ke, x, (3,), replace=False, axis=1)]
    return outs


# --- Batch two: more shapes and corners -----------------------------------

def gemv_odd_shapes_sweep(a, b, c, d):
    # Vector products of odd K and N (1, 2, 3, 7, 9, 15, 17, 31, 33, 65,
    # 129), so that the vector loops' remainders, the four-row blocks and
    # the lane reductions each see every leftover, in f32, f64 and with
    # bf16/f16 outputs; and batched ones of odd batch counts.
    outs = []
    for k, n in ((1, 1), (2, 3), (3, 7), (7, 9), (9, 17), (15, 31),
                 (17, 2), (31, 33), (33, 65), (65, 15), (129, 3), (3, 129)):
        m = a[:k, :n]
        outs += [jnp.dot(b[:1, :k], m, precision=_HI),
                 jnp.dot(m, b[0, :n], precision=_HI),
                 jnp.dot(m.T, b[0, :k], precision=_HI),
                 jnp.dot(c[:1, :k], m.astype(jnp.float64))]
    outs += [jnp.dot(b[:1, :40].astype(jnp.bfloat16),
                     a[:40, :50].astype(jnp.bfloat16)),
             jnp.dot(a[:50, :40].astype(jnp.float16),
                     b[0, :40].astype(jnp.float16)),
             jnp.einsum("bk,bkn->bn", d[:, 0, :13], d[:, :13, :29],
                        precision=_HI),
             jnp.einsum("bnk,bk->bn", d[:, :29, :13], d[:, 0, :13],
                        precision=_HI)]
    return outs


def _sweep_inputs(r):
    return [_quarters(r, (130, 130)), _quarters(r, (1, 130)),
            _quarters(r, (1, 130)).astype(np.float64),
            _quarters(r, (5, 30, 30))]


def loop_state_permutations(a, b, c, flag):
    # Loop states whose leaves trade places: a pure swap, a rotation of
    # three, a leaf duplicated into two, two updates of the same old leaf,
    # a state that returns an input leaf unchanged beside an update of it;
    # conditionals and a switch whose branches return their operands in
    # other orders; and a loop whose trip count depends on the data.
    def body(st):
        i, p, q, r1, r2, s, t, u = st
        p, q = q, p                                    # swap
        r1, r2, s = r2, s, r1                          # rotation
        t2 = t.at[0].set(t[1] + 1.0)                   # two updates of
        u2 = t.at[1].set(u[0] * 2.0)                   # the same old t
        return i + 1, p, q, r1, r2, s, t2, u2

    def cond(st):
        return st[0] < 5 + (flag > 0)

    out = lax.while_loop(cond, body, (0, a, b, a + 1.0, b + 2.0, c, a, a))
    sw = lax.switch(jnp.clip(flag, 0, 2),
                    [lambda x, y, z: (y, z, x),
                     lambda x, y, z: (z, x, y),
                     lambda x, y, z: (x.at[0].set(9.0), x, y)], a, b, c)
    cd = lax.cond(flag > 0, lambda x, y: (y, x), lambda x, y: (x, x), a, b)

    def dup(i, st):
        x, y = st
        return y.at[i % 3].add(1.0), y

    dd = lax.fori_loop(0, 4, dup, (a, a))
    return out, sw, cd, dd, a


def cumulative_windows_by_hand(x, xi, xb):
    # Prefix reduce-windows as people write them with lax.reduce_window and
    # as jnp lowers them: a non-identity init, a reducer that is not
    # associative (a*0.5 + b, a fold with a decay), reversed windows, a
    # window one short of the axis, windows along the middle axis of a 3-D
    # array, bf16 and u8 and bool cumulative ops, and
    # associative_scan with a non-commutative operator (2x2 matrix
    # products) over an odd length.
    n = x.shape[1]
    pre = lambda d: [(0, 0)] * d + [(n - 1, 0)] + [(0, 0)] * (x.ndim - 1 - d)
    dims = lambda d: (1,) * d + (n,) + (1,) * (x.ndim - 1 - d)
    ones = (1,) * x.ndim
    outs = [
        lax.reduce_window(x, np.float32(1.5), lax.add, dims(1), ones, pre(1)),
        lax.reduce_window(x, np.float32(0), lambda a, b: a * 0.5 + b, dims(1),
                          ones, pre(1)),
        lax.reduce_window(x, np.float32(2), lambda a, b: a - b, dims(1), ones, pre(1)),
        lax.reduce_window(x, np.float32(-np.inf), lax.max, dims(1), ones,
                          [(0, 0), (0, n - 1), (0, 0)]),
        lax.reduce_window(x, np.float32(0), lambda a, b: a * 0.5 + b, dims(1),
                          ones, [(0, 0), (0, n - 1), (0, 0)]),
        lax.reduce_window(x, np.float32(0), lax.add, (1, n - 1, 1), ones,
                          [(0, 0), (n - 2, 0), (0, 0)]),
        lax.cumsum(x, axis=1, reverse=True), lax.cumprod(x, axis=2),
        lax.cumlogsumexp(x, axis=1, reverse=True),
        lax.cummax(xi, axis=0, reverse=True), lax.cummin(xi, axis=1),
        jnp.cumsum(xb, axis=1), jnp.cumsum(xb.astype(jnp.float32), axis=1),
        lax.cumsum(xi.astype(jnp.uint8), axis=1),
        jnp.cumsum(xi > 0, axis=2), jnp.cumsum(x.transpose(2, 0, 1), axis=2),
    ]

    def matmul2(p, q):
        return jnp.einsum("...ij,...jk->...ik", p, q, precision=_HI)

    mats = jnp.stack([jnp.cos(x[0, :, 0]), -jnp.sin(x[0, :, 0]) * 0.5,
                      jnp.sin(x[0, :, 0]), jnp.cos(x[0, :, 1])],
                     -1).reshape(n, 2, 2)
    outs += [lax.associative_scan(matmul2, mats),
             lax.associative_scan(matmul2, mats, reverse=True)]
    return outs


def _cum_inputs(r):
    x = floats(r, (3, 13, 4)) * 0.5
    return [x, ints(r, (3, 13, 4), -30, 30),
            (x * 4).astype(jnp.bfloat16)]


def topk_ties_nan(x, xi, xb):
    # lax.top_k on rows with ties (the lower index first), NaN, +-0 and
    # +-inf in f32; s32, u8, s64 and bf16 rows with ties; k = 1 and k = n;
    # over a 3-D batch; and jnp.argsort / argmax alongside.
    return (lax.top_k(x, 3), lax.top_k(x, x.shape[-1]), lax.top_k(x, 1),
            lax.top_k(xi, 4), lax.top_k(xi.astype(jnp.uint8), 4),
            lax.top_k(xi.astype(jnp.int64) * 1000000007, 5),
            lax.top_k(xb, 4), lax.top_k(xb.reshape(2, 3, -1), 2),
            jnp.argmax(x, axis=-1), jnp.argsort(-xi, axis=-1, stable=True))


def _topk_inputs(r):
    x = np.round(floats(r, (6, 10)) * 2) / 2
    x[0, 3] = np.nan
    x[1, :4] = [0.0, -0.0, np.inf, -np.inf]
    x[2, :] = 1.0
    x[3, 2] = x[3, 7] = np.nan
    xi = ints(r, (6, 10), -3, 4)
    return [x.astype(np.float32), xi,
            (np.round(floats(r, (6, 10)) * 2) / 2).astype(jnp.bfloat16)]


def conv_odd_combos(x1, w1, x3, w3, xi, wi, wt):
    # Convolutions with several options at once: 1-D with lhs dilation,
    # window dilation, negative padding and two feature groups in NWC/WIO;
    # 1-D with batch groups (a filter gradient's form); 3-D channels-first
    # with strides, window dilation and four feature groups; int8 inputs
    # with an s32 result; and a transposed 3-D convolution's gradient.
    o1 = lax.conv_general_dilated(
        x1, w1, (1,), [(2, -1)], lhs_dilation=(2,), rhs_dilation=(2,),
        dimension_numbers=("NWC", "WIO", "NWC"), feature_group_count=2,
        precision=_HI)
    o2 = lax.conv_general_dilated(
        x1.transpose(2, 0, 1), x1.transpose(2, 0, 1)[:, :, :5], (1,),
        [(1, 1)], dimension_numbers=("CNW", "IOW", "NCW"),
        batch_group_count=2, precision=_HI)
    o3 = lax.conv_general_dilated(
        x3, w3, (2, 1, 2), [(1, 1), (0, 2), (2, 0)], rhs_dilation=(1, 2, 1),
        dimension_numbers=("NCDHW", "OIDHW", "NCDHW"), feature_group_count=4,
        precision=_HI)
    o4 = lax.conv_general_dilated(
        xi, wi, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"),
        preferred_element_type=jnp.int32)

    def f(w):
        y = lax.conv_transpose(x3[:, :4].transpose(0, 2, 3, 4, 1), w,
                               (2, 1, 2), "SAME",
                               dimension_numbers=("NDHWC", "DHWIO", "NDHWC"),
                               precision=_HI)
        return jnp.sum(jnp.tanh(y))

    return o1, o2, o3, o4, jax.grad(f)(wt)


def _conv_inputs(r):
    return [floats(r, (2, 11, 4)), floats(r, (3, 2, 6)),
            floats(r, (2, 8, 5, 6, 7)), floats(r, (8, 2, 2, 3, 2)),
            ints(r, (2, 6, 5, 3), -128, 128, np.int8),
            ints(r, (3, 3, 3, 4), -128, 128, np.int8),
            floats(r, (2, 3, 2, 4, 3))]


def maxpool_grad_ties(x):
    # Max pooling with overlapping windows (3x3, stride 1 and 2, SAME and
    # padded) over inputs with many ties, and its gradient: each window's
    # gradient goes to the first of its maxima (select-and-scatter's
    # select), in f32 and f16; the jvp of the pooling (a variadic
    # reduce-window carrying the tangent beside the maximum).
    def pool(v, stride, pad):
        return lax.reduce_window(v, -jnp.inf, lax.max, (1, 3, 3, 1),
                                 (1, stride, stride, 1), pad)

    def loss(v):
        a = pool(v, 1, "SAME")
        b = pool(v, 2, [(0, 0), (1, 2), (2, 1), (0, 0)])
        return jnp.sum(a * jnp.arange(a.size).reshape(a.shape) % 7) + jnp.sum(b)

    g = jax.grad(loss)(x)
    g16 = jax.grad(lambda v: jnp.sum(pool(v, 2, "VALID").astype(jnp.float32)
                                     * 3.0))(x.astype(jnp.float16))
    # The jvp's variadic reduce-window folds its ties in an order XLA
    # leaves open (XLA:CPU picks neither the first nor the last of three
    # tied maxima), so its input has none.
    ramp = jnp.arange(x.size, dtype=x.dtype).reshape(x.shape)
    _, tangent = jax.jvp(lambda v: pool(v, 2, "SAME"), (x + ramp * 1e-3,),
                         (ramp,))
    return g, g16, tangent


def integer_pow_wrap(x, e, u, s8):
    # Integer powers spelled as people write them: jnp.power of s32 by an
    # s32 array and by a constant, u8 and s8 that wrap, s64 squares near 2^31, lax.integer_pow of every small exponent,
    # and integer floor division and remainder by negatives and INT_MIN.
    big = x.astype(jnp.int64) * 46341
    return (jnp.power(x, jnp.abs(e)), jnp.power(x, 7),
            jnp.power(u, jnp.abs(e).astype(jnp.uint8)),
            jnp.power(s8, jnp.abs(e).astype(jnp.int8)),
            big * big, lax.integer_pow(x, 3), lax.integer_pow(s8, 5),
            lax.integer_pow(u, 7), jnp.floor_divide(x, e),
            jnp.remainder(x, e), lax.rem(x, e), lax.div(x, e),
            jnp.int32(-2**31) // jnp.where(e == 0, 1, e),
            lax.rem(jnp.int32(-2**31), jnp.where(e == 0, 1, e)))


def _ipow_inputs(r):
    e = ints(r, (24,), -4, 9)
    e[e == 0] = -1
    e[:3] = [-1, -2, 1]
    x = ints(r, (24,), -20, 20)
    x[:6] = [0, 1, -1, 2, -2, 0]
    return [x, e, ints(r, (24,), 0, 256, np.uint8),
            ints(r, (24,), -128, 128, np.int8)]


def gemv_matrix_views(h, w, col, row, stack, hs):
    # Vector products whose matrix side is a view the dot reads in place
    # or through its prologue: broadcasts (stride 0 along K, along N and
    # along the batch), transposes, reversals, strided and offset slices,
    # converts of views, and the per-layer weights a scan over stacked
    # layers slices dynamically (a batch of one through eight layers).
    k, n = w.shape
    bk = jnp.broadcast_to(row[None, :n], (k, n))      # rows all alike
    bn = jnp.broadcast_to(col[:k, None], (k, n))      # columns all alike
    outs = [jnp.dot(h, bk, precision=_HI), jnp.dot(h, bn, precision=_HI),
            jnp.dot(bn.T, h[0, :k] * 0 + row[:k], precision=_HI),
            jnp.dot(h, jnp.flip(w, 0), precision=_HI),
            jnp.dot(h, jnp.flip(w, 1), precision=_HI),
            jnp.dot(jnp.flip(w, 0).T, h[0], precision=_HI),
            jnp.dot(h[:, ::2], w[::2], precision=_HI),
            jnp.dot(h[:, 3:], w[3:, 5:], precision=_HI),
            jnp.dot(w[:, ::3].T, h[0], precision=_HI),
            jnp.dot(h.astype(jnp.bfloat16), w.T[::-1].T.astype(jnp.bfloat16)),
            jnp.dot(h, w.reshape(n, k).T.reshape(k, n), precision=_HI),
            jnp.einsum("bk,bkn->bn", hs, jnp.broadcast_to(w, (3, k, n)),
                       precision=_HI),
            jnp.einsum("bk,kbn->bn", hs,
                       jnp.broadcast_to(w[:, None], (k, 3, n)), precision=_HI)]

    def layer(x, wl):
        return jnp.tanh(jnp.dot(x, wl[0], precision=_HI) + wl[1, 0]), x

    last, xs = lax.scan(layer, h[:, :stack.shape[2]], stack)
    outs += [last, xs]

    def layer_t(x, wl):
        return jnp.sin(jnp.dot(wl[0], x[0], precision=_HI))[None], None

    outs.append(lax.scan(layer_t, h[:, :stack.shape[2]], stack)[0])
    return outs


def _views_inputs(r):
    k, n, d = 28, 36, 20
    return [_quarters(r, (1, k)), _quarters(r, (k, n)), _quarters(r, (40,)),
            _quarters(r, (40,)), floats(r, (8, 2, d, d)) * 0.3,
            _quarters(r, (3, k))]


def mixed_integer_dots(xu8, ws8, xs8, wu8, xu16, wu32, xb):
    # Integer dots whose operands JAX widens with converts that the dot
    # then reads itself (dot-convert-folding): u8 x s8 and s8 x u8 into
    # s32 with values past 127 (zero- against sign-extension), u16 into
    # s32, u32 into u64, s8 x s8 into s16 and u8 x u8 into u8 (wrapping
    # sums), as vector products and as matrix products; and quantized
    # weights dequantized through bf16 and f16 converts.
    dg = lambda a, b, t: lax.dot_general(a, b, (((a.ndim - 1,), (0,)),
                                                ((), ())),
                                         preferred_element_type=t)
    i32 = jnp.int32
    return (dg(xu8[:1], ws8, i32), dg(xu8, ws8, i32),
            dg(xs8[:1], wu8, i32), dg(xs8, wu8, i32),
            dg(ws8.T, xu8[0], i32), dg(wu8.T, xs8[0], i32),
            dg(xu16, ws8, i32), dg(xu16[:1], wu8, jnp.uint32),
            dg(wu32.T, xu16[0].astype(jnp.uint32), jnp.uint64),
            dg(xs8, ws8, jnp.int16), dg(xs8[:1], ws8, jnp.int16),
            dg(xu8, wu8, jnp.uint8), dg(xu8[:1], wu8, jnp.uint8),
            jnp.dot(xb, ws8.astype(jnp.bfloat16),
                    preferred_element_type=jnp.float32),
            jnp.dot(xb[:1].astype(jnp.float16), wu8.astype(jnp.float16)),
            jnp.dot(xu8.astype(jnp.float32), ws8.astype(jnp.float32)),
            jnp.einsum("bk,kn->bn", xs8.astype(jnp.float32),
                       wu8.astype(jnp.float32)))


def _mixed_int_inputs(r):
    k, n = 33, 21
    return [ints(r, (4, k), 0, 256, np.uint8), ints(r, (k, n), -128, 128,
                                                     np.int8),
            ints(r, (4, k), -128, 128, np.int8),
            ints(r, (k, n), 0, 256, np.uint8),
            ints(r, (4, k), 0, 65536, np.uint16),
            ints(r, (k, n), 0, 2**32, np.uint32),
            _quarters(r, (4, k)).astype(jnp.bfloat16)]


def output_aliasing(x, y, n):
    # Results that share buffers: a parameter returned twice, reshaped and
    # transposed, one intermediate returned three ways, a constant twice,
    # a while loop that passes a parameter through beside an updated
    # copy of it (returned with the parameter), a loop whose state holds
    # one array twice, and a conditional returning a parameter on one
    # branch and a new array on the other.
    c = jnp.arange(6.0, dtype=jnp.float32)
    z = x * 2.0 + 1.0

    def body(st):
        i, keep, upd, twin_a, twin_b = st
        return (i + 1, keep, upd.at[i % upd.shape[0]].add(1.0),
                twin_b, twin_a.at[0, 0].set(i.astype(jnp.float32)))

    loop = lax.while_loop(lambda st: st[0] < n, body, (0, x, x, z, z))
    br = lax.cond(n > 2, lambda a, b: a, lambda a, b: a + b, x, y)
    br2 = lax.cond(n > 20, lambda a, b: a, lambda a, b: b, x, y)
    return (x, x, x.reshape(-1), x.T, z, z, z.T, c, c, loop, br, br2, y)


def split_step_snapshots(re0, im0, pot):
    # A split-step Fourier solver of the nonlinear Schroedinger equation:
    # a fori_loop whose body calls the FFT library (so the CPU drives the
    # loop from the host, step by step) and writes each step's density
    # into a snapshot array in place, keeps the previous field beside the
    # current one (two state leaves swapped every step), and runs a
    # conditional with an FFT of its own every third step.
    n = re0.shape[0]
    k = jnp.fft.fftfreq(n, d=1.0 / n).astype(jnp.float32) * (2 * np.pi / n)
    half = jnp.exp(-0.5j * 0.05 * k ** 2).astype(jnp.complex64)
    steps = 24

    def body(i, st):
        psi, prev, snaps, spec = st
        new = jnp.fft.ifft(jnp.fft.fft(psi) * half)
        new = new * jnp.exp(-1j * 0.05 * (jnp.abs(new) ** 2 + pot))
        new = jnp.fft.ifft(jnp.fft.fft(new) * half).astype(jnp.complex64)
        snaps = lax.dynamic_update_slice(snaps, (jnp.abs(new) ** 2)[None],
                                         (i, 0))
        spec = lax.cond(i % 3 == 0,
                        lambda sp: sp.at[i // 3].set(
                            jnp.abs(jnp.fft.rfft(jnp.abs(new)))[:spec.shape[1]]),
                        lambda sp: sp, spec)
        return new, psi, snaps, spec

    psi0 = (re0 + 1j * im0).astype(jnp.complex64)
    psi, prev, snaps, spec = lax.fori_loop(
        0, steps, body, (psi0, psi0, jnp.zeros((steps, n), jnp.float32),
                         jnp.zeros((steps // 3, 9), jnp.float32)))
    return jnp.abs(psi) ** 2, jnp.abs(prev) ** 2, snaps, spec


def _nls_inputs(r):
    n = 64
    x = np.linspace(-4, 4, n, dtype=np.float32)
    return [(np.exp(-x ** 2) * 1.2).astype(np.float32),
            (0.1 * np.sin(x)).astype(np.float32),
            (0.05 * x ** 2).astype(np.float32)]


def newton_lapack_history(x0, a, b):
    # Newton's method on a small nonlinear system, f(x) = A x + 0.1 x^3 - b,
    # in a while loop whose body solves with the Jacobian through LAPACK
    # (jnp.linalg.solve: getrf and getrs), so the CPU drives it from the
    # host; each iterate is written into a history array in place and the
    # residual norms into another, and the loop stops on the residual.
    def f(x):
        return a @ x + 0.1 * x ** 3 - b

    def cond(st):
        x, hist, res, i = st
        return (jnp.linalg.norm(f(x)) > 1e-10) & (i < 20)

    def body(st):
        x, hist, res, i = st
        jac = a + jnp.diag(0.3 * x ** 2)
        x = x - jnp.linalg.solve(jac, f(x))
        hist = lax.dynamic_update_slice(hist, x[None], (i, 0))
        res = res.at[i].set(jnp.linalg.norm(f(x)))
        return x, hist, res, i + 1

    n = x0.shape[0]
    x, hist, res, iters = lax.while_loop(
        cond, body, (x0, jnp.zeros((20, n)), jnp.zeros(20), 0))
    return x, hist, jnp.where(res > 1e-6, res, 0.0), iters


def _newton_inputs(r):
    n = 6
    a = r.standard_normal((n, n)) * 0.3 + 3 * np.eye(n)
    return [r.standard_normal(n), a, r.standard_normal(n)]


def big_cumulative_scans(a, b, c, d):
    # Cumulative ops past the CPU's parallel split, where the scans run
    # rows in parallel: a cumsum down the outer axis of [3000, 40], a
    # reverse one along rows of [40, 3000] (quarter grid: exact in any
    # order), cumlogsumexp (not associative: folded in order) along 1000,
    # a reverse s32 cummax over 40000, a bool cumsum, a cumprod of values
    # near one, and a hand-written prefix window of 3000 with a max reducer.
    # (Not a non-identity init on a window this long: XLA:CPU's rewrite of
    # long windows into shorter ones applies the init twice, as XLA's
    # semantics allow; short windows keep it once, as hloc does.)
    n = b.shape[1]
    return (jnp.cumsum(a, axis=0), lax.cumsum(b, axis=1, reverse=True),
            lax.cumlogsumexp(c, axis=1), lax.cummax(d, reverse=True),
            jnp.cumsum(d % 3 == 0), jnp.cumprod(1.0 + c * 1e-3, axis=1),
            lax.reduce_window(b, np.float32(-np.inf), lax.max, (1, n),
                              (1, 1), [(0, 0), (n - 1, 0)]))


def _big_cum_inputs(r):
    return [_quarters(r, (3000, 40)), _quarters(r, (40, 3000)),
            floats(r, (50, 1000)), ints(r, (40000,), -10**6, 10**6)]


def big_loop_state_in_place(x, y, rows):
    # Loop state past the CPU's parallel split, updated in place each
    # trip: an elementwise update of 100000 values read only at the index
    # written, a [2000, 64] array whose rows a fori_loop overwrites one at
    # a time (and reads the row before), a 1-D window of 5000 rewritten
    # at a moving offset, and the whole state returned with the inputs.
    def body(i, st):
        x, buf, win = st
        x = x * 0.5 + y
        prev = lax.dynamic_index_in_dim(buf, jnp.maximum(i - 1, 0), 0,
                                        keepdims=False)
        buf = lax.dynamic_update_slice(buf, (prev * 0.5 + x[:64])[None],
                                       (i, 0))
        win = lax.dynamic_update_slice(win, x[:5000] + win[:5000],
                                       (i * 1500,))
        return x, buf, win

    st = lax.fori_loop(0, 40, body, (x, rows, jnp.zeros(70000)))
    return st + (x, rows)


def _big_loop_inputs(r):
    return [_quarters(r, (100000,)).astype(np.float64),
            _quarters(r, (100000,)).astype(np.float64),
            _quarters(r, (2000, 64)).astype(np.float64)]


# --- Exact integer kernels and more algorithms ----------------------------

def _crc_table():
    t = np.arange(256, dtype=np.uint32)
    for _ in range(8):
        t = np.where(t & 1, (t >> 1) ^ np.uint32(0xEDB88320), t >> 1)
    return t.astype(np.uint32)


def _rotl(x, k):
    return (x << np.uint32(k)) | (x >> np.uint32(32 - k))


def crc32_chacha_bigint(data, key, a_limbs, b_limbs):
    # Integer kernels written in JAX: CRC-32 of byte rows by a scan with
    # table lookups (u32 shifts and xors), the ChaCha20 block function
    # (u32 adds that wrap, rotations, 20 rounds in a fori_loop over a
    # [16] state gathered and scattered by index), and multi-limb integer
    # addition and schoolbook multiplication with carries through u64.
    table = jnp.asarray(_crc_table())

    def crc_row(row):
        def step(c, byte):
            return table[(c ^ byte.astype(jnp.uint32)) & 0xFF] ^ (c >> 8), None

        c, _ = lax.scan(step, jnp.uint32(0xFFFFFFFF), row)
        return c ^ jnp.uint32(0xFFFFFFFF)

    crcs = jax.vmap(crc_row)(data)

    def qr(st, a, b, c, d):
        x = [st[a], st[b], st[c], st[d]]
        x[0] = x[0] + x[1]; x[3] = _rotl(x[3] ^ x[0], 16)
        x[2] = x[2] + x[3]; x[1] = _rotl(x[1] ^ x[2], 12)
        x[0] = x[0] + x[1]; x[3] = _rotl(x[3] ^ x[0], 8)
        x[2] = x[2] + x[3]; x[1] = _rotl(x[1] ^ x[2], 7)
        return st.at[jnp.array([a, b, c, d])].set(jnp.stack(x))

    def double_round(_, st):
        for a, b, c, d in ((0, 4, 8, 12), (1, 5, 9, 13), (2, 6, 10, 14),
                           (3, 7, 11, 15), (0, 5, 10, 15), (1, 6, 11, 12),
                           (2, 7, 8, 13), (3, 4, 9, 14)):
            st = qr(st, a, b, c, d)
        return st

    const = jnp.array([0x61707865, 0x3320646E, 0x79622D32, 0x6B206574],
                      jnp.uint32)
    blocks = []
    for counter in range(3):
        init = jnp.concatenate([const, key, jnp.array([counter, 0, 7, 9],
                                                      jnp.uint32)])
        blocks.append(lax.fori_loop(0, 10, double_round, init) + init)

    def add(a, b):
        def step(carry, ab):
            s = ab[0].astype(jnp.uint64) + ab[1] + carry
            return s >> 32, (s & 0xFFFFFFFF).astype(jnp.uint32)

        carry, out = lax.scan(step, jnp.uint64(0), jnp.stack([a, b], 1))
        return out, carry

    def mul(a, b):
        n = a.shape[0]

        def row(i, acc):
            def col(j, st):
                acc, carry = st
                t = (acc[i + j].astype(jnp.uint64)
                     + a[i].astype(jnp.uint64) * b[j] + carry)
                return acc.at[i + j].set((t & 0xFFFFFFFF).astype(jnp.uint32)), t >> 32

            acc, carry = lax.fori_loop(0, n, col, (acc, jnp.uint64(0)))
            return acc.at[i + n].set(carry.astype(jnp.uint32))

        return lax.fori_loop(0, n, row, jnp.zeros(2 * n, jnp.uint32))

    return crcs, jnp.stack(blocks), add(a_limbs, b_limbs), mul(a_limbs, b_limbs)


def _crc_inputs(r):
    return [ints(r, (5, 37), 0, 256, np.uint8), ints(r, (8,), 0, 2**32,
                                                      np.uint32),
            ints(r, (6,), 0, 2**32, np.uint32), ints(r, (6,), 0, 2**32,
                                                       np.uint32)]


def bitonic_sort_network(x, xi):
    # A bitonic sorting network written with reshapes, flips and
    # min/max, as a sort on accelerators is sometimes written by hand:
    # log2(n)^2 stages over 256 f32 (with ties and -0) and 64 s32 rows of
    # a vmapped batch, against jnp.sort.
    def bitonic(v):
        n = v.shape[-1]
        k = 2
        while k <= n:
            j = k // 2
            while j >= 1:
                idx = jnp.arange(n)
                partner = idx ^ j
                up = (idx & k) == 0
                pv = v[..., partner]
                lo = jnp.minimum(v, pv)
                hi = jnp.maximum(v, pv)
                first = idx < partner
                v = jnp.where(first == up, lo, hi)
                j //= 2
            k *= 2
        return v

    return bitonic(x), jnp.sort(x), jax.vmap(bitonic)(xi), jnp.sort(xi, -1)


def rle_and_csr_spmv(seq, rows, cols, vals, vec):
    # Run-length encoding with size= (boundaries by diff, run starts by
    # nonzero, lengths by diff of starts), its decoding by repeat with
    # total_repeat_length, and a CSR sparse matrix-vector product written
    # with cumsum, searchsorted and segment_sum (quarter values, exact).
    change = jnp.concatenate([jnp.array([True]), seq[1:] != seq[:-1]])
    starts = jnp.nonzero(change, size=seq.shape[0], fill_value=seq.shape[0])[0]
    nruns = change.sum()
    lengths = jnp.diff(jnp.concatenate([starts, jnp.array([seq.shape[0]])]))
    lengths = jnp.where(jnp.arange(seq.shape[0]) < nruns, lengths, 0)
    values = seq[jnp.minimum(starts, seq.shape[0] - 1)]
    decoded = jnp.repeat(values, lengths, total_repeat_length=seq.shape[0])
    n_rows = 12
    order = jnp.argsort(rows, stable=True)
    r, c, v = rows[order], cols[order], vals[order]
    indptr = jnp.concatenate([jnp.zeros(1, jnp.int32),
                              jnp.cumsum(jnp.bincount(r, length=n_rows))])
    row_of = jnp.searchsorted(indptr, jnp.arange(r.shape[0]), side="right") - 1
    y = jax.ops.segment_sum(v * vec[c], row_of, num_segments=n_rows)
    dense = jnp.zeros((n_rows, vec.shape[0])).at[rows, cols].add(vals)
    return starts, nruns, lengths, values, decoded, indptr, y, dense @ vec


def _rle_inputs(r):
    seq = np.repeat(r.integers(0, 4, 12), r.integers(1, 5, 12))[:30]
    seq = np.pad(seq, (0, 30 - seq.shape[0]), mode="edge").astype(np.int32)
    nnz = 40
    return [seq, ints(r, (nnz,), 0, 12), ints(r, (nnz,), 0, 9),
            _quarters(r, (nnz,)), _quarters(r, (9,))]


def dtw_alignment(a, b, ab, bb):
    # Dynamic time warping: the cost matrix's rows by a scan whose inner
    # fori_loop fills the row in place from the cell to its left, the
    # previous row's cell and the diagonal; the optimal path traced back
    # by a while loop writing (i, j) pairs into a buffer; vmapped over a
    # batch of pairs of different contents.
    def dtw(a, b):
        n, m = a.shape[0], b.shape[0]
        inf = jnp.float32(jnp.inf)

        def row(prev, ai):
            def col(j, cur):
                c = jnp.abs(ai - b[j - 1])
                best = jnp.minimum(jnp.minimum(prev[j], cur[j - 1]),
                                   prev[j - 1])
                return cur.at[j].set(c + best)

            cur = lax.fori_loop(1, m + 1, col,
                                jnp.full(m + 1, inf).at[0].set(inf))
            return cur, cur

        first = jnp.full(m + 1, inf).at[0].set(0.0)
        _, rows = lax.scan(row, first, a)
        d = jnp.concatenate([first[None], rows])

        def cond(st):
            i, j, k, path = st
            return (i > 0) & (j > 0)

        def body(st):
            i, j, k, path = st
            path = path.at[k].set(jnp.stack([i, j]))
            opts = jnp.stack([d[i - 1, j - 1], d[i - 1, j], d[i, j - 1]])
            o = jnp.argmin(opts)
            return (i - (o != 2), j - (o != 1), k + 1, path)

        _, _, k, path = lax.while_loop(
            cond, body, (n, m, 0, jnp.full((n + m, 2), -1)))
        return d[n, m], k, path

    return dtw(a, b), jax.vmap(dtw)(ab, bb)


def _dtw_inputs(r):
    # Integer-valued signals: the costs are exact, so ties in the path's
    # argmin fall the same way everywhere.
    return [ints(r, (14,), 0, 6).astype(np.float32),
            ints(r, (11,), 0, 6).astype(np.float32),
            ints(r, (4, 9), 0, 5).astype(np.float32),
            ints(r, (4, 12), 0, 5).astype(np.float32)]


def nerf_hierarchical_sampling(t_coarse, sigma, u, rgb):
    # Volume rendering as NeRF does it, per ray: alphas from densities,
    # transmittance by an exclusive cumprod, weights, then importance
    # sampling of fine positions by inverting the weights' CDF
    # (searchsorted on each ray's row under vmap, take_along_axis, linear
    # interpolation between bin edges), the union of coarse and fine
    # positions sorted, and the colour and depth composited again.
    delta = jnp.diff(t_coarse, axis=-1, append=t_coarse[:, -1:] + 1e3)
    alpha = 1.0 - jnp.exp(-jax.nn.relu(sigma) * delta)
    trans = jnp.cumprod(jnp.concatenate(
        [jnp.ones_like(alpha[:, :1]), 1.0 - alpha + 1e-10], -1), -1)[:, :-1]
    w = alpha * trans
    pdf = (w[:, 1:-1] + 1e-5) / jnp.sum(w[:, 1:-1] + 1e-5, -1, keepdims=True)
    cdf = jnp.concatenate([jnp.zeros_like(pdf[:, :1]), jnp.cumsum(pdf, -1)],
                          -1)
    mids = 0.5 * (t_coarse[:, 1:] + t_coarse[:, :-1])

    def sample(cdf, mids, u):
        idx = jnp.searchsorted(cdf, u, side="right")
        below = jnp.maximum(idx - 1, 0)
        above = jnp.minimum(idx, cdf.shape[0] - 1)
        c0, c1 = cdf[below], cdf[above]
        m0, m1 = mids[below], mids[above]
        denom = jnp.where(c1 - c0 < 1e-5, 1.0, c1 - c0)
        return m0 + (u - c0) / denom * (m1 - m0), idx

    fine, idx = jax.vmap(sample)(cdf, mids, u)
    t_all = jnp.sort(jnp.concatenate([t_coarse, fine], -1), -1)
    rgb_w = jnp.einsum("rs,rsc->rc", w, rgb, precision=_HI)
    depth = jnp.sum(w * t_coarse, -1)
    return w, cdf, idx, fine, t_all, rgb_w, depth


def _nerf_inputs(r):
    rays, s = 6, 16
    t = np.sort(r.random((rays, s)) * 4 + 2, -1).astype(np.float32)
    return [t, floats(r, (rays, s)) * 2, np.sort(r.random((rays, 24)),
                                                 -1).astype(np.float32),
            r.random((rays, s, 3)).astype(np.float32)]


def long_cumulative_grads(x, rewards, prices, logits):
    # Cumulative ops over long lines as models write them, and the
    # reverse ones JAX makes of them: the gradient of a loss through a
    # cumsum of 60000 values (its transpose is a reverse cumsum), rewards
    # to go (lax.cumsum(reverse=True)) and a best-future-price suffix max
    # over 50000, cumlogsumexp along rows of 2000 (a prefix window whose
    # reducer is log-add-exp), and a running argmax (a variadic prefix
    # window). Quarter-grid sums: exact in any order.
    g = jax.grad(lambda v: jnp.sum(jnp.cumsum(v) * jnp.linspace(-1, 1, v.shape[0])))(x)
    to_go = lax.cumsum(rewards, reverse=True)
    best_future = lax.cummax(prices, reverse=True)
    lse = lax.cumlogsumexp(logits, axis=1)
    n = prices.shape[0]
    run_max, run_arg = lax.reduce_window(
        (prices, lax.iota(jnp.int32, n)), (np.int32(-2**31), np.int32(0)),
        lambda a, b: (jnp.where(b[0] > a[0], b[0], a[0]),
                      jnp.where(b[0] > a[0], b[1], a[1])),
        (n,), (1,), [(n - 1, 0)])
    return g, to_go, best_future, lse, run_max, run_arg


def _long_cum_inputs(r):
    return [_quarters(r, (60000,)), _quarters(r, (50000,)),
            ints(r, (50000,), -10**6, 10**6), floats(r, (20, 2000))]


def survival_and_listwise_losses(x, w, times, events, scores, labels):
    # Two losses built on a reverse cumlogsumexp, and their gradients: the
    # Cox proportional-hazards partial likelihood of 20000 subjects (each
    # risk set, all subjects still at risk at a time, is a suffix of the
    # time-sorted log-risks) and ListMLE over 16 lists of 500 (each
    # position's normaliser is a suffix of the label-sorted scores).
    order = jnp.argsort(times)
    ev = events[order].astype(jnp.float32)

    def cox_nll(w):
        risk = (x @ w)[order]
        log_risk_set = lax.cumlogsumexp(risk, reverse=True)
        return -jnp.sum((risk - log_risk_set) * ev) / jnp.sum(ev)

    def listmle(s):
        by_label = jnp.argsort(-labels, axis=1, stable=True)
        ss = jnp.take_along_axis(s, by_label, axis=1)
        return jnp.mean(jnp.sum(lax.cumlogsumexp(ss, axis=1, reverse=True)
                                - ss, axis=1))

    cox, g_cox = jax.value_and_grad(cox_nll)(w)
    lm, g_lm = jax.value_and_grad(listmle)(scores)
    # The risk sets themselves (outside a gradient JAX lowers them to a
    # suffix reduce-window of log-add-exp, not an associative scan).
    risk_sets = lax.cumlogsumexp((x @ w)[order], reverse=True)
    return cox, g_cox, lm, g_lm, risk_sets


def _survival_inputs(r):
    n = 20000
    return [floats(r, (n, 8)) * 0.5, floats(r, (8,)) * 0.3,
            r.permutation(n).astype(np.float32),
            (r.random(n) < 0.7), floats(r, (16, 500)),
            ints(r, (16, 500), 0, 5)]


def narrow_long_cumsums(mask, logits, u, z):
    # Cumulative sums of bf16 and f16 over long lines, as mixed-precision
    # code writes them: positions from a bf16 padding mask over 1000 tokens,
    # a top-p sampler's CDF of sorted bf16 probabilities over a 32000-word
    # vocabulary, an f16 running total of 5000 values and a reverse bf16
    # cumlogsumexp of 3000 (folded in bf16, each of these stopped growing:
    # positions at 256).
    positions = jnp.cumsum(mask.astype(jnp.bfloat16), axis=1)
    probs = jax.nn.softmax(logits.astype(jnp.bfloat16), axis=-1)
    cdf = jnp.cumsum(-jnp.sort(-probs, axis=-1), axis=-1)
    return (positions, cdf, jnp.cumsum(u.astype(jnp.float16)),
            lax.cumlogsumexp(z.astype(jnp.bfloat16), reverse=True))


def _narrow_inputs(r):
    mask = np.ones((4, 1000), bool)
    mask[1, 700:] = False
    mask[3, :40] = False
    return [mask, floats(r, (2, 32000)) * 2, r.random(5000).astype(np.float32),
            floats(r, (3000,))]


PROGRAMS = {
    "string_dynamic_programs": (string_dynamic_programs, _strings_inputs),
    "knapsack_dynamic_programs": (knapsack_dynamic_programs, lambda r: [
        ints(r, (9,), 1, 12), ints(r, (9,), 1, 30), np.int32(33)]),
    "union_find_components": (union_find_components, lambda r: [
        ints(r, (40, 2), 0, 44), np.int32(44)]),
    "fenwick_tree_queries": (fenwick_tree_queries, _fenwick_inputs),
    "heapsort_by_hand": (heapsort_by_hand, lambda r: [
        np.round(floats(r, (29,)) * 2) / 2, ints(r, (4, 16), -9, 9)]),
    "insertion_sort_vmapped": (insertion_sort_vmapped, lambda r: [
        floats(r, (5, 13)), ints(r, (4, 11), 0, 5)]),
    "gaussian_elimination_pivoting": (gaussian_elimination_pivoting,
                                      _gauss_inputs),
    "game_of_life_history": (game_of_life_history, _life_inputs),
    "sieve_and_collatz": (sieve_and_collatz, lambda r: [
        np.int32(397), ints(r, (12,), 1, 2000, np.int64)]),
    "floyd_warshall_paths": (floyd_warshall_paths, _fw_inputs),
    "loop_state_aliasing": (loop_state_aliasing, lambda r: [
        floats(r, (6, 3)), floats(r, (6, 3)), ints(r, (4,), 0, 6)]),
    "gemv_shapes_dtypes": (gemv_shapes_dtypes, _gemv_inputs),
    "gemv_large_threaded": (gemv_large_threaded, _gemv_large_inputs),
    "rnn_step_scan_grad": (rnn_step_scan_grad, _rnn_inputs),
    "lanczos_power_iteration": (lanczos_power_iteration, lambda r: [
        r.standard_normal((30, 30)), r.standard_normal(30)]),
    "prng_impls_key_data": (prng_impls_key_data, lambda r: [
        np.int32(r.integers(0, 2**31)),
        np.asarray(jax.random.key_data(jax.random.key(
            int(r.integers(0, 2**31)))))]),
    "gemv_odd_shapes_sweep": (gemv_odd_shapes_sweep, _sweep_inputs),
    "loop_state_permutations": (loop_state_permutations, lambda r: [
        floats(r, (3, 4)), floats(r, (3, 4)), floats(r, (3, 4)),
        np.int32(1)]),
    "cumulative_windows_by_hand": (cumulative_windows_by_hand, _cum_inputs),
    "topk_ties_nan": (topk_ties_nan, _topk_inputs),
    "conv_odd_combos": (conv_odd_combos, _conv_inputs),
    "maxpool_grad_ties": (maxpool_grad_ties, lambda r: [
        np.round(floats(r, (2, 9, 10, 3)))]),
    "integer_pow_wrap": (integer_pow_wrap, _ipow_inputs),
    "gemv_matrix_views": (gemv_matrix_views, _views_inputs),
    "mixed_integer_dots": (mixed_integer_dots, _mixed_int_inputs),
    "output_aliasing": (output_aliasing, lambda r: [
        floats(r, (4, 5)), floats(r, (4, 5)), np.int32(6)]),
    "split_step_snapshots": (split_step_snapshots, _nls_inputs),
    "newton_lapack_history": (newton_lapack_history, _newton_inputs),
    "big_cumulative_scans": (big_cumulative_scans, _big_cum_inputs),
    "big_loop_state_in_place": (big_loop_state_in_place, _big_loop_inputs),
    "crc32_chacha_bigint": (crc32_chacha_bigint, _crc_inputs),
    "bitonic_sort_network": (bitonic_sort_network, lambda r: [
        np.round(floats(r, (256,)) * 4) / 4, ints(r, (5, 64), -50, 50)]),
    "rle_and_csr_spmv": (rle_and_csr_spmv, _rle_inputs),
    "dtw_alignment": (dtw_alignment, _dtw_inputs),
    "nerf_hierarchical_sampling": (nerf_hierarchical_sampling, _nerf_inputs),
    "long_cumulative_grads": (long_cumulative_grads, _long_cum_inputs),
    "survival_and_listwise_losses": (survival_and_listwise_losses,
                                     _survival_inputs),
    "narrow_long_cumsums": (narrow_long_cumsums, _narrow_inputs),
}
