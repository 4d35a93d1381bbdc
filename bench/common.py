"What the bench scripts share: the synthetic projects, the scripted server, a child's time and peak memory."
import os, subprocess, sys, time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
from synth_project import build  # bench/ is where a bench script runs from
from memgate.testing import FakeServer  # noqa: F401

WORK = Path(os.environ.get('MEMGATE_BENCH_DIR', '/tmp/memgate-bench'))

def project(mb: float) -> Path:
    "A synthetic project of `mb` MB (built once under MEMGATE_BENCH_DIR, default /tmp/memgate-bench, then reused)."
    target = WORK / f'synth-{mb:g}mb'
    build(target, mb)
    return target

def memgate_cmd(*args) -> list[str]:
    "The command line of the installed memgate, with this interpreter."
    return [sys.executable, '-c', 'import sys; from memgate.entry import main; sys.exit(main())', *map(str, args)]

def run_child(cmd, **kw) -> tuple[float, float, int, str]:
    "(wall seconds, peak RSS in MB, exit code, stderr) of running `cmd` to its end; stdout is discarded."
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, **kw)
    err = p.stderr.read()
    _, status, usage = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    return time.monotonic() - t0, usage.ru_maxrss / 1024, p.returncode, err

def cores() -> int:
    "CPU cores this process may use."
    return len(os.sched_getaffinity(0))
