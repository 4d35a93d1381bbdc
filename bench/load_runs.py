"""How long `load_runs` takes on many long logs: `python bench/load_runs.py --logs 100 --turns 1000`.

Builds logs with the scripted client (yes one turn in five, a parse failure now and then) in a temporary folder,
then times loading them; it says first what it will write (the defaults: about 180 MB, a few minutes on 2 cores), shows
its progress, and removes the folder when it ends, however it ends.
"""
import argparse, asyncio, tempfile, time
from pathlib import Path
from memgate.analysis import load_runs
from memgate.client import Completion
from memgate.parser import gate_response
from memgate.domain import Chunk
from memgate.log import LogWriter
from memgate.loop import LoopConfig, run_loop
from memgate.queries import Query

class Model:
    def __init__(self): self.n = 0
    async def complete(self, messages, **kw):
        self.n += 1
        if self.n % 97 == 0: return Completion('not a gate')
        return Completion(gate_response(self.n % 5 == 0, f'memory line {self.n}\n' * 20, think='why ' * 30), 0.5)

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--logs', type=int, default=100)
    ap.add_argument('--turns', type=int, default=1000)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix='memgate-bench-') as d:
        run(Path(d), a.logs, a.turns)

def run(d: Path, logs: int, turns: int):
    "Write `logs` logs of `turns` turns into `d`, then time `load_runs` over them."
    print(f'writing {logs} logs x {turns} turns (about {1.8 * logs * turns / 1000:.0f} MB) into {d}, '
          'removed at the end', flush=True)
    chunks = [Chunk.from_text(i, f'[ToolResult] chunk {i} ' + 'output ' * 200) for i in range(1, turns + 1)]
    t0 = time.perf_counter()
    for i in range(logs):
        with LogWriter(d / f'q{i}.jsonl') as w:
            asyncio.run(run_loop(1, Query(f'q{i}', 'Q?'), chunks, LoopConfig(), Model(), w))
        if (i + 1) % 10 == 0 or i + 1 == logs:
            print(f'  {i + 1}/{logs} logs written, {time.perf_counter() - t0:.0f}s', flush=True)
    mb = sum(p.stat().st_size for p in d.iterdir()) / 2**20
    print(f'wrote {logs} logs x {turns} turns in {time.perf_counter() - t0:.1f}s ({mb:.0f} MB)')
    t0 = time.perf_counter()
    r = load_runs(d)
    dt = time.perf_counter() - t0
    print(f'load_runs: {len(r.events)} events, {len(r.turns)} turns, {len(r.runs)} runs in {dt:.1f}s '
          f'({len(r.turns) / dt:,.0f} turns/s)')

if __name__ == '__main__': main()
