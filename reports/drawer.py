"""Drawing figures beside the computation: a one-process pool that draws while the workers run.

Matplotlib takes 0.3–1.5 s a figure (tick layout on log axes, PNG and SVG), about 18 s for the
quick report; drawn in the main process after the runs, that is 18 s with every worker idle.  A
``Drawer`` with ``background=True`` hands each figure (plain data, ``reports.plotdata.Figure``) to a
separate process as soon as its data exist, so the drawing overlaps the reproductions' runs; the
files are the same bytes either way (``reports.draw`` is deterministic).  ``background=False``
draws at once, in process (the serial executor, the tests).
"""

from __future__ import annotations

import multiprocessing as mp
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path

from fcocheck.reports.draw import Drawn, draw
from fcocheck.reports.plotdata import Figure
from fcocheck.solvers.files import Writer


class Drawer:
    """Draw figures now, or in one background process; ``wait`` before reading the files."""

    def __init__(self, background: bool) -> None:
        """Start the drawing process when ``background``."""
        if background:
            from fcocheck.verify.sweep.executors import start_helpers

            start_helpers()  # the drawing process never sees Ctrl-C; the driver ends it
        self._pool = ProcessPoolExecutor(1, mp_context=mp.get_context("forkserver")) if background else None
        self._pending: list[Future] = []
        # figures drawn, and found already drawn from the same data and kept: counted as each is on disk
        # (at once in process, at ``wait`` in the background)
        self.drawn = self.reused = 0

    def _count(self, done: Drawn) -> None:
        self.reused += done.reused
        self.drawn += not done.reused

    def submit(self, fig: Figure, out: Path | Writer, earlier: Writer | None = None) -> str:
        """Draw ``fig`` into ``out``, now or in the background (``earlier``: see ``draw``); its stem."""
        if self._pool is None:
            done = draw(fig, out, earlier)
            self._count(done)
            return done.png.stem
        from fcocheck.verify.sweep.executors import sigint_deferred

        with sigint_deferred():  # the drawing process is never cut in half while it starts
            self._pending.append(self._pool.submit(draw, fig, out, earlier))
        return fig.stem

    def wait(self) -> None:
        """Block until every submitted figure is on disk; a drawing error is raised here."""
        pending, self._pending = self._pending, []
        for fut in pending:
            self._count(fut.result())

    def close(self) -> None:
        """Stop the drawing process (pending figures are cancelled)."""
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def __enter__(self) -> Drawer:
        """Use as a context manager: ``close`` on exit."""
        return self

    def __exit__(self, *exc: object) -> None:
        """Close."""
        self.close()
