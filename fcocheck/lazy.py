"""Public names imported on first use (PEP 562), for a package whose import must stay cheap.

A package's ``__init__`` says ``__getattr__, __dir__ = lazy_exports(__name__, PUBLIC, globals())``
with PUBLIC mapping each name to the module that defines it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any


def lazy_exports(package: str, public: Mapping[str, str],
                 namespace: dict[str, Any]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for ``package``: name → the module that defines it, cached."""

    def __getattr__(name: str) -> Any:  # noqa: N807 - the module hook's name
        if name not in public:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(public[name]), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:  # noqa: N807
        return sorted(set(namespace) | set(public))

    return __getattr__, __dir__
