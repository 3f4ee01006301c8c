"""The code version a result was computed with: package version + a hash of the computing code.

``code_version()`` = ``"<version>+<12 hex>"`` where the hex is the SHA-256 over the sorted relative
paths and contents of every ``.py`` file in ``solvers/``, ``rates/`` and ``verify/`` (the packages
that produce numbers; ``reports/`` only draws them).  It is exact for edited, uncommitted trees,
which a git commit id is not, and needs no git.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from importlib import metadata
from pathlib import Path

PACKAGES = ("solvers", "rates", "verify")


@lru_cache(maxsize=1)
def code_version() -> str:
    """``<version>+<hash>`` of the installed computing code."""
    root = Path(__file__).resolve().parents[2]
    h = hashlib.sha256()
    for pkg in PACKAGES:
        for path in sorted((root / pkg).rglob("*.py")):
            h.update(str(path.relative_to(root)).encode())
            h.update(path.read_bytes())
    try:
        version = metadata.version("fcocheck")
    except metadata.PackageNotFoundError:
        version = "0+unknown"
    return f"{version}+{h.hexdigest()[:12]}"
