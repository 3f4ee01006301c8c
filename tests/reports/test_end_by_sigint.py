"""A command that Ctrl-C stopped ends by SIGINT, the same way whatever the interrupt cut.

``cli.main`` keeps the finished work, prints one line, then leaves by ``KeyboardInterrupt`` so that
CPython, after its normal shutdown, ends the process by SIGINT — what a shell needs to stop the loop or
script that ran the command.  The rule is checked on four interrupts: raised in plain code, raised inside
a string run by ``exec`` (where CPython records it even when the program catches it: a dataclass or named
tuple defined by an import at that moment), and each caught by the command itself, which then returns
``INTERRUPTED``; and three that went astray, which the SIGINT handler's record still ends as
interrupted: one that a handler of ``Exception`` swallowed (CPython 3.11 wraps an interrupt raised in
``__set_name__`` in a ``RuntimeError``), the same wrapped one left uncaught, and one dropped by Python
itself (raised in ``__del__``, on every version).  The previous ending — return 130 — fails the rule: its
process ended by SIGINT after an ``exec``-cut interrupt, with status 130 after a plain one, and the
astray ones ran on (status 0) or ended in a traceback (status 1).
"""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap

import pytest

#: a command that catches the interrupt itself (it prints its own line: here, none)
CAUGHT = "import signal\n    try:\n        {}\n    except KeyboardInterrupt:\n        return INTERRUPTED"
#: SIGINT while a class is being defined (a dataclass, by an import), under a handler of Exception
SWALLOWED = """import signal

    class Field:
        def __set_name__(self, owner, name):
            signal.raise_signal(signal.SIGINT)

    try:
        class Defined:
            field = Field()
    except Exception:  # CPython 3.11 hands the interrupt over as a RuntimeError
        pass
    return 0"""
#: the same interrupt, left to leave the command (3.11: as a RuntimeError; 3.12+: as itself)
PROPAGATED = """import signal

    class Field:
        def __set_name__(self, owner, name):
            signal.raise_signal(signal.SIGINT)

    class Defined:
        field = Field()"""
#: SIGINT inside __del__: Python reports it as unraisable and goes on (silenced: the command's output)
DROPPED = """import signal

    sys.unraisablehook = lambda unraisable: None

    class Dropped:
        def __del__(self):
            signal.raise_signal(signal.SIGINT)
            sum(range(10))

    Dropped()
    return 0"""
SCENARIOS = {
    "raised": "raise KeyboardInterrupt",
    "raised in exec": "exec('raise KeyboardInterrupt')",
    "caught": CAUGHT.format("signal.raise_signal(signal.SIGINT)"),
    "caught from exec": CAUGHT.format("exec('import signal; signal.raise_signal(2); sum(range(9))')"),
    "swallowed": SWALLOWED,
    "propagated": PROPAGATED,
    "dropped": DROPPED,
    "dropped, then an error": DROPPED.replace("return 0", "raise RuntimeError('after the Ctrl-C')"),
}
OLD_MAIN = '''
def main(argv=None):  # the ending before this rule: the status of the command, 130 on Ctrl-C
    try:
        return cli._run(argv)
    except KeyboardInterrupt:
        print("fcocheck: interrupted (Ctrl-C); what finished is kept", file=sys.stderr)
        return 130
'''


def _end(tmp_path, scenario: str, old: bool = False) -> tuple[int, str]:
    """Run ``main`` in a fresh interpreter (as ``python -m``) with a command that meets ``scenario``."""
    module = textwrap.dedent('''
        import sys
        from fcocheck.reports import cli
        from fcocheck.solvers.ctrl_c import INTERRUPTED
        ''') + f"\n\ndef command(argv):\n    {SCENARIOS[scenario]}\n\n\ncli._run = command\nmain = cli.main\n"
    module += (OLD_MAIN if old else "") + "\nsys.exit(main([]))\n"
    (tmp_path / "entry.py").write_text(module)

    def start() -> None:  # SIGINT at its default, as under a shell with job control
        signal.signal(signal.SIGINT, signal.SIG_DFL)

    p = subprocess.run([sys.executable, "-m", "entry"], cwd=tmp_path, capture_output=True, text=True,
                       preexec_fn=start, timeout=120)
    return p.returncode, p.stderr


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_an_interrupted_command_ends_by_sigint_without_a_traceback(tmp_path, scenario):
    code, err = _end(tmp_path, scenario)
    assert code == -signal.SIGINT, (code, err)
    line = "" if scenario.startswith("caught") else "fcocheck: interrupted (Ctrl-C); what finished is kept"
    assert err.strip() == line, err  # one line (a command that caught it prints its own: none here)


