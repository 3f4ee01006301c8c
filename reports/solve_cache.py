"""``fcocheck solve``'s per-instance cache: cvxpy's answer and the problem constants, computed once.

Importing cvxpy and solving the Gram-reduced model takes 2 s on lasso-paper (6 s for the nuclear
norm's SDP), and the constants (ζ's bound needs ‖H_m − H‖₂ for every client) another second, while
the certified first-order solve takes 0.2 s.  Both depend only on the instance's data, the code and
the solver versions, so they are kept in one JSON file per instance under the cache directory:

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
import tempfile
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


def load(path: Path) -> dict[str, Any] | None:
    """The entry at ``path``, or None (missing, unreadable, or not an entry of this format)."""
    try:
        entry = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    ok = isinstance(entry, dict) and entry.get("format") == FORMAT and {"cvx", "constants"} <= set(entry)
    return entry if ok else None


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
    """Write the entry atomically; False (nothing written) when the directory is not writable."""
    entry = {"format": FORMAT, "cvx": cvx, "constants": constants, "w_sha256": w_digest(w)}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(fd, "w") as fh:
            json.dump(entry, fh, default=float)
        os.replace(tmp, path)
    except OSError:
        return False
    return True
