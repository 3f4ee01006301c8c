r"""MathML from untrusted LaTeX, rebuilt from an allow-list so that no markup a store holds reaches a page.

A statement a report prints may come from a results store or a user's plugin.  The LaTeX converter
copies ``\text{…}`` verbatim and turns ``\href``/``\style`` into attributes, so its output can carry an
``<img onerror=…>``, an ``<svg onload=…>`` or a ``javascript:`` link.  ``sanitized`` therefore parses the
converter's output as XML and writes it out again keeping only

* elements of the MathML namespace whose local name is in ``ELEMENTS`` (presentation MathML: no
  ``annotation-xml``, no ``maction``, no ``semantics``: they can hold foreign content);
* attributes in ``ATTRIBUTES`` whose value matches ``VALUE`` (letters, digits, spaces and ``.%#+-``:
  no colon, parenthesis, quote or angle bracket, so no URL and no style);
* text, escaped.

Anything else — an element outside the list with its whole subtree, a comment, a processing
instruction — is dropped.  Output that is not well-formed XML (``\text{a < b}``) is refused (``None``)
and the caller shows the LaTeX as escaped code.
"""

from __future__ import annotations

import html
import re
import xml.etree.ElementTree as ET

NAMESPACE = "http://www.w3.org/1998/Math/MathML"
ELEMENTS = frozenset({
    "math", "mrow", "mi", "mn", "mo", "ms", "mtext", "mspace", "msub", "msup", "msubsup", "mfrac",
    "msqrt", "mroot", "mstyle", "merror", "mpadded", "mphantom", "mfenced", "menclose", "munder",
    "mover", "munderover", "mtable", "mtr", "mtd", "mlabeledtr", "mmultiscripts", "mprescripts", "none",
})
ATTRIBUTES = frozenset({
    "display", "mathvariant", "stretchy", "fence", "separator", "separators", "lspace", "rspace",
    "accent", "accentunder", "columnalign", "rowalign", "columnspacing", "rowspacing", "columnlines",
    "rowlines", "frame", "width", "height", "depth", "linethickness", "scriptlevel", "displaystyle",
    "minsize", "maxsize", "movablelimits", "symmetric", "largeop", "form", "notation", "open", "close",
    "columnspan", "rowspan", "align", "mathsize", "mathcolor", "mathbackground", "voffset",
})
VALUE = re.compile(r"[\w .%#+-]*")


def _attributes(el: ET.Element) -> str:
    kept = [(k, v) for k, v in el.attrib.items() if k in ATTRIBUTES and VALUE.fullmatch(v)]
    return "".join(f' {k}="{html.escape(v)}"' for k, v in kept)


def _element(el: ET.Element) -> str:
    """The element rebuilt (its tail excluded), or ``""`` when it is not allowed."""
    if not isinstance(el.tag, str) or not el.tag.startswith("{" + NAMESPACE + "}"):
        return ""
    name = el.tag[len(NAMESPACE) + 2:]
    if name not in ELEMENTS:
        return ""
    xmlns = f' xmlns="{NAMESPACE}"' if name == "math" else ""
    inner = html.escape(el.text or "", quote=False) + "".join(
        _element(child) + html.escape(child.tail or "", quote=False) for child in el)
    return f"<{name}{xmlns}{_attributes(el)}>{inner}</{name}>"


def sanitized(markup: str) -> str | None:
    """``markup`` (a converter's ``<math>`` element) rebuilt from the allow-list, or ``None``.

    ``None`` when it is not well-formed XML or its root is not a MathML ``math`` element.
    """
    try:
        root = ET.fromstring(markup)
    except ET.ParseError:
        return None
    if root.tag != "{" + NAMESPACE + "}math":
        return None
    return _element(root)
