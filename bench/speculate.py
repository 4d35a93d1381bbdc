"""One query's wall time with speculative turns (`--speculate K`): turns t+1..t+K asked while turn t is out.

    python bench/speculate.py --turns 60 --latency 0.1 --slots 8

Against a scripted server of fixed latency that decodes at most `--slots` requests at once (the rest queue, as on a
real server), with a gate that says yes on a given share of chunks: for each yes-rate and K, the wall time of one
query over the bundled sessions, its ratio to K=1, the requests the server received, the answers thrown away (asked
with a memory that a committed yes then changed) per committed turn, and the requests cancelled in flight (the
server stops on a closed connection, as vLLM does). The goal: at a 10% yes-rate, K=8 in at most 0.35x the time of
K=1, with at most one discarded call per committed turn.
"""
import argparse, asyncio, time
from common import FakeServer, ROOT
from memgate.chunking import chunk_project
from memgate.client import OpenAIClient
from memgate.domain import sha256_text
from memgate.loop import EventList, LoopConfig, run_loop
from memgate.parser import gate_response
from memgate.prompt import prompt_parts
from memgate.queries import load_queries
from memgate.projects import load_project

def gate(rate: float):
    "Yes on `rate` of the chunks (by their sha), with the memory growing by a line naming the chunk."
    def answer(prompt):
        memory, section = prompt_parts(prompt)
        prev = '' if memory == 'No previous memory' else memory
        byte = int(sha256_text(section)[:4], 16) / 65536
        if byte < rate: return gate_response(True, f"{prev}\n- chunk {sha256_text(section)[:8]}".strip())
        return gate_response(False, prev)
    return answer

async def one(chunks, query, url, k, concurrency) -> tuple[float, dict]:
    client = OpenAIClient(url, 'test-model', concurrency=concurrency)
    t0 = time.monotonic()
    out = await run_loop(1, query, chunks, LoopConfig(), client, EventList(), speculate=k)
    wall = time.monotonic() - t0
    await client.aclose()
    return wall, dict(out.discarded, turns=out.stats.chunks_seen)

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--turns', type=int, default=60)
    ap.add_argument('--latency', type=float, default=0.1)
    ap.add_argument('--slots', type=int, default=8)
    args = ap.parse_args()
    chunks = list(chunk_project(load_project(ROOT / 'fixtures' / 'transcripts'), 400))[:args.turns]
    query = load_queries()['infra-root-causes']
    print(f"{len(chunks)} turns, {args.latency * 1000:.0f} ms a call, {args.slots} requests decoded at once")
    print(f"{'yes-rate':>8} {'K':>3} {'wall s':>7} {'x K=1':>6} {'requests':>8} {'discarded':>9} {'per turn':>8} "
          f"{'cancelled':>9}")
    for rate in (0.05, 0.10, 0.30, 1.0):
        base = None
        for k in (1, 2, 4, 8, 16):
            with FakeServer(gate=gate(rate), latency=args.latency, slots=args.slots) as s:
                wall, d = asyncio.run(one(chunks, query, s.url, k, max(k, 1)))
                calls = len(s.requests)
            base = base or wall
            print(f"{rate:8.0%} {k:3d} {wall:7.2f} {wall / base:6.2f} {calls:8d} {d['calls']:9d} "
                  f"{d['calls'] / d['turns']:8.2f} {d['cancelled']:9d}")

if __name__ == '__main__': main()
