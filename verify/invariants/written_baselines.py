"""FedDR, DANE and FSVRG written out from their definitions, against the registry's iterates.

The FCO family (the method cards) gets its references from the cards (``verify.invariants.cards``);
these are the baselines whose hyper-parameters no other check exercised away from their defaults
(FedDR's α, DANE's η, FSVRG's S_k and A).
Least squares F_m(w) = (1/(2n_m))‖X_m w − y_m‖², H_m = X_mᵀX_m/n_m, b_m = X_mᵀy_m/n_m, every client
every round, exact local solves by ``numpy.linalg.solve``:

* FedDR (docs/baselines.md, Tran-Dinh et al. 2021 Alg. 1), any α ∈ (0, 2) and ψ:
  prox_{ηf_m}(y) = (H_m + I/η)⁻¹(b_m + y/η); y_m ← y_m + α(x̄ − x_m), x_m ← prox_{ηf_m}(y_m),
  x̂_m ← 2x_m − y_m, x̃ ← x̃ + Σ p_m Δx̂_m, x̄ = prox_{ηψ}(x̃) (initialised as docs/baselines.md says);
* DANE (FO16 Alg. 2, eq. 10), any η > 0, μ ≥ 0, ψ = λ/2‖w‖² or 0:
  a_m = ∇F_m(w^t) − η∇F(w^t), w_m = (H_m + (μ + λ)I)⁻¹(b_m + a_m + μw^t), w^{t+1} = Σ p_m w_m;
* FSVRG (FO16 Alg. 4, §3.6.1) on instances where the scalings act — features disjoint across
  clients, or a random sparsity pattern — with unequal client sizes and p_m = n_m/n:
  n^j rows hold feature j (x_ij ≠ 0), φ^j = n^j/n, φ^j_m = n^j_m/n_m, S_m = Diag(φ^j/φ^j_m),
  ω_j clients hold feature j, A = Diag(M/ω_j) (1 where ω_j = 0); node m, h_m = h/n_m, its rows in
  the order of the run's permutation draw, w_m ← prox_{h_mψ}(w_m − h_m(S_m[∇f_i(w_m) − ∇f_i(w^t)]
  + ∇F(w^t))); w^{t+1} = w^t + A Σ_m p_m(w_m − w^t).  The permutation is the one random choice:
  the reference draws it from the run's oracle stream (``SeedSequence(seed).spawn(3)[2]``, one
  uniform key per row, client by client, each client's rows sorted by key);
* Scaffnew, its composite form and ProxSkip (docs/baselines.md; Mishchenko et al. 2022 Alg. 1–2):
  x̂_i = x_i − γ(∇F_i(x_i) − h_i); with probability p (one coin θ_t for every client, drawn from the
  run's oracle stream — the exact oracle draws nothing else) x_i⁺ = avg_j p_j(x̂_j − (γ/p)h_j)
  (composite: its prox_{(γ/p)ψ}; ProxSkip: one machine with ∇F = Σ p_m∇F_m), else x_i⁺ = x̂_i;
  h_i⁺ = h_i + (p/γ)(x_i⁺ − x̂_i); h_i⁰ = 0; a round ends at a communication.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
from hypothesis import assume
from hypothesis import strategies as st

from fcocheck.solvers.problem import Problem, sample_weights
from fcocheck.solvers.regularizers import L2Squared
from fcocheck.verify.cases import build, weighted
from fcocheck.verify.evidence import Evidence, bounded
from fcocheck.verify.invariants.base import IDENTITY_TOL, Invariant, guarded, relative
from fcocheck.verify.optimum import optimum
from fcocheck.verify.strategies import Case, instance_specs

ROUNDS = 3


def compare(name: str, got: np.ndarray, ref: np.ndarray, what: str) -> Evidence:
    """``written-NAME``: the registry's server iterates against the written-out ones (relative).

    A registry run that the engine stopped as diverged (‖w‖ beyond its explosion guard) has fewer
    rows than the written-out method, which has no guard: the rounds both have are compared, and
    the detail says so.
    """
    got, ref = np.asarray(got), np.asarray(ref)
    note = ""
    if got.shape[0] < ref.shape[0]:
        note = f"; the registry run stopped (diverged) after {got.shape[0] - 1} rounds: those compared"
        ref = ref[: got.shape[0]]
    resid = relative(got - ref, ref)
    return bounded(
        f"written-{name}",
        resid,
        IDENTITY_TOL,
        f"{name}: max relative difference from the method written out {resid:.2e} "
        f"(rule ≤ {IDENTITY_TOL:g}); {what}{note}",
    )


def _quadratics(p: Problem) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """H_m = X_mᵀX_m/n_m and b_m = X_mᵀy_m/n_m, from the data."""
    H = [X.T @ X / X.shape[0] for X in p.X]
    b = [X.T @ y / X.shape[0] for X, y in zip(p.X, p.y, strict=True)]
    return H, b


def feddr_reference(p: Problem, hp: dict, rounds: int) -> np.ndarray:
    """Server iterates x̄_0..x̄_R of FedDR (module docstring), w0 = 0."""
    H, b = _quadratics(p)
    eta, alpha, eye = hp["eta"], hp["alpha"], np.eye(p.dim)

    def prox_f(m: int, y: np.ndarray) -> np.ndarray:
        return np.linalg.solve(H[m] + eye / eta, b[m] + y / eta)

    Y = [p.zero() for _ in range(p.M)]
    X = [prox_f(m, Y[m]) for m in range(p.M)]
    Xhat = [2 * X[m] - Y[m] for m in range(p.M)]
    xtilde = sum(p.weights[m] * Xhat[m] for m in range(p.M))
    xbar = p.psi.prox(xtilde, eta)
    out = [xbar]
    for _ in range(rounds):
        for m in range(p.M):
            Y[m] = Y[m] + alpha * (xbar - X[m])
            X[m] = prox_f(m, Y[m])
            new = 2 * X[m] - Y[m]
            xtilde = xtilde + p.weights[m] * (new - Xhat[m])
            Xhat[m] = new
        xbar = p.psi.prox(xtilde, eta)
        out.append(xbar)
    return np.array(out)


def dane_reference(p: Problem, hp: dict, rounds: int) -> np.ndarray:
    """Server iterates of DANE with exact local solves (module docstring), w0 = 0."""
    H, b = _quadratics(p)
    lam = p.regularizer.lam if isinstance(p.regularizer, L2Squared) else 0.0
    eta, mu, eye = hp["eta"], hp["mu"], np.eye(p.dim)
    w = p.zero()
    out = [w]
    for _ in range(rounds):
        grads = [H[m] @ w - b[m] for m in range(p.M)]
        g = sum(p.weights[m] * grads[m] for m in range(p.M))
        local = [np.linalg.solve(H[m] + (mu + lam) * eye, b[m] + grads[m] - eta * g + mu * w)
                 for m in range(p.M)]
        w = sum(p.weights[m] * local[m] for m in range(p.M))
        out.append(w)
    return np.array(out)


def _scalings(p: Problem) -> tuple[list[np.ndarray], np.ndarray]:
    """S_m's diagonals and A's diagonal from their definitions (FO16 §3.6.1)."""
    occurs = [X != 0 for X in p.X]
    n = sum(X.shape[0] for X in p.X)
    n_j = sum(o.sum(axis=0) for o in occurs)
    S = []
    for o in occurs:
        n_jm = o.sum(axis=0)
        with np.errstate(divide="ignore", invalid="ignore"):
            S.append(np.where(n_jm > 0, (n_j / n) / (n_jm / o.shape[0]), 1.0))
    omega = sum((o.sum(axis=0) > 0).astype(float) for o in occurs)
    A = np.where(omega > 0, p.M / np.maximum(omega, 1.0), 1.0)
    return S, A


def fsvrg_reference(p: Problem, hp: dict, rounds: int, seed: int) -> np.ndarray:
    """Server iterates of FSVRG (module docstring), w0 = 0, permutations from the run's stream."""
    rng = np.random.default_rng(np.random.SeedSequence(seed).spawn(3)[2])
    S, A = _scalings(p)
    H, b = _quadratics(p)
    w = p.zero()
    out = [w]
    for _ in range(rounds):
        g = sum(p.weights[m] * (H[m] @ w - b[m]) for m in range(p.M))
        n_all = sum(X.shape[0] for X in p.X)
        shift = 63 - max(1, (p.M - 1).bit_length())  # the run's keys: client high, uniform u low
        keys = rng.integers(0, 1 << shift, n_all, dtype=np.int64)
        start, delta = 0, np.zeros_like(w)
        for m, (X, y) in enumerate(zip(p.X, p.y, strict=True)):
            n_m = X.shape[0]
            order = np.argsort(keys[start : start + n_m], kind="stable")
            start += n_m
            h_m, wm = hp["h"] / n_m, w.copy()
            for i in order:
                x = X[i]
                diff = x * (x @ wm - y[i]) - x * (x @ w - y[i])
                wm = p.psi.prox(wm - h_m * (S[m] * diff + g), h_m)
            delta += p.weights[m] * (wm - w)
        w = w + A * delta
        out.append(w)
    return np.array(out)


