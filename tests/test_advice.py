"What memgate advises after a failure: `--resume` only where a resume can cure it, and the words that help otherwise."
import socket
import pytest
from helpers import ROOT, memgate
from memgate.log import LogWriter
from memgate.testing import FakeServer

PROJECT = ROOT / 'fixtures' / 'transcripts'
Q = 'infra-root-causes'

def ingest(url, log_dir, *args, **env):
    return memgate('ingest', '--project', PROJECT, '--query', Q, '--limit', '2', '--base-url', url,
                   '--model', 'test-model', '--log-dir', log_dir, *args, **env)

def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]

def unkeyed(tmp):
    with FakeServer(api_key='sk-the-servers-own') as s: return ingest(s.url, tmp / 'runs')

def unknown_model(tmp):
    with FakeServer() as s: return ingest(s.url, tmp / 'runs', '--model', 'no-such-model')

def log_folder_a_file(tmp):
    (tmp / 'runs').write_text('not a folder\n')
    with FakeServer() as s: return ingest(s.url, tmp / 'runs')

def second_writer(tmp):
    "A log with turns, which another process writes while this run asks to go on with it."
    with FakeServer() as s:
        assert ingest(s.url, tmp / 'runs').returncode == 0
        with LogWriter(tmp / 'runs' / 'transcripts' / f'{Q}.jsonl'):
            return ingest(s.url, tmp / 'runs', '--resume', '--limit', '3')

def dns_failure(tmp): return ingest('http://no-such-model-host.invalid:8000/v1', tmp / 'runs')

def refused_local(tmp): return ingest(f'http://127.0.0.1:{free_port()}/v1', tmp / 'runs')

CASES = {unkeyed: ['HTTP 401', 'no key was sent: set MEMGATE_API_KEY'],
         unknown_model: ["HTTP 404", "no-such-model"],
         log_folder_a_file: ['runs is a file, not a folder: the log folder (--log-dir) must be one'],
         second_writer: ['is being written by another memgate process (pid '],
         dns_failure: ["the host name 'no-such-model-host.invalid' does not resolve"],
         refused_local: ['nothing is listening at http://127.0.0.1:', 'start the model server']}

@pytest.mark.parametrize('case', CASES, ids=[f.__name__ for f in CASES])
def test_a_failure_a_resume_cannot_cure_offers_no_resume_and_says_what_helps(tmp_path, case):
    r = case(tmp_path)
    assert r.returncode != 0 and 'Traceback' not in r.stderr, r.stderr
    assert '--resume' not in r.stderr and 'go on where it stopped' not in r.stderr, r.stderr
    for words in CASES[case]: assert words in r.stderr, r.stderr
    # and no key of the server's is ever shown
    assert 'sk-the-servers-own' not in r.stderr + r.stdout

def test_a_local_server_that_exits_after_its_first_answer_is_named_as_stopped_and_resume_goes_on(tmp_path):
    s = FakeServer(stop_after=1).start()
    r = ingest(s.url, tmp_path / 'runs', '--retries', '1', '--limit', '3')
    assert r.returncode == 1, r.stderr
    assert (f"{s.url}/chat/completions: the model server stopped: it took connections before and refuses them now "
            "(gave up after 2 tries), so it may have crashed (its own output says why): start it again") in r.stderr
    # once it runs again, the resume offered goes on
    (again,) = [line for line in r.stderr.splitlines() if line.startswith('go on where it stopped with: ')]
    assert again.endswith(' --resume')
    with FakeServer(port=s.port) as s2:
        r2 = ingest(s2.url, tmp_path / 'runs', '--resume', '--limit', '3')
    assert r2.returncode == 0 and len(s2.requests) == 2, r2.stderr
