"""Hypothesis profiles: ``ci`` (default, bounded) and ``thorough`` (nightly).

Select with FCOCHECK_HYPOTHESIS_PROFILE=thorough.
"""

import os

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", max_examples=40, deadline=None, derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "thorough", max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("FCOCHECK_HYPOTHESIS_PROFILE", "ci"))
pytest_plugins = ["pytester"]



@pytest.fixture(autouse=True)
def _private_solve_cache(tmp_path_factory, monkeypatch):
    """``fcocheck solve`` caches per instance; tests never touch the user's ~/.cache (one dir per test)."""
    monkeypatch.setenv("FCOCHECK_CACHE", str(tmp_path_factory.mktemp("fcocheck-cache")))


@pytest.fixture(autouse=True)
def _fresh_run_memo(monkeypatch):
    """Every test starts with an empty run memo (``verify.experiments.base.MEMO``): no test's runs are
    another's, and a test that compares two runs of one configuration clears it between them."""
    from fcocheck.verify.experiments import base

    monkeypatch.setattr(base, "_MEMO", base.OrderedDict())
