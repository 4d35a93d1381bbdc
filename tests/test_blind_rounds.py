"""The blind rounds' corpora (issue 48), each kept once the round after it was measured: a project written by someone
who never read memgate's rules, its redactor or its tests, secrets planted where developers paste them and look-
alikes beside them (seed 1 of each round's `gen.py`, its manifest in `tests/data/blind_roundN`).

Measured blind, before any fix for it: round 1 leaked 26 of 281 secrets and took 34 look-alikes; round 2 leaked
7.4-9.3% of its secrets and took 23.6% of its look-alikes; round 3 leaked 15 of 248 and took 17 of 134; round 4
leaked 34 of 232 and took 32 of 131; round 5 leaked 19 of 219 and took 26 of 120; round 6 leaked 15 of 237 and took
14 of 115; round 9 leaked 12 of 253 and took 12 of 141; round 10 leaked 9 of 252 and took 22 of 150; round 11 leaked
12 of 256 and took 21 of 163; round 12 leaked 19 of 253 (7 once a URL's or a connection string's secret is its
password, not its host: the bench counts so since) and took 12 of 165; round 13 leaked 14 of 249 and took 27 of 154;
round 14 leaked 11 of 242 and took 15 of 150; round 15 leaked 14 of 247 and took 6 of 138; round 16 leaked 24 of 256
and took 12 of 154; round 17 leaked 13 of 251 and took 12 of 152; round 18 leaked 13 of 257 and took 17 of 150;
round 19 leaked 4 of 250 and took 22 of 146; round 20 leaked 22 of 250 and took 12 of 130; round 21 leaked 18 of 252
and took 13 of 158; round 22 leaked 8 of 258 and took 14 of 167; round 23 leaked 4 of 260 and took 16 of 151; round
24 leaked 9 of 260 and took 5 of 163; round 25 leaked 4 of 258 and took 4 of 150; round 26 leaked 7 of 279 and took
18 of 149; round 27 leaked 6 of 266 and took 4 of 143; round 28 leaked 2 of 264 and took 17 of 142; round 29 leaked
7 of 269 and took 10 of 141; round 30 leaked 7 of 261 and took 12 of 144; round 31 leaked 8 of 270 and took 5 of
139; round 32 leaked 16 of 268 and took 15 of 145; round 33 leaked 6 of 267 and took 9 of 148; round 34 leaked 9 of
265 and took 12 of 141; round 35 leaked 15 of 273 and took 12 of 142; round 36 leaked 4 of 274 and took 5 of 138;
round 37 leaked 14 of 275 and took 9 of 141; round 38 leaked 9 of 267 and took 21 of 140; round 39 leaked 1 of 274
and took 1 of 154; round 40 leaked 16 of 269 and took 7 of 158; round 41 leaked 22 of 269 and took 5 of 141; round
42 leaked 8 of 268 and took 9 of 134; round 43 leaked 15 of 272 and took 7 of 138; round 44 leaked 18 of 268 and
took 11 of 133; round 45 leaked 9 of 270 and took none of 141; round 46 leaked 27 of 280 and took 4 of 139; round 47
leaked 6 of 270 and took 13 of 137; round 48 leaked 16 of 273 and took 15 of 137, 4 of them where a credential's
position stands (`'secret' => '…'`, `KEY=`); round 49 leaked 11 of 265 and took 4 of 136; round 50 leaked 6 of 272
and took 4 of 142; round 51 leaked 18 of 277 and took 2 of 136; round 52 leaked 8 of 270 and took 7 of 141; round 53
leaked 3 of 266 and took 8 of 141; round 54 leaked 11 of 265 and took 3 of 146; round 55 leaked 8 of 270 and took 3
of 141; round 56 leaked 4 of 267 and took 3 of 136; round 57 leaked 9 of 271 and took 1 of 144; round 58 leaked 8 of
273 and took 8 of 143; round 59 leaked 7 of 263 and took 7 of 142; round 60 leaked 9 of 278 and took 6 of 141; round
61 leaked 20 of 272 and took 2 of 139; round 62 leaked 9 of 269 and took 4 of 142; round 63 leaked 7 of 272 and took
5 of 128; round 64 leaked 1 of 275 and took 6 of 149; round 65 leaked 1 of 261 and took 5 of 138; round 66 leaked 1
of 273 and took 4 of 144; round 67 leaked 6 of 264 and took 7 of 146; round 68 leaked 5 of 275 and took 10 of 140;
round 69 leaked 6 of 273 and took 16 of 141; round 70 leaked 1 of 268 and took 1 of 134; round 71 leaked 6 of 267
and took 5 of 138; round 72 leaked 1 of 266 and took 3 of 137; round 73 leaked 4 of 277 and took 3 of 135; round 74
leaked 4 of 279 and took 6 of 138; round 75 leaked 2 of 272 and took 9 of 140; round 76 leaked 3 of 264 and took 7
of 141; round 77 leaked 1 of 270 and took 3 of 138; round 78 leaked 2 of 275 and took 3 of 139; round 79
leaked 1 of 262 and took 4 of 136; round 80 leaked 5 of 267 and took 9 of 142; round 81 leaked 4 of 266 and took
9 of 139; round 82 leaked 2 of 273 and took 6 of 140; round 83 leaked 1 of 267 and took 6 of 137;
round 84 leaked 7 of 265 and took 7 of 137; round 85 leaked 8 of 264 and took 5 of 140; round 86 leaked 5 of
274 and took 8 of 142 (rounds 7, 8, 40,
62 and 63 were measured and fixed, but their corpora were lost with the machine they were written on: rounds 9, 10
and 11 are kept at once for that reason; the next round is still written blind).
Each test holds what the fixes since made of its round at the commit that kept it, or since (rounds 41 and 42 leak
two keys and one more since a thing's `_KEY` alone no longer names a credential: it took code's names in real code,
`SERIALIZER_KEY = "serializerName"`)."""
import sys
from pathlib import Path
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / 'bench'))
from secret_round import measure  # noqa: E402

