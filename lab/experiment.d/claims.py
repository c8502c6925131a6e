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
# Verdicts (docs/experiments.md, "Claims and verdicts"), tested in this order; the first
# that applies is the claim's:
#   not attempted   no measurement (the reason says why; "absent": {"count":
#                   KEY, "text": ...} says why when KEY was measured and the
#                   claim's figure was not - a phenomenon that never came in
#                   n tries: the text's {n} is KEY's repeats, {count} their
#                   median)
#   by construction the claim file marks it ("by_construction": why): an
#                   expectation the set-up cannot fail (listed apart, no
#                   verdict; "measured" keeps what the rules below would say)
#   one run         one repeat: no verdict (make demo); the ratio is shown
#   few repeats     2 to MIN_REPEATS - 1 repeats: no verdict, said so ("n=3 <
#                   5"); "measured" keeps what the rules below would say
# factor claims (p = the reference pivot: the first of compare.pivot, default 1;
# "log effect" of v = ln(v/p)):
#   no effect       the median's log effect under a tenth of the seed's. First:
#                   such a median shows no direction, so it can be neither
#                   reversed nor weaker, whichever side it fell on. (The fixed
#                   10 % band is for thresholds, which have no seed factor: on a
#                   factor claim it would call 0.926 against the seed's 0.643,
#                   17 % of its effect, no effect, and the seed's own 1.08 too.)
#   reversed        the median on another side of the pivots than the seed's.
#                   Before inconclusive: a median across, with a repeat or two
#                   on the seed's side, is a reversal that some repeats missed.
#   inconclusive    the median on the seed's side, a repeat on another side
#                   (or on a pivot): the direction is not stable.
#   reproduced      every repeat on the seed's side, the median within 2x of
#                   the seed's factor and at least half its log effect.
#   weaker          the rest: the seed's side, the effect not as the seed's
#                   (the reason says "more than 2x beyond" when it is stronger).
# threshold claims (compare.op/value, and compare.bound {"op", "value"}: the
# side the seed implies, e.g. a gain above 1; each repeat must meet both):
#   reproduced      every repeat meets the test.
#   inconclusive    the median meets it, not every repeat does.
#   reversed        a "within" band the median misses, or the median outside
#                   compare.bound.
#   no effect       (a seed with a side: its figure, or the way the test points
#                   from the pivot, implied()) the median within 10 %
#                   of the pivot (a factor of 1.1 either way: a/b, b/a agree).
#   reversed        the median on another side of the pivots than the seed's
#                   (or the seed has no side).
#   inconclusive    the median on the seed's side, a repeat on another.
#   weaker          the median on the seed's side, the test not met.
# Each result carries "agree": how many repeats, judged one by one by the same
# rules (inconclusive aside), have the claim's verdict.
# The median of an even number of ratios is the geometric middle of the two
# middle ones, so a/b and b/a give the same verdict.
# Explanations ("differs" in the claim file, keyed by the claim's id) name the
# verdicts they explain: [{"when": "reversed" | [...] | "any", "text": ...}];
# a text is shown only beside a verdict it names. A reversed claim needs a
# text whose "when" names "reversed" ("any" does not count): render() raises
# MissingExplanation without one, so the page is not written. A text cites
# figures of the run through placeholders, filled from the measurements:
# {ours} {min} {max} {seed} {n} (this claim's), {claim:ID} (another claim's
# median), {m:target/metric} (the median of one measurement).
#
# Standard library only; no fio, no files other than the claim file.
import json, math, re, statistics

