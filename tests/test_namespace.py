"""One import name: the four folders install as ``fcocheck.solvers`` … and nothing else lands on the path.

``solvers``, ``rates``, ``verify`` and ``reports`` are names of unrelated projects on PyPI; a project
installed beside any of them must not shadow it or be shadowed.
"""

from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys

import pytest

FOLDERS = ("solvers", "rates", "verify", "reports")


def _python(code: str, cwd) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True)


@pytest.mark.parametrize("folder", FOLDERS)
def test_the_bare_folder_names_are_not_importable_outside_the_checkout(folder, tmp_path):
    bare = _python(f"import {folder}", tmp_path)
    assert bare.returncode != 0 and "ModuleNotFoundError" in bare.stderr, bare.stdout
    ns = _python(f"import fcocheck.{folder} as m; print(m.__name__)", tmp_path)
    assert ns.returncode == 0 and ns.stdout.strip() == f"fcocheck.{folder}", ns.stderr


def test_import_fcocheck_is_cheap_and_its_public_names_resolve(tmp_path):
    code = ("import sys, fcocheck; assert 'numpy' not in sys.modules, 'numpy imported eagerly'; "
            "print(sorted(n for n in fcocheck.__all__ if getattr(fcocheck, n) is None))")
    r = _python(code, tmp_path)
    assert r.returncode == 0 and r.stdout.strip() == "[]", r.stderr
    import fcocheck

    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        fcocheck.nope  # noqa: B018


def test_no_module_of_the_project_imports_a_bare_folder_name():
    """Every module imported in process: no top-level ``solvers`` … module appears in ``sys.modules``.

    (In the checkout the repository root is on ``sys.path``, so a stray ``import solvers`` would
    succeed here and load a second copy of every class; this is where it would show.)
    """
    for folder in FOLDERS:
        pkg = importlib.import_module(f"fcocheck.{folder}")
        for info in pkgutil.walk_packages(pkg.__path__, prefix=f"fcocheck.{folder}."):
            importlib.import_module(info.name)
    assert not [m for m in sys.modules if m.split(".")[0] in FOLDERS]
