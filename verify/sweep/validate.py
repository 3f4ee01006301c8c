"""Checking a sweep before anything runs: every configuration against every rule it can be held to.

A typo in a sweep file (an unknown algorithm, hyper-parameter or generator parameter, a malformed
oracle, more clients per round than the instance has) must stop the command with exit 2 before a
store is opened, not become a store full of error rows.  ``check_configs`` builds each distinct
instance once (a generator is cheap next to the runs; an instance file is the user's data and is
validated whole) and applies the engine's own ``check_setup`` to every configuration.  What is
left for run time are genuine run failures (a reference that cannot be certified, a numerical
exception), recorded as ``error`` runs.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from fcocheck.verify.sweep.config import InvalidSweepError, RunConfig

MAX_LISTED = 5


def _problem(cfg: RunConfig, cache: dict[str, Any]) -> Any:
    key = cfg.instance_spec
    if key not in cache:
        if cfg.problem.file is None:
            from fcocheck.solvers.generators import check_parameters, generate

            params = check_parameters(cfg.problem.generator, dict(cfg.problem.params), strict=True)
            cache[key] = generate(cfg.problem.generator, **params)
        else:
            from fcocheck.verify.sweep.task import load_file_instance

            cache[key] = load_file_instance(cfg.problem.file, cfg.problem.sha256)
    return cache[key]


def check_config(cfg: RunConfig, cache: dict[str, Any] | None = None) -> None:
    """Raise the engine's own error for a configuration that cannot run."""
    from fcocheck.solvers.engine.run import check_setup

    check_setup(cfg.algorithm, _problem(cfg, {} if cache is None else cache), dict(cfg.hp), cfg.rounds,
                cfg.oracle, cfg.participation, cfg.record)


def check_configs(configs: Iterable[RunConfig]) -> None:
    """Check every configuration; raise one ``InvalidSweepError`` listing the distinct problems."""
    from fcocheck.solvers.errors import FcocheckError

    problems: dict[str, list[RunConfig]] = {}
    cache: dict[str, Any] = {}
    for cfg in configs:
        try:
            check_config(cfg, cache)
        except FcocheckError as exc:
            problems.setdefault(str(exc), []).append(cfg)
    if problems:
        lines = [f"{msg} (in {len(cs)} run configuration(s), e.g. {cs[0].algorithm} seed {cs[0].seed})"
                 for msg, cs in list(problems.items())[:MAX_LISTED]]
        more = len(problems) - MAX_LISTED
        raise InvalidSweepError("the sweep cannot run, nothing was executed or written: "
                                + "; ".join(lines) + (f"; and {more} more" if more > 0 else ""))
