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


def _imported_after(code: str, heavy: str) -> list[str]:
    probe = f"import sys; {code}; print(sorted(m for m in sys.modules if {heavy}))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return eval(out.stdout.strip())  # noqa: S307 - our own probe's printed list of module names


def test_a_problem_s_constants_import_no_compiled_kernel():
    """Issue 33: a cold solve imported numba (≈ 0.6 s of 4.3 s) only for the 33 gradient passes of the
    sampled ζ; the constants now run those passes through numpy (``Kernel(compiled=False)``)."""
    code = ("from fcocheck.solvers.generators import generate; from fcocheck.solvers.constants import "
            "compute_constants; p = generate('lasso-paper', clients=4, samples=30, d=20, nnz=5); "
            "compute_constants(p)")
    assert _imported_after(code, "m == 'numba' or 'squares_kernel' in m or 'batched_squares' in m") == []
    # the violation this catches: the engine's own kernel does import it
    code_engine = code + "; p.client_grads(p.broadcast(p.zero()))"
    assert "numba" in _imported_after(code_engine, "m == 'numba'")


def test_the_worstcase_command_does_not_import_the_report_builder():
    """Issue 33: ``fcocheck worstcase`` opened its session through the report's module (report
    builder and matplotlib, ≈ 0.47 s); the session now has a module of its own."""
    code = "import fcocheck.reports.cli_worstcase as w; import fcocheck.reports.cli_session"
    assert _imported_after(code, "m in ('matplotlib', 'fcocheck.reports.build')") == []
    assert "fcocheck.reports.build" in _imported_after("import fcocheck.reports.cli_report",
                                                       "m == 'fcocheck.reports.build'")
