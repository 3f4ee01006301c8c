"""A counterexample is a pair — the instance (.npz) and its record (.json) — written both or neither.

Found on a real full file system (a 256 KiB tmpfs): ``check --out`` left ``fedavg__B.npz`` without its
JSON when the disk filled between the two.  The failures are planted here: the record's write refused,
the instance's write refused; the legal side writes the pair, and a pair written earlier stays as it was
when a later write of the same stem fails.
"""

from __future__ import annotations

import errno

import numpy as np
import pytest

from fcocheck.solvers import files, instance_io
from fcocheck.solvers.files import WriteFailedError
from fcocheck.solvers.instance_io import load_instance
from fcocheck.verify.cases import InstanceSpec, build, load_spec, save_case

SPEC = InstanceSpec("general", 3, 2, 3, 1.0, "l1", 0.1, 11)


def _listing(d):
    return {p.name: p.read_bytes() for p in d.iterdir()}


def test_the_pair_is_written_and_reads_back(tmp_path):
    path = save_case(tmp_path, "fedavg__B", SPEC, {"algorithm": "fedavg"})
    assert sorted(_listing(tmp_path)) == ["fedavg__B.json", "fedavg__B.npz"]
    assert load_spec(path) == SPEC
    p, q = load_instance(tmp_path / "fedavg__B.npz"), build(SPEC)
    assert all(np.array_equal(a, b) for a, b in zip(p.X, q.X, strict=True))


def _full(*args, **kwargs):
    raise OSError(errno.ENOSPC, "No space left on device")


@pytest.mark.parametrize("where", ["record", "instance"])
def test_a_failure_in_either_file_leaves_neither(tmp_path, monkeypatch, where):
    earlier = save_case(tmp_path, "fedavg__B", InstanceSpec("general", 2, 2, 2, 0.0, "zero", 0.0, 1), {})
    before = _listing(tmp_path)
    if where == "record":
        real = files.Writer.write_bytes

        def refuse_the_record(self, rel, data):
            return _full() if str(rel).endswith(".json") else real(self, rel, data)

        monkeypatch.setattr(files.Writer, "write_bytes", refuse_the_record)
    else:
        monkeypatch.setattr(instance_io.np, "savez", _full)
    with pytest.raises((WriteFailedError, OSError)):
        save_case(tmp_path, "fedavg__B", SPEC, {"algorithm": "fedavg"})
    assert _listing(tmp_path) == before  # the earlier pair, nothing else (no stage left behind)
    with pytest.raises((WriteFailedError, OSError)):
        save_case(tmp_path, "fedavg__C", SPEC, {"algorithm": "fedavg"})
    assert _listing(tmp_path) == before and earlier.exists()
