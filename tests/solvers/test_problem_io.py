"""Instance files round-trip; bad problems and files raise specific errors."""

import json

import numpy as np
import pytest

from fcocheck.solvers.errors import (
    FcocheckError,
    InvalidInstanceFileError,
    InvalidOracleError,
    InvalidProblemError,
)
from fcocheck.solvers.generators import generate
from fcocheck.solvers.instance_io import load_instance, save_instance
from fcocheck.solvers.mirror_maps import Entropy, Euclidean
from fcocheck.solvers.oracles import parse_oracle
from fcocheck.solvers.problem import Problem, uniform_weights
from fcocheck.solvers.regularizers import L1, Nuclear


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
    ({"X": (np.array([[np.nan, 1.0]] * 3), np.ones((3, 2)))}, "NaN, inf or non-real"),
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


BASE_META = {"loss": "squares", "regularizer": {"name": "l1", "lam": 0.1}, "mirror": {"name": "euclidean"}}


@pytest.mark.parametrize("key,value,rule", [
    ("intercept", "false", "JSON boolean"), ("intercept", 1, "JSON boolean"),
    ("weights", 3, "one of"), ("ridge_lam", "0.1", "finite number"), ("ridge_lam", -1.0, ">= 0"),
    ("shape", [2, "3"], "positive integers"), ("shape", [0, 6], "positive integers"),
    ("name", 7, "a string"), ("loss", ["squares"], "a string"), ("generator", "x", "object or null"),
])
def test_meta_fields_are_validated_by_type_never_coerced(tmp_path, key, value, rule):
    """Regression (issue 20): "intercept": "false" turned the intercept on (bool("false"))."""
    X = np.ones((2, 3, 6))
    path = _write(tmp_path / "m.npz", {**BASE_META, key: value}, X=X, y=np.ones((2, 3)))
    with pytest.raises(InvalidInstanceFileError, match=rule):
        load_instance(path)


def test_intercept_false_is_false(tmp_path):
    path = _write(tmp_path / "m.npz", {**BASE_META, "intercept": False}, X=np.ones((2, 3, 6)),
                  y=np.ones((2, 3)))
    assert load_instance(path).intercept is False


@pytest.mark.parametrize("arrays,match", [
    ({"X": np.ones((2, 3, 4)) * 1j, "y": np.ones((2, 3))}, "dtype complex"),
    ({"X": np.array([[["a"]]]), "y": np.ones((1, 1))}, "dtype <U1"),
    ({"X": np.ones((2, 3, 4)), "y": np.ones((2, 3)) + 0j}, "dtype complex"),
])
def test_non_real_arrays_are_refused(tmp_path, arrays, match):
    with pytest.raises(InvalidInstanceFileError, match=match):
        load_instance(_write(tmp_path / "c.npz", BASE_META, **arrays))


def test_header_claiming_terabytes_is_refused_before_reading(tmp_path):
    """An .npy header may claim any shape; the size is checked against memory before reading."""
    import zipfile

    path = tmp_path / "huge.npz"
    header = {"descr": "<f8", "fortran_order": False, "shape": (1_000_000, 1_000_000)}
    buf = __import__("io").BytesIO()
    np.lib.format.write_array_header_2_0(buf, header)
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("X.npy", buf.getvalue())  # header only: 8 TB claimed, 0 bytes of data
        meta = __import__("io").BytesIO()
        np.save(meta, np.array(json.dumps(BASE_META)))
        z.writestr("meta.npy", meta.getvalue())
    with pytest.raises(InvalidInstanceFileError, match="GiB; the rule is at most"):
        load_instance(path)


def test_complex_and_nan_data_refused_in_memory_too():
    X = (np.ones((1, 3, 2)) * (1 + 1j),)
    with pytest.raises(InvalidProblemError, match="finite real data"):
        Problem(name="c", loss="squares", X=tuple(X[0]), y=(np.ones(3),), regularizer=L1(0.1),
                mirror=Euclidean(), weights=uniform_weights(1))


def test_zero_features_and_indefinite_q_are_refused():
    with pytest.raises(InvalidProblemError, match="d = 0"):
        Problem(name="z", loss="squares", X=(np.ones((3, 0)),), y=(np.ones(3),), regularizer=L1(0.1),
                mirror=Euclidean(), weights=uniform_weights(1))
    Q = np.array([[[1.0, 0.0], [0.0, -0.5]]])
    with pytest.raises(InvalidProblemError, match="positive semidefinite"):
        Problem(name="q", loss="quadratic", X=(), y=(), Q=Q, c=np.zeros((1, 2)), regularizer=L1(0.1),
                mirror=Euclidean(), weights=uniform_weights(1))


@pytest.mark.parametrize("params,match", [
    ({"seed": -1}, r"\[0, 2\^63 - 1\]"), ({"seed": 2**63}, r"\[0, 2\^63 - 1\]"),
    ({"clients": 0}, ">= 1"), ({"d": "1e9"}, "not a valid int"), ({"d": 10**9}, "16 GiB"),
    ({"lam": "nan"}, "finite number"), ({"clients": True}, "an integer"), ({"noise": "inf"}, "finite"),
])
def test_generator_parameters_checked_before_allocation(params, match):
    with pytest.raises(InvalidProblemError, match=match):
        generate("lasso-paper", **params)


def test_stacked_is_a_view_only_of_blocks_lying_back_to_back(tmp_path):
    from dataclasses import replace

    from fcocheck.solvers.reference.centring import centred

    p = generate("lasso-paper", clients=4, samples=8, d=10, nnz=3)
    q = load_instance(save_instance(p, tmp_path / "inst.npz"))  # X blocks: rows of one flat buffer
    for problem in (p, q, centred(q)[0]):
        assert np.shares_memory(problem.stacked, problem.X[0])
        np.testing.assert_array_equal(problem.stacked, np.stack(problem.X))
    X3 = np.arange(9 * 8 * 10, dtype=float).reshape(9, 8, 10)
    for blocks, view in ((tuple(X3[1:5]), True), (tuple(X3[::2][:4]), False),
                         ((X3[0], X3[0], X3[1], X3[2]), False), (tuple(x.copy() for x in X3[:4]), False),
                         (tuple(X3[:4][::-1]), False)):
        r = replace(p, X=blocks)
        np.testing.assert_array_equal(r.stacked, np.stack(blocks))
        assert np.shares_memory(r.stacked, X3) == view
