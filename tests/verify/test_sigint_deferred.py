"""A Ctrl-C inside ``sigint_deferred`` acts at the block's end: never in its middle, never lost."""

from __future__ import annotations

import os
import signal

import pytest

from fcocheck.verify.sweep.executors import sigint_deferred


@pytest.fixture
def python_sigint():
    """SIGINT raising KeyboardInterrupt (Python's default), whatever the runner installed; put back after."""
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, old)


def test_the_interrupt_comes_after_the_block_and_survives_an_error_in_it(python_sigint):
    done = []
    with pytest.raises(KeyboardInterrupt):
        with sigint_deferred():
            os.kill(os.getpid(), signal.SIGINT)
            done.append("the block went on")
    assert done == ["the block went on"]
    with pytest.raises(KeyboardInterrupt) as info:  # the block's own error does not swallow it
        with sigint_deferred():
            os.kill(os.getpid(), signal.SIGINT)
            raise OSError("a worker failed to start")
    assert isinstance(info.value.__context__, OSError)
    with pytest.raises(KeyboardInterrupt):  # the check can fail: outside the block it cuts at once
        os.kill(os.getpid(), signal.SIGINT)
        done.append("not reached")
    assert done == ["the block went on"]


def test_an_ignored_interrupt_stays_ignored_and_a_handler_gets_its_frame(python_sigint):
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with sigint_deferred():
        os.kill(os.getpid(), signal.SIGINT)
    got = []
    signal.signal(signal.SIGINT, lambda signum, frame: got.append(frame))
    with sigint_deferred():
        os.kill(os.getpid(), signal.SIGINT)
    assert len(got) == 1 and got[0] is not None
