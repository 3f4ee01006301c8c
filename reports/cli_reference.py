"""The CLI reference page, generated from the parsers (``reports.parsers``): one section per command.

``cli_markdown()`` renders every sub-command's ``--help`` as the parser prints it, so the reference
cannot drift from the code; the docs site's build hook (``docs/hooks.py``) fills
``docs/reference/cli.md`` with it.
"""

from __future__ import annotations

import argparse
import os


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:  # argparse keeps sub-commands only here
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def cli_markdown(version: str = "") -> str:
    """Markdown: the top-level help, then each command's help in a code block, in parser order."""
    from fcocheck.reports.parsers import build_parser

    old = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "100"  # the width argparse wraps at: the same page on any terminal
    try:
        top = build_parser(version)
        parts = ["# Command-line reference", "",
                 "Generated from the parsers at build time; `fcocheck COMMAND --help` prints the same.", "",
                 "```text", top.format_help().rstrip(), "```", ""]
        for name, sub in _subparsers(top).items():
            parts += [f"## `fcocheck {name}`", "", "```text", sub.format_help().rstrip(), "```", ""]
    finally:
        if old is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = old
    return "\n".join(parts)
