"""Small named pieces every federated algorithm is composed of.

* ``client_weights`` — the aggregation weights p̃ over the sampled clients S_r;
* ``discrepancy``   — Σ_m p̃_m ‖z̄ − z^m‖²_* with z̄ = Σ_m p̃_m z^m (Lemma 4.4–4.5);
* ``primal_local``  — K local steps of a primal client map (FedAvg, FedMiD and their variants);
* ``dual_local``    — K local steps in the dual (FedDualAvg and its OSP variant), with the
  primal images of the dual shadow that make up ŵ (eq. 4.2).

Every loop runs over local steps only; the client axis is vectorised.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from fcocheck.solvers.algorithms import fused_steps
from fcocheck.solvers.algorithms.base import Counts, DualServerState, Env, FedHyper, RoundLog, ServerState
from fcocheck.solvers.algorithms.fused_steps import MapSpec
from fcocheck.solvers.kernels import BLOCK, Kernel, over_blocks
from fcocheck.solvers.metrics import nonzero_fraction
from fcocheck.solvers.mirror_maps import MirrorMap
from fcocheck.solvers.problem import Problem

Array = np.ndarray
ClientStep = Callable[[Array, Array], Array]


def client_weights(problem: Problem, clients: Array) -> Array:
    """p̃_m = p_m / Σ_{j∈S} p_j over the sampled clients.

    With the FCO default p_m = 1/M this is exactly 1/|S_r| (Alg. 1–3 line 9); with sample
    weights p_m = n_m/n it keeps full-participation rounds unbiased for F = Σ p_m F_m.
    """
    if problem.weighting == "uniform":
        return np.full(len(clients), 1.0 / len(clients))
    p = problem.weights[clients]
    return p / p.sum()


def discrepancy(h: MirrorMap, weights: Array, Z: Array) -> float:
    """Σ_m p̃_m ‖z̄ − z^m‖²_*, z̄ = Σ_m p̃_m z^m, in h's dual norm (Lemma 4.4 overhead)."""
    return float(discrepancies(h, weights, [Z])[0])


def discrepancies(h: MirrorMap, weights: Array, Zs: Sequence[Array],
                  zbars: Sequence[Array] | None = None) -> Array:
    """``discrepancy(h, weights, Z)`` for each Z of ``Zs``, the row norms on the kernel's thread pool.

    Each block of rows gets the same per-row operations as the whole array, so the values do not
    depend on the number of blocks (one client-major round computes all K − 1 at once; tested).
    ``zbars``: the averages weights @ Z when the caller has them already.
    """
    zbars = [weights @ Z for Z in Zs] if zbars is None else zbars
    norms = np.empty((len(Zs), len(weights)))

    def block(s: slice) -> None:
        for i, (zbar, Z) in enumerate(zip(zbars, Zs, strict=True)):
            norms[i, s] = h.dual_norm(zbar[None, :] - Z[s])

    over_blocks(block, len(weights))
    return np.array([float(weights @ n ** 2) for n in norms])


class LocalRun(NamedTuple):
    """Result of K local steps on the sampled clients.

    Attributes:
        final: the clients' last states (primal w^m_{r,K} or dual z^m_{r,K}), ``(|S|, dim)``.
        discrepancy: ``(K,)`` discrepancy at the points where gradients were queried.
        avg_terms: Σ_{k=1..K} of the primal images of the dual shadow (dual family), else None.
        steps: per-step arrays when recording steps, else empty.

    """

    final: Array
    discrepancy: Array
    avg_terms: Array | None
    steps: dict[str, Array]


#: Largest client-major trajectory (K × |S| × dim floats) kept for the round's reductions.
TRAJECTORY_BYTES = 512 * 2**20


def _fits(env: Env, kern: Kernel, K: int) -> bool:
    """Whether the round's trajectory (K × |S| × dim floats) is within ``TRAJECTORY_BYTES``."""
    return K * kern.size * env.problem.dim * 8 <= TRAJECTORY_BYTES


def client_major(env: Env, kern: Kernel, K: int) -> bool:
    """Whether a round's K local steps run client block by client block (``run_client_major``).

    The steps of different clients are independent within a round, so each block of ``BLOCK``
    clients can take all K steps while its data are in cache, the blocks in parallel on the kernel's
    thread pool; the cross-client quantities (discrepancy, dual shadow) are then computed from the
    stored trajectory by the same calls on the same arrays as the step-by-step schedule, which is
    therefore reproduced bit for bit (tested).  Used when that pays and is exact: a batched kernel
    over more than one block, a deterministic oracle (a stochastic one draws in call order), no
    per-step recording, and a trajectory within ``TRAJECTORY_BYTES``.  Client maps must act row by
    row — a client's next state depends on its own row only — as every caller's do.
    """
    return (K > 1 and not env.record_steps and env.oracle.deterministic and kern.strategy == "batched"
            and kern.size > BLOCK and _fits(env, kern, K))


