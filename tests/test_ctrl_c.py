"""Ctrl-C at any moment of the `memgate` command, from its entry point on, is one line and exit 130, and is never
ignored (issue 49: in 353 tries in the first 0.3 s, some were tracebacks from an import, a dataclass or the event
loop, and 2 were ignored). `bench/sigint.py` sends a few hundred; these send a few, at fixed random instants."""
import asyncio, os, random, re, signal, subprocess, sys, time
import pytest
from pathlib import Path
from conftest import FIXTURES
from memgate.display import Progress
from memgate.ingest import IngestPlan
from memgate.log import verify
from memgate.pipeline import ClientOptions, make_clients, run_ingest
from memgate.queries import load_queries
from memgate.testing import FakeServer
from helpers import clean_env, cli

# the console command's script, with one byte written to a pipe just before `memgate.entry.main` runs
STARTED = "import os, sys; from memgate.entry import main; os.write(int(sys.argv.pop(1)), b'.'); sys.exit(main())"
# anything of Python's own on stderr
# Linux's flag of a process whose exit has begun (/proc/PID/stat, field 9)
PF_EXITING = 0x4
NOISE = re.compile(r'Traceback|Exception ignored|Fatal Python error|Error|Warning|never awaited')

def started(*args) -> subprocess.Popen:
    "`memgate ARGS` in a new process, returned once its entry point runs."
    r, w = os.pipe()
    p = subprocess.Popen([sys.executable, '-c', STARTED, str(w), *map(str, args)], pass_fds=(w,), text=True,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=clean_env())
    os.close(w)
    assert os.read(r, 1) == b'.'
    os.close(r)
    return p

