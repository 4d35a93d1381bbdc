"""Chunk a large project built by repeating the bundled real sessions, and report time and peak memory.

    python bench/chunk_scale.py --mb 1024            # a 1 GB project (built once under /tmp, reused)
    python bench/chunk_scale.py --mb 100 --no-redact # the same without secret redaction, to see what it costs

Peak memory is the process's maximum resident set size; a flat figure across sizes shows streaming works.
"""
import argparse, resource, shutil, sys, time
from pathlib import Path
from memgate.chunking import chunk_project
from memgate.sources import load_project

FIXTURES = Path(__file__).resolve().parent.parent / 'fixtures' / 'transcripts'

def build(target: Path, mb: int) -> int:
    "Copy the real session files into `target` until it holds `mb` megabytes; returns the byte count."
    files = sorted(FIXTURES.rglob('*.jsonl'))
    size = sum(f.stat().st_size for f in target.rglob('*.jsonl')) if target.exists() else 0
    i = len(list(target.rglob('*.jsonl'))) if target.exists() else 0
    while size < mb * 2**20:
        for f in files:
            d = target / f'{i // 1000:04d}'
            d.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(f, d / f'{i:06d}-{f.name}')
            size += f.stat().st_size
            i += 1
    return size

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--mb', type=int, default=100)
    ap.add_argument('--dir', default='/tmp/memgate-bench')
    ap.add_argument('--no-redact', action='store_true', help='render without secret redaction')
    args = ap.parse_args()
    target = Path(args.dir) / f'{args.mb}mb'
    size = build(target, args.mb)
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    t0 = time.perf_counter()
    n = tokens = 0
    project = load_project(target, redact=not args.no_redact)
    for c in chunk_project(project):
        n += 1
        tokens += c.tokens
        if n % 5000 == 0: print(f'  {n} chunks, {time.perf_counter() - t0:.0f}s', file=sys.stderr)
    dt = time.perf_counter() - t0
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    mb = size / 2**20
    print(f"project {mb:.0f} MB in {len(project.sessions)} sessions: {n} chunks, {tokens / 1e6:.1f}M tokens "
          f"in {dt:.1f}s "
          f"({mb / dt:.1f} MB/s, {tokens / dt / 1e6:.2f}M tokens/s); peak RSS {rss:.0f} MB (start {rss0:.0f} MB)"
          + ('' if args.no_redact else '; secrets redacted'))
    print(project.warnings.summary().splitlines()[-1])

if __name__ == '__main__': main()
