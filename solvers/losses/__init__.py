"""Losses: scalar GLM losses φ(t; y) and the names problems use."""

from fcocheck.solvers.losses.scalar import (
    LOSS_NAMES,
    Cauchy,
    Logistic,
    ScalarLoss,
    Sigmoid,
    Squares,
    scalar_loss,
)

__all__ = ["LOSS_NAMES", "ScalarLoss", "Squares", "Logistic", "Sigmoid", "Cauchy", "scalar_loss"]
