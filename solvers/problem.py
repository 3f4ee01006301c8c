"""The FCO problem  min_w Φ(w) = Σ_m p_m F_m(w) + ψ(w) .

A ``Problem`` is immutable data: per-client samples (or per-client quadratics), a loss name,
ψ and h on the model coordinates, client weights p_m, an optional unpenalised intercept and
an optional ground truth.  The full parameter vector is ``w = (w_model, b)`` of length
``dim = d + intercept``; ``problem.psi`` and ``problem.h`` act on it (the intercept is never
penalised and sits in a Euclidean block of h).

Per-client functions are vectorised over the client axis: ``client_grads(W)`` takes
``W`` of shape ``(M, dim)`` (client m at W[m]) and returns ``(M, dim)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from fcocheck.solvers.errors import InvalidProblemError
from fcocheck.solvers.kernels import Kernel
from fcocheck.solvers.losses import LOSS_NAMES, scalar_loss
from fcocheck.solvers.losses.scalar import ScalarLoss
from fcocheck.solvers.mirror_maps import Entropy, FreeTailMirror, MirrorMap
from fcocheck.solvers.regularizers import FreeTail, GroupLasso, Nuclear, Regularizer, Simplex
from fcocheck.solvers.sparse import issparse

Array = np.ndarray


@dataclass(frozen=True, eq=False)
class Problem:
    """An FCO instance.

    Attributes:
        name: instance name (generator name or file stem).
        loss: one of ``LOSS_NAMES``.
        X: per-client design matrices ``(n_m, d)`` (dense or CSR); empty for ``quadratic``.
        y: per-client targets ``(n_m,)``; labels ±1 for logistic/sigmoid.
        Q: per-client Hessians ``(M, d, d)`` (``quadratic`` only).
        c: per-client linear terms ``(M, d)`` (``quadratic`` only).
        regularizer: ψ on the model coordinates.
        mirror: h on the model coordinates.
        intercept: whether an unpenalised bias b is appended.
        weights: client weights p_m ≥ 0 summing to 1.
        weighting: ``uniform`` (1/M), ``samples`` (n_m/n) or ``custom``.
        ridge_lam: λ of the ``ridge`` loss's (λ/2)‖w‖² (never on the intercept).
        shape: (d1, d2) when the model is a matrix stored flat.
        truth: ground truth arrays (``w`` and optionally ``b``).
        meta: generator name and parameters, for provenance.

    """

    name: str
    loss: str
    X: tuple[Any, ...]
    y: tuple[Array, ...]
    regularizer: Regularizer
    mirror: MirrorMap
    weights: Array
    Q: Array | None = None
    c: Array | None = None
    intercept: bool = False
    weighting: str = "uniform"
    ridge_lam: float = 0.0
    shape: tuple[int, int] | None = None
    truth: dict[str, Array] = field(default_factory=dict)
    meta: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        validate(self)

    # --- sizes ---------------------------------------------------------------------
    @property
    def M(self) -> int:
        """Number of clients."""
        return len(self.y) if self.loss != "quadratic" else int(self.c.shape[0])

    @property
    def d(self) -> int:
        """Number of model coordinates (without the intercept)."""
        if self.loss == "quadratic":
            return int(self.c.shape[1])
        return int(self.X[0].shape[1])

    @property
    def dim(self) -> int:
        """Length of the full parameter vector (d + 1 with an intercept)."""
        return self.d + int(self.intercept)

    @cached_property
    def n(self) -> Array:
        """Samples per client n_m (zeros for quadratics)."""
        if self.loss == "quadratic":
            return np.zeros(self.M, dtype=int)
        return np.array([len(yy) for yy in self.y])

    @property
    def is_sparse(self) -> bool:
        """Whether the client data are scipy.sparse matrices."""
        return bool(self.X) and issparse(self.X[0])

    @property
    def convex(self) -> bool:
        """Whether Φ is convex (convex loss and convex ψ)."""
        return self.loss not in ("sigmoid", "cauchy") and self.regularizer.convex

    @cached_property
    def stacked(self) -> Array | None:
        """``(M, n, d)`` dense array when every client has the same n, else None.

        No copy when the blocks already lie back to back in one array (an instance file's ``X``, a
        generator's, a centred twin's): a view of it; otherwise ``np.stack``.
        """
        if self.loss == "quadratic" or self.is_sparse or len(set(self.n.tolist())) != 1:
            return None
        view = _back_to_back(self.X)
        return view if view is not None else np.stack(self.X)

    @cached_property
    def psi(self) -> Regularizer:
        """ψ on the full vector (the intercept left free)."""
        return FreeTail(self.regularizer, 1) if self.intercept else self.regularizer

    @cached_property
    def h(self) -> MirrorMap:
        """H on the full vector (Euclidean on the intercept)."""
        return FreeTailMirror(self.mirror, 1) if self.intercept else self.mirror

    @property
    def phi(self) -> ScalarLoss:
        """The scalar GLM loss (not defined for quadratics)."""
        return scalar_loss(self.loss)

    # --- per-client evaluation -----------------------------------------------------
    @cached_property
    def kernel(self) -> Kernel:
        """The gradient kernel over every client, strategy chosen from the data's shape."""
        return Kernel(self)

    def client_values(self, W: Array) -> Array:
        """F_m(W[m]) for every client, shape ``(M,)``."""
        return self.kernel.values(W)

    def client_grads(self, W: Array) -> Array:
        """∇F_m(W[m]) for every client, shape ``(M, dim)``."""
        return self.kernel.grads(W)

    def client_grads_rows(self, W: Array, rows: Array) -> Array:
        """Minibatch gradients: client m averages ∇f over its sampled rows ``rows[m]``.

        Args:
            W: points, ``(M, dim)``.
            rows: integer row indices, ``(M, b)`` (drawn with replacement by the oracle).

        """
        return self.kernel.grads_rows(W, rows)

    # --- global objective ------------------------------------------------------------
    def F(self, w: Array) -> float:
        """F(w) = Σ_m p_m F_m(w)."""
        return float(self.weights @ self.client_values(self.broadcast(w)))

    def grad_F(self, w: Array) -> Array:
        """∇F(w) = Σ_m p_m ∇F_m(w)."""
        return self.weights @ self.client_grads(self.broadcast(w))

    def Phi(self, w: Array) -> float:
        """Φ(w) = F(w) + ψ(w)."""
        return self.F(w) + float(self.psi.value(np.asarray(w, dtype=float)))

    def broadcast(self, w: Array) -> Array:
        """Copy one point to every client: ``(dim,) → (M, dim)``."""
        w = np.asarray(w, dtype=float)
        if w.shape != (self.dim,):
            raise InvalidProblemError(
                f"{self.name}: point of shape {w.shape} given; the rule is shape ({self.dim},)"
            )
        return np.broadcast_to(w, (self.M, self.dim))

    def zero(self) -> Array:
        """The default start w0 = ∇h*(0) (0 for every map but entropy)."""
        return self.h.default_start(self.dim)

    # --- pooled view (reference solvers) ------------------------------------------------
    @cached_property
    def pooled(self) -> tuple[Any, Array, Array]:
        """(A, y, ω): all rows stacked with weights ω_i = p_m/n_m, so F = Σ ω_i φ(a_iᵀw)."""
        omega = np.concatenate([np.full(nm, p / nm) for p, nm in zip(self.weights, self.n, strict=True)])
        y = np.concatenate(self.y)
        if self.is_sparse:
            import scipy.sparse as sp

            A = sp.vstack(self.X, format="csr")
        elif self.stacked is not None:
            A = self.stacked.reshape(-1, self.d)
        else:
            A = np.vstack(self.X)
        return A, y, omega


