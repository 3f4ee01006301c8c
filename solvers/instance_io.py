"""Instance files: a user's own problem as an ``.npz`` read without pickle.

Arrays: ``X`` (M, n, d) or ``X_0 … X_{M−1}`` for unequal n (sparse CSR blocks as
``X_m_data``, ``X_m_indices``, ``X_m_indptr``, ``X_m_shape``); ``y`` likewise; ``Q`` and ``c``
for quadratics; optional ``weights`` (custom p_m), ``w_true``, ``b_true``.  ``meta`` is a JSON
string: ``{"loss": ..., "regularizer": {"name": "l1", "lam": 0.5}, "mirror": {"name":
"euclidean"}, "intercept": false, "weights": "uniform"}`` plus optional ``ridge_lam``,
``shape`` and ``name``.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from solvers import mirror_maps, regularizers
from solvers.errors import InvalidInstanceFileError
from solvers.problem import Problem, sample_weights, uniform_weights
from solvers.spec import closest

REQUIRED_META = ("loss", "regularizer", "mirror")
KNOWN_META = REQUIRED_META + ("intercept", "weights", "ridge_lam", "shape", "name", "generator")


def save_instance(problem: Problem, path: str | Path) -> Path:
    """Write ``problem`` to ``path`` (.npz); returns the path written."""
    arrays: dict[str, np.ndarray] = {}
    if problem.loss == "quadratic":
        arrays["Q"], arrays["c"] = np.asarray(problem.Q), np.asarray(problem.c)
    elif problem.stacked is not None:
        arrays["X"], arrays["y"] = problem.stacked, np.stack(problem.y)
    else:
        for m, (Xm, ym) in enumerate(zip(problem.X, problem.y, strict=True)):
            if sp.issparse(Xm):
                Xc = sp.csr_matrix(Xm)
                arrays.update({f"X_{m}_data": Xc.data, f"X_{m}_indices": Xc.indices,
                               f"X_{m}_indptr": Xc.indptr, f"X_{m}_shape": np.array(Xc.shape)})
            else:
                arrays[f"X_{m}"] = np.asarray(Xm)
            arrays[f"y_{m}"] = np.asarray(ym)
    if problem.weighting == "custom":
        arrays["weights"] = problem.weights
    for key, val in problem.truth.items():
        arrays[f"{key}_true"] = np.asarray(val)
    meta = {"name": problem.name, "loss": problem.loss, "regularizer": problem.regularizer.spec(),
            "mirror": problem.mirror.spec(), "intercept": problem.intercept,
            "weights": problem.weighting, "ridge_lam": problem.ridge_lam,
            "shape": list(problem.shape) if problem.shape else None,
            "generator": problem.meta}
    path = Path(path)
    np.savez(path, meta=np.array(json.dumps(meta)), **arrays)
    return path if path.suffix == ".npz" else path.with_suffix(path.suffix + ".npz")


def _read(path: Path) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    if not path.is_file():
        raise InvalidInstanceFileError(f"instance file {str(path)!r} does not exist")
    try:
        with np.load(path, allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files}
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as exc:
        raise InvalidInstanceFileError(
            f"instance file {str(path)!r} is not a readable .npz without pickle ({exc})") from None
    if "meta" not in arrays:
        raise InvalidInstanceFileError(f"instance file {str(path)!r} misses the key 'meta'")
    try:
        meta = json.loads(str(arrays.pop("meta")))
    except json.JSONDecodeError as exc:
        raise InvalidInstanceFileError(f"instance file {str(path)!r}: meta is not JSON ({exc})") from None
    if not isinstance(meta, dict):
        raise InvalidInstanceFileError(f"instance file {str(path)!r}: meta must be a JSON object")
    for key in REQUIRED_META:
        if key not in meta:
            raise InvalidInstanceFileError(f"instance file {str(path)!r}: meta misses the key {key!r}")
    for key in meta:
        if key not in KNOWN_META:
            raise InvalidInstanceFileError(
                f"instance file {str(path)!r}: unknown meta key {key!r}; known: {list(KNOWN_META)}"
                f"{closest(key, KNOWN_META)}")
    return meta, arrays


def _blocks(arrays: dict[str, np.ndarray], name: str, path: Path) -> list[Any]:
    if name in arrays:
        return list(arrays[name])
    out, m = [], 0
    while f"{name}_{m}" in arrays or f"{name}_{m}_data" in arrays:
        if f"{name}_{m}_data" in arrays:
            try:
                out.append(sp.csr_matrix((arrays[f"{name}_{m}_data"], arrays[f"{name}_{m}_indices"],
                                          arrays[f"{name}_{m}_indptr"]),
                                         shape=tuple(arrays[f"{name}_{m}_shape"])))
            except (KeyError, ValueError) as exc:
                raise InvalidInstanceFileError(
                    f"instance file {str(path)!r}: sparse block {name}_{m} is malformed ({exc})") from None
        else:
            out.append(arrays[f"{name}_{m}"])
        m += 1
    if not out:
        raise InvalidInstanceFileError(
            f"instance file {str(path)!r} misses the key {name!r} (or {name}_0, {name}_1, ...)")
    return out


def load_instance(path: str | Path) -> Problem:
    """Read an instance file into a validated ``Problem``.

    Raises:
        InvalidInstanceFileError: unreadable file, missing or unknown keys.
        FcocheckError: unknown component names or data breaking a problem rule.

    """
    path = Path(path)
    meta, arrays = _read(path)
    loss = str(meta["loss"])
    psi = regularizers.make(meta["regularizer"])
    h = mirror_maps.make(meta["mirror"])
    if loss == "quadratic":
        for key in ("Q", "c"):
            if key not in arrays:
                raise InvalidInstanceFileError(f"instance file {str(path)!r} misses the key {key!r}")
        X, y, Q, c = (), (), arrays["Q"], arrays["c"]
        M = c.shape[0] if c.ndim == 2 else 0
        n = np.zeros(M)
    else:
        X, y = tuple(_blocks(arrays, "X", path)), tuple(_blocks(arrays, "y", path))
        Q = c = None
        M, n = len(y), np.array([len(v) for v in y])
    weighting = str(meta.get("weights", "uniform"))
    if weighting == "uniform":
        weights = uniform_weights(max(M, 1))
    elif weighting == "samples":
        weights = sample_weights(n)
    elif weighting == "custom" and "weights" in arrays:
        weights = arrays["weights"]
    else:
        raise InvalidInstanceFileError(
            f"instance file {str(path)!r}: weights {weighting!r}; the rule is uniform, samples, or "
            "custom with a 'weights' array")
    truth = {k[: -len("_true")]: v for k, v in arrays.items() if k.endswith("_true")}
    shape = tuple(meta["shape"]) if meta.get("shape") else None
    return Problem(name=str(meta.get("name", path.stem)), loss=loss, X=X, y=y, Q=Q, c=c,
                   regularizer=psi, mirror=h, weights=weights, intercept=bool(meta.get("intercept")),
                   weighting=weighting, ridge_lam=float(meta.get("ridge_lam") or 0.0), shape=shape,
                   truth=truth, meta={"file": str(path), **(meta.get("generator") or {})})
