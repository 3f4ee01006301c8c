"""JSON that strict parsers read: a non-finite number is written as a string.

Python's ``json`` writes ∞ and NaN as the bare words ``Infinity`` and ``NaN``, which JSON (RFC 8259)
does not have: ``jq``, JavaScript's ``JSON.parse`` and most other parsers reject the whole document.
What the toolkit prints (``--json``, ``--out``) and writes (``report.json``) goes through ``dumps``: a
non-finite float becomes the string ``"inf"``, ``"-inf"`` or ``"nan"`` — the value is kept, in words (a
ratio to a zero floor is ∞, a fit without points nan) — and no document leaves with a bare non-finite
number (``allow_nan=False`` raises if one slipped through).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from typing import Any


def plain(x: Any, default: Callable[[Any], Any] = str) -> Any:
    """``x`` with every non-finite float replaced by its name, numpy values as Python ones.

    Mappings, lists and tuples are walked; anything else JSON has no form for goes through ``default``
    first (as ``json.dumps`` would call it), and its result is walked too.
    """
    import numpy as np  # here: the command line's start-up does not import numpy

    if isinstance(x, bool) or x is None or isinstance(x, (str, int)):
        return x
    if isinstance(x, (float, np.floating)):
        v = float(x)
        return v if math.isfinite(v) else ("nan" if math.isnan(v) else "inf" if v > 0 else "-inf")
    if isinstance(x, np.integer):
        return int(x)
    if isinstance(x, np.bool_):
        return bool(x)
    if isinstance(x, Mapping):
        return {k: plain(v, default) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [plain(v, default) for v in x]
    if isinstance(x, np.ndarray):
        return plain(x.tolist(), default)
    return plain(default(x), default)


def dumps(obj: Any, default: Callable[[Any], Any] = str, **kwargs: Any) -> str:
    """``json.dumps`` of ``plain(obj)``: strict JSON (module docstring)."""
    return json.dumps(plain(obj, default), allow_nan=False, **kwargs)
