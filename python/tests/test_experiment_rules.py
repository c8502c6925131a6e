"""lab/experiment's rules for repeats that hold and explanations from numbers
(issue 35, items 2 and 6): the repeat floor of a verdict, the disturbed-repeat
rule and its rerun, the quiet-host gate, --compare's verdict count, and the
figures an explanation may cite. Hand-made figures; the expected values are
worked out here, not by the code under test."""
import glob
import importlib.machinery
import json
import os
import sys
import types

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "python"))
sys.path.insert(0, os.path.join(REPO, "lab", "experiment.d"))
import claims  # noqa: E402
import common  # noqa: E402
from dbfio import host  # noqa: E402

FACTOR = {"id": "f", "words": "a is 4x b", "seed": {"a": 4, "b": 1}, "a": "x/a", "b": "x/b",
          "compare": {"kind": "factor"}}


def m(*ratios):
    return {"x/a": list(ratios), "x/b": [1] * len(ratios)}


def test_min_repeats_floor():
    assert claims.MIN_REPEATS == 5
    # 4 of 4 on the seed's side, within 2x: reproduced by the rules, but four repeats get no verdict
    r = claims.verdict(FACTOR, m(3.5, 4, 4.5, 4.2))
    assert r["verdict"] == "few repeats" and r["measured"] == "reproduced", r
    assert r["reason"] == "n=4 < 5 repeats: no verdict", r
    r = claims.verdict(FACTOR, m(3.5, 4, 4.5, 4.2, 3.9))
    assert r["verdict"] == "reproduced" and r["agree"] == 5 and "measured" not in r, r
    assert claims.verdict(FACTOR, m(4))["verdict"] == "one run"


def test_min_repeats_table(tmp_path):
    p = tmp_path / "c.json"
    p.write_text(json.dumps({"seed": "t", "claims": [FACTOR, dict(FACTOR, id="g", a="y/a", b="y/b")]}))
    meas = dict(m(1.5, 1.6, 1.7), **{"y/a": [3.5, 4, 4.5, 4.2, 3.9], "y/b": [1] * 5})
    tab, expl, judged = claims.render(str(p), meas)
    assert "| n=3 < 5 repeats: no verdict (measured: weaker) | 3 of 3 (weaker) |" in tab, tab
    assert "| reproduced | 5 of 5 |" in tab, tab
    assert "fewer than 5 repeats, no verdict **1**" in tab, tab
    assert claims.counts(judged)["few repeats"] == 1 and claims.counts(judged)["reproduced"] == 1
    # the verdict column read back from the page
    assert claims.page_verdicts("## The seed's claims\n\n" + tab + "\n\n## Measurements\n") == \
        {"f": "few repeats", "g": "reproduced"}


def test_disturbed():
    # local/t: median 10; 25 is 2.5x above it, 4.9 just over 2x below; 20 and 5 are exactly 2x: kept
    meas = {"local/t": [10, 25, 9, 11, 10], "local/u": [1, 1, 1, 1, 0.49], "cephfs/t": [1, 100, 1, 1, 1],
            "local/v": [10, 20, 5, 10, 10], "local/w": [1, 9]}
    assert common.disturbed(meas, "local/", 5) == [(1, "local/t", 25, 10), (4, "local/u", 0.49, 1)]


def fake_ctx(tmp_path, reps):
    a = types.SimpleNamespace(out=str(tmp_path), repeats=reps)
    return common.Ctx(a, "seedtest")


def test_repeats_rerun_once(tmp_path):
    ctx = fake_ctx(tmp_path, 5)
    figures = {0: [10], 1: [40, 11], 2: [9], 3: [10], 4: [12]}   # repeat 2 disturbed, its rerun fine
    calls = []

    def one(rep):
        calls.append(rep)
        ctx.measure("local/t", rep, figures[rep].pop(0))
        ctx.measure("cephfs/t", rep, 5)
    ctx.repeats(one, "local/")
    assert calls == [0, 1, 2, 3, 4, 1], calls
    assert ctx.m["local/t"] == [10, 11, 9, 10, 12]
    assert ctx.reruns == [(1, "local/t", 40, 10)]
    notes = ctx.rerun_notes()
    assert any("repeat 2: `local/t` 40 against 10" in n for n in notes), notes
    # the pack keeps the reruns: a replay reruns the same repeat without judging again
    assert json.load(open(os.path.join(ctx.runs, "reruns.json"))) == [[1, "local/t", 40, 10]]
    ctx2, calls2 = fake_ctx(tmp_path, 5), []
    ctx2.repeats(lambda rep: calls2.append(rep), "local/")
    assert calls2 == [0, 1, 2, 3, 4, 1] and ctx2.reruns == [(1, "local/t", 40, 10)]


