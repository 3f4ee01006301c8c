"""The compiled K-step pass is the numpy client-major trajectory bit for bit, applies exactly where it
is exact, and the comparison fails on a stale threshold, a dropped ridge term or a wrong map."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

import fcocheck.solvers.algorithms.primitives as prim
from fcocheck.solvers.algorithms import fused_steps as fs
from fcocheck.solvers.algorithms.base import eta_tilde
from fcocheck.solvers.engine.run import prepare
from fcocheck.solvers.generators import generate
from fcocheck.solvers.kernels import Kernel
from fcocheck.solvers.mirror_maps import Euclidean, FreeTailMirror, PNorm
from fcocheck.solvers.regularizers import L1, FreeTail, L2Squared, Zero


def base(**kw):
    return generate("lasso-paper", clients=kw.pop("clients", 37), samples=kw.pop("samples", 6), d=9, nnz=3,
                    seed=kw.pop("seed", 3))


def variants():
    p = base()
    return {
        "lasso+intercept": p,
        "lasso, no intercept": replace(p, intercept=False),
        "psi = 0": replace(p, regularizer=Zero()),
        "ridge": replace(p, loss="ridge", ridge_lam=0.3),
        "n = 1": base(samples=1, seed=5),
    }


def setup(p, oracle="exact", strategy="auto"):
    s = prepare("feddualavg", p, {"eta_c": 0.05, "local_steps": 4}, 2, oracle, None, "round", False, None,
                strategy)
    return s.env


def numpy_trajectory(env, kern, z, K, eta, ts, proximal=True):
    """The numpy client-major schedule with the engine's own composite map (``dual_local``'s callbacks)."""
    h = env.problem.h

    def query(Z, k):
        return env.composite(Z, ts[k]) if proximal else h.grad_conj(Z)

    def advance(Z, G):
        Z -= eta * G
        return Z

    return prim.run_client_major(env, kern, np.random.default_rng(0), z, K, query, advance)


def weights(r, K, eta=0.05):
    return np.array([eta_tilde(1.0, eta, r, K, k) for k in range(K)])


def start(p, seed=0, scale=0.3):
    return np.random.default_rng(seed).standard_normal(p.dim) * scale


@pytest.mark.parametrize("name", sorted(variants()))
@pytest.mark.parametrize(("r", "K"), [(0, 1), (0, 4), (3, 5)])
@pytest.mark.parametrize("strategy", ["batched", "loop"])
def test_the_compiled_pass_is_the_numpy_trajectory_bit_for_bit(name, r, K, strategy):
    p = variants()[name]
    env = setup(p, strategy=strategy)
    kern = env.kernel
    assert kern.strategy == strategy
    spec = fs.map_spec(p.h, p.psi, p.dim)
    assert spec is not None and fs.plan(env, kern, spec)
    z, ts = start(p), weights(r, K)
    got = fs.dual_trajectory(kern, z, K, 0.05, spec, ts)
    want = numpy_trajectory(env, kern, z, K, 0.05, ts)
    assert np.array_equal(got, want)
    assert got.shape == (K, p.M, p.dim) and not np.array_equal(got[-1], np.broadcast_to(z, got[-1].shape))


@pytest.mark.parametrize("strategy", ["batched", "loop"])
def test_the_identity_map_of_osp_clients_and_a_client_subset(strategy):
    p = base()
    env = setup(p, strategy=strategy)
    kern = env.kernel.subset(np.array([0, 5, 6, 30]))
    spec = fs.conj_spec(p.h, p.dim)
    z, ts = start(p), np.zeros(3)
    assert np.array_equal(fs.dual_trajectory(kern, z, 3, 0.05, spec, ts),
                          numpy_trajectory(env, kern, z, 3, 0.05, ts, proximal=False))


@pytest.mark.parametrize("strategy", ["batched", "loop"])
def test_a_diverging_round_gives_the_same_infinities_and_nans(strategy):
    p = base()
    env = setup(p, strategy=strategy)
    spec = fs.map_spec(p.h, p.psi, p.dim)
    z, ts = start(p, scale=1e150), weights(2, 4, eta=1e150)
    with np.errstate(all="ignore"):  # as the engine runs rounds
        got = fs.dual_trajectory(env.kernel, z, 4, 1e150, spec, ts)
        want = numpy_trajectory(env, env.kernel, z, 4, 1e150, ts)
    assert not np.isfinite(got).all() and np.array_equal(got, want, equal_nan=True)


def test_a_loop_strategy_client_served_another_clients_rows_is_seen():
    """Power (loop strategy): the pass reads the pooled rows by offset; shifted offsets change the bits."""
    p = base()
    env = setup(p, strategy="loop")
    spec = fs.map_spec(p.h, p.psi, p.dim)
    z, ts = start(p), weights(1, 3)
    rows, y, offsets, clients = env.kernel.pooled_squares()
    traj = np.empty((3, p.M, p.dim))
    args = (z, ts * spec.lam, ts != 0, spec.kind, spec.head, 0.05, 0.0, True, False, traj, 0, p.M)
    fs._block_pooled(rows, y, offsets, clients, *args)
    want = numpy_trajectory(env, env.kernel, z, 3, 0.05, ts)
    assert np.array_equal(traj, want)
    fs._block_pooled(rows, y, offsets, np.roll(clients, 1), *args)
    assert not np.array_equal(traj, want)


def test_a_stale_threshold_is_seen():
    """Power: the map of step k with step k − 1's weight (an off-by-one in η̃) changes the bits."""
    p = base()
    env = setup(p)
    spec = fs.map_spec(p.h, p.psi, p.dim)
    z, ts = start(p), weights(3, 4)
    want = numpy_trajectory(env, env.kernel, z, 4, 0.05, ts)
    assert not np.array_equal(fs.dual_trajectory(env.kernel, z, 4, 0.05, spec, np.roll(ts, 1)), want)


