"""The documentation: the site builds in strict mode, the README is short and self-contained, and
its code runs.

A broken link, a page missing from the navigation or an API name that no longer resolves fails
``mkdocs build --strict``; the README's claim example is run as the test module it says it is.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def test_the_docs_site_builds_in_strict_mode(tmp_path):
    cmd = [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")]
    out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-3000:]
    cli = (tmp_path / "site" / "reference" / "cli" / "index.html").read_text()
    for command in ("validate", "check", "report", "worstcase", "sweep", "--strict", "--workers"):
        assert command in cli, command  # generated from the parsers
    api = (tmp_path / "site" / "reference" / "api" / "index.html").read_text()
    assert "bounded_ratio" in api and "Claim" in api


def test_the_cli_reference_has_every_command():
    from fcocheck.reports.cli_reference import _subparsers, cli_markdown
    from fcocheck.reports.parsers import build_parser

    page = cli_markdown()
    for name in _subparsers(build_parser("")):
        assert f"## `fcocheck {name}`" in page


def test_the_readme_is_short_starts_with_the_two_commands_and_links_only_inside_the_repository():
    lines = README.splitlines()
    assert len(lines) <= 150, len(lines)
    block = README.split("```bash\n", 1)[1].split("```", 1)[0].splitlines()
    assert [ln.split("#")[0].strip() for ln in block] == ["bash scripts/main.sh", "bash scripts/test.sh"]
    for target in re.findall(r"\]\(([^)]+)\)", README):
        assert "://" not in target and not target.startswith(".."), target
        assert (ROOT / target.split("#")[0]).exists(), target
    assert "../shared" not in README


def test_no_source_file_points_outside_the_repository():
    pattern = re.compile(r"\.\./shared|\bDESIGN \d|\bSPEC ?§|\bBASELINES\.md")
    folders = ("solvers", "rates", "verify", "reports", "fcocheck", "docs")
    offenders = [str(p.relative_to(ROOT)) for folder in folders for p in (ROOT / folder).rglob("*")
                 if p.suffix in (".py", ".md", ".j2") and p.name != "text.py"  # text.py maps them
                 and pattern.search(p.read_text())]
    assert offenders == []


def test_the_readmes_claim_example_is_a_passing_test_module(pytester):
    code = README.split("```python\n", 1)[1].split("```", 1)[0]
    assert code.startswith("# test_mine.py")
    pytester.makepyfile(test_mine=code)
    result = pytester.runpytest_subprocess("-p", "no:xdist", "-p", "no:cacheprovider", "-rA")
    result.assert_outcomes(passed=1)
