"""The papers' rate claims stated as data: one file per claim, each a ``verify.claim.Claim``.

A file declares the class the instances are drawn from (generator, stated constants, certificate), the
method and its hyper-parameters (a tuned step as the theorem's own expression), the bound (the catalog's
terms), the sweep and its full design.  Nothing in it runs anything: ``verify.claim_judge.judge`` draws the
instances, runs the sweep through the store, judges the bound per instance with its measured size and
power, and draws the figure — the same path as a user's claim (``fcocheck_claims``).  A law (``Θ``:
the Lemma 4.5 exponents) is judged by its log–log slope, an upper bound (``≲``: the tuned rates) by its
ratio along the sweep, a lower bound (``≳``: FedCanon Thm 2's rate) by the same rule on the reciprocals.
"""

from __future__ import annotations

from fcocheck.verify.paper_claims import (
    fco_4_1_minibatch,
    fco_4_1_speedup,
    fco_4_2_rounds,
    fco_4_2_vs_4_1,
    fco_4_3_floor_k,
    fco_4_3_floor_zeta,
    fco_4_3_tuned_r,
    fco_4_3_variance_m,
    fco_curse_rate,
    fco_eq_4_5,
    fco_lemma_4_4,
    fco_lemma_4_5,
    fedcanon_floor_b,
    fedcanon_floor_lambda,
    fedcanon_floor_structure,
    fedcanon_heterogeneity,
    fedcanon_pl_linear,
    fedcanon_pl_rate,
    fedcanon_transient,
    svrg_contraction,
)

#: by name
CLAIMS = {c.name: c for c in (fco_eq_4_5.CLAIM,
                              fco_lemma_4_5.K_NOISE, fco_lemma_4_5.K_HETERO, fco_lemma_4_5.ETA,
                              fco_4_3_floor_zeta.CLAIM, fco_4_3_floor_k.CLAIM, fco_4_3_variance_m.CLAIM,
                              fco_4_3_tuned_r.CLAIM,
                              fco_4_2_rounds.CLAIM, fco_4_2_vs_4_1.CLAIM,
                              fedcanon_floor_b.CLAIM, fedcanon_floor_lambda.CLAIM,
                              fedcanon_heterogeneity.CLAIM, fedcanon_transient.CLAIM, svrg_contraction.CLAIM,
                              fedcanon_pl_linear.CLAIM)}
#: studies of several claims each (``verify.claim_group``), by name
GROUPS = {g.name: g for g in (fedcanon_floor_structure.GROUP, fedcanon_pl_rate.GROUP, fco_curse_rate.GROUP,
                              fco_4_1_speedup.GROUP, fco_4_1_minibatch.GROUP, fco_lemma_4_4.GROUP)}
