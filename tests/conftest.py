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
