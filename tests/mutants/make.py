"""Write ``tests/mutants/NAME.patch`` for every mutant of ``catalog.MUTANTS`` (unified diffs)."""

from __future__ import annotations

import difflib
from pathlib import Path

from tests.mutants.catalog import MUTANTS, Mutant

ROOT = Path(__file__).resolve().parents[2]


def patch_text(m: Mutant, root: Path = ROOT) -> str:
    """The unified diff of ``m`` against the tree at ``root`` (raises if ``old`` is not there once)."""
    src = (root / m.path).read_text()
    if src.count(m.old) != 1:
        n = src.count(m.old)
        raise ValueError(f"mutant {m.name}: {m.old!r} occurs {n} times in {m.path}; the rule is once")
    new = src.replace(m.old, m.new)
    return "".join(difflib.unified_diff(src.splitlines(True), new.splitlines(True),
                                        f"a/{m.path}", f"b/{m.path}"))


def main() -> None:
    for m in MUTANTS:
        (ROOT / "tests" / "mutants" / f"{m.name}.patch").write_text(patch_text(m))
    print(f"{len(MUTANTS)} patches written")


if __name__ == "__main__":
    main()
