"""``fcocheck worstcase``: worst cases by performance estimation beside a theorem's bound."""

from __future__ import annotations

import argparse
import math
from typing import Any

from fcocheck.reports.cli_common import UsageError
from fcocheck.solvers import strict_json

_INTS = ("M", "K", "R")
_STRINGS = ("clients", "psi", "metric")
_BOOLS = ("quadratic",)


def parse_grid(items: list[str], own: tuple[str, ...] = ()) -> dict[str, list]:
    """``["K=1,2", "eta=0.1"]`` → ``{"K": [1, 2], "eta": [0.1]}`` (types by field; errors name the item).

    ``own``: the target method's own hyper-parameters (a card's β), numbers like ``eta``.
    """
    from dataclasses import fields

    from fcocheck.rates.worstcase.spec import PepSpec

    known = ({f.name for f in fields(PepSpec)} - {"method", "extra"}) | set(own)
    out: dict[str, list] = {}
    for item in items:
        key, sep, values = item.partition("=")
        if not sep or not values or key not in known:
            raise UsageError(
                f"--grid {item!r}; the rule is FIELD=V1,V2,... with FIELD one of {sorted(known)}"
            )
        if key in out:
            raise UsageError(f"--grid {key} given twice; the rule is one axis per field")
        out[key] = [_value(key, v, item) for v in values.split(",")]
    return out


def _value(key: str, text: str, item: str) -> Any:
    if key in _STRINGS:
        return text
    if key in _BOOLS:
        if text not in ("true", "false"):
            raise UsageError(f"--grid {item!r}: {text!r}; the rule is true or false")
        return text == "true"
    try:
        val = int(text) if key in _INTS else float(text)
    except ValueError:
        kind = "an integer" if key in _INTS else "a number"
        raise UsageError(f"--grid {item!r}: {text!r} is not {kind}") from None
    if isinstance(val, float) and not math.isfinite(val):
        raise UsageError(f"--grid {item!r}: {text!r}; the rule is a finite number")
    return val


def default_axes(method: str) -> tuple[dict[str, list], dict[str, Any]]:
    """The grid of a bare algorithm: sequential R = 1, 2, 4; federated M = 2, K = 1, 2, R = 1, 2, 4."""
    from fcocheck.rates.worstcase.methods import METHODS

    m = METHODS[method]
    base: dict[str, Any] = {"eta": 0.1 if m.federated else 1.0, **acting(method)}
    if m.smooth_only:
        base["psi"] = "zero"
    if not m.federated:
        return {"R": [1, 2, 4]}, {**base, "M": 1, "K": 1}
    return {"K": [1, 2], "R": [1, 2, 4]}, {**base, "M": 2, "zeta": 1.0}


def own_parameters(method: str) -> tuple[str, ...]:
    """A card's hyper-parameters beyond the ones a ``PepSpec`` carries (η_c, η_s, K)."""
    from fcocheck.rates.worstcase.cards import SHARED
    from fcocheck.solvers.algorithms import card_of

    card = card_of(method)
    return () if card is None else tuple(p.name for p in card.params if p.name not in SHARED)


def acting(method: str) -> dict[str, float]:
    """Each of a card's own parameters at its first grid value that is not neutral (β = 0.5, not 0)."""
    from fcocheck.solvers.algorithms import card_of

    card = card_of(method)
    out = {}
    for p in card.params if card is not None else ():
        if p.name in own_parameters(method) and p.grid:
            out[p.name] = next((v for v in p.grid if v != p.neutral), p.grid[0])
    return out


def cmd_worstcase(args: argparse.Namespace) -> int:
    """Compute the worst cases of a theorem target or an algorithm and print them with the bound."""
    from fcocheck.rates.worstcase.methods import METHODS
    from fcocheck.verify.worstcase import NOT_EXPRESSED, TARGETS

    if args.target == "list":
        for name, t in TARGETS.items():
            print(f"{name:<20} {t.theorem:<15} {t.base['method']:<12} {'; '.join(t.notes)[:80]}")
        print("algorithms: " + ", ".join(METHODS))
        print("not expressed: " + "; ".join(f"{k} ({v})" for k, v in NOT_EXPRESSED.items()))
        return 0
    if args.target not in TARGETS and args.target not in METHODS:
        raise UsageError(
            f"worstcase target {args.target!r} is unknown; the rule is a theorem target {sorted(TARGETS)} "
            f"or an algorithm {sorted(METHODS)}"
        )
    grid = parse_grid(args.grid, own_parameters(args.target))
    if args.target in TARGETS:  # the grid is validated before the store opens: bad input writes nothing
        from fcocheck.verify.worstcase import plan

        work: Any = plan(args.target, not args.full, grid or None)
    else:
        work = _algorithm_grid(args.target, grid)
    session = _open(args)
    failed = True  # a store this command created and stored nothing in is then removed
    try:
        code = _theorem(args, work, session) if args.target in TARGETS else _algorithm(args, work, session)
        failed = False
        return code
    finally:
        session.store.close(discard_empty=failed)
        session.executor.close()


