"""``issparse`` without importing scipy.sparse (0.2 s) in processes that never hold sparse data.

If ``scipy.sparse`` was never imported, no object can be one of its matrices, so the answer is
False without the import; otherwise it is scipy's own ``issparse``.  This keeps ``fcocheck``'s
start-up (``--help``, ``algorithms``) under half a second.
"""

from __future__ import annotations

import sys
from typing import Any


def issparse(x: Any) -> bool:
    """scipy.sparse.issparse(x), exactly, importing nothing."""
    module = sys.modules.get("scipy.sparse")
    return module is not None and bool(module.issparse(x))
