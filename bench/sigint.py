"""Ctrl-C at a random instant of memgate's first second (issue 49): how often the answer is one line and exit 130.

    python bench/sigint.py                  # 300 tries, seed 0
    python bench/sigint.py --tries 50 --seed 7 --window 0.4

Each try runs `memgate ingest --project fixtures/transcripts --model keyword-baseline --limit 3` (offline, about 1.3 s)
as the console command runs it, plus one byte written to a pipe just before `memgate.entry.main` is called: the
instant memgate's entry point runs (the interpreter's own start-up, before it, is not timed). SIGINT is sent a
uniformly random delay in [0, window) after that byte. Outcomes:

- clean: exit 130, nothing of Python's (no traceback, `Exception ignored`, warning, fatal error) on stderr, the
  interrupt told in one line (`memgate: interrupted`, or the run's own `SIGINT: finishing the turns in flight…`), and
  stderr exactly that one line when the run had said nothing before it;
- ignored: exit 0 although the signal was sent while the process ran;
- killed: ended by the signal itself (returncode -2: the shell's 130, but no word);
- noisy: something of Python's on stderr; other: any other exit code or stderr;
- late: the process had already ended, or its exit had begun (Linux's flag in /proc/PID/stat: the kernel tears a
  process down for some ms, deaf to signals), when the signal was due (not sent; not counted in the ratios).
"""
import argparse, os, random, re, signal, subprocess, sys, tempfile, time
from collections import Counter
from common import ROOT

# the console command's own script (`from memgate.entry import main; sys.exit(main())`), with the byte before main
CHILD = ("import os, sys; from memgate.entry import main; os.write(int(os.environ['BENCH_READY_FD']), b'.'); "
         "sys.exit(main())")
NOISE = re.compile(r'Traceback|Exception ignored|Fatal Python error|Error|Warning|never awaited|^\s+File "', re.M)
TOLD = re.compile(r'^(memgate: interrupted|SIGINT: .*)$', re.M)

def kind(code: int, err: str) -> str:
    "The outcome of one try from its exit code and stderr (see the module's doc)."
    if code == 0: return 'ignored'
    if code == -signal.SIGINT and not NOISE.search(err): return 'killed'
    if NOISE.search(err): return 'noisy'
    told = TOLD.findall(err)
    said_before = 'model calls' in err           # the cost line: the run had started speaking
    if code == 130 and len(told) == 1 and (said_before or err.splitlines() == told): return 'clean'
    return 'other'

def ending(p) -> bool:
    "Whether `p` has ended or its exit has begun (field 9 of /proc/PID/stat holds PF_EXITING, 0x4)."
    if os.waitid(os.P_PID, p.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None: return True
    try: fields = open(f'/proc/{p.pid}/stat').read().rsplit(')', 1)[1].split()
    except OSError: return False
    return fields[0] in 'ZX' or bool(int(fields[6]) & 0x4)

def one_try(rng: random.Random, window: float, log_dir: str) -> tuple[str, float, int, str]:
    "(outcome, delay in s, exit code, stderr) of one run sent SIGINT a random delay after its entry point ran."
    r, w = os.pipe()
    cmd = [sys.executable, '-c', CHILD, 'ingest', '--project', str(ROOT / 'fixtures' / 'transcripts'), '--model',
           'keyword-baseline', '--limit', '3', '--log-dir', log_dir]
    env = {k: v for k, v in os.environ.items() if not k.startswith(('MEMGATE_', 'OPENAI_'))}
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, pass_fds=(w,),
                         env=dict(env, BENCH_READY_FD=str(w)))
    os.close(w)
    started = os.read(r, 1)
    os.close(r)
    delay, late = rng.uniform(0, window), False
    if started:
        time.sleep(delay)
        # not yet ended (WNOWAIT: still there to be waited for) nor ending: the signal reaches a running process
        if not ending(p): os.kill(p.pid, signal.SIGINT)
        else: started = b''
        # ending just after: it may have begun first, and was deaf to it
        late = ending(p)
    _, err = p.communicate(timeout=120)
    what = kind(p.returncode, err) if started else 'late'
    return ('late' if what == 'ignored' and late else what), delay, p.returncode, err

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--tries', type=int, default=300)
    ap.add_argument('--seed', type=int, default=0)
    ap.add_argument('--window', type=float, default=1.0, help='seconds after the entry point ran (default 1)')
    args = ap.parse_args()
    rng, counts, seen = random.Random(args.seed), Counter(), {}
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix='memgate-bench-sigint-') as tmp:
        for i in range(args.tries):
            what, delay, code, err = one_try(rng, args.window, f'{tmp}/runs{i}')
            counts[what] += 1
            if what not in ('clean', 'late') and what not in seen:
                seen[what] = f"  first {what} (SIGINT at {delay:.3f} s, exit {code}): {err.strip()[-600:]!r}"
    sent = args.tries - counts['late']
    print(f"{args.tries} tries, SIGINT at a random instant of the first {args.window:g} s after memgate's entry point "
          f"ran (seed {args.seed}), {time.monotonic() - t0:.0f} s:")
    for what in ('clean', 'ignored', 'noisy', 'killed', 'other'):
        print(f"  {what:8s} {counts[what]:4d}  {counts[what] / max(sent, 1):6.1%}")
    print(f"  late     {counts['late']:4d}  (the run had ended before its signal; not sent)")
    for line in seen.values(): print(line)

if __name__ == '__main__': main()
