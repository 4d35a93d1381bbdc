"""Where memgate's own time per turn goes, against the scripted streaming server at 0 ms: a profile split by stage.

    python bench/turn_profile.py --mb 10        # a 10 MB synthetic project, one query, streaming on

memgate runs in a child process under cProfile (which slows Python code, so the shares count, not the absolute
figures: `turn_overhead.py` gives those). Each stage is the cumulative time of the functions that do it, divided by
the turns: the prompt built, the request sent and its answer streamed in (the SSE events read and folded, which is
memgate's work inside what a log calls model latency), the answer parsed and resolved, the log written (fsync
included), the progress line. `other` is the rest of the run: reading and chunking the project, the event loop.
"""
import argparse, pstats, shutil, tempfile
from pathlib import Path
from common import FakeServer, memgate_cmd, project, run_child, cores
from turn_overhead import own_ms_per_turn

STAGES = [('build the prompt', 'prompt.py', 'build_prompt'),
          ('request and stream', 'client.py', '_send'),
          ('  of which: SSE events read', 'client.py', 'next'),
          ('  of which: events folded (JSON)', 'client.py', 'add'),
          ('parse and resolve', 'loop.py', 'resolve_turn'),
          ('  of which: the gate parser', 'parser.py', 'parse_gate_response'),
          ('write the log (fsync)', 'log.py', 'write'),
          ('  of which: fsync', '~', '<built-in method posix.fsync>'),
          ('progress line', 'ingest.py', 'line')]

def cumulative(stats: dict, file: str, name: str) -> float:
    "The cumulative seconds of function `name` of `file` (the largest, for a recursive one)."
    return max((v[3] for (f, _, fn), v in stats.items() if fn == name and f.endswith(file)), default=0.0)

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--mb', type=float, default=10)
    args = ap.parse_args()
    proj, out = project(args.mb), Path(tempfile.mkdtemp())
    prof = out / 'run.prof'
    # progress on (a line per turn, to a pipe), as a run off a terminal shows it
    cmd = memgate_cmd('ingest', '--project', proj, '--query', 'infra-root-causes', '--log-dir', out)
    cmd[1:3] = ['-m', 'cProfile', '-o', str(prof), '-m', 'memgate.cli']
    with FakeServer() as s:
        wall, _, code, err = run_child(cmd + ['--base-url', s.url, '--model', 'test-model'])
    assert code == 0, err
    turns, elapsed, own = own_ms_per_turn(next(out.rglob('infra-root-causes.jsonl')))
    stats = pstats.Stats(str(prof)).stats
    total = max(v[3] for v in stats.values())
    print(f"{args.mb:g} MB project, {turns} turns at 0 ms a call, streamed ({cores()} cores), under cProfile: "
          f"{1000 * total / turns:.2f} ms per turn in all (without the profiler: {own:.2f} ms of memgate's own)")
    for label, file, name in STAGES:
        s = cumulative(stats, file, name)
        print(f"  {label:34s} {1000 * s / turns:6.2f} ms per turn  {100 * s / total:5.1f}%")
    shutil.rmtree(out)

if __name__ == '__main__': main()
