"""Memory is a checked resource: each estimate bounds what the work holds, and work past the share is refused.

The estimates (``fcocheck.solvers.memory``) are checked against what the work really allocates:
``tracemalloc``'s peak in this process for every method (round and step records, exact and minibatch
oracles), and the growth of the resident set of a fresh process for a run whose records dominate.  The
other side: with the per-round term a quarter of its value the estimate falls below a measured peak, so
the comparison can fail.  The refusals are tested at a fixed available memory (``available`` patched to
24 GiB), so they do not depend on this machine's load.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

from fcocheck.reports.cli import main
from fcocheck.solvers import algorithms, memory
from fcocheck.solvers.algorithms import ALGORITHMS
from fcocheck.solvers.blas_threads import serial_blas
from fcocheck.solvers.engine import run
from fcocheck.solvers.engine.batch import run_batch
from fcocheck.solvers.generators import MAX_FLOATS, generate
from fcocheck.solvers.instance_io import save_instance
from tests.solvers.test_algorithm_contract import RIDGE_ONLY, hyper

GIB = 2**30
#: two run lengths: the peaks' difference is the runs' own growth, whatever else the process holds
SHORT, LONG = 50, 250
#: what a warm run may allocate besides the model's terms in a process that ran other work first
#: (measured 0.05 MiB alone, 0.45 MiB in the full suite's worker); ``OVERHEAD`` holds it 128 times
ALLOWANCE = 2**19


@pytest.fixture(scope="module")
def instances():
    return {"lasso": generate("lasso-paper", clients=5, samples=12, d=16, nnz=4),
            "ridge": generate("ridge", clients=5, samples=60, d=16, lam=0.1)}


def _oracles(name: str) -> tuple[str, ...]:
    return ("exact",) if ALGORITHMS[name].exact_oracle else ("exact", "minibatch:4")


def _peak(name, problem, oracle, record, rounds) -> int:
    """tracemalloc's peak over a run (caches filled and kernels compiled by a run before).

    Inside a hold of BLAS threads taken before tracing: the run's own hold then scans nothing.  The
    scan is a fixed transient per run (a list of every shared object the process loaded — 0.4 MB after
    the suite's plugin tests, more than 250 rounds' records), part of ``OVERHEAD``, and left inside the
    window it would mask the growth the comparison measures.
    """
    kw = dict(rounds=rounds, oracle=oracle, record=record, reference=-1.0, seed=0)
    with serial_blas():
        tracemalloc.start()
        try:
            run(name, problem, hyper(name), **kw)
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()


def _estimate(name, problem, oracle, record, rounds) -> int:
    hp = algorithms.make_hyper(ALGORITHMS[name], hyper(name))
    b = int(oracle.split(":")[1]) if oracle.startswith("minibatch") else 0
    parts = memory.run_bytes(problem.dim, problem.M, rounds, memory.local_steps_of(hp), b, record, None,
                             memory.data_bytes(problem))
    return sum(parts.values()) - memory.OVERHEAD


CASES = [(n, o, r) for n in sorted(ALGORITHMS) for o in _oracles(n) for r in ("round", "step")]


def _problem(instances, name):
    return instances["ridge" if name in RIDGE_ONLY else "lasso"]


@pytest.fixture(scope="module")
def peaks(instances):
    """Each case's peaks at SHORT and LONG rounds (they do not depend on the estimate: measured once)."""
    out = {}
    for name, oracle, record in CASES:
        problem = _problem(instances, name)
        run(name, problem, hyper(name), rounds=2, oracle=oracle, record=record, reference=-1.0, seed=0)
        out[name, oracle, record] = tuple(_peak(name, problem, oracle, record, r) for r in (SHORT, LONG))
    return out


def _rows(instances, peaks):
    """(case, measured peaks, estimates less the fixed overhead) at SHORT and LONG rounds."""
    return [(case, peaks[case], tuple(_estimate(case[0], _problem(instances, case[0]), *case[1:], r)
                                      for r in (SHORT, LONG))) for case in CASES]


def _growth_misses(rows):
    return [(case, p, e) for case, p, e in rows if p[1] - p[0] > e[1] - e[0]]


def test_every_method_s_peak_is_within_its_estimate_less_the_overhead(instances, peaks):
    """The model's terms bound each warm run, up to ``ALLOWANCE`` (and ``OVERHEAD`` is 128 of it)."""
    rows = _rows(instances, peaks)
    over = [(case, p, e) for case, p, e in rows if p[1] > e[1] + ALLOWANCE]
    assert not over, over
    assert len(rows) >= 2 * len(ALGORITHMS) and memory.OVERHEAD >= 128 * ALLOWANCE


def test_every_method_s_growth_with_the_rounds_is_within_the_estimate_s(instances, peaks):
    """From SHORT to LONG rounds the peak grows by no more than the estimate: what the process held
    before cancels, so this is the per-round and per-step terms alone."""
    misses = _growth_misses(_rows(instances, peaks))
    assert not misses, misses


