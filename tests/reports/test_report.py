"""``fcocheck report``: the HTML parses, every referenced file exists, verdicts match ``validate --json``."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

import pytest

from fcocheck.reports.cli import main

EXPERIMENTS = ["fco-eq-4.5", "fco-lemma-4.5-eta", "fedcanon-pl-linear", "fco-4.1-minibatch"]
ARGS = [a for e in EXPERIMENTS for a in ("--experiment", e)] + [
    "--algorithm",
    "fedavg",
    "--algorithm",
    "feddualavg",
    "--reproduction",
    "fedcanon-table3",
    "--reproduction",
    "fedcanon-fig1",
    "--workers",
    "1",
    "--no-progress",
]


class Page(HTMLParser):
    """Collects what the test checks; ``HTMLParser`` raises nothing, so balance is checked by hand."""

    VOID = {"meta", "img", "br", "hr", "link", "input"}

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.errors: list[str] = []
        self.verdicts: dict[str, str] = {}
        self.reproductions: dict[str, str] = {}
        self.figures: list[str] = []
        self.links: list[str] = []
        self.images: list[str] = []

    def handle_starttag(self, tag: str, attrs: list) -> None:
        a = dict(attrs)
        if tag not in self.VOID:
            self.stack.append(tag)
        if "data-experiment" in a:
            self.verdicts[a["data-experiment"]] = a["data-status"]
        if "data-reproduction" in a:
            self.reproductions[a["data-reproduction"]] = a["data-status"]
        if "data-figure" in a:
            self.figures.append(a["data-figure"])
        if tag == "a" and "href" in a:
            self.links.append(a["href"])
        if tag == "img":
            self.images.append(a["src"])

    def handle_endtag(self, tag: str) -> None:
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1:] or 'nothing'}")
        else:
            self.stack.pop()


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("report")
    assert main(["report", "--quick", "--out", str(out / "r"), "--store", str(out / "s.sqlite"), *ARGS]) == 0
    return out


def test_html_parses_and_is_self_contained(report):
    page = Page()
    page.feed((report / "r" / "index.html").read_text(encoding="utf-8"))
    page.close()
    assert not page.errors and page.stack == [], (page.errors, page.stack)
    assert page.images and all(src.startswith("data:image/png;base64,") for src in page.images)
    assert len(page.figures) == len(page.images)


def test_every_referenced_figure_and_file_exists(report):
    out = report / "r"
    page = Page()
    page.feed((out / "index.html").read_text(encoding="utf-8"))
    for fig in page.figures:
        assert (out / fig).is_file() and (out / fig).with_suffix(".svg").is_file(), fig
    local = [h for h in page.links if not h.startswith(("#", "http", "data:"))]
    assert any(h.startswith("counterexamples/") for h in local)
    for h in local:
        assert (out / h).is_file(), h
    md = (out / "report.md").read_text(encoding="utf-8")
    for fig in page.figures:
        assert f"]({fig})" in md


def test_verdicts_match_validate_json(report, capsys):
    page = Page()
    page.feed((report / "r" / "index.html").read_text(encoding="utf-8"))
    assert set(page.verdicts) == set(EXPERIMENTS)
    capsys.readouterr()
    for name in EXPERIMENTS:
        main(["validate", name, "--quick", "--json"])
        (res,) = json.loads(capsys.readouterr().out)
        assert page.verdicts[name] == res["status"], name
    data = json.loads((report / "r" / "report.json").read_text())
    assert data["verdicts"] == page.verdicts
    # FedMiD applies ψ twice: a documented disagreement, its diagnostic confirmed in the same run
    assert page.verdicts["fco-4.1-minibatch"] == "known disagreement"
    assert set(page.reproductions) == {"fedcanon-table3", "fedcanon-fig1"}  # fco-curse → fco-fig3: robustness


def test_a_second_report_reuses_the_store(report, capsys):
    capsys.readouterr()
    assert (
        main(["report", "--quick", "--out", str(report / "r2"), "--store", str(report / "s.sqlite"), *ARGS])
        == 0
    )
    prov = json.loads((report / "r2" / "report.json").read_text())["provenance"]
    assert prov["jobs"]["run"] == {} and prov["jobs"]["reused"]["experiment"] == len(EXPERIMENTS)
    assert all(s["reused"] == s["runs"] and not s["executed"] for s in prov["sweeps"])
    first = json.loads((report / "r" / "report.json").read_text())
    assert prov["code_version"] == first["provenance"]["code_version"]
    assert json.loads((report / "r2" / "report.json").read_text())["verdicts"] == first["verdicts"]


def test_report_rejects_unknown_names(tmp_path, capsys):
    assert (
        main(["report", "--out", str(tmp_path / "o"), "--store", str(tmp_path / "s"), "--experiment", "nope"])
        == 2
    )
    assert "--experiment 'nope'" in capsys.readouterr().err


def test_the_report_reads_as_a_paper_would(report):
    """Issue 20: mathematics as MathML (no raw LaTeX or sympy text), papers by name with a
    bibliography, no 16-digit floats, captions that say what each figure shows."""
    import re

    html = (report / "r" / "index.html").read_text(encoding="utf-8")
    md = (report / "r" / "report.md").read_text(encoding="utf-8")
    n_theorems = len(json.loads((report / "r" / "report.json").read_text())["theorems"])
    assert html.count('<p class="math"><math') >= n_theorems  # one statement per theorem, as MathML
    assert "\\frac" not in re.sub(r"<math.*?</math>", "", html, flags=re.S)  # no raw LaTeX outside
    for text in (html, md):
        assert not re.search(r"\bseed 00[0-4]\b|\bFO16\b|SPEC §", text)
        visible = re.sub(r"<[^>]+>|data:image/png;base64,[A-Za-z0-9+/=]+", " ", text)
        assert not re.search(r"\d\.\d{9,}", visible), re.search(r".{30}\d\.\d{9,}.{10}", visible)
    assert 'id="bibliography"' in html and "Konečný et al. 2016 [3]" in html and "## Bibliography" in md
    captions = re.findall(r"<figcaption>(.*?) — <a", html)
    # each caption names what is drawn and how (solid/dashed lines, bars, points, pattern)
    assert captions and all(len(c) > 40 and any(w in c for w in ("solid", "dashed", "per method", "Each run"))
                            for c in captions), captions
    assert "$$" in md  # the Markdown keeps LaTeX for renderers that typeset it


def test_text_helpers():
    from fcocheck.reports.text import mathml, readable, shorten

    assert readable("FedCanon (seed 003) and x = 7.999999999999999") == "FedCanon [2] and x = 8"
    assert readable("FO16 eq. (5), SPEC §4") == (
        "Konečný et al. 2016 [3] eq. (5), fcocheck's encoding of the statement")
    assert shorten("alpha beta gamma delta", 12) == "alpha beta …" and shorten("short", 12) == "short"
    assert mathml(r"\eta_c \le 1/(4L)").startswith("<math")


def test_every_internal_link_lands_on_an_anchor_and_the_contents_list_every_theorem(report):
    import re

    from fcocheck.reports.glossary import TERMS

    html = (report / "r" / "index.html").read_text(encoding="utf-8")
    ids = set(re.findall(r'\sid="([^"]+)"', html))
    targets = re.findall(r'href="#([^"]+)"', html)
    assert targets and [t for t in targets if t not in ids] == []
    toc = html.split('<nav class="toc"', 1)[1].split("</nav>", 1)[0]
    section = html.split('id="theorems"', 1)[1].split('id="conformance"')[0]
    for name in re.findall(r'<h3 id="([^"]+)">', section):
        assert f'href="#{name}"' in toc, name
    for e in EXPERIMENTS:  # the at-a-glance table links each experiment's box
        assert f'href="#{e}"' in html and f'id="{e}"' in html
    md = (report / "r" / "report.md").read_text(encoding="utf-8")
    for term, _ in TERMS:  # the words are defined once, on both pages
        assert "<dt>" in html and f"**{term}**" in md
    assert html.count("<dt>") == len(TERMS)
    assert html.count('title="open the full-size figure"') == len(re.findall(r"<figure ", html))


def _browser():
    """The probe module; without Chromium the browser tests skip, except where they are required (CI)."""
    import os

    from tests.reports import browser

    if browser.BROWSER is None:
        if os.environ.get("FCOCHECK_REQUIRE_BROWSER"):
            pytest.fail("FCOCHECK_REQUIRE_BROWSER is set and no Chromium is on PATH "
                        "(apt-get install chromium)")
        pytest.skip("no Chromium on PATH: the browser tests need it (.ci/run installs it)")
    return browser


def test_the_report_lays_out_in_a_real_browser(report):
    """Headless Chromium at 1400 px: every statement is MathML with a box and no error, every figure
    decoded at a readable width, every legend inside its figure, no horizontal scrolling."""
    browser = _browser()
    r = report / "r"
    svgs = sorted((r / "figures").glob("*.svg"))
    seen = browser.probe(r / "index.html", svgs)
    assert seen["math"] == [] and seen["images"] == [] and seen["legends"] == [], seen
    assert seen["overflow"] == 0, seen
    n_theorems = len(json.loads((r / "report.json").read_text())["theorems"])
    counts = seen["counts"]
    assert counts["math"] >= n_theorems and counts["images"] == len(svgs) == counts["svgs"] > 0
    assert all(n >= 1 for n in counts["per_svg"].values()), counts["per_svg"]  # each figure's legend measured
    for page in sorted((r / "gallery").glob("*.html")):  # the gallery's pages load the report's figures
        seen = browser.probe(page)
        assert seen["math"] == seen["images"] == [] and seen["overflow"] == 0, (page.name, seen)


def test_every_theorem_statement_renders_as_mathml_in_a_real_browser(tmp_path):
    """All the catalog's statements, tuned forms and conditions (the test report holds four theorems)."""
    from fcocheck.rates.catalog import THEOREMS
    from fcocheck.reports.text import mathml

    browser = _browser()
    items = []
    for t in THEOREMS.values():
        latex = t.latex()
        items += [latex["bound"], latex.get("tuned") or "", *t.conditions]
    items = [x for x in items if x]
    page = tmp_path / "statements.html"
    page.write_text("<!doctype html><html><body>" + "".join(f"<p>{mathml(x)}</p>" for x in items)
                    + "</body></html>", encoding="utf-8")
    seen = browser.probe(page)
    assert seen["counts"]["math"] == len(items) >= 2 * len(THEOREMS)
    assert seen["math"] == [], seen["math"]


