# lab/experiment.d/stability.py - lab/experiment --compare OLDDIR --resample
# N,...: how often two runs of N repeats each would give a claim the same
# verdict, were the repeats drawn from what two real runs measured. Each
# claim's per-repeat values of both runs (claims.ours: the repeat-by-repeat
# ratio) are pooled; two runs of N repeats are drawn from the pool with
# replacement, both judged by claims.verdict itself, DRAWS times: the share
# that agree is the claim's chance to keep its verdict. Summed over the claims
# it is the number two consecutive make results are expected to agree on at N
# repeats a point - what more repeats would buy against the 90 %.
import random

import claims

DRAWS = 400


def _judge(c, keys, vals):
    """claims.verdict of c on vals as a's per-repeat values (b = 1 each)."""
    m = {keys[0]: list(vals)}
    if len(keys) > 1:
        m[keys[1]] = [1.0] * len(vals)
    return claims.verdict(c, m)["verdict"]


def agreement(c, keys, pool, n, draws=DRAWS, rng=None):
    """The share of `draws` pairs of runs of n repeats drawn from pool (with
    replacement) that give claim c one verdict."""
    rng = rng or random.Random(1)
    same = 0
    for _ in range(draws):
        same += _judge(c, keys, rng.choices(pool, k=n)) == _judge(c, keys, rng.choices(pool, k=n))
    return same / draws


def expected(d, m_old, m_new, ns, draws=DRAWS):
    """{n: (expected claims with one verdict, claims)} and the claims' rows
    [(share at ns[0], id, old verdict, new verdict)] for a seed's claim file d
    and two runs' measurements. A claim not attempted, or without values in
    one run, counts as it was observed (same verdict or not); one true by
    construction is not judged and not counted."""
    rng = random.Random(1)
    out, rows = {n: 0.0 for n in ns}, []
    total = 0
    for c in d["claims"]:
        ro, rn = claims.verdict(c, m_old), claims.verdict(c, m_new)
        if "by construction" in (ro["verdict"], rn["verdict"]):
            continue
        total += 1
        vo, ko = (None, None) if "not_attempted" in c else claims.ours(c, m_old)
        vn, kn = (None, None) if "not_attempted" in c else claims.ours(c, m_new)
        if not vo or not vn or ko != kn:
            for n in ns:
                out[n] += ro["verdict"] == rn["verdict"]
            continue
        shares = [agreement(c, ko, vo + vn, n, draws, rng) for n in ns]
        for n, p in zip(ns, shares):
            out[n] += p
        rows.append((shares[0], c["id"], ro["verdict"], rn["verdict"]))
    return {n: (out[n], total) for n in ns}, sorted(rows)