def skip_reference(name: str, p: Problem, hp: dict, rounds: int, seed: int) -> np.ndarray:
    """Server iterates of Scaffnew / Scaffnew-composite / ProxSkip (module docstring), w0 = 0."""
    rng = np.random.default_rng(np.random.SeedSequence(seed).spawn(3)[2])
    H, b = _quadratics(p)
    gamma, prob = hp["gamma"], hp["p"]
    t = gamma / prob
    M = 1 if name == "proxskip" else p.M

    def grad(m: int, x: np.ndarray) -> np.ndarray:
        if name == "proxskip":
            return sum(p.weights[j] * (H[j] @ x - b[j]) for j in range(p.M))
        return H[m] @ x - b[m]

    X = [p.zero() for _ in range(M)]
    C = [np.zeros(p.dim) for _ in range(M)]
    out = [p.zero()]
    for _ in range(rounds):
        while True:
            Xhat = [X[m] - gamma * (grad(m, X[m]) - C[m]) for m in range(M)]
            if rng.random() < prob:
                if name == "proxskip":
                    xbar = p.psi.prox(Xhat[0] - t * C[0], t)
                else:
                    xbar = sum(p.weights[m] * (Xhat[m] - t * C[m]) for m in range(M))
                    xbar = p.psi.prox(xbar, t) if name == "scaffnew-composite" else xbar
                C = [C[m] + (xbar - Xhat[m]) / t for m in range(M)]
                X = [xbar.copy() for _ in range(M)]
                break
            X = Xhat
        out.append(xbar)
    return np.array(out)


