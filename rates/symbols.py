"""The symbols every theorem shares (all positive reals, so sympy can simplify powers).

Names: ``L`` smoothness, ``B = D_h(w*, w0)``, ``sigma`` the oracle's standard
deviation (Assumption 1(d)), ``G`` the gradient bound, ``zeta`` the heterogeneity, ``M`` clients,
``K`` local steps, ``R`` rounds, ``eta_c``/``eta_s`` client/server steps; FedCanon's ``T``
rounds, ``b`` batch, ``lam`` the regulariser's scale, ``B_r`` its subgradient bound, ``mu_pl``
the proximal-PL constant, ``eta_g`` the global step, ``Delta0 = Φ(x⁰) − Φ_inf``; FO16's
``m`` inner steps, ``h`` step and ``mu`` strong convexity.
"""

from __future__ import annotations

import sympy as sp

L, B, sigma, G, zeta = sp.symbols("L B sigma G zeta", positive=True)
M, K, R = sp.symbols("M K R", positive=True)
eta_c, eta_s = sp.symbols("eta_c eta_s", positive=True)
disc = sp.Symbol("D_disc", positive=True)
T, b, lam, B_r, mu_pl, eta_g, Delta0 = sp.symbols("T b lambda B_r mu_PL eta_g Delta_0", positive=True)
m, h, mu = sp.symbols("m h mu", positive=True)

#: Every symbol by its name, for parsing user values (``--set L=2``) and JSON.
BY_NAME: dict[str, sp.Symbol] = {
    s.name: s
    for s in (
        L,
        B,
        sigma,
        G,
        zeta,
        M,
        K,
        R,
        eta_c,
        eta_s,
        disc,
        T,
        b,
        lam,
        B_r,
        mu_pl,
        eta_g,
        Delta0,
        m,
        h,
        mu,
    )
}


def free_constants(prefix: str, count: int) -> tuple[sp.Symbol, ...]:
    """``count`` non-negative unknown constants ``prefix_1 …`` (fitted, never assumed)."""
    return sp.symbols(f"{prefix}_1:{count + 1}", nonnegative=True)