VERDICTS = ("reproduced", "weaker", "no effect", "reversed", "inconclusive", "not attempted")
APART = ("by construction", "one run", "few repeats")      # shown, no verdict
MIN_REPEATS = 5     # fewer repeats get no verdict (docs/experiments.md: one disturbed repeat must not decide)
KINDS = ("factor", "threshold")
OPS = ("lt", "le", "gt", "ge", "within")
WHEN = VERDICTS[:-1] + APART + ("any",)
NOISE = math.log(1.1)   # no effect: within 10 % of the pivot (either way: a/b and b/a agree)
TENTH, HALF, OFF = 0.1, 0.5, 2.0
PLACEHOLDER = re.compile(r"\{(ours|min|max|seed|n|claim:[\w.-]+|m:[^{}\s]+)\}")


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
        bd = cmp.get("bound")
        if bd is not None and (cmp["kind"] != "threshold" or not isinstance(bd, dict) or
                               bd.get("op") not in OPS[:4] or not isinstance(bd.get("value"), (int, float))):
            raise ClaimError(f"{where}: compare.bound must be {{\"op\": lt|le|gt|ge, \"value\": number}} "
                             "on a threshold claim (the side the seed implies)")
        ab = c.get("absent")
        if ab is not None and not (isinstance(ab, dict) and isinstance(ab.get("count"), str) and
                                   isinstance(ab.get("text"), str) and ab["text"]):
            raise ClaimError(f"{where}: absent must be {{\"count\": \"target/metric\", \"text\": ...}} "
                             "(what was measured instead, and why the claim's figure is missing)")
        if "by_construction" in c and not (isinstance(c["by_construction"], str) and c["by_construction"]):
            raise ClaimError(f"{where}: by_construction must say why the set-up cannot fail the claim")
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
        rest = PLACEHOLDER.sub("", e["text"])
        if "{" in rest or "}" in rest:
            raise ClaimError(f"{where}: differs text has a brace that is no placeholder near "
                             f"{rest[max(0, rest.find('{' if '{' in rest else '}') - 20):][:40]!r} (placeholders: "
                             "{ours} {min} {max} {seed} {n} {claim:ID} {m:target/metric})")


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


def absent(c, m):
    """The claim's "absent" text when its count key was measured (None else):
    {n} its repeats, {count} their median."""
    ab = c.get("absent")
    got = [v for v in m.get(ab["count"], []) if v is not None] if ab else []
    if not got:
        return None
    return ab["text"].replace("{n}", str(len(got))).replace("{count}", num(middle(got, False)))


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


def lg(v, p):
    """The log effect of v against the pivot p (-inf at 0)."""
    return math.log(v / p) if v > 0 else -math.inf


def ref(piv):
    return piv[0]


def no_effect(v, sv, p):
    """A seed with a factor sv: under a tenth of its log effect. Without one
    (sv None: a threshold): within 10 % of the pivot p, a factor of 1.1 either way."""
    x = lg(v, p)
    if sv is not None and math.isfinite(lg(sv, p)) and sv > 0:
        return abs(x) < TENTH * abs(lg(sv, p))
    return abs(x) <= NOISE


def factor_one(c, v, sv, piv, p):
    """A factor claim's verdict for one value (inconclusive aside)."""
    if no_effect(v, sv, p):
        return "no effect"
    if side(v, piv) != side(sv, piv):
        return "reversed"
    return "reproduced" if strong(v, sv, p) else "weaker"


def strong(v, sv, p):
    """Within 2x of the seed's factor and at least half its log effect."""
    return 1 / OFF <= v / sv <= OFF and lg(v, p) / lg(sv, p) >= HALF


def meets(cmp, v):
    bd = cmp.get("bound")
    return holds(cmp["op"], v, cmp["value"]) and (bd is None or holds(bd["op"], v, bd["value"]))


def threshold_one(c, v, sv, piv, p, sided):
    """A threshold claim's verdict for one value (inconclusive aside)."""
    cmp = c["compare"]
    bd = cmp.get("bound")
    if meets(cmp, v):
        return "reproduced"
    if cmp["op"] == "within" or (bd is not None and not holds(bd["op"], v, bd["value"])):
        return "reversed"
    if sided and no_effect(v, None, p):
        return "no effect"
    if sided and side(v, piv) == side(sv, piv):
        return "weaker"
    return "reversed"


def implied(c, sv, piv):
    """The side a threshold claim's seed stands on, as a value on it: the
    seed's ratio (not at a pivot), else the side the test points to from a
    threshold at or beyond the first pivot ("lt 1": below 1); None: no side
    (a "within" band, a single figure, a seed at a pivot)."""
    cmp = c["compare"]
    if "b" not in c or cmp["op"] == "within":
        return None
    if sv is not None:
        return None if sv in piv else sv
    t, p = cmp["value"], piv[0]
    if cmp["op"] in ("lt", "le") and t <= p:
        return t / 2
    if cmp["op"] in ("gt", "ge") and t >= p:
        return t * 2
    return None


