"""One progress bar for runs and sweeps: tqdm on a terminal, nothing otherwise.

Drawn on stderr only when it is a terminal and ``CI`` is not set (never in pipes, logs or CI);
the sweep bar carries ``ran / reused / failed`` counts and tqdm's own rate and ETA (reused runs
are the bar's initial count, so they do not inflate the rate).
"""

from __future__ import annotations

import os
import shutil
import sys
from typing import Any


def interactive() -> bool:
    """Whether to draw: stderr is a terminal and ``CI`` is not set."""
    return sys.stderr.isatty() and not os.environ.get("CI")


class Progress:
    """A tqdm bar when enabled and interactive; every method is a no-op otherwise."""

    def __init__(self, total: int, label: str, enabled: bool | None = None, initial: int = 0,
                 unit: str = "it") -> None:
        self.total, self.ran, self.failed, self.reused = total, 0, 0, initial
        self._bar: Any = None
        if (interactive() if enabled is None else enabled and interactive()) and total > 0:
            from tqdm import tqdm

            width = shutil.get_terminal_size((100, 24)).columns  # a pty of size 0 gets 100
            self._bar = tqdm(total=total, initial=initial, desc=label, unit=unit, file=sys.stderr,
                             mininterval=0.2, ncols=width, leave=True)

    def update(self, done: int, note: str = "") -> None:
        """Move to ``done`` (absolute position), with a short note."""
        if self._bar is not None:
            self._bar.update(done - self._bar.n)
            if note:
                self._bar.set_postfix_str(note, refresh=False)

    def step(self, failed: bool = False) -> None:
        """One more item finished (``failed`` counts it as a failure)."""
        self.ran += 1
        self.failed += int(failed)
        if self._bar is not None:
            counts = f"ran {self.ran} reused {self.reused} failed {self.failed}"
            self._bar.set_postfix_str(counts, refresh=False)
            self._bar.update(1)

    def close(self) -> None:
        """End the bar."""
        if self._bar is not None:
            self._bar.close()
