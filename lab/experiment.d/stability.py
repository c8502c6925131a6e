# lab/experiment.d/stability.py - lab/experiment --compare OLDDIR --resample
# N,...: how often two runs of N repeats each would give a claim the same
# verdict, were the repeats drawn from what two real runs measured. Each
# claim's per-repeat values of both runs (claims.ours: the repeat-by-repeat
# ratio) are pooled; two runs of N repeats are drawn from the pool with
# replacement, both judged by claims.verdict itself, DRAWS times: the share
# that agree is the claim's chance to keep its verdict. Summed over the claims
# it is the number two consecutive make results are expected to agree on at N
# repeats a point - what more repeats would buy against the 90 %.
# A policy N+M draws N repeats, then one more at a time, up to M, while a
# single repeat decides the verdict (leaving one repeat out changes it): what
# extra repeats for the claims on a bound of the rules would buy.
import random

import claims

DRAWS = 400


def _result(c, keys, vals):
    """claims.verdict of c on vals as a's per-repeat values (b = 1 each)."""
    m = {keys[0]: list(vals)}
    if len(keys) > 1:
        m[keys[1]] = [1.0] * len(vals)
    return claims.verdict(c, m)


def _judge(c, keys, vals):
    return _result(c, keys, vals)["verdict"]


def _measured(c, keys, vals):
    """The verdict vals measure, also under claims.MIN_REPEATS repeats."""
    r = _result(c, keys, vals)
    return r.get("measured", r["verdict"])


def decides(c, keys, vals):
    """Whether one repeat of vals decides claim c's verdict: leaving some one
    of them out changes it."""
    v = _measured(c, keys, vals)
    return any(_measured(c, keys, vals[:i] + vals[i + 1:]) != v for i in range(len(vals)))


def policy(text):
    """"N" or "N+M" as (N, M); ValueError unless 1 <= N <= M."""
    n, plus, m = text.partition("+")
    n, m = int(n), int(m) if plus else int(n)
    if not 1 <= n <= m:
        raise ValueError(text)
    return n, m


def draw(c, keys, pool, pol, rng):
    """One run's repeats under the policy (N, M) drawn from pool."""
    n, most = pol
    vals = rng.choices(pool, k=n)
    while len(vals) < most and decides(c, keys, vals):
        vals.append(rng.choice(pool))
    return vals


def agreement(c, keys, pool, n, draws=DRAWS, rng=None, spent=None):
    """The share of `draws` pairs of runs of n repeats (an int, or a policy
    (N, M)) drawn from pool (with replacement) that give claim c one verdict;
    spent (a list) gets the mean repeats a run took."""
    rng = rng or random.Random(1)
    pol = n if isinstance(n, tuple) else (n, n)
    same, took = 0, 0
    for _ in range(draws):
        a, b = draw(c, keys, pool, pol, rng), draw(c, keys, pool, pol, rng)
        took += len(a) + len(b)
        same += _judge(c, keys, a) == _judge(c, keys, b)
    if spent is not None:
        spent.append(took / (2 * draws))
    return same / draws


def expected(d, m_old, m_new, ns, draws=DRAWS, spent=None):
    """{n: (expected claims with one verdict, claims)} and the claims' rows
    [(share at ns[0], id, old verdict, new verdict)] for a seed's claim file d
    and two runs' measurements (n: repeats, or a policy (N, M)). A claim not
    attempted, or without values in one run, counts as it was observed (same
    verdict or not); one true by construction is not judged and not counted.
    spent (a dict) gets for each n the list of the claims' mean repeats a run."""
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
        shares = [agreement(c, ko, vo + vn, n, draws, rng, None if spent is None else spent.setdefault(n, []))
                  for n in ns]
        for n, p in zip(ns, shares):
            out[n] += p
        rows.append((shares[0], c["id"], ro["verdict"], rn["verdict"]))
    return {n: (out[n], total) for n in ns}, sorted(rows)
