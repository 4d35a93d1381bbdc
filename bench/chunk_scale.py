"""`memgate chunks` over synthetic projects of growing size: raw MB/s of session files, and peak memory.

    python bench/chunk_scale.py 100 1000        # a 100 MB and a 1 GB project (built once, then reused)
    python bench/chunk_scale.py 100 --progress  # Claude Code 2.1-style sessions: three progress records a message

Each size runs `memgate chunks --project DIR` in a child process, as a user runs it. Peak memory is the largest
resident set of any one process (the command, or one of the workers that read a large project's sessions): a
figure that stays flat from 100 MB to 1 GB shows that reading streams.
"""
import argparse, sys
from common import build, cores, memgate_cmd, run_child, WORK

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('sizes', nargs='*', type=float, default=[100, 1000], help='project sizes in MB')
    ap.add_argument('--progress', action='store_true', help='Claude Code 2.1-style sessions (progress records)')
    args = ap.parse_args()
    rows = []
    for mb in args.sizes:
        target = WORK / f"synth-{mb:g}mb{'-progress' if args.progress else ''}"
        size = build(target, mb, progress=args.progress) / 2**20
        wall, rss, code, err = run_child(memgate_cmd('chunks', '--project', target))
        if code: sys.exit(err)
        rows.append((size, wall, rss))
        print(f"{size:7.0f} MB  {wall:6.1f} s  {size / wall:5.1f} MB/s  peak RSS {rss:4.0f} MB   "
              f"({err.strip().splitlines()[-1][:100]})", flush=True)
    if len(rows) > 1:
        (s0, w0, r0), (s1, w1, r1) = rows[0], rows[-1]
        print(f"{s1 / s0:.1f}x the size: {w1 / w0:.1f}x the time, {r1 / r0:.2f}x the peak memory ({cores()} cores)")

if __name__ == '__main__': main()
