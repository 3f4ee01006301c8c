"""Hypothesis strategies for oracles: the toolkit's own (``verify.strategies``), re-exported."""

from fcocheck.verify.strategies import convex_regularizers, finite, lams, radii, steps, vectors, weakly_convex

__all__ = ["convex_regularizers", "finite", "lams", "radii", "steps", "vectors", "weakly_convex"]
