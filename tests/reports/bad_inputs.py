"""The bad-input audit of issue 20: distinct bad inputs for every command, and what each must do.

Each case is (id, argv, setup, expected): ``setup(tmp)`` writes the input files the case needs and
returns the argv's placeholders; ``expected`` is a regular expression the message must match (it
names the offending value or the rule).  Every case must exit 2, print one message (never a
traceback) and write nothing: the directory listing after equals the listing before.
``benchmarks/bad_inputs.py`` prints the same audit as counts.
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

Case = tuple[str, list[str], Callable[[Path], dict[str, str]] | None, str]

META = {"loss": "squares", "regularizer": {"name": "l1", "lam": 0.1}, "mirror": {"name": "euclidean"}}
BASE = {"algorithm": "fedavg", "problem": {"generator": "quadratics", "params": {"clients": 4, "d": 6}},
        "hp": {"eta_c": 0.1, "local_steps": 2}, "rounds": 5}


def _npz(meta: dict[str, Any] | str | None = None, **arrays: Any) -> Callable[[Path], dict[str, str]]:
    def setup(tmp: Path) -> dict[str, str]:
        path = tmp / "bad.npz"
        arrays.setdefault("X", np.ones((2, 3, 4)))
        arrays.setdefault("y", np.ones((2, 3)))
        kw = {k: v for k, v in arrays.items() if v is not None}
        m = META if meta is None else meta
        if m != "omit":
            kw["meta"] = np.array(m if isinstance(m, str) else json.dumps(m))
        np.savez(path, **kw)
        return {"FILE": str(path)}
    return setup


def _raw(data: bytes, name: str = "bad.npz") -> Callable[[Path], dict[str, str]]:
    def setup(tmp: Path) -> dict[str, str]:
        (tmp / name).write_bytes(data)
        return {"FILE": str(tmp / name)}
    return setup


def _header_only(tmp: Path) -> dict[str, str]:
    import io

    buf = io.BytesIO()
    np.lib.format.write_array_header_2_0(buf, {"descr": "<f8", "fortran_order": False,
                                               "shape": (10**6, 10**6)})
    with zipfile.ZipFile(tmp / "bad.npz", "w") as z:
        z.writestr("X.npy", buf.getvalue())
        meta = io.BytesIO()
        np.save(meta, np.array(json.dumps(META)))
        z.writestr("meta.npy", meta.getvalue())
    return {"FILE": str(tmp / "bad.npz")}


def _sweep(spec: Any) -> Callable[[Path], dict[str, str]]:
    def setup(tmp: Path) -> dict[str, str]:
        (tmp / "sweep.json").write_text(spec if isinstance(spec, str) else json.dumps(spec))
        return {"FILE": str(tmp / "sweep.json"), "STORE": str(tmp / "s.sqlite")}
    return setup


def _store(kind: str) -> Callable[[Path], dict[str, str]]:
    def setup(tmp: Path) -> dict[str, str]:
        path = tmp / "s.sqlite"
        if kind == "text":
            path.write_text("not a database")
        elif kind == "foreign":
            import sqlite3

            con = sqlite3.connect(path)
            con.execute("CREATE TABLE t(x)")
            con.commit()
            con.close()
        elif kind == "truncated":
            path.write_bytes(b"SQLite format 3\x00" + b"\x00" * 84)
        elif kind in ("good", "other-metrics", "blob-version"):
            import sqlite3

            from fcocheck.verify.sweep import Store

            with Store(path) as store:  # a store with something in it (an empty one it created is removed)
                store.put_result("experiment", "x", "quick", 0, "0+test", "done", {"name": "x"}, 0.0)
            if kind == "other-metrics":  # a table of another schema under the right name
                con = sqlite3.connect(path)
                con.execute("DROP TABLE metrics")
                con.execute("CREATE TABLE metrics(run INTEGER, name TEXT, x REAL)")
                con.commit()
                con.close()
            if kind == "blob-version":  # the schema's own columns, a blob where fcocheck writes text
                con = sqlite3.connect(path)
                con.execute("UPDATE results SET code_version = ?", (b"\xc3",))
                con.commit()
                con.close()
        elif kind == "fifo":
            import os

            os.mkfifo(path)
        (tmp / "afile").write_text("x")
        return {"STORE": str(path), "AFILE": str(tmp / "afile")}
    return setup


def _plugin(text: str) -> Callable[[Path], dict[str, str]]:
    def setup(tmp: Path) -> dict[str, str]:
        (tmp / "plugin_mine.py").write_text(text)
        return {"PLUGIN": str(tmp / "plugin_mine.py")}
    return setup


#: a user's card from the tutorial's FedAvgM, with one field replaced (``{}``: the replacement)
_CARD = ("import dataclasses\nfrom fcocheck.solvers.card import Param, Reduction\n"
         "from fcocheck.solvers.methods.fedavgm import CARD\n"
         "fcocheck_cards = [dataclasses.replace(CARD, name='mine', {})]\n")


def _existing_file(tmp: Path) -> dict[str, str]:
    (tmp / "afile").write_text("x")
    return {"AFILE": str(tmp / "afile")}


def generator_cases() -> list[Case]:
    """Per generator: an unknown parameter, a zero size, a non-numeric and a non-finite value, bad seeds."""
    from fcocheck.solvers.generators import GENERATORS, parameters

    out: list[Case] = []
    for g in GENERATORS:
        p = parameters(g)
        size = next(k for k in ("clients", "d", "samples") if k in p)
        flt = next((k for k, v in p.items() if isinstance(v, float)), None)
        out += [
            (f"solve {g} unknown parameter", ["solve", g, "--param", "nope=1"], None, "no parameter 'nope'"),
            (f"solve {g} {size}=0", ["solve", g, "--param", f"{size}=0"], None, f"{size} = 0"),
            (f"solve {g} {size}=x", ["solve", g, "--param", f"{size}=x"], None, "not a valid int"),
            (f"solve {g} seed -1", ["solve", g, "--seed", "-1"], None, r"2\^63"),
        ]
        if flt:
            out.append((f"solve {g} {flt}=nan", ["solve", g, "--param", f"{flt}=nan"], None, "finite number"))
    return out


def file_cases() -> list[Case]:
    """Instance files: every way an .npz and its meta can break the rules."""
    X3 = np.ones((2, 3, 4))
    return [
        ("npz missing", ["solve", "{TMP}/none.npz"], None, "does not exist"),
        ("npz not a zip", ["solve", "{FILE}"], _raw(b"garbage" * 10), "not a readable .npz"),
        ("npz truncated zip", ["solve", "{FILE}"], _raw(b"PK\x03\x04" + b"\x00" * 30), "not a readable"),
        ("npz single array", ["solve", "{FILE}"], _raw(b"\x93NUMPY\x01\x00v\x00{'descr': '<f8', "
                                                      b"'fortran_order': False, 'shape': (1,), }" + b" " * 58
                                                      + b"\n" + b"\x00" * 8), "single array|readable"),
        ("npz no meta", ["solve", "{FILE}"], _npz("omit"), "misses the key 'meta'"),
        ("meta not json", ["solve", "{FILE}"], _npz("{oops"), "not JSON"),
        ("meta a list", ["solve", "{FILE}"], _npz("[1, 2]"), "JSON object"),
        ("meta no loss", ["solve", "{FILE}"], _npz({k: v for k, v in META.items() if k != "loss"}), "'loss'"),
        ("meta unknown key", ["solve", "{FILE}"], _npz({**META, "lamda": 1}), "unknown meta key 'lamda'"),
        ("meta intercept string", ["solve", "{FILE}"], _npz({**META, "intercept": "false"}), "JSON boolean"),
        ("meta intercept int", ["solve", "{FILE}"], _npz({**META, "intercept": 0}), "JSON boolean"),
        ("meta weights unknown", ["solve", "{FILE}"], _npz({**META, "weights": "equal"}), "one of"),
        ("meta weights custom no array", ["solve", "{FILE}"], _npz({**META, "weights": "custom"}),
         "custom with a 'weights' array"),
        ("meta ridge string", ["solve", "{FILE}"], _npz({**META, "ridge_lam": "1"}), "finite number"),
        ("meta ridge negative", ["solve", "{FILE}"], _npz({**META, "ridge_lam": -1}), ">= 0"),
        ("meta shape bad", ["solve", "{FILE}"], _npz({**META, "shape": [2]}), "positive integers"),
        ("meta shape mismatch", ["solve", "{FILE}"], _npz({**META, "shape": [3, 3]}), "d1·d2 = d"),
        ("meta name not str", ["solve", "{FILE}"], _npz({**META, "name": 3}), "a string"),
        ("meta loss unknown", ["solve", "{FILE}"], _npz({**META, "loss": "hinge"}), "unknown loss 'hinge'"),
        ("meta loss list", ["solve", "{FILE}"], _npz({**META, "loss": ["squares"]}), "a string"),
        ("meta regularizer unknown", ["solve", "{FILE}"], _npz({**META, "regularizer": {"name": "l3"}}),
         "unknown regularizer 'l3'"),
        ("meta regularizer string", ["solve", "{FILE}"], _npz({**META, "regularizer": "l1"}), "object"),
        ("meta regularizer bad param", ["solve", "{FILE}"],
         _npz({**META, "regularizer": {"name": "l1", "lambda": 1}}), "no parameter 'lambda'"),
        ("meta lam negative", ["solve", "{FILE}"], _npz({**META, "regularizer": {"name": "l1", "lam": -1}}),
         "-1"),
        ("meta mirror unknown", ["solve", "{FILE}"], _npz({**META, "mirror": {"name": "kl"}}),
         "unknown mirror map 'kl'"),
        ("meta p-norm p=1", ["solve", "{FILE}"], _npz({**META, "mirror": {"name": "pnorm", "p": 1.0}}), "p"),
        ("meta entropy without simplex", ["solve", "{FILE}"], _npz({**META, "mirror": {"name": "entropy"}}),
         "simplex"),
        ("meta mcp gamma <= 0", ["solve", "{FILE}"],
         _npz({**META, "regularizer": {"name": "mcp", "lam": 0.1, "gamma": 0.0}}), "gamma"),
        ("meta scad a <= 2", ["solve", "{FILE}"],
         _npz({**META, "regularizer": {"name": "scad", "lam": 0.1, "a": 1.5}}), "a"),
        ("data complex", ["solve", "{FILE}"], _npz(X=X3 * 1j), "dtype complex"),
        ("data strings", ["solve", "{FILE}"], _npz(X=np.array([[["a"]]]), y=np.ones((1, 1))), "dtype <U1"),
        ("data object (never unpickled)", ["solve", "{FILE}"],
         _npz(X=np.array([{"a": 1}], dtype=object)), "without pickle"),
        ("data nan", ["solve", "{FILE}"], _npz(X=X3 * np.nan), "NaN, inf"),
        ("data inf in y", ["solve", "{FILE}"], _npz(y=np.full((2, 3), np.inf)), "NaN, inf"),
        ("data shapes disagree", ["solve", "{FILE}"], _npz(y=np.ones((2, 4))), "rows but y has"),
        ("data empty client", ["solve", "{FILE}"], _npz(X=np.ones((2, 0, 4)), y=np.ones((2, 0))), "empty"),
        ("data zero features", ["solve", "{FILE}"], _npz(X=np.ones((2, 3, 0))), "d = 0"),
        ("data missing y", ["solve", "{FILE}"], _npz(y=None), "misses the key 'y'"),
        ("data 1-d X", ["solve", "{FILE}"], _npz(X=np.ones(5), y=np.ones(5)), r"\(M, n, d\)"),
        ("data 2-d y for 2-d X", ["solve", "{FILE}"], _npz(X=np.ones((3, 4)), y=np.ones(3)), r"\(M, n, d\)"),
        ("data labels not ±1", ["solve", "{FILE}"], _npz({**META, "loss": "logistic"}, y=np.full((2, 3), 2.0)),
         "labels in"),
        ("header claims 8 TB", ["solve", "{FILE}"], _header_only, "GiB; the rule is at most"),
        ("quadratic Q not symmetric", ["solve", "{FILE}"],
         _npz({**META, "loss": "quadratic"}, X=None, y=None, Q=np.array([[[1.0, 1.0], [0.0, 1.0]]]),
              c=np.zeros((1, 2))), "symmetric"),
        ("quadratic Q indefinite", ["solve", "{FILE}"],
         _npz({**META, "loss": "quadratic"}, X=None, y=None, Q=np.array([[[1.0, 0.0], [0.0, -1.0]]]),
              c=np.zeros((1, 2))), "positive semidefinite"),
        ("quadratic shapes", ["solve", "{FILE}"],
         _npz({**META, "loss": "quadratic"}, X=None, y=None, Q=np.ones((1, 2, 2)), c=np.zeros((1, 3))),
         "the rule is Q"),
        ("quadratic with intercept", ["solve", "{FILE}"],
         _npz({**META, "loss": "quadratic", "intercept": True}, X=None, y=None, Q=np.eye(2)[None],
              c=np.zeros((1, 2))), "intercept"),
        ("custom weights negative", ["solve", "{FILE}"], _npz({**META, "weights": "custom"},
                                                             weights=np.array([1.5, -0.5])), "weights"),
        ("solve --param with a file", ["solve", "{FILE}", "--param", "d=3"], _npz(), "--param applies"),
    ]


def command_cases() -> list[Case]:
    """solve/run/validate/check/theorems options, sweep files, report options, stores."""
    q = ["--problem", "quadratics", "--problem-param", "clients=4", "--problem-param", "d=5", "--no-reference"]
    run = ["run", "fedavg", "--rounds", "3", "--eta-c", "0.1", *q]
    return [
        ("solve tol 0", ["solve", "quadratics", "--tol", "0"], None, "0 < tol < 1"),
        ("solve tol nan", ["solve", "quadratics", "--tol", "nan"], None, "0 < tol < 1"),
        ("solve tol 2", ["solve", "quadratics", "--tol", "2"], None, "0 < tol < 1"),
        ("solve unknown problem", ["solve", "lasso-papr"], None, "did you mean 'lasso-paper'"),
        ("solve param malformed", ["solve", "quadratics", "--param", "oops"], None, "NAME=VALUE"),
        ("solve out dir missing", ["solve", "quadratics", "--out", "{TMP}/no/x.json"], None, "does not exist"),
        ("solve out is a dir", ["solve", "quadratics", "--out", "{TMP}"], None, "is a directory"),
        ("run unknown algorithm", ["run", "fedavgg", "--rounds", "3", *q], None, "fedavgg"),
        ("run unknown hp", [*run, "--param", "eta_cc=1"], None, "no hyper-parameter 'eta_cc'"),
        ("run missing required hp", ["run", "fedavg", "--rounds", "3", *q], None, "required"),
        ("run eta negative", ["run", "fedavg", "--rounds", "3", "--eta-c", "-1", *q], None, "-1"),
        ("run eta nan", ["run", "fedavg", "--rounds", "3", "--eta-c", "nan", *q], None, "nan"),
        ("run local steps 0", [*run, "--local-steps", "0"], None, "0"),
        ("run rounds -1", ["run", "fedavg", "--rounds", "-1", "--eta-c", "0.1", *q], None, "0 <= R"),
        ("run rounds 1e12", ["run", "fedavg", "--rounds", "1000000000000", "--eta-c", "0.1", *q], None,
         "0 <= R <= 10,000,000"),
        ("run rounds not int", ["run", "fedavg", "--rounds", "1e3", "--eta-c", "0.1", *q], None, "1e3"),
        ("run oracle unknown", [*run, "--oracle", "noisy"], None, "exact | gaussian"),
        ("run oracle gaussian bad", [*run, "--oracle", "gaussian:x"], None, "σ >= 0"),
        ("run oracle gaussian negative", [*run, "--oracle", "gaussian:-1"], None, "σ >= 0"),
        ("run oracle minibatch 0", [*run, "--oracle", "minibatch:0"], None, "integer b >= 1"),
        ("run oracle minibatch superscript", [*run, "--oracle", "minibatch:²"], None, "integer b >= 1"),
        ("run oracle minibatch on quadratics", [*run, "--oracle", "minibatch:2"], None, "minibatch|sample"),
        ("run exact-only algorithm with noise", ["run", "svrg", "--rounds", "2", "--param", "h=0.1",
                                                 "--problem", "ridge", "--no-reference", "--oracle",
                                                 "gaussian:1"], None, "oracle 'exact'"),
        ("run clients per round 0", [*run, "--clients-per-round", "0"], None, "1 <= P <= M"),
        ("run clients per round > M", [*run, "--clients-per-round", "9"], None, "1 <= P <= M = 4"),
        ("run gradient unknown", [*run, "--gradient", "gpu"], None, "gpu"),
        ("run record unknown", [*run, "--record", "every"], None, "every"),
        ("run out not npz", [*run, "--out", "{TMP}/t.json"], None, "ending in .npz"),
        ("run out dir missing", [*run, "--out", "{TMP}/no/t.npz"], None, "does not exist"),
        ("run out name 304 characters", [*run, "--out", "{TMP}/" + "x" * 300 + ".npz"], None,
         "File name too long.*255 bytes"),
        ("report out name 300 characters", ["report", "--out", "{TMP}/" + "x" * 300], None, "255 bytes"),
        ("run seed not int", [*run, "--seed", "x"], None, "'x'"),
        ("run problem param bad", ["run", "fedavg", "--rounds", "3", "--eta-c", "0.1", "--problem",
                                   "quadratics", "--problem-param", "d=0"], None, "d = 0"),
        ("run fsvrg on quadratics", ["run", "fsvrg", "--rounds", "2", "--param", "h=0.1", *q], None,
         "per-sample data|quadratic"),
        ("run mcp step too large", ["run", "pgm", "--rounds", "2", "--eta", "10", "--problem",
                                    "robust-penalized", "--no-reference"], None, "tρ"),
        ("validate unknown", ["validate", "fco-4.9"], None, "fco-4.9"),
        ("check unknown algorithm", ["check", "--algorithm", "fedavgg", "--out", "{TMP}/chk"], None,
         "fedavgg"),
        ("check budget unknown", ["check", "--budget", "huge"], None, "huge"),
        ("theorems samples 0", ["theorems", "--samples", "0"], None, "samples"),
        ("unknown command", ["frobnicate"], None, "frobnicate"),
        # sweep files
        ("sweep missing file", ["sweep", "{TMP}/none.json", "--store", "{TMP}/s.sqlite"], None, "none.json"),
        ("sweep not json", ["sweep", "{FILE}", "--store", "{STORE}"], _sweep("{oops"), "sweep file"),
        ("sweep no base", ["sweep", "{FILE}", "--store", "{STORE}"], _sweep({"axes": {}}), "'base'"),
        ("sweep extra key", ["sweep", "{FILE}", "--store", "{STORE}"], _sweep({"base": BASE, "axis": {}}),
         "nothing else"),
        ("sweep axes not object", ["sweep", "{FILE}", "--store", "{STORE}"],
         _sweep({"base": BASE, "axes": [1]}), "nothing else"),
        ("sweep empty axis", ["sweep", "{FILE}", "--store", "{STORE}"],
         _sweep({"base": BASE, "axes": {"hp.eta_c": []}}), "non-empty list"),
        ("sweep unknown axis", ["sweep", "{FILE}", "--store", "{STORE}"],
         _sweep({"base": BASE, "axes": {"eta_c": [0.1]}}), "grid axis 'eta_c'"),
        ("sweep unknown field", ["sweep", "{FILE}", "--store", "{STORE}"], _sweep({"base": {**BASE, "eta": 1}}),
         "fields"),
        ("sweep unknown algorithm", ["sweep", "{FILE}", "--store", "{STORE}"],
         _sweep({"base": {**BASE, "algorithm": "fedavgg"}}), "fedavgg"),
        ("sweep unknown hp", ["sweep", "{FILE}", "--store", "{STORE}"],
         _sweep({"base": {**BASE, "hp": {"eta_cc": 1}}}), "eta_cc"),
        ("sweep unknown generator", ["sweep", "{FILE}", "--store", "{STORE}"],
         _sweep({"base": {**BASE, "problem": "quadratix"}}), "quadratix"),
        ("sweep generator param typo", ["sweep", "{FILE}", "--store", "{STORE}"],
         _sweep({"base": BASE, "axes": {"problem.zetaa": [1.0]}}), "zetaa"),
        ("sweep generator param string", ["sweep", "{FILE}", "--store", "{STORE}"],
         _sweep({"base": {**BASE, "problem": {"generator": "quadratics", "params": {"d": "6"}}}}),
         "an integer"),
        ("sweep generator param bool", ["sweep", "{FILE}", "--store", "{STORE}"],
         _sweep({"base": {**BASE, "problem": {"generator": "quadratics", "params": {"d": True}}}}),
         "an integer"),
        ("sweep hp list", ["sweep", "{FILE}", "--store", "{STORE}"],
         _sweep({"base": {**BASE, "hp": {"eta_c": [0.1]}}}), r"eta_c = \[0.1\] \(list\); the rule is a float"),
        ("sweep hp object", ["sweep", "{FILE}", "--store", "{STORE}"],
         _sweep({"base": {**BASE, "hp": {"eta_c": {"a": 1}}}}), r"\(dict\); the rule is a float"),
        ("sweep axis value list", ["sweep", "{FILE}", "--store", "{STORE}"],
         _sweep({"base": BASE, "axes": {"hp.eta_c": [[0.1], 0.2]}}), r"\(list\); the rule is a float"),
        ("sweep rounds string", ["sweep", "{FILE}", "--store", "{STORE}"],
         _sweep({"base": {**BASE, "rounds": "5"}}), "rounds"),
        ("sweep rounds negative", ["sweep", "{FILE}", "--store", "{STORE}"],
         _sweep({"base": {**BASE, "rounds": -5}}), "rounds"),
        ("sweep rounds huge", ["sweep", "{FILE}", "--store", "{STORE}"],
         _sweep({"base": {**BASE, "rounds": 10**12}}), "10,000,000"),
        ("sweep oracle malformed", ["sweep", "{FILE}", "--store", "{STORE}"],
         _sweep({"base": {**BASE, "oracle": "minibatch:²"}}), "minibatch:b"),
        ("sweep oracle not string", ["sweep", "{FILE}", "--store", "{STORE}"],
         _sweep({"base": {**BASE, "oracle": 3}}), "oracle"),
        ("sweep participation > M", ["sweep", "{FILE}", "--store", "{STORE}"],
         _sweep({"base": {**BASE, "participation": 9}}), "P <= M = 4"),
        ("sweep participation 0", ["sweep", "{FILE}", "--store", "{STORE}"],
         _sweep({"base": {**BASE, "participation": 0}}), "participation"),
        ("sweep record unknown", ["sweep", "{FILE}", "--store", "{STORE}"],
         _sweep({"base": {**BASE, "record": "all"}}), "record"),
        ("sweep keep not list", ["sweep", "{FILE}", "--store", "{STORE}"],
         _sweep({"base": {**BASE, "keep": "server_w"}}), "keep"),
        ("sweep tags not object", ["sweep", "{FILE}", "--store", "{STORE}"],
         _sweep({"base": {**BASE, "tags": [1]}}), "tags"),
        ("sweep seed in base", ["sweep", "{FILE}", "--store", "{STORE}"], _sweep({"base": {**BASE, "seed": 1}}),
         "given by 'seeds'"),
        ("sweep seeds 0", ["sweep", "{FILE}", "--store", "{STORE}"], _sweep({"base": BASE, "seeds": 0}),
         "seeds"),
        ("sweep seeds huge", ["sweep", "{FILE}", "--store", "{STORE}"], _sweep({"base": BASE, "seeds": 2**70}),
         "seeds"),
        ("sweep seeds negative", ["sweep", "{FILE}", "--store", "{STORE}"], _sweep({"base": BASE, "seeds": [-1]}),
         "seeds"),
        ("sweep seeds 2^63", ["sweep", "{FILE}", "--store", "{STORE}"], _sweep({"base": BASE, "seeds": [2**63]}),
         "seeds"),
        ("sweep seeds float", ["sweep", "{FILE}", "--store", "{STORE}"], _sweep({"base": BASE, "seeds": [1.5]}),
         "seeds"),
        ("sweep exact-only with noise", ["sweep", "{FILE}", "--store", "{STORE}"],
         _sweep({"base": {**BASE, "algorithm": "svrg", "hp": {"h": 0.1}, "oracle": "gaussian:1",
                          "problem": "ridge"}}), "oracle 'exact'"),
        ("sweep instance file missing", ["sweep", "{FILE}", "--store", "{STORE}"],
         _sweep({"base": {**BASE, "problem": "missing.npz"}}), "missing.npz"),
        ("sweep nan in json", ["sweep", "{FILE}", "--store", "{STORE}"],
         _sweep('{"base": {"algorithm": "fedavg", "problem": "quadratics", "hp": {"eta_c": NaN}}}'),
         "NaN is not a finite JSON number"),
        ("sweep workers 0", ["sweep", "{FILE}", "--store", "{STORE}", "--workers", "0"], _sweep({"base": BASE}),
         "--workers 0"),
        ("sweep dask-local 0", ["sweep", "{FILE}", "--store", "{STORE}", "--dask-local", "0"],
         _sweep({"base": BASE}), "--dask-local 0"),
        ("sweep scheduler and local", ["sweep", "{FILE}", "--store", "{STORE}", "--dask-local", "1",
                                       "--scheduler", "tcp://127.0.0.1:9"], _sweep({"base": BASE}),
         "at most one"),
        ("sweep store under a file", ["sweep", "{FILE}", "--store", "{AFILE}/s.sqlite", "--workers", "1"],
         lambda t: {**_sweep({"base": BASE})(t), **_existing_file(t)}, "is a file; the rule is a directory"),
        ("sweep store is text", ["sweep", "{FILE}", "--store", "{STORE}", "--workers", "1"],
         lambda t: {**_sweep({"base": BASE})(t), **_store("text")(t)}, "not an fcocheck results store"),
        # report
        ("report unknown experiment", ["report", "--experiment", "fco-9", "--out", "{TMP}/r"], None, "fco-9"),
        ("report unknown reproduction", ["report", "--reproduction", "fig9", "--out", "{TMP}/r"], None,
         "fig9"),
        ("report budget garbage", ["report", "--budget", "garbage", "--out", "{TMP}/r"], None, "garbage"),
        ("report budget 0", ["report", "--budget", "0", "--out", "{TMP}/r"], None, "--budget '0'"),
        ("report workers 0", ["report", "--workers", "0", "--out", "{TMP}/r", "--store", "{TMP}/s.sqlite"],
         None, "--workers 0"),
        ("report out is a file", ["report", "--out", "{AFILE}", "--store", "{TMP}/s.sqlite"], _existing_file,
         "is a file"),
        ("report foreign store", ["report", "--out", "{TMP}/r", "--store", "{STORE}", "--workers", "1"],
         _store("foreign"), "foreign SQLite"),
        ("report quick and full", ["report", "--quick", "--full"], None, "not allowed with"),
        ("validate workers 0", ["validate", "all", "--quick", "--workers", "0"], None, "--workers 0"),
        ("check workers 0", ["check", "--quick", "--workers", "0", "--out", "{TMP}/c"], None, "--workers 0"),
        # worstcase
        ("worstcase unknown target", ["worstcase", "fco-9.9", "--store", "{TMP}/s.sqlite"], None, "fco-9.9"),
        ("worstcase K 0", ["worstcase", "fco-4.3", "--grid", "K=0", "--store", "{TMP}/s.sqlite"], None, "K = 0"),
        ("worstcase grid too large", ["worstcase", "fco-4.3", "--grid", "K=4", "R=8", "--store", "{TMP}/s.sqlite"],
         None, "the rule is ≤ 24"),
        ("worstcase grid syntax", ["worstcase", "pgm", "--grid", "R", "--store", "{TMP}/s.sqlite"], None,
         "FIELD=V1,V2"),
        ("worstcase grid not a number", ["worstcase", "pgm", "--grid", "eta=fast", "--store", "{TMP}/s.sqlite"],
         None, "'fast' is not a number"),
        ("worstcase fedavg with psi", ["worstcase", "fedavg", "--grid", "psi=convex", "--store", "{TMP}/s.sqlite"],
         None, "psi = 'zero'"),
        ("worstcase sequential with clients", ["worstcase", "pgm", "--grid", "M=2", "--store", "{TMP}/s.sqlite"],
         None, "M = K = 1"),
        ("worstcase foreign store", ["worstcase", "pgm", "--store", "{STORE}", "--workers", "1"],
         _store("foreign"), "foreign SQLite"),
        ("worstcase quick and full", ["worstcase", "pgm", "--quick", "--full"], None, "not allowed with"),
        # store
        ("store info missing", ["store", "info", "--store", "{TMP}/none.sqlite"], None, "does not exist"),
        ("store info text file", ["store", "info", "--store", "{STORE}"], _store("text"), "not an fcocheck"),
        # found by the foreign-store surface at 2,000 draws: json.dumps of a bytes key, a traceback
        ("store info blob in a text column", ["store", "info", "--store", "{STORE}"], _store("blob-version"),
         "column results.code_version holds 1 value\\(s\\) of type blob, not text"),
        ("report blob in a text column", ["report", "--store", "{STORE}", "--out", "{TMP}/out", "--quick"],
         _store("blob-version"), "column results.code_version holds 1 value"),
        ("store info foreign", ["store", "info", "--store", "{STORE}"], _store("foreign"), "foreign SQLite"),
        ("store info truncated", ["store", "info", "--store", "{STORE}"], _store("truncated"), "store"),
        ("store info is a dir", ["store", "info", "--store", "{TMP}"], None, "is not a regular file"),
        ("store info fifo", ["store", "info", "--store", "{STORE}"], _store("fifo"), "is not a regular file"),
        ("store export other-schema metrics", ["store", "export", "--store", "{STORE}", "--out", "{TMP}/m.csv"],
         _store("other-metrics"), "table 'metrics' has columns"),
        ("store info other-schema metrics", ["store", "info", "--store", "{STORE}"], _store("other-metrics"),
         "table 'metrics' has columns"),
        ("store export no out", ["store", "export", "--store", "{STORE}"], _store("good"), "FILE.csv"),
        ("store export xlsx", ["store", "export", "--store", "{STORE}", "--out", "{TMP}/m.xlsx"],
         _store("good"), "FILE.csv"),
        ("store export dir missing", ["store", "export", "--store", "{STORE}", "--out", "{TMP}/no/m.csv"],
         _store("good"), "does not exist"),
        ("store unknown action", ["store", "purge"], None, "purge"),
        # plugins: their cards and reductions are input with a schema (issue 54)
        ("plugin card two betas", ["--plugin", "{PLUGIN}", "algorithms"],
         _plugin(_CARD.format("params=CARD.params + (Param('beta', 0.0, 'again'),)")),
         r"distinct identifier names \(\['beta'\]"),
        ("plugin card name path", ["--plugin", "{PLUGIN}", "algorithms"],
         _plugin(_CARD.replace("name='mine'", "name='../../evil'").format("summary='x'")), "card name '../../evil'"),
        ("plugin card name markup", ["--plugin", "{PLUGIN}", "algorithms"],
         _plugin(_CARD.replace("name='mine'", "name='<b>x</b>'").format("summary='x'")), "card name '<b>x</b>'"),
        ("plugin card name empty", ["--plugin", "{PLUGIN}", "algorithms"],
         _plugin(_CARD.replace("name='mine'", "name=''").format("summary='x'")), "card name ''"),
        ("plugin card name 300", ["--plugin", "{PLUGIN}", "algorithms"],
         _plugin(_CARD.replace("name='mine'", "name='" + "a" * 300 + "'").format("summary='x'")),
         "card name 'aaaa"),
        ("plugin reduction unknown target", ["--plugin", "{PLUGIN}", "algorithms"],
         _plugin(_CARD.format("reduces_to=(Reduction('nosuch'),)")), "'nosuch', which is not a registry entry"),
        ("plugin reduction unknown parameter", ["--plugin", "{PLUGIN}", "algorithms"],
         _plugin(_CARD.format("reduces_to=(Reduction('fedavg', when={'gamma': 0.0}),)")),
         r"when names \['gamma'\]"),
        ("plugin reduction maps unknown target field", ["--plugin", "{PLUGIN}", "algorithms"],
         _plugin(_CARD.format("reduces_to=(Reduction('heavy-ball', hp_map={'nope': 'eta_c'}),)")),
         r"maps \['nope'\]; the rule is the target's hyper-parameters"),
        ("plugin reduction map code", ["--plugin", "{PLUGIN}", "algorithms"],
         _plugin(_CARD.format("reduces_to=(Reduction('heavy-ball', hp_map={'eta': \"__import__('os')\"}),)")),
         "reduction map"),
        # found by the plugin surface at 2,000 draws: a None scale reached the check's label as a traceback
        ("plugin reduction psi_scale None", ["--plugin", "{PLUGIN}", "algorithms"],
         _plugin(_CARD.format("reduces_to=(Reduction('heavy-ball', psi_scale=None),)")),
         "psi_scale None; the rule is a finite positive number"),
        ("plugin reduction psi_scale zero", ["--plugin", "{PLUGIN}", "algorithms"],
         _plugin(_CARD.format("reduces_to=(Reduction('heavy-ball', psi_scale=0),)")),
         "psi_scale 0; the rule is a finite positive number"),
        ("plugin reduction where not text", ["--plugin", "{PLUGIN}", "algorithms"],
         _plugin(_CARD.format("reduces_to=(Reduction('heavy-ball', where=5),)")), "where 5; the rule is a text"),
        ("plugin exits at import", ["--plugin", "{PLUGIN}", "algorithms"], _plugin("raise SystemExit(0)\n"),
         "raised SystemExit"),
        ("plugin interrupts at import", ["--plugin", "{PLUGIN}", "algorithms"],
         _plugin("raise KeyboardInterrupt\n"), "raised KeyboardInterrupt"),
        ("plugin two claims one name", ["--plugin", "{PLUGIN}", "algorithms"],
         _plugin("from fcocheck import Claim\nc = dict(method='fedavg', bound='1/R', along=('rounds', [10, 20, 40, "
                 "80]), problem=('quadratics', {'d': 5}), hp={'eta_c': 0.1})\nfcocheck_claims = [Claim('dup', "
                 "**c), Claim('dup', label='other', **c)]\n"), "two different claims are named 'dup'"),
    ]


def all_cases() -> list[Case]:
    """Every case of the audit."""
    return generator_cases() + file_cases() + command_cases()