def verdict(c, m):
    """{"verdict", "median", "min", "max", "n", "keys", "reason", "agree", "repeats"}
    for claim c and measurements m {key: [value per repeat]}; "repeats" is
    each repeat's verdict alone, "agree" how many of them have the claim's."""
    if "not_attempted" in c:
        return {"verdict": "not attempted", "reason": c["not_attempted"], "n": 0}
    vals, keys = ours(c, m)
    if not vals:
        return {"verdict": "not attempted", "n": 0,
                "reason": absent(c, m) or (keys if isinstance(keys, str) else "no usable repeat (a failed point?)")}
    med = middle(vals, "b" in c)
    r = {"median": med, "min": min(vals), "max": max(vals), "n": len(vals), "keys": keys, "reason": ""}
    cmp, sv, piv = c["compare"], seed_value(c), pivots(c)
    p = ref(piv)
    if cmp["kind"] == "factor":
        one = [factor_one(c, v, sv, piv, p) for v in vals]
        across = [v for v in vals if side(v, piv) != side(sv, piv)]
        if no_effect(med, sv, p):
            r["verdict"] = "no effect"
        elif side(med, piv) != side(sv, piv):
            r["verdict"] = "reversed"
        elif across:
            r["verdict"] = "inconclusive"
            r["reason"] = f"{len(across)} of {len(vals)} repeats on another side of {' and '.join(f'{x:g}' for x in piv)}"
        elif strong(med, sv, p):
            r["verdict"] = "reproduced"
        else:
            r["verdict"] = "weaker"
            if lg(med, p) / lg(sv, p) > 1:
                r["reason"] = f"more than 2× beyond the seed's factor ({med / sv:.3g}× it)"
    else:
        sv = implied(c, sv, piv)
        sided = sv is not None
        one = [threshold_one(c, v, sv, piv, p, sided) for v in vals]
        ok = sum(meets(cmp, v) for v in vals)
        bd = cmp.get("bound")
        if ok == len(vals):
            r["verdict"] = "reproduced"
        elif meets(cmp, med):
            r["verdict"] = "inconclusive"
            r["reason"] = f"the test met by {ok} of {len(vals)} repeats"
        elif cmp["op"] == "within" or (bd is not None and not holds(bd["op"], med, bd["value"])):
            r["verdict"] = "reversed"
        elif sided and no_effect(med, None, p):
            r["verdict"] = "no effect"
        elif sided and side(med, piv) == side(sv, piv):
            across = [v for v in vals if side(v, piv) != side(sv, piv)]
            r["verdict"] = "inconclusive" if across else "weaker"
            if across:
                r["reason"] = f"{len(across)} of {len(vals)} repeats on another side of {' and '.join(f'{x:g}' for x in piv)}"
        else:
            r["verdict"] = "reversed"
    r["repeats"] = one
    r["agree"] = sum(x == r["verdict"] for x in one)
    if len(vals) == 1:
        r["verdict"], r["reason"] = "one run", "no verdict"
    elif len(vals) < MIN_REPEATS:
        r["measured"] = r["verdict"]
        r["verdict"], r["reason"] = "few repeats", f"n={len(vals)} < {MIN_REPEATS} repeats: no verdict"
    if c.get("by_construction"):
        r.setdefault("measured", r["verdict"])
        r["verdict"], r["reason"] = "by construction", c["by_construction"]
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
        return f"every repeat on the seed's side of {piv}; within 2×, ≥ half its effect"
    t, op = cmp["value"], cmp["op"]
    sym = {"lt": "<", "le": "≤", "gt": ">", "ge": "≥"}
    if op == "within":
        return f"every repeat in {num(t[0])}–{num(t[1])}"
    bd = cmp.get("bound")
    return "every repeat " + (f"{sym[bd['op']]} {num(bd['value'])} and " if bd else "") + \
        f"{sym[op]} {num(t)}" + (f" (side of {piv})" if piv != "1" else "")


def judge(d, m):
    """[(claim, result)] for every claim of the file; with the real server's
    figures in m, each result also has "real" and "reading" (add_real)."""
    return [add_real(c, verdict(c, m), m) for c in d.get("claims", [])]


