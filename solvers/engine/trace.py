"""The record of one run: arrays per metric plus metadata, saved as ``.npz`` without pickle.

Array conventions (R = rounds completed):

* per point, length R + 1 (index r = after r rounds): ``server_w`` (R+1, dim), ``server_z``
  (dual family), ``objective``, ``gap``, ``objective_avg``, ``gap_avg`` (at ŵ after r rounds;
  ŵ_0 = w_0), ``prox_grad_norm``, recovery metrics (``density``, ``precision``, ``recall``,
  ``f1`` or ``rank``, ``recovery_error``), cumulative counts (``grad_calls``,
  ``sample_grad_calls``, ``subgrad_calls``, ``prox_calls_client``, ``prox_calls_server``, ``floats_up``,
  ``floats_down``) and ``discrepancy_overhead`` = (L/(K r)) Σ_{r'<r} Σ_k disc_{r',k}
  (Lemma 4.4's last term, as if the run stopped at r);
* per round, length R: ``discrepancy`` (mean over local steps), ``participants``,
  ``sampled`` (R, P) under partial participation, algorithm extras;
* per local step (``record="step"``): ``dual_shadow`` (R, K+1, dim), ``grad_avg`` (R, K, dim),
  ``shadow_primal`` (R, K, dim), ``discrepancy_steps`` (R, K), and for the dual family
  ``client_duals`` (R, K, |S_r|, dim): every sampled client's dual state where it queries its gradient.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from fcocheck.solvers.errors import InvalidInstanceFileError
from fcocheck.solvers.files import Writer

Array = np.ndarray
COMPLETED, DIVERGED, INTERRUPTED = "completed", "diverged", "interrupted"


@dataclass
class Trace:
    """Arrays per metric and the run's metadata.

    Attributes:
        meta: algorithm, problem, hyper-parameters, oracle, seed, participation, status
            (``completed`` | ``diverged`` | ``interrupted``), rounds requested and completed,
            ``diverged_at``, reference (Φ* and its label), constants, wall time.
        arrays: metric name → array (see the module docstring).

    """

    meta: dict[str, Any]
    arrays: dict[str, Array] = field(default_factory=dict)

    def __getitem__(self, key: str) -> Array:
        """The array of one metric."""
        return self.arrays[key]

    def __contains__(self, key: str) -> bool:
        """Whether the metric was recorded."""
        return key in self.arrays

    @property
    def status(self) -> str:
        """``completed``, ``diverged`` or ``interrupted``."""
        return self.meta["status"]

    @property
    def final_w(self) -> Array:
        """The last recorded server point."""
        return self.arrays["server_w"][-1]

    def columns(self, per: str = "point") -> dict[str, Array]:
        """The scalar metrics as equal-length columns, for a table or a data frame.

        Args:
            per: ``"point"`` — the metrics of the iterate after r rounds, r = 0 … R (column ``round``
                = r); ``"round"`` — the metrics of each round, r = 1 … R (column ``round`` = r, the
                round that produced the value: ``discrepancy``, ``participants`` …).

        """
        if per not in ("point", "round"):
            raise ValueError(f"per = {per!r}; the rule is 'point' or 'round'")
        R = len(self.arrays["server_w"]) - 1 if "server_w" in self.arrays else int(self.meta["completed"])
        n = R + 1 if per == "point" else R
        out = {"round": np.arange(n) if per == "point" else np.arange(1, R + 1)}
        out.update({k: a for k, a in self.arrays.items() if a.ndim == 1 and len(a) == n})
        return out

    def to_frame(self, per: str = "point") -> Any:
        """``columns(per)`` as a pandas DataFrame (a notebook's view of one run)."""
        import pandas as pd

        return pd.DataFrame(self.columns(per))

    def summary(self) -> dict[str, Any]:
        """Metadata and the last value of every scalar-per-point metric."""
        last = {}
        for key, arr in self.arrays.items():
            if arr.ndim == 1 and arr.size and key not in ("participants",):
                value = arr[-1].item()
                last[key] = value if np.isfinite(value) else str(value)
        return {**self.meta, "final": last}

    def save(self, path: str | Path) -> Path:
        """Write ``path`` (.npz): every array plus ``__meta__`` (JSON text)."""
        path = Path(path)
        with Writer(path.parent).open(path.name) as fh:  # atomic: a reader never sees half a trace
            np.savez_compressed(fh, __meta__=np.array(json.dumps(self.meta, default=jsonable)), **self.arrays)
        return path

    @classmethod
    def load(cls, path: str | Path) -> Trace:
        """Read a trace written by ``save`` (no pickle)."""
        try:
            with np.load(path, allow_pickle=False) as data:
                meta = json.loads(str(data["__meta__"]))
                arrays = {k: data[k] for k in data.files if k != "__meta__"}
        except (OSError, KeyError, ValueError) as exc:
            raise InvalidInstanceFileError(f"trace file {str(path)!r} is unreadable: {exc}") from None
        return cls(meta, arrays)


def jsonable(x: Any) -> Any:
    """``json.dumps`` default: numpy scalars and arrays as Python values, anything else as text."""
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, np.ndarray):
        return x.tolist()
    return str(x)
