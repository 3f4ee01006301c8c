"""fcocheck: check the theory of federated composite optimization against real runs.

The four packages are ``fcocheck.solvers`` (problems, oracles, algorithms, the round engine,
certified optima), ``fcocheck.rates`` (theorems as sympy objects, fits, verdict rules),
``fcocheck.verify`` (invariants, properties, experiments, sweeps and the results store) and
``fcocheck.reports`` (figures, HTML/Markdown, the CLI).  What a user touches is re-exported here
and imported on first use, so ``import fcocheck`` (and ``fcocheck --help``) stays cheap:

    from fcocheck import generate, reference_solve, run
    problem = generate("lasso-paper")
    trace = run("feddualavg", problem, {"eta_c": 0.02, "local_steps": 10}, rounds=100)

A method of one's own is a ``Card`` (its steps written once; ``register_card``), a rate claim about it
a ``Claim`` judged across instances by ``judge_claim``.
"""

from __future__ import annotations

from fcocheck.lazy import lazy_exports

#: public name -> the module that defines it
_PUBLIC = {
    "run": "fcocheck.solvers.engine.run",
    "Trace": "fcocheck.solvers.engine.trace",
    "Problem": "fcocheck.solvers.problem",
    "generate": "fcocheck.solvers.generators",
    "load_instance": "fcocheck.solvers.instance_io",
    "save_instance": "fcocheck.solvers.instance_io",
    "reference_solve": "fcocheck.solvers.reference",
    "register": "fcocheck.verify.user",
    "Card": "fcocheck.solvers.card",
    "register_card": "fcocheck.solvers.algorithms",
    "Claim": "fcocheck.verify.claim",
    "judge_claim": "fcocheck.verify.claim_judge",
    "UserAlgorithm": "fcocheck.verify.user",
    "run_suite": "fcocheck.verify.suite",
    "FcocheckError": "fcocheck.solvers.errors",
}

__all__ = sorted(_PUBLIC)


__getattr__, __dir__ = lazy_exports(__name__, _PUBLIC, globals())
