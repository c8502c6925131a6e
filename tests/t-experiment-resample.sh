#!/bin/bash
# Description: lab/experiment --compare --resample: two runs' expected agreement against the binomial law
# Tier: quick
# In full: lab/experiment.d/stability.py draws two runs of N repeats from a claim's pooled repeats and
# judges both with claims.verdict. The oracle is the binomial law, computed here without the claims
# code: a factor claim (seed 2x) whose pool is half 2.0, half 0.5 is reproduced when all N draws are
# 2.0, inconclusive when most are, reversed otherwise, so two runs agree with probability
# p5 = P(k=N)^2 + P(N/2<k<N)^2 + P(k<N/2)^2 (0.4707 at 5, 0.4981 at 9 repeats); a "within
# 0.8-1.25" threshold on a pool half 1.0, half 1.5 the same; a pool far from every bound agrees
# always. A policy N+M (more repeats while one decides) against the law enumerated with the test's
# own judge of that pool. Over a claim file, a run of all 2.0 and one of all 0.5 pool to that half-and-half; a claim
# not attempted counts as its two pages say and one true by construction not at all.
# Then the option's bad values are refused with one line.
. "$(dirname "$0")/lib.sh"
cd "$REPO" || fail "no repo"
PYTHONPATH=$REPO/lab/experiment.d /usr/bin/python3 - <<'EOF' || fail "stability against the binomial law"
import math, random, sys
import stability

def law(n):
    p = lambda k: math.comb(n, k) / 2 ** n
    return p(n) ** 2 + sum(p(k) for k in range(n // 2 + 1, n)) ** 2 + sum(p(k) for k in range(0, n // 2 + 1)) ** 2

fac = {"id": "f", "seed": {"a": 2, "b": 1}, "a": "t/a", "b": "t/b", "compare": {"kind": "factor"}}
thr = {"id": "w", "seed": {}, "a": "t/a", "b": "t/b", "compare": {"kind": "threshold", "op": "within", "value": [0.8, 1.25]}}
bad = 0
for c, pool in ((fac, [2.0, 0.5]), (thr, [1.0, 1.5])):
    for n in (5, 9):
        got = stability.agreement(c, ("t/a", "t/b"), pool, n, draws=20000, rng=random.Random(7))
        want = law(n)
        ok = abs(got - want) < 0.02
        bad += not ok
        print(f"{'ok' if ok else 'FAIL'}: {c['id']} at {n} repeats: {got:.4f}, the binomial law {want:.4f}")
far = stability.agreement(fac, ("t/a", "t/b"), [3.0, 3.5, 2.6], 5, draws=500)
bad += far != 1.0
print(f"{'ok' if far == 1.0 else 'FAIL'}: a pool far from every bound agrees {far:.3f}")
d = {"claims": [fac, {"id": "na", "not_attempted": "no", "seed": {}, "compare": {"kind": "factor"}},
                dict(fac, id="bc", by_construction="the profile")]}
mo, mn = {"t/a": [2.0] * 5, "t/b": [1.0] * 5}, {"t/a": [1.0] * 5, "t/b": [2.0] * 5}
got, rows = stability.expected(d, mo, mn, [5], draws=20000)
ok = abs(got[5][0] - (1 + law(5))) < 0.02 and got[5][1] == 2 and [r[1] for r in rows] == ["f"]
bad += not ok
print(f"{'ok' if ok else 'FAIL'}: expected() {got} over {[r[1] for r in rows]}, the law {1 + law(5):.4f}: both runs "
      "pooled, the claim not attempted counted as the same, the one by construction left out")
# a policy N+M: N repeats, then more up to M while leaving one out changes the verdict. The law
# here by enumeration, with its own judge of the half-and-half pool (counts of 2.0 and 0.5): all
# 2.0 reproduced; a median of 2.0 with a 0.5 inconclusive; 0.5 reversed; an even split's middle 1.0
# no effect
def judge(k, j):
    if j == 0:
        return "reproduced"
    return "inconclusive" if k > j else "reversed" if k < j else "no effect"

def decides(k, j):
    v = judge(k, j)
    return (k and judge(k - 1, j) != v) or (j and judge(k, j - 1) != v)

def law_policy(n, most):
    end, took = {}, 0.0
    states = {(k, n - k): math.comb(n, k) / 2 ** n for k in range(n + 1)}
    while states:
        nxt = {}
        for (k, j), p in states.items():
            if k + j < most and decides(k, j):
                for s in ((k + 1, j), (k, j + 1)):
                    nxt[s] = nxt.get(s, 0) + p / 2
            else:
                end[judge(k, j)] = end.get(judge(k, j), 0) + p
                took += p * (k + j)
        states = nxt
    return sum(p * p for p in end.values()), took

for pol in ((5, 9), (5, 15)):
    spent = []
    got = stability.agreement(fac, ("t/a", "t/b"), [2.0, 0.5], pol, draws=20000, rng=random.Random(7), spent=spent)
    want, took = law_policy(*pol)
    ok = abs(got - want) < 0.02 and abs(spent[0] - took) < 0.1
    bad += not ok
    print(f"{'ok' if ok else 'FAIL'}: f under {pol[0]}+{pol[1]}: {got:.4f} agree, {spent[0]:.2f} repeats a run; "
          f"the enumerated law {want:.4f}, {took:.2f}")
spent = []
far = stability.agreement(fac, ("t/a", "t/b"), [3.0, 3.5, 2.6], (5, 10), draws=500, spent=spent)
ok = far == 1.0 and spent == [5.0]
bad += not ok
print(f"{'ok' if ok else 'FAIL'}: a pool far from every bound under 5+10: {far:.3f} agree, {spent[0]:.2f} repeats a run")
sys.exit(1 if bad else 0)
EOF
ok "stability.py agrees with the binomial law"
for v in 0 x,5 -3 6+5 5+; do
	out=$(lab/experiment --compare results --resample="$v" 2>&1)
	[ $? = 2 ] && [ "$(wc -l <<<"$out")" = 1 ] && grep -q -- "--resample $v:" <<<"$out" ||
		fail "--resample $v: not refused in one line: $out"
done
out=$(lab/experiment --resample 5 2>&1)
[ $? = 2 ] && grep -q -- "--compare" <<<"$out" || fail "--resample without --compare: $out"
ok "--resample 0, x,5, -3, 6+5, 5+ and without --compare refused in one line"
