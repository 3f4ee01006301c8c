"""``fcocheck solve``'s per-instance cache: cvxpy's answer and the problem constants, computed once.

Importing cvxpy and solving the Gram-reduced model takes 2 s on lasso-paper (6 s for the nuclear
norm's SDP), and the constants (ζ's bound needs ‖H_m − H‖₂ for the clients that can attain its
maximum, 12 of 64 there) another 0.4 s, while the certified first-order solve takes 0.2 s.  Both
depend only on the instance's data, the code and the solver versions, so they are kept in one JSON
file per instance under the cache directory:

* key: SHA-256 of the instance's content digest (``solvers.digest``), the code version
  (``verify.sweep.version``), the tolerance, the cvxpy solver and the cvxpy/CLARABEL versions;
* cvxpy's point is not trusted from the file: ``reference_solve`` certifies it with a fresh duality
  gap and cross-checks it against the fresh first-order optimum exactly as a new one;
* a missing, unreadable or foreign file is a miss (recomputed), never an error; files are written
  atomically (temporary file + rename), so an interrupted solve leaves the old entry or none.

The directory is ``$FCOCHECK_CACHE``, else ``$XDG_CACHE_HOME/fcocheck``, else ``~/.cache/fcocheck``;
``fcocheck solve --no-cache`` neither reads nor writes it.
"""

from __future__ import annotations

import hashlib
import json
import os
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from fcocheck.solvers.digest import instance_sha256
from fcocheck.solvers.problem import Problem
from fcocheck.solvers.reference.cvx_result import CvxResult

FORMAT = 1


def cache_dir() -> Path:
    """Where the entries live (see the module docstring)."""
    if os.environ.get("FCOCHECK_CACHE"):
        return Path(os.environ["FCOCHECK_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "fcocheck"


def _versions() -> dict[str, str]:
    out = {}
    for pkg in ("cvxpy", "clarabel", "numpy", "scipy"):
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            out[pkg] = "absent"
    return out


def entry_path(problem: Problem, tol: float, solver: str) -> Path:
    """The file of this instance's entry."""
    from fcocheck.verify.sweep.version import code_version

    key = json.dumps({"format": FORMAT, "instance": instance_sha256(problem), "code": code_version(),
                      "tol": repr(tol), "solver": solver, "versions": _versions()}, sort_keys=True)
    return cache_dir() / "solve" / f"{hashlib.sha256(key.encode()).hexdigest()}.json"


#: cvxpy statuses that claim a solution: such an entry must carry the point (the cross-check needs it)
SOLVED = ("optimal", "optimal_inaccurate")
CONSTANT_FIELDS = ("L", "L_clients", "L_sample", "mu", "zeta", "zeta_kind", "zeta_sampled", "G", "G_kind",
                   "B", "radius")


def load(path: Path, dim: int | None = None) -> dict[str, Any] | None:
    """The entry at ``path``, or None: missing, unreadable, foreign, or failing its own consistency.

    A cache file is untrusted input: an entry is used only if it has exactly this format's fields, a
    cvxpy answer that carries its point (of length ``dim``, finite) whenever its status says solved,
    and constants that are finite numbers with L ≥ L's sample and client forms ≥ 0 and 0 ≤ μ ≤ L.
    Anything else is a miss (recomputed), never a silent switch-off of the cross-check.
    """
    from fcocheck.solvers.untrusted import read_json

    try:
        entry = read_json(path, "cache entry", limit=512 * 2**20)
    except Exception:  # any refusal of an untrusted file is a miss
        return None
    return entry if _valid(entry, dim) else None


def _number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and bool(np.isfinite(v))


def _valid(entry: Any, dim: int | None) -> bool:
    if not (isinstance(entry, dict) and set(entry) == {"format", "cvx", "constants", "w_sha256"}
            and entry["format"] == FORMAT and isinstance(entry["w_sha256"], str)):
        return False
    c = entry["cvx"]
    if c is not None:
        if not (isinstance(c, dict) and set(c) == {"w", "solver", "status", "seconds"}
                and isinstance(c["solver"], str) and isinstance(c["status"], str) and _number(c["seconds"])):
            return False
        w = c["w"]
        if w is None and c["status"] in SOLVED:
            return False
        if w is not None and not (isinstance(w, list) and all(_number(v) for v in w)
                                  and (dim is None or len(w) == dim)):
            return False
    k = entry["constants"]
    if not (isinstance(k, dict) and set(k) == set(CONSTANT_FIELDS)):
        return False
    numbers = [k[f] for f in ("L", "L_clients", "L_sample", "zeta", "zeta_sampled", "radius")]
    optional = [k[f] for f in ("mu", "G", "B") if k[f] is not None]
    if not all(_number(v) and v >= 0 for v in numbers + optional) or not (k["L"] > 0):
        return False
    return (k["mu"] is None or k["mu"] <= k["L"]) and isinstance(k["zeta_kind"], str) \
        and isinstance(k["G_kind"], str)


def cvx_result(entry: dict[str, Any]) -> CvxResult | None:
    """The cached cvxpy answer as a ``CvxResult`` (w None when cvxpy had failed); None if none ran."""
    c = entry["cvx"]
    if c is None:
        return None
    w = None if c["w"] is None else np.asarray(c["w"], dtype=float)
    return CvxResult(w, c["solver"], c["status"], float(c["seconds"]))


def w_digest(w: np.ndarray) -> str:
    """SHA-256 of a solution's bytes: cached constants are used only for the very same w*."""
    return hashlib.sha256(np.ascontiguousarray(w, dtype=float).tobytes()).hexdigest()


def cvx_entry(cvx: Any) -> dict[str, Any] | None:
    """JSON form of a ``CvxResult`` (None when no cvxpy solve ran)."""
    if cvx is None:
        return None
    return {"w": None if cvx.w is None else cvx.w.tolist(), "solver": cvx.solver, "status": cvx.status,
            "seconds": cvx.seconds}


def store(path: Path, cvx: dict[str, Any] | None, constants: dict[str, Any], w: np.ndarray) -> bool:
    """Write the entry atomically; False (nothing written) when the directory is not writable.

    Through ``solvers.files.Writer``: a failed write leaves nothing partial, and a temporary file left
    by a process killed in the write window is removed by the next write into the directory.
    """
    from fcocheck.solvers.files import UnsafePathError, WriteFailedError, Writer

    entry = {"format": FORMAT, "cvx": cvx, "constants": constants, "w_sha256": w_digest(w)}
    try:
        Writer(path.parent).write_text(path.name, json.dumps(entry, default=float))
    except (OSError, WriteFailedError, UnsafePathError):
        return False
    return True
