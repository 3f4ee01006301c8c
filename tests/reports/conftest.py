"""The store of one small quick report (``tests.reports.stored``), built once per test process."""

from __future__ import annotations

import pytest

from tests.reports.stored import run_report


@pytest.fixture(scope="session")
def stored(tmp_path_factory):
    """The store of one ``stored.REPORT``; tests copy it before they edit it."""
    root = tmp_path_factory.mktemp("stored")
    assert run_report(root / "rep", root / "s.sqlite") in (0, 1)
    return root / "s.sqlite"
