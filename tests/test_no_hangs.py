"No hangs: a request has one deadline, options are checked up front, Ctrl-C and SIGTERM stop every kind of run."
import shutil, signal, subprocess, time
import pytest
from conftest import FIXTURES
from memgate.testing import FakeServer
from memgate.log import read_log, verify
from helpers import clean_env, cli, memgate

PROJECT, Q = str(FIXTURES / 'transcripts'), 'conventions'

cmd, env, run = cli, clean_env, memgate

def events(log_dir, q=Q): return read_log(log_dir / 'transcripts' / f'{q}.jsonl').events

def test_a_trickling_server_meets_the_request_deadline(tmp_path):
    with FakeServer(faults=['trickle'] * 5) as s:
        r = run('ingest', '--project', PROJECT, '--base-url', s.url, '--model', 'test-model', '--query', Q,
                '--log-dir', tmp_path, '--timeout', '2', '--retries', '1', '--retry-wait', '0.01', timeout=60)
    assert r.returncode == 1 and len(s.requests) == 2                      # one try and one retry, no more
    assert 'gave up after 2 tries; last: no whole answer within 2s' in r.stderr
    assert events(tmp_path)[-1]['status'] == 'failed'

@pytest.mark.parametrize('option,value,message', [
    ('--concurrency', '0', "argument --concurrency: 0 is below 1"),
    ('--concurrency', '-1', "argument --concurrency: -1 is below 1"),
    ('--limit', '-3', "argument --limit: -3 is below 1"),
    ('--chunk-tokens', '0', "argument --chunk-tokens: 0 is below 200"),
    ('--retries', 'many', "argument --retries: 'many' is not a whole number"),
    ('--timeout', 'nan', "argument --timeout: nan is not a positive number of seconds"),
])
def test_a_bad_option_value_is_one_line(tmp_path, option, value, message):
    r = run('ingest', '--project', PROJECT, '--model', 'keyword-baseline', '--log-dir', tmp_path, option, value)
    assert r.returncode == 2 and r.stderr == f"memgate ingest: error: {message} (see memgate ingest --help)\n"

def test_a_url_with_an_impossible_port_is_one_line(tmp_path):
    r = run('ingest', '--project', PROJECT, '--base-url', 'http://127.0.0.1:99999/v1', '--model', 'm',
            '--log-dir', tmp_path)
    assert r.returncode == 2 and r.stderr.splitlines() == [
        "memgate ingest: error: base URL 'http://127.0.0.1:99999/v1': port 99999 is out of range"]

def test_retries_zero_means_one_try(tmp_path):
    with FakeServer(faults=['500'] * 3) as s:
        r = run('ingest', '--project', PROJECT, '--base-url', s.url, '--model', 'test-model', '--query', Q,
                '--log-dir', tmp_path, '--retries', '0')
    assert r.returncode == 1 and len(s.requests) == 1 and 'gave up after 1 try;' in r.stderr

def big_project(tmp_path, copies=8):
    "The bundled sessions, copied `copies` times: enough chunks that a run is still going when a signal comes."
    for i in range(copies): shutil.copytree(FIXTURES / 'transcripts', tmp_path / 'transcripts' / f'c{i}')
    return tmp_path / 'transcripts'

