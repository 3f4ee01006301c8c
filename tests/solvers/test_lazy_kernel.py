"""The compiled lazy SVRG pass (``solvers/algorithms/lazy_kernel.py``) against a lockstep transcription.

The transcription below is the vectorised pass the kernel replaced: step j of every client in one
numpy operation (bincount dot products, gathered/scattered compact columns).  The kernel must give the
same bits for every loss, with and without FSVRG's S_k, for ψ = 0 and ψ = l2sq, on any interleaving of
the clients' sequences; and it must refuse what would make its unchecked loop read out of bounds.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from fcocheck.solvers.algorithms.lazy_kernel import LOSS_CODES, dphi, lazy_steps
from fcocheck.solvers.algorithms.samples import (
    Pass,
    _psi_factor,
    client_columns,
    frequency_scaling,
    full_gradient,
    sample_view,
    sequences,
    svrg_pass,
)
from fcocheck.solvers.generators import generate
from fcocheck.solvers.losses.scalar import _SCALAR, scalar_loss


def lockstep(loss, rows, client, step, A, pos_entry, entry_scale, xg, y, d0, rho, h, c, U, s, beta):
    """Reference: all clients' step j at once (sorted by step, then client), in place on (U, s, β)."""
    phi = scalar_loss(loss)
    order = np.lexsort((client, step))
    steps = step[order]
    bounds = np.concatenate([[0], np.flatnonzero(np.diff(steps)) + 1, [len(order)]])
    rows_o, client_o = rows[order], client[order]
    starts, lens = A.indptr[rows_o], np.diff(A.indptr)[rows_o]
    offs = np.concatenate([[0], np.cumsum(lens)])
    idx = np.repeat(starts - offs[:-1], lens) + np.arange(offs[-1])
    pos_o, val_o = pos_entry[idx], A.data[idx]
    sval_o = val_o if entry_scale is None else val_o * entry_scale[idx]
    rowid_o = np.repeat(np.arange(len(rows_o)), lens)
    for j in range(len(bounds) - 1):
        r0, r1 = bounds[j], bounds[j + 1]
        e0, e1 = offs[r0], offs[r1]
        ck, rr = client_o[r0:r1], rows_o[r0:r1]
        p_e = pos_o[e0:e1]
        Ue = U[p_e]
        dots = np.bincount(rowid_o[e0:e1] - r0, weights=val_o[e0:e1] * Ue, minlength=r1 - r0)
        t = s[ck] * dots + beta[ck] * xg[rr]
        delta = rho[rr] * (phi.dphi(t, y[rr]) - d0[rr])
        coef = h[ck] * delta / s[ck]
        U[p_e] = Ue - np.repeat(coef, lens[r0:r1]) * sval_o[e0:e1]
        s[ck] *= c[ck]
        beta[ck] = c[ck] * (beta[ck] - h[ck])


def _case(loss: str, seed: int, scaled: bool, lam: float):
    """A random CSR design over M clients, a random pass over it, and the pass's inputs."""
    rng = np.random.default_rng(seed)
    M, dim = 7, 40
    n = rng.integers(1, 30, M)
    A = sp.random(int(n.sum()), dim, density=0.15, random_state=seed, format="csr",
                  data_rvs=lambda k: rng.standard_normal(k))
    A.sum_duplicates()
    A.sort_indices()
    owner = np.repeat(np.arange(M), n)
    client_of_entry = owner[np.repeat(np.arange(A.shape[0]), np.diff(A.indptr))]
    _, pos_entry = np.unique(client_of_entry * dim + A.indices, return_inverse=True)
    npos = int(pos_entry.max()) + 1 if len(pos_entry) else 0
    y = rng.standard_normal(A.shape[0])
    if scalar_loss(loss).binary_labels:
        y = np.sign(y)
    starts = np.concatenate([[0], np.cumsum(n)])
    lengths = rng.integers(0, 40, M)
    client = np.repeat(np.arange(M), lengths)
    step = np.concatenate([np.arange(m) for m in lengths])
    rows = starts[client] + (rng.random(len(client)) * n[client]).astype(np.int64)
    h = rng.uniform(0.05, 0.4, M)
    inputs = dict(
        pos_entry=pos_entry.astype(np.int64),
        entry_scale=rng.uniform(0.5, 2.0, A.nnz) if scaled else None,
        xg=rng.standard_normal(A.shape[0]), y=y, d0=rng.standard_normal(A.shape[0]) * 0.1,
        rho=rng.uniform(0.5, 1.5, A.shape[0]), h=h, c=1.0 / (1.0 + h * lam),
    )
    state = (rng.standard_normal(npos), np.ones(M), np.zeros(M))
    return A, (rows, client, step), inputs, state


