"""fio's JSON output, read past the text in front of it.

fio writes its log lines (an io_u error, a note about an option) and the
engines theirs (log_info) into --output too, ahead of the JSON document;
some of those lines hold braces of their own. loads() finds the document:
the first '{' that starts a line and decodes to an object running to the end
of the text, else the first '{' anywhere that does, else the first that
decodes to an object at all (text after it is ignored).
"""
import json
import sys

_decoder = json.JSONDecoder()


class NoJSON(ValueError):
    """The text holds no JSON object."""


def _candidates(text):
    """Offsets of '{': those at the start of a line first, then the others."""
    starts, others = [], []
    i = text.find("{")
    while i >= 0:
        (starts if i == 0 or text[i - 1] == "\n" else others).append(i)
        i = text.find("{", i + 1)
    return starts + others


def loads(text):
    """The JSON object in fio's output TEXT (a dict); NoJSON when there is none."""
    first = None
    for i in _candidates(text):
        try:
            d, end = _decoder.raw_decode(text, i)
        except ValueError:
            continue
        if not isinstance(d, dict):
            continue
        if not text[end:].strip():
            return d
        if first is None:
            first = d
    if first is not None:
        return first
    line = next((ln for ln in text.splitlines() if ln.strip()), "")
    raise NoJSON("no JSON object in fio's output" + (f" (it begins: {line[:80]!r})" if line else " (it is empty)"))


def load(path):
    """The JSON object in the fio output file PATH ('-': stdin)."""
    if path == "-":
        return loads(sys.stdin.read())
    with open(path) as f:
        return loads(f.read())


def done(job):
    """A job's stats of the direction its I/O went: write when it wrote, else read
    (metastorm books a DDL statement as a read)."""
    return job["write"] if job["write"]["total_ios"] else job["read"]


def jobs(d):
    """{jobname: job} of a fio JSON document (None or no jobs: {})."""
    return {j["jobname"]: j for j in (d or {}).get("jobs", [])}
