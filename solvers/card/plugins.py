"""Users' method cards from their own modules, for every command and every process of it.

``--plugin MODULE`` (or a ``.py`` file) loads them in the command's process, and ``FCOCHECK_PLUGINS``
in the processes it starts (pool and Dask workers inherit it).

A plugin module lists its cards as ``fcocheck_cards = [...]`` (or defines one ``CARD``); each is
registered as a registry entry (``fcocheck.solvers.algorithms.register_card``), so ``run``, ``sweep``,
``check``, ``validate``, ``worstcase`` and ``report`` know it by name, in every process of the command.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import sys
from pathlib import Path
from typing import Any

from fcocheck.solvers.errors import InvalidAlgorithmError

ENV = "FCOCHECK_PLUGINS"


def import_plugin(spec: str) -> Any:
    """The module named ``spec`` (dotted name) or at path ``spec`` (a ``.py`` file)."""
    if spec.endswith(".py") or os.sep in spec:
        path = Path(spec).resolve()
        if not path.is_file():
            raise InvalidAlgorithmError(f"plugin {spec!r} is not a file; the rule is a module name or a "
                                        ".py file")
        name = "fcocheck_plugin_" + hashlib.sha256(str(path).encode()).hexdigest()[:12]
        if name in sys.modules:
            return sys.modules[name]
        loader = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(loader)
        sys.modules[name] = module
        try:
            loader.loader.exec_module(module)
        except Exception as exc:
            del sys.modules[name]
            raise InvalidAlgorithmError(f"plugin {spec!r} raised {type(exc).__name__}: {exc}") from None
        return module
    try:
        return importlib.import_module(spec)
    except ImportError as exc:
        raise InvalidAlgorithmError(f"plugin {spec!r} cannot be imported ({exc}); the rule is an importable "
                                    "module name or a .py file") from None


#: users' rate claims (``fcocheck_claims`` of the plugins loaded), judged by ``validate`` and the report
CLAIMS: list[Any] = []
#: callbacks of the layers that use the claims (``verify.experiments``)
_ON_CLAIM: list[Any] = []


def cards_of(module: Any, spec: str | None = None) -> list[Any]:
    """``module.fcocheck_cards`` (or ``[module.CARD]``); ``spec`` names the plugin in errors."""
    from fcocheck.solvers.card import Card

    single = [module.CARD] if hasattr(module, "CARD") else []
    cards = list(getattr(module, "fcocheck_cards", None) or single)
    bad = [c for c in cards if not isinstance(c, Card)]
    if (not cards and not getattr(module, "fcocheck_claims", None)) or bad:
        raise InvalidAlgorithmError(f"plugin {spec or module.__name__!r} lists {bad or 'no cards'}; the rule "
                                    "is fcocheck_cards = [Card(...), ...] (or CARD = Card(...))")
    return cards


def load(specs: list[str], export: bool = True) -> list[Any]:
    """Import each plugin and register its cards; with ``export``, name them in ``FCOCHECK_PLUGINS``."""
    from fcocheck.solvers import algorithms

    out = []
    for spec in specs:
        module = import_plugin(spec)
        for card in cards_of(module, spec):
            if algorithms.CARDS.get(card.name) is not card:
                algorithms.register_card(card)
            out.append(card)
        for claim in getattr(module, "fcocheck_claims", None) or []:
            if not any(c is claim for c in CLAIMS):
                for hook in _ON_CLAIM:  # admitted (``verify.claim_admit``) before it is listed
                    hook(claim)
                CLAIMS.append(claim)
    if export and specs:
        known = [s for s in os.environ.get(ENV, "").split(os.pathsep) if s]
        os.environ[ENV] = os.pathsep.join(known + [str(Path(s).resolve()) if s.endswith(".py") else s
                                                   for s in specs if s not in known])
    return out


def from_environment() -> list[Any]:
    """The plugins named in ``FCOCHECK_PLUGINS`` (a worker process of a command run with ``--plugin``)."""
    return load([s for s in os.environ.get(ENV, "").split(os.pathsep) if s], export=False)
