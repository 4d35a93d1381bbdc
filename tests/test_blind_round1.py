"""The first blind round's corpus (issue 48), kept once the second round was measured: a project written by someone
who never read memgate's rules, its redactor or its tests, with 281 secrets of 201 kinds planted where developers
paste them and 166 look-alikes beside them (seed 1 of `gen.py`, its manifest in `tests/data/blind_round1`).

Measured blind, before any fix for it: 26 of 281 leaked and 34 look-alikes were taken. This holds what the fixes
of that round made of it."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / 'bench'))
from secret_round import measure  # noqa: E402

CORPUS = Path(__file__).parent / 'data' / 'blind_round1'

def test_the_first_blind_rounds_secrets_stay_home_and_its_look_alikes_are_sent():
    r = measure(CORPUS)
    leaks, taken = [s['kind'] for s in r['leaks']], [d['kind'] for d in r['taken']]
    print(f"\n{len(leaks)} of {r['secrets']} secrets leak; {len(taken)} of {r['decoys']} look-alikes taken; "
          f"memgate secrets names {len(r['named'])} of {len(leaks)} leaks")
    assert r['secrets'] == 281 and r['decoys'] >= 160
    assert len(leaks) <= 2, leaks                       # at most 1% (0 at this commit)
    assert len(taken) <= r['decoys'] * 0.08, taken       # at most 8% (7 of 166 at this commit)
    assert len(r["named"]) <= len(leaks)
