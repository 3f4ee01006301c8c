"""The argument parser of every ``fcocheck`` sub-command, importing nothing heavy.

Each sub-command names its implementation as ``"module:function"``; ``reports.cli`` imports that
module only after the arguments parsed, so ``fcocheck --help`` and ``fcocheck algorithms`` start
without loading cvxpy, sympy, matplotlib or the experiments.
"""

from __future__ import annotations

import argparse
from typing import Any

DEFAULT_STORE = "out/fcocheck.sqlite"
BUDGETS = ("quick", "full", "thorough")
EXIT_CODES = ("exit status: 0 success; 1 a result that is not success (diverged run, failed "
              "certification, broken invariant, errored runs, an inconsistent or errored verdict, and an "
              "inconclusive one with validate --strict, a write that failed: a full or read-only disk, "
              "nothing partial left); "
              "2 bad input (nothing written); Ctrl-C: finished work kept, ended by SIGINT (shell status 130)")


#: the largest seed (seeds are stored as SQLite's signed 64-bit integers)
SEED_MAX = 2**63 - 1


def seed(text: str) -> int:
    """A ``--seed`` value: an integer in [0, 2^63 − 1] (argparse prints the rule and exits 2)."""
    try:
        value = int(text)
    except ValueError:
        value = None
    if value is None or not 0 <= value <= SEED_MAX:
        raise argparse.ArgumentTypeError(f"{text!r}; the rule is an integer in [0, 2^63 - 1]")
    return value


def _cmd(parser: argparse.ArgumentParser, target: str) -> None:
    parser.set_defaults(command_target=target)


def add_problem_commands(sub: Any) -> None:
    """``problems`` and ``solve``."""
    p = sub.add_parser("problems", help="list the instance generators")
    p.add_argument("--json", action="store_true")
    _cmd(p, "fcocheck.reports.cli_solve:cmd_problems")
    s = sub.add_parser("solve", help="certified reference optimum of a problem")
    s.add_argument("problem", help="generator name or instance file (.npz)")
    s.add_argument("--param", action="append", default=[], metavar="NAME=VALUE")
    s.add_argument("--seed", type=seed, default=None)
    s.add_argument("--tol", type=float, default=1e-10, help="certified relative accuracy")
    s.add_argument("--out", help="write the solution as JSON")
    s.add_argument("--save-instance", help="also save the instance as .npz")
    s.add_argument("--json", action="store_true", help="print the result as JSON")
    s.add_argument("--no-cache", action="store_true",
                   help="neither read nor write the per-instance cache of cvxpy's answer and the constants "
                   "($FCOCHECK_CACHE, else ~/.cache/fcocheck)")
    _cmd(s, "fcocheck.reports.cli_solve:cmd_solve")


def add_run_commands(sub: Any) -> None:
    """``algorithms`` and ``run``."""
    a = sub.add_parser("algorithms", help="list the algorithms and their hyper-parameters")
    a.add_argument("--json", action="store_true")
    _cmd(a, "fcocheck.reports.cli_run:cmd_algorithms")
    r = sub.add_parser("run", help="run one algorithm and record its trace",
                       epilog="exit status: 0 completed; 1 diverged (the trace is still written); "
                              "2 bad input; Ctrl-C: the completed rounds are written, ended by SIGINT "
                              "(shell status 130)")
    r.add_argument("algorithm", help="registry name (see `fcocheck algorithms`)")
    r.add_argument("--problem", required=True, help="generator name or instance file (.npz)")
    r.add_argument("--problem-param", action="append", default=[], metavar="NAME=VALUE",
                   help="generator parameter")
    r.add_argument("--problem-seed", type=int, default=None, help="generator seed")
    r.add_argument("--rounds", type=int, required=True, help="rounds R >= 0")
    r.add_argument("--local-steps", type=int, default=None, help="local steps K >= 1")
    r.add_argument("--eta-c", type=float, default=None, help="client learning rate")
    r.add_argument("--eta-s", type=float, default=None, help="server learning rate")
    r.add_argument("--eta", type=float, default=None, help="step size (sequential and baselines)")
    r.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                   help="any other hyper-parameter")
    r.add_argument("--oracle", default="exact", help="exact | gaussian:σ | minibatch:b")
    r.add_argument("--seed", type=seed, default=0, help="seed of every random choice of the run")
    r.add_argument("--clients-per-round", type=int, default=None, help="P clients sampled per round")
    r.add_argument("--record", default="round", choices=["round", "step"])
    r.add_argument("--gradient", default="auto", help="auto | batched | loop")
    r.add_argument("--metrics-every", type=int, default=1, metavar="N",
                   help="evaluate objective/gaps/‖G_η‖ after every N-th round and the last (NaN between)")
    r.add_argument("--no-reference", action="store_true", help="skip the certified optimum (no gaps)")
    r.add_argument("--out", help="write the trace (.npz)")
    r.add_argument("--json", action="store_true", help="print the summary as JSON")
    _cmd(r, "fcocheck.reports.cli_run:cmd_run")