def _run(fn, loss, A, seq, inputs, state, order=None):
    rows, client, step = seq
    if order is not None:
        rows, client, step = rows[order], client[order], step[order]
    U, s, beta = (a.copy() for a in state)
    if fn is lazy_steps:
        i = inputs
        lazy_steps(loss, rows, client, step, A.indptr, A.data, i["pos_entry"], i["entry_scale"], i["xg"],
                   i["y"], i["d0"], i["rho"], i["h"], i["c"], U, s, beta)
    else:
        fn(loss, rows, client, step, A, **inputs, U=U, s=s, beta=beta)
    return U, s, beta


def _same_bits(a, b):
    for x, y in zip(a, b, strict=True):
        np.testing.assert_array_equal(x.view(np.int64), y.view(np.int64))


@pytest.mark.parametrize("loss", ["squares", "logistic", "sigmoid", "cauchy"])
@pytest.mark.parametrize("scaled", [False, True])
@pytest.mark.parametrize("lam", [0.0, 0.3])
def test_compiled_pass_equals_the_lockstep_pass_bit_for_bit(loss, scaled, lam):
    for seed in range(3):
        A, seq, inputs, state = _case(loss, seed, scaled, lam)
        _same_bits(_run(lazy_steps, loss, A, seq, inputs, state), _run(lockstep, loss, A, seq, inputs, state))


def test_any_interleaving_of_clients_gives_the_same_bits():
    """Lockstep order (by step) and a random stable interleaving both keep each client's step order."""
    A, seq, inputs, state = _case("logistic", 11, True, 0.2)
    ref = _run(lazy_steps, "logistic", A, seq, inputs, state)
    by_step = np.lexsort((seq[1], seq[2]))
    _same_bits(_run(lazy_steps, "logistic", A, seq, inputs, state, by_step), ref)
    shuffled = np.random.default_rng(0).permutation(len(seq[0]))  # steps out of order: sorted back
    _same_bits(_run(lazy_steps, "logistic", A, seq, inputs, state, shuffled), ref)


def test_the_comparison_sees_a_client_taking_its_steps_in_another_order():
    """Power of the bit test: a pass that reverses one client's sequence does not match."""
    A, seq, inputs, state = _case("logistic", 5, True, 0.2)
    rows, client, step = seq
    k = int(np.bincount(client).argmax())
    rev = rows.copy()
    rev[client == k] = rows[client == k][::-1]
    assert not np.array_equal(rows[client == k], rev[client == k])
    a = _run(lazy_steps, "logistic", A, (rev, client, step), inputs, state)
    b = _run(lockstep, "logistic", A, seq, inputs, state)
    assert not np.array_equal(a[0], b[0])
    assert a[1][k] == b[1][k]  # the scalars do not depend on the rows; the compact columns do


@pytest.mark.parametrize("loss", sorted(_SCALAR))
def test_compiled_dphi_equals_the_numpy_loss_bit_for_bit(loss):
    rng = np.random.default_rng(1)
    t = np.concatenate([rng.standard_normal(5000) * 3, rng.standard_normal(500) * 300,
                        [0.0, -0.0, 745.0, -745.0]])
    y = rng.standard_normal(len(t))
    if scalar_loss(loss).binary_labels:
        y = np.sign(y)
    ours, numpy_loss = dphi(loss, t, y), scalar_loss(loss).dphi(t, y)
    np.testing.assert_array_equal(ours.view(np.int64), numpy_loss.view(np.int64))