def _open(args: argparse.Namespace) -> Any:
    from fcocheck.reports.cli_session import session

    return session(args)


def _theorem(args: argparse.Namespace, p: Any, session: Any) -> int:
    from fcocheck.verify.worstcase import compute, judge

    out = judge(p, compute([p], session), not args.full)
    if args.json:
        print(strict_json.dumps(out, indent=1, default=str))
    elif args.quiet:
        print(f"{out['name']}: {out['status']}")
    else:
        print_tightness(out)
    return 0 if out["status"] in ("consistent", "known disagreement") else 1


def print_tightness(out: dict[str, Any]) -> None:
    """The table: per grid point the bound, the worst case, the measured run and their ratios."""
    print(f"{out['name']}: {out['method']} against {out['theorem']} terms {out['terms']} ({out['relation']})")
    for note in out["notes"]:
        print(f"  note: {note}")
    head = (
        f"  {'K':>2} {'R':>3} {'eta_c':>7} {'eta_s':>7} {'zeta':>5} {'bound':>10} {'worst':>11} {'ratio':>8}"
    )
    print(head + f" {'measured':>10} {'meas/worst':>10} {'c_het':>7} {'solver':<20} {'s':>5}")
    for r in out["rows"]:
        worst = "unbounded" if r["status"] == "unbounded" else _f(r["worst"], 11)
        chet = r.get("c_" + str(out.get("het_term")))
        print(
            f"  {r['K']:>2} {r['R']:>3} {r['eta_c']:>7.3g} {r['eta_s']:>7.3g} {r['zeta']:>5.3g} "
            f"{r['bound']:>10.4g} "
            f"{worst:>11} {_f(r['ratio'], 8)} {_f(r.get('measured'), 10)} "
            f"{_f(r.get('measured_over_worst'), 10)} {_f(chet, 7)} {r['solver']:<20} {r['seconds']:>5.1f}"
        )
    for term, c in out.get("term_constants", {}).items():
        at = c["at"]
        print(f"  constant of the {term} term, sup over R: {c['sup']:.4g} at K = {at['K']}, "
              f"η_c = {at['eta_c']:.3g}, R = {at['R']}"
              + (" (a lower estimate: a group is still rising at its last R)" if c["rising"] else "")
              + (f" ({c['skipped']} points without a finite worst case)" if c.get("skipped") else "")
              + "; per K, η_c: "
              + ", ".join(f"{g['sup']:.3g} (K {g['K']}, η_c {g['eta_c']:.3g})" for g in c["groups"]))
    for key, v in out["verdicts"].items():
        print(f"  {key}: {v['status'].upper()} — {v['rule']}: {v['reason']}")
    print(f"{out['name']}: {out['status']}")


def _algorithm_grid(method: str, grid: dict[str, list]) -> list[Any]:
    from fcocheck.verify.worstcase import algorithm_grid

    axes, base = default_axes(method)
    axes = {**axes, **grid}
    return algorithm_grid(method, axes, {k: v for k, v in base.items() if k not in axes})


def _algorithm(args: argparse.Namespace, specs: list[Any], session: Any) -> int:
    from fcocheck.verify.worstcase import algorithm_worst_cases

    rows = algorithm_worst_cases(specs, session)
    if args.json:
        print(strict_json.dumps(rows, indent=1, default=str))
    else:
        print(f"{args.target}: worst case of {specs[0].metric} over the class, per grid point")
        for s, r in zip(specs, rows, strict=True):
            value = "unbounded" if r.get("status") == "unbounded" else _f(r.get("value"), 12)
            own = "".join(f" {k}={v:g}" for k, v in s.extra)
            print(
                f"  M={s.M} K={s.K} R={s.R} eta={s.eta:g} eta_s={s.eta_s:g} zeta={s.zeta:g} psi={s.psi}"
                f"{own}: "
                f"{value} [{r.get('status')}, {r.get('solver')}, {r.get('seconds', 0):.1f} s, "
                f"instance dimension {r.get('dimension')}] {r.get('error', '')}"
            )
            if r.get("instance"):
                inst = r["instance"]
                print(f"      worst instance (relative to w*): w0 = {inst['w0']}, output = {inst['out']}")
    return 1 if any(r.get("status") not in ("optimal", "unbounded") for r in rows) else 0


def _f(x: Any, width: int) -> str:
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "—".rjust(width)
    return f"{float(x):>{width}.4g}"
