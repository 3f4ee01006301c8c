"""Package layout: the four folders install as ``fcocheck.solvers``, ``.rates``, ``.verify``, ``.reports``.

The folders stay at the top of the repository (the design card's layout); ``package_dir`` maps each
one under the ``fcocheck`` namespace, so only ``fcocheck`` lands on the import path.  Every other
setting is in ``pyproject.toml``; the package list is derived from the folders here, never listed.
"""

from setuptools import find_packages, setup

FOLDERS = ("solvers", "rates", "verify", "reports")

setup(
    packages=["fcocheck"] + [f"fcocheck.{p}" for p in find_packages(include=[f"{f}*" for f in FOLDERS])],
    package_dir={"fcocheck": "fcocheck", **{f"fcocheck.{f}": f for f in FOLDERS}},
    package_data={"fcocheck": ["py.typed"], "fcocheck.reports": ["templates/*.j2"]},
)
