"""Instance files round-trip; bad problems and files raise specific errors."""

import json

import numpy as np
import pytest

from solvers.errors import (
    FcocheckError,
    InvalidInstanceFileError,
    InvalidOracleError,
    InvalidProblemError,
)
from solvers.generators import generate
from solvers.instance_io import load_instance, save_instance
from solvers.mirror_maps import Entropy, Euclidean
from solvers.oracles import parse_oracle
from solvers.problem import Problem, uniform_weights
from solvers.regularizers import L1, Nuclear


@pytest.mark.parametrize("name,params", [
    ("lasso-paper", {"clients": 4, "samples": 8, "d": 10, "nnz": 3}), ("quadratics", {}),
    ("bag-of-words", {"clients": 5, "d": 50}), ("breast-cancer", {}),
    ("lowrank-paper", {"clients": 4, "samples": 8, "d1": 3, "d2": 4, "rank": 1}),
    ("ridge", {"partition": "unbalanced"}),
])
def test_round_trip(tmp_path, name, params):
    p = generate(name, **params)
    q = load_instance(save_instance(p, tmp_path / "inst.npz"))
    w = np.random.default_rng(0).standard_normal(p.dim) * 0.1
    assert q.Phi(w) == p.Phi(w)
    assert (q.loss, q.intercept, q.weighting, q.shape) == (p.loss, p.intercept, p.weighting, p.shape)
    assert q.regularizer.spec() == p.regularizer.spec()


def _write(path, meta, **arrays):
    np.savez(path, meta=np.array(json.dumps(meta)), **arrays)
    return path


GOOD = {"loss": "squares", "regularizer": {"name": "l1", "lam": 0.5}, "mirror": {"name": "euclidean"}}


@pytest.mark.parametrize("meta,arrays,err,match", [
    ({k: v for k, v in GOOD.items() if k != "loss"}, {}, InvalidInstanceFileError, "'loss'"),
    (GOOD, {"y": np.zeros((2, 3))}, InvalidInstanceFileError, "'X'"),
    ({**GOOD, "lossy": 1}, {}, InvalidInstanceFileError, "did you mean 'loss'"),
    ({**GOOD, "regularizer": {"name": "l3"}}, {}, FcocheckError, "unknown regularizer"),
    ({**GOOD, "loss": "hinge"}, {}, InvalidProblemError, "unknown loss 'hinge'"),
])
def test_bad_instance_files(tmp_path, meta, arrays, err, match):
    arrays = arrays or {"X": np.zeros((2, 3, 4)), "y": np.zeros((2, 3))}
    with pytest.raises(err, match=match):
        load_instance(_write(tmp_path / "bad.npz", meta, **arrays))


def test_pickled_objects_are_refused(tmp_path):
    path = tmp_path / "pickle.npz"
    np.savez(path, meta=np.array(json.dumps(GOOD)), X=np.array([{"a": 1}], dtype=object),
             y=np.zeros(1))
    with pytest.raises(InvalidInstanceFileError, match="without pickle"):
        load_instance(path)


def test_not_an_npz(tmp_path):
    path = tmp_path / "x.npz"
    path.write_text("hello")
    with pytest.raises(InvalidInstanceFileError, match="not a readable"):
        load_instance(path)


def _problem(**kw):
    base = dict(name="p", loss="squares", X=(np.ones((3, 2)), np.ones((3, 2))),
                y=(np.ones(3), np.ones(3)), regularizer=L1(0.1), mirror=Euclidean(),
                weights=uniform_weights(2))
    base.update(kw)
    return Problem(**base)


@pytest.mark.parametrize("kw,match", [
    ({"X": (np.array([[np.nan, 1.0]] * 3), np.ones((3, 2)))}, "NaN or inf"),
    ({"y": (np.ones(2), np.ones(3))}, "3 rows but y has 2"),
    ({"X": (np.ones((0, 2)), np.ones((3, 2))), "y": (np.ones(0), np.ones(3))}, "empty"),
    ({"X": (np.ones((3, 2)), np.ones((3, 4)))}, "the same d"),
    ({"weights": np.array([0.7, 0.7])}, "summing to 1"),
    ({"loss": "logistic", "y": (np.full(3, 0.5), np.ones(3))}, "label 0.5"),
    ({"regularizer": Nuclear(1.0, (3, 3))}, "d1·d2 = d"),
    ({"mirror": Entropy()}, "dom h"),
    ({"loss": "quadratic"}, "needs per-client Q"),
    ({"loss": "quadratic", "X": (), "y": (), "Q": np.ones((2, 3, 3)), "c": np.ones((2, 2))},
     r"rule is Q \(M, d, d\)"),
])
def test_bad_problems(kw, match):
    with pytest.raises(InvalidProblemError, match=match):
        _problem(**kw)


@pytest.mark.parametrize("name,params,match", [
    ("lasso-paper", {"lamb": "1"}, "did you mean 'lam'"),
    ("lasso-paper", {"clients": "many"}, "not a valid int"),
    ("lasso-papr", {}, "did you mean 'lasso-paper'"),
    ("quadratics", {"mu": "2", "L": "1"}, "mu <= L"),
])
def test_bad_generator_parameters(name, params, match):
    with pytest.raises(FcocheckError, match=match):
        generate(name, **params)


def test_oracles():
    p = generate("lasso-paper", clients=4, samples=16, d=8, nnz=2)
    W = np.zeros((4, p.dim))
    rng = np.random.default_rng(0)
    exact = parse_oracle("exact").grads(p, W, rng)
    np.testing.assert_array_equal(exact, p.client_grads(W))
    g = parse_oracle("gaussian:2.0")
    noise = np.stack([g.grads(p, W, rng) - exact for _ in range(4000)])
    sq = np.sum(noise**2, axis=-1).ravel()
    assert abs(sq.mean() - 4.0) < 4 * sq.std() / np.sqrt(sq.size)  # E‖ξ‖² = σ² exactly
    mb = parse_oracle("minibatch:4")
    draws = np.stack([mb.grads(p, W, rng) for _ in range(4000)])
    err = draws.mean(0) - exact
    assert np.all(np.abs(err) < 5 * draws.std(0) / np.sqrt(4000) + 1e-12)  # unbiased
    a = mb.grads(p, W, np.random.default_rng(7))
    np.testing.assert_array_equal(a, mb.grads(p, W, np.random.default_rng(7)))


@pytest.mark.parametrize("text", ["gaussian:-1", "gaussian:x", "minibatch:0", "minibatch:1.5", "sgd"])
def test_bad_oracles(text):
    with pytest.raises(InvalidOracleError, match="the rule is"):
        parse_oracle(text)


def test_minibatch_needs_samples():
    with pytest.raises(InvalidOracleError, match="needs sample data"):
        parse_oracle("minibatch:2").grads(generate("quadratics"), np.zeros((8, 20)),
                                          np.random.default_rng(0))
