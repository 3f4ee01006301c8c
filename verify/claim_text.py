"""A claim in words and pictures: its design line, its statement in LaTeX, the report's figure."""

from __future__ import annotations

from typing import Any

import numpy as np

from fcocheck.rates.sides import MARGIN
from fcocheck.solvers.readable import readable_name
from fcocheck.verify.claim import (
    AT_MOST,
    CROSSOVER,
    IDENTITY,
    LAW,
    LOWER,
    MEASURE_LABEL,
    MEASURE_LATEX,
    TWIN_MEASURES,
    UPPER,
    Claim,
    method_name,
)
from fcocheck.verify.claim_expr import is_expression, law_x


def design_line(c: Claim, measured: dict[str, Any]) -> str:
    """The claim's design in one line: the method, the instances drawn, the oracle, the sweep."""
    noise = (", exact gradients" if c.oracle == "exact" else f", {c.oracle}") + (
        f" ({c.repeats} {'run' if c.oracle == 'exact' else 'noise'} seeds each)" if c.repeats > 1 else "")
    stated = ", ".join(f"{k} = {v:g}" for k, v in c.constants.items())
    replaced = f" (replaced: {measured['skipped']})" if measured.get("skipped") else ""
    seeds = measured.get("seeds") or []  # none when nothing was measured (the instance lacks a condition)
    oracle_seed = f" (oracle seed {seeds[0]})" if seeds else ""
    drawn = (f"instance {c.instance[0].name}{oracle_seed}" if c.instance is not None
             else f"{c.seeds} {c.problem[0]} instances (seeds {seeds}{replaced})")
    twin = f"; each run beside its twin {dict(c.twin)}" if c.twin else ""
    runs = (f"; R = {c.rounds}" if is_expression(c.rounds) else "") + (
        f"; {c.participation} client(s) per round" if c.participation is not None else "") + (
        f"; w₀ = w* + {c.start:g}·u (u a unit vector of the instance's seed)" if c.start is not None else "")
    said = (f"{measure_text(c)} < 1 iff {c.symbols()['name']} ≲ {c.bound_text()} (judged {MARGIN:g}× away)"
            if c.sense == CROSSOVER else f"{measure_text(c)} {c.sense} {c.bound_text()}")
    if c.sense == AT_MOST:
        read = "; ".join(f"{k} = {m} of the same runs" for k, m in c.run_terms.items())
        tested = ", ".join(c.tested)
        said += f" (every constant 1{'; ' + read if read else ''}; tested: the terms in {tested})"
    return (f"{method_name(c)} on {drawn}{noise}{'; stated ' + stated if stated else ''}{runs}{twin}; "
            f"{said} along {c.along[0]} = [{', '.join(f'{v:.4g}' for v in c.along[1])}]")


def measure_text(c: Claim) -> str:
    """What the claim measures, in words: the measure, or the statistic that is not a value of it (a rate)."""
    label = {**MEASURE_LABEL, **TWIN_MEASURES}.get(c.measure, c.measure)
    said = {"rate": f"−log q per round of {label}", "factor": f"q per round of {label}"}
    return said.get(c.statistic, label)


#: a generator's name for a parameter whose symbol is a Python keyword: typeset as the symbol
LATEX_ALIAS = {"lam": "lambda"}


#: what the rows of a claim's figure are (its caption's words)
ROWS = "runs (instances and their repetitions)"


def statement_latex(c: Claim) -> str:
    """The claim as LaTeX: the measure, ≲ or ≍, the bound, and the direction of the sweep."""
    import sympy as sp

    lhs = MEASURE_LATEX.get(c.measure, r"\text{" + c.measure.replace("_", r"\_") + "}")
    if c.statistic in ("rate", "factor"):  # the rate (factor) of the measure's linear phase, not the measure
        lhs = (r"-\log " if c.statistic == "rate" else "") + rf"q\left[{lhs}\right]"
    rel = {UPPER: r"\lesssim", LOWER: r"\gtrsim", IDENTITY: r"\le", AT_MOST: r"\le"}.get(c.sense, r"\asymp")
    s = c.symbols()
    to = r"\to \infty" if c.direction == "grows" else r"\to 0"
    names = {v: sp.latex(sp.Symbol(LATEX_ALIAS[str(v)])) for v in s["expr"].free_symbols | {s["swept"]}
             if str(v) in LATEX_ALIAS}
    swept = sp.latex(s["swept"], symbol_names=names)
    on_sweep = c.sense in (LAW, IDENTITY, AT_MOST)  # not an asymptotic statement
    where = rf"\text{{along }} {swept}" if on_sweep else f"{swept} {to}"
    if c.sense == CROSSOVER:  # the run wins below the crossover, its twin above
        at = sp.latex(s["expr"], symbol_names=names)
        return rf"{lhs} \lessgtr 1 \quad \text{{as}}\ {swept} \lessgtr {at}"
    return rf"{lhs} {rel} {sp.latex(s['expr'], symbol_names=names)} \quad ({where})"


