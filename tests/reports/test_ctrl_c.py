"""Ctrl-C ends every long command by SIGINT, its finished work kept, no process left behind.

The command runs in its own process group with SIGINT at its default (as in a terminal), and the
whole group receives SIGINT — the driver, the forkserver, the pool's workers, the drawing process —
at several moments after the command has entered its main work (its store or output file exists):
at once (the pool's workers still starting: a driver that dies while the forkserver hands a worker
its start-up data leaves a child printing a traceback), a little later, and well into the runs.
None of these commands can finish in the few seconds given, so the end must be by SIGINT (the shell's
status 130, ``tests/reports/test_end_by_sigint.py``): a Ctrl-C that is lost (ignored while helper
processes start) lets the command run on and fails here, and so does an exit with any status.  No tight
timing: the moments are lower bounds, and the waits for the exit are generous.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

CLI = [sys.executable, "-m", "fcocheck.reports.cli"]
MOMENTS = (0.0, 0.3, 1.0, 2.5)  # seconds after the command's store or output file appears
COMMANDS = {
    "worstcase": (["worstcase", "fco-4.3", "--quick", "--workers", "2", "--store", "s.sqlite"], "s.sqlite"),
    "check": (["check", "--quick", "--workers", "2", "--out", "chk"], "chk/check.jsonl"),
    "report": (["report", "--quick", "--workers", "2", "--store", "s.sqlite", "--out", "rep"], "s.sqlite"),
}


def _interrupt(cmd: list[str], started: Path, cwd: Path, moment: float) -> tuple[int | None, str, list[str]]:
    def terminal_like() -> None:  # SIGINT at its default, as under a shell with job control
        signal.signal(signal.SIGINT, signal.SIG_DFL)

    p = subprocess.Popen(cmd, cwd=cwd, start_new_session=True, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, preexec_fn=terminal_like)
    deadline = time.monotonic() + 300
    while not started.exists() and p.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(moment)
    if p.poll() is None:
        os.killpg(p.pid, signal.SIGINT)
    out, _ = p.communicate(timeout=300)
    left = ["?"]
    for _ in range(60):  # helpers exit once the driver is gone: a grace, not a timing claim
        left = subprocess.run(["pgrep", "-g", str(p.pid)], capture_output=True, text=True).stdout.split()
        if not left:
            break
        time.sleep(0.5)
    if left:
        os.killpg(p.pid, signal.SIGKILL)
    return p.returncode, out.decode(errors="replace"), left


@pytest.mark.parametrize("moment", MOMENTS)
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_ctrl_c_ends_the_command_by_sigint_and_no_process_left(tmp_path, command, moment):
    args, marker = COMMANDS[command]
    code, out, left = _interrupt([*CLI, *args], tmp_path / marker, tmp_path, moment)
    assert code == -signal.SIGINT, (code, out[-1500:])
    assert "Traceback" not in out and not left, (out[-1500:], left)
    assert "interrupted" in out, out[-800:]