def test_the_browser_probe_flags_what_a_reader_would_see_wrong(tmp_path):
    """The probe's power: a garbled statement, a thumbnail figure, a legend outside its figure and a
    page wider than the window are each flagged; a set's braces and a small native image are legal."""
    import base64

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    browser = _browser()
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.plot([1, 2], [1, 2], label="a line")
    ax.legend(loc="upper left", bbox_to_anchor=(1.3, 1.0))  # drawn past the figure's right edge
    fig.savefig(tmp_path / "outside.svg")
    ax.legend(loc="upper left")
    fig.savefig(tmp_path / "inside.svg")
    fig.savefig(tmp_path / "fig.png", dpi=200)
    plt.close(fig)
    png = base64.b64encode((tmp_path / "fig.png").read_bytes()).decode()
    from fcocheck.reports.text import mathml

    def page(name: str, body: str) -> Path:
        p = tmp_path / name
        p.write_text(f"<!doctype html><html><body>{body}</body></html>", encoding="utf-8")
        return p

    legal = mathml(r"\min\{a, b\} \le x_1^2")
    good = page("good.html", f"<p>{legal}</p>"
                f'<figure><img alt="ok" src="data:image/png;base64,{png}" style="width:800px"></figure>')
    seen = browser.probe(good, [tmp_path / "inside.svg"])
    assert seen["math"] == seen["images"] == seen["legends"] == [] and seen["overflow"] == 0, seen
    bad = page("bad.html", r"<p><math><mi>\frac</mi><mo>{</mo><mo>}</mo></math></p>"
               r"<p><math><merror><mtext>x</mtext></merror></math></p><p><math><mi>x_1^{2}</mi></math></p>"
               f'<figure><img alt="thumb" src="data:image/png;base64,{png}" style="width:300px"></figure>'
               '<div style="width:3000px">wide</div>')
    seen = browser.probe(bad, [tmp_path / "outside.svg"])
    assert [m["why"] for m in seen["math"]] == ["LaTeX left in the text", "merror", "LaTeX left in the text"]
    assert [i["why"] for i in seen["images"]] == ["shown 300 px wide"], seen["images"]
    assert [g["legend"] for g in seen["legends"]] == ["legend_1"] and seen["overflow"] > 0, seen