def _back_to_back(blocks: tuple[Any, ...]) -> Array | None:
    """The ``(M, n, d)`` view of the one array whose consecutive rows ``blocks`` are, else None."""
    owner, first = blocks[0].base, blocks[0]
    if not (isinstance(owner, np.ndarray) and owner.flags.c_contiguous and owner.dtype == first.dtype):
        return None
    start = first.__array_interface__["data"][0]
    for m, b in enumerate(blocks):
        if (b.base is not owner or b.shape != first.shape or not b.flags.c_contiguous
                or b.__array_interface__["data"][0] != start + m * first.nbytes):
            return None
    offset, rest = divmod(start - owner.__array_interface__["data"][0], owner.itemsize)
    if rest or offset < 0 or offset + len(blocks) * first.size > owner.size:
        return None
    return owner.reshape(-1)[offset: offset + len(blocks) * first.size].reshape(len(blocks), *first.shape)


def _fail(problem: Problem, rule: str) -> None:
    raise InvalidProblemError(f"{problem.name}: {rule}")


def _finite(arr: Any) -> bool:
    """Real (bool/int/float) and finite: complex, string and object data are refused too."""
    data = arr.data if issparse(arr) else np.asarray(arr)
    return data.dtype.kind in "biuf" and bool(np.all(np.isfinite(data)))


