"""Top-level functions a pool worker can import: they kill their own worker on purpose."""

from __future__ import annotations

import os
from pathlib import Path


def die_once_then_square(item: tuple[int, str]) -> int:
    """Kill the worker the first time ``item`` runs (a marker file remembers), then succeed."""
    value, marker = item
    if value == 3 and not Path(marker).exists():
        Path(marker).write_text("died")
        os._exit(9)
    return value * value


def always_die_on_three(item: int) -> int:
    """Kill the worker every time item 3 runs."""
    if item == 3:
        os._exit(9)
    return item * item
