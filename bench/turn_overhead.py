"""memgate's own work per turn, from the log of a real run: its elapsed time minus the model latencies it logged.

    python bench/turn_overhead.py --mb 10 --latency 0.1     # a 10 MB synthetic project, a scripted 100 ms model
    python bench/turn_overhead.py --profile out.prof         # and a cProfile of the memgate process

The model is the scripted OpenAI-compatible server of the tests, on 127.0.0.1, in this process (memgate runs in a
child process, as a user runs it), so the HTTP round trip, JSON bodies, parsing, hashing, log writes with their
fsync and progress lines are all counted, and only the waiting is not.
"""
import argparse, json, shutil, tempfile
from pathlib import Path
from common import FakeServer, memgate_cmd, project, run_child, cores

def own_ms_per_turn(log: Path) -> tuple[int, float, float]:
    "(turns, run seconds, memgate's own ms per turn) of the log's last run."
    events = [json.loads(line) for line in log.read_text().splitlines()]
    end = events[-1]
    turns = [e for e in events if e['kind'] in ('gate', 'parse_failed') and e['run'] == end['run']]
    waited = sum(e['latency_s'] for e in turns)
    return len(turns), end['elapsed_s'], 1000 * (end['elapsed_s'] - waited) / len(turns)

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--mb', type=float, default=10)
    ap.add_argument('--latency', type=float, default=0.1, help='seconds the scripted model takes per call')
    ap.add_argument('--profile', help='write a cProfile of the memgate process here')
    args = ap.parse_args()
    proj, out = project(args.mb), Path(tempfile.mkdtemp())
    cmd = memgate_cmd('ingest', '--project', proj, '--query', 'infra-root-causes', '--log-dir', out, '--quiet')
    if args.profile: cmd[1:3] = ['-m', 'cProfile', '-o', args.profile, '-m', 'memgate.cli']
    with FakeServer(latency=args.latency) as s:
        wall, rss, code, err = run_child(cmd + ['--base-url', s.url, '--model', 'test-model'])
    assert code == 0, err
    n, elapsed, own = own_ms_per_turn(next(out.rglob('infra-root-causes.jsonl')))
    share = f" = {own / (10 * args.latency):.1f}% of a call" if args.latency else ''
    print(f"{args.mb:g} MB project, {n} turns at {1000 * args.latency:.0f} ms a call ({cores()} cores): run "
          f"{elapsed:.1f}s, memgate's own work {own:.2f} ms per turn{share}; peak RSS {rss:.0f} MB")
    shutil.rmtree(out)

if __name__ == '__main__': main()
