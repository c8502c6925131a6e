# lab/experiment.d/claims.py - a seed's claims as data, and their verdicts.
#
# results/claims/seed00N.json lists what a seed document claims: an id, the
# seed's words, its figures, and the comparison it makes, always as a ratio
# a/b of two figures (a ratio between targets, a growth with load) or a single
# figure a, judged either by the seed's own factor or by a threshold (a
# phenomenon: "collapses", "does not change"). lab/experiment records our
# measurements per repeat under keys "target/metric"; verdict() compares.
#
# "Side" is relative to the claim's pivot, compare.pivot (default 1): the
# value that means "not as the seed says" - 100 for a growth from 1000 to
# 100K records that the seed calls far below linear, 10 for "within an order
# of magnitude". A list of pivots ([1, 16]: grows, but less than linear)
# splits the axis into several sides.
#
# Verdicts:
#   reproduced      same side as the seed and within 2x of its factor
#                   (threshold claims: the threshold holds for our median)
#   direction only  same side, factor more than 2x off (threshold: not met);
#                   also any verdict whose repeats (min-max) lie on both
#                   sides of a pivot: the direction is not stable
#   reversed        the other side (threshold: the opposite happens)
#   not attempted   no measurement (the reason says why)
# The median of an even number of ratios is the geometric middle of the two
# middle ones, so a/b and b/a give the same verdict.
# Explanations ("differs" in the claim file, keyed by the claim's id) name the
# verdicts they explain: [{"when": "reversed" | [...] | "any", "text": ...}];
# a text is shown only beside a verdict it names. A reversed claim needs a
# text whose "when" names "reversed" ("any" does not count): render() raises
# MissingExplanation without one, so the page is not written.
#
# Standard library only; no fio, no files other than the claim file.
import json, math, statistics

VERDICTS = ("reproduced", "direction only", "reversed", "not attempted")
KINDS = ("factor", "threshold")
OPS = ("lt", "le", "gt", "ge", "within")
WHEN = ("reproduced", "direction only", "reversed", "any")


class ClaimError(Exception):
    """A claim file that cannot be used (names the file and the claim)."""


class MissingExplanation(Exception):
    """A reversed claim without a "differs" text."""


def load(path):
    """The claim file, checked: {"seed":..., "claims": [...]}"""
    try:
        with open(path) as f:
            d = json.load(f)
    except (OSError, ValueError) as e:
        raise ClaimError(f"{path}: {e}")
    seen = set()
    for c in d.get("claims", []):
        where = f"{path}: claim {c.get('id', '?')}"
        for k in ("id", "words", "seed"):
            if k not in c:
                raise ClaimError(f"{where}: no '{k}'")
        if c["id"] in seen:
            raise ClaimError(f"{where}: id given twice")
        seen.add(c["id"])
        if "not_attempted" in c:
            continue
        cmp = c.get("compare", {})
        if cmp.get("kind") not in KINDS:
            raise ClaimError(f"{where}: compare.kind must be one of {', '.join(KINDS)}")
        if cmp["kind"] == "threshold" and cmp.get("op") not in OPS:
            raise ClaimError(f"{where}: compare.op must be one of {', '.join(OPS)}")
        if "a" not in c:
            raise ClaimError(f"{where}: no measurement key 'a'")
        if seed_value(c) is None and cmp["kind"] == "factor":
            raise ClaimError(f"{where}: a factor claim needs the seed's figures a (and b)")
        piv = cmp.get("pivot", 1)
        if not all(isinstance(p, (int, float)) and p > 0 for p in (piv if isinstance(piv, list) else [piv])) \
                or piv == []:
            raise ClaimError(f"{where}: compare.pivot must be a number > 0 or a list of them")
        if cmp["kind"] == "factor" and seed_value(c) in (piv if isinstance(piv, list) else [piv]):
            raise ClaimError(f"{where}: the seed's factor {seed_value(c):g} is a pivot: it has no side to reproduce")
    for c in d.get("claims", []):
        check_differs(c, f"{path}: claim {c['id']}")
    return d


def check_differs(c, where):
    """differs: absent, or [{"when": verdict | [verdicts] | "any", "text": str}]."""
    if "differs" not in c:
        return
    ds = c["differs"]
    if not isinstance(ds, list) or not ds:
        raise ClaimError(f"{where}: differs must be a list of {{\"when\": ..., \"text\": ...}} "
                         "(say which verdict each text explains)")
    for e in ds:
        if not isinstance(e, dict) or not isinstance(e.get("text"), str) or not e["text"] or "when" not in e:
            raise ClaimError(f"{where}: each differs entry needs \"when\" and \"text\"")
        w = e["when"] if isinstance(e["when"], list) else [e["when"]]
        bad = [x for x in w if x not in WHEN]
        if bad or not w:
            raise ClaimError(f"{where}: differs \"when\" {bad or w} is not one of {', '.join(WHEN)}")