def add_theory_commands(sub: Any) -> None:
    """``theorems`` and ``validate``."""
    t = sub.add_parser("theorems",
                       help="the theorems as sympy objects, and the symbolic checks of their algebra")
    t.add_argument("--json", action="store_true")
    t.add_argument("--no-checks", action="store_true", help="list the theorems only")
    t.add_argument("--samples", type=int, default=2000, help="draws of the 12-decade tuning grid")
    _cmd(t, "fcocheck.reports.cli_theory:cmd_theorems")
    v = sub.add_parser("validate", help="run theorem experiments and print verdicts")
    v.add_argument("name", help="'all', a theorem name or an experiment name")
    v.add_argument("--quick", action="store_true", help="small designs")
    v.add_argument("--seed", type=seed, default=0)
    v.add_argument("--json", action="store_true")
    v.add_argument("--out", help="append each experiment's result to this JSON-lines file as it finishes")
    v.add_argument("--problem", metavar="FILE.npz",
                   help="run the experiments that apply to any instance on this one; the others say what "
                        "they need that it lacks")
    v.add_argument("--workers", type=int, default=None,
                   help="processes (default: one per core; 1 = serial in this process)")
    v.add_argument("--strict", action="store_true",
                   help="also exit 1 when a verdict is inconclusive (exit 1 on inconsistent or error always; "
                        "documented disagreements pass)")
    add_quiet(v)
    _cmd(v, "fcocheck.reports.cli_theory:cmd_validate")


def add_check_command(sub: Any) -> None:
    """``check``."""
    c = sub.add_parser("check",
                       help="conformance matrix: invariants and properties (A)-(D) under Hypothesis")
    c.add_argument("--quick", action="store_true", help="30 cases per search")
    c.add_argument("--budget", default="full", choices=list(BUDGETS),
                   help="cases per search without --quick: full (100) or thorough (500)")
    c.add_argument("--algorithm", action="append", help="only this algorithm (repeatable)")
    c.add_argument("--seed", type=seed, default=0, help="seed of the Hypothesis searches")
    c.add_argument("--json", action="store_true")
    c.add_argument("--out", default="out/check", help="directory for check.jsonl and counterexamples/")
    add_quiet(c)
    c.add_argument("--workers", type=int, default=None,
                   help="processes (default: one per core; 1 = serial in this process)")
    _cmd(c, "fcocheck.reports.cli_check:cmd_check")


def add_quiet(p: argparse.ArgumentParser) -> None:
    """-q / --quiet: only the final summary line (or --json) on stdout, no progress on stderr."""
    p.add_argument("-q", "--quiet", action="store_true",
                   help="no progress and no per-item lines: only the final summary (errors still on stderr)")


def add_executor_options(p: argparse.ArgumentParser) -> None:
    """--workers / --scheduler / --dask-local / --store / --no-progress / --quiet."""
    p.add_argument("--store", default=DEFAULT_STORE, help=f"results store (SQLite; default {DEFAULT_STORE})")
    p.add_argument("--workers", type=int, default=None,
                   help="local process pool size (default: one per core; 1 = serial in this process)")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS", help="run on an existing Dask cluster")
    p.add_argument("--dask-local", type=int, default=None, metavar="N",
                   help="start a Dask LocalCluster of N workers")
    p.add_argument("--no-progress", action="store_true", help="never draw the progress bar")
    add_quiet(p)


