"""Every jax.lax primitive lowered alone (tests/jax/lax_coverage.py)."""