def validate(p: Problem) -> None:
    """Check every rule of a problem; raise InvalidProblemError naming the value and rule."""
    if p.loss not in LOSS_NAMES:
        from fcocheck.solvers.spec import closest

        _fail(p, f"unknown loss {p.loss!r}; known: {list(LOSS_NAMES)}{closest(p.loss, LOSS_NAMES)}")
    if p.loss == "quadratic":
        _validate_quadratic(p)
    else:
        _validate_samples(p)
    _validate_weights(p)
    _validate_components(p)


def _validate_quadratic(p: Problem) -> None:
    if p.Q is None or p.c is None:
        _fail(p, "loss 'quadratic' needs per-client Q (M, d, d) and c (M, d)")
    Q, c = np.asarray(p.Q), np.asarray(p.c)
    if c.ndim != 2 or Q.shape != (c.shape[0], c.shape[1], c.shape[1]):
        _fail(p, f"Q has shape {Q.shape} and c has shape {c.shape}; the rule is Q (M, d, d), c (M, d)")
    if c.shape[0] == 0:
        _fail(p, "no clients (M = 0); the rule is M >= 1")
    if not (_finite(Q) and _finite(c)):
        _fail(p, f"Q or c holds NaN, inf or non-real values (dtypes {Q.dtype}, {c.dtype}); the rule "
                 "is finite real data")
    if c.shape[1] == 0:
        _fail(p, "d = 0 coordinates; the rule is d >= 1")
    if not np.allclose(Q, np.swapaxes(Q, 1, 2), atol=1e-12 * (1 + np.abs(Q).max())):
        _fail(p, "Q is not symmetric; the rule is Q_m = Q_mᵀ")
    low = float(np.linalg.eigvalsh(0.5 * (Q + np.swapaxes(Q, 1, 2))).min())
    if low < -1e-10 * (1.0 + float(np.abs(Q).max())):
        _fail(p, f"a client's Q has eigenvalue {low:.3e} < 0; the rule is Q_m positive semidefinite "
                 "(F_m convex, FCO Assumption 2)")
    if p.intercept is not False and p.intercept is not True:
        _fail(p, f"intercept = {p.intercept!r}; the rule is a boolean")
    if p.intercept:
        _fail(p, "intercept = true with loss 'quadratic'; the rule is no intercept for quadratics")