def fused(env: Env, kern: Kernel, K: int, compiled: tuple[MapSpec | None, Any] | None) -> bool:
    """Whether a round's K local steps run in one compiled pass (``fused_steps``' trajectories).

    The client-major schedule's conditions except the block count — the compiled pass keeps each
    client's rows in L1 for its K steps, which pays from one block on (measured: 64 clients × 20 ×
    50, 10 rounds of K = 10 in 8.5 ms against 13.4 ms step by step) — plus those of
    ``fused_steps.plan`` (a known client map, the exact oracle, dense squares-type clients).
    """
    return (compiled is not None and not env.record_steps and fused_steps.plan(env, kern, compiled[0])
            and _fits(env, kern, K))


def run_client_major(env: Env, kern: Kernel, rng: np.random.Generator, x: Array, K: int,
                     query: Callable[[Array, int], Array], advance: Callable[[Array, Array], Array]) -> Array:
    """The trajectory (K, |S|, dim) of K local steps from x on every client, block by block.

    At step k a block's gradient is queried at ``query(X_b, k)`` and its state moves to
    ``advance(X_b, G_b)``.  Entry k of the result is the state after k + 1 steps.
    """
    traj = np.empty((K, kern.size, x.shape[0]))

    def block(s: slice) -> None:
        kb = kern.block(s)
        X = np.repeat(x[None, :], s.stop - s.start, axis=0)
        for k in range(K):
            G = env.oracle.grads(kb, query(X, k), rng)
            X = advance(X, G)
            traj[k, s] = X

    over_blocks(block, kern.size)
    return traj


def primal_local(env: Env, kern: Kernel, rng: np.random.Generator, w: Array, weights: Array,
                 K: int, step: ClientStep, compiled: tuple[MapSpec | None, float] | None = None) -> LocalRun:
    """K steps w^m_{k+1} = step(w^m_k, g^m_k) from w^m_0 = w on every sampled client.

    The dual image z^m_k = ∇h(w^m_k) is what the discrepancy and the logged dual shadow use,
    so the dual-shadow identity (eq. 4.5) can be tested on FedMiD as on FedDualAvg.
    ``compiled``: (map, η_c) when ``step`` is w ↦ map(w − η_c g) (``fused_steps.primal_trajectory``);
    the K steps then run in one compiled pass when ``fused`` allows, with the same bits.
    """
    h = env.problem.h
    disc = np.zeros(K)
    compiled_pass = fused(env, kern, K, compiled)
    if compiled_pass or client_major(env, kern, K):
        if compiled_pass:
            traj = fused_steps.primal_trajectory(kern, w, K, compiled[1], compiled[0])
        else:
            traj = run_client_major(env, kern, rng, w, K, lambda W, k: W, step)
        disc[1:] = discrepancies(h, weights, [h.grad(traj[k]) for k in range(K - 1)])
        return LocalRun(traj[K - 1], disc, None, {})
    W = np.repeat(w[None, :], kern.size, axis=0)
    shadow, gavg = [], []
    for k in range(K):
        G = env.oracle.grads(kern, W, rng)
        if k > 0 or env.record_steps:
            Z = h.grad(W)
            disc[k] = discrepancy(h, weights, Z) if k > 0 else 0.0
            if env.record_steps:
                shadow.append(weights @ Z)
                gavg.append(weights @ G)
        W = step(W, G)
    steps = {}
    if env.record_steps:
        shadow.append(weights @ h.grad(W))
        steps = {"dual_shadow": np.array(shadow), "grad_avg": np.array(gavg)}
    return LocalRun(W, disc, None, steps)


def dual_local(env: Env, kern: Kernel, rng: np.random.Generator, z: Array, weights: Array,
               K: int, eta_c: float, client_map: Callable[[Array, int], Array],
               shadow_map: Callable[[Array, int], Array],
               compiled: tuple[MapSpec | None, Array] | None = None) -> LocalRun:
    """K steps z^m_{k+1} = z^m_k − η_c g(client_map(z^m_k, k)) from z^m_0 = z.

    ``shadow_map(z̄, k)`` is the primal image of the dual shadow z̄_{r,k} used by ŵ
    (eq. 4.2: ∇(h + η̃_{r,k}ψ)*(z̄_{r,k}), k = 1..K).  ``compiled``: ``client_map``'s compiled form
    and its weights η̃_k (``fused_steps``), when the caller knows them: the K steps then run in one
    compiled pass when ``fused`` allows, with the step-by-step schedule's bits.
    """
    h = env.problem.h
    disc = np.zeros(K)
    terms = np.zeros_like(z)
    compiled_pass = fused(env, kern, K, compiled)
    if compiled_pass or client_major(env, kern, K):

        def advance(Z: Array, G: Array) -> Array:
            Z -= eta_c * G  # the block's own array (np.repeat in run_client_major)
            return Z

        if compiled_pass:
            traj = fused_steps.dual_trajectory(kern, z, K, eta_c, *compiled)
        else:
            traj = run_client_major(env, kern, rng, z, K, client_map, advance)
        zbars = [weights @ Z for Z in traj]  # the dual shadow z̄_{r,k+1}
        disc[1:] = discrepancies(h, weights, traj[: K - 1], zbars[: K - 1])
        for k in range(K):
            terms = terms + shadow_map(zbars[k], k + 1)
        return LocalRun(traj[K - 1], disc, terms, {})
    Z = np.repeat(z[None, :], kern.size, axis=0)
    shadow, gavg, prim, duals = [z.copy()], [], [], []
    for k in range(K):
        if env.record_steps:
            duals.append(Z.copy())
        W = client_map(Z, k)
        G = env.oracle.grads(kern, W, rng)
        if k > 0:
            disc[k] = discrepancy(h, weights, Z)
        Z -= eta_c * G  # Z is this function's own array (np.repeat above); W is not used again
        zbar = weights @ Z
        image = shadow_map(zbar, k + 1)
        terms = terms + image
        if env.record_steps:
            shadow.append(zbar)
            gavg.append(weights @ G)
            prim.append(image)
    steps = {}
    if env.record_steps:
        steps = {"dual_shadow": np.array(shadow), "grad_avg": np.array(gavg),
                 "shadow_primal": np.array(prim), "client_duals": np.array(duals)}
    return LocalRun(Z, disc, terms, steps)


