"""Text as a reader sees it: papers by name with a bibliography, floats rounded, LaTeX as MathML.

* ``readable(text)`` replaces the toolkit's internal shorthands (``seed 003``, ``FO16``,
  ``SPEC §4``, ``BASELINES.md``) by the papers' names with a bibliography number, and rewrites
  any float printed with spurious digits (``7.999999999999999``, ``0.7711054127039704``) to four
  significant digits.  Applied to every sentence the renderers print.
* ``mathml(latex)`` renders a LaTeX fragment as MathML, which browsers display natively: the
  page stays self-contained and offline (no script, no font download).
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Paper:
    """A bibliography entry."""

    key: str
    authors: str
    title: str
    venue: str
    short: str


BIBLIOGRAPHY = (
    Paper("fco", "H. Yuan, M. Zaheer, S. Reddi", "Federated Composite Optimization",
          "ICML 2021 (arXiv 2011.08474)", "Yuan, Zaheer & Reddi 2021"),
    Paper("fedcanon", "(authors as in the paper)", "FedCanon: Non-Convex Composite Federated Learning with "
          "Efficient Proximal Operation on Heterogeneous Data", "preprint", "FedCanon"),
    Paper("fo16", "J. Konečný, H. B. McMahan, D. Ramage, P. Richtárik", "Federated Optimization: Distributed "
          "Machine Learning for On-Device Intelligence", "arXiv 1610.02527, 2016", "Konečný et al. 2016"),
    Paper("scaffold", "S. P. Karimireddy et al.", "SCAFFOLD: Stochastic Controlled Averaging for Federated "
          "Learning", "ICML 2020", "Karimireddy et al. 2020"),
    Paper("proxskip", "K. Mishchenko, G. Malinovsky, S. Stich, P. Richtárik", "ProxSkip: Yes! Local "
          "Gradient Steps Provably Lead to Communication Acceleration! Finally!", "ICML 2022",
          "Mishchenko et al. 2022"),
    Paper("svrg", "R. Johnson, T. Zhang", "Accelerating Stochastic Gradient Descent using Predictive "
          "Variance Reduction", "NeurIPS 2013", "Johnson & Zhang 2013"),
)
_NUM = {p.key: i + 1 for i, p in enumerate(BIBLIOGRAPHY)}


def _ref(key: str) -> str:
    p = BIBLIOGRAPHY[_NUM[key] - 1]
    return f"{p.short} [{_NUM[key]}]"


_CITES = (
    (re.compile(r"\bFedCanon \(seed 003\)"), f"FedCanon [{_NUM['fedcanon']}]"),
    (re.compile(r"\bFCO \(seeds? 00[0-2](?:[–-]00[0-2])?\)"), f"FCO [{_NUM['fco']}]"),
    (re.compile(r"\bseeds? 00[0-2](?:[–-]00[0-2])?"), _ref("fco")),
    (re.compile(r"\bseed 003\b"), _ref("fedcanon")),
    (re.compile(r"\bseed 004\b|\bFO16\b"), _ref("fo16")),
    (re.compile(r"\bSPEC ?§ ?\d+(?:\.\d+)?"), "fcocheck's encoding of the statement"),
    (re.compile(r"\bBASELINES\.md\b"), "fcocheck's baseline definitions"),
)
_FLOAT = re.compile(r"(?<![\w.])-?\d+\.\d{6,}(?:e[-+]?\d+)?(?![\w.])")


def shorten_floats(text: str) -> str:
    """Every float literal with six or more decimals, at four significant digits."""
    return _FLOAT.sub(lambda m: f"{float(m.group(0)):.4g}", text)


def readable(text: object) -> str:
    """Citations by name (see ``BIBLIOGRAPHY``) and floats rounded."""
    out = str(text)
    for pattern, repl in _CITES:
        out = pattern.sub(repl, out)
    return shorten_floats(out)


def mathml(latex: str) -> str:
    """LaTeX → inline MathML rebuilt from an allow-list (``safe_mathml``), else the LaTeX as escaped code.

    Escaped code when the converter cannot read the expression or its output is not clean MathML.  The
    LaTeX may come from a store or a plugin: whatever it holds, the result carries no element,
    attribute or URL outside presentation MathML.
    """
    from latex2mathml.converter import convert

    from fcocheck.reports.safe_mathml import sanitized

    try:
        out = sanitized(convert(latex))
    except Exception:  # noqa: BLE001 - a statement must still be shown, as its source
        from fcocheck.solvers import ctrl_c

        ctrl_c.check()  # unless it is a Ctrl-C in another form
        out = None
    return out if out is not None else f"<code>{html.escape(latex)}</code>"


def shorten(text: str, limit: int) -> str:
    """At most ``limit`` characters, cut at a word boundary with an ellipsis (never mid-word)."""
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0]
    return cut.rstrip(",;:") + " …"