def test_a_dropped_ridge_term_is_seen():
    """Power: the compiled block without λ_ridge w differs from the engine's ridge gradient."""
    p = variants()["ridge"]
    env = setup(p)
    spec = fs.map_spec(p.h, p.psi, p.dim)
    z, ts = start(p), weights(1, 3)
    X, Y = env.kernel.dense_squares()
    traj = np.empty((3, p.M, p.dim))
    fs._block(X, Y, z, ts * spec.lam, ts != 0, spec.kind, spec.head, 0.05, 0.0, True, False, traj, 0, p.M)
    want = numpy_trajectory(env, env.kernel, z, 3, 0.05, ts)
    assert not np.array_equal(traj, want)
    fs._block(X, Y, z, ts * spec.lam, ts != 0, spec.kind, spec.head, 0.05, 0.3, True, False, traj, 0, p.M)
    assert np.array_equal(traj, want)


def test_a_wrong_map_is_seen():
    """Power: the identity where the engine soft-thresholds (or λ of another ψ) changes the bits."""
    p = base()
    env = setup(p)
    z, ts = start(p), weights(3, 4)
    want = numpy_trajectory(env, env.kernel, z, 4, 0.05, ts)
    spec = fs.map_spec(p.h, p.psi, p.dim)
    wrongs = (spec._replace(kind=fs.IDENTITY), spec._replace(lam=spec.lam * 1.5), spec._replace(head=p.dim))
    for wrong in wrongs:
        assert not np.array_equal(fs.dual_trajectory(env.kernel, z, 4, 0.05, wrong, ts), want)
    assert np.array_equal(fs.dual_trajectory(env.kernel, z, 4, 0.05, spec, ts), want)


@pytest.mark.parametrize("strategy", ["batched", "loop"])
def test_nan_and_signed_zeros_pass_the_soft_threshold_as_in_numpy(strategy):
    p = base()
    env = setup(p, strategy=strategy)
    spec = fs.map_spec(p.h, p.psi, p.dim)
    z = start(p)
    z[:4] = [np.nan, -0.0, 0.0, spec.lam * 0.5]  # NaN, ±0 and |z| = t·λ at t = 0.5
    ts = np.array([0.0, 0.5])
    assert np.array_equal(fs.dual_trajectory(env.kernel, z, 2, 0.05, spec, ts),
                          numpy_trajectory(env, env.kernel, z, 2, 0.05, ts), equal_nan=True)


def test_map_specs_exist_exactly_for_the_closed_forms_written_here():
    d = 5
    assert fs.map_spec(Euclidean(), L1(0.2), d) == fs.MapSpec(fs.SOFT, 0.2, d)
    free = FreeTailMirror(Euclidean(), 1)
    assert fs.map_spec(free, FreeTail(L1(0.2), 1), d) == fs.MapSpec(fs.SOFT, 0.2, d - 1)
    assert fs.map_spec(Euclidean(), Zero(), d) == fs.MapSpec(fs.IDENTITY, 0.0, d)
    assert fs.map_spec(FreeTailMirror(Euclidean(), 1), FreeTail(Zero(), 1), d).kind == fs.IDENTITY
    assert fs.map_spec(Euclidean(), L2Squared(0.2), d) is None
    assert fs.map_spec(PNorm(p=1.5), L1(0.2), d) is None
    assert fs.map_spec(FreeTailMirror(Euclidean(), 1), L1(0.2), d) is None  # the tail must be free for ψ too
    assert fs.map_spec(FreeTailMirror(Euclidean(), 1), FreeTail(L1(0.2), 2), d) is None
    assert fs.conj_spec(PNorm(p=1.5), d) is None and fs.conj_spec(Euclidean(), d).kind == fs.IDENTITY

    class Doubled(Euclidean):  # a subclass may define another ∇h*: only the exact types are compiled
        def grad_conj(self, z):
            return 2.0 * np.asarray(z)

    assert fs.map_spec(Doubled(), L1(0.2), d) is None and fs.conj_spec(Doubled(), d) is None
    assert fs.map_spec(FreeTailMirror(Doubled(), 1), FreeTail(L1(0.2), 1), d) is None


