"""How long memgate takes to start: `memgate --help` and `memgate verify` against a bare `python -c pass`.

    python bench/start.py
"""
import statistics, subprocess, sys, time
from common import ROOT

def median_s(cmd, n: int = 9) -> float:
    "The median wall time of running `cmd` `n` times."
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        subprocess.run(cmd, capture_output=True, check=False)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)

def main():
    bare = median_s([sys.executable, '-c', 'pass'])
    run = [sys.executable, '-c', 'import sys; from memgate.entry import main; sys.exit(main())']
    log = ROOT / 'fixtures' / 'runs' / 'scripted' / 'transcripts' / 'infra-root-causes.jsonl'
    for name, args in (('memgate --help', ['--help']), ('memgate verify', ['verify', str(log)])):
        t = median_s(run + args)
        print(f"{name:16s} {t:.3f} s, {t - bare:.3f} s above a bare python -c pass ({bare:.3f} s)")
    heavy = subprocess.run(run[:2] + [run[2].replace('sys.exit(main())', 'main()') + "; print(sorted(m for m in "
                           "('tiktoken', 'pandas', 'matplotlib') if m in sys.modules))", 'verify', str(log)],
                           capture_output=True, text=True).stdout.strip().splitlines()[-1]
    print(f"heavy modules imported by memgate verify: {heavy}")

if __name__ == '__main__': main()
