"""Planted bugs in the project's own code, every layer: each is a one-line substitution, kept as a patch.

``python -m tests.mutants.make`` regenerates ``tests/mutants/*.patch`` from this table; the slow
test ``tests/mutants/test_mutants.py`` applies each patch to a copy of the tree and runs the mutant's
``command`` on it: ``check`` (``fcocheck check --quick`` restricted to the mutant's algorithms),
``validate`` (``fcocheck validate NAME --quick`` for each experiment in ``targets``: the judges'
layer, where a lenient rule shows as a negative control or a weak design that no longer holds), or
``pytest`` (the unit tests in ``targets``: what no command reaches — the digest, the writer).  A
mutant is **caught** when the command exits otherwise than on the clean tree or any cell's outcome
differs from the clean tree's.  The layer of a mutant is its file's package (``solvers/engine`` its
own); ``python -m tests.mutants.run --layers`` prints the kill rate per layer and per command.
``caught`` records what was measured; a mutant listed as not caught names the missing check, and one
caught names the cells that catch it (``caught_by``): the test asserts those cells still move, so a
mutant caught for another reason — or only by crashing the tool, which is not a catch — fails.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Mutant:
    """One planted bug: replace ``old`` by ``new`` (exactly once) in ``path``."""

    name: str
    path: str
    old: str
    new: str
    algorithms: tuple[str, ...]
    what: str
    caught: bool = True
    gap: str = ""
    #: the cells that must move (measured): why it is caught — ``algorithm:column`` of ``check``,
    #: ``experiment:rule`` of ``validate``, ``pytest:node id``
    caught_by: tuple[str, ...] = ()
    #: what catches it: ``check`` (on ``algorithms``), ``validate`` or ``pytest`` (on ``targets``)
    command: str = "check"
    targets: tuple[str, ...] = ()

    @property
    def layer(self) -> str:
        """The package the planted line is in (``engine`` for ``solvers/engine``)."""
        return "engine" if self.path.startswith("solvers/engine/") else self.path.split("/")[0]


MUTANTS = (
    Mutant("eta-tilde-no-server-step", "solvers/algorithms/base.py",
           "return eta_s * eta_c * r * K + eta_c * k", "return eta_c * r * K + eta_c * k",
           ("feddualavg",), "FedDualAvg's η̃ forgets η_s (Alg. 3 line 8); the card's written-out reference "
           "uses the same schedule, so the reduction to dual averaging at η_s ≠ 1 and eq. (4.2)'s "
           "rebuild catch it",
           caught_by=("feddualavg,dual-averaging:feddualavg=dual-averaging",
                      "feddualavg:eq-4.2-feddualavg")),
    Mutant("fedmid-server-t-halved", "solvers/card/steps.py",
           "lambda hp: hp.eta_s * hp.eta_c * hp.local_steps,",
           "lambda hp: 0.5 * hp.eta_s * hp.eta_c * hp.local_steps,",
           ("fedmid",), "printed FedMiD's server prox weight halved",
           caught_by=("fedmid,pgm:fedmid=pgm",)),
    Mutant("feddualavg-server-step-ignored", "solvers/methods/feddualavg.py",
           'server=(Scale("eta_s"),)', "server=()",
           ("feddualavg",), "FedDualAvg's card forgets its server step η_s (no Scale transform)",
           caught_by=("feddualavg,dual-averaging:feddualavg=dual-averaging",
                      "feddualavg,fedavg:feddualavg=fedavg")),
    Mutant("primal-delta-unweighted", "solvers/algorithms/primitives.py",
           "delta = weights @ (local.final - state.w[None, :])",
           "delta = np.mean(local.final - state.w[None, :], axis=0)",
           ("fedavg", "fedmid", "fedmid-avg"), "the primal family averages uniformly, not with p̃_m",
           caught_by=("fedavg:client-split-fedavg",
                      "fedavg:zero-weight-fedavg",
                      "fedmid-avg:zero-weight-fedmid-avg",
                      "fedmid:zero-weight-fedmid")),
    Mutant("discrepancy-unsquared", "solvers/algorithms/primitives.py",
           "return np.array([float(weights @ n ** 2) for n in norms])",
           "return np.array([float(weights @ n) for n in norms])",
           ("feddualavg",), "the logged discrepancy without its square",
           caught_by=("feddualavg:discrepancy-feddualavg",)),
    Mutant("prox-count-doubled", "solvers/algorithms/primitives.py",
           "prox_client=prox_client * S * K,", "prox_client=2 * prox_client * S * K,",
           ("fedmid",), "client prox calls counted twice",
           caught_by=("fedmid:counts-fedmid",)),
    Mutant("gaussian-noise-unscaled", "solvers/oracles.py",
           "return G + rng.standard_normal(G.shape) * (self.sigma / np.sqrt(G.shape[1]))",
           "return G + rng.standard_normal(G.shape) * self.sigma",
           ("fedavg",), "Gaussian oracle variance dσ² instead of σ²",
           caught_by=("oracles:oracle-moments",)),
    Mutant("soft-threshold-halved", "solvers/regularizers/norms.py",
           "    out -= tau\n",
           "    out -= 0.5 * tau\n",
           ("fedmid",), "ℓ1 prox with half the threshold (the explicit ψ × h grid catches it at any seed)",
           caught_by=("fedmid:written-fedmid", "oracles:oracles")),
    Mutant("scaffold-control-sign", "solvers/card/memory.py",
           "return step if base is None else base + step", "return step if base is None else base - step",
           ("scaffold",), "SCAFFOLD's control update with the wrong sign (in the card's memory piece: the "
           "written-out card repeats it, FedCanon does not)",
           caught_by=("scaffold,fedcanon:scaffold=fedcanon",)),
    Mutant("fedcanon-control-sign", "solvers/algorithms/fedcanon.py",
           "controls[clients] = g[None, :] - local.grad_sum / K",
           "controls[clients] = -g[None, :] + local.grad_sum / K",
           ("fedcanon",), "FedCanon's c_i update (7f) negated",
           caught_by=("scaffold,fedcanon:scaffold=fedcanon", "fedcanon:A", "fedcanon:fedcanon-sum")),
    Mutant("feddr-alpha-ignored", "solvers/algorithms/splitting.py",
           "Y = state.duals[clients] + hp.alpha * (state.w[None, :] - state.X[clients])",
           "Y = state.duals[clients] + (state.w[None, :] - state.X[clients])",
           ("feddr",), "FedDR's relaxation α ignored (caught by written-feddr at α ≠ 1)",
           caught_by=("feddr:written-feddr",)),
    Mutant("proxskip-always-communicates", "solvers/algorithms/proxskip.py",
           "if rng.random() < hp.p:  # θ_t", "if rng.random() < 1.0:  # θ_t",
           ("scaffnew",), "Scaffnew communicates every step (p ignored)",
           caught_by=("scaffnew:communication-scaffnew", "scaffnew:written-scaffnew")),
    Mutant("fsvrg-aggregation-unscaled", "solvers/algorithms/svrg.py",
           "w = state.w + a * delta", "w = state.w + delta",
           ("fsvrg",), "FSVRG's A = Diag(K/ω_j) dropped (caught by written-fsvrg on disjoint features)",
           caught_by=("fsvrg:written-fsvrg",)),
    Mutant("fsvrg-local-scaling-dropped", "solvers/algorithms/samples.py",
           "s_entry = (n_j[cols] / view.n) / (n_jk / nk)", "s_entry = np.ones(len(cols))",
           ("fsvrg",), "FSVRG's S_k = Diag(φ^j/φ^j_k) dropped (caught by written-fsvrg)",
           caught_by=("fsvrg:written-fsvrg",)),
    Mutant("dane-eta-ignored", "solvers/algorithms/dane.py",
           "a = grads_t - hp.eta * g[None, :]", "a = grads_t - g[None, :]",
           ("dane",), "DANE's η ignored (caught by written-dane at η ≠ 1)",
           caught_by=("dane:written-dane",)),
    Mutant("eta-tilde-off-by-one", "solvers/algorithms/base.py",
           "return eta_s * eta_c * r * K + eta_c * k", "return eta_s * eta_c * r * K + eta_c * (k + 1)",
           ("feddualavg",), "η̃_{r,k} one local step ahead",
           caught_by=("feddualavg,dual-averaging:feddualavg=dual-averaging",
                      "feddualavg:eq-4.2-feddualavg")),
    Mutant("za1-client-prox-weight", "solvers/algorithms/za1.py",
           "Z = p.psi.prox(Zhat, (t + 1) * eta)", "Z = p.psi.prox(Zhat, eta)",
           ("za1",), "ZA1's client prox weight (t+1)η replaced by η",
           caught_by=("za1:A",)),
    Mutant("scaffold-floats-undercounted", "solvers/card/card.py",
           "prox_server=self.apply.prox_cost, floats_up=vectors * S * dim,",
           "prox_server=self.apply.prox_cost, floats_up=S * dim,",
           ("scaffold",), "SCAFFOLD's upload counted without the control variate (a logged metric)",
           caught_by=("scaffold:counts-scaffold",)),
    Mutant("scaffnew-control-half-step", "solvers/algorithms/proxskip.py",
           "H = H + (X_next - Xhat) / t", "H = H + 0.5 * (X_next - Xhat) / t",
           ("scaffnew",), "Scaffnew's control-variate update h_i with half its step",
           caught_by=("scaffnew:written-scaffnew",)),
    Mutant("svrg-no-correction", "solvers/algorithms/dense_kernel.py",
           "delta = _dphi(code, t, y[row]) - d0[row]",
           "delta = _dphi(code, t, y[row])",
           ("svrg", "naive-fsvrg", "fsvrg"),
           "SVRG's inner direction without −∇f_i(w̃) (the compiled dense pass, ψ = ℓ1)",
           caught_by=("dane,naive-fsvrg:proposition-1",
                      "fsvrg:A",
                      "fsvrg:written-fsvrg",
                      "naive-fsvrg:A",
                      "svrg:A")),
    Mutant("lazy-svrg-no-correction", "solvers/algorithms/lazy_kernel.py",
           "delta = rho[row] * (_dphi(code, t, y[row]) - d0[row])",
           "delta = rho[row] * _dphi(code, t, y[row])",
           ("fsvrg", "naive-fsvrg"), "the compiled lazy pass drops −∇f_i(w̃) (ψ ∈ {0, l2sq} path)",
           caught_by=("dane,naive-fsvrg:proposition-1", "fsvrg:A", "fsvrg:written-fsvrg",
                      "naive-fsvrg:A")),
    Mutant("squares-residual-unscaled", "solvers/squares_kernel.py",
           "t[j] = (t[j] - yi[j]) / n", "t[j] = t[j] - yi[j]",
           ("fedavg", "fedmid"), "the compiled least-squares gradient forgets 1/n_m (loop strategy)",
           caught_by=("fedavg:client-split-fedavg",)),
    Mutant("batched-squares-row-copy", "solvers/batched_squares.py",
           "a3 += x3[j] * wj", "a3 += x2[j] * wj",
           ("fedavg", "feddualavg"), "the 4-row prediction reads row i0+2 for row i0+3 (batched kernel)",
           caught_by=("fedavg:written-fedavg", "oracles:oracle-moments")),
    Mutant("fused-threshold-stale", "solvers/algorithms/fused_steps.py",
           "taus = ts * spec.lam", "taus = np.roll(ts, 1) * spec.lam",
           ("feddualavg",), "the compiled K-step pass thresholds step k with η̃ of step k − 1",
           caught_by=("feddualavg:written-feddualavg",)),
    Mutant("fused-skip-negative-weights", "solvers/batched_squares.py",
           "if wj == 0.0:", "if wj <= 0.0:",
           ("feddualavg",), "the column-form prediction skips w_j < 0, not only zeros (compiled pass)",
           caught_by=("feddualavg,dual-averaging:feddualavg=dual-averaging",
                      "feddualavg:client-split-feddualavg",
                      "feddualavg:written-feddualavg")),
    Mutant("fused-pooled-last-row-dropped", "solvers/algorithms/fused_steps.py",
           "a, b = offsets[clients[i]], offsets[clients[i] + 1]",
           "a, b = offsets[clients[i]], offsets[clients[i] + 1] - 1",
           ("feddualavg",), "the compiled K-step pass on the loop strategy drops each client's last row",
           caught_by=("feddualavg:client-split-feddualavg",)),
    Mutant("fused-primal-prox-dropped", "solvers/algorithms/fused_steps.py",
           "        _query(v, xm, kind, active, tau, head)", "        xm[:] = v",
           ("fedmid",), "the compiled primal pass drops FedMiD's client prox (w − η_c g, no S_{η_c λ})",
           caught_by=("fedmid,pgm:fedmid=pgm", "fedmid:written-fedmid")),
    Mutant("fedadmm-dual-step", "solvers/algorithms/splitting.py",
           "Znew = Zc + (Xs - state.w[None, :]) / hp.eta", "Znew = Zc + (Xs - state.w[None, :])",
           ("fedadmm",), "FedADMM's dual update without its 1/η",
           caught_by=("fedadmm,feddr:fedadmm=feddr",)),
    Mutant("cocoa-sdca-half-v", "solvers/algorithms/perturbation.py",
           "v += (ui - u[i]) * xi", "v += 0.5 * (ui - u[i]) * xi",
           ("cocoa+",), "CoCoA+'s local SDCA keeps X_kᵀu inconsistent with u",
           caught_by=("cocoa+,dual-method:cocoa+→dual-method",)),
)

EVERY_LAYER = (
    # the judges, the engine's shared paths, the digest, the writer and the report's sanitiser
    Mutant("departure-gate-at-1", "rates/departure.py", "EPS_MAX = 0.1  #", "EPS_MAX = 1.0  #",
           (), "a consistent bounded ratio need only exclude a departure of 1, not 0.1 (the weak gate "
           "waved through)", command="validate", targets=("fco-4.2-rounds",),
           caught_by=("fco-4.2-rounds:status",)),
    Mutant("eps-min-at-half-power", "rates/departure.py",
           "reached = np.nonzero(combined_power(detections, grid) >= power)[0]",
           "reached = np.nonzero(combined_power(detections, grid) >= 0.5 * power)[0]",
           (), "the smallest detected departure read at 47.5% power, not 95% (validate: no verdict moves "
           "on the quick designs — ε_min is printed, its statuses sit on either side of 0.1)",
           command="pytest", targets=("tests/rates/test_oc.py",),
           caught_by=("pytest:tests/rates/test_oc.py",)),
    Mutant("ratio-levelling-ignored", "rates/oc.py", "        if above(L, oc.levelling):",
           "        if False:",
           (), "a ratio levelling off late in the window is a violation again", command="validate",
           targets=("fedcanon-pl-linear",),
           caught_by=("fedcanon-pl-linear:negative control (Φ of the running average (1/t): its rate "
                      "vanishes with R)",)),
    Mutant("ratio-critical-halved", "rates/oc.py", "    if above(T, oc.critical):",
           "    if above(T, 0.5 * oc.critical):",
           (), "the bounded-ratio rule at half its calibrated critical value (false alarms; validate: the "
           "quick designs' tail slopes are negative or far above, none between)", command="pytest",
           targets=("tests/rates/test_oc.py",),
           caught_by=("pytest:tests/rates/test_oc.py",)),
    Mutant("exponent-power-gate-off", "rates/verdict.py",
           'weak = {k: v for k, v in (oc.get("power") or {}).items() if v < POWER}',
           'weak = {k: v for k, v in (oc.get("power") or {}).items() if v < 0.0}',
           (), "an exponent verdict consistent without power against its named violations (validate: "
           "every quick law has its power)", command="pytest", targets=("tests/rates/test_power.py",),
           caught_by=("pytest:tests/rates/test_power.py",)),
    Mutant("exponent-one-sided", "rates/verdict.py",
           '"two-sided": above(fit.lo, predicted + delta) or below(fit.hi, predicted - delta),',
           '"two-sided": above(fit.lo, predicted + delta),',
           (), "a two-sided exponent rule that never rejects a slope below the claim (its power gate sees "
           "it)",
           command="validate", targets=("fco-4.3-variance-M",),
           caught_by=("fco-4.3-variance-M:status",)),
    Mutant("control-undecided-held", "verify/experiments/judge.py",
           "status = {INCONSISTENT: CONSISTENT, CONSISTENT: INCONSISTENT}.get(inner.status, INCONCLUSIVE)",
           "status = {INCONSISTENT: CONSISTENT, CONSISTENT: INCONSISTENT}.get(inner.status, CONSISTENT)",
           (), "a negative control the rule cannot decide counted as rejected (validate: the controls "
           "it undecides are also undecided on the good curve, so the power guard keeps them inconclusive)",
           command="pytest", targets=("tests/verify/test_experiments.py::test_a_negative_control_the_rule_"
                                      "cannot_decide_is_inconclusive_not_held",),
           caught_by=("pytest:tests/verify/test_experiments.py::"
                      "test_a_negative_control_the_rule_cannot_decide_is_inconclusive_not_held",)),
    Mutant("combine-error-hidden", "rates/verdict.py", "    if ERROR in states:",
           "    if ERROR in states and CONSISTENT not in states:",
           (), "a check that raised hidden by another that held (validate: no quick experiment raises)",
           command="pytest", targets=("tests/rates/test_fit_verdict.py",),
           caught_by=("pytest:tests/rates/test_fit_verdict.py",)),
    Mutant("admit-points-unbounded", "verify/claim_admit.py", '"points": 64,  #', '"points": 10**9,  #',
           (), "a claim's sweep without a size limit (validate: the paper's claims are within it)",
           command="pytest", targets=("tests/verify/test_claim_admission.py",),
           caught_by=("pytest:tests/verify/test_claim_admission.py",)),
    Mutant("sampler-with-replacement", "solvers/engine/sampler.py",
           "return np.sort(rng.choice(M, size=P, replace=False))",
           "return np.sort(rng.choice(M, size=P, replace=True))",
           ("fedavg",), "partial participation draws S_r with replacement (a client twice in a round; "
           "check's explicit mode was one client per round, where the two draws agree)",
           caught_by=("engine:sampling",)),
    Mutant("batch-one-seed", "solvers/engine/batch.py",
           "for c in np.random.SeedSequence(seed).spawn(3)) for seed in seeds]",
           "for c in np.random.SeedSequence(seeds[0]).spawn(3)) for seed in seeds]",
           ("fedavg",), "a batch of runs advancing together all draw the first run's streams",
           caught_by=("engine:sampling",)),
    Mutant("digest-ignores-globals", "solvers/definition.py",
           "        for name in sorted(_global_names(fn.__code__)):",
           "        for name in sorted(_global_names(fn.__code__))[:0]:",
           (), "a user's function digested without the globals it reads (a helper edited: served stale)",
           command="pytest", targets=("tests/verify/test_content_keys.py",),
           caught_by=("pytest:tests/verify/test_content_keys.py",)),
    Mutant("append-not-rolled-back", "solvers/files.py", "os.ftruncate(fd, start)",
           "os.ftruncate(fd, os.lseek(fd, 0, os.SEEK_END))",
           (), "a failed append leaves the unit's first rows (check.jsonl partial; the disk fuzzer's faults "
           "came before any byte landed)", command="pytest",
           targets=("tests/solvers/test_append_lines.py",),
           caught_by=("pytest:tests/solvers/test_append_lines.py",)),
    Mutant("staging-commit-unchecked", "solvers/staging.py",
           "            self.final.path(rel, make_dirs=False)",
           "            pass", (), "the report moved into --out without checking each place first",
           command="pytest", targets=("tests/reports/test_staged_output.py",),
           caught_by=("pytest:tests/reports/test_staged_output.py",)),
    Mutant("mathml-text-verbatim", "reports/safe_mathml.py",
           'inner = html.escape(el.text or "", quote=False) + "".join(',
           'inner = (el.text or "") + "".join(',
           (), "the MathML rebuild copies an element's text verbatim (\\text{<img onerror>} becomes markup)",
           command="pytest", targets=("tests/reports/test_no_active_content.py",),
           caught_by=("pytest:tests/reports/test_no_active_content.py",)),
)

MUTANTS = MUTANTS + EVERY_LAYER
