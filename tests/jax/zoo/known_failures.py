"""Zoo programs that still fail, and how: (program, target) -> a piece of
the output the failing run must print. zoo_test.py checks each still fails
exactly so; fix the compiler, then delete the entry."""

KNOWN_FAILURES = {
    # The AArch64 AOT target has no FFT: x86 calls FFTW (a library the
    # target lacks) and the elemental emitter has no fft, so strict AOT
    # compilation names the instruction.
    ("complex_fft_filter", "cpu aarch64"):
        "(fft): elemental emitter: no elemental code generation for this op",
    ("rfft_full_convolution", "cpu aarch64"):
        "(fft): elemental emitter: no elemental code generation for this op",
    ("fft_odd_sizes", "cpu aarch64"):
        "(fft): elemental emitter: no elemental code generation for this op",
    # Nor LAPACK (x86 calls the system's), which jnp.linalg lowers to.
    ("spd_cholesky_solve_inverse", "cpu aarch64"):
        "has no aarch64 AOT implementation",
    ("gaussian_nll_cholesky_grad", "cpu aarch64"):
        "has no aarch64 AOT implementation",
    ("newton_solve_loop_expm", "cpu aarch64"):
        "has no aarch64 AOT implementation",
    ("linalg_small", "cpu aarch64"): "has no aarch64 AOT implementation",
    ("singular_values_wide_tall", "cpu aarch64"):
        "has no aarch64 AOT implementation",
    # The fifth hunt's programs on the same targets.
    ("fno_spectral_conv_grad", "cpu aarch64"):
        "(fft): elemental emitter: no elemental code generation for this op",
    ("gp_posterior_loglik_grad", "cpu aarch64"):
        "has no aarch64 AOT implementation",
    ("x64_newton_logistic", "cpu aarch64"):
        "has no aarch64 AOT implementation",
    ("pca_eigh_qr", "cpu aarch64"): "has no aarch64 AOT implementation",
    # The sixth hunt's denormal inputs: the AArch64 target keeps IEEE
    # denormals (README, "Denormals") where XLA:CPU's x86 runtime, and
    # hloc's, read them as zero: heaviside(+-1e-45, 0.5) is 1 and 0 there,
    # not 0.5, and a float bitcast from a small integer is not == 0.
    ("float_edges", "cpu aarch64"): "out23[17]: got 1, expected 0.5",
    ("lax_direct_edges", "cpu aarch64"): "out41[0]: got false, expected true",
    # The evaluator computes syevd's eigenvalues, not its eigenvectors
    # (tests/jax/lax/unsupported.py, eigh_p); the cpu calls LAPACK.
    ("pca_eigh_qr", "evaluator"): "to 'lapack_ssyevd_ffi' (eigenvectors)",
    # The seventh hunt's sign-free comparisons of eigen- and singular
    # vectors: the evaluator has no eigenvectors (as pca_eigh_qr), singular
    # vectors or Schur vectors (hlo/evaluator/linalg.cc says why).
    ("linalg_spectral_sign_free", "evaluator"):
        "to 'lapack_ssyevd_ffi' (eigenvectors)",
    # Its LAPACK programs in the AArch64 sample, as the ones above.
    ("linalg_reconstructions", "cpu aarch64"):
        "has no aarch64 AOT implementation",
    ("big_linalg", "cpu aarch64"): "has no aarch64 AOT implementation",
    # Session 36's vmapped linear algebra: no eigen- or singular vectors in
    # the evaluator, no LAPACK on AArch64.
    ("batched_eigh_small", "evaluator"):
        "to 'lapack_dsyevd_ffi' (eigenvectors)",
    ("batched_svd_small", "evaluator"):
        "to 'lapack_sgesdd_ffi' (singular vectors)",
    ("batched_lu_solve_det", "cpu aarch64"):
        "has no aarch64 AOT implementation",
    ("batched_cholesky_gp", "cpu aarch64"):
        "has no aarch64 AOT implementation",
    ("batched_eigh_small", "cpu aarch64"):
        "has no aarch64 AOT implementation",
    ("batched_svd_small", "cpu aarch64"):
        "has no aarch64 AOT implementation",
    ("batched_qr_least_squares", "cpu aarch64"):
        "has no aarch64 AOT implementation",
    # Session 37's single mid-size solves: the same.
    ("triangular_solves_mid", "cpu aarch64"):
        "has no aarch64 AOT implementation",
    # The ninth hunt's LAPACK programs on AArch64, as above; and jnp.roots,
    # the eigenvalues of a companion matrix by geev without vectors, which
    # the evaluator refuses: a general matrix's eigenvalues come in the
    # order of LAPACK's QR iterations, which no other implementation could
    # match element by element (hlo/evaluator/linalg.cc).
    ("krylov_poisson_solvers", "cpu aarch64"):
        "has no aarch64 AOT implementation",
    ("deq_implicit_grad", "cpu aarch64"): "has no aarch64 AOT implementation",
    ("natural_spline_tridiagonal", "cpu aarch64"):
        "has no aarch64 AOT implementation",
    ("gmm_mvn_sampling_em", "cpu aarch64"):
        "has no aarch64 AOT implementation",
    ("toeplitz_gp_marginal", "cpu aarch64"):
        "has no aarch64 AOT implementation",
    ("polynomial_division_roots", "cpu aarch64"):
        "has no aarch64 AOT implementation",
    ("polynomial_division_roots", "evaluator"):
        "to 'lapack_dgeev_ffi' (eigenvalues, in an order that is "
        "LAPACK's own)",
    # The tenth hunt's LAPACK programs (jax.random.orthogonal's QR,
    # gaussian_kde's covariance inverse and Cholesky, complex128 solves) and
    # its FFT convolutions (jax.scipy.signal method="fft") on AArch64, as
    # above.
    ("multinomial_and_orthogonal", "cpu aarch64"):
        "has no aarch64 AOT implementation",
    ("kde_density_grad", "cpu aarch64"): "has no aarch64 AOT implementation",
    ("complex128_linalg_grads", "cpu aarch64"):
        "has no aarch64 AOT implementation",
    ("signal_nd_convolve_correlate", "cpu aarch64"):
        "(fft): elemental emitter: no elemental code generation for this op",
    # The eleventh hunt's spectral filter, as the FFT programs above.
    ("long_fft_filter", "cpu aarch64"):
        "(fft): elemental emitter: no elemental code generation for this op",
    # The twelfth hunt's host-driven loops: a loop body with FFTs, one with
    # LAPACK solves (the AArch64 target has neither, as above).
    ("split_step_snapshots", "cpu aarch64"):
        "elemental emitter: no elemental code generation for this op (%fft",
    ("newton_lapack_history", "cpu aarch64"):
        "has no aarch64 AOT implementation",
    # The fifteenth hunt's spectral programs (FFT) and its LAPACK ones
    # (LU, Cholesky, triangular solves, QR, SVD, eigh) on AArch64, as
    # above; and PCA's eigenvectors in the evaluator.
    ("s4d_fft_conv_kernel", "cpu aarch64"):
        "(fft): elemental emitter: no elemental code generation for this op",
    ("hyena_long_conv", "cpu aarch64"):
        "(fft): elemental emitter: no elemental code generation for this op",
    ("navier_stokes_vorticity_rfft2", "cpu aarch64"):
        "(fft): elemental emitter: no elemental code generation for this op",
    ("kuramoto_sivashinsky_etdrk4", "cpu aarch64"):
        "(fft): elemental emitter: no elemental code generation for this op",
    ("poisson_fft_solver_grad", "cpu aarch64"):
        "(fft): elemental emitter: no elemental code generation for this op",
    ("big_navier_stokes", "cpu aarch64"):
        "(fft): elemental emitter: no elemental code generation for this op",
    ("glow_actnorm_invconv_coupling", "cpu aarch64"):
        "has no aarch64 AOT implementation",
    ("backward_euler_robertson", "cpu aarch64"):
        "has no aarch64 AOT implementation",
    ("sparse_gp_titsias_elbo", "cpu aarch64"):
        "has no aarch64 AOT implementation",
    ("gp_classification_laplace", "cpu aarch64"):
        "has no aarch64 AOT implementation",
    ("pca_whitening_randomized_svd", "cpu aarch64"):
        "has no aarch64 AOT implementation",
    ("pca_whitening_randomized_svd", "evaluator"):
        "to 'lapack_ssyevd_ffi' (eigenvectors)",
    # The seventeenth hunt's LAPACK programs: no eigen-, singular or Schur
    # vectors in the evaluator, no LAPACK on AArch64; its FFT programs on
    # AArch64, as above.
    ("eigh_hermitian_upper_lower", "evaluator"):
        "to 'lapack_cheevd_ffi' (eigenvectors)",
    ("svd_complex_full_and_values", "evaluator"):
        "to 'lapack_cgesdd_ffi' (singular vectors)",
    ("linalg_grads", "evaluator"): "to 'lapack_dgesdd_ffi' (singular vectors)",
    ("lstsq_rank_deficient", "evaluator"):
        "to 'lapack_dgesdd_ffi' (singular vectors)",
    ("pinv_hermitian_rtol", "evaluator"):
        "to 'lapack_dgesdd_ffi' (singular vectors)",
    ("polynomials", "evaluator"): "to 'lapack_dgesdd_ffi' (singular vectors)",
    ("linalg_single_precision", "evaluator"):
        "to 'lapack_ssyevd_ffi' (eigenvectors)",
    ("schur_sqrtm_funm", "evaluator"): "to 'lapack_dgees_ffi' (Schur vectors)",
    ("cond_rank_every_p", "cpu aarch64"): "has no aarch64 AOT implementation",
    ("eigh_hermitian_upper_lower", "cpu aarch64"):
        "has no aarch64 AOT implementation",
    ("lstsq_rank_deficient", "cpu aarch64"):
        "has no aarch64 AOT implementation",
    ("qr_complex_every_mode", "cpu aarch64"):
        "has no aarch64 AOT implementation",
    ("schur_sqrtm_funm", "cpu aarch64"): "has no aarch64 AOT implementation",
    ("solve_broadcast_batches", "cpu aarch64"):
        "has no aarch64 AOT implementation",
    ("fftconvolve_axes", "cpu aarch64"):
        "(fft): elemental emitter: no elemental code generation for this op",
    ("hfft_ihfft_lengths", "cpu aarch64"):
        "(fft): elemental emitter: no elemental code generation for this op",
    # The same hunt's programs that its own run (every fourth program on
    # AArch64) skipped there; the full zoo_test runs them all.
    ("det_slogdet_singular", "cpu aarch64"):
        "has no aarch64 AOT implementation",
    ("matrix_power_negative_batched", "cpu aarch64"):
        "has no aarch64 AOT implementation",
    ("norms_every_ord_batched_complex", "cpu aarch64"):
        "has no aarch64 AOT implementation",
    ("stats_logpdf_cdf", "cpu aarch64"): "has no aarch64 AOT implementation",
    ("svd_complex_full_and_values", "cpu aarch64"):
        "has no aarch64 AOT implementation",
    ("random_geometric", "cpu aarch64"): "has no aarch64 AOT implementation",
    ("fft_grads_vmaps", "cpu aarch64"):
        "(fft): elemental emitter: no elemental code generation for this op",
}
