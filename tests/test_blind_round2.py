"""The second blind round's corpus (issue 48), kept once the third round was measured: an IoT fleet's project written
by someone who never read memgate's rules, its redactor or its tests (seed 1 of its `gen.py`, the manifest in
`tests/data/blind_round2`).

Measured blind, before any fix for it, the round leaked 7.4-9.3% of its secrets and took 23.6% of its look-alikes.
This holds what the fixes since made of it: 7 of 257 leak and 14 of 140 look-alikes are taken at this commit."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / 'bench'))
from secret_round import measure  # noqa: E402

CORPUS = Path(__file__).parent / 'data' / 'blind_round2'

def test_the_second_blind_rounds_secrets_stay_home_and_its_look_alikes_are_sent():
    r = measure(CORPUS)
    leaks, taken = [s['kind'] for s in r['leaks']], [d['kind'] for d in r['taken']]
    print(f"\n{len(leaks)} of {r['secrets']} secrets leak; {len(taken)} of {r['decoys']} look-alikes taken")
    assert r['secrets'] == 257 and r['decoys'] >= 130
    assert len(leaks) <= 7, leaks                        # 2.7%
    assert len(taken) <= 14, taken                       # 10%
