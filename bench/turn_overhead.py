"""What memgate costs per turn besides the model: reading and chunking, prompt building, parsing, hashing, log writes.

    python bench/turn_overhead.py            # the bundled real sessions, scripted model answering instantly

Prints per-turn milliseconds of memgate's own work and the ratio to a model call of 1 s (a fast local 3B-7B
model answering a 6-8k-token prompt takes 1-5 s).
"""
import asyncio, tempfile, time
from pathlib import Path
from memgate.chunking import chunk_project
from memgate.client import Completion
from memgate.parser import gate_response, parse_gate_response
from memgate.log import LogWriter, verify
from memgate.loop import LoopConfig, run_loop
from memgate.prompt import build_prompt
from memgate.queries import load_queries
from memgate.sources import load_project

PROJECT = Path(__file__).resolve().parent.parent / 'fixtures' / 'transcripts'

class Instant:
    "A model that answers at once: yes every third call, with a growing memory (as real runs do)."
    def __init__(self): self.n = 0
    async def complete(self, messages, **kw):
        self.n += 1
        return Completion(gate_response(self.n % 3 == 0, 'm' * min(3000, 40 * self.n), think='x' * 400))

def per(label, seconds, n):
    print(f"{label:34s} {1000 * seconds / n:8.2f} ms/turn")
    return seconds / n

def main(rounds: int = 5):
    q = load_queries()['infra-root-causes']
    t0 = time.perf_counter()
    chunks = [c for _ in range(rounds) for c in chunk_project(load_project(PROJECT))]
    n = len(chunks)
    chunking = per('read + chunk', time.perf_counter() - t0, n)
    t0 = time.perf_counter()
    _ = [build_prompt(q.question, 'memory ' * 800, c.text) for c in chunks]
    per('build prompt (budget check)', time.perf_counter() - t0, n)
    answer = gate_response(True, 'memory line\n' * 150, think='reasoning ' * 200)
    t0 = time.perf_counter()
    for _ in range(n): parse_gate_response(answer)
    per('parse', time.perf_counter() - t0, n)
    d = Path(tempfile.mkdtemp())
    t0 = time.perf_counter()
    for i in range(rounds):
        with LogWriter(d / f'log{i}.jsonl') as w:
            asyncio.run(run_loop(1, q, chunk_project(load_project(PROJECT)), LoopConfig(), Instant(), w))
    whole = per('whole loop (incl. chunking, fsync)', time.perf_counter() - t0, n)
    t0 = time.perf_counter()
    ok = all(verify(d / f'log{i}.jsonl').ok for i in range(rounds))
    per('verify the log afterwards', time.perf_counter() - t0, n)
    assert ok
    print(f"memgate's own work per turn: {1000 * whole:.1f} ms = {100 * whole / 1.0:.2f}% of a 1 s model call "
          f"({1 / whole:.0f} turns/s without a model; chunking alone {1000 * chunking:.1f} ms)")

if __name__ == '__main__': main()
