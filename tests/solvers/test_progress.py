"""Progress in a log: plain lines on stderr when it is not a terminal, none when silenced."""

from __future__ import annotations

import re

from fcocheck.solvers import progress
from fcocheck.solvers.progress import LINE_EVERY, Progress


class Clock:
    """A monotonic clock the test moves by hand (no dependence on the machine's speed)."""

    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def test_a_log_gets_a_first_line_periodic_lines_and_a_last_line(monkeypatch, capsys):
    clock = Clock()
    monkeypatch.setattr(progress.time, "monotonic", clock)
    monkeypatch.setattr(progress, "interactive", lambda: False)
    bar = Progress(5, "experiments", None, initial=1, unit="job", lines=True)
    for i in range(4):
        clock.t += LINE_EVERY * (0.6 if i < 2 else 0.1)  # 6 s, 12 s, 13 s, 14 s
        bar.step(failed=i == 2)
    bar.close()
    lines = capsys.readouterr().err.splitlines()
    assert lines == ["experiments: 1/5 jobs (ran 0, reused 1, failed 0), elapsed 0 s",
                     "experiments: 3/5 jobs (ran 2, reused 1, failed 0), elapsed 12 s",
                     "experiments: 5/5 jobs (ran 4, reused 1, failed 1), elapsed 14 s"]
    assert all(re.fullmatch(r"[\w+]+: \d+/\d+ jobs \(ran \d+, reused \d+, failed \d+\), elapsed \d+ s", ln)
               for ln in lines)


def test_no_lines_when_silenced_when_nothing_is_left_or_without_lines(monkeypatch, capsys):
    monkeypatch.setattr(progress, "interactive", lambda: False)
    for bar in (Progress(3, "x", False, lines=True), Progress(3, "x", None, initial=3, lines=True),
                Progress(3, "x", None)):
        for _ in range(3):
            bar.step()
        bar.close()
    assert capsys.readouterr().err == ""
