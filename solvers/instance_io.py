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

from fcocheck.solvers import memory, mirror_maps, regularizers
from fcocheck.solvers.errors import InvalidInstanceFileError
from fcocheck.solvers.files import Writer
from fcocheck.solvers.problem import Problem, sample_weights, uniform_weights
from fcocheck.solvers.spec import closest
from fcocheck.solvers.untrusted import loads, regular_file

REQUIRED_META = ("loss", "regularizer", "mirror")
KNOWN_META = REQUIRED_META + ("intercept", "weights", "ridge_lam", "shape", "name", "generator")
WEIGHTINGS = ("uniform", "samples", "custom")


def _is_number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


# key → (rule, test): meta is validated by type, never coerced (bool("false") is True)
META_SCHEMA: dict[str, tuple[str, Any]] = {
    "loss": ("a string", lambda v: isinstance(v, str)),
    "regularizer": ("an object with a 'name'", lambda v: isinstance(v, dict)),
    "mirror": ("an object with a 'name'", lambda v: isinstance(v, dict)),
    "intercept": ("true or false (a JSON boolean)", lambda v: isinstance(v, bool)),
    "weights": (f"one of {list(WEIGHTINGS)}", lambda v: v in WEIGHTINGS),
    "ridge_lam": ("a finite number >= 0 or null",
                  lambda v: v is None or (_is_number(v) and np.isfinite(v) and v >= 0)),
    "shape": ("null or [d1, d2] with positive integers",
              lambda v: v is None or (isinstance(v, list) and len(v) == 2 and all(
                  isinstance(k, int) and not isinstance(k, bool) and k > 0 for k in v))),
    "name": ("a string", lambda v: isinstance(v, str)),
    "generator": ("an object or null", lambda v: v is None or isinstance(v, dict)),
}


def _check_meta(meta: dict[str, Any], path: Path) -> None:
    for key, value in meta.items():
        rule, ok = META_SCHEMA[key]
        if not ok(value):
            raise InvalidInstanceFileError(
                f"instance file {str(path)!r}: meta {key!r} = {json.dumps(value)}; the rule is {rule}")


def _memory_limit() -> int:
    """The bytes an instance file may hold: ``memory.SHARE`` of the memory available now."""
    return int(memory.SHARE * memory.available())


def _check_headers(z: Any, path: Path) -> None:
    """Read every member's .npy header; refuse non-numeric dtypes and sizes beyond memory."""
    total, limit = 0, _memory_limit()
    for name in z.files:
        with z.zip.open(name + ".npy") as f:
            version = np.lib.format.read_magic(f)
            read = np.lib.format.read_array_header_1_0 if version == (1, 0) else \
                np.lib.format.read_array_header_2_0
            shape, _, dtype = read(f)
        size = int(np.prod(shape, dtype=object)) * dtype.itemsize
        if name != "meta" and dtype.kind not in "biuf":
            raise InvalidInstanceFileError(
                f"instance file {str(path)!r}: array {name!r} has dtype {dtype}; the rule is real "
                "numbers (bool, int or float) read without pickle: no complex, string or object arrays")
        total += size
        if total > limit:
            raise InvalidInstanceFileError(
                f"instance file {str(path)!r}: array {name!r} of shape {shape} brings the instance to "
                f"{total / 2**30:.1f} GiB; the rule is at most {limit / 2**30:.1f} GiB "
                f"({memory.SHARE:.0%} of the memory available now)")


def save_instance(problem: Problem, path: str | Path) -> Path:
    """Write ``problem`` to ``path`` (.npz, atomically); returns the path written."""
    path = Path(path)
    name = path.name if path.name.endswith(".npz") else path.name + ".npz"  # numpy's own naming rule
    with Writer(path.parent).open(name) as fh:
        write_instance(problem, fh)
    return path.with_name(name)


def write_instance(problem: Problem, fh: Any) -> None:
    """``problem`` in the instance-file format (``load_instance`` reads it) into the binary file ``fh``."""
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
    np.savez(fh, meta=np.array(json.dumps(meta)), **arrays)


def _read(path: Path) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    regular_file(path, "instance file", InvalidInstanceFileError)  # a FIFO would block np.load
    try:
        with np.load(path, allow_pickle=False) as z:
            if not hasattr(z, "files"):
                raise InvalidInstanceFileError(
                    f"instance file {str(path)!r} is a single array; the rule is an .npz archive")
            _check_headers(z, path)
            arrays = {k: z[k] for k in z.files}
    except (OSError, ValueError, zipfile.BadZipFile, EOFError, KeyError) as exc:
        if isinstance(exc, InvalidInstanceFileError):
            raise
        raise InvalidInstanceFileError(
            f"instance file {str(path)!r} is not a readable .npz without pickle ({exc})") from None
    if "meta" not in arrays:
        raise InvalidInstanceFileError(f"instance file {str(path)!r} misses the key 'meta'")
    meta = loads(str(arrays.pop("meta")), f"instance file {str(path)!r}: meta", InvalidInstanceFileError)
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
    _check_meta(meta, path)
    return meta, arrays


