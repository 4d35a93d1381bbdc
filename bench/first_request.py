"""Seconds from starting `memgate ingest` to the model's first request, on a synthetic project of N MB.

    python bench/first_request.py --mb 1000

The scripted OpenAI-compatible server runs in this process on 127.0.0.1 and notes when each request arrives; memgate
runs in a child process, with every default query. Before issue 13 a run read and chunked the whole project once just
to count its chunks before the first call.
"""
import argparse, shutil, tempfile, time
from pathlib import Path
from common import FakeServer, cores, memgate_cmd, project, run_child

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--mb', type=float, default=1000)
    args = ap.parse_args()
    proj, out = project(args.mb), Path(tempfile.mkdtemp())
    with FakeServer(latency=0.1) as s:
        start = time.monotonic()
        wall, _, code, err = run_child(memgate_cmd('ingest', '--project', proj, '--base-url', s.url, '--model',
                                                   'test-model', '--limit', '2', '--log-dir', out, '--quiet'))
        first = s.arrivals[0] - start if s.arrivals else float('nan')
    assert code == 0, err
    print(f"{args.mb:g} MB project, 4 queries: first model request {first:.2f} s after start "
          f"(the run of 2 turns each took {wall:.1f} s; {cores()} cores)")
    shutil.rmtree(out)

if __name__ == '__main__': main()