def add_report_commands(sub: Any) -> None:
    """``report``, ``sweep`` and ``store``."""
    r = sub.add_parser("report",
                       help="run or reuse experiments, checks and reproductions; write HTML + Markdown")
    mode = r.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="quick designs (default)")
    mode.add_argument("--full", action="store_true", help="full designs, more seeds, full conformance budget")
    r.add_argument("--out", default="out/report", help="output directory (default out/report)")
    r.add_argument("--seed", type=seed, default=0)
    r.add_argument("--experiment", action="append", default=[], help="only these experiments (repeatable)")
    r.add_argument("--algorithm", action="append", default=[],
                   help="conformance for these algorithms only (repeatable; 'none' skips it)")
    r.add_argument("--reproduction", action="append", default=[],
                   help="only these reproductions (repeatable; 'none' skips them)")
    r.add_argument("--budget", default=None, help="conformance budget (quick | full | thorough | N cases)")
    r.add_argument("--no-worstcase", action="store_true",
                   help="skip the worst-case (PEPit) tightness studies")
    add_executor_options(r)
    _cmd(r, "fcocheck.reports.cli_report:cmd_report")
    s = sub.add_parser("sweep", help="run a sweep file (grid × seeds) into the results store, resumably",
                       epilog="exit status: 0 every run of the sweep completed or diverged; 1 some "
                              "run is an error (also when reused from the store); 2 bad input")
    s.add_argument("sweep",
                   help="JSON: {'base': {...run config...}, 'axes': {'hp.eta_c': [...]}, 'seeds': 3}")
    add_executor_options(s)
    _cmd(s, "fcocheck.reports.cli_report:cmd_sweep")
    st = sub.add_parser("store", help="summarise or export the results store")
    st.add_argument("action", choices=("info", "export"))
    st.add_argument("--store", default=DEFAULT_STORE)
    st.add_argument("--out", help="export target: FILE.csv or FILE.parquet")
    _cmd(st, "fcocheck.reports.cli_report:cmd_store")
    pl = sub.add_parser("plot", help="draw a metric of the store's runs against the round (PNG + SVG)",
                        epilog="one line per configuration (every field but the seed), the median over "
                               "its seeds with the 10–90%% band")
    pl.add_argument("--store", default=DEFAULT_STORE, help=f"results store (default {DEFAULT_STORE})")
    pl.add_argument("--metric", default="gap", help="a recorded metric (default gap)")
    pl.add_argument("--where", action="append", default=[], metavar="FIELD=VALUE",
                    help="keep runs whose field equals VALUE, e.g. algorithm=feddualavg hp.eta_c=0.1 "
                         "(repeatable; fields as in `fcocheck store export`)")
    pl.add_argument("--all-versions", action="store_true",
                    help="runs of every code version (default: this code's only)")
    pl.add_argument("--out", default="out/plot", help="output directory (default out/plot)")
    _cmd(pl, "fcocheck.reports.cli_plot:cmd_plot")


def add_worstcase_command(sub: Any) -> None:
    """``worstcase``."""
    w = sub.add_parser("worstcase",
                       help="worst cases by performance estimation (PEPit) beside a theorem's bound",
                       epilog="exit status: 0 every verdict consistent or a documented disagreement; "
                              "1 an inconsistent or inconclusive verdict; 2 bad input")
    w.add_argument("target", help="a theorem target (fco-4.3, fco-4.2, fco-lemma-4.4, fco-lemma-4.5, "
                                  "fco-4.1, fco-4.1/fedmid, ...; 'list' lists them) or an algorithm "
                                  "(feddualavg, pgm, ...)")
    mode = w.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="quick grid: M·K·R ≤ 16 (default)")
    mode.add_argument("--full", action="store_true", help="full grid: M·K·R ≤ 24")
    w.add_argument("--grid", nargs="+", default=[], metavar="FIELD=V1,V2",
                   help="replace grid axes, e.g. K=1,2 R=1,2,4 eta=0.1 zeta=0,1 M=2")
    w.add_argument("--json", action="store_true", help="print the result as JSON")
    add_executor_options(w)
    _cmd(w, "fcocheck.reports.cli_worstcase:cmd_worstcase")


def build_parser(version: str) -> argparse.ArgumentParser:
    """The argument parser of every sub-command."""
    parser = argparse.ArgumentParser(prog="fcocheck", epilog=EXIT_CODES,
                                     description="Check the theory of federated composite optimization "
                                                 "against real runs.")
    parser.add_argument("--version", action="version", version=f"fcocheck {version}")
    parser.add_argument("--plugin", action="append", default=[], metavar="MODULE",
                        help="a module name or .py file listing method cards (fcocheck_cards = [Card(...)]); "
                             "they become registry entries for every command (repeatable)")
    sub = parser.add_subparsers(dest="command", required=True)
    add_problem_commands(sub)
    add_run_commands(sub)
    add_theory_commands(sub)
    add_check_command(sub)
    add_report_commands(sub)
    add_worstcase_command(sub)
    return parser