def _validate_samples(p: Problem) -> None:
    if len(p.X) == 0 or len(p.X) != len(p.y):
        _fail(p, f"{len(p.X)} design blocks for {len(p.y)} target blocks; the rule is one X_m "
                 "and one y_m per client, M >= 1")
    d = p.X[0].shape[1] if np.ndim(p.X[0]) == 2 or issparse(p.X[0]) else None
    for m, (Xm, ym) in enumerate(zip(p.X, p.y, strict=True)):
        if not (issparse(Xm) or np.ndim(Xm) == 2) or np.ndim(ym) != 1:
            _fail(p, f"client {m}: X has {np.ndim(Xm)} dims and y has {np.ndim(ym)}; the rule "
                     "is X_m (n_m, d) and y_m (n_m,)")
        if Xm.shape[0] != len(ym):
            _fail(p, f"client {m}: X has {Xm.shape[0]} rows but y has {len(ym)}; the rule is "
                     "equal sample counts")
        if Xm.shape[0] == 0:
            _fail(p, f"client {m} is empty (n_m = 0); the rule is n_m >= 1")
        if Xm.shape[1] != d:
            _fail(p, f"client {m} has {Xm.shape[1]} features, client 0 has {d}; the rule is "
                     "the same d for every client")
        if not (_finite(Xm) and _finite(ym)):
            _fail(p, f"client {m}: data hold NaN, inf or non-real values (dtypes "
                     f"{Xm.dtype}, {np.asarray(ym).dtype}); the rule is finite real data")
        if scalar_loss(p.loss).binary_labels and not np.all(np.isin(ym, (-1.0, 1.0))):
            bad = float(np.asarray(ym)[~np.isin(ym, (-1.0, 1.0))][0])
            _fail(p, f"client {m}: label {bad!r} for loss {p.loss!r}; the rule is labels in {{-1, +1}}")
    if d == 0:
        _fail(p, "the data have d = 0 features; the rule is d >= 1")
    if p.intercept is not False and p.intercept is not True:
        _fail(p, f"intercept = {p.intercept!r}; the rule is a boolean")
    if p.shape is not None and p.shape[0] * p.shape[1] != d:
        _fail(p, f"matrix shape {p.shape} does not hold d = {d} coordinates; the rule is d1·d2 = d")
    if p.loss == "matrix" and p.shape is None:
        _fail(p, "loss 'matrix' needs the model shape (d1, d2)")
    if p.ridge_lam < 0 or not np.isfinite(p.ridge_lam):
        _fail(p, f"ridge lam = {p.ridge_lam!r}; the rule is lam >= 0")


def _validate_weights(p: Problem) -> None:
    w = np.asarray(p.weights, dtype=float)
    if w.shape != (p.M,) or not _finite(w) or np.any(w < 0) or abs(w.sum() - 1.0) > 1e-12:
        _fail(p, f"client weights {w.tolist()!r} are invalid; the rule is M = {p.M} "
                 "non-negative weights summing to 1")


def _validate_components(p: Problem) -> None:
    psi, h = p.regularizer, p.mirror
    if isinstance(psi, Nuclear) and psi.shape[0] * psi.shape[1] != p.d:
        _fail(p, f"nuclear shape {psi.shape} does not match d = {p.d}; the rule is d1·d2 = d")
    if isinstance(psi, Nuclear) and p.shape is not None and tuple(p.shape) != tuple(psi.shape):
        _fail(p, f"nuclear shape {tuple(psi.shape)} differs from the model shape {tuple(p.shape)}; the rule "
                 "is one matrix shape")
    if isinstance(psi, GroupLasso) and len(psi.groups) != p.d:
        _fail(p, f"group_lasso labels {len(psi.groups)} coordinates, d = {p.d}; the rule is one "
                 "label per coordinate")
    a = getattr(h, "a", None)
    if a is not None and len(a) not in (1, p.d):
        _fail(p, f"diagonal mirror map has {len(a)} entries, d = {p.d}; the rule is d entries")
    if isinstance(h, Entropy) and not (isinstance(psi, Simplex) and psi.radius == 1.0):
        _fail(p, f"mirror map 'entropy' lives on the unit simplex but ψ = {psi.name!r} leaves it; "
                 "the rule is dom h ⊇ dom ψ (use ψ = simplex with radius 1)")


def uniform_weights(M: int) -> Array:
    """p_m = 1/M (the FCO default)."""
    return np.full(M, 1.0 / M)


def sample_weights(n: Array) -> Array:
    """p_m = n_m / n (FO16 eq. 8)."""
    n = np.asarray(n, dtype=float)
    return n / n.sum()
