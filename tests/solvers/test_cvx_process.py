"""cvxpy's solve in a forked child (``cvx_process``): the same answer as in-process, a failed child
replaced by an in-process solve, and no child left behind after an interrupt.

Each case runs in a fresh interpreter: the child is forked only from a process with no other thread
(pytest-xdist's workers have some), and the interrupt must reach a real process tree.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

SCRIPT = r"""
import json, multiprocessing, sys
import numpy as np
from fcocheck.solvers.generators import generate
from fcocheck.solvers.reference import cvx_process, solve
from fcocheck.solvers.reference.solve import reference_solve

case = sys.argv[1]
p = generate("quadratics", clients=3, d=6, lam=0.05, seed=4)
cvx_process.MIN_SIZE = 0  # the instance is small: fork anyway (the rule's size gate is not tested here)
out = {"child_possible": cvx_process.worth_a_child(p), "forked": []}


class Spy(solve.Pending):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        out["forked"].append(self.proc is not None)


solve.Pending = Spy
if case == "same":
    a = reference_solve(p)
    b = reference_solve(p)  # a second solve in the process: here (cvxpy is imported once)
    out["second_here"] = "cvxpy" in sys.modules
    out.update(same_w=bool(np.array_equal(a.cvx.w, b.cvx.w)), same_obj=a.objective == b.objective,
               notes=[r.get("note", "") for r in a.solvers])
elif case == "child-fails":
    cvx_process._child = lambda conn, *rest: conn.send(("failed", "MemoryError: planted"))
    a = reference_solve(p)
    b = reference_solve(p)
    out.update(same_w=bool(np.array_equal(a.cvx.w, b.cvx.w)), notes=[r.get("note", "") for r in a.solvers])
elif case == "killed":  # the parent dies outright while its child waits for the Gram form
    import os, signal
    pending = solve.Pending(p, "CLARABEL")
    print(json.dumps({"child": pending.proc.pid} if pending.proc else {}), flush=True)
    os.kill(os.getpid(), signal.SIGKILL)
elif case == "daemon":  # a pool worker may not fork: the solve stays in the worker
    def work(_):
        cvx_process._USED.clear()
        return bool(cvx_process.worth_a_child(p)), reference_solve(p).objective
    with multiprocessing.get_context("fork").Pool(1) as pool:
        forked, objective = pool.map(work, [0])[0]
    out.update(forked_in_worker=forked, same_obj=objective == reference_solve(p).objective)
elif case == "interrupt":
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt
    solve._run_fista = interrupted
    try:
        reference_solve(p)
    except KeyboardInterrupt:
        out["interrupted"] = True
    out["children_left"] = len(multiprocessing.active_children())
print(json.dumps(out))
"""


def _run(case: str, check: bool = True) -> dict:
    done = subprocess.run([sys.executable, "-c", SCRIPT, case], capture_output=True, text=True, check=check)
    return json.loads(done.stdout.strip().splitlines()[-1])


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as f:  # a zombie waiting for init to reap it is gone too
        return f.read().split(") ")[-1][0] != "Z"


def test_a_parent_killed_outright_takes_its_child_with_it():
    """The kernel kills the child (PR_SET_PDEATHSIG); waited for up to a minute, not timed."""
    out = _run("killed", check=False)
    if "child" not in out:  # no child on this machine (one core, or no fork): nothing can be left
        return
    for _ in range(600):
        if not _alive(out["child"]):
            return
        time.sleep(0.1)
    raise AssertionError(f"the child {out['child']} outlived its killed parent by a minute")


def test_a_pool_worker_solves_in_process():
    out = _run("daemon")
    assert out["forked_in_worker"] is False and out["same_obj"], out


def test_the_child_s_answer_is_the_in_process_answer():
    out = _run("same")
    assert out["same_w"] and out["same_obj"] and not any(out["notes"]), out
    assert out["forked"] == [out["child_possible"], False], out  # the first solve forked where it can
    assert out["second_here"], out


def test_a_child_that_fails_is_replaced_by_an_in_process_solve():
    out = _run("child-fails")
    assert out["same_w"], out
    if out["child_possible"]:  # on a machine where the child ran, its failure is recorded
        assert any("MemoryError: planted" in n for n in out["notes"]), out


def test_an_interrupt_leaves_no_child_behind():
    out = _run("interrupt")
    assert out["interrupted"] and out["children_left"] == 0, out
