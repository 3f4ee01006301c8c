"""A Ctrl-C that reached the driver as another exception still stops the executors' loops.

``solvers.ctrl_c``'s handler records the interrupt before raising it; ``Serial``, ``Pool`` and the
command line read the record, so an interrupt that a handler of ``Exception`` swallowed (CPython 3.11
turns one raised in ``__set_name__`` into a ``RuntimeError``) stops the loop at its next result.
Without the record the loop runs to its end (shown: the same loop with the record cleared).
"""

from __future__ import annotations

import signal

import pytest

from fcocheck.solvers import ctrl_c
from fcocheck.verify.sweep.executors import Pool, Serial


@pytest.fixture
def recorded_sigint():
    """The command line's handler in place (as ``cli.main`` installs it); the record cleared after."""
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    ctrl_c.forget()
    ctrl_c.install()
    yield
    ctrl_c.forget()
    signal.signal(signal.SIGINT, old)


class _Field:
    def __set_name__(self, owner: type, name: str) -> None:
        signal.raise_signal(signal.SIGINT)


def _swallow_an_interrupt() -> None:
    """Ctrl-C while a class is defined, under a handler of ``Exception`` (3.12+: it is raised as itself)."""
    try:
        class Defined:  # noqa: F841 - defining it is the point
            field = _Field()
    except Exception:
        pass


def _square(x: int) -> int:
    return x * x


@pytest.mark.parametrize("executor", [Serial, lambda: Pool(2)], ids=["serial", "pool"])
def test_a_swallowed_interrupt_stops_the_loop_at_its_next_result(recorded_sigint, executor):
    ex = executor()
    got, at = [], None
    try:
        with pytest.raises(KeyboardInterrupt):
            for item, result in ex.imap(_square, range(50)):
                got.append(result)
                if item == 2:  # results come in any order from the pool
                    at = len(got)
                    _swallow_an_interrupt()  # on 3.12+ the interrupt leaves here already
        assert ctrl_c.seen() and at is not None
        assert at <= len(got) <= at + 2 * ex.workers, (at, got)  # at most what had finished with it
    finally:
        ex.close()


def test_without_the_record_the_swallowed_interrupt_is_lost(recorded_sigint):
    assert signal.getsignal(signal.SIGINT) is ctrl_c._handler
    got = []
    try:
        for item, result in Serial().imap(_square, range(50)):
            got.append(result)
            if item == 2:
                _swallow_an_interrupt()
                ctrl_c.forget()  # what the loop would see without the record
    except KeyboardInterrupt:  # pragma: no cover - 3.12+ raises it as itself, which no loop can lose
        assert not __import__("sys").version_info < (3, 12)
        return
    assert len(got) == 50


def test_the_handler_is_not_put_over_an_ignored_sigint():
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        ctrl_c.install()
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, old)