def _sparse_block(arrays: dict[str, np.ndarray], key: str, path: Path) -> sp.csr_matrix:
    """``key``'s CSR block, fully checked before use (an index ≥ d crashed the process in C)."""
    parts = {s: arrays.get(f"{key}_{s}") for s in ("data", "indices", "indptr", "shape")}
    missing = [s for s, v in parts.items() if v is None]
    if missing:
        raise InvalidInstanceFileError(f"instance file {str(path)!r}: sparse block {key} misses "
                                       f"{[f'{key}_{s}' for s in missing]}; the rule is data, indices, "
                                       "indptr, shape")
    shape, ind, ptr = parts["shape"], parts["indices"], parts["indptr"]
    if shape.shape != (2,) or shape.dtype.kind not in "iu" or np.any(shape < 0):
        raise InvalidInstanceFileError(f"instance file {str(path)!r}: {key}_shape = {shape.tolist()}; "
                                       "the rule is two integers >= 0")
    n, d = (int(v) for v in shape)
    if ind.ndim != 1 or ptr.ndim != 1 or ind.dtype.kind not in "iu" or ptr.dtype.kind not in "iu":
        raise InvalidInstanceFileError(f"instance file {str(path)!r}: {key}_indices / {key}_indptr must be "
                                       "one-dimensional integer arrays")
    if ptr.size != n + 1 or (ptr.size and (ptr[0] != 0 or ptr[-1] != ind.size or np.any(np.diff(ptr) < 0))) \
            or parts["data"].shape != ind.shape:
        raise InvalidInstanceFileError(f"instance file {str(path)!r}: sparse block {key} is inconsistent "
                                       f"(indptr of length {ptr.size} for {n} rows, {ind.size} indices, "
                                       f"{parts['data'].size} values); the rule is CSR: indptr[0] = 0, "
                                       "non-decreasing, indptr[-1] = len(indices) = len(data)")
    if ind.size and (ind.min() < 0 or ind.max() >= d):
        raise InvalidInstanceFileError(f"instance file {str(path)!r}: sparse block {key} has a column index "
                                       f"{int(ind.min() if ind.min() < 0 else ind.max())} outside [0, {d}); "
                                       f"the rule is 0 <= index < d = {d}")
    A = sp.csr_matrix((parts["data"], ind, ptr), shape=(n, d))
    try:
        A.check_format(full_check=True)
    except ValueError as exc:
        raise InvalidInstanceFileError(f"instance file {str(path)!r}: sparse block {key} is malformed "
                                       f"({exc})") from None
    return A


def _client_keys(arrays: dict[str, np.ndarray], name: str, path: Path) -> list[int]:
    """The client indices m of ``name_m`` / ``name_m_*`` keys: 0 … M−1 with none missing."""
    found = sorted({int(k[len(name) + 1:].split("_")[0]) for k in arrays
                    if k.startswith(f"{name}_") and k[len(name) + 1:].split("_")[0].isdigit()})
    if found != list(range(len(found))):
        gap = next(m for m in range(len(found) + 1) if m not in found)
        raise InvalidInstanceFileError(
            f"instance file {str(path)!r}: per-client arrays {name}_m for m in {found}, but {name}_{gap} is "
            f"missing; the rule is {name}_0 … {name}_(M-1) with none left out")
    return found


def _blocks(arrays: dict[str, np.ndarray], name: str, path: Path) -> list[Any]:
    per_client = _client_keys(arrays, name, path)
    if name in arrays and per_client:
        raise InvalidInstanceFileError(
            f"instance file {str(path)!r} has both {name!r} and {name}_0 …; the rule is one of the two "
            "layouts (stacked, or one array per client)")
    if name in arrays:
        stacked, want = arrays[name], 3 if name == "X" else 2
        if stacked.ndim != want:
            raise InvalidInstanceFileError(
                f"instance file {str(path)!r}: {name!r} has shape {stacked.shape}; the rule is "
                + ("(M, n, d)" if name == "X" else "(M, n)") + f" (or {name}_0, {name}_1, ... per client)")
        return list(stacked)
    out = []
    for m in per_client:
        dense, sparse = f"{name}_{m}" in arrays, f"{name}_{m}_data" in arrays
        if dense == sparse:
            raise InvalidInstanceFileError(
                f"instance file {str(path)!r}: client {m} has " + ("both " if dense else "neither ")
                + f"{name}_{m} and {name}_{m}_data; the rule is one dense array or one CSR block per client")
        block = _sparse_block(arrays, f"{name}_{m}", path) if sparse else arrays[f"{name}_{m}"]
        want = 2 if name == "X" else 1
        if np.ndim(block) != want:
            raise InvalidInstanceFileError(
                f"instance file {str(path)!r}: {name}_{m} has shape {np.shape(block)}; the rule is "
                + ("(n_m, d)" if name == "X" else "(n_m,)"))
        out.append(block)
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
    loss = meta["loss"]
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
    weighting = meta.get("weights", "uniform")
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
                   regularizer=psi, mirror=h, weights=weights, intercept=meta.get("intercept", False),
                   weighting=weighting, ridge_lam=float(meta.get("ridge_lam") or 0.0), shape=shape,
                   truth=truth, meta={"file": str(path), **(meta.get("generator") or {})})
