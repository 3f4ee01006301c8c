"""Small, readable FCO instances for invariants and properties, and their counterexample files.

An ``InstanceSpec`` is a handful of integers and floats (what Hypothesis draws and shrinks);
``build(spec)`` turns it into a ``Problem`` deterministically: the data come from
``default_rng(spec.data_seed)``, so a saved spec reproduces its instance bit for bit.

Loss: least squares ½(xᵀw − y)² (no intercept, a GLM, so every algorithm of the registry can
run on it, seed-004 methods included), uniform weights 1/M, Euclidean h.  Layouts (FO16 §3.1):

* ``general``   client m: X_m = N(0, 1) + het·s_m (a per-client feature shift),
                y_m = X_m(w₀ + het·u_m) + 0.1·noise — heterogeneity grows with ``het``;
* ``identical`` every client holds client 0's data (property D);
* ``one-client`` client 0 holds all M·n rows, the others hold rows of zeros, so F_m ≡ 0 for
                m ≥ 1 — all the information is on one node (property B);
* ``disjoint``  d = M·block, client m's rows are zero outside block m (each feature occurs on
                one node: the problem decomposes, property C).
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from fcocheck.solvers import strict_json
from fcocheck.solvers.card.reduction import LAYOUTS, PSI_KINDS  # noqa: E402 - stated once, where cards read them
from fcocheck.solvers.errors import InvalidProblemError
from fcocheck.solvers.files import Writer
from fcocheck.solvers.instance_io import write_instance
from fcocheck.solvers.mirror_maps import Euclidean
from fcocheck.solvers.problem import Problem, sample_weights, uniform_weights
from fcocheck.solvers.regularizers import L1, L2Squared, Regularizer, Zero


@dataclass(frozen=True)
class InstanceSpec:
    """The drawn parameters of one instance.

    Attributes:
        layout: one of ``LAYOUTS``.
        M: clients (≥ 1).
        d: features (for ``disjoint``: features per block).
        n: rows per client (≥ 1).
        het: heterogeneity of the ``general`` layout (≥ 0).
        psi: ``zero`` | ``l2sq`` | ``l1``.
        lam: ψ's weight λ ≥ 0.
        data_seed: seed of the data.

    """

    layout: str = "general"
    M: int = 1
    d: int = 1
    n: int = 1
    het: float = 0.0
    psi: str = "zero"
    lam: float = 0.0
    data_seed: int = 0

    def __post_init__(self) -> None:
        if self.layout not in LAYOUTS:
            raise InvalidProblemError(f"layout {self.layout!r}; the rule is one of {list(LAYOUTS)}")
        if self.psi not in PSI_KINDS:
            raise InvalidProblemError(f"psi {self.psi!r}; the rule is one of {list(PSI_KINDS)}")
        if min(self.M, self.d, self.n) < 1:
            raise InvalidProblemError(f"M = {self.M}, d = {self.d}, n = {self.n}; the rule is all >= 1")
        if not (self.het >= 0 and self.lam >= 0):
            raise InvalidProblemError(f"het = {self.het}, lam = {self.lam}; the rule is both >= 0")

    @property
    def dim(self) -> int:
        """Model dimension: d, or M·d for the disjoint layout."""
        return self.M * self.d if self.layout == "disjoint" else self.d

    def size(self) -> str:
        """A short human description: ``M=2 d=1 n=1 l1(λ=0.5) general het=1``."""
        psi = self.psi if self.psi == "zero" else f"{self.psi}(λ={self.lam:g})"
        het = f" het={self.het:g}" if self.layout == "general" else ""
        return f"M={self.M} d={self.dim} n={self.n} {psi} {self.layout}{het}"


def regularizer(spec: InstanceSpec) -> Regularizer:
    """ψ of the spec."""
    if spec.psi == "l1":
        return L1(spec.lam)
    if spec.psi == "l2sq":
        return L2Squared(spec.lam)
    return Zero()


def _data(spec: InstanceSpec, rng: np.random.Generator) -> tuple[list[np.ndarray], list[np.ndarray]]:
    M, d, n = spec.M, spec.dim, spec.n
    w0 = rng.standard_normal(d)
    if spec.layout == "one-client":
        X0 = rng.standard_normal((M * n, d))
        y0 = X0 @ w0 + 0.1 * rng.standard_normal(M * n)
        return [X0] + [np.zeros((n, d))] * (M - 1), [y0] + [np.zeros(n)] * (M - 1)
    if spec.layout == "identical":
        X0 = rng.standard_normal((n, d))
        y0 = X0 @ w0 + 0.1 * rng.standard_normal(n)
        return [X0] * M, [y0] * M
    Xs, ys = [], []
    for m in range(M):
        if spec.layout == "disjoint":
            Xm = np.zeros((n, d))
            block = slice(m * spec.d, (m + 1) * spec.d)
            Xm[:, block] = rng.standard_normal((n, spec.d))
            wm = w0
        else:
            Xm = rng.standard_normal((n, d)) + spec.het * rng.standard_normal(d)
            wm = w0 + spec.het * rng.standard_normal(d)
        Xs.append(Xm)
        ys.append(Xm @ wm + 0.1 * rng.standard_normal(n))
    return Xs, ys


@lru_cache(maxsize=4096)
def build(spec: InstanceSpec) -> Problem:
    """The ``Problem`` of ``spec`` (cached: specs are hashable and builds are deterministic)."""
    Xs, ys = _data(spec, np.random.default_rng(spec.data_seed))
    return Problem(
        name=f"case-{spec.layout}",
        loss="squares",
        X=tuple(Xs),
        y=tuple(ys),
        regularizer=regularizer(spec),
        mirror=Euclidean(),
        weights=uniform_weights(spec.M),
        meta={"generator": "verify.cases", **asdict(spec)},
    )


def weighted(p: Problem) -> Problem:
    """The instance with unequal client sizes (client m keeps n − m rows, at least 2), p_m = n_m/n."""
    X = tuple(x[: max(2, x.shape[0] - m)] for m, x in enumerate(p.X))
    y = tuple(t[: max(2, t.shape[0] - m)] for m, t in enumerate(p.y))
    n = np.array([x.shape[0] for x in X])
    return dataclasses.replace(p, X=X, y=y, weights=sample_weights(n), weighting="samples")


def save_case(directory: str | Path, stem: str, spec: InstanceSpec, record: dict[str, Any]) -> Path:
    """Write ``stem.npz`` (the instance, readable by ``fcocheck solve``) and ``stem.json``: both or neither.

    The JSON holds the spec (which rebuilds the instance), the algorithm, hyper-parameters and
    the evidence; returns the JSON path.  Each file is staged beside its place; the JSON moves into
    place first and the instance after it, so a failure (a full disk) while either is written leaves
    neither new file — never an instance without the record that says what it is.
    """
    w = Writer(directory)
    with w.open(f"{stem}.npz") as fh:
        write_instance(build(spec), fh)
        return w.write_text(
            f"{stem}.json",
            strict_json.dumps({"spec": asdict(spec), "size": spec.size(), **record}, indent=2, default=float)
            + "\n")


def load_spec(path: str | Path) -> InstanceSpec:
    """The spec stored in a counterexample JSON file."""
    return InstanceSpec(**json.loads(Path(path).read_text())["spec"])
