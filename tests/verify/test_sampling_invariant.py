"""The engine's sampling and batch invariant: it holds on the engine, and fails on each planted bug.

The planted bugs are written here, apart from the engine: a draw with replacement (a client twice in a
round), a biased draw (always the first P clients), a batch that runs every run on the first seed's
streams.  The legal side: P = 1 of 2, P = M − 1, other seeds — unusual, and legal.
"""

from __future__ import annotations

import importlib

import numpy as np
import pytest

from fcocheck.verify.invariants import INVARIANTS, sampling
from fcocheck.verify.invariants.sampling import SamplingCase, sampling_residual


@pytest.mark.parametrize("case", [*sampling.examples(), SamplingCase(8, 7, (123, 9, 77), 5),
                                  SamplingCase(6, 1, (2**31, 1), 3)])
def test_the_engine_s_sampling_and_batches_hold(case):
    e = sampling_residual(case)
    assert e.outcome == "holds", e.detail


def _patch_sampler(monkeypatch, draw):
    for name in ("run", "batch"):  # the package's ``run`` is the function: the modules by their names
        module = importlib.import_module(f"fcocheck.solvers.engine.{name}")
        monkeypatch.setattr(module, "sample_clients", draw)


def test_a_draw_with_replacement_fails(monkeypatch):
    _patch_sampler(monkeypatch, lambda rng, M, P: np.sort(rng.choice(M, size=P, replace=True)))
    e = sampling_residual(SamplingCase(5, 2, (3, 4, 5)))
    assert e.outcome == "fails" and "sample a client twice" in e.detail, e.detail


def test_a_biased_draw_fails_on_the_counts(monkeypatch):
    _patch_sampler(monkeypatch, lambda rng, M, P: np.arange(P))
    e = sampling_residual(SamplingCase(5, 2, (3, 4)))
    assert e.outcome == "fails" and "binomial sd" in e.detail, e.detail


def test_a_batch_on_one_seed_s_streams_fails(monkeypatch):
    real = sampling.run_batch
    def one_seed(alg, ps, hps, seeds, **kw):
        return real(alg, ps, hps, seeds=[seeds[0]] * len(seeds), **kw)

    monkeypatch.setattr(sampling, "run_batch", one_seed)
    e = sampling_residual(SamplingCase(4, 3, (0, 11)))
    assert e.outcome == "fails" and "seed 11: the batch's run differs" in e.detail, e.detail


def test_the_set_rule_names_repeats_and_indices_outside():
    S = np.array([[0, 0], [1, 4], [2, 5]])
    found = sampling._set_violations(S, 5, 2, 3)
    assert found == ["an index outside [0, 5)", "1 of 3 rounds sample a client twice"]
    assert sampling._set_violations(np.array([[0, 1], [1, 4]]), 5, 2, 2) == []


def test_it_guards_every_check():
    inv = INVARIANTS["sampling"]
    assert inv.algorithms == () and inv.component == "engine"