def texts_for(c, verdict, strict=False):
    """The claim's differs texts written for this verdict (strict: "any" does not count)."""
    out = []
    for e in c.get("differs", []):
        w = e["when"] if isinstance(e["when"], list) else [e["when"]]
        if verdict in w or (not strict and "any" in w):
            out.append(e["text"])
    return out


def seed_value(c):
    """The seed's ratio a/b (or its single figure a), or None."""
    s = c["seed"]
    a, b = s.get("a"), s.get("b")
    if a is None:
        return s.get("value")
    if "b" in s:
        return a / b if b else None
    return a


def first_key(m, keys):
    """keys may be one "target/metric" or a list of alternatives."""
    for k in ([keys] if isinstance(keys, str) else keys):
        if m.get(k):
            return k
    return None


def ours(c, m):
    """Per-repeat values of a/b (or a): repeat i of a over repeat i of b, as
    the repeats are interleaved across targets. (values, used keys) or
    (None, reason)."""
    ka = first_key(m, c["a"])
    if not ka:
        return None, f"no measurement of {c['a'] if isinstance(c['a'], str) else ' or '.join(c['a'])} in this run"
    if "b" not in c:
        return [v for v in m[ka] if v is not None], (ka,)
    kb = first_key(m, c["b"])
    if not kb:
        return None, f"no measurement of {c['b'] if isinstance(c['b'], str) else ' or '.join(c['b'])} in this run"
    vals = [x / y for x, y in zip(m[ka], m[kb]) if x is not None and y]
    return vals, (ka, kb)


def pivots(c):
    p = c["compare"].get("pivot", 1)
    return sorted(p) if isinstance(p, list) else [p]


def side(v, piv=(1,)):
    """Which side of the pivots v lies on: (pivots below v, pivots at or below v).
    Two values are on the same side when these are equal; a value at a pivot
    is on no side of it."""
    return (sum(p < v for p in piv), sum(p <= v for p in piv))


def on_pivot(v, piv):
    return v in piv


