"""Building a report: run or reuse every job, draw the figures, assemble the ``Report``.

Building a report: run (or reuse from the store) the experiments, the conformance checks and the paper
reproductions, draw the figures, and assemble the ``Report`` the renderers print.
"""

from __future__ import annotations

import platform
import subprocess
import time
from collections.abc import Callable
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

from fcocheck.rates.catalog import THEOREMS
from fcocheck.reports.drawer import Drawer
from fcocheck.reports.model import ExperimentBlock, Report, ReproductionBlock, TheoremSection, TightnessBlock
from fcocheck.reports.plotdata import experiment_figure, reproduction_figure, tightness_figure
from fcocheck.reports.stored import reading
from fcocheck.solvers import algorithms, ctrl_c, strict_json
from fcocheck.solvers.engine.trace import jsonable
from fcocheck.solvers.error_text import describe
from fcocheck.solvers.files import Writer
from fcocheck.verify.experiments import EXPERIMENTS
from fcocheck.verify.properties import PROPERTIES, R_A, R_O1, TOL_A, TOL_O1
from fcocheck.verify.report_jobs import conformance_jobs, experiment_jobs, write_files
from fcocheck.verify.reproductions.base import failed_reproduction
from fcocheck.verify.studies import (
    REPRODUCTION,
    THEOREM,
    Study,
    declared_runs,
    names,
    plan,
    run_reproductions,
)
from fcocheck.verify.sweep.executors import cores
from fcocheck.verify.sweep.session import Session
from fcocheck.verify.worstcase import REPORT_STEPS, REPORT_TARGETS, TARGETS, plan_jobs, tightness_many

REPRODUCTIONS = names(REPRODUCTION)


def _theorems(
    results: dict[str, dict[str, Any]], figures: dict[str, tuple[str | None, str]]
) -> list[TheoremSection]:
    by: dict[str, list[ExperimentBlock]] = {}
    for name, res in results.items():
        stem, caption = figures.get(name, (None, ""))
        with reading("experiment", name):
            by.setdefault(str(res["theorem"]), []).append(ExperimentBlock(res, stem, caption))
    out = []
    for thm, blocks in by.items():
        if thm not in THEOREMS:  # users' claims: a section (and a gallery page) each, with its statement
            for b in blocks:
                res = b.result
                with reading("experiment", res.get("name")):
                    cite = "; ".join(map(str, res.get("notes", []))) or "stated in your plugin module"
                    out.append(TheoremSection(f"claim-{res['name']}", f"your claim {res['name']}", cite,
                                              str(res["measured"].get("statement", "")), [], [b]))
            continue
        t = THEOREMS[thm]
        out.append(TheoremSection(thm, t.title, t.citation, _statement(t), list(t.conditions), blocks))
    return out


def _statement(t: Any) -> str:
    rel = {"leq": "≤", "lesssim": "≲", "asymp": "≍", "eq": "=", "structure": "≤ (free constants)"}[t.relation]
    return f"LHS {rel} {t.bound}" + (f";  tuned: {t.tuned}" if t.tuned is not None else "")


def _reproduce(session: Session, studies: list[Study], quick: bool, seed: int) -> list[Any]:
    """The plan's reproduction studies in dependency order; one that raises is recorded as an error."""
    results = run_reproductions(session, studies, quick, seed, failed_reproduction)
    return [results[s.name] for s in studies if s.name in results]


def _tightness_names(quick: bool) -> list[str]:
    return list(REPORT_TARGETS) if quick else list(TARGETS)


def _tightness_jobs(quick: bool) -> list[Any]:
    """The worst-case jobs ``_tightness`` will ask for (none when a grid fails: it reports why)."""
    try:
        return plan_jobs(_tightness_names(quick), quick, cap=REPORT_STEPS if quick else None)
    except Exception:  # noqa: BLE001 - _tightness meets the same error and records it
        ctrl_c.check()  # unless it is a Ctrl-C in another form
        return []


def _tightness(session: Session, quick: bool, errors: list[str],
               submit: Callable[[Any], str]) -> list[TightnessBlock]:
    """The worst-case tightness studies (quick: ``REPORT_TARGETS``; full: all), each with its figure."""
    names = _tightness_names(quick)
    try:
        payloads = tightness_many(names, quick, session, cap=REPORT_STEPS if quick else None)
    except KeyboardInterrupt:
        raise
    except Exception as exc:  # a failing study is reported, never a crash of the report
        ctrl_c.check()  # unless it is a Ctrl-C in another form
        errors.append(f"worst-case studies: {describe(exc)}")
        return []
    blocks = []
    for res in payloads:
        with reading("worst-case", res.get("name") if isinstance(res, dict) else res):
            fig = tightness_figure(res)
        blocks.append(
            TightnessBlock(res, submit(fig) if fig else None, fig.caption if fig else "")
        )
    return blocks


def _job_errors(kind: str, payloads: dict[str, dict[str, Any]]) -> list[str]:
    return [
        f"{kind} {name}: {p.get('error', 'error')}"
        for name, p in payloads.items()
        if p.get("status") == "error" and "error" in p
    ]