@pytest.mark.parametrize('sig,code', [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_the_keyword_baseline_stops_on_a_signal(tmp_path, sig, code):
    project = big_project(tmp_path)
    p = subprocess.Popen(cmd('ingest', '--project', project, '--model', 'keyword-baseline', '--log-dir',
                             tmp_path / 'runs'), stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env())
    while not p.stderr.readline().startswith(f'{Q} ['): pass              # the runs have started
    p.send_signal(sig)
    out, err = p.communicate(timeout=60)
    assert p.returncode == code, err
    for q in ('infra-root-causes', 'conventions'):
        ev = events(tmp_path / 'runs', q)
        assert ev[-1]['kind'] == 'run_end' and ev[-1]['status'] == 'interrupted'
        assert ev[-1]['chunks_seen'] < 31 * 8 and verify(tmp_path / 'runs' / 'transcripts' / f'{q}.jsonl').ok

def test_ctrl_c_during_a_failing_request_stops_its_retries(tmp_path):
    with FakeServer(faults=['500'] * 50) as s:
        p = subprocess.Popen(cmd('ingest', '--project', PROJECT, '--base-url', s.url, '--model', 'test-model',
                                 '--query', Q, '--log-dir', tmp_path, '--retries', '10', '--retry-wait', '30'),
                             stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env())
        while 'retrying in' not in p.stderr.readline(): pass                  # waiting before its second try
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=30)
        assert len(s.requests) == 1
    assert p.returncode == 130, err
    assert events(tmp_path)[-1]['status'] == 'interrupted' and 'failed' not in out

def test_ctrl_c_while_the_sessions_are_read_stops_at_once_without_a_traceback(tmp_path):
    project = big_project(tmp_path, copies=40)
    for pause in (0.0, 0.5):            # as reading starts (the cost line is said just before), and as it goes on
        p = subprocess.Popen(cmd('ingest', '--project', project, '--model', 'keyword-baseline', '--log-dir',
                                 tmp_path / f'runs{pause}'), stderr=subprocess.PIPE, stdout=subprocess.PIPE,
                             text=True, env=env())
        said = p.stderr.readline()
        assert 'model calls' in said, said
        time.sleep(pause)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=60)
        assert p.returncode == 130 and 'Traceback' not in err, err
        logs = sorted((tmp_path / f'runs{pause}').rglob('*.jsonl'))      # reading and the runs go on together
        assert len(logs) == 4 and all(verify(log).ok for log in logs), err
        assert {read_log(log).events[-1]['status'] for log in logs} == {'interrupted'}, err

def test_ctrl_c_while_memgate_is_still_importing_is_one_line(tmp_path):
    exe = shutil.which('memgate')
    assert exe, 'the memgate command is installed with the package'
    p = subprocess.Popen([exe, 'ingest', '--project', PROJECT, '--model', 'keyword-baseline', '--log-dir', tmp_path],
                         stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env())
    try: p.wait(timeout=0.15)                     # memgate.cli takes about 0.2 s to import
    except subprocess.TimeoutExpired: p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=60)
    assert p.returncode == 130 and 'Traceback' not in err, err

def test_a_feed_that_ends_after_the_run_closed_its_loop_raises_nothing(tmp_path):
    "Ctrl-C tears the event loop down while the reading thread still runs: its last words must find no closed loop."
    import asyncio, threading
    from memgate.feed import ChunkFeed
    from memgate.projects import load_project
    feed = ChunkFeed(load_project(PROJECT), 5000)
    feed.subscribe()
    feed.loop = asyncio.new_event_loop()
    feed.loop.close()                                        # the run ended (Ctrl-C) before the thread did
    failures = []
    hook, threading.excepthook = threading.excepthook, lambda a: failures.append(a.exc_value)
    try:
        t = threading.Thread(target=feed._read, name='memgate-chunks')
        t.start()
        t.join(60)
    finally: threading.excepthook = hook
    assert failures == [] and feed.done                     # before: RuntimeError: Event loop is closed

@pytest.mark.parametrize('after', [0.3, 1.0, 2.5])
def test_ctrl_c_at_any_moment_of_a_pooled_run_prints_no_traceback(tmp_path, after):
    "21 copies of the bundled sessions (33 MB: read by worker processes), the keyword baseline, SIGINT `after` s."
    project = big_project(tmp_path, copies=21)
    p = subprocess.Popen(cmd('ingest', '--project', project, '--model', 'keyword-baseline', '--log-dir',
                             tmp_path / 'runs', '--quiet'), stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                         env=env())
    time.sleep(after)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=120)
    assert p.returncode in (0, 130) and 'Traceback' not in err and 'Error' not in err, err
    for log in (tmp_path / 'runs').rglob('*.jsonl'): assert verify(log).ok, log