def test_each_repeat_loop(tmp_path):
    # the loop form (seed 001): a repeat 2.5x below the control's median runs again after the others
    ctx, seen = fake_ctx(tmp_path, 5), []
    figures = {0: [10], 1: [11], 2: [4, 10], 3: [9], 4: [10]}
    for rep in ctx.each_repeat("local/"):
        seen.append(rep)
        ctx.measure("local/tps", rep, figures[rep].pop(0))
    assert seen == [0, 1, 2, 3, 4, 2] and ctx.m["local/tps"] == [10, 11, 10, 9, 10], (seen, ctx.m)
    assert ctx.reruns == [(2, "local/tps", 4, 10)]


def test_repeats_quiet(tmp_path):
    ctx, calls = fake_ctx(tmp_path, 5), []

    def one(rep):
        calls.append(rep)
        ctx.measure("local/t", rep, 10 + rep)
    ctx.repeats(one, "local/")
    assert calls == [0, 1, 2, 3, 4] and not ctx.reruns
    assert not os.path.exists(os.path.join(ctx.runs, "reruns.json"))
    assert any(n.startswith("no disturbed repeat") for n in ctx.rerun_notes())


def test_quiet_gate():
    busy = iter([1.5, 0.9, 0.2, 2.0])
    assert host.quiet(30, 0.3, lambda: next(busy)) < 5
    assert next(busy) == 2.0       # it stopped at the first figure under 0.3 cores
    assert host.quiet(0.05, 0.3, lambda: 2.0) >= 0.05      # never quiet: gives up after max_wait
    assert host.waited([1, 2, 30], 30) == "3 runs waited 33 s in all, the longest 30 s, 1 gave up waiting"
    assert 0 <= host.busy_cores(0.05) <= (os.cpu_count() or 1) + 0.01


def test_compare():
    old = {"a": "reproduced", "b": "weaker", "c": "no effect", "gone": "reversed"}
    new = {"a": "reproduced", "b": "inconclusive", "c": "no effect", "added": "weaker"}
    assert claims.compare(old, new) == (3, [("b", "weaker", "inconclusive")])


def test_stray_numbers():
    assert claims.numbers("1,519 ms and 0.5× of `seed003-x2`, 46×.") == {"1519", "0.5", "46"}
    d = {"claims": [{"id": "tail", "words": "max 14.5 s", "seed": {"a": 14.5, "b": 0.033},
                     "differs": [{"when": "weaker", "text": "our tail {ours}× is below the seed's 46×; "
                                                            "{m:rbd/p99} ms at 4 kB"}]}]}
    # 46 is typed in: neither the sources nor the claim's own figures give it (placeholders are the run's)
    assert claims.stray_numbers(d, "median 33 ms of 4 kB writes") == [("tail", "46")]
    assert claims.stray_numbers(d, "a 4 kB write; tail 46x its median") == []
    d["claims"][0]["differs"][0]["text"] = "our tail {ours}× against the seed's {seed}×"
    assert claims.stray_numbers(d) == []


def test_committed_pages_cite_the_run():
    """Every explanation of the claim files cites only figures of its page's run (placeholders), the
    page, the seed's text or the seed's job files: none typed in from another run."""
    X = importlib.machinery.SourceFileLoader("experiment", os.path.join(REPO, "lab", "experiment")).load_module()
    seen = 0
    for s, (fn, _) in X.TITLES.items():
        pg = os.path.join(REPO, "results", fn + ".md")
        if not os.path.exists(os.path.join(REPO, X.SEEDS, X.FILES[s])) or not os.path.exists(pg):
            continue
        seen += 1
        with open(pg) as f:
            page = f.read()
        assert X.stray_figures(s, page) == [], (s, X.stray_figures(s, page))
    if not os.path.isdir(os.path.join(REPO, X.SEEDS)):
        pytest.skip("the seed documents (%s beside the repository) are not here: the pages' figures "
                    "cannot be traced to them" % X.SEEDS)
    assert seen or not glob.glob(os.path.join(REPO, "results", "seed*.md"))