def check_explained(judged, path="claims"):
    missing = [c["id"] for c, r in judged if r["verdict"] == "reversed" and not texts_for(c, "reversed", True)]
    if missing:
        raise MissingExplanation(f"{path}: reversed claim(s) without a \"differs\" explanation: "
                                 + ", ".join(missing) + " (add one with \"when\": \"reversed\" to the claim file; "
                                 "the page was not written)")


def counts(judged):
    """{verdict or APART name: claims}."""
    n = {v: 0 for v in VERDICTS + APART}
    for _, r in judged:
        n[r["verdict"]] += 1
    return n


def show_agree(r):
    """How many repeats agree with the verdict (inconclusive: each repeat's own)."""
    if r["verdict"] in ("not attempted", "one run") or "repeats" not in r:
        return "—"
    if r["n"] == 1:
        return "one run"
    if r["verdict"] in ("inconclusive", "by construction") or r.get("measured") == "inconclusive":
        seen = {}
        for x in r["repeats"]:
            seen[x] = seen.get(x, 0) + 1
        return ", ".join(f"{k} {seen[k]}" for k in VERDICTS if k in seen)
    return f"{r['agree']} of {r['n']}" + (f" ({r['measured']})" if r["verdict"] == "few repeats" else "")


RULES = ("Ratios are per repeat (repeat *i* of one target over repeat *i* of the other; the repeats run "
         "interleaved across targets); the median of an even number of ratios is their geometric middle. "
         "Tested in this order: *no effect* = the median under a tenth of the seed's effect in log terms (a "
         "threshold without the seed's figure: within 10 % of the pivot); *reversed* = the median on the other side; "
         "*inconclusive* = the median on the seed's side, repeats on both sides; *reproduced* = every repeat on the "
         "seed's side, the median within 2× of the seed's factor and at least half its effect in log terms; "
         "*weaker* = the seed's side, less than that. A threshold must hold for every repeat (met by the median "
         "only: *inconclusive*), on the side the seed implies. Sides are of 1 unless the test names another pivot "
         f"(linear growth, an order of magnitude). Fewer than {MIN_REPEATS} repeats get no verdict (one "
         "disturbed repeat must not decide). *agree* = how many repeats, judged alone by the same rules, have the "
         "claim's verdict. docs/experiments.md gives the rules and their order.")


def table(judged):
    """The claim table that opens a page (Markdown); the claims true by
    construction after it, apart, without a verdict."""
    real = any("real" in r for _, r in judged)
    rows = ["| claim | the seed says | seed's figure | ours: median (min–max over repeats) | test | verdict "
            "| repeats agreeing |" + (" the real server here: median → verdict; what it says of the model |"
                                      if real else ""), "|---|---|---|---|---|---|---|" + ("---|" if real else "")]
    apart = []
    for c, r in judged:
        words = c["words"].replace("|", "\\|")
        keys = f" <br>`{' / '.join(r['keys'])}`" if r.get("keys") else ""
        if r["verdict"] == "by construction":
            apart.append(f"| `{c['id']}` | {words} | {show_ours(c, r)}{keys} | {show_compare(c)} "
                         f"| {show_agree(r)} | {r['reason']} |")
            continue
        v = ("one run: no verdict" if r["verdict"] == "one run" else
             f"{r['reason']} (measured: {r['measured']})" if r["verdict"] == "few repeats" else
             r["verdict"] + (f": {r['reason']}" if r.get("reason") else ""))
        rows.append(f"| `{c['id']}` | {words} | {show_seed(c)} | {show_ours(c, r)}{keys} | {show_compare(c)} "
                    f"| {v} | {show_agree(r)} |" + (f" {show_real(c, r)} |" if real else ""))
    n = counts(judged)
    rows.append("")
    rows.append("Verdicts: " + ", ".join(f"{k} **{n[k]}**" for k in VERDICTS) +
                (f"; one run, no verdict **{n['one run']}**" if n["one run"] else "") +
                (f"; fewer than {MIN_REPEATS} repeats, no verdict **{n['few repeats']}**" if n["few repeats"] else "") +
                (f"; true by construction, no verdict **{n['by construction']}** (below)"
                 if n["by construction"] else "") + ". " + RULES + (real_counts(judged) if real else ""))
    if apart:
        rows += ["", "True by construction, listed apart without a verdict (the set-up cannot fail them; "
                 "each repeat's result alone in the last but one column):", "",
                 "| claim | expected | ours: median (min–max over repeats) | test | repeats | why no verdict |",
                 "|---|---|---|---|---|---|"] + apart
    return "\n".join(rows)


