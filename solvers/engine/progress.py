"""A one-line progress bar on a terminal (stderr), silent otherwise."""

from __future__ import annotations

import sys
import time


class Progress:
    """Redraws ``label [#####.....] r/R`` at most every 0.2 s when stderr is a terminal."""

    def __init__(self, total: int, label: str, enabled: bool) -> None:
        self.total, self.label = total, label
        self.enabled = enabled and sys.stderr.isatty() and total > 0
        self.last = 0.0

    def update(self, done: int, note: str = "") -> None:
        """Show ``done`` of ``total`` rounds."""
        now = time.monotonic()
        if not self.enabled or (now - self.last < 0.2 and done < self.total):
            return
        self.last = now
        filled = int(30 * done / self.total)
        sys.stderr.write(f"\r{self.label} [{'#' * filled}{'.' * (30 - filled)}] {done}/{self.total} {note}")
        sys.stderr.flush()

    def close(self) -> None:
        """End the line."""
        if self.enabled:
            sys.stderr.write("\n")
            sys.stderr.flush()