def primal_round(state: ServerState, hp: FedHyper, env: Env, rng: np.random.Generator,
                 clients: Array, step: ClientStep, server: Callable[[Array, Array], Array],
                 prox_client: int, prox_server: int, subgrad: int = 0,
                 compiled: MapSpec | None = None) -> tuple[ServerState, RoundLog]:
    """One round of the primal family: broadcast w_r, K client steps, Δ_r, server step.

    ``compiled``: the map of ``step`` when ``step(W, G)`` is map(W − η_c G) (``primal_local``).

    ``Δ_r = Σ_{m∈S} p̃_m (w^m_{r,K} − w_r)`` (Alg. 1–2 line 9); ``server(w_r, Δ_r)`` gives w_{r+1}.
    ``prox_client``/``prox_server``/``subgrad`` are the per-client-step and per-round counts.
    Extras: ``client_density``, the fraction of non-zero model coordinates in the clients'
    last iterates w^m_{r,K}, and ``average_density``, the same for their primal average
    Σ p̃_m w^m_{r,K} before any server map (the curse of primal averaging, FCO Fig. 2), and
    ``client_support``, per model coordinate the fraction of participating clients whose last
    iterate is non-zero there (a d-vector per round: the sparsity pattern of the clients).
    """
    kern = env.kernel.subset(clients)
    weights = client_weights(env.problem, clients)
    K, S, dim = hp.local_steps, len(clients), env.problem.dim
    local = primal_local(env, kern, rng, state.w, weights, K, step,
                         None if compiled is None else (compiled, hp.eta_c))
    delta = weights @ (local.final - state.w[None, :])
    w_next = server(state.w, delta)
    counts = Counts(grad=S * K, subgrad=subgrad * S * K, prox_client=prox_client * S * K,
                    prox_server=prox_server, floats_up=S * dim, floats_down=S * dim)
    d = env.problem.d
    extra = {"client_density": float(nonzero_fraction(local.final[:, :d])),
             "average_density": float(nonzero_fraction((weights @ local.final)[:d])),
             "client_support": nonzero_fraction(local.final[:, :d], axis=0)}
    log = RoundLog.primal(w_next, counts, discrepancy=local.discrepancy, steps=local.steps, extra=extra)
    return ServerState(w_next, state.r + 1), log


def mean_oracle(env: Env, kern: Kernel, rng: np.random.Generator, W: Array, batch: int) -> Array:
    """Average of ``batch`` independent oracle queries at the same points W (minibatch of b·batch)."""
    G = env.oracle.grads(kern, W, rng)
    for _ in range(batch - 1):
        G = G + env.oracle.grads(kern, W, rng)
    return G / batch if batch > 1 else G


def mirror_step(env: Env, w: Array, g: Array, eta: float, euclidean: bool) -> Array:
    """One (Bregman) proximal gradient step w⁺ = ∇(h + ηψ)*(∇h(w) − ηg) (eqs. 2.1–2.3).

    ``euclidean`` forces h = ½‖·‖², i.e. w⁺ = prox_{ηψ}(w − ηg) (eq. 2.1).
    """
    if euclidean:
        return env.problem.psi.prox(w - eta * g, eta)
    return env.composite(env.problem.h.grad(w) - eta * g, eta)


def init_primal(problem: Problem, hp: object, w0: Array, rng: np.random.Generator) -> ServerState:
    """Primal-family state at round 0: w_0."""
    return ServerState(np.array(w0, dtype=float), 0)


def init_dual(problem: Problem, hp: object, w0: Array, rng: np.random.Generator) -> DualServerState:
    """Dual-averaging state at round 0: z_0 = ∇h(w_0) (FCO Alg. 3 line 2, eq. 2.4)."""
    w0 = np.array(w0, dtype=float)
    return DualServerState(problem.h.grad(w0), w0, 0)
