"""Plot builders: stored results → plain data (median and quantile bands, fitted and predicted lines).

Plot builders: from stored results to plain data — median and quantile band over seeds, fitted and
predicted lines — with no drawing (``reports.draw`` draws). Every builder returns a
``Figure``: panels of lines, each line with its x, median and band; the drawing module only maps these to
matplotlib calls.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fcocheck.rates.fit import LEVEL

QUANTILES = (0.1, 0.9)


@dataclass
class Line:
    """One line of a panel: median over seeds with a [q10, q90] band (NaN where no seed has data)."""

    label: str
    x: list[float]
    median: list[float]
    lo: list[float] | None = None
    hi: list[float] | None = None
    style: str = "measured"  # measured | fit | predicted | bound | reference


@dataclass
class Panel:
    """One axes."""

    title: str
    xlabel: str
    ylabel: str
    lines: list[Line] = field(default_factory=list)
    logx: bool = False
    logy: bool = False
    kind: str = "lines"  # lines | bars | scatter | pattern
    data: dict[str, Any] = field(default_factory=dict)


@dataclass
class Figure:
    """A figure: a stem (file name), its panels and a caption saying what it shows."""

    stem: str
    title: str
    panels: list[Panel]
    caption: str = ""


def _caption(result: dict[str, Any], spec: dict[str, Any]) -> str:
    """What an experiment's figure shows, line by line, in words."""
    kind, seeds = spec["kind"], max((len(s.get("Y", [[0]])) for s in spec["series"]), default=1)
    rows = spec.get("rows", "seeds")
    spread = f"median over {seeds} {rows} with the 10–90% band" if seeds > 1 else f"one of the {rows}"
    if kind == "slope":
        s = spec["series"][0]
        fit = s.get("fit")
        text = f"{spec['ylabel']} against {spec['xlabel']} on log–log axes ({spread}, solid)"
        if fit:
            lo, hi = fit["ci"]
            text += (
                f"; the fitted slope {fit['slope']:.3g}, {LEVEL:.0%} interval [{lo:.3g}, {hi:.3g}], over the "
                "fitted range (dashed)"
            )
        if s.get("predicted") is not None:
            text += f"; the theorem's slope {s['predicted']:g} through the fit's midpoint (dotted)"
        if s.get("bound") is not None:
            text += "; the bound's term with every constant 1 (dash-dot)"
        if spec.get("level") is not None:
            text += f"; the grey line: {spec['level']['label']}"
        if spec.get("marks") is not None:
            text += f"; the vertical grey lines: {spec['marks']['label']}"
        return text + "."
    if kind == "bound":
        C, bound = float(spec.get("C", 1)), spec.get("bound_name", "the published tuned rate")
        scaled = (f"the largest constant C = {C:.3g} that the measurement stays above" if spec.get("lower")
                  else f"the smallest constant C = {C:.3g} that covers the measurement")
        return (
            f"{spec['ylabel']} against {spec['xlabel']} ({spread}, solid), {bound} "
            f"with constants 1 (dash-dot) and scaled by {scaled} (dotted)."
        )
    if kind == "scatter":
        return (
            f"Each run: {spec['ylabel']} against {spec['xlabel']}; the dashed diagonal is LHS = RHS, "
            "and a point below it satisfies the inequality."
        )
    if kind == "bars":
        return f"{spec['ylabel']} per method, log scale; the dashed line is the tolerance of the rule."
    return (
        f"{spec['ylabel']} by round (solid) with the fitted geometric decay over the judged window (dashed)."
    )


