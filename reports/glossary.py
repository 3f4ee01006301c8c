"""The words a report uses, defined once for the HTML and the Markdown page.

Each entry is (term, definition); a term that is a verdict status is drawn as its badge.
"""

from __future__ import annotations

TERMS: tuple[tuple[str, str], ...] = (
    ("consistent",
     "the measurement agrees with the claim, and the same rule at the same design rejects the "
     "claim's named violations and a departure of 0.1 in the bound's exponent (it says what it "
     "excludes): a verdict that could not have failed is never printed as consistent."),
    ("inconsistent",
     "the rule rejects the claim on this measurement."),
    ("inconclusive",
     "the design cannot decide: too few resolved points, an interval too wide, no power (a named "
     "violation would also pass), weak (it cannot exclude a departure of 0.1: the design that "
     "would is named), or a ratio that rose inside the window and is levelling off (extend it)."),
    ("known disagreement",
     "the claim fails in a way documented as a difference between a paper's statement and its "
     "algorithm as printed, and a diagnostic measured in the same run confirms that cause."),
    ("does not apply",
     "the claim's class or swept quantity is absent from the instance (named)."),
    ("error",
     "the claim could not be judged: its judging stopped on an error, whose message is shown; no "
     "verdict is given."),
    ("violation",
     "data that break the claim, built at the measurement's own sweep points and noise: an "
     "exponent ½ away, a flat or rising curve, a decay like bound^0.5…0.8, 1/t instead of a linear"
     " rate, a bound term deleted."),
    ("size",
     "how often the rule calls a legal curve inconsistent, measured by simulating legal curves "
     "(flat, faster, saturating, on the edge of the legal exponent range) at this design: at most "
     "1% by construction, and measured."),
    ("power",
     "how often the rule rejects a named violation at this design, over simulated repetitions; "
     "below 95% the verdict is inconclusive."),
    ("instances",
     "each study draws one instance of its problem class per seed (at least 3); the claim holds "
     "only if it holds on each, against each instance's own constants."),
    ("certificate",
     "a duality-gap bound on how far the reference optimum is from the true one; gaps within 10³× "
     "of it are not used as measurements."),
    ("worst case",
     "the largest value of the measured quantity over the whole function class (performance "
     "estimation, in the norm the theorem is stated in); the bound with its smallest constant must"
     " stay above it."),
)

STATUSES = frozenset({"consistent", "inconsistent", "inconclusive", "known disagreement", "does not apply",
                      "error"})
