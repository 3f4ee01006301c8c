"""FedCanon paper reproductions: Table III (proxes, floats per round) and Fig. 1 (η_g vs η_l).

FedCanon paper reproductions: Table III (proximal operations and floats per round, measured by the
engine's exact counters) and Fig. 1 (sensitivity of the training loss and ‖G‖ to η_g vs η_l).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fcocheck.rates.threshold import at_least, at_most
from fcocheck.verify.reproductions.base import (
    INCONCLUSIVE,
    NOT_REPRODUCED,
    REPRODUCED,
    Finding,
    Reproduction,
    collect,
    config,
)
from fcocheck.verify.sweep.config import ProblemSpec
from fcocheck.verify.sweep.session import Session

M, K, D = 8, 5, 20
#: Table III's prox counts per round as FedCanon states them (n sampled clients, K local steps);
#: the float counts of the table were lost in extraction, so only the measured ones are shown.
CLAIMED_PROX = {"fedcanon": 1, "fedcanon2": M, "fedmid": M * K, "feddualavg": M * K}
TABLE = (
    ("fedcanon", "FedCanon", {"eta_l": 0.1, "local_steps": K}),
    ("fedcanon2", "FedCanon II", {"eta_l": 0.1, "local_steps": K}),
    ("fedmid", "FedMiD", {"eta_c": 0.1, "local_steps": K}),
    ("feddualavg", "FedDualAvg (FedDA)", {"eta_c": 0.1, "local_steps": K}),
    ("fedmid-osp", "FedMiD-OSP", {"eta_c": 0.1, "local_steps": K}),
    ("feddualavg-osp", "FedDualAvg-OSP", {"eta_c": 0.1, "local_steps": K}),
    ("za1", "ZA1", {"eta": 0.1, "local_steps": K}),
    ("scaffold", "SCAFFOLD (ψ ignored)", {"eta_l": 0.1, "local_steps": K}),
    ("scaffnew-composite", "Scaffnew (composite)", {"gamma": 0.1, "p": 1.0 / K}),
    ("feddr", "FedDR", {"eta": 0.1, "local_steps": K}),
    ("fedadmm", "FedADMM", {"eta": 0.1, "local_steps": K}),
)
COUNTERS = ("prox_calls_client", "prox_calls_server", "floats_up", "floats_down", "grad_calls")


def table3(session: Session, quick: bool, seed: int) -> Reproduction:
    """Per-round proxes and floats (rounds 2…R averaged, so one-off initialisations are excluded)."""
    problem = ProblemSpec("quadratics", {"clients": M, "d": D, "lam": 0.01})
    R = 4
    runs = session.runs(
        [config(a, problem, hp, R, "exact", seed, "fedcanon-table3") for a, _, hp in TABLE],
        "FedCanon Table III",
    )
    rows, findings = [], []
    for (alg, label, _), run in zip(TABLE, runs, strict=True):
        if not all(len(run.metrics.get(c, ())) >= 3 for c in COUNTERS):  # errored, or diverged early
            why = f"run {run.status}" + (f": {run.error}" if run.error else f" at round {run.diverged_at}")
            rows.append({"algorithm": label, "prox (client)": "—", "prox (server)": "—", "prox total": "—",
                         "claimed prox": CLAIMED_PROX.get(alg, "—"), "floats up": "—", "floats down": "—",
                         "gradients": why})
            if alg in CLAIMED_PROX:
                findings.append(Finding(f"{label}: {CLAIMED_PROX[alg]} proximal operation(s) per round",
                                        INCONCLUSIVE, f"no per-round counts: {why}"))
            continue
        per = {c: float(np.mean(np.diff(run.metrics[c])[1:])) for c in COUNTERS}
        total = per["prox_calls_client"] + per["prox_calls_server"]
        row: dict[str, Any] = {
            "algorithm": label,
            "prox (client)": per["prox_calls_client"],
            "prox (server)": per["prox_calls_server"],
            "prox total": total,
            "claimed prox": CLAIMED_PROX.get(alg, "—"),
            "floats up": per["floats_up"],
            "floats down": per["floats_down"],
            "gradients": per["grad_calls"],
        }
        rows.append(row)
        if alg in CLAIMED_PROX:
            claim = CLAIMED_PROX[alg]
            ok = per["prox_calls_client"] == claim or total == claim
            findings.append(
                Finding(
                    f"{label}: {claim} proximal operation(s) per round (n = {M}, K = {K})",
                    REPRODUCED if ok else NOT_REPRODUCED,
                    f"measured {per['prox_calls_client']:g} on clients + "
                    f"{per['prox_calls_server']:g} on the server",
                )
            )
    return Reproduction(
        "fedcanon-table3",
        "Proximal operations and communication per round",
        "FedCanon Table III",
        f"quadratics (n = {M} clients, all sampled, d = {D}), K = {K} (Scaffnew: p = 1/K), exact gradients, "
        f"R = {R}; counts per round from the engine's counters (rounds 2…{R})",
        table=rows,
        findings=findings,
        notes=[
            "Floats are counted as model-sized vectors sent each way (d = 20 per vector); the paper's float "
            "column was lost in extraction, so floats are reported, not checked."
        ],
    )


def _g_at(runs: list, alg_hp: dict[str, float], key: str, r: int) -> float:
    """Median ‖G‖² at round r over the runs that reached it (NaN when none did)."""
    vals = [run.metrics["prox_grad_norm"][r] ** 2 for run in runs
            if run.config.hp[key] == alg_hp[key] and len(run.metrics.get("prox_grad_norm", ())) > r]
    return float(np.median(vals)) if vals else float("nan")


def fig1(session: Session, quick: bool, seed: int) -> Reproduction:
    """FedCanon Fig. 1: vary η_g at fixed η_l, and η_l at fixed η_g, on an MCP-penalised problem."""
    problem = ProblemSpec("robust-penalized", {"penalty": "mcp"})
    R, seeds = (150, 2) if quick else (500, 5)
    eta_ls, eta_gs, fix_l, fix_g = (0.01, 0.03, 0.1), (0.05, 0.1, 0.2, 0.4), 0.03, 0.2
    grid = [{"eta_l": fix_l, "eta_g": g, "local_steps": K} for g in eta_gs]
    grid += [{"eta_l": e, "eta_g": fix_g, "local_steps": K} for e in eta_ls if e != fix_l]
    grid += [] if fix_g in eta_gs else [{"eta_l": fix_l, "eta_g": fix_g, "local_steps": K}]
    runs = session.runs(
        [
            config("fedcanon", problem, hp, R, "minibatch:8", s, "fedcanon-fig1")
            for hp in grid
            for s in range(seed, seed + seeds)
        ],
        "FedCanon Fig. 1",
    )
    vary_g = [r for r in runs if r.config.hp["eta_l"] == fix_l]
    vary_l = [r for r in runs if r.config.hp["eta_g"] == fix_g]
    at = R // 4
    spread_g = _spread([_g_at(vary_g, {"eta_g": g}, "eta_g", at) for g in eta_gs])
    spread_l = _spread([_g_at(vary_l, {"eta_l": e}, "eta_l", at) for e in eta_ls])
    ok = at_least(spread_g, 2.0) and at_most(spread_l, spread_g**0.5)
    verdict = (REPRODUCED if ok else NOT_REPRODUCED) if np.isfinite(spread_g) and np.isfinite(spread_l) \
        else INCONCLUSIVE  # some step size never reached round `at` (diverged or errored runs)
    curves = collect(
        vary_g, lambda r: f"η_g = {r.config.hp['eta_g']:g} (η_l = {fix_l:g})", ("objective", "prox_grad_norm")
    )
    curves += collect(
        vary_l, lambda r: f"η_l = {r.config.hp['eta_l']:g} (η_g = {fix_g:g})", ("objective", "prox_grad_norm")
    )
    return Reproduction(
        "fedcanon-fig1",
        "Sensitivity to the global vs the local step size",
        "FedCanon Fig. 1",
        f"robust-penalized (Cauchy loss, MCP; 16 clients), FedCanon K = {K}, minibatch:8, R = {R}, "
        f"{seeds} seeds; η_g ∈ {list(eta_gs)} at η_l = {fix_l}, η_l ∈ {list(eta_ls)} at η_g = {fix_g}",
        curves,
        [
            {"metric": "objective", "ylabel": "Φ(x^t) (training loss)", "log": True, "split": "η_g"},
            {"metric": "prox_grad_norm", "ylabel": "‖G(x^t)‖", "log": True, "split": "η_g"},
            {"metric": "objective", "ylabel": "Φ(x^t) (training loss)", "log": True, "split": "η_l"},
            {"metric": "prox_grad_norm", "ylabel": "‖G(x^t)‖", "log": True, "split": "η_l"},
        ],
        findings=[
            Finding(
                "η_g drives the decrease; η_l (normalised away at the server) barely matters",
                verdict,
                f"at round {at}: max/min of median ‖G‖² over η_g = {spread_g:.3g}, over η_l = {spread_l:.3g} "
                f"(rule: η_g spread ≥ 2 and η_l spread ≤ √(η_g spread))",
            )
        ],
    )


def _spread(values: list[float]) -> float:
    v = np.asarray(values, dtype=float)
    if np.any(np.isnan(v)):
        return float("nan")
    return float(v.max() / v.min()) if np.all(v > 0) else float("inf")
