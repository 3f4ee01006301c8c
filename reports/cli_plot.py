"""``fcocheck plot``: a metric of the store's runs against the round, one line per configuration.

The runs are read from the results store (the current code's by default), filtered by ``--where
FIELD=VALUE`` on the flattened configuration (``algorithm``, ``hp.eta_c``, ``problem``,
``problem.zeta`` …, as ``fcocheck store export`` names the columns) and grouped by every field but
the seed; each group is one line, the median over its seeds with the 10–90% band.  The figure is
drawn like the report's (``plot-METRIC.png`` and ``.svg`` in ``--out``; with ``--where``, the filters
join the name — ``plot_stem`` — so plots of different selections in one folder do not overwrite each
other).
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np

from fcocheck.reports.cli_common import UsageError, check_writable
from fcocheck.solvers.files import MAX_STEM, plain_name
from fcocheck.verify.sweep.store import Store, StoreError, flat_config


def parse_where(items: list[str]) -> dict[str, Any]:
    """``FIELD=VALUE`` pairs; VALUE read as JSON when it parses (``0.1``, ``true``), else as text."""
    out: dict[str, Any] = {}
    for item in items:
        name, sep, text = item.partition("=")
        if not sep or not name:
            raise UsageError(f"--where {item!r}; the rule is FIELD=VALUE, e.g. hp.eta_c=0.1")
        try:
            out[name] = json.loads(text)
        except json.JSONDecodeError:
            out[name] = text
    return out


def plot_stem(metric: str, where: dict[str, Any]) -> str:
    """``plot-METRIC``, then each filter ``FIELD=VALUE`` (sorted), as one plain file name.

    Text values as given, other values as JSON.  A name longer than ``MAX_STEM`` keeps its first
    characters and ends in a digest of the whole name, so two long selections still get two names.
    """
    filters = (f"{k}={v if isinstance(v, str) else json.dumps(v, sort_keys=True)}"
               for k, v in sorted(where.items()))
    name = plain_name(f"plot-{metric}", *filters)
    if len(name) <= MAX_STEM:
        return name
    digest = hashlib.sha256(name.encode()).hexdigest()[:12]
    return f"{name[:MAX_STEM - 13]}-{digest}"


def select(runs: list[dict[str, Any]], where: dict[str, Any]) -> list[tuple[dict[str, Any], dict]]:
    """(flat configuration, run row) of the runs whose fields equal every ``where`` value."""
    out = []
    for r in runs:
        flat = flat_config(r["config"])
        if all(k in flat and flat[k] == v for k, v in where.items()):
            out.append((flat, r))
    return out


def groups(chosen: list[tuple[dict[str, Any], dict]]) -> dict[str, list[dict]]:
    """Runs grouped by every configuration field but the seed, labelled by the fields that vary."""
    keys = sorted({k for flat, _ in chosen for k in flat} - {"seed"})
    varying = [k for k in keys if len({json.dumps(flat.get(k), sort_keys=True) for flat, _ in chosen}) > 1]
    out: dict[str, list[dict]] = {}
    for flat, r in chosen:
        label = ", ".join(f"{k}={flat.get(k)}" for k in varying) or str(flat.get("algorithm"))
        out.setdefault(label, []).append(r)
    return out


def cmd_plot(args: argparse.Namespace) -> int:
    """Draw ``--metric`` of the selected runs against the round."""
    from fcocheck.reports.draw import draw
    from fcocheck.reports.plotdata import Figure, Panel, measured_line
    from fcocheck.verify.reproductions.base import padded
    from fcocheck.verify.sweep.version import code_version

    if not Path(args.store).is_file():
        raise StoreError(f"--store {args.store!r} does not exist; the rule is an existing results store")
    where = parse_where(args.where)
    out = Path(args.out)
    check_writable(out, directory=True)
    with Store(args.store) as store:
        runs = store.runs(None if args.all_versions else code_version())
        chosen = [(f, r) for f, r in select(runs, where) if r["status"] != "error"]
        if not chosen:
            raise UsageError(f"no run in {args.store!r} matches --where {where or '{}'}"
                             + ("" if args.all_versions else " at this code version (--all-versions widens)")
                             + f"; the rule is at least one run ({len(runs)} in the store)")
        recorded = {label: [store.metrics(r["id"]) for r in rs] for label, rs in groups(chosen).items()}
    known = sorted({m for ms in recorded.values() for metrics in ms for m in metrics})
    lines = []
    for label, ms in recorded.items():
        arrays = [metrics[args.metric] for metrics in ms if args.metric in metrics]
        if not arrays:
            continue
        Y = padded(arrays)
        lines.append(measured_line(label, np.arange(Y.shape[1]), Y))
    if not lines:
        raise UsageError(f"--metric {args.metric!r} is not recorded by the selected runs; the rule is one "
                         f"of {known}")
    logy = all(np.nanmin(np.asarray(line.median, dtype=float), initial=np.inf) > 0 for line in lines)
    chosen_by = "; ".join(f"{k} = {v}" for k, v in sorted(where.items()))
    title = f"{args.metric} ({len(chosen)} runs{'; ' + chosen_by if chosen_by else ''})"
    fig = Figure(plot_stem(args.metric, where), args.metric,
                 [Panel(title, "round", args.metric, lines, logy=logy)],
                 caption="median over seeds with the 10–90% band")
    png, svg, reused = draw(fig, out)
    kept = " (unchanged: the files drawn earlier from the same data are kept)" if reused else ""
    print(f"wrote {png} and {svg}: {len(lines)} line(s) from {len(chosen)} run(s){kept}")
    return 0