DATA = Path(__file__).parent / 'data'

# round: (secrets planted, at least this many look-alikes present, most leaks, most look-alikes taken)
ROUNDS = {1: (281, 160, 1, 10), 2: (257, 130, 6, 10), 3: (248, 130, 2, 5), 4: (232, 125, 8, 23),
          5: (219, 115, 7, 12), 6: (237, 110, 3, 14), 9: (253, 135, 0, 4),
          10: (252, 145, 1, 9), 11: (256, 160, 1, 10), 12: (253, 160, 1, 2),
          13: (249, 150, 3, 11), 14: (242, 145, 6, 5), 15: (247, 135, 6, 6),
          16: (256, 150, 0, 4), 17: (251, 145, 2, 9), 18: (257, 145, 2, 6),
          19: (250, 140, 0, 4), 20: (250, 125, 2, 8), 21: (252, 150, 1, 3),
          23: (260, 145, 0, 6), 24: (260, 160, 1, 1), 25: (258, 145, 2, 2),
          26: (279, 145, 3, 2), 27: (266, 140, 4, 0), 28: (264, 140, 2, 6),
          29: (269, 140, 0, 7), 30: (261, 140, 4, 7),
          31: (270, 135, 0, 0), 32: (268, 140, 0, 6),
          33: (267, 140, 2, 4), 34: (265, 135, 1, 5),
          35: (273, 140, 4, 6), 36: (274, 135, 0, 1), 37: (275, 135, 4, 4),
          38: (267, 135, 1, 6), 39: (274, 150, 1, 1), 41: (269, 140, 6, 2),
          42: (268, 130, 4, 6), 43: (272, 135, 9, 6), 44: (268, 128, 9, 8),
          45: (270, 135, 3, 0), 46: (280, 135, 10, 1), 47: (270, 135, 4, 8), 48: (273, 135, 6, 10),
          49: (265, 130, 4, 1), 50: (272, 135, 4, 1),
          51: (277, 130, 2, 0), 52: (270, 135, 1, 1),
          53: (266, 135, 3, 1), 54: (265, 140, 2, 3), 55: (270, 135, 2, 0),
          56: (267, 130, 0, 1), 57: (271, 140, 2, 1), 58: (273, 140, 0, 1),
          59: (263, 140, 0, 0), 60: (278, 140, 2, 0),
          61: (272, 135, 6, 1), 64: (275, 149, 0, 2), 65: (261, 138, 0, 3), 66: (273, 144, 0, 0),
          67: (264, 146, 2, 2), 68: (275, 140, 3, 6), 69: (273, 141, 5, 13),
          70: (268, 134, 0, 0), 71: (267, 138, 2, 2), 72: (266, 137, 1, 3), 73: (277, 135, 3, 2),
          74: (279, 138, 3, 0), 75: (272, 140, 1, 5), 76: (264, 141, 3, 2), 77: (270, 138, 1, 3),
          78: (275, 139, 0, 3), 79: (262, 136, 1, 3), 80: (267, 142, 2, 0), 81: (266, 139, 3, 0),
          82: (273, 140, 2, 0), 83: (267, 137, 1, 4), 84: (265, 137, 6, 3), 85: (264, 140, 2, 5)}

@pytest.mark.parametrize('round_', sorted(ROUNDS))
def test_a_blind_rounds_secrets_stay_home_and_its_look_alikes_are_sent(round_):
    secrets, decoys, most_leaks, most_taken = ROUNDS[round_]
    r = measure(DATA / f'blind_round{round_}')
    leaks, taken = [s['kind'] for s in r['leaks']], [d['kind'] for d in r['taken']]
    print(f"\nround {round_}: {len(leaks)} of {r['secrets']} secrets leak; {len(taken)} of {r['decoys']} look-alikes "
          f"taken; memgate secrets names {len(r['named'])} of {len(leaks)} leaks")
    assert r['secrets'] == secrets and r['decoys'] >= decoys
    assert len(leaks) <= most_leaks, leaks
    assert len(taken) <= most_taken, taken
    assert len(r['named']) <= len(leaks)