def _git() -> str | None:
    try:
        out = subprocess.run(
            ["git", "describe", "--always", "--dirty"],
            capture_output=True,
            text=True,
            cwd=Path(__file__).resolve().parents[1],
            timeout=5,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


def user_definitions() -> dict[str, str]:
    """Every user card and claim loaded, by name → its digest (what keys its stored results)."""
    cards = {f"card {n}": algorithms.definition(n) for n in sorted(algorithms.ALGORITHMS)}
    claims = {f"claim {e.name}": e.definition for e in EXPERIMENTS.values()}
    return {k: d for k, d in {**cards, **claims}.items() if d is not None}


def provenance(session: Session, quick: bool, seed: int, seconds: float, budget: str) -> dict[str, Any]:
    """Version, seeds, configurations, machine and what was run vs reused."""
    versions = {
        p: metadata.version(p) for p in ("numpy", "scipy", "sympy", "cvxpy", "hypothesis", "matplotlib")
    }
    sweeps = [
        {
            "label": label,
            "runs": s.requested,
            "reused": s.reused,
            "executed": dict(s.executed),
            "recorded_first_by_another_process": s.raced,
            "seconds": round(s.seconds, 2),
        }
        for label, s in session.summaries
    ]
    return {
        "fcocheck": metadata.version("fcocheck"),
        "code_version": session.version,
        "git": _git(),
        "mode": "quick" if quick else "full",
        "seed": seed,
        "seeds_note": "every random choice flows from the seed: experiment seeds seed…seed+n−1, "
        "conformance search seed, reproduction seeds seed…seed+n−1",
        "conformance_budget": budget,
        "store": str(session.store.path),
        "store_code_versions": session.store.code_versions(),
        "user_definitions": user_definitions(),
        "executor": f"{session.executor.name} ({session.executor.workers} worker(s))",
        "sweeps": sweeps,
        "jobs": {"run": session.jobs_run, "reused": session.jobs_reused},
        "machine": {
            "platform": platform.platform(),
            "python": platform.python_version(),
            "cpu": platform.processor() or platform.machine(),
            "cores": cores(),
            "host": platform.node(),
        },
        "libraries": versions,
        "generated": datetime.now(UTC).isoformat(timespec="seconds"),
        "wall_seconds": round(seconds, 1),
    }


def build(
    session: Session,
    out: Path,
    quick: bool = True,
    seed: int = 0,
    experiments: list[str] | None = None,
    algs: list[str] | None = None,
    reproductions: tuple[str, ...] = REPRODUCTIONS,
    budget: str | None = None,
    worstcase: bool = True,
    earlier: Path | None = None,
) -> Report:
    """Run or reuse everything, draw every figure, and return the report (not yet rendered).

    Every file goes under ``out`` (a stage: ``solvers.staging``); ``earlier`` is the folder an earlier
    report was written to, whose figures are kept when drawn from the same data (``reports.draw``).
    """
    start = time.perf_counter()
    mode = "quick" if quick else "full"
    budget = budget or mode
    selected = (list(EXPERIMENTS) if experiments is None else list(experiments)) + list(reproductions)
    studies = plan(selected)  # closed under declared dependencies, each after what it needs
    theorem_names = [s.name for s in studies if s.kind == THEOREM]
    algs = algs if algs is not None else sorted(algorithms.ALGORITHMS)
    # one pass of the executor (longest first) for the theorem studies, the conformance slices, the
    # worst-case points and the reproductions' tuning runs: no worker idles between kinds
    results, conf, _ = session.job_batches([
        ("experiment", mode, seed, experiment_jobs(theorem_names, quick, seed)),
        ("conformance", budget, seed, conformance_jobs(algs, budget, seed) if algs else []),
        ("worstcase", "pep", 0, _tightness_jobs(quick) if worstcase else []),
    ], runs=declared_runs(studies, quick, seed))
    errors = _job_errors("experiment", results) + _job_errors("conformance", conf)
    results = {k: v for k, v in results.items() if "theorem" in v}
    write_files(conf, out)
    figures = Writer(out).within("figures")
    kept = Writer(earlier).within("figures") if earlier is not None else None
    # figures are drawn beside the reproductions' runs when the executor has workers to keep busy
    with Drawer(background=session.executor.workers > 1) as drawer:
        def submit(fig: Any) -> str:
            return drawer.submit(fig, figures, kept)

        tight = _tightness(session, quick, errors, submit) if worstcase else []
        constants = {
            b.result["name"]: b.result["verdicts"]["tightness"]["evidence"].get("c_max") for b in tight
        }
        drawn: dict[str, tuple[str | None, str]] = {}
        for name, res in results.items():
            with reading("experiment", name):
                fig = experiment_figure(res, constants.get(res.get("theorem", "")))
            drawn[name] = (submit(fig), fig.caption) if fig else (None, "")
        blocks = []
        for rep in _reproduce(session, studies, quick, seed):
            fig = reproduction_figure(rep)
            stem = submit(fig) if fig else None
            blocks.append(ReproductionBlock(rep, stem, fig.caption if fig else ""))
        drawer.wait()
    cells = [c for payload in conf.values() for c in payload.get("cells", [])]
    report = Report(
        mode,
        seed,
        _theorems(results, drawn),
        invariants=[c for c in cells if c["column"] not in PROPERTIES],
        properties=[c for c in cells if c["column"] in PROPERTIES],
        algorithms=algs,
        property_rules={p: text for p, (_, text) in PROPERTIES.items()},
        reproductions=blocks,
        tightness=tight,
        errors=errors,
    )
    report.provenance = provenance(session, quick, seed, time.perf_counter() - start, budget)
    report.provenance["figures"] = {"drawn": drawer.drawn, "reused": drawer.reused}
    report.provenance["rules"] = {
        "A": f"drift ≤ {TOL_A:g} over {R_A} rounds from w*",
        "B–D": f"relative gap ≤ {TOL_O1:g} (a solution, not an approximation) within {R_O1} rounds",
    }
    Writer(out).write_text("report.json", strict_json.dumps(report.as_dict(), indent=1, default=jsonable))
    return report