def test_the_previous_ending_fails_the_rule_its_status_depends_on_where_the_interrupt_was_raised(tmp_path):
    ends = {s: _end(tmp_path, s, old=True)[0] for s in SCENARIOS}
    assert ends["raised"] == ends["caught"] == 130, ends
    assert ends["raised in exec"] == ends["caught from exec"] == -signal.SIGINT, ends
    # the swallowed Ctrl-C is lost: the command "succeeds" (3.12 no longer wraps it: it is raised)
    assert ends["swallowed"] == (0 if sys.version_info < (3, 12) else 130), ends
    assert ends["propagated"] == (1 if sys.version_info < (3, 12) else 130), ends  # a traceback, status 1
    assert ends["dropped"] == 0, ends  # lost on every version
    assert ends["dropped, then an error"] == 1, ends  # an error's traceback and status 1 on every version


def test_a_command_that_was_not_interrupted_keeps_its_status(tmp_path):
    (tmp_path / "entry.py").write_text(textwrap.dedent('''
        import sys
        from fcocheck.reports import cli
        cli._run = lambda argv: 1
        sys.exit(cli.main([]))
        '''))
    p = subprocess.run([sys.executable, "-m", "entry"], cwd=tmp_path, capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 1 and p.stderr == "", (p.returncode, p.stderr)


def _interrupt(argv):
    raise KeyboardInterrupt


def test_in_process_main_puts_back_the_handler_and_quiets_only_its_own_exception(monkeypatch, capsys):
    from fcocheck.reports import cli
    from fcocheck.solvers import ctrl_c

    old, hook = signal.signal(signal.SIGINT, signal.default_int_handler), sys.excepthook
    try:
        for _ in range(2):  # twice: the second call does not wrap the first call's hook
            monkeypatch.setattr(cli, "_run", _interrupt)
            with pytest.raises(KeyboardInterrupt) as info:
                cli.main([])
            assert signal.getsignal(signal.SIGINT) is signal.default_int_handler and not ctrl_c.seen()
            assert sys.excepthook.fcocheck_hook is hook
        monkeypatch.setattr(cli, "_run", lambda argv: 0)
        assert cli.main([]) == 0  # no Ctrl-C left over from the calls before
        capsys.readouterr()
        sys.excepthook(KeyboardInterrupt, info.value, None)  # the exception main raised: not printed
        assert capsys.readouterr().err == ""
        try:
            raise KeyboardInterrupt("another one")
        except KeyboardInterrupt as other:
            sys.excepthook(KeyboardInterrupt, other, other.__traceback__)  # any other: printed
        assert "another one" in capsys.readouterr().err
    finally:
        sys.excepthook = hook
        signal.signal(signal.SIGINT, old)


def test_off_the_main_thread_main_returns_the_status_instead(monkeypatch):
    import threading

    from fcocheck.reports import cli
    from fcocheck.solvers.ctrl_c import INTERRUPTED

    monkeypatch.setattr(cli, "_run", _interrupt)
    out = []
    t = threading.Thread(target=lambda: out.append(cli.main([])))
    t.start()
    t.join(120)
    assert out == [INTERRUPTED]


def test_a_real_error_without_a_ctrl_c_still_prints_its_traceback_and_exits_1(tmp_path):
    (tmp_path / "entry.py").write_text(textwrap.dedent('''
        import sys
        from fcocheck.reports import cli

        def command(argv):
            raise RuntimeError("a defect, not an interrupt")

        cli._run = command
        sys.exit(cli.main([]))
        '''))
    p = subprocess.run([sys.executable, "-m", "entry"], cwd=tmp_path, capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 1 and "Traceback" in p.stderr and "a defect, not an interrupt" in p.stderr
    assert "interrupted" not in p.stderr, p.stderr


def _signalled(argv):
    signal.raise_signal(signal.SIGINT)  # a real Ctrl-C: the handler records it
    sum(range(10))


def test_in_process_main_forgets_a_real_ctrl_c(monkeypatch):
    from fcocheck.reports import cli
    from fcocheck.solvers import ctrl_c

    old, hook = signal.signal(signal.SIGINT, signal.default_int_handler), sys.excepthook
    try:
        monkeypatch.setattr(cli, "_run", _signalled)
        with pytest.raises(KeyboardInterrupt):
            cli.main([])
        assert not ctrl_c.seen() and signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        sys.excepthook = hook
        signal.signal(signal.SIGINT, old)
