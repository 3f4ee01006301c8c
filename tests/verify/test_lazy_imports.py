"""The code version a cached solve is keyed by loads neither the round engine nor numba."""

from __future__ import annotations

import subprocess
import sys


def test_the_code_version_imports_no_engine_and_no_numba():
    heavy = "m == 'numba' or m.startswith('fcocheck.solvers.engine')"
    code = ("import sys; from fcocheck.verify.sweep.version import code_version; code_version(); "
            f"print(sorted(m for m in sys.modules if {heavy}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_sweep_packages_names_still_resolve():
    from fcocheck.verify import sweep

    assert sweep.Store.__name__ == "Store" and callable(sweep.run_sweep) and "grid" in dir(sweep)
