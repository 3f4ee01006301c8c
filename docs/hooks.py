"""MkDocs build hook: the CLI reference page is generated from the parsers at build time."""

from __future__ import annotations

from typing import Any


def on_page_read_source(page: Any, config: Any) -> str | None:
    """Replace ``reference/cli.md``'s placeholder by the generated reference."""
    if page.file.src_uri != "reference/cli.md":
        return None
    from fcocheck.reports.cli_reference import cli_markdown

    return cli_markdown()
