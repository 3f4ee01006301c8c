"""Method cards: one description per method, from which its run, counts, PEP program and reference follow."""

from fcocheck.solvers.card.card import Card, CardState, DualCardState, EnvOps, MemoryCardState, Reduction
from fcocheck.solvers.card.memory import Controls
from fcocheck.solvers.card.params import Param, eta_c, eta_s, hyper_class, local_steps, unit_interval
from fcocheck.solvers.card.steps import (
    FEDMID_SERVER,
    Add,
    Corrected,
    DualAdd,
    DualStep,
    Gradient,
    Mirror,
    MirrorAdd,
    Ops,
    Scale,
    Subgradient,
    Trace,
    Weight,
)

__all__ = ["FEDMID_SERVER", "Add", "Card", "CardState", "Controls", "Corrected", "DualAdd", "DualCardState",
           "DualStep", "EnvOps", "Gradient", "MemoryCardState", "Mirror", "MirrorAdd", "Ops",
           "Param", "Reduction", "Scale", "Subgradient", "Trace", "Weight", "eta_c", "eta_s", "hyper_class",
           "local_steps", "unit_interval"]
