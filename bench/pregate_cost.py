"""What a pregate scorer costs a chunk: its features hashed (words, character n-grams, the record mix) and scored.

    python bench/pregate_cost.py                       # 5,000-token chunks of the bundled sessions
    python bench/pregate_cost.py --chunk-tokens 1200 --latency 0.1

Cuts the bundled sessions (fixtures/transcripts) into chunks of `--chunk-tokens`, then times, chunk by chunk, each
block of features alone and a fitted scorer's whole score (words, and words with character n-grams), after one
warm-up; each chunk is timed `--repeat` times and its fastest kept (the machine is shared: a slower try is someone
else's work), and the median over chunks is printed, with the share of a turn whose model call takes `--latency`
seconds (0.1 s: the scripted model of bench/turn_overhead.py). Writes nothing.
"""
import argparse, statistics, time
from common import ROOT
from memgate.chunking import chunk_project
from memgate.projects import load_project
from memgate.pregate import CHARS, Features, fit, hashers, record_mix

LOG = ROOT / 'fixtures' / 'runs' / 'scripted' / 'transcripts' / 'conventions.jsonl'

def per_chunk(fn, chunks, repeat: int) -> float:
    "The median over `chunks` of the fastest of `repeat` runs of `fn(chunk)`, in ms."
    fn(chunks[0])
    best = []
    for c in chunks:
        times = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            fn(c)
            times.append(time.perf_counter() - t0)
        best.append(min(times))
    return 1000 * statistics.median(best)

def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--chunk-tokens', type=int, default=5000)
    ap.add_argument('--repeat', type=int, default=3, help='runs per chunk; the fastest is kept')
    ap.add_argument('--latency', type=float, default=0.1, help='seconds a model call takes (default 0.1)')
    args = ap.parse_args()
    chunks = list(chunk_project(load_project(ROOT / 'fixtures' / 'transcripts'), args.chunk_tokens))
    words, chars, mix = hashers(Features(chars=CHARS))
    rows = [('word n-grams', lambda c: words.transform([c.text])),
            (f'character n-grams {CHARS}', lambda c: chars.transform([c.text])),
            ('record mix (roles, tools)', lambda c: mix.transform([record_mix(c)]))]
    for spec, name in ((Features(), 'score, words (the default)'), (Features(chars=CHARS), 'score, words + chars')):
        scorer = fit(LOG, ROOT / 'fixtures' / 'transcripts', spec=spec) if args.chunk_tokens == 5000 else None
        if scorer: rows.append((name, scorer.score))
    tokens, chars_ = (statistics.median(f(c) for c in chunks) for f in (lambda c: c.tokens, lambda c: len(c.text)))
    print(f"{len(chunks)} chunks of at most {args.chunk_tokens} tokens (median {tokens:.0f} tokens, {chars_:.0f} "
          f"characters); median over chunks of the fastest of {args.repeat}")
    turn = 1000 * args.latency
    for name, fn in rows:
        ms = per_chunk(fn, chunks, args.repeat)
        print(f"  {name:34s} {ms:7.2f} ms a chunk  = {100 * ms / turn:5.1f}% of a {turn:.0f} ms call")

if __name__ == '__main__': main()
