"""A sweep progress bar with an ETA on a terminal; silent when stderr is not one (CI, pipes)."""

from __future__ import annotations

import os
import sys
import time


def interactive() -> bool:
    """Whether to draw: stderr is a terminal and ``CI`` is not set."""
    return sys.stderr.isatty() and not os.environ.get("CI")


def _clock(seconds: float) -> str:
    s = int(round(seconds))
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"


class SweepProgress:
    """``label [####....] done/total  ran a  reused b  failed c  ETA h:mm:ss``.

    The ETA is (remaining runs) × (wall seconds per run executed so far in this session); runs
    reused from the store do not count towards the rate.
    """

    def __init__(self, total: int, reused: int, label: str = "sweep", enabled: bool | None = None) -> None:
        self.total, self.reused, self.label = total, reused, label
        self.enabled = interactive() if enabled is None else enabled
        self.start, self.last, self.ran, self.failed = time.monotonic(), 0.0, 0, 0

    def step(self, failed: bool = False) -> None:
        """One more run finished."""
        self.ran += 1
        self.failed += int(failed)
        self.draw()

    def line(self) -> str:
        """The current text of the bar."""
        done = self.reused + self.ran
        elapsed = time.monotonic() - self.start
        eta = "—" if not self.ran else _clock(elapsed / self.ran * (self.total - done))
        filled = int(30 * done / max(self.total, 1))
        return (
            f"{self.label} [{'#' * filled}{'.' * (30 - filled)}] {done}/{self.total}  ran {self.ran}  "
            f"reused {self.reused}  failed {self.failed}  ETA {eta}"
        )

    def draw(self) -> None:
        """Redraw at most every 0.2 s (and at the end)."""
        now = time.monotonic()
        if not self.enabled or (now - self.last < 0.2 and self.reused + self.ran < self.total):
            return
        self.last = now
        sys.stderr.write("\r" + self.line())
        sys.stderr.flush()

    def close(self) -> None:
        """End the line."""
        if self.enabled:
            sys.stderr.write("\n")
            sys.stderr.flush()
