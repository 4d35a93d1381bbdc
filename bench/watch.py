"""What `memgate watch` costs and how soon it follows: the bytes a pass reads after a big session grew, its CPU while
idle, and the seconds from a session's end (its hook) to its turns in the log, with the scripted model.

    python bench/watch.py [--mb 1000] [--grow-mb 1] [--idle 60]

Each figure is measured on a child process: bytes as the kernel counts what it read (`/proc/<pid>/io`, rchar;
with `strace` on the machine, also by file: the session's bytes apart from the logs'), CPU as its user and system
time (`/proc/<pid>/stat`).
"""
import argparse, json, os, re, shutil, subprocess, sys, tempfile, time
from collections import Counter
from pathlib import Path
from common import FakeServer, cores, memgate_cmd

QUERY = 'infra-root-causes'
FILLER = ('the build log says: compiling module {i}, linking, running 412 tests, 3 skipped; ' * 12)

def rows(sid: str, start: int, n: int):
    "n user/assistant exchanges of session `sid`, numbered from `start`, about 2.4 KB each."
    for i in range(start, start + n):
        ts = f'2026-01-05T{i // 3600 % 24:02d}:{i // 60 % 60:02d}:{i % 60:02d}.000Z'
        for kind, text in (('user', f'step {i}: the deploy failed with a 502 from db{i % 7}'),
                           ('assistant', FILLER.format(i=i))):
            yield json.dumps(dict(type=kind, timestamp=ts, sessionId=sid, cwd='/home/dev/shop',
                                  uuid=f'{sid}-{kind}-{i}', parentUuid=None,
                                  message=dict(role=kind, content=text))) + '\n'

def write(path: Path, sid: str, start: int, mb: float) -> int:
    "Append about `mb` MB of exchanges to `path`; the next exchange's number."
    with open(path, 'a') as f:
        i, size = start, 0
        while size < mb * 2**20:
            line = ''.join(rows(sid, i, 1))
            f.write(line)
            size, i = size + len(line), i + 1
    return i

# the watch in a child that says, as it ends, what the kernel counted it read
COUNTED = ("import resource, sys; from memgate.cli import main; code = main(sys.argv[1:]); "
           "rss = max(resource.getrusage(w).ru_maxrss for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)); "
           "sys.stderr.write(f'\\nRSS {rss} KB'); "
           "sys.stderr.write('\\nIO ' + open('/proc/self/io').read().replace('\\n', ' ')); sys.exit(code)")

def peak_mb(stderr: str) -> float:
    "The peak resident memory a child said it reached (its own or a worker's), in MB."
    return int(stderr.rsplit('RSS ', 1)[1].split()[0]) / 1024