def running(p) -> bool:
    "Whether `p` has not ended yet (it is not waited for: a signal sent now reaches it)."
    return os.waitid(os.P_PID, p.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is None

def exiting(p) -> bool:
    "Whether `p` has ended or is ending: the kernel tears a process down for a while, deaf to signals."
    try: stat = Path(f'/proc/{p.pid}/stat').read_text()
    except OSError: return not running(p)
    return stat.rsplit(')', 1)[1].split()[0] in 'ZX' or bool(int(stat.rsplit(')', 1)[1].split()[6]) & PF_EXITING)

@pytest.mark.parametrize('delay', [round(random.Random(seed).uniform(0, 1), 3) for seed in range(6)])
def test_ctrl_c_at_a_random_instant_of_the_first_second_is_one_line_and_130(tmp_path, delay):
    "Three of these land while memgate.cli is imported, three while the runs go; each is told once, without noise."
    p = started('ingest', '--project', FIXTURES / 'transcripts', '--model', 'keyword-baseline', '--limit', '3',
                '--log-dir', tmp_path)
    time.sleep(delay)
    # (not `send_signal`, which reaps a process that just ended and then sends nothing)
    sent = running(p) and not exiting(p)
    if sent: os.kill(p.pid, signal.SIGINT)
    # one that was ending as it was sent may have ended first; one not yet ending after it had it
    had_it = sent and not exiting(p)
    out, err = p.communicate(timeout=120)
    lines = err.splitlines()
    told = [line for line in lines if line == 'memgate: interrupted' or line.startswith('SIGINT: ')]
    may = [(130, 1)] if had_it else [(130, 1), (0, 0)] if sent else [(0, 0)]
    assert (p.returncode, len(told)) in may and not NOISE.search(err), err
    # before the run said anything, the one line is all
    if 'model calls' not in err: assert lines == ['memgate: interrupted'] and out == '', err
    for log in tmp_path.rglob('*.jsonl'): assert verify(log).ok, log

def test_a_ctrl_c_as_the_answer_is_asked_is_not_ignored(tmp_path):
    "The run was complete when Ctrl-C came, and the answer was still given: the exit says the Ctrl-C (it was 0)."
    with FakeServer(latency=1.0) as s:
        p = subprocess.Popen(cli('ingest', '--project', FIXTURES / 'transcripts', '--base-url', s.url, '--model',
                                 'test-model', '--query', 'conventions', '--limit', '1', '--answer', '--log-dir',
                                 tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=clean_env())
        while len(s.requests) < 2: time.sleep(0.02)        # the one turn answered, the question asked
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=60)
    assert p.returncode == 130 and '  complete' in out and '  answer: ' in out, err
    assert 'SIGINT: finishing the turns in flight' in err and not NOISE.search(err), err

def test_a_ctrl_c_as_the_run_ends_with_no_turn_of_the_loop_after_it_is_noted(tmp_path, monkeypatch):
    "The loop's own handlers read a signal on its next turn: one that came as the run returned was lost, exit 0."
    noted = []
    async def ends_as_ctrl_c_comes(*args):
        os.kill(os.getpid(), signal.SIGINT)
        noted.append(list(caught))          # before any turn of the loop
        return [], {}
    monkeypatch.setattr('memgate.pipeline.ingest_then_answer', ends_as_ctrl_c_comes)
    said, caught = [], []
    plan = IngestPlan(str(FIXTURES / 'transcripts'), [load_queries()['conventions']], tmp_path, limit=1,
                      model='keyword-baseline')
    got = asyncio.run(run_ingest(plan, None, None, Progress('quiet', said.append), False, asyncio.Event(), caught))
    assert (got, noted, caught) == (([], {}), [['SIGINT']], ['SIGINT'])
    assert said == ['SIGINT: finishing the turns in flight, then stopping (Ctrl-C again to cancel now)']

def test_run_ingest_gives_ctrl_c_back_to_whoever_held_it(tmp_path):
    "The event loop's removal of its handler puts Python's default back; the entry point's must come back instead."
    def held(signum, frame): pass
    was = signal.signal(signal.SIGINT, held)
    try:
        plan = IngestPlan(str(FIXTURES / 'transcripts'), [load_queries()['conventions']], tmp_path, limit=1,
                          model='keyword-baseline')
        factory, close, _ = make_clients(ClientOptions(model='keyword-baseline'), print)
        got = asyncio.run(run_ingest(plan, factory, close, Progress('quiet', lambda m: None), False,
                                     asyncio.Event(), []))
        assert signal.getsignal(signal.SIGINT) is held and [r.status for r in got[0]] == ['complete']
    finally: signal.signal(signal.SIGINT, was)

# `memgate.entry.main` run with `memgate.cli.main` replaced by a `main` that meets a Ctrl-C at a chosen moment
AT_A_MOMENT = """import os, signal, sys, time
import memgate.cli
def ctrl_c():
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(2)
{code}
memgate.cli.main = main
from memgate.entry import main
sys.exit(main())
"""
MOMENTS = {                                   # each the body of that `main`
    'swallowed by code that goes on': '''
    try: ctrl_c()
    except KeyboardInterrupt: pass
    return 0''',
    # Python 3.11 raises RuntimeError('Error calling __set_name__ …') from it
    'as a class is set up': '''
    class Interrupting:
        def __set_name__(self, owner, name): ctrl_c()
    class LoopConfig:
        sampling = Interrupting()''',
    'with a coroutine never awaited': '''
    async def run_ingest(): pass
    coro = run_ingest()
    try: ctrl_c()
    except KeyboardInterrupt: return 0''',
    'as the process ends, after the code was returned': '''
    import atexit
    atexit.register(ctrl_c)
    return 0''',
}

@pytest.mark.parametrize('moment', MOMENTS)
def test_a_ctrl_c_at_an_awkward_moment_is_one_line_and_130(moment):
    "Before: exit 0 (swallowed, at exit), a RuntimeError's traceback, a RuntimeWarning, a KeyboardInterrupt's."
    code = AT_A_MOMENT.format(code='def main():' + MOMENTS[moment])
    r = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, timeout=60, env=clean_env())
    assert (r.returncode, r.stderr) == (130, 'memgate: interrupted\n')
