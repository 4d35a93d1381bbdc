"""Resuming a complete log of 10,000 turns and more: seconds, and model calls (there should be none).

    python bench/resume.py      # builds the log once (the keyword baseline over 100 MB in 1000-token chunks), reused

The log is written by `memgate ingest` with the offline keyword baseline, so building it needs no server; the resume
runs against the scripted server, which counts the requests it gets.
"""
import argparse, json
from common import FakeServer, WORK, cores, memgate_cmd, project, run_child

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--mb', type=float, default=100)
    ap.add_argument('--chunk-tokens', type=int, default=1000)
    args = ap.parse_args()
    proj, logs = project(args.mb), WORK / f'resume-{args.mb:g}mb-{args.chunk_tokens}'
    common = ['--project', proj, '--query', 'infra-root-causes', '--log-dir', logs, '--chunk-tokens',
              args.chunk_tokens, '--quiet']
    log = logs / proj.name / 'infra-root-causes.jsonl'
    if not log.exists():
        wall, _, code, err = run_child(memgate_cmd('ingest', *common, '--model', 'keyword-baseline'))
        assert code == 0, err
        print(f"built the log in {wall:.0f} s")
    events = [json.loads(line) for line in log.open()]
    turns = sum(e['kind'] == 'gate' for e in events)
    with FakeServer() as s:
        wall, rss, code, err = run_child(memgate_cmd('ingest', *common, '--resume', '--base-url', s.url,
                                                     '--model', 'keyword-baseline'))
        calls = len(s.requests)
    assert code == 0, err
    print(f"resuming a complete log of {turns:,} turns ({log.stat().st_size / 2**20:.0f} MB, {len(events):,} events) "
          f"over a {args.mb:g} MB project: {wall:.2f} s, {calls} model calls, peak RSS {rss:.0f} MB ({cores()} cores)")
    print(err.strip().splitlines()[-1][:160])

if __name__ == '__main__': main()