@st.composite
def skip_cases(draw, name: str) -> Case:
    """γ ∈ {¼, ½, 1/10}/L, p ∈ {½, 1, ⅕}; any ψ (Scaffnew: ψ = 0), seeds 0–100."""
    kinds = ("zero",) if name == "scaffnew" else ("l1", "zero", "l2sq")
    spec = draw(instance_specs("general", kinds))
    L = optimum(spec).L_max
    hp = {"gamma": draw(st.sampled_from([0.25, 0.5, 0.1])) / L, "p": draw(st.sampled_from([0.5, 1.0, 0.2]))}
    return Case(spec, hp, seed=draw(st.integers(0, 100)))


@st.composite
def feddr_cases(draw) -> Case:
    """Any ψ, η ∈ {1, ½, 2}/L, α ∈ {1.5, ½, 1} (α ≠ 1 first: the default is checked elsewhere)."""
    spec = draw(instance_specs("general", ("l1", "zero", "l2sq")))
    L = optimum(spec).L_max
    hp = {
        "eta": draw(st.sampled_from([1.0, 0.5, 2.0])) / L,
        "alpha": draw(st.sampled_from([1.5, 0.5, 1.0])),
        "local_solver": "exact",
    }
    return Case(spec, hp)


@st.composite
def dane_cases(draw) -> Case:
    """ψ ∈ {0, l2sq}, η ∈ {½, 1.5, 1}, μ ∈ {0, 0.1L, L}; local systems conditioned to κ ≤ 10³.

    The written-out DANE solves each local system by hand; two exact solves of a system of
    condition κ agree to about κ·ε, so ``IDENTITY_TOL`` (1e-11) is a fair rule only for κ ≤ 10³
    (a drawn κ = 5.6·10⁴ gave 2.0e-11 between two correct solves).
    """
    spec = draw(instance_specs("general", ("l2sq", "zero"), min_clients=2))
    L = optimum(spec).L_max
    hp = {
        "eta": draw(st.sampled_from([0.5, 1.5, 1.0])),
        "mu": draw(st.sampled_from([0.0, 0.1, 1.0])) * L,
        "local_solver": "exact",
    }
    p = build(spec)
    H, _ = _quadratics(p)
    shift = hp["mu"] + (spec.lam if spec.psi == "l2sq" else 0.0)
    assume(all(np.linalg.eigvalsh(h)[0] + shift > 1e-3 * L for h in H))
    return Case(spec, hp)


@dataclasses.dataclass(frozen=True)
class SparseCase:
    """A case and the density of the sparsity pattern applied to its data (1 = none)."""

    case: Case
    density: float

    def describe(self) -> str:
        """The case, and the pattern."""
        return f"{self.case.describe()}; density {self.density:g}"

    def record(self) -> dict:
        """JSON-ready form."""
        return {**self.case.record(), "density": self.density}