def fill(text, c, r, judged, m):
    """The text with its placeholders filled from this run ("—" when not measured)."""
    other = {x["id"]: y for x, y in judged}

    def one(mo):
        k = mo.group(1)
        if k.startswith("claim:"):
            o = other.get(k[6:], {})
            return num(o.get("median"))
        if k.startswith("m:"):
            vals = [v for v in (m or {}).get(k[2:], []) if v is not None]
            return num(middle(vals, False)) if vals else "—"
        return {"ours": lambda: num(r.get("median")), "min": lambda: num(r.get("min")),
                "max": lambda: num(r.get("max")), "seed": lambda: num(seed_value(c)),
                "n": lambda: str(r.get("n", 0))}[k]()
    return PLACEHOLDER.sub(one, text)


def explanations(judged, m=None):
    """The "what differs and why" text keyed by claim id (Markdown list)."""
    out = []
    for c, r in judged:
        v = r.get("measured", r["verdict"])     # by construction: the texts of what was measured
        label = (f"n={r['n']}, no verdict, measured {v}" if r["verdict"] == "few repeats" else
                 f"by construction, measured {v}" if "measured" in r else r["verdict"])
        for t in texts_for(c, v):
            out.append(f"- **`{c['id']}`** ({label}): {fill(t, c, r, judged, m)}")
    return "\n".join(out)


UNEXPLAINED = ("reversed in this run, and the claim file has no explanation for a reversal: "
               "`make results` measures the spread, and a reversal it confirms gets its explanation there")


def render(path, m, strict=True):
    """(claim table, explanations, judged) for a claim file and measurements;
    MissingExplanation when a reversed claim has no text (strict: make
    results publishes no unexplained reversal). Not strict: the page is
    written, the reversal said as such."""
    d = load(path)
    judged = judge(d, m)
    if strict:
        check_explained(judged, path)
    expl = explanations(judged, m)
    loose = [c["id"] for c, r in judged if r["verdict"] == "reversed" and not texts_for(c, "reversed", True)]
    expl += "".join(f"\n- **`{i}`** (reversed): {UNEXPLAINED}" for i in loose)
    return table(judged), expl.lstrip("\n"), judged


NUMBER = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?")


def numbers(text):
    """The figures a text cites, as written (thousands separators dropped);
    code spans (`seed000`, `jobs/x.fio`, claim ids) are names, not figures."""
    return {x.replace(",", "").rstrip(".") for x in NUMBER.findall(re.sub(r"`[^`]*`", "", text))}


def stray_numbers(d, *sources):
    """[(claim id, figure)]: the figures the claim file d's explanations type in
    (its placeholders, filled from the run, aside) that neither the claims'
    own words and seed figures nor sources (the seed's text, its job files,
    the page's tables and general text) give: a figure that is not the run's
    nor the seed's (issue 35: a text must not contradict its own table)."""
    known = set()
    for src in sources:
        known |= numbers(src)
    for c in d.get("claims", []):
        known |= numbers(json.dumps({k: v for k, v in c.items() if k != "differs"}, ensure_ascii=False))
    out = []
    for c in d.get("claims", []):
        for e in c.get("differs", []):
            out += [(c["id"], x) for x in sorted(numbers(PLACEHOLDER.sub("", e["text"])) - known, key=float)]
    return out


def page_verdicts(page):
    """{claim id: verdict} of a page's claim table (the opening table, not the
    claims true by construction): the verdict column's word ("few repeats" for
    "n=3 < 5 repeats: no verdict", "one run" for "one run: no verdict")."""
    out = {}
    i = page.find("## The seed's claims")
    j = page.find("True by construction, listed apart", i)
    k = page.find("\n## ", i + 1)
    for line in page[i:min(x for x in (j, k, len(page)) if x >= 0)].splitlines():
        cells = [x.strip() for x in re.split(r"(?<!\\)\|", line)[1:-1]]
        if len(cells) < 7 or not cells[0].startswith("`"):
            continue
        v = cells[5]
        out[cells[0].strip("`")] = ("few repeats" if re.match(r"n=\d+ < \d+ repeats", v) else
                                    next((w for w in VERDICTS + APART if v.startswith(w)), v))
    return out


