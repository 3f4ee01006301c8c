"""The report's Jinja2 templates (HTML and Markdown) and the environment that loads them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent


def environment(autoescape: bool, finalize: Callable[[Any], Any] | None = None):  # noqa: ANN201
    """A Jinja2 environment over this folder (``jinja2.Environment``, imported lazily).

    HTML autoescapes; Markdown does not, and passes every value through ``finalize`` instead.
    """
    import jinja2

    return jinja2.Environment(loader=jinja2.FileSystemLoader(HERE), autoescape=autoescape, finalize=finalize,
                              undefined=jinja2.StrictUndefined, trim_blocks=False, lstrip_blocks=False,
                              keep_trailing_newline=True)
