"""The third blind round's corpus (issue 48), kept once the fourth round was measured: a container terminal's
project written by someone who never read memgate's rules, its redactor or its tests (seed 1 of its `gen.py`, the
manifest in `tests/data/blind_round3`).

Measured blind, before any fix for it: 15 of 248 secrets leaked (6.0%) and 17 of 134 look-alikes were taken
(12.7%). This holds what the fixes of that round made of it: 2 leak and 9 are taken at this commit."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / 'bench'))
from secret_round import measure  # noqa: E402

CORPUS = Path(__file__).parent / 'data' / 'blind_round3'

def test_the_third_blind_rounds_secrets_stay_home_and_its_look_alikes_are_sent():
    r = measure(CORPUS)
    leaks, taken = [s['kind'] for s in r['leaks']], [d['kind'] for d in r['taken']]
    print(f"\n{len(leaks)} of {r['secrets']} secrets leak; {len(taken)} of {r['decoys']} look-alikes taken")
    assert r['secrets'] == 248 and r['decoys'] >= 130
    assert len(leaks) <= 2, leaks                        # 0.8%
    assert len(taken) <= 9, taken                        # 6.7%