def test_the_pass_is_planned_only_where_it_is_exact():
    p = base()
    spec = fs.map_spec(p.h, p.psi, p.dim)
    assert fs.plan(setup(p), setup(p).kernel, spec)
    assert not fs.plan(setup(p), setup(p).kernel, None)
    assert not fs.plan(setup(p, "gaussian:0"), setup(p).kernel, spec)  # σ = 0 still adds (zero) noise
    assert fs.plan(setup(p), Kernel(p, "loop"), spec)  # squares_kernel's per-client BLAS products
    sparse = generate("bag-of-words", seed=0, clients=6, d=20, mean_size=5, min_size=2, max_size=9, words=3)
    assert sparse.is_sparse and not fs.plan(setup(sparse), setup(sparse).kernel, spec)
    logistic = replace(p, loss="logistic", y=[np.where(y > 0, 1.0, -1.0) for y in p.y])
    assert not fs.plan(setup(logistic), setup(logistic).kernel, spec)


def test_weights_of_the_wrong_length_are_refused():
    p = base()
    env = setup(p)
    with pytest.raises(ValueError, match="one weight per local step"):
        fs.dual_trajectory(env.kernel, start(p), 4, 0.05, fs.map_spec(p.h, p.psi, p.dim), np.zeros(3))


def test_ragged_clients_take_the_pooled_pass_with_the_loop_strategys_bits():
    """Unequal client sizes (no stacked array): the loop strategy's pooled rows, by offset."""
    p = base()
    sizes = [1 + m % 6 for m in range(p.M)]
    q = replace(p, X=tuple(X[:k] for X, k in zip(p.X, sizes, strict=True)),
                y=tuple(y[:k] for y, k in zip(p.y, sizes, strict=True)))
    env = setup(q)
    assert q.stacked is None and env.kernel.strategy == "loop" and env.kernel.pooled_squares() is not None
    spec = fs.map_spec(q.h, q.psi, q.dim)
    z, ts = start(q), weights(2, 4)
    assert np.array_equal(fs.dual_trajectory(env.kernel, z, 4, 0.05, spec, ts),
                          numpy_trajectory(env, env.kernel, z, 4, 0.05, ts))


def numpy_primal(env, kern, w, K, eta, kind):
    """The numpy client-major schedule with the primal algorithms' own client steps."""
    h = env.problem.h
    steps = {"fedavg": lambda W, G: W - eta * G,
             "fedmid": lambda W, G: env.composite(h.grad(W) - eta * G, eta),
             "fedmid-osp": lambda W, G: h.grad_conj(h.grad(W) - eta * G)}
    return prim.run_client_major(env, kern, np.random.default_rng(0), w, K, lambda W, k: W, steps[kind])


@pytest.mark.parametrize("name", sorted(variants()))
@pytest.mark.parametrize("kind", ["fedavg", "fedmid", "fedmid-osp"])
@pytest.mark.parametrize("strategy", ["batched", "loop"])
def test_the_primal_pass_is_the_numpy_trajectory_bit_for_bit(name, kind, strategy):
    p = variants()[name]
    env = setup(p, strategy=strategy)
    spec = {"fedavg": fs.MapSpec(fs.IDENTITY, 0.0, p.dim), "fedmid": fs.map_spec(p.h, p.psi, p.dim),
            "fedmid-osp": fs.conj_spec(p.h, p.dim)}[kind]
    w = start(p)
    got = fs.primal_trajectory(env.kernel, w, 4, 0.05, spec)
    assert np.array_equal(got, numpy_primal(env, env.kernel, w, 4, 0.05, kind))
    assert not np.array_equal(got[-1], np.broadcast_to(w, got[-1].shape))


def test_the_primal_pass_sees_a_wrong_prox_weight_or_the_dual_update():
    """Power: the prox at weight λ instead of η_c·λ, or the dual family's update, changes the bits."""
    p = base()
    env = setup(p)
    spec = fs.map_spec(p.h, p.psi, p.dim)
    w = start(p)
    want = numpy_primal(env, env.kernel, w, 4, 0.05, "fedmid")
    assert np.array_equal(fs.primal_trajectory(env.kernel, w, 4, 0.05, spec), want)
    assert not np.array_equal(fs._trajectory(env.kernel, w, 4, 0.05, spec, np.ones(4), primal=True), want)
    assert not np.array_equal(fs._trajectory(env.kernel, w, 4, 0.05, spec, np.full(4, 0.05), primal=False),
                              want)