def test_the_gallery_has_one_page_per_theorem_with_the_reports_verdicts(report):
    """gallery/NAME.html per theorem: its verdicts are the report's, its figures and links resolve."""
    r = report / "r"
    data = json.loads((r / "report.json").read_text())
    index = (r / "gallery" / "index.html").read_text(encoding="utf-8")
    assert len(data["theorems"]) == len(list((r / "gallery").glob("*.html"))) - 1
    for t in data["theorems"]:
        page_file = r / "gallery" / f"{t['name']}.html"
        assert f'href="{t["name"]}.html"' in index
        page = Page()
        page.feed(page_file.read_text(encoding="utf-8"))
        page.close()
        assert not page.errors and page.stack == [], (t["name"], page.errors)
        assert page.verdicts == t["experiments"]  # the same verdicts as the report's
        for link in page.links + page.images:
            target = link.split("#", 1)[0]
            assert target and (page_file.parent / target).is_file(), (t["name"], link)
        for name in data["tightness"]:  # its worst cases (named THEOREM or THEOREM/METHOD), no other's
            shown = f'data-tightness="{name}"' in page_file.read_text(encoding="utf-8")
            assert shown == (name.split("/")[0] == t["name"]), (t["name"], name)


def test_a_rerun_into_the_same_output_draws_no_figure_again(report, monkeypatch, capsys):
    """The report's figures are reused from its own output (their keys match): none is drawn, none changes,
    and the report says so (its line and its provenance count every figure as kept)."""
    import shutil

    from fcocheck.reports import draw

    shutil.copytree(report / "r", report / "r3")
    monkeypatch.setattr(draw, "layout", lambda fig: pytest.fail(f"{fig.stem} drawn again"))
    assert main(["report", "--quick", "--out", str(report / "r3"), "--store", str(report / "s.sqlite"),
                 *ARGS]) == 0
    old, new = report / "r" / "figures", report / "r3" / "figures"
    figures = sorted(p.name for p in old.glob("*.*g"))
    assert figures and figures == sorted(p.name for p in new.glob("*.*g"))
    assert all((new / name).read_bytes() == (old / name).read_bytes() for name in figures)
    n = len(figures) // 2  # PNG and SVG
    assert f"({n} figures as PNG and SVG: 0 drawn, {n} already drawn from the same data and kept)" in (
        capsys.readouterr().out)
    assert json.loads((new.parent / "report.json").read_text())["provenance"]["figures"] == {"drawn": 0,
                                                                                             "reused": n}
    first = json.loads((old.parent / "report.json").read_text())["provenance"]["figures"]
    assert first == {"drawn": n, "reused": 0}
