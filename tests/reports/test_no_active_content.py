"""No stored string becomes script in a report (issue 54): every page parsed as a browser parses it.

A report prints strings it did not write — a user's claim statement, names, reasons, notes, table cells
read back from a results store.  ``active_content.active`` (html5lib, written apart from the report's
escaping) lists what a browser would run; these tests fill every stored string of a real report with
attack payloads, render ``index.html``, the gallery and ``report.md`` (as a Markdown renderer makes it
HTML), and find nothing — while the same payloads, left raw or with the MathML allow-list or the
Markdown guard removed, are found.
"""

from __future__ import annotations

import copy
import dataclasses
import random
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.reports.active_content import PAYLOADS, active, markdown_page

#: the fields that are not stored strings: figure stems the drawer made (files the report reads)
NOT_STORED = frozenset({"figure"})


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """A real report (one experiment, one reproduction, a conformance slice, the quick worst cases)."""
    from fcocheck.reports.build import build
    from fcocheck.verify.sweep.session import Session
    from fcocheck.verify.sweep.store import Store

    root = tmp_path_factory.mktemp("built")
    session = Session(Store(root / "s.sqlite"), progress=False)
    try:
        report = build(session, root / "out", True, 0, ["fco-eq-4.5"], ["fedavg"], ("fedcanon-table3",),
                       "quick")
    finally:
        session.store.close()
    claim = copy.deepcopy(report.theorems[0])  # a user's claim: its statement is stored text
    claim.name, claim.statement = "claim-mine", r"\frac{1}{R}"
    report.theorems.append(claim)
    return report, root / "out"


def _poisoned(value, payload: str, pick):  # noqa: ANN001, ANN202
    """``value`` with every string (dict keys kept) replaced by ``payload`` where ``pick()`` says so."""
    if isinstance(value, str):
        return payload if pick() else value
    if isinstance(value, dict):
        return {k: _poisoned(v, payload, pick) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(_poisoned(v, payload, pick) for v in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.replace(value, **{
            f.name: _poisoned(getattr(value, f.name), payload, pick)
            for f in dataclasses.fields(value) if f.init and f.name not in NOT_STORED})
    return value


def _pages(report, figures: Path, out: Path) -> dict[str, str]:  # noqa: ANN001
    """Every page the renderers write for ``report``, HTML as written, Markdown as rendered to HTML."""
    from fcocheck.reports.render_html import render_html
    from fcocheck.reports.render_md import render_md

    out.mkdir(parents=True, exist_ok=True)
    if not (out / "figures").exists():
        (out / "figures").symlink_to(figures / "figures")  # the PNGs view() embeds; nothing is written there
    render_html(report, out)
    render_md(report, out)
    pages = {str(p.relative_to(out)): p.read_text(encoding="utf-8") for p in out.rglob("*.html")
             if "figures" not in p.parts}
    pages["report.md"] = markdown_page((out / "report.md").read_text(encoding="utf-8"))
    return pages


def _found(pages: dict[str, str]) -> dict[str, list[str]]:
    return {name: bad for name, page in pages.items() if (bad := active(page))}


@pytest.mark.parametrize("payload", PAYLOADS)
def test_the_probe_sees_every_payload_in_a_raw_page(payload):
    """The probe's power: each payload left raw (HTML text, a link, Markdown, the converter's MathML
    without the allow-list, an attribute) is active content in at least one of these places."""
    from latex2mathml.converter import convert

    raw = [f"<p>{payload}</p>", f'<a href="{payload}">x</a>', f"<a title='{payload}'>x</a>",
           markdown_page(payload)]
    try:
        raw.append(convert(payload))
    except Exception:  # noqa: BLE001 - not LaTeX the converter reads
        pass
    assert any(active(page) for page in raw), payload


def test_legal_pages_pass_the_probe():
    """The project's own constructs are not flagged: relative links, fragments, an embedded PNG."""
    page = ('<p><a href="#x">a</a> <a href="figures/a.png">b</a> <a href="../index.html#y">c</a>'
            '<img alt="f" src="data:image/png;base64,iVBORw0KGgo="></p><style>body{color:#222}</style>')
    assert active(page) == []
    assert active('<img src="data:image/svg+xml;base64,PHN2Zz4=">') != []  # only the PNGs the report embeds


@pytest.mark.parametrize("payload", PAYLOADS)
def test_mathml_of_any_payload_is_inert(payload):
    from fcocheck.reports.text import mathml

    assert active(f"<p>{mathml(payload)}</p>") == [], mathml(payload)


def test_every_catalog_statement_keeps_its_mathml_tree():
    """Legal LaTeX loses nothing: the allow-list's output is the converter's tree, element for element,
    attribute for attribute (entities decoded), for every statement, tuned form and condition."""
    from latex2mathml.converter import convert

    from fcocheck.rates.catalog import THEOREMS
    from fcocheck.reports.text import mathml

    def tree(markup: str) -> list:
        return [(el.tag, sorted(el.attrib.items()), (el.text or "").strip(), (el.tail or "").strip())
                for el in ET.fromstring(markup).iter()]

    items = [x for t in THEOREMS.values() for x in (t.latex()["bound"], t.latex().get("tuned"), *t.conditions)
             if x]
    assert len(items) >= 2 * len(THEOREMS)
    for latex in items:
        assert tree(mathml(latex)) == tree(convert(latex)), latex


def test_a_report_whose_every_stored_string_is_a_payload_has_no_active_content(built, tmp_path):
    report, out = built
    for payload in PAYLOADS:
        poisoned = _poisoned(report, payload, lambda: True)
        found = _found(_pages(poisoned, out, tmp_path / str(PAYLOADS.index(payload))))
        assert found == {}, (payload, found)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                   HealthCheck.too_slow])
@given(payload=st.one_of(st.sampled_from(PAYLOADS),
                         st.builds(lambda a, b, c: a + b + c, st.text(max_size=6), st.sampled_from(PAYLOADS),
                                   st.text(alphabet="<>\"'`=&;:/()[]{}\\ \nxa", max_size=12))),
       seed=st.integers(0, 2**32 - 1))
def test_stored_strings_drawn_by_hypothesis_never_become_script(built, tmp_path_factory, payload, seed):
    """A payload drawn by Hypothesis in a random half of the stored strings (``seed`` picks which)."""
    report, out = built
    picks = random.Random(seed)
    poisoned = _poisoned(report, payload, lambda: picks.random() < 0.5)
    assert _found(_pages(poisoned, out, tmp_path_factory.mktemp("h"))) == {}


@pytest.mark.parametrize("guard", ["mathml", "markdown"])
def test_without_its_guard_the_report_carries_script(built, tmp_path, monkeypatch, guard):
    """The planted bugs: the MathML allow-list bypassed, or the Markdown values left as they are — the
    poisoned report then carries active content, so the test above can fail."""
    from fcocheck.reports import render_md, safe_mathml

    if guard == "mathml":
        monkeypatch.setattr(safe_mathml, "sanitized", lambda markup: markup)
        payload, page = PAYLOADS[2], "index.html"
    else:
        monkeypatch.setattr(render_md, "inert", str)
        payload, page = PAYLOADS[1], "report.md"
    report, out = built
    found = _found(_pages(_poisoned(report, payload, lambda: True), out, tmp_path))
    assert page in found, found