def compare(old, new):
    """(claims in both, [(id, old verdict, new verdict)] that changed) of two
    {id: verdict}."""
    both = [k for k in new if k in old]
    return len(both), [(k, old[k], new[k]) for k in both if old[k] != new[k]]


def short(judged):
    """One line per claim (make demo's short form): one run gives the ratio and "one run"."""
    def line(c, r):
        if r["verdict"] == "not attempted":
            return r.get("reason", "")
        spread = f" ({num(r['min'])}–{num(r['max'])}, {r['n']} repeats)" if r["n"] > 1 else ""
        agree = f"; {show_agree(r)} agree" if r["verdict"] not in ("one run", "inconclusive", "by construction") else ""
        why = f"; {r['reason']}" if r.get("reason") and r["verdict"] not in ("one run", "by construction") else ""
        return f"ours {num(r['median'])}{spread} vs seed {num(seed_value(c))}{agree}{why}"
    name = {"one run": "one run: no verdict", "few repeats": "no verdict (n<%d)" % MIN_REPEATS}
    return "\n".join(f"  {c['id']:<34} {name.get(r['verdict'], r['verdict']):<20} {line(c, r)}" for c, r in judged)

# ---------------------------------------------------------------- the real server

# lab/experiment.d/realdb.py records the real database's figure of a key under
# REAL + key; a claim is judged a second time on them, by verdict() itself.
REAL = "real:"
READINGS = ("platform differs", "model wrong", "model agrees", "undecided")
SIDE = {"reproduced": "seed's", "weaker": "seed's", "reversed": "other", "no effect": "none"}


def real_claim(c):
    """c with each measurement key read as the real server's (REAL + key)."""
    r = dict(c)
    for k in ("a", "b"):
        if k in c:
            r[k] = [REAL + x for x in ([c[k]] if isinstance(c[k], str) else c[k])]
    return r


def direction(r):
    """The verdict the rules gave, before one run, few repeats or by
    construction put it apart."""
    if r["verdict"] == "one run":
        return r["repeats"][0]
    return r.get("measured", r["verdict"])


def reading(model, real):
    """What the real server here says of the model's verdict: both reversed:
    the platform differs from the seed's; a direction (the seed's side, the
    other, no effect) that differs: the model is wrong; the same: the model
    agrees; either inconclusive: undecided."""
    a, b = direction(model), direction(real)
    if a == b == "reversed":
        return "platform differs"
    if a not in SIDE or b not in SIDE:
        return "undecided"
    return "model agrees" if SIDE[a] == SIDE[b] else "model wrong"


def add_real(c, r, m):
    """(c, r), r with "real" (c's verdict on the real server's figures) and
    "reading" when the real server measured c's keys."""
    if "not_attempted" in c or "a" not in c or not any(k.startswith(REAL) for k in m):
        return c, r
    x = verdict(real_claim(c), m)
    if x["verdict"] != "not attempted":
        r["real"], r["reading"] = x, reading(r, x)
    return c, r


READ_TEXT = {"platform differs": "the platform differs from the seed's", "model wrong": "**the model is wrong**",
             "model agrees": "the model agrees", "undecided": "undecided (repeats on both sides)"}


def show_real(c, r):
    if "real" not in r:
        return "—"
    x = r["real"]
    v = x["verdict"] if x["verdict"] not in APART else f"{x['verdict']} (measured: {direction(x)})"
    return f"{show_ours(c, x)} → {v}; {READ_TEXT[r['reading']]}"


def real_counts(judged):
    n = {k: 0 for k in READINGS}
    for _, r in judged:
        if "reading" in r:
            n[r["reading"]] += 1
    return (" The real server (MariaDB 10.11, PostgreSQL 15) on the same targets, judged by the same rules: " +
            ", ".join(f"{READ_TEXT[k].strip('*')} **{n[k]}**" for k in READINGS) + " (both reversed: the platform "
            "differs from the seed's; the directions differ: the model is wrong; docs/experiments.md).")
