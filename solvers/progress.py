"""One progress display for runs and sweeps: tqdm on a terminal, plain lines in a log.

On stderr.  On a terminal (and ``CI`` unset) a tqdm bar with ``ran / reused / failed`` counts and
tqdm's rate and ETA (reused runs are the bar's initial count, so they do not inflate the rate).
Elsewhere (a pipe, a log file, CI) a display created with ``lines=True`` prints a plain line —
``label: done/total unit, ran / reused / failed, elapsed`` — at most every ``LINE_EVERY`` seconds and
when it finishes, so ``scripts/main.sh > log 2>&1`` shows how far a long job is; ``enabled=False``
(``--no-progress``) silences both.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from typing import Any

#: Seconds between two plain progress lines (a log, not a terminal).
LINE_EVERY = 10.0


def interactive() -> bool:
    """Whether to draw: stderr is a terminal and ``CI`` is not set."""
    return sys.stderr.isatty() and not os.environ.get("CI")


class Progress:
    """A tqdm bar when enabled and interactive; every method is a no-op otherwise."""

    def __init__(self, total: int, label: str, enabled: bool | None = None, initial: int = 0,
                 unit: str = "it", lines: bool = False) -> None:
        self.total, self.ran, self.failed, self.reused = total, 0, 0, initial
        self.label, self.unit = label, unit
        self._bar: Any = None
        self._lines = lines and enabled is not False and not interactive() and total > initial
        self._start = self._last = time.monotonic()
        if self._lines:
            self._line()
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

    def _line(self) -> None:
        done = self.reused + self.ran
        elapsed = time.monotonic() - self._start
        print(f"{self.label}: {done}/{self.total} {self.unit}s (ran {self.ran}, reused {self.reused}, "
              f"failed {self.failed}), elapsed {elapsed:.0f} s", file=sys.stderr, flush=True)
        self._last = time.monotonic()

    def step(self, failed: bool = False) -> None:
        """One more item finished (``failed`` counts it as a failure)."""
        self.ran += 1
        self.failed += int(failed)
        if self._lines and (time.monotonic() - self._last >= LINE_EVERY
                            or self.reused + self.ran == self.total):
            self._line()
        if self._bar is not None:
            counts = f"ran {self.ran} reused {self.reused} failed {self.failed}"
            self._bar.set_postfix_str(counts, refresh=False)
            self._bar.update(1)

    def close(self) -> None:
        """End the bar."""
        if self._bar is not None:
            self._bar.close()