def plot(c: Claim, measured: dict[str, Any]) -> dict[str, Any] | None:
    """The report's figure of a judged claim (None if it was not judged: nothing to draw).

    One bound for every instance: every instance's measurement (median and band), the bound with
    constants 1, and the bound scaled by the smallest constant covering every instance.  A bound per
    instance: each run's ratio to its instance's bound (median and band), against 1.
    """
    from fcocheck.verify.experiments.base import plot_spec, slope_series

    if "bound" not in measured or (c.sense == LAW and "fit" not in measured):
        return None  # not judged: too few instances, or too few resolved points for a law
    if c.sense == IDENTITY:  # the largest measure of the claim and of each control, against the tolerance
        bars = [{"label": method_name(c), "value": float(np.max(measured["instances"]))}]
        bars += [{"label": f"control: {name.split(' (')[0].split(':')[0]}", "value": float(np.max(Yc))}
                 for name, Yc in measured.get("controls", {}).items()]
        return plot_spec("bars", "", f"largest {c.measure}", bars, tol=float(np.max(measured["bound"])))
    if c.sense == CROSSOVER:
        return _crossover_plot(c, measured)
    if c.sense == AT_MOST:
        return _at_most_plot(c, measured)
    bound = np.array(measured["bound"])
    label = measure_text(c)
    along = c.along[1]
    if c.sense == LAW:
        Y = np.array(measured.get("repetitions", measured["instances"])).reshape(-1, len(along))
        from fcocheck.rates.fit import SlopeFit

        xs, xlabel = law_x(c, along)
        fit = {k: v for k, v in measured["fit"].items() if k not in ("predicted", "x", "label")}
        series = [slope_series(method_name(c), xs, Y, SlopeFit(**fit), measured["fit"]["predicted"])]
        series += [slope_series(f"control: {name.split(' (')[0].split(':')[0]}", xs,
                                np.maximum(Yc, 1e-300)) for name, Yc in measured.get("controls", {}).items()]
        return plot_spec("slope", xlabel, label, series, rows=ROWS)
    if bound.ndim == 2:
        Y = np.array(measured.get("repetitions", measured["instances"]))
        ratios = (Y / (bound[:, None, :] if Y.ndim == 3 else bound)).reshape(-1, len(along))
        series = slope_series(f"{method_name(c)} (ratio to each instance's bound)", along, ratios,
                              bound=[1.0] * len(along))
        return plot_spec("bound", readable_name(c.symbols()["name"]), f"{label} / its bound", [series],
                         C=_covering(c, ratios), lower=c.sense == LOWER, rows=ROWS,
                         worst_overlay=_is_tuned_rate(c),
                         bound_label="tuned rate" if _is_tuned_rate(c) else "the claimed bound",
                         bound_name=f"1 (the claimed bound {c.bound_text()} with each instance's constants)")
    ratios = np.array(measured["instances"]) / bound
    series = slope_series(method_name(c), along, measured["instances"], bound=measured["bound"])
    return plot_spec("bound", readable_name(c.symbols()["name"]), label, [series], C=_covering(c, ratios),
                     lower=c.sense == LOWER, rows=ROWS, bound_name=f"the claimed bound {c.bound_text()}",
                     bound_label=c.bound_text(), worst_overlay=_is_tuned_rate(c))


def _crossover_plot(c: Claim, measured: dict[str, Any]) -> dict[str, Any]:
    """Each instance's ratio of the run to its twin against the swept value over its own crossover."""
    from fcocheck.verify.experiments.base import plot_spec, slope_series

    name = readable_name(c.symbols()["name"])
    bound = np.array(measured["bound"], dtype=float).reshape(-1, len(c.along[1]))
    ratios = np.array(measured["instances"], dtype=float)
    along = np.asarray(c.along[1], dtype=float)
    series = [slope_series(f"instance {s}", (along / bound[min(i, len(bound) - 1)]).tolist(),
                           ratios[i:i + 1])
              for i, s in enumerate(measured["seeds"])]
    return plot_spec("slope", f"{name} / {name}* (each instance's {c.bound_text()})",
                     measure_text(c), series, rows="instances",
                     level={"y": 1.0, "label": f"a tie; the run must win (below it) left of {1 / MARGIN:g} "
                                               f"and lose right of {MARGIN:g}"},
                     marks={"x": [1 / MARGIN, MARGIN],
                            "label": f"{name}/{name}* = {1 / MARGIN:g} and {MARGIN:g}, the judged margins "
                                     "(between them nothing is judged)"})


#: the axis of an inequality's figure: the right side, every constant 1
RHS_LABEL = "the bound, every constant 1 (runs' terms measured)"


def _at_most_plot(c: Claim, measured: dict[str, Any]) -> dict[str, Any]:
    """Every instance's measure (its repetitions' mean) against its bound at each point: below y = x.

    One series of every run (a group's claims are drawn on one set of axes: ``verify.claim_group``).
    """
    from fcocheck.verify.experiments.base import plot_spec

    name = readable_name(c.symbols()["name"])
    rhs = np.asarray(measured["bound"], dtype=float).reshape(-1, len(c.along[1]))
    pairs = [(s, i, j, v) for i, s in enumerate(measured["seeds"]) for j, v in enumerate(c.along[1])]
    series = {"label": c.name, "x": [float(rhs[i, j]) for _, i, j, _ in pairs],
              "y": [float(measured["instances"][i][j]) for _, i, j, _ in pairs],
              "labels": [f"{c.name}: instance {s}, {name} = {v:g}" for s, _, _, v in pairs]}
    return plot_spec("scatter", RHS_LABEL, measure_text(c), [series])


def _covering(c: Claim, ratios: np.ndarray) -> float:
    """The constant the figure scales the bound by: the largest ratio (≲), the smallest (≳)."""
    return float(np.nanmin(ratios) if c.sense == LOWER else np.nanmax(ratios))


def _is_tuned_rate(c: Claim) -> bool:
    """Whether the claim's bound is its theorem's published tuned rate.

    The report then draws the theorem's worst-case constant beside it; any other bound's worst case is
    the claim's own.
    """
    from fcocheck.rates.catalog import THEOREMS

    thm = THEOREMS.get(c.theorem)
    return thm is not None and thm.tuned is not None and c.symbols()["expr"] == thm.tuned
