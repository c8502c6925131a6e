"""dbfio.fiojson: fio's JSON found past the text in front of it."""
import json
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from dbfio import fiojson  # noqa: E402

DOC = {"fio version": "fio-3.33", "jobs": [{"jobname": "j", "error": 0, "write": {"iops": 12.5}}]}
TEXT = json.dumps(DOC, indent=2) + "\n"


def test_plain():
    assert fiojson.loads(TEXT) == DOC


def test_text_before():
    out = "redolog: job j: flavor=mysql\nfio: io_u error on file /x: Input/output error\n" + TEXT
    assert fiojson.loads(out) == DOC


def test_braces_in_leading_text():
    # an engine's line with braces, one that is JSON itself, one that opens a line
    out = ('txn: {"profile": {"a": 1}} model={x}\n{"note": "not fio\'s"}\n{ broken {\n'
           'pgpage: ckpt {n=1}\n' + TEXT)
    assert fiojson.loads(out) == DOC


def test_json_not_on_its_own_line():
    # a log line without its newline: the document follows on the same line
    assert fiojson.loads("note: no newline" + TEXT) == DOC


def test_text_after():
    assert fiojson.loads("a\n" + TEXT + "fio: file hash not empty on exit\n") == DOC


def test_no_json():
    for text in ("", "\n\n", "fio: engine failed to load\n", "only {braces} here\n", "[1, 2]\n"):
        with pytest.raises(fiojson.NoJSON):
            fiojson.loads(text)
    with pytest.raises(ValueError):     # NoJSON is a ValueError: old callers' except clauses hold
        fiojson.loads("nothing")


def test_load_file_and_jobs(tmp_path):
    p = tmp_path / "out.json"
    p.write_text("fio: note\n" + TEXT)
    d = fiojson.load(str(p))
    assert fiojson.jobs(d)["j"]["write"]["iops"] == 12.5
    assert fiojson.jobs(None) == {}
