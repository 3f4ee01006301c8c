"""cvxpy imported with scipy.stats deferred: the same cvxpy, the same answers, scipy.stats real afterwards.

Each case runs in a fresh interpreter (the deferral only acts when neither module is imported yet).
"""

from __future__ import annotations

import json
import subprocess
import sys

SCRIPT = r"""
import json, sys
import numpy as np
out = {}
from fcocheck.solvers.reference import cvx_import
cp = cvx_import.import_cvxpy()
out["stats_after_import"] = "scipy.stats" in sys.modules
x = cp.Variable(3)
cp.Problem(cp.Minimize(cp.sum_squares(x - np.arange(3.0)) + cp.norm1(x))).solve(solver="CLARABEL")
out["x"] = x.value.tolist()
out["stats_after_solve"] = "scipy.stats" in sys.modules
module = sys.modules["cvxpy.atoms.quantum_rel_entr"]  # the package attribute is the atom class
p = np.array([0.2, 0.3, 0.5]); q = np.array([0.4, 0.4, 0.2])
out["entropy_deferred"] = float(module.entropy(p, q))
import scipy.stats
out["entropy_real"] = float(scipy.stats.entropy(p, q))
out["real_module"] = type(sys.modules["scipy.stats"]).__name__ == "module" and hasattr(scipy.stats, "norm")
print(json.dumps(out))
"""

FALLTHROUGH = r"""
import json, sys
from fcocheck.solvers.reference.cvx_import import _DeferredStats, STATS
stand_in = _DeferredStats(STATS)
sys.modules[STATS] = stand_in
norm = stand_in.norm  # any name but entropy: the real module, imported now
import scipy.stats
print(json.dumps({"same": norm is scipy.stats.norm, "replaced": sys.modules[STATS] is not stand_in,
                  "dunder": hasattr(stand_in, "__path__")}))
"""


def _run(code: str) -> dict:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_cvxpy_without_scipy_stats_solves_the_same_and_entropy_is_the_real_one() -> None:
    out = _run(SCRIPT)
    assert out["stats_after_import"] is False and out["stats_after_solve"] is False
    assert out["x"][0] < 1e-8 and abs(out["x"][1] - 0.5) < 1e-8 and abs(out["x"][2] - 1.5) < 1e-8
    assert out["entropy_deferred"] == out["entropy_real"] > 0
    assert out["real_module"] is True


def test_another_attribute_reads_the_real_module_and_dunders_are_not_forwarded() -> None:
    assert _run(FALLTHROUGH) == {"same": True, "replaced": True, "dunder": False}


def test_an_imported_scipy_stats_is_left_alone() -> None:
    out = _run("import json, sys, scipy.stats\nreal = sys.modules['scipy.stats']\n"
               "from fcocheck.solvers.reference.cvx_import import import_cvxpy\nimport_cvxpy()\n"
               "print(json.dumps({'kept': sys.modules['scipy.stats'] is real}))")
    assert out == {"kept": True}