def band(Y: Any, quantiles: tuple[float, float] = QUANTILES) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Median and quantile band over seeds (rows) of ``Y``, ignoring NaN (a run that ended early)."""
    Y = np.atleast_2d(np.asarray(Y, dtype=float))
    with np.errstate(all="ignore"), _Quiet():
        med = np.nanmedian(Y, axis=0)
        lo, hi = np.nanquantile(Y, quantiles[0], axis=0), np.nanquantile(Y, quantiles[1], axis=0)
    return med, lo, hi


def measured_line(label: str, x: Any, Y: Any) -> Line:
    """A measured line; the band only when there are at least two seeds."""
    Y = np.atleast_2d(np.asarray(Y, dtype=float))
    med, lo, hi = band(Y)
    many = Y.shape[0] > 1
    return Line(label, _floats(x), _floats(med), _floats(lo) if many else None, _floats(hi) if many else None)


def _power_line(label: str, slope: float, x0: float, y0: float, xs: list[float], style: str) -> Line:
    x = np.asarray(xs, dtype=float)
    return Line(label, _floats(x), _floats(y0 * (x / x0) ** slope), style=style)


def slope_lines(series: dict[str, Any]) -> list[Line]:
    """Measured curve + fitted line (with its CI in the label) + predicted slope through the fit's middle."""
    lines = [measured_line(series["label"], series["x"], series["Y"])]
    fit = series.get("fit")
    if fit:
        x_lo, x_hi = fit["x"]
        xm = float(np.sqrt(x_lo * x_hi))
        ym = float(np.exp(fit["intercept"] + fit["slope"] * np.log(xm)))
        xs = [x_lo, x_hi]
        lines.append(
            _power_line(
                f"fit: slope {fit['slope']:.3g} [{fit['ci'][0]:.3g}, {fit['ci'][1]:.3g}]",
                fit["slope"],
                xm,
                ym,
                xs,
                "fit",
            )
        )
        if series.get("predicted") is not None:
            lines.append(
                _power_line(
                    f"predicted: slope {series['predicted']:g}", series["predicted"], xm, ym, xs, "predicted"
                )
            )
    if series.get("bound") is not None:
        lines.append(
            Line("bound (constants 1)", _floats(series["x"]), _floats(series["bound"]), style="bound")
        )
    return lines


def _scaled(series: dict[str, Any], c: float, label: str, style: str) -> Line:
    """The series' bound times ``c``."""
    return Line(label, _floats(series["x"]), _floats(c * np.asarray(series["bound"])), style=style)


def experiment_figure(result: dict[str, Any], worst_constant: float | None = None) -> Figure | None:
    """The figure of one theorem experiment from its ``plot`` spec (None when it has none).

    ``worst_constant``: the smallest constant covering the theorem's PEP worst cases (``verify.worstcase``);
    when given, the bound is also drawn scaled by it, beside the bound with constants 1.
    """
    spec = result.get("measured", {}).get("plot")
    if not spec:
        return None
    kind = spec["kind"]
    panel = Panel(result["name"], spec["xlabel"], spec["ylabel"], logx=kind in ("slope", "bound"), logy=True)
    if kind == "slope":
        for s in spec["series"]:
            panel.lines += slope_lines(s)
        if spec.get("level") is not None:  # a horizontal line across the figure (a crossover's tie)
            xs = [x for s in spec["series"] for x in _floats(s["x"])]
            y = float(spec["level"]["y"])
            panel.lines.append(Line(spec["level"]["label"], [min(xs), max(xs)], [y, y], style="reference"))
        if spec.get("marks") is not None:  # vertical lines at given x (a crossover's judged margins)
            ys = [v for line in panel.lines for v in line.median if np.isfinite(v) and v > 0]
            for k, x in enumerate(spec["marks"]["x"]):
                label = spec["marks"]["label"] if k == 0 else "_nolegend_"  # one legend entry
                panel.lines.append(Line(label, [float(x)] * 2, [min(ys), max(ys)], style="reference"))
    elif kind == "bound":
        C, name = float(spec.get("C", 1.0)), spec.get("bound_label", "tuned rate")
        for s in spec["series"]:
            panel.lines.append(measured_line(s["label"], s["x"], s["Y"]))
            panel.lines.append(_scaled(s, C, f"{C:.3g} × {name}", "predicted"))
            panel.lines.append(_scaled(s, 1.0, f"{name} (constants 1)", "bound"))
            if worst_constant and spec.get("worst_overlay", True):
                label = f"{worst_constant:.3g} × {name} (worst-case constant, PEP)"
                panel.lines.append(_scaled(s, worst_constant, label, "reference"))
    elif kind == "scatter":
        s = spec["series"][0]
        panel.kind, panel.logx = "scatter", True
        panel.data = {"x": _floats(s["x"]), "y": _floats(s["y"]), "labels": s.get("labels", [])}
    elif kind == "bars":
        panel.kind = "bars"
        panel.data = {
            "labels": [s["label"] for s in spec["series"]],
            "values": [s["value"] for s in spec["series"]],
            "tol": spec.get("tol"),
        }
    elif kind == "trace":
        for t in spec["series"]:  # one line per instance; the contraction drawn is the first's
            panel.lines.append(measured_line(t["label"], t["x"], t["Y"]))
        s = spec["series"][0]
        start, stop = spec["window"]
        y0 = float(np.asarray(s["Y"], dtype=float)[0][start])
        xs = list(range(start, stop))
        panel.lines.append(
            Line(
                f"contraction {spec['contraction']:.4g}/round",
                _floats(xs),
                _floats(y0 * spec["contraction"] ** (np.asarray(xs) - start)),
                style="fit",
            )
        )
    return Figure(result["name"], result["name"], [panel], _caption(result, spec))