def middle(vals, ratio):
    """The median; of an even number of ratios the geometric middle of the two
    middle ones (sqrt(lo*hi)), which does not depend on which way the ratio is
    written (a/b = [0.6, 1.5]: 0.9487; b/a: 1/0.9487)."""
    v = sorted(vals)
    n = len(v)
    if n % 2 or not ratio:
        return statistics.median(v)
    lo, hi = v[n // 2 - 1], v[n // 2]
    return math.sqrt(lo * hi) if lo >= 0 and hi >= 0 else (lo + hi) / 2


def holds(op, v, t):
    return {"lt": lambda: v < t, "le": lambda: v <= t, "gt": lambda: v > t, "ge": lambda: v >= t,
            "within": lambda: t[0] <= v <= t[1]}[op]()


def verdict(c, m):
    """{"verdict", "median", "min", "max", "n", "keys", "reason"} for claim c
    and measurements m {key: [value per repeat]}."""
    if "not_attempted" in c:
        return {"verdict": "not attempted", "reason": c["not_attempted"], "n": 0}
    vals, keys = ours(c, m)
    if not vals:
        return {"verdict": "not attempted", "n": 0,
                "reason": keys if isinstance(keys, str) else "no usable repeat (a failed point?)"}
    med = middle(vals, "b" in c)
    r = {"median": med, "min": min(vals), "max": max(vals), "n": len(vals), "keys": keys, "reason": ""}
    cmp, sv, piv = c["compare"], seed_value(c), pivots(c)
    if cmp["kind"] == "factor":
        if side(med, piv) == side(sv, piv):
            off = med / sv if sv else math.inf
            r["verdict"] = "reproduced" if 0.5 <= off <= 2 else "direction only"
        else:
            r["verdict"] = "reversed"
    else:
        op, t = cmp["op"], cmp["value"]
        if holds(op, med, t):
            r["verdict"] = "reproduced"
        elif op != "within" and "b" in c and sv is not None and not on_pivot(sv, piv) \
                and side(med, piv) == side(sv, piv):
            r["verdict"] = "direction only"
        else:
            r["verdict"] = "reversed"
    # the repeats on both sides of a pivot: no verdict stands on the median alone
    # (a "within" claim's band is its test, not a direction; a pivot the seed's own
    # figure sits on, as "recovers to the baseline" = 1, is no direction either)
    crossed = [p for p in piv if p != sv and
               (r["min"] < p < r["max"] or (r["min"] != r["max"] and p in (r["min"], r["max"])))]
    if crossed and "b" in c and cmp.get("op") != "within":
        r["reason"] = (f"spread crosses {crossed[0]:g}: the direction is not stable over "
                       f"{r['n']} repeats")
        r["verdict"] = "direction only"
    return r


# ---------------------------------------------------------------- rendering

def num(v):
    if v is None:
        return "—"
    a = abs(v)
    if a == 0:
        return "0"
    if a >= 100:
        return f"{v:,.0f}"
    return f"{v:.2f}" if a >= 1 else f"{v:.3g}"


def show_seed(c):
    s, u = c["seed"], c.get("unit", "")
    if "text" in s:
        return s["text"]
    sv = seed_value(c)
    if "b" in s:
        la, lb = s.get("a_label", "a"), s.get("b_label", "b")
        return f"{la} {num(s['a'])}{u} / {lb} {num(s['b'])}{u} = **{num(sv)}×**"
    return f"{num(sv)}{u}" if sv is not None else "—"


def show_ours(c, r):
    if r["verdict"] == "not attempted":
        return "—"
    x = "×" if "b" in c else c.get("unit", "")
    spread = f"{num(r['min'])}–{num(r['max'])}" if r["n"] > 1 else "one run"
    return f"**{num(r['median'])}{x}** ({spread}, n={r['n']})"


def show_compare(c):
    if "not_attempted" in c:
        return ""
    cmp = c["compare"]
    piv = " and ".join(f"{p:g}" for p in pivots(c))
    if cmp["kind"] == "factor":
        return f"same side of {piv}, within 2×"
    t, op = cmp["value"], cmp["op"]
    if op == "within":
        return f"{num(t[0])}–{num(t[1])}"
    return {"lt": "<", "le": "≤", "gt": ">", "ge": "≥"}[op] + f" {num(t)}" + \
        (f" (side of {piv})" if piv != "1" else "")


def judge(d, m):
    """[(claim, result)] for every claim of the file."""
    return [(c, verdict(c, m)) for c in d.get("claims", [])]


def check_explained(judged, path="claims"):
    missing = [c["id"] for c, r in judged if r["verdict"] == "reversed" and not texts_for(c, "reversed", True)]
    if missing:
        raise MissingExplanation(f"{path}: reversed claim(s) without a \"differs\" explanation: "
                                 + ", ".join(missing) + " (add one with \"when\": \"reversed\" to the claim file; "
                                 "the page was not written)")


def counts(judged):
    n = {v: 0 for v in VERDICTS}
    for _, r in judged:
        n[r["verdict"]] += 1
    return n


def table(judged):
    """The claim table that opens a page (Markdown)."""
    rows = ["| claim | the seed says | seed's figure | ours: median (min–max over repeats) | test | verdict |",
            "|---|---|---|---|---|---|"]
    for c, r in judged:
        v = r["verdict"] + (f": {r['reason']}" if r.get("reason") else "")
        words = c["words"].replace("|", "\\|")
        keys = f" <br>`{' / '.join(r['keys'])}`" if r.get("keys") else ""
        rows.append(f"| `{c['id']}` | {words} | {show_seed(c)} | {show_ours(c, r)}{keys} | {show_compare(c)} | {v} |")
    n = counts(judged)
    rows.append("")
    rows.append("Verdicts: " + ", ".join(f"{k} **{n[k]}**" for k in VERDICTS) +
                ". Ratios are per repeat (repeat *i* of one target over repeat *i* of the other; the repeats "
                "run interleaved across targets). *reproduced* = same side of 1 as the seed and within 2× of its "
                "factor (or the stated threshold holds); *direction only* = same side, factor more than 2× off, or the "
                "repeats on both sides of the pivot. Sides are of 1 unless the test names another pivot (linear "
                "growth, an order of magnitude); the median of an even number of ratios is their geometric middle.")
    return "\n".join(rows)


def explanations(judged):
    """The "what differs and why" text keyed by claim id (Markdown list)."""
    out = []
    for c, r in judged:
        for t in texts_for(c, r["verdict"]):
            out.append(f"- **`{c['id']}`** ({r['verdict']}): {t}")
    return "\n".join(out)


UNEXPLAINED = ("reversed in this run, and the claim file has no explanation for a reversal: one run "
               "per point on this machine (make demo); `make results` measures the spread, and a reversal it "
               "confirms gets its explanation there")


def render(path, m, strict=True):
    """(claim table, explanations, judged) for a claim file and measurements;
    MissingExplanation when a reversed claim has no text (strict: make
    results publishes no unexplained reversal). Not strict (make demo: one
    run per point on the user's machine): the page is written, the reversal
    said as such."""
    d = load(path)
    judged = judge(d, m)
    if strict:
        check_explained(judged, path)
    expl = explanations(judged)
    loose = [c["id"] for c, r in judged if r["verdict"] == "reversed" and not texts_for(c, "reversed", True)]
    expl += "".join(f"\n- **`{i}`** (reversed): {UNEXPLAINED}" for i in loose)
    return table(judged), expl.lstrip("\n"), judged


def short(judged):
    """One line per claim (make demo's short form)."""
    return "\n".join(f"  {c['id']:<34} {r['verdict']:<15} "
                     + (f"ours {num(r['median'])}" + (f" ({num(r['min'])}–{num(r['max'])})" if r["min"] != r["max"] else "")
                        + f" vs seed {num(seed_value(c))}" + (f"; {r['reason']}" if r.get("reason") else "")
                        if r["verdict"] != "not attempted" else r.get("reason", ""))
                     for c, r in judged)
