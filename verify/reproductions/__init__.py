"""Paper reproductions run as stored sweeps: FCO Figs. 2–4, FedCanon Table III and Fig. 1."""

from fcocheck.verify.reproductions import fco, fedcanon
from fcocheck.verify.reproductions.base import Finding, Reproduction

__all__ = ["Finding", "Reproduction", "fco", "fedcanon"]
