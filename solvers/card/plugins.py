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

from fcocheck.solvers import ctrl_c
from fcocheck.solvers.error_text import describe
from fcocheck.solvers.errors import FcocheckError, InvalidAlgorithmError

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
        except FcocheckError:  # a card or claim the module builds breaks a rule: that message, as it is
            del sys.modules[name]
            raise
        except (Exception, SystemExit, KeyboardInterrupt) as exc:
            del sys.modules[name]
            if isinstance(exc, KeyboardInterrupt) and ctrl_c.seen():
                raise  # a real Ctrl-C while the module was imported
            raise InvalidAlgorithmError(f"plugin {spec!r} raised {describe(exc)}; the rule is a "
                                        "module that defines cards and claims") from None
        return module
    try:
        return importlib.import_module(spec)
    except ImportError as exc:
        raise InvalidAlgorithmError(f"plugin {spec!r} cannot be imported ({exc}); the rule is an importable "
                                    "module name or a .py file") from None


#: users' rate claims (``fcocheck_claims`` of the plugins loaded), judged by ``validate`` and the report
CLAIMS: list[Any] = []
#: callbacks of the layers that use the claims (``verify.experiments``): on registering one, and undoing it
_ON_CLAIM: list[Any] = []
_ON_UNCLAIM: list[Any] = []


def _listed(module: Any, attribute: str, spec: str | None) -> list[Any]:
    """``module.<attribute>`` as a list: missing or empty is [], a list or tuple as it is, else refused."""
    value = getattr(module, attribute, None)
    if value is None:
        return []
    if not isinstance(value, list | tuple):
        raise InvalidAlgorithmError(f"plugin {spec or module.__name__!r}: {attribute} = {value!r:.80}; the "
                                    f"rule is a list ({attribute} = [...])")
    return list(value)


def cards_of(module: Any, spec: str | None = None) -> list[Any]:
    """``module.fcocheck_cards`` (or ``[module.CARD]``); ``spec`` names the plugin in errors."""
    from fcocheck.solvers import algorithms
    from fcocheck.solvers.card import Card

    if hasattr(module, "fcocheck_cards"):  # stated, even empty, it is the list (CARD is then not read)
        cards = _listed(module, "fcocheck_cards", spec)
    else:
        cards = [module.CARD] if hasattr(module, "CARD") else []
    bad = [c for c in cards if not isinstance(c, Card)]
    if (not cards and not claims_of(module, spec)) or bad:
        raise InvalidAlgorithmError(f"plugin {spec or module.__name__!r} lists {bad or 'no cards'}; the rule "
                                    "is fcocheck_cards = [Card(...), ...] (or CARD = Card(...))")
    shipped = [c.name for c in cards if c.name in algorithms.BUILT_IN and algorithms.CARDS.get(c.name) is c]
    if shipped:
        raise InvalidAlgorithmError(f"plugin {spec or module.__name__!r} lists the built-in card "
                                    f"{shipped[0]!r}; the rule is cards of its own "
                                    "(dataclasses.replace(CARD, name='mine', ...))")
    return cards


def claims_of(module: Any, spec: str | None = None) -> list[Any]:
    """``module.fcocheck_claims``: a list of ``Claim`` (anything else refused, naming it)."""
    from fcocheck.verify.claim import Claim

    claims = _listed(module, "fcocheck_claims", spec)
    bad = [c for c in claims if not isinstance(c, Claim)]
    if bad:
        raise InvalidAlgorithmError(f"plugin {spec or module.__name__!r}: fcocheck_claims holds "
                                    f"{bad[0]!r:.80}; the rule is fcocheck_claims = [Claim(...), ...]")
    return claims


def load(specs: list[str], export: bool = True) -> list[Any]:
    """Import each plugin and register its cards; with ``export``, name them in ``FCOCHECK_PLUGINS``.

    One module is all or nothing: a card or claim of it that breaks a rule unregisters what the module
    had registered before it (so a refused plugin leaves the process as it found it).
    """
    out = []
    for spec in specs:
        out += _load_one(spec)
    if export and specs:
        known = [s for s in os.environ.get(ENV, "").split(os.pathsep) if s]
        os.environ[ENV] = os.pathsep.join(known + [str(Path(s).resolve()) if s.endswith(".py") else s
                                                   for s in specs if s not in known])
    return out


def _load_one(spec: str) -> list[Any]:
    from fcocheck.solvers import algorithms

    module = import_plugin(spec)
    cards, new_cards, new_claims = cards_of(module, spec), [], []
    try:
        for card in cards:
            if algorithms.CARDS.get(card.name) is not card:
                algorithms.register_card(card)
                new_cards.append(card.name)
        algorithms.check_reductions(cards)  # their targets, once every card of the module is in
        for claim in claims_of(module, spec):
            if not any(c is claim for c in CLAIMS):
                for hook in _ON_CLAIM:  # admitted (``verify.claim_admit``) before it is listed
                    hook(claim)
                CLAIMS.append(claim)
                new_claims.append(claim)
    except BaseException:
        for claim in new_claims:
            CLAIMS.remove(claim)
            for hook in _ON_UNCLAIM:
                hook(claim)
        for name in new_cards:
            algorithms.unregister(name)
        raise
    return list(cards)


def from_environment() -> list[Any]:
    """The plugins named in ``FCOCHECK_PLUGINS`` (a worker process of a command run with ``--plugin``)."""
    return load([s for s in os.environ.get(ENV, "").split(os.pathsep) if s], export=False)