def test_the_growth_comparison_fails_when_the_per_round_term_is_too_small(instances, peaks, monkeypatch):
    """The other side: a quarter of the per-round term and some method grows past its estimate."""
    monkeypatch.setattr(memory, "PER_ROUND", memory.PER_ROUND // 4)
    assert _growth_misses(_rows(instances, peaks))


RSS_SCRIPT = """
import json, sys
from fcocheck.solvers import algorithms, memory
from fcocheck.solvers.engine import run
from fcocheck.solvers.generators import generate
def hwm():
    with open("/proc/self/status") as f:
        return next(int(l.split()[1]) * 1024 for l in f if l.startswith("VmHWM:"))
p = generate("quadratics")
hp = {"eta_c": 0.05, "local_steps": 8}
run("feddualavg", p, hp, rounds=2, record="step", reference=False)
before = hwm()
run("feddualavg", p, hp, rounds=12000, record="step", reference=False)
after = hwm()
est = sum(memory.run_bytes(p.dim, p.M, 12000, 8, 0, "step", None, memory.data_bytes(p)).values())
print(json.dumps({"growth": after - before, "estimate": est}))
"""


def test_a_fresh_process_grows_less_than_the_estimate():
    """Resident memory (what the kernel counts, compiled code's buffers included), not only Python's.

    The high-water mark of the process's own address space (``VmHWM``): ``getrusage``'s ``ru_maxrss``
    carries the forking parent's mark over ``exec`` on Linux, so after a large test it read 0 growth.
    """
    out = subprocess.run([sys.executable, "-c", RSS_SCRIPT], capture_output=True, text=True, check=True)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["growth"] > memory.OVERHEAD  # the records dominate: the comparison is about them
    assert got["growth"] <= got["estimate"], got


# --- refusals at a fixed available memory -----------------------------------------------------------
@pytest.fixture
def machine_24gib(monkeypatch):
    monkeypatch.setattr(memory, "available", lambda: 24 * GIB)


def test_the_accepted_maxima_together_are_refused_naming_the_estimate_and_the_rule(machine_24gib, tmp_path,
                                                                                     capsys):
    out = tmp_path / "run.npz"
    code = main(["run", "fedavg", "--problem", "quadratics", "--rounds", str(10**7), "--local-steps",
                 str(10**6), "--oracle", f"minibatch:{10**6}", "--eta-c", "0.1", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    assert "fedavg for 10000000 rounds" in err and "would need about" in err
    assert "the rule is at most 50% of the memory available now (24 GiB)" in err
    assert not out.exists()


def test_each_maximum_alone_is_within_the_share(machine_24gib):
    problem = generate("quadratics")
    for rounds, k, b in ((10**6, 1, 0), (1000, 10**6, 0), (1000, 1, 10**4)):
        memory.check_run("alone", problem, rounds, k, b, "round")


def test_a_generator_under_the_float_cap_but_past_the_share_is_refused(machine_24gib):
    clients, samples, d = 64, 1024, 30_000  # 1.97e9 values: under MAX_FLOATS, 14.7 GiB of data
    assert clients * samples * d < MAX_FLOATS
    with pytest.raises(memory.MemoryLimitError, match=r"instance 'lasso-paper' .* would need about 44"):
        generate("lasso-paper", clients=clients, samples=samples, d=d)


def test_a_generator_within_the_share_builds(machine_24gib):
    assert generate("lasso-paper", clients=4, samples=8, d=32, nnz=4).M == 4


def test_runs_advancing_together_are_refused_when_together_they_exceed_the_share(monkeypatch):
    problem = generate("quadratics")
    monkeypatch.setattr(memory, "OVERHEAD", 0)
    one = sum(memory.run_bytes(problem.dim, problem.M, 20_000, 2, 0, "round", None,
                               memory.data_bytes(problem)).values())
    monkeypatch.setattr(memory, "available", lambda: int(3 * one))  # one run fits in half, four do not
    hp = {"eta_c": 0.05, "local_steps": 2}
    with pytest.raises(memory.MemoryLimitError, match="4 runs of feddualavg advancing together"):
        run_batch("feddualavg", [problem] * 4, [hp] * 4, 20_000, seeds=[0, 1, 2, 3], references=[-1.0] * 4)
    traces = run_batch("feddualavg", [problem], [hp], 50, seeds=[0], references=[-1.0])
    assert np.isfinite(traces[0].arrays["objective"]).all()


def test_an_instance_file_is_held_to_the_same_share(monkeypatch, tmp_path):
    from fcocheck.solvers.errors import InvalidInstanceFileError
    from fcocheck.solvers.instance_io import load_instance

    path = save_instance(generate("quadratics"), tmp_path / "q.npz")
    monkeypatch.setattr(memory, "available", lambda: 10_000)  # 5,000 bytes may be held: Q is 25,600
    with pytest.raises(InvalidInstanceFileError, match=r"at most 0.0 GiB \(50% of the memory available"):
        load_instance(path)
    monkeypatch.setattr(memory, "available", lambda: 24 * GIB)
    assert load_instance(path).M == 8


def test_the_rule_the_docs_state_is_the_code_s():
    page = (Path(__file__).parents[2] / "docs" / "explanation" / "inputs.md").read_text()
    assert memory.SHARE == 0.5 and "at most **50 %** of the memory available" in page
    assert memory.OVERHEAD == 64 * 2**20 and "64 MiB" in page
    assert (memory.PER_ROUND, memory.WORKING_SETS, memory.DATA_COPIES, memory.GENERATION_COPIES) == (
        1600, 8, 3, 3)
    for words in ("1,600 bytes a round", "8 client-sized", "3 copies of the data",
                  "3 copies of its values"):
        assert words in page, words