def tightness_figure(result: dict[str, Any]) -> Figure | None:
    """Bound, worst case (PEP) and measured run against R, one panel per K with at least two R values."""
    rows = [r for r in result["rows"] if r.get("status") == "optimal" and r.get("worst") is not None]
    ks = sorted({r["K"] for r in rows if sum(q["K"] == r["K"] for q in rows) >= 2})
    if not ks:
        return None
    c = result["verdicts"]["tightness"]["evidence"].get("c_max")
    panels = []
    for k in ks:
        pts = sorted((r for r in rows if r["K"] == k), key=lambda r: (r["eta_c"], r["R"]))
        eta = pts[-1]["eta_c"]
        pts = [r for r in pts if r["eta_c"] == eta]
        x = _floats([r["R"] for r in pts])
        panel = Panel(
            f"{result['name']}: K = {k}, η_c = {eta:g}",
            "rounds R",
            result["theorem"] + " LHS",
            logx=True,
            logy=True,
        )
        panel.lines.append(Line("bound, C = 1", x, _floats([r["bound"] for r in pts]), style="bound"))
        if c:
            panel.lines.append(
                Line(
                    f"bound, C = {c:.3g} (worst case)",
                    x,
                    _floats([c * r["bound"] for r in pts]),
                    style="predicted",
                )
            )
        panel.lines.append(
            Line("worst case (PEP)", x, _floats([r["worst"] for r in pts]), style="fit")
        )
        if any(r.get("measured") is not None for r in pts):
            panel.lines.append(
                Line(
                    "measured",
                    x,
                    _floats([r.get("measured") if r.get("measured") is not None else np.nan for r in pts]),
                )
            )
        panels.append(panel)
    measured = any(r.get("measured") is not None for r in rows)
    caption = (
        f"{result['name']} against rounds R, one panel per K: the theorem's deterministic terms with every "
        "constant 1 (grey dash-dot) and scaled by the smallest constant that covers every worst case on the "
        f"grid (red dotted); the exact worst case of {result['method']} over the function class, computed by "
        "performance estimation with PEPit (black dashed)"
        + ("; the implementation run on an instance of the class at the same constants (solid)"
           if measured else "")
        + "."
    )
    stem = "tightness-" + result["name"].replace("/", "-")
    return Figure(stem, result["name"], panels, caption)


def reproduction_figure(rep: Any) -> Figure | None:
    """Panels of a reproduction: one per declared metric (split by label group when asked)."""
    if not rep.panels:
        return None
    panels = []
    for spec in rep.panels:
        split = spec.get("split")
        title = spec["ylabel"] + (f" — varying {split}" if split else "")
        p = Panel(title, "round", spec["ylabel"], logy=spec.get("log", False))
        for c in rep.curves:
            if c["metric"] == spec["metric"] and (not split or c["label"].startswith(split)):
                p.lines.append(measured_line(c["label"], c["x"], c["Y"]))
        panels.append(p)
    pattern = rep.extra.get("pattern")
    if pattern:
        panels.append(Panel("sparsity pattern, last round", "coordinate", "", kind="pattern", data=pattern))
    metrics = ", ".join(dict.fromkeys(spec["ylabel"] for spec in rep.panels))
    caption = (
        f"{rep.title}: {metrics} by round, one solid line per method (the median over seeds, with "
        "the 10–90% band where there are several seeds)"
    )
    if pattern:
        caption += (
            "; last panel: per coordinate, the fraction of clients whose iterate is non-zero (grey "
            "level) and the non-zero coordinates of each server model (black)"
        )
    return Figure(rep.name, rep.title, panels, caption + ".")


def _floats(x: Any) -> list[float]:
    return [float(v) for v in np.asarray(x, dtype=float).ravel()]


class _Quiet:
    def __enter__(self) -> None:
        import warnings

        self._w = warnings.catch_warnings()
        self._w.__enter__()
        warnings.simplefilter("ignore", RuntimeWarning)

    def __exit__(self, *exc: object) -> None:
        self._w.__exit__(*exc)
