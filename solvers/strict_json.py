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

    Args:
        x: a document: mappings, lists and tuples are walked (a mapping's keys too: a non-finite float
            key by its name, a numpy scalar as a Python one).
        default: what JSON has no form for goes through it first (as ``json.dumps`` would call it), and
            its result is walked too; one returning an object of the argument's own type is an error.

    Returns:
        The same document in ``None``, ``bool``, ``int``, finite ``float``, ``str``, ``list`` and ``dict``.

    Raises:
        TypeError: ``default`` returned an object of the type it was given (it would recurse forever).

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
        return {plain(k, default): plain(v, default) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [plain(v, default) for v in x]
    if isinstance(x, np.ndarray):
        return plain(x.tolist(), default)
    y = default(x)
    if type(y) is type(x):
        raise TypeError(f"strict JSON: default({type(x).__name__}) returned a {type(y).__name__}; the rule "
                        "is a value JSON has a form for")
    return plain(y, default)


def dumps(obj: Any, default: Callable[[Any], Any] = str, **kwargs: Any) -> str:
    """``json.dumps`` of ``plain(obj)``: strict JSON (module docstring)."""
    return json.dumps(plain(obj, default), allow_nan=False, **kwargs)
