"""What a browser would run in a page: parsed with html5lib (the HTML standard's parsing algorithm).

``active(html)`` lists every piece of active content: a script-bearing element, an event-handler
attribute, a URL with a scheme (``javascript:``, ``data:`` …) anywhere a URL is read — except the PNG
data URIs the report embeds in ``img src`` — and a ``style`` attribute that loads anything.  It is
written apart from the report's own escaping and MathML allow-list (``reports.safe_mathml``): a check
built from the code it checks would agree with it.  ``PAYLOADS`` are the strings an attacker would
store; ``test_the_probe_sees_every_payload_in_a_raw_page`` shows the probe flags each one.
"""

from __future__ import annotations

import re

import html5lib

#: elements that run code, load a document or submit one, wherever they sit
ACTIVE = frozenset({"script", "iframe", "frame", "frameset", "object", "embed", "applet", "base", "form",
                    "input", "button", "link", "portal", "foreignobject", "annotation-xml", "animate",
                    "set", "handler", "listener", "use"})
URL_ATTRIBUTES = frozenset({"href", "src", "action", "formaction", "data", "poster", "background", "srcset",
                            "xlink:href", "codebase", "cite", "longdesc", "ping", "lowsrc", "dynsrc"})
SCHEME = re.compile(r"^[a-z][a-z0-9+.\-]*:")
PROJECT_IMAGE = re.compile(r"data:image/png;base64,[A-Za-z0-9+/=]+")
#: characters a browser strips from a URL before reading its scheme
_STRIPPED = re.compile(r"[\x00-\x20\x7f]+")

PAYLOADS = (
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    r'\text{<img/src="x"/onerror="alert(document.domain)">}',
    r"\text{<svg/onload=alert(1)>}",
    r'\text{<img src="x" onerror="alert(1)"/>}',
    r"\href{javascript:alert(1)}{x}",
    r"\style{background:url(javascript:alert(1))}{x}",
    r'\text{<mi onclick="alert(1)">a</mi>}',
    '"><svg onload=alert(1)>',
    "' onmouseover='alert(1)",
    "</math><script>alert(1)</script>",
    "[x](javascript:alert(1))",
    "\n\n[x]: javascript:alert(1)\n\n[x]\n",
    "javascript:alert(1)",
    "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
    "<a href='javascript:alert(1)'>x</a>",
    "<svg><foreignObject><img src=x onerror=alert(1)></foreignObject></svg>",
    "<iframe srcdoc='<script>alert(1)</script>'>",
)


def _local(tag: object) -> str:
    return str(tag).rsplit("}", 1)[-1].lower()


def active(page: str) -> list[str]:
    """Every piece of active content in ``page`` (an HTML document or fragment), as readable lines."""
    root = html5lib.parse(page, treebuilder="etree", namespaceHTMLElements=False)
    found = []
    for el in root.iter():
        if not isinstance(el.tag, str):  # comments
            continue
        name = _local(el.tag)
        if name in ACTIVE:
            found.append(f"element <{name}>")
        if name == "style" and re.search(r"url\(|@import|expression\(", el.text or "", re.I):
            found.append("<style> that loads something")
        if name == "meta" and "http-equiv" in {_local(k) for k in el.attrib}:
            found.append("element <meta http-equiv>")
        for key, value in el.attrib.items():
            attr = _local(key)
            if attr.startswith("on"):
                found.append(f"<{name} {attr}=…>")
            url = _STRIPPED.sub("", value).lower()
            if (attr in URL_ATTRIBUTES or key.endswith("}href")) and SCHEME.match(url) \
                    and not (name == "img" and attr == "src" and PROJECT_IMAGE.fullmatch(value)):
                found.append(f"<{name} {attr}={value[:40]!r}>")
            if attr == "style" and ("url(" in url or "expression(" in url or "javascript:" in url):
                found.append(f"<{name} style={value[:40]!r}>")
    return found


def markdown_page(text: str) -> str:
    """``text`` (Markdown) as the HTML a Markdown renderer makes of it (Python-Markdown, with tables)."""
    import markdown

    return markdown.markdown(text, extensions=["tables"])
