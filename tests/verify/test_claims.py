"""Claims on properties A–D: each verdict rule is fed the outcome that contradicts it."""

from __future__ import annotations

import pytest

from fcocheck.verify import claims
from fcocheck.verify.claims import AGREES, DISAGREES, KNOWN, NO_CLAIM, UNVERIFIED, verdict


def test_every_claim_names_its_source_and_a_valid_outcome():
    from fcocheck.solvers import algorithms
    from fcocheck.verify.properties import PROPERTIES

    for (alg, prop), c in claims.CLAIMS.items():
        assert alg in algorithms.ALGORITHMS and prop in PROPERTIES
        assert c.expect in ("holds", "fails") and c.source
        hp_fields = {f.name for f in __import__("dataclasses").fields(algorithms.get(alg).hyper)}
        assert set(c.hp) <= hp_fields, (alg, prop, c.hp)


@pytest.mark.parametrize(
    ("alg", "prop", "outcome", "numbers", "want"),
    [
        ("dane", "D", "holds", {}, AGREES),
        ("dane", "D", "fails", {}, DISAGREES),  # a DANE that is not exact on identical data
        ("dane", "B", "holds", {}, DISAGREES),  # FO16 says B fails
        ("scaffold", "A", "fails", {"first_round": 1e-3, "growth": None}, DISAGREES),
        ("dane", "A", "fails", {"first_round": 1e-17, "growth": 11.9}, KNOWN),  # unstable fixed point
        ("dane", "A", "fails", {"first_round": 1e-3, "growth": None}, DISAGREES),  # not a fixed point at all
        ("dane", "A", "fails", {"first_round": 1e-17, "growth": 1.0}, DISAGREES),  # drift, but no repulsion
        ("dane", "A", "n/a", {}, UNVERIFIED),
        ("cocoa+", "B", "fails", {}, NO_CLAIM),
    ],
)
def test_verdicts(alg, prop, outcome, numbers, want):
    got, note = verdict(alg, prop, outcome, numbers)
    assert got == want, note
    if want == KNOWN:
        assert "×11.9" in note and "1.0e-17" in note


def test_check_exits_1_on_a_disagreeing_cell(tmp_path, monkeypatch, capsys):
    """A claim the code contradicts (FedCanon's A claimed to fail) makes ``fcocheck check`` exit 1."""
    from fcocheck.reports.cli import main

    monkeypatch.setitem(claims.CLAIMS, ("fedcanon", "A"),
                        claims.Claim("fails", "planted contradiction", psi=("zero",)))
    code = main(["check", "--quick", "--algorithm", "fedcanon", "--workers", "1", "--out", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 1 and "fedcanon:A" in err
