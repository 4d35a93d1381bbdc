"""Wall time of one query and of eight over the same project, against a scripted model of fixed latency.

    python bench/queries.py --mb 5 --latency 0.1 --concurrency 8

Eight queries read the project once (one chunk stream) and their requests overlap up to `--concurrency`, so eight
should take little longer than one: the goal is 1.2x at most.
"""
import argparse, shutil, tempfile, tomllib
from pathlib import Path
from common import FakeServer, cores, memgate_cmd, project, run_child
from memgate.domain import templates_dir

def queries_file(folder: Path, n: int) -> Path:
    "A queries.toml of `n` queries: the default four, repeated under new names."
    base = tomllib.loads((templates_dir() / 'queries.toml').read_text())
    names = [(f'{q}-{i}', q) for i in range(n // len(base) + 1) for q in base][:n]
    text = ''.join(f'[{new}]\nquestion = {base[q]["question"]!r}\n\n' for new, q in names)
    (folder / 'queries.toml').write_text(text.replace("'", '"'))
    return folder / 'queries.toml'

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--mb', type=float, default=5)
    ap.add_argument('--latency', type=float, default=0.1)
    ap.add_argument('--concurrency', type=int, default=8)
    args = ap.parse_args()
    proj, work = project(args.mb), Path(tempfile.mkdtemp())
    times = {}
    for n in (1, 8):
        with FakeServer(latency=args.latency) as s:
            wall, _, code, err = run_child(memgate_cmd(
                'ingest', '--project', proj, '--base-url', s.url, '--model', 'test-model', '--quiet',
                '--queries', queries_file(work, n), '--log-dir', work / f'runs{n}', '--concurrency', args.concurrency))
            assert code == 0, err
            times[n] = (wall, len(s.requests))
    (w1, r1), (w8, r8) = times[1], times[8]
    print(f"{args.mb:g} MB project at {1000 * args.latency:.0f} ms a call, --concurrency {args.concurrency} "
          f"({cores()} cores): 1 query {w1:.1f} s ({r1} calls), 8 queries {w8:.1f} s ({r8} calls): {w8 / w1:.2f}x")
    shutil.rmtree(work)

if __name__ == '__main__': main()