def test_every_scalar_loss_has_a_compiled_branch():
    assert set(LOSS_CODES) == set(_SCALAR)
    for name, phi in _SCALAR.items():
        assert phi.name in LOSS_CODES, name


def test_a_wrong_branch_would_be_seen():
    """Power: the bit test separates the losses (a loss wired to another's branch fails it)."""
    t, y = np.linspace(-4, 4, 101), np.ones(101)
    for a in ("logistic", "sigmoid", "cauchy"):
        assert not np.array_equal(dphi("squares", t, y), scalar_loss(a).dphi(t, y))


@pytest.mark.parametrize(
    "change, rule",
    [
        (lambda rows, client, step: (rows, client, np.where(step == 3, 4, step)), "steps must be 0, 1"),
        (lambda rows, client, step: (rows, np.where(client == 2, 7, client), step), "clients must lie in"),
        (lambda rows, client, step: (rows, np.where(client == 2, -1, client), step), "clients must lie in"),
        (lambda rows, client, step: (np.where(rows == rows[0], 10**6, rows), client, step), "rows in"),
    ],
)
def test_bad_sequences_are_refused_before_the_unchecked_loop(change, rule):
    A, seq, inputs, state = _case("squares", 2, False, 0.0)
    U, s, beta = (a.copy() for a in state)
    rows, client, step = change(*seq)
    with pytest.raises(ValueError, match=rule):
        lazy_steps("squares", rows, client, step, A.indptr, A.data, inputs["pos_entry"], None, inputs["xg"],
                   inputs["y"], inputs["d0"], inputs["rho"], inputs["h"], inputs["c"], U, s, beta)
    _same_bits((U, s, beta), state)  # nothing was touched


def test_unknown_loss_is_refused():
    A, seq, inputs, state = _case("squares", 2, False, 0.0)
    with pytest.raises(ValueError, match="no compiled"):
        lazy_steps("hinge", *seq, A.indptr, A.data, inputs["pos_entry"], None, inputs["xg"], inputs["y"],
                   inputs["d0"], inputs["rho"], inputs["h"], inputs["c"], *state)


def test_fsvrg_pass_on_a_problem_equals_the_lockstep_pass():
    """End to end through ``svrg_pass``: the same Δ and w_k as the lockstep transcription."""
    p = generate("bag-of-words", clients=9, d=80, words=6, mean_size=30, min_size=5, max_size=90, lam=0.01)
    view = sample_view(p, "test")
    rng = np.random.default_rng(3)
    w = rng.standard_normal(p.dim) * 0.3
    g, d0 = full_gradient(p, view, w)
    s_entry, _ = frequency_scaling(p, view)
    seq = sequences(rng, view, np.arange(p.M), p.n, permutation=True)
    spec = Pass(*seq, 0.7 / p.n, np.ones(view.n), s_entry, p.weights)
    delta, W = svrg_pass(p, view, w, g, d0, spec, lazy=True, keep_points=True)
    _, pos, cols, owner, _ = client_columns(view)
    U, s, beta = w[cols], np.ones(p.M), np.zeros(p.M)
    lockstep(p.phi.name, *seq, view.A, pos, s_entry, view.A @ g, view.y, d0, spec.rho, spec.h,
             _psi_factor(p, spec.h), U, s, beta)
    ref = (s - 1.0)[:, None] * w[None, :] + beta[:, None] * g[None, :] + w[None, :]
    ref[owner, cols] += s[owner] * (U - w[cols])
    np.testing.assert_array_equal(W, ref)
    np.testing.assert_array_equal(delta, svrg_pass(p, view, w, g, d0, spec, lazy=True)[0])