@st.composite
def fsvrg_cases(draw) -> SparseCase:
    """Disjoint features (A = M, S_m = n_m/n) or a sparsity pattern of density 0.3–0.8; any ψ."""
    layout = draw(st.sampled_from(["disjoint", "general"]))
    spec = draw(instance_specs(layout, ("l1", "zero", "l2sq"), min_clients=2))
    density = 1.0 if layout == "disjoint" else draw(st.sampled_from([0.5, 0.3, 0.8]))
    L_sample = max(float(np.max(np.sum(X**2, axis=1), initial=0.0)) for X in build(spec).X)
    hp = {"h": draw(st.sampled_from([0.5, 0.25, 1.0])) / max(L_sample, 1e-12)}
    return SparseCase(Case(spec, hp, seed=draw(st.integers(0, 100))), density)


def fsvrg_problem(case: Case, density: float) -> Problem:
    """The case's instance with unequal client sizes (p_m = n_m/n) and its sparsity pattern."""
    p = weighted(build(case.spec))
    if density >= 1.0:
        return p
    rng = np.random.default_rng(case.spec.data_seed + 1)
    X = tuple(x * (rng.random(x.shape) < density) for x in p.X)
    return dataclasses.replace(p, X=X, weights=sample_weights(p.n))


def _server(alg: Any, p: Problem, hp: dict, seed: int = 0) -> np.ndarray:
    from fcocheck.solvers.engine import run

    t = run(alg, p, hp, rounds=ROUNDS, oracle="exact", seed=seed, reference=False)
    return t["server_w"]


def feddr_residual(case: Case, alg: Any = "feddr") -> Evidence:
    """FedDR's (or ``alg``'s) iterates against ``feddr_reference``."""
    p = build(case.spec)
    return compare("feddr", _server(alg, p, case.hp), feddr_reference(p, case.hp, ROUNDS),
                    case.describe())


def dane_residual(case: Case, alg: Any = "dane") -> Evidence:
    """DANE's (or ``alg``'s) iterates against ``dane_reference``."""
    p = build(case.spec)
    return compare("dane", _server(alg, p, case.hp), dane_reference(p, case.hp, ROUNDS), case.describe())


def fsvrg_residual(drawn: SparseCase, alg: Any = "fsvrg") -> Evidence:
    """FSVRG's iterates against ``fsvrg_reference`` on the scaled instance."""
    case, density = drawn.case, drawn.density
    p = fsvrg_problem(case, density)
    S, A = _scalings(p)
    what = (f"sizes {p.n.tolist()}, density {density:g}, A = {np.round(A, 3).tolist()}, "
            f"S range [{min(s.min() for s in S):.3g}, {max(s.max() for s in S):.3g}]; {drawn.describe()}")
    got = _server(alg, p, case.hp, case.seed)
    return compare("fsvrg", got, fsvrg_reference(p, case.hp, ROUNDS, case.seed), what)


def skip_residual(name: str, case: Case, alg: Any = None) -> Evidence:
    """Scaffnew's (or ProxSkip's, or ``alg``'s) iterates against ``skip_reference``."""
    p = build(case.spec)
    got = _server(alg or name, p, case.hp, case.seed)
    return compare(name, got, skip_reference(name, p, case.hp, ROUNDS, case.seed), case.describe())


INVARIANTS = (
    Invariant("written-feddr", "docs/baselines.md (FedDR); Tran-Dinh et al. 2021 Alg. 1",
              "FedDR's iterates equal the method written out client by client, at any α ∈ (0, 2) and ψ",
              ("feddr",), "holds", feddr_cases, guarded("written-feddr", feddr_residual)),
    Invariant("written-dane", "FO16 Alg. 2, eq. (10)",
              "DANE's iterates equal eq. (10) solved by hand, at any η > 0 and μ ≥ 0",
              ("dane",), "holds", dane_cases, guarded("written-dane", dane_residual)),
    Invariant("written-fsvrg", "FO16 Alg. 4, §3.6.1",
              "FSVRG's iterates equal Alg. 4 written out with S_k and A from their definitions "
              "(disjoint features and sparse patterns, p_k = n_k/n)",
              ("fsvrg",), "holds", fsvrg_cases, guarded("written-fsvrg", fsvrg_residual)),
    *(
        Invariant(f"written-{name}", "docs/baselines.md (ProxSkip and Scaffnew); Mishchenko et al. 2022",
                  f"{name}'s iterates equal the method written out, coin by coin from the run's stream",
                  (name,), "holds", lambda n=name: skip_cases(n),
                  guarded(f"written-{name}", lambda c, n=name: skip_residual(n, c)))
        for name in ("scaffnew", "scaffnew-composite", "proxskip")
    ),
)
