"""How a parameter's name reads in text (a verdict's reason, a check's label): ``eta_c`` as η_c."""

from __future__ import annotations

#: parameter name → its symbol in the papers' notation
READABLE = {"eta": "η", "eta_c": "η_c", "eta_s": "η_s", "eta_l": "η_l", "eta_g": "η_g", "zeta": "ζ",
            "sigma": "σ", "mu": "μ", "beta": "β", "lambda": "λ",
            "lam": "λ"}


def readable_name(name: str) -> str:
    """``name`` in the papers' notation (itself when it has no symbol)."""
    return READABLE.get(name, name)