def read_bytes(*args, trace: Path | None = None) -> tuple[int, str, Counter]:
    "(bytes the child read, its stderr, bytes by file when `trace` names where strace writes) of `memgate ARGS`."
    strace = ['strace', '-f', '-y', '-e', 'trace=read,pread64', '-o', str(trace)] if trace else []
    r = subprocess.run([*strace, sys.executable, '-c', COUNTED, *map(str, args)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]
    counted = r.stderr.rsplit('IO ', 1)[1]
    by_file = Counter()
    for line in (trace.read_text().splitlines() if trace else []):
        if m := re.search(r'read64\(\d+<([^>]*)>.*= (\d+)$|read\(\d+<([^>]*)>.*= (\d+)$', line):
            by_file[m[1] or m[3]] += int(m[2] or m[4])
    return int(counted.split('rchar: ', 1)[1].split()[0]), r.stderr, by_file

def cpu_s(pid: int) -> float:
    "User and system CPU seconds of process `pid` so far."
    fields = Path(f'/proc/{pid}/stat').read_text().rsplit(')', 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--mb', type=float, default=1000, help='the big session, in MB')
    ap.add_argument('--grow-mb', type=float, default=1, help='what it grows by')
    ap.add_argument('--idle', type=float, default=60, help='seconds of idle watching measured')
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix='memgate-watch-'))
    proj, logs, state = work / 'proj', work / 'logs', work / 'state'
    proj.mkdir()
    env = {**os.environ, 'MEMGATE_STATE_DIR': str(state)}
    os.environ.update(MEMGATE_STATE_DIR=str(state))
    big = proj / 'big.jsonl'
    nxt = write(big, 'big', 0, args.mb)
    old = time.time() - 3600
    os.utime(big, (old, old))
    common = ('watch', '--project', proj, '--log-dir', logs, '--model', 'keyword-baseline', '--query', QUERY,
              '--quiet', '--quiet-time', '1')
    first, said_first, _ = read_bytes(*common, '--once')
    still, _, _ = read_bytes(*common, '--once')          # nothing new: what a pass reads to start (Python's own)
    write(big, 'big', nxt, args.grow_mb)
    os.utime(big, (old + 60, old + 60))
    trace = work / 'strace.txt' if shutil.which('strace') else None
    again, said, by_file = read_bytes(*common, '--once', trace=trace)
    grown = (again - still) / 2**20
    print(f"a {args.mb:g} MB session grown by {args.grow_mb:g} MB: the pass after it read {grown:.1f} MB more than "
          f"a pass with nothing new ({grown / (args.mb + args.grow_mb):.3f} times the file; the first pass "
          f"{(first - still) / 2**20:.1f} MB, a pass with nothing new {still / 2**20:.1f} MB)")
    print(f"  peak memory: the first pass {peak_mb(said_first):.0f} MB, the pass after the growth "
          f"{peak_mb(said):.0f} MB")
    if by_file:
        logs_read = sum(n for f, n in by_file.items() if f.startswith(str(logs)))
        print(f"  of it, the session file: {by_file[str(big)] / 2**20:.2f} MB; the logs: {logs_read / 2**20:.1f} MB "
              f"(their size {sum(p.stat().st_size for p in logs.rglob('*.jsonl')) / 2**20:.1f} MB)")
    # idle: a settled project, the watch waiting
    watch = subprocess.Popen(memgate_cmd(*common), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(5)
    t0 = cpu_s(watch.pid)
    time.sleep(args.idle)
    idle = cpu_s(watch.pid) - t0
    watch.terminate()
    watch.wait(timeout=60)
    print(f"idle watching: {idle:.2f} CPU s over {args.idle:g} s ({100 * idle / args.idle:.2f}% of a core)")
    # from a session's end (its hook) to its turns logged, the scripted model answering in 0.05 s
    small = work / 'small'
    small.mkdir()
    with FakeServer(latency=0.05) as s:
        model = ('--base-url', s.url, '--model', 'test-model', '--query', QUERY, '--quiet')
        watch = subprocess.Popen(memgate_cmd('watch', '--project', small, '--log-dir', work / 'small-logs', *model,
                                             '--quiet-time', '600'), env=env, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL)
        took = []
        for k in range(3):
            f = small / f's{k}.jsonl'
            write(f, f's{k}', 1000 * k, 0.01)
            time.sleep(3)                                        # the watch sees it, not yet done
            t0 = time.monotonic()
            payload = json.dumps(dict(session_id=f's{k}', transcript_path=str(f), hook_event_name='SessionEnd'))
            subprocess.run(memgate_cmd('hook'), input=payload, text=True, env=env, check=True)
            log = next((work / 'small-logs').rglob(f'{QUERY}.jsonl'), None)
            while not (log and f's{k}.jsonl' in log.read_text()):
                time.sleep(0.02)
                log = log or next((work / 'small-logs').rglob(f'{QUERY}.jsonl'), None)
            took.append(time.monotonic() - t0)
        watch.terminate()
        watch.wait(timeout=60)
    print(f"from a session's end hook to its turns logged: {', '.join(f'{t:.2f}' for t in took)} s "
          f"(the model 0.05 s a call; {cores()} cores)")
    print(f"(scratch folder {work}: remove it when done)")

if __name__ == '__main__': main()
