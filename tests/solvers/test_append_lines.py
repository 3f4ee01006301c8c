"""A log's appends are all or none: a write that fails part-way leaves the file as it was.

The failure is planted in ``os.write`` (the first chunk written, the next refused with ENOSPC or EROFS),
apart from the code under test; the legal side appends groups, empty groups and non-ASCII lines.
"""

from __future__ import annotations

import errno
import os

import pytest

from fcocheck.solvers import files
from fcocheck.solvers.files import WriteFailedError


@pytest.fixture
def log(tmp_path):
    path = files.write_file(tmp_path / "check.jsonl", '{"unit": 0}\n')
    return path


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EROFS])
def test_a_write_refused_part_way_leaves_the_log_as_it_was(log, monkeypatch, code):
    before = log.read_bytes()
    real = os.write
    calls = []

    def short_then_full(fd, data):
        calls.append(len(data))
        if len(calls) == 1:
            return real(fd, bytes(data[:5]))  # a partial write: five bytes of the unit land
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(files.os, "write", short_then_full)
    with pytest.raises(WriteFailedError):
        files.append_lines(log, ['{"unit": 1, "row": 1}', '{"unit": 1, "row": 2}'])
    assert len(calls) == 2  # the failure came after part of the unit was written
    assert log.read_bytes() == before


def test_whole_groups_append_in_order(log):
    files.append_lines(log, ['{"unit": 1}', '{"unit": 1, "note": "é ∑"}'])
    files.append_lines(log, [])
    files.append_lines(log, ['{"unit": 2}'])
    assert log.read_text(encoding="utf-8").splitlines() == [
        '{"unit": 0}', '{"unit": 1}', '{"unit": 1, "note": "é ∑"}', '{"unit": 2}']


def test_a_link_at_the_log_is_not_followed(tmp_path):
    target = tmp_path / "elsewhere"
    target.write_text("")
    (tmp_path / "check.jsonl").symlink_to(target)
    with pytest.raises(WriteFailedError):
        files.append_lines(tmp_path / "check.jsonl", ['{"unit": 1}'])
    assert target.read_text() == ""
