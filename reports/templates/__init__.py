"""The report's Jinja2 templates (HTML and Markdown) and the environment that loads them."""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).parent


def environment(autoescape: bool):  # noqa: ANN201 - jinja2.Environment, imported lazily
    """A Jinja2 environment over this folder; HTML autoescapes, Markdown does not."""
    import jinja2

    return jinja2.Environment(loader=jinja2.FileSystemLoader(HERE), autoescape=autoescape,
                              undefined=jinja2.StrictUndefined, trim_blocks=False, lstrip_blocks=False,
                              keep_trailing_newline=True)
