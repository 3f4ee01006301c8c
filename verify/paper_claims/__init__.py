"""The papers' rate claims stated as data: one file per claim, each a ``verify.claim.Claim``.

A file declares the class the instances are drawn from (generator, stated constants, certificate), the
method and its hyper-parameters (a tuned step as the theorem's own expression), the bound (the catalog's
terms), the sweep and its full design.  Nothing in it runs anything: ``verify.claim.judge`` draws the
instances, runs the sweep through the store, judges the bound per instance with its measured size and
power, and draws the figure — the same path as a user's claim (``fcocheck_claims``).
"""

from __future__ import annotations

from fcocheck.verify.paper_claims import fco_4_2_rounds, fco_4_3_tuned_r

#: in the order ``validate all`` lists them
CLAIMS = (fco_4_3_tuned_r.CLAIM, fco_4_2_rounds.CLAIM)
