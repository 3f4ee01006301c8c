"""Hypothesis profiles: ``ci`` (default, bounded) and ``thorough`` (nightly).

Select with FCOCHECK_HYPOTHESIS_PROFILE=thorough.
"""

import os

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
